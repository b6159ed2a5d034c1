"""The ``mdmem`` command line put together: the shared app (:mod:`mdmem.cli.common`) with the vault's
commands (:mod:`mdmem.cli.commands`) and the agents' (:mod:`mdmem.cli.agents`) registered on it.
``mdmem hook stop|session-start|...`` never comes here: :mod:`mdmem.__main__` hands it to
:mod:`mdmem.cli.hook` first."""

from __future__ import annotations

import os

from mdmem.cli import (
    agents,  # noqa: F401  (registers every command: agents imports the vault's commands first)
    history,  # noqa: F401  (mdmem import)
)
from mdmem.cli.common import app

__all__ = ["app", "run"]

LONG_RUNNING = ("mcp", "watch")  # servers keep Python's cyclic garbage collector on


def run() -> None:
    import sys

    os.environ.setdefault("TYPER_USE_RICH", "0")
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    _only(name)
    if name and not name.startswith("-") and name not in LONG_RUNNING:
        _no_cycle_collection()
    try:
        app()
    finally:
        _skip_exit_collection()


def _no_cycle_collection() -> None:
    """Turn Python's cyclic garbage collector off for a command that ends (all but :data:`LONG_RUNNING`):
    a `search` process ran ~100 collections (imports, then the 10k-entry scan and notes-cache dicts while
    young), 13-18 ms of CPU of a ~300 ms process, measured with ``gc.callbacks`` on the generated 10k
    vault. mdmem's work makes next to no cyclic garbage (15 unreachable objects after parsing and
    indexing 1,000 notes with the collector off), so memory does not grow without it; reference
    counting still frees everything else at once. Build workers are forked and inherit it."""
    import gc

    gc.disable()


def _skip_exit_collection() -> None:
    """Freeze every object left for the garbage collector (``gc.freeze``) as the command ends, so the
    collection Python runs while it shuts down does not walk them all once more: Whoosh's and Typer's
    classes and modules are full of reference cycles. Measured on a process that imports the search path
    (Typer, Whoosh, markdown-it, yaml), 15 interleaved pairs under load: 1.18x less CPU with the freeze,
    within 2% of skipping the shutdown altogether (``os._exit``), ~20 ms. Shutdown itself still runs:
    ``atexit`` handlers, flushing stdout and stderr, closing what is still open."""
    import gc

    gc.freeze()


def _only(name: str) -> None:
    """Build only the command asked for: Typer turns every registered command into a click command
    (signature introspection) before it dispatches, ~35 ms of a search process for 34 commands.
    ``mdmem --help`` and unknown names keep them all."""
    if not name or name.startswith("-"):
        return
    picked = [c for c in app.registered_commands
                if (c.name or (c.callback.__name__.replace("_", "-") if c.callback else "")) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if picked or groups:
        app.registered_commands, app.registered_groups = picked, groups

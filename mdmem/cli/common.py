"""What every command shares: the Typer ``app``, the common options, the one error boundary
(:func:`errors`, around every command the app runs: :class:`Boundary`) and the way a command opens its vault
(:func:`open_memory`). The commands live in
:mod:`mdmem.cli.commands` and :mod:`mdmem.cli.agents`; :mod:`mdmem.cli.app` puts them together.

Every command takes ``--vault`` (else ``MDMEM_VAULT``, else the nearest vault
above the current folder, else the default vault) and brings derived state up
to date before it answers. Domain errors become a message on stderr and exit
code 1 (2 for usage), never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from mdmem import __version__
from mdmem.base.state import state_folder


class Boundary(TyperGroup):
    """The app's command group: every command runs inside :func:`errors` (defined below), so no command
    wraps itself."""

    def invoke(self, ctx):
        with errors():
            return super().invoke(ctx)


app = typer.Typer(
    name="mdmem",
    cls=Boundary,
    help="Markdown-vault memory for AI agents and the people who work with them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

VaultOpt = Annotated[
    Optional[Path],
    typer.Option("--vault", help="Vault folder (else MDMEM_VAULT, the nearest mdmem vault, the nearest Obsidian "
                 "vault, the default vault).",
                 show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]
OwnerOpt = Annotated[Optional[str], typer.Option(
    "--project", help="The project the memory belongs to (default: the git repository of the current folder, its "
    "name or its [projects] mapping).", show_default=False)]
GlobalOpt = Annotated[bool, typer.Option("--global", help="A global memory, of no project.")]
JudgeOpt = Annotated[Optional[str], typer.Option(
    "--judge", help="A model command that confirms or clears a guessed duplicate (e.g. 'claude -p'): the note it "
    "names is refused as a repeat (default: MDMEM_JUDGE or [judge] command in ~/.mdmem/config.toml; '' for none).",
    show_default=False)]
SeenOpt = Annotated[Optional[str], typer.Option(
    "--project", help="Whose project memories to include: a project's name, or all (default: the global ones and "
    "those of the current folder's project).", show_default=False)]
ModeOpt = Annotated[Optional[str], typer.Option("--mode", help="lexical (BM25F), semantic (by meaning: the "
                                                "`semantic` extra), hybrid (both fused) or auto (hybrid where "
                                                "the vault has vectors, else lexical); default from [search] "
                                                "mode.", show_default=False)]
SensitiveOpt = Annotated[bool, typer.Option("--include-sensitive", help="Include notes marked sensitive.")]
TodayOpt = Annotated[Optional[str], typer.Option("--today", envvar="MDMEM_TODAY", help="Take this YYYY-MM-DD as "
                                                 "today.", show_default=False)]
NoteArg = Annotated[str, typer.Argument(help="A vault path, a file name or a title.", show_default=False)]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mdmem {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Markdown-vault memory for AI agents and the people who work with them."""


@contextmanager
def errors() -> Iterator[None]:
    """The CLI's one error boundary: a domain error, the file system's refusal, a full notes cache or ^C
    become one line on stderr and an exit code, never a traceback."""
    from mdmem.base.errors import MdmemError
    from mdmem.cli.render import message

    try:
        yield
    except MdmemError as e:
        message(f"mdmem: {e}")
        raise typer.Exit(e.exit_code) from None
    except OSError as e:  # the file system said no (permissions, a full disk, a file where a folder goes)
        message(f"mdmem: {e.strerror or e}" + (f": {e.filename}" if e.filename else ""))
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        message("mdmem: interrupted")
        raise typer.Exit(130) from None
    except Exception as e:
        import sys

        sqlite3 = sys.modules.get("sqlite3")  # loaded with the notes cache; never imported here for nothing
        if sqlite3 is not None and isinstance(e, sqlite3.Error):  # a full disk, a read-only .mdmem/
            message(f"mdmem: the notes cache (.mdmem/notes.db) failed: {e} (is the disk full, or .mdmem/ "
                    "not writable?)")
            raise typer.Exit(1) from None
        raise


def vault_root(vault: Path | None, adopt: bool = False, read: bool = False) -> Path:
    """The vault (:func:`mdmem.base.vault.find_vault`; ``adopt``: a folder given is taken even when it holds
    nothing of a vault yet; ``read``: a reading command takes a folder of notes given with no vault marker, and
    says so in one line on stderr). When it was found rather than given (no --vault, no MDMEM_VAULT), say which
    on stderr: on a terminal only, never with --json. A problem with the vault's Obsidian settings (a broken
    ``.obsidian/app.json``) is one line on stderr; the command goes on with Obsidian's defaults."""
    from mdmem.base.obsidian import obsidian_settings
    from mdmem.base.vault import READING_MARK, find_vault, looks_like_vault
    from mdmem.cli.render import message

    root = find_vault(vault, adopt=adopt, read=read)
    if vault is None and not os.environ.get("MDMEM_VAULT") and is_tty() and not _params().get("json"):
        message(f"vault: {root}")
    if adopt:  # `mdmem index` makes a folder of notes a vault, as it always did
        Path(state_folder(root), READING_MARK).unlink(missing_ok=True)
    elif read and vault is not None and not looks_like_vault(root):  # a --vault folder of notes (find_vault)
        import shlex

        from mdmem.base.files import write_atomic
        from mdmem.base.state import state_dir

        message(f"mdmem: {root} has no vault markers (MEMORY.md, memory/, .obsidian/, .mdmem/): read as a folder of "
                f"notes; `mdmem init {shlex.quote(str(root))}` before writing to it")
        mark = state_dir(root) / READING_MARK  # the index it needs must not make it a vault for the writers
        if not mark.exists():
            write_atomic(mark, b"made by a read of a folder with no vault markers; `mdmem init` removes it\n")
    for problem in obsidian_settings(root).problems:
        message(f"mdmem: {problem}")
    return root


def _params() -> dict:
    """The running command's parameters, from the click that Typer runs on (Typer 0.28 carries its
    own copy as ``typer._click``; earlier ones use ``click``): found through ``typer.Context``."""
    import importlib

    core = next(c for c in typer.Context.__mro__ if c.__name__ == "Context" and c.__module__.endswith(".core"))
    ctx = importlib.import_module(core.__module__.rsplit(".", 1)[0] + ".globals").get_current_context(silent=True)
    return ctx.params if ctx is not None else {}


@contextmanager
def open_memory(vault: Path | None, refresh: bool = True, progress: bool = False, write: bool = False,
                read: bool = False):
    """Open the vault and bring it up to date. Commands tolerate a busy writer; read commands also a full
    disk (they answer from the index there is); a ``write`` command then fails with the disk's one line.
    ``read``: a command that only reads (it may be given a folder of notes with no vault marker)."""
    from mdmem.api import Memory
    from mdmem.cli.render import message

    with Memory(vault_root(vault, read=read)) as mem:
        if refresh:
            result = mem.refresh(strict=False, no_room_ok=not write)
            if result.why == "no room":
                message("mdmem: the index could not be updated (is the disk full, or .mdmem/ not writable?); "
                        "results may be behind the files")
            elif result.stale:
                message("mdmem: another process is updating the index; results may be a moment behind")
        yield mem


def date_option(value: str | None, name: str, end: bool = False) -> str | None:
    """``YYYY-MM-DD`` as is; ``YYYY-MM`` as the month's first (or, for an end, last) day."""
    if value is None:
        return None
    from mdmem.api import iso_bound

    try:
        return iso_bound(value, end)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint=name) from None


def day_option(value: str | None, name: str = "--today"):
    """A ``YYYY-MM-DD`` option as a ``datetime.date`` (None when not given)."""
    if not value:
        return None
    import datetime as dt

    if len(value) != 10:
        raise typer.BadParameter(f"wants a date as YYYY-MM-DD, not {value!r}", param_hint=name)
    return dt.date.fromisoformat(date_option(value, name) or value)


def judge_option(value: str | None):
    """``--judge``: the given command ('' for none), else the user's own setting (:func:`mdmem.base.settings.judge`)."""
    from mdmem.base.settings import Judge, judge

    if value is None:
        return judge()
    return Judge(value.strip()) if value.strip() else None


def is_tty() -> bool:
    import sys

    return sys.stderr.isatty()

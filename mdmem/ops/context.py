"""``mdmem context``: the block an agent gets in its prompt, never over its budget (UTF-8 bytes).

Sections, in order, each only when it fits whole: bootstrap files, protocols whose ``paths:`` match,
then the card (``index`` mode, the default: the same bytes for the same vault), the fuller ``full``
block, or nothing (``off``); made by :mod:`mdmem.ops.block`. The budget counts UTF-8 bytes; sensitive notes,
index notes and notes that no longer hold never appear.

Details and reasons: docs/decisions/056-prompt-recall-and-card.md
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from mdmem.base.errors import UsageError
from mdmem.ops.block import DEFAULT_BUDGET, MODES, assemble
from mdmem.ops.block import card as card  # (re-exported: the card alone)
from mdmem.ops.fit import size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdmem.base.projects import Scope
    from mdmem.ops.block import Source


@dataclass(frozen=True)
class Section:
    name: str
    chars: int
    source: str | None = None
    bytes: int = 0  # what the budget counts (UTF-8)


@dataclass(frozen=True)
class ContextResult:
    mode: str
    budget: int  # bytes
    chars: int
    text: str
    sections: list[Section]
    omitted: list[str] = field(default_factory=list)  # sections that did not fit
    bytes: int = 0
    shown: list[str] = field(default_factory=list)  # the memory notes the card names (index mode): used, each time


def context(mem: Source, mode: str = "index", budget: int = DEFAULT_BUDGET, query: str | None = None,
            paths: list[str] | tuple[str, ...] = (), include_sensitive: bool = False, cwd: Path | None = None,
            today: dt.date | str | None = None, protocol: str | None = None, command: str = "mdmem {}",
            scope: Scope | None = None, bootstrap: bool = True) -> ContextResult:
    """The context block; ``protocol`` is the memory protocol's text (default :func:`mdmem.text.protocol.memory_protocol`);
    ``command``: how the commands it names are written, ``{}`` standing for the arguments (the SessionStart card
    gives this install's runner and ``--vault``: the agent's shell runs in the project, not the vault).
    ``scope``: whose project memories it holds (:mod:`mdmem.base.projects`: the global ones and the session's
    project's; None: every note). ``bootstrap=False`` leaves the project's AGENTS.md and friends out (a card
    written into AGENTS.md itself)."""
    if mode not in MODES:
        raise UsageError(f"--mode must be one of: {', '.join(MODES)}")
    if budget < 200:
        raise UsageError("--budget must be at least 200 bytes")
    if mode == "off":
        return ContextResult(mode, budget, 0, "", [], [])
    b, named = assemble(mem, mode, budget, query, paths, include_sensitive, cwd, today, protocol, command, scope,
                        bootstrap)
    text = b.text()
    return ContextResult(mode, budget, len(text), text, [Section(*s) for s in b.sections], b.omitted, size(text),
                         named)

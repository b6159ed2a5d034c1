"""Search as people and agents get it (``mdmem search``, MCP ``search``, ``recall``): ranked notes
from :meth:`Memory.search <mdmem.engine.memory.Memory.search>` without sync conflict copies.

Sync conflict copies stay out until resolved. Superseded or expired notes are kept, marked, and
placed right after their successor (:func:`after_successors`); recall, context and the prompt hook
ask for current notes only.

Details and reasons: docs/decisions/057-passages-and-hybrid-search.md
"""

from __future__ import annotations

import datetime as dt

from mdmem.base.layout import sync_conflicts

TYPE_CHECKING = False  # not `from typing import`: the card's hook reads the standing and conflicts from here
if TYPE_CHECKING:
    from mdmem.engine.heads import HeadReader
    from mdmem.engine.index import Filters
    from mdmem.engine.memory import Memory, SearchResult

_CACHE: list = [None, {}]  # (the scan it was computed from, its conflicts): the MCP server asks at every call


def conflicts(mem: Memory | HeadReader) -> dict[str, tuple[str, str]]:
    """The vault's sync conflict copies: copy -> (original, tool). ~10 ms at 10k notes, so kept per scan."""
    scan = mem.scan
    if _CACHE[0] is not scan:
        _CACHE[:] = [scan, sync_conflicts(scan.notes)]
    return _CACHE[1]


class Standing:
    """Which notes still hold on ``today``: ``superseded_by`` (old path -> the notes superseding it) and
    ``valid_until`` (path -> ISO date) for the notes that declare one. (A plain class, not a dataclass: the card's
    hook reads it and does not import ``dataclasses``.)"""

    __slots__ = ("superseded_by", "today", "valid_until")

    def __init__(self, today: str, superseded_by: dict[str, list[str]], valid_until: dict[str, str]) -> None:
        self.today, self.superseded_by, self.valid_until = today, superseded_by, valid_until

    def expired(self, path: str) -> bool:
        return self.valid_until.get(path, self.today) < self.today

    def holds(self, path: str) -> bool:
        """Neither superseded nor expired."""
        return path not in self.superseded_by and not self.expired(path)

    @property
    def hidden(self) -> set[str]:
        return set(self.superseded_by) | {p for p in self.valid_until if self.expired(p)}


def iso_day(today: dt.date | str | None = None) -> str:
    """``today`` as YYYY-MM-DD (None: the real today)."""
    return today if isinstance(today, str) else (today or dt.date.today()).isoformat()


def standing(mem: Memory | HeadReader, today: dt.date | str | None = None) -> Standing:
    """The vault's :class:`Standing` on ``today`` (from the notes cache: one query)."""
    by, until = mem.store.standing()
    return Standing(iso_day(today), by, until)


def mark(hit, known: Standing):
    """A search hit with its ``superseded_by`` / ``valid_until`` / ``expired`` set (unchanged when it has none)."""
    by, until = known.superseded_by.get(hit.path), known.valid_until.get(hit.path)
    if by is None and until is None:
        return hit
    from dataclasses import replace

    return replace(hit, superseded_by=list(by) if by else None, valid_until=until, expired=known.expired(hit.path))


def search(mem: Memory, query: str, limit: int = 10, filters: Filters | None = None, recency=None,
           mode: str | None = None, explain: bool = False, fusion=None, *, current: bool = False,
           today: dt.date | str | None = None) -> SearchResult:
    """:meth:`Memory.search` without sync conflict copies, each superseded or expired note marked; with
    ``current`` without them either (recall, context). More hits are asked for, as many as are left out,
    so ``limit`` still fills."""
    from dataclasses import replace

    from mdmem.engine.index import Filters

    if filters is not None and filters.type:
        known_type(mem, filters.type)
    hidden = set(conflicts(mem))
    known = standing(mem, today)
    if current and (known.superseded_by or known.valid_until):
        hidden |= set(known.hidden)
    result = mem.search(query, limit + min(len(hidden), 100), filters or Filters(), recency, mode, explain, fusion)
    hits = [mark(h, known) for h in result.results if h.path not in hidden]
    if known.superseded_by:
        hits = after_successors(hits)
    return replace(result, results=hits[:limit])


def known_type(mem: Memory, kind: str) -> None:
    """Refuse a ``type`` filter no note can have (:class:`~mdmem.base.errors.UsageError`, listing the valid
    ones, as ``save`` does): one of mdmem's types, or any ``type:`` a note of the vault has (a vault may keep
    its own, ``meeting``...). A mistyped ``--type decisions`` answered "no notes match", as if the vault held
    none. The vault's types come from the index's lexicon of the field (no note is read)."""
    from mdmem.base.errors import UsageError
    from mdmem.base.layout import TYPE_FOLDERS

    valid = {*TYPE_FOLDERS, "digest"} | mem.index.types()
    if kind.lower() not in valid:
        raise UsageError(f"unknown type {kind!r}: choose one of {', '.join(sorted(valid))}")


def after_successors(hits: list) -> list:
    """``hits`` with each superseded hit moved to just after the last of its successors that is also a hit,
    when one ranks below it (chains settle: B supersedes A, C supersedes B gives C, B, A). Every other hit keeps
    its order. At most a few dozen hits: quadratic is nothing here."""
    out = list(hits)
    for _ in range(len(out)):
        moved = False
        for i, hit in enumerate(out):
            by = set(hit.superseded_by or ())
            last = max((j for j, other in enumerate(out) if other.path in by), default=-1)
            if last > i:
                out.insert(last, out.pop(i))
                moved = True
                break
        if not moved:
            break
    return out


def without_conflicts(mem: Memory, notes):
    """``notes`` (an iterable of Note) less the sync conflict copies."""
    hidden = conflicts(mem)
    return [n for n in notes if n.path not in hidden] if hidden else list(notes)

"""Search as people and agents get it (``mdmem search``, MCP ``search``, ``recall``): ranked notes
from :meth:`Memory.search <mdmem.engine.memory.Memory.search>` without sync conflict copies.

A copy a sync tool left beside a note (``x (conflicted copy 2024-05-01).md``,
``x.sync-conflict-20240501-123456-ABCDEFG.md``, ``x 2.md`` written within minutes of ``x.md``: the rule
is :func:`mdmem.base.layout.sync_conflicts`) is a second, diverging version of a memory: it stays out of
search, recall, context and timeline until someone resolves it, and ``check`` reports it
(``SYNC CONFLICT``). It is still a note: ``show``, ``read_note`` and ``forget`` reach it by its path.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from mdmem.base.layout import sync_conflicts

if TYPE_CHECKING:
    from mdmem.engine.index import Filters
    from mdmem.engine.memory import Memory, SearchResult

_CACHE: list = [None, {}]  # (the scan it was computed from, its conflicts): the MCP server asks at every call


def conflicts(mem: Memory) -> dict[str, tuple[str, str]]:
    """The vault's sync conflict copies: copy -> (original, tool). ~10 ms at 10k notes, so kept per scan."""
    scan = mem.scan
    if _CACHE[0] is not scan:
        _CACHE[:] = [scan, sync_conflicts(scan.notes)]
    return _CACHE[1]


def search(mem: Memory, query: str, limit: int = 10, filters: Filters | None = None, recency=None,
           mode: str | None = None, explain: bool = False, fusion=None) -> SearchResult:
    """:meth:`Memory.search` without sync conflict copies (asking for as many more hits as there are
    copies, so ``limit`` still fills)."""
    from mdmem.engine.index import Filters

    hidden = conflicts(mem)
    result = mem.search(query, limit + min(len(hidden), 100), filters or Filters(), recency, mode, explain, fusion)
    hits = [h for h in result.results if h.path not in hidden][:limit]
    return replace(result, results=hits)


def without_conflicts(mem: Memory, notes):
    """``notes`` (an iterable of Note) less the sync conflict copies."""
    hidden = conflicts(mem)
    return [n for n in notes if n.path not in hidden] if hidden else list(notes)

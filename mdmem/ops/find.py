"""``mdmem search`` and MCP ``search`` (the public :func:`mdmem.search`): the ranked notes of
:func:`mdmem.ops.search.search`, and imported past sessions (``sessions/``, written by ``mdmem import``) apart.

Sessions are a record of what was said, not memory: a user with 10,000 of them searches their notes. So they
are never among the notes unless the filters ask for them (``type="session"``, a folder under ``sessions/``),
and come after them, as :func:`mdmem.ops.sessions.recall_sessions` finds them, when asked, when the query is
about a past conversation (:func:`mdmem.text.past.about_past`, as recall decides), or when no note answers
(decision 110). Recall and the prompt hook keep their own rules (sessions first, for the past only).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mdmem.engine.index import Filters, SearchResult
    from mdmem.engine.memory import Memory


def search(mem: Memory, query: str, limit: int = 10, filters: Filters | None = None, recency=None,
           mode: str | None = None, explain: bool = False, fusion=None, *, current: bool = False,
           today: dt.date | str | None = None, sessions: bool | None = None) -> SearchResult:
    """:func:`mdmem.ops.search.search` without imported sessions among the notes (masked in the index search:
    the notes still fill ``limit``) unless ``filters`` ask for them; the result's ``sessions`` holds those that
    answer the query when ``sessions`` is True, or, when it is None, when the query asks about a past
    conversation or no note answers, unless the search is narrowed by a type, tag, folder or date (what it
    asked for is the answer). ``sessions=False``: never."""
    from mdmem.engine.index import Filters
    from mdmem.ops import search as ranked
    from mdmem.ops.sessions import hidden_type, is_session, recall_sessions
    from mdmem.text.past import about_past

    filters = filters or Filters()
    asked_for = (filters.type or "").lower() == "session" or is_session((filters.folder or "").strip("/") + "/")
    hide = None if asked_for else hidden_type(mem)
    if hide and filters.not_type is None:
        filters = replace(filters, not_type=hide)
    result = ranked.search(mem, query, limit, filters, recency, mode, explain, fusion, current=current, today=today)
    if not hide:
        return result
    result = replace(result, results=[h for h in result.results if not is_session(h.path)])
    narrowed = any((filters.type, filters.tag, filters.folder, filters.after, filters.before))
    if sessions is False or (sessions is None and not about_past(query) and (result.results or narrowed)):
        return result
    return replace(result, sessions=recall_sessions(mem, query, limit, today).hits)

"""The bound on a query's length: one rule for search, recall, timeline, context and forget, from the
CLI, the MCP server and the library alike.

Whoosh's query parser grows faster than linearly with the query: measured here (sample vault, 2 cores
under a load of ~6) a 1,000-character query parses in 3-50 ms depending on its shape (plain words,
quotes, parentheses, ``AND NOT``, wildcards; 50-125 ms for the whole search), 5,000 characters in up to
370 ms, and 40,000 characters took 9.6 s, all that time holding the MCP server's one worker. A thousand
characters is ~150 words, far more than any question; a longer text is refused with one line (CLI exit
2, an MCP tool error) instead of being cut, so nobody gets results for a query they did not write.
"""

from __future__ import annotations

from mdmem.base.errors import UsageError

MAX_QUERY_CHARS = 1000


def check_query(text: str, what: str = "query") -> str:
    """``text`` when it is at most :data:`MAX_QUERY_CHARS` characters; else :class:`UsageError`."""
    if len(text) > MAX_QUERY_CHARS:
        raise UsageError(f"the {what} is {len(text):,} characters long; the most is {MAX_QUERY_CHARS:,}: "
                         "shorten it to the words that matter")
    return text

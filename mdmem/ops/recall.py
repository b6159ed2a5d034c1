"""``mdmem recall``: ranked search hits plus a one-hop graph expansion around
them, rendered as a Markdown block for a prompt that never exceeds its budget.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/ops/recall.py).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from mdmem.base.projects import Scope
from mdmem.base.settings import Fusion, Recency
from mdmem.base.usage import record
from mdmem.engine.memory import Memory
from mdmem.ops.scope import from_other, memory_paths, owner, seen

DEFAULT_BUDGET = 4000


@dataclass(frozen=True)
class RecallItem:
    path: str
    title: str
    reason: str
    score: float
    text: str  # what the Markdown block shows of the note


@dataclass(frozen=True)
class RecallResult:
    query: str
    budget: int
    ranked: list[RecallItem]
    related: list[RecallItem]
    markdown: str
    window: dict | None = None  # {"phrase", "start", "end"} when the query named a time
    entries: list = field(default_factory=list)  # the window's timeline entries shown
    sessions: list = field(default_factory=list)  # past sessions shown (mdmem.ops.sessions.SessionHit)
    elsewhere: dict = field(default_factory=dict)  # project name -> its memories that matched, hidden by the scope


def _plain(snippet: str) -> str:
    return snippet.replace("**", "")


def _words(text: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in text.casefold()).split())


def _unsaid(description: str, snippet: str) -> list[str]:
    """The description and the snippet to show, each only when the other does not say it already (a note
    saved without a description has its first line as both: recall printed that sentence twice)."""
    d, s = _words(description.rstrip("…")), _words(snippet.replace("…", " "))
    if d and s and d in s:
        return [snippet]
    if d and s and s in d:
        return [description]
    return [x for x in (description, snippet) if x]


MEMORY_FIRST_GENERAL = 2  # the most general (non-memory) notes shown after the memory notes that matched


def memory_first(hits: list, memory: frozenset[str] | set[str], limit: int) -> list:
    """The hits with the memory notes first (in their order), then the vault's other notes only where they may
    add something: all of them when no memory note matched; else at most :data:`MEMORY_FIRST_GENERAL`, and only
    those scoring at least as high as the best memory note (a help page weaker than the saved decision is
    noise). At most ``limit`` in all."""
    mine = [h for h in hits if h.path in memory]
    rest = [h for h in hits if h.path not in memory]
    if not mine:
        return rest[:limit]
    top = max(h.score for h in mine)
    extra = [h for h in rest if h.score >= top][:MEMORY_FIRST_GENERAL]
    return (mine + extra)[:limit] if len(mine) < limit else mine[:limit]


def recall(
    mem: Memory, query: str, *, budget: int = DEFAULT_BUDGET, limit: int = 5, recency: Recency | None = None,
    include_sensitive: bool = False, today: dt.date | str | None = None, mode: str | None = None,
    fusion: Fusion | None = None, sessions: bool | None = None, scope: Scope | None = None,
) -> RecallResult:
    """Ranked notes for ``query``, their linked notes, and a time phrase's dated entries, within ``budget``
    characters. ``recency``, ``mode`` and ``fusion`` default to the vault's ``[search]`` settings.

    Imported past sessions (``sessions/``) are not memory: they never rank among the notes. With ``sessions``
    (or, when it is None, a question about past conversations: :func:`mdmem.text.past.about_past`) the past
    sessions that answer it come first, in at most half the budget (:func:`mdmem.ops.sessions.recall_sessions`).
    ``scope``: whose project memories it may show (:mod:`mdmem.base.projects`; None: all); a memory of
    another project than the scope's own is marked "from project Q". In a vault holding memory and other notes,
    the memory notes come first (:func:`memory_first`)."""
    from mdmem.engine.index import Filters
    from mdmem.ops.search import conflicts, search, standing
    from mdmem.ops.sessions import hidden_type, is_session
    from mdmem.ops.timeline import TimelineEntry, collect, is_sensitive
    from mdmem.text import temporal
    from mdmem.text.past import about_past
    from mdmem.text.query import check_query

    check_query(query)
    if sessions is None:
        sessions = about_past(query)
    day = dt.date.fromisoformat(today) if isinstance(today, str) else (today or dt.date.today())
    span = temporal.parse(query, day)
    words = span.rest if span else query
    entries: list[TimelineEntry] = []
    gone = standing(mem, day).hidden  # superseded or expired: not memory any more
    if span:
        entries = [e for e in collect(mem, span.start, span.end, words, include_sensitive)
                   if e.path not in gone and not is_session(e.path)]
        if not entries and words.strip():  # the words match nothing there
            entries = [e for e in collect(mem, span.start, span.end, "", include_sensitive)
                       if e.path not in gone and not is_session(e.path)]
        filters = Filters(after=span.start.isoformat(), before=span.end.isoformat(), not_type=hidden_type(mem))
        hits = search(mem, words, limit * 3, filters, recency, mode, fusion=fusion, current=True,
                      today=day).results if words.strip() else []
    else:
        hits = search(mem, query, limit * 3, Filters(not_type=hidden_type(mem)), recency=recency, mode=mode, fusion=fusion,
                      current=True, today=day).results
    hits = [h for h in hits if not is_session(h.path)]
    if not include_sensitive:
        hits = [h for h in hits if not ((n := mem.store.get(h.path)) is not None and is_sensitive(n))]
    elsewhere: dict[str, int] = {}  # another project's memories that match: counted, said in one line
    if scope is not None:
        mine = []
        for h in hits:
            name = owner(mem, h.path)
            if scope.sees_name(name):
                mine.append(h)
            elif name is not None:
                elsewhere[name] = elsewhere.get(name, 0) + 1
        hits = mine
    kept = memory_paths(mem)
    hits = memory_first(hits, kept, limit)
    graph = mem.graph()
    copies = conflicts(mem)
    shown = {hit.path for hit in hits}
    weight: dict[str, float] = defaultdict(float)
    why: dict[str, list[str]] = defaultdict(list)
    for rank, hit in enumerate(hits, 1):
        if graph.is_index(hit.path):
            continue  # an index (asked for by --include-index) relates nothing: it links everything
        for nb in graph.neighbors(hit.path, depth=1):  # index notes are never neighbours
            if (nb.path in shown or nb.path in copies or nb.path in gone or is_session(nb.path)
                    or not seen(mem, nb.path, scope)):  # a sync conflict copy is not a
                # memory until resolved; a superseded note is linked from the one superseding it
                continue
            weight[nb.path] += nb.weight / rank
            verb = {"out": "linked from", "in": "links to", "both": "linked with"}[nb.direction]
            why[nb.path].append(f"{verb} {hit.title}")
    candidates = sorted(weight, key=lambda p: (-weight[p], p))[: limit * 2]

    shown_query = query if len(query) <= budget // 4 else query[: budget // 4 - 1].rstrip() + "…"
    header = f"## Memory recall: {shown_query}\n"
    used = len(header)
    ranked: list[RecallItem] = []
    blocks: list[str] = [header]
    past: list = []
    if sessions:  # asked about past conversations: the sessions that answer come first, in half the budget
        from mdmem.ops.sessions import recall_sessions

        found = recall_sessions(mem, query, limit, day, (budget - used) // 2)
        if found.markdown:
            blocks.append(found.markdown)
            used += len(found.markdown)
            past = [h for h in found.hits if h.link.removesuffix("]]") in found.markdown]
    shown_entries: list[TimelineEntry] = []
    if span:
        head = f"\n### {span.phrase} ({span.start.isoformat()} – {span.end.isoformat()})\n"
        if entries and used + len(head) < budget:
            blocks.append(head)
            used += len(head)
            for e in entries:
                line = f"- {e.date}{' ' + e.time if e.time else ''} {e.title}" + \
                    (f" ({e.kind})" if e.kind != "daily" else "") + f": {e.text}\n"
                if used + len(line) > budget:
                    break
                blocks.append(line)
                used += len(line)
                shown_entries.append(e)
        elif not entries and not hits:  # an empty window must not read as an empty answer
            from mdmem.ops.timeline import dated

            count, nearest = dated(mem, span.start, span.end, include_sensitive, gone)
            line = head + "Nothing is dated in this window; " + (
                f"{count} note{' is' if count == 1 else 's are'} dated, the nearest on {nearest}.\n" if nearest else
                "nothing in this vault is dated (daily notes, created: or updated: dates).\n")
            if used + len(line) <= budget:
                blocks.append(line)
                used += len(line)
    general = False
    for rank, hit in enumerate(hits, 1):
        note = mem.store.get(hit.path)
        description = str(note.frontmatter.get("description", "")).strip() if note else ""
        body = "\n".join(_unsaid(description, _plain(hit.snippet)))
        if hit.path not in kept and not general and rank > 1 and hits[0].path in kept:
            general = True
            blocks.append("\n### From your vault (not memory)\n")
            used += len(blocks[-1])
        other = from_other(mem, hit.path, scope)
        head = f"\n### {hit.title} ({hit.path}){f' — from project {other}' if other else ''}\n"
        room = budget - used - len(head) - 1
        if room < 40:
            break
        text = body if len(body) <= room else body[: room - 1].rstrip() + "…"
        block = head + text + "\n"
        blocks.append(block)
        used += len(block)
        ranked.append(RecallItem(hit.path, hit.title, f"search rank {rank}", hit.score, text))

    related: list[RecallItem] = []
    title_line = "\n### Related\n"
    for path in candidates:
        note = mem.store.get(path)
        if note is None or (not include_sensitive and is_sensitive(note)):
            continue
        description = str(note.frontmatter.get("description", "")).strip()
        reason = "; ".join(why[path][:2])
        line = f"- {note.title} ({path}) — {reason}" + (f": {description}" if description else "") + "\n"
        extra = len(line) + (len(title_line) if not related else 0)
        if used + extra > budget:
            continue
        if not related:
            blocks.append(title_line)
        blocks.append(line)
        used += extra
        related.append(RecallItem(path, note.title, reason, round(weight[path], 4), description))
    if len(blocks) == 1:  # the header alone would read as an answer cut off: say that nothing was found
        blocks.append("\nNothing found: no notes match" + (" in this project's memories or the global ones.\n"
                                                         if elsewhere else ".\n"))
    if elsewhere:  # hidden by the project scope: a user asking in B should know A holds an answer
        count = sum(elsewhere.values())
        names = ", ".join(f"{name} ({n})" for name, n in sorted(elsewhere.items(), key=lambda kv: (-kv[1], kv[0])))
        line = (f"\n{count} more match{'' if count > 1 else 'es'} in other projects' memories: {names}; "
                "ask with project all (--project all) to see them.\n")
        if used + len(line) <= budget:
            blocks.append(line)
            used += len(line)
    record(mem.state_dir, [i.path for i in ranked + related], "recall")  # derived: when each memory was used
    window = {"phrase": span.phrase, "start": span.start.isoformat(), "end": span.end.isoformat()} if span else None
    return RecallResult(query, budget, ranked, related, "".join(blocks), window, shown_entries, past, elsewhere)

"""``mdmem timeline``: dated entries in a window of time.

Entries are the daily notes' ``## HH:MM`` entries (a daily note without any
is one entry for its day; a note named ``YYYY-MM-DD.md`` anywhere, as Obsidian's
daily notes are, is a daily note unless its frontmatter declares another type) and the other notes by their frontmatter
``created`` and ``updated`` dates. The window comes from ``when`` (a time
phrase, see :mod:`mdmem.text.temporal`), else from a time phrase inside the query
("what happened with billing last week"), else the last 30 days. The query's
other words narrow the entries to those that mention them (accents and case
folded, words compared by their first five letters, so "migração" finds
"migrações"); a daily entry is matched on its own text and its day's
frontmatter tags, so a ``#tag`` written in one entry selects that entry only. Newest first. Notes marked sensitive (``sensitive: true`` or a
``sensitive`` tag) are left out unless asked for.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass

from mdmem.base.errors import UsageError
from mdmem.engine.memory import Memory

DEFAULT_DAYS = 30
_WORD = re.compile(r"\w+")
_STOP = frozenset("""a an and are as at be by did do does for from had has have how i in is it of on or our so
that the their them they this to was we were what when where which who why will with you your about after before
o a os as e é de do da dos das em no na nos nas um uma que para pra com por se foi ser sobre quando onde quem
qual quais como porque há fizemos fiz decidimos""".split())


@dataclass(frozen=True)
class TimelineEntry:
    date: str           # YYYY-MM-DD
    time: str | None    # HH:MM for a daily entry
    kind: str           # "daily", "created" or "updated"
    path: str
    title: str
    type: str
    text: str           # the entry's first line, or the note's description


@dataclass(frozen=True)
class TimelineResult:
    query: str
    words: str          # the query without its time phrase
    phrase: str | None  # the time phrase used, if any
    start: str
    end: str
    entries: list[TimelineEntry]
    total: int          # entries in the window before ``limit``
    truncated: bool


def is_sensitive(note) -> bool:
    from mdmem.base.layout import is_sensitive as marked

    return marked(note.frontmatter, note.tags)


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in text if not unicodedata.combining(c))


def keys(text: str) -> set[str]:
    """The words of ``text`` that can match: folded, stop words out, first five letters."""
    return {w[:5] for w in _WORD.findall(fold(text)) if w not in _STOP and len(w) > 1}


def window(query: str, when: str | None, today: dt.date) -> tuple[dt.date, dt.date, str | None, str]:
    """(start, end, phrase, the query's other words)."""
    from mdmem.text import temporal

    if when:
        try:
            w = temporal.window_of(when, today)
        except ValueError as e:
            raise UsageError(str(e)) from None
        return w.start, w.end, w.phrase, " ".join(query.split())
    found = temporal.parse(query, today) if query else None
    if found:
        return found.start, found.end, found.phrase, found.rest
    return today - dt.timedelta(days=DEFAULT_DAYS - 1), today, None, " ".join(query.split())


def _day(value) -> str | None:
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()[:10]):
        try:
            return dt.date.fromisoformat(value.strip()[:10]).isoformat()
        except ValueError:
            return None
    return None


def _first_line(text: str, limit: int = 200) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("-*# ").strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


def daily_entries(mem: Memory, note) -> list[tuple[str | None, str]]:
    """(HH:MM, text) of a daily note's entries (:mod:`mdmem.text.daily`); one untimed entry when it has none."""
    from mdmem.base.files import read_bytes
    from mdmem.text.daily import entries, entries_plain
    from mdmem.text.parse import MAX_PARSE_BYTES, split_note

    try:
        data = read_bytes(mem.root, note.path)
    except OSError:
        return []
    body = split_note(data)[1]
    found = entries_plain(body) if len(data) > MAX_PARSE_BYTES else entries(body)
    if not found:
        return [(None, body)] if body.strip() else []
    return [(e.time, e.first + "\n" + e.text) for e in found]


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1][:-3]


def is_day_note(note) -> bool:
    """A daily note: ``type: daily`` (or a ``daily/`` folder), or a note named by its date
    (``2026-11-20.md``, Obsidian's daily notes, in any folder) that declares no other type."""
    if note.type == "daily":
        return True
    declared = note.frontmatter.get("type")
    return not (isinstance(declared, str) and declared.strip()) and _day(_stem(note.path)) is not None \
        and len(_stem(note.path)) == 10


def dated(mem: Memory, start: dt.date, end: dt.date, include_sensitive: bool = False,
          leave_out: frozenset[str] | set[str] = frozenset()) -> tuple[int, str | None]:
    """How many notes are dated at all (a daily note's day, a ``created`` or ``updated`` date), and the
    date among them nearest to the window ``start``..``end`` (the earlier one on a tie; None when nothing
    is dated), from the notes cache alone (no file is read): what an empty window says instead of
    nothing. ``leave_out``: notes that are not memory any more (superseded, expired)."""
    lo, hi = start.isoformat(), end.isoformat()
    count, best, gap = 0, None, None
    for note in mem.notes():
        if note.path == "MEMORY.md" or note.path in leave_out or (not include_sensitive and is_sensitive(note)):
            continue
        found = [_day(note.title) or _day(_stem(note.path)) or note.date] if is_day_note(note) else \
            [_day(note.frontmatter.get("created")), _day(note.frontmatter.get("updated"))]
        dates = [d for d in found if d]
        count += bool(dates)
        for d in dates:
            far = 0 if lo <= d <= hi else abs((dt.date.fromisoformat(d) - (start if d < lo else end)).days)
            if gap is None or (far, d) < (gap, best):
                best, gap = d, far
    return count, best


def _frontmatter_tags(note) -> list[str]:
    value = note.frontmatter.get("tags")
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [str(item) for item in items if item is not None]


def collect(mem: Memory, start: dt.date, end: dt.date, words: str = "",
            include_sensitive: bool = False) -> list[TimelineEntry]:
    """Every dated entry between ``start`` and ``end`` (inclusive) mentioning ``words``, newest first."""
    from mdmem.ops.search import without_conflicts

    lo, hi = start.isoformat(), end.isoformat()
    want = keys(words)
    out: list[TimelineEntry] = []
    for note in without_conflicts(mem, mem.notes()):
        if note.path == "MEMORY.md" or (not include_sensitive and is_sensitive(note)):
            continue
        if is_day_note(note):
            day = _day(note.title) or _day(_stem(note.path)) or note.date
            if not day or not lo <= day <= hi:
                continue
            day_tags = " ".join(_frontmatter_tags(note))  # the whole day's; a #tag in an entry is that entry's
            for time, text in daily_entries(mem, note):
                if want and not want & keys(text + " " + day_tags):
                    continue
                out.append(TimelineEntry(day, time, "daily", note.path, note.title, note.type, _first_line(text)))
            continue
        description = note.frontmatter.get("description")
        about = description.strip() if isinstance(description, str) and description.strip() else note.title
        if want and not want & keys(" ".join((note.title, about, " ".join(note.tags), " ".join(note.aliases)))):
            continue
        created, updated = _day(note.frontmatter.get("created")), _day(note.frontmatter.get("updated"))
        if created and lo <= created <= hi:
            out.append(TimelineEntry(created, None, "created", note.path, note.title, note.type, about))
        if updated and updated != created and lo <= updated <= hi:
            out.append(TimelineEntry(updated, None, "updated", note.path, note.title, note.type, about))
    out.sort(key=lambda e: (e.date, e.time or "99:99", e.path), reverse=True)
    return out


def timeline(mem: Memory, query: str = "", when: str | None = None, today: dt.date | str | None = None,
             limit: int = 50, include_sensitive: bool = False) -> TimelineResult:
    from mdmem.text.query import check_query

    check_query(query)
    check_query(when or "", "time phrase")
    if isinstance(today, str):
        today = dt.date.fromisoformat(today)
    ref = today or dt.date.today()
    start, end, phrase, words = window(query, when, ref)
    entries = collect(mem, start, end, words, include_sensitive)
    return TimelineResult(query, words, phrase, start.isoformat(), end.isoformat(), entries[:limit], len(entries),
                          len(entries) > limit)

"""The daily log: ``## HH:MM`` entries appended to the day's note (created with ``type: daily`` frontmatter
when missing), and the days shown back. The day's note is ``memory/daily/YYYY-MM-DD.md``, or, in an Obsidian
vault whose Daily notes plugin sets a folder and format, the note Obsidian's Daily notes button opens (unless
``[daily]`` in config.toml says otherwise: :class:`mdmem.base.settings.DailySettings`). Append-only; written under the
rules every memory write shares (:mod:`mdmem.ops.capture`: atomic, under the vault's lock, never over
a file changed since read, through the write guard :mod:`mdmem.ops.guard`: secrets and control characters
refused, at most :data:`~mdmem.ops.guard.MAX_TEXT` characters, the day's note within its bound).
A daily entry cannot start another entry: its heading lines are escaped (:func:`escape_entry`).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.errors import UsageError
from mdmem.base.state import write_lock
from mdmem.ops import guard
from mdmem.ops.capture import as_date, clean, copy_date, dump_note, inside_memory
from mdmem.ops.properties import register_types

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory

_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
_HEADING = re.compile(r"^ {0,3}#{1,2}(?=[ \t]|$)")  # an ATX heading that would end a daily entry
_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")  # a setext underline (text + === / --- is a heading)


@dataclass(frozen=True)
class DailyEntry:
    path: str
    date: str
    time: str
    text: str
    created: bool  # the day's file was created by this entry


@dataclass(frozen=True)
class DailyDay:
    date: str
    path: str
    body: str  # the file's text after its frontmatter


@dataclass(frozen=True)
class DailyView:
    period: str
    start: str
    end: str
    days: list[DailyDay]



def day_path(mem: Memory, day: dt.date) -> str:
    """The vault path of ``day``'s note (:class:`~mdmem.base.settings.DailySettings`); a format token mdmem does
    not write is a :class:`UsageError` that names it."""
    from mdmem.text.moment import MomentError, format_day

    daily = mem.settings.daily
    try:
        name = format_day(day, daily.format).strip("/")
    except MomentError as e:
        raise UsageError(str(e)) from None
    return f"{daily.folder}/{name}.md" if daily.folder else f"{name}.md"


def escape_entry(text: str) -> str:
    """A daily entry's text with every line that would start a new entry (a ``#``/``##`` heading, a
    setext underline after a line of text) escaped with a backslash: shown as written, parsed as text."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _HEADING.match(line) or (i and lines[i - 1].strip() and _UNDERLINE.match(line)):
            stripped = line.lstrip(" ")
            lines[i] = line[: len(line) - len(stripped)] + "\\" + stripped
    return "\n".join(lines)


def daily_add(mem: Memory, text: str, at: str | None = None, date: str | dt.date | None = None,
              allow_secret: bool = False, refresh: bool = True) -> DailyEntry:
    """Append a ``## HH:MM`` entry to the day's note (:func:`day_path`; created
    with ``type: daily`` frontmatter when missing). Append-only. Heading lines
    of the text are escaped (:func:`escape_entry`): one call, one entry. ``refresh=False`` leaves the notes
    cache to the caller (an import adding many entries refreshes once at its end)."""
    from mdmem.text.daily import entries

    guard.text(text, "entry", allow_secret)
    text = text.strip()
    if not text:
        raise UsageError("nothing to add: the entry is empty")
    from mdmem.ops.move import settle

    settle(mem)
    text = escape_entry(text)
    if len(entries(f"## 00:00\n{text}\n")) != 1:  # what the escaping did not foresee: refuse, never split
        raise UsageError("the entry would split into several daily entries; remove its heading lines")
    now = dt.datetime.now()
    day = as_date(date, now.date())
    when = at if at is not None else now.strftime("%H:%M")
    if not _TIME.match(when):
        raise UsageError(f"wants a time as HH:MM, not {when!r}")
    rel = day_path(mem, day)
    path = mem.root / rel
    inside_memory(mem.root, path)  # memory/daily may be a symlink to somewhere else: never write there
    entry = f"## {when}\n{text}\n"
    with write_lock(mem.state_dir, mem.lock_timeout):
        guard.real_folders(mem.root, rel)
        clean(path.parent, mem.state_dir)
        data, seen = fs.read_stat(mem.root, path)
        if data is None:
            meta = {"name": day.isoformat(), "description": f"Daily log {day.isoformat()}", "type": "daily",
                    "tags": ["daily"], "created": day, "updated": copy_date(day)}
            fs.write_new(path, dump_note(meta, f"# {day.isoformat()} ({day.strftime('%A')})\n\n{entry}"))
            register_types(mem.root, meta)
        else:
            guard.whole(rel, data, seen)
            sep = b"" if not data else (b"\n" if data.endswith(b"\n") else b"\n\n")
            new = data + sep + entry.encode("utf-8")
            guard.fits(rel, new)
            fs.write_atomic(path, new, expected=seen)
    if refresh:
        mem.refresh()
    return DailyEntry(rel, day.isoformat(), when, text, data is None)


def daily_show(mem: Memory, when: str = "today", today: str | dt.date | None = None) -> DailyView:
    """The daily notes of ``today``, ``yesterday``, ``week`` (the last 7 days) or a YYYY-MM-DD."""
    from mdmem.text.parse import split_note

    ref = as_date(today)
    if when == "today":
        start = end = ref
    elif when == "yesterday":
        start = end = ref - dt.timedelta(days=1)
    elif when == "week":
        start, end = ref - dt.timedelta(days=6), ref
    else:
        try:
            start = end = dt.date.fromisoformat(when)
        except ValueError:
            raise UsageError(f"choose today, yesterday, week or a YYYY-MM-DD, not {when!r}") from None
    days = []
    day = start
    while day <= end:
        rel = day_path(mem, day)
        data, _ = fs.read_stat(mem.root, mem.root / rel)
        if data is not None:
            body = split_note(data)[1]
            days.append(DailyDay(day.isoformat(), rel, body.strip("\n") + "\n"))
        day += dt.timedelta(days=1)
    return DailyView(when, start.isoformat(), end.isoformat(), days)

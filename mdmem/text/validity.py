"""Whether a note still holds, as its frontmatter says: ``supersedes`` and ``valid_until``.

- ``supersedes: "[[old note]]"`` (or a list of such links) declares that this note replaces the old
  one. The old note is left as it is (it is the user's file, and its history); mdmem leaves it out of
  recall, context and the prompt hook, and ``search`` shows it marked ``superseded by [[new]]``. The
  link resolves like any Obsidian link written in the new note (:mod:`mdmem.text.resolve`); a plain
  name without brackets is read as the same link. Only the new note says it: nothing is written into
  the old one.
- ``valid_until: YYYY-MM-DD`` (a YAML date, quoted or not; a time after the date is ignored): the note
  holds through that day and is expired from the day after.

Pure functions over a parsed frontmatter mapping (no I/O).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from mdmem.text.links import parse_wikilink

SUPERSEDES = "supersedes"
VALID_UNTIL = "valid_until"
_WIKILINK = re.compile(r"!?\[\[([^\]\n]*)\]\]")


def supersedes(fm: dict[str, Any]) -> list[str]:
    """The link targets of ``supersedes`` as written (``[[Old note#Heading|x]]`` -> ``Old note``), each
    once, in order; a string without brackets is one target; other values (numbers, mappings) are none."""
    value = fm.get(SUPERSEDES)
    values = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in values:
        if not isinstance(item, str) or not item.strip():
            continue
        found = _WIKILINK.findall(item)
        targets = [parse_wikilink(inner)[0] for inner in found] if found else [item.strip()]
        for target in targets:
            if target and target not in out:
                out.append(target)
    return out


def valid_until(fm: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(ISO date, None)`` for a readable ``valid_until``; ``(None, the value as text)`` for one that is
    not a date (``check`` reports it; the note never expires); ``(None, None)`` when there is none."""
    value = fm.get(VALID_UNTIL)
    if value is None or value == "":
        return None, None
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()[:10], None
    text = str(value).strip()
    try:
        return dt.date.fromisoformat(text[:10]).isoformat(), None
    except ValueError:
        return None, text


def expired(until: str | None, today: str) -> bool:
    """Is a note valid through ``until`` (ISO) expired on ``today`` (ISO)? From the day after."""
    return until is not None and until != "" and until < today

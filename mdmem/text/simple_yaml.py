"""The frontmatter most notes carry, read without PyYAML: ``key: value`` lines whose values are plain
words, quoted strings, ``YYYY-MM-DD`` dates, decimal integers, ``true``/``false``/``null`` (YAML 1.1's
spellings), ``[a, b]`` lists or ``- item`` lists. Anything else (floats, other numbers, nesting,
escapes, comments after a value, multi-line scalars, anchors, tabs ...)
is not guessed at: :func:`load` returns ``None`` and the caller hands the text to PyYAML.

Why: importing PyYAML costs ~12-20 ms of CPU (measured 6 times in a fresh process under load), paid by
every process that parses even one note, e.g. ``mdmem search`` right after a one-note edit (the
target there is < 300 ms for the whole process). What this module accepts, it reads exactly as
PyYAML's safe loader does (the same dict, in the same order, with ``datetime.date`` for dates);
tests/test_simple_yaml.py checks that against PyYAML on real vaults and on generated tricky text.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
_ITEM = re.compile(r"( *)-(?: +(.*))?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DOUBLE = re.compile(r'"([^"\\]*)"')
_SINGLE = re.compile(r"'([^']*)'")
# YAML's printable set (PyYAML's reader rejects anything else), less the characters this reader
# leaves to PyYAML: tab, CR, NEL, the Unicode line and paragraph separators, the byte-order mark
_UNSAFE = re.compile("[^\x0a\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
# plain words YAML 1.1 resolves to something other than a string: PyYAML's exact spellings, and
# (_SPECIAL) every spelling in any case, which this reader does not take as a key or a string
_WORDS: dict[str, Any] = {
    **dict.fromkeys("yes Yes YES true True TRUE on On ON".split(), True),
    **dict.fromkeys("no No NO false False FALSE off Off OFF".split(), False),
    **dict.fromkeys("null Null NULL ~".split()),
}
_SPECIAL = frozenset(w.lower() for w in _WORDS)
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")  # decimal only: "012" is octal in YAML 1.1, "1_000" 1000
_NOT_PLAIN = (": ", " #")


def load(text: str) -> dict[str, Any] | None:
    """``text`` (a frontmatter block, without its ``---`` lines) as PyYAML's safe loader reads it,
    or ``None`` when it holds anything beyond the simple forms above."""
    if _UNSAFE.search(text):
        return None
    out: dict[str, Any] = {}
    key: str | None = None  # the key whose value may be a block of "- item" lines
    items: list[Any] | None = None
    indent = -1
    for line in text.split("\n"):
        stripped = line.strip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        if key is not None and line.lstrip(" ").startswith("-"):
            m = _ITEM.fullmatch(line)
            if m is None:
                return None
            if items is None:
                items, indent = [], len(m.group(1))
                out[key] = items
            elif len(m.group(1)) != indent:
                return None
            ok, value = _scalar(m.group(2), flow=False)
            if not ok or isinstance(value, list):
                return None
            items.append(value)
            continue
        m = _KEY.fullmatch(line)
        if m is None or m.group(1).lower() in _SPECIAL:
            return None
        ok, value = _scalar(m.group(2), flow=False)
        if not ok:
            return None
        key, items = (m.group(1), None) if value is None else (None, None)
        out[m.group(1)] = value
    return out or None


def _scalar(text: str | None, flow: bool) -> tuple[bool, Any]:
    """(understood, value) of one value as written after ``key:``, ``-`` or inside ``[...]``."""
    text = (text or "").rstrip(" ")
    if not text:
        return (not flow), None
    first = text[0]
    if first == '"' or first == "'":
        m = (_DOUBLE if first == '"' else _SINGLE).fullmatch(text)
        return (True, m.group(1)) if m else (False, None)
    if first == "[" and not flow:
        if not text.endswith("]"):
            return False, None
        inner = text[1:-1]
        if not inner.strip(" "):
            return True, []
        values = []
        for part in inner.split(","):
            ok, value = _scalar(part.strip(" "), flow=True)
            if not ok:
                return False, None
            values.append(value)
        return True, values
    if text in _WORDS:
        return True, _WORDS[text]
    if _INT.fullmatch(text):
        return True, int(text)
    if _DATE.fullmatch(text):
        try:
            return True, dt.date(int(text[:4]), int(text[5:7]), int(text[8:]))
        except ValueError:  # PyYAML fails on it: let it, with its own message
            return False, None
    # a plain word: it starts with a letter, or any non-ASCII character (YAML's indicators and the
    # first characters of its implicit types are all ASCII)
    if not (first.isalpha() or not first.isascii()) or text.lower() in _SPECIAL or text.endswith(":") or any(s in text for s in _NOT_PLAIN):
        return False, None
    if flow and any(c in text for c in "[]{}:#"):
        return False, None
    return True, text

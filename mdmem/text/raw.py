"""A note's bytes as text, and its frontmatter told from its body, with the standard library alone.

What :mod:`mdmem.text.parse` builds on, kept apart so a hook that only needs to know whether a note's
frontmatter moved (the SessionStart card after an edit, :mod:`mdmem.engine.bodies`) imports neither the
parser, PyYAML nor the note model. The one copy of both rules: the parser imports them from here.
"""

from __future__ import annotations

import re

MAX_PARSE_BYTES = 2 * 1024 * 1024  # above this: frontmatter only, body indexed truncated (the work per note
# is bounded: a hostile 1.1 MB note of links parses in ~3 s with the linear rules of links.py)

_FM = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.S)


def decoded(data: bytes) -> tuple[str, bool, int | None]:
    """Bytes to text: a BOM stripped, cp1252 for bytes that are not UTF-8, line ends made ``\\n``. Returns
    (text, whether there was a BOM, the offset of the first byte that is not UTF-8 or None)."""
    bom = data.startswith(b"\xef\xbb\xbf")
    if bom:
        data = data[3:]
    bad = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        text, bad = data.decode("cp1252", errors="replace"), e.start
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, bom, bad


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """-> (frontmatter YAML or None, body, number of lines before the body)."""
    m = _FM.match(text)
    if not m:
        return None, text, 0
    return m.group(1) or "", text[m.end() :], text.count("\n", 0, m.end())

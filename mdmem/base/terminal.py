"""Text bound for a terminal, with every control character made visible.

A vault arrives by git clone, sync or a shared drive: a file named ``a\\x1b]0;evil\\x07.md``, a title
holding ``ESC [2J``, a snippet with a bare ``CR`` would reach the terminal of whoever runs ``mdmem
search`` and set its title, clear its screen or overwrite a line. So every piece of human output goes
through :func:`visible` on its way out (``cli/render.py``'s ``message``, ``text`` and console, the hook
fast path, the MCP server's log): C0 controls (but newline and tab in a multi-line text), DEL and the C1
controls (``U+0080``-``U+009F``, which some terminals obey as 8-bit escapes, ``U+009B`` being CSI) come
out as ``\\x1b``, ``\\r``, ``\\x9b``... A single value (a path, a title, a line of a list) is shown with
``newlines=False``: a name holding a newline stays on its one line.

The Unicode bidirectional controls (``U+061C``, ``U+200E``/``U+200F``, the embeddings and overrides
``U+202A``-``U+202E``, the isolates ``U+2066``-``U+2069``) are shown the same way (``\\u202e``): they
are invisible, and a right-to-left override in a title makes ``evil.md\u202etxt`` read as another name
(the "Trojan Source" trick, CVE-2021-42574).

JSON output keeps the exact text: ``json.dumps`` writes C0 controls as ``\\u001b``; :func:`json_safe`
does the same for DEL and C1, which it leaves raw.

Standard library only (``re``), so the hook fast path can use it.
"""

from __future__ import annotations

import re

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_MULTI = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")  # keeps \t and \n
_SINGLE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_RAW_IN_JSON = re.compile(f"[\x7f-\x9f{_BIDI}]")  # json.dumps(ensure_ascii=False) escapes only < 0x20
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _shown(m: re.Match) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if c < "\u0100" else f"\\u{ord(c):04x}")


def visible(text: str, newlines: bool = True) -> str:
    """``text`` with each control character written out (``\\x1b``, ``\\r``); newlines and tabs kept
    unless ``newlines`` is False (one value on one line)."""
    pattern = _MULTI if newlines else _SINGLE
    return pattern.sub(_shown, text) if pattern.search(text) else text


def json_safe(text: str) -> str:
    """JSON text from ``json.dumps(..., ensure_ascii=False)`` with DEL, C1 and the bidi controls escaped:
    the same JSON value (such characters can stand only inside strings), nothing a terminal obeys."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _RAW_IN_JSON.search(text) else text

"""Text bound for a terminal, with every control character made visible.

Every piece of human output goes through :func:`visible`: C0 and C1 controls, DEL and the Unicode
bidirectional controls come out escaped; :func:`json_safe` does the same for JSON output.

Standard library only (``re``), so the hook fast path can use it.

Details and reasons: docs/decisions/058-hostile-vault-boundary.md
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

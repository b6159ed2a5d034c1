"""What the offline checkpoint's suggestions are built from (:class:`Evidence`: a standing rule the user stated,
:func:`mdmem.agents.checkpoint.signals.standing`), the dimensions' names, the one grammar of markup tags, and
the EN/PT language of a conversation. The seven-dimension detectors that once filled it are retired
(docs/decisions/075-quiet-checkpoint-signals.md): the model in the session judges what is worth keeping.
Standard library only (the Stop hook imports this when it fires).
"""

from __future__ import annotations

from mdmem.agents.checkpoint.transcript import Frozen
from mdmem.base.lazy_re import lazy as _re

TYPE_CHECKING = False  # annotations only (`typing` costs ~10 ms of a hook's start)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from mdmem.agents.checkpoint.transcript import Message

HIT = 0.6
NAMES = {1: "task closure", 2: "behaviour rule", 3: "domain rule", 4: "decision", 5: "milestone",
         6: "calibration", 7: "analysis"}
# a markup tag (<user-memory-input>, <br/>): markup, not words; the groups (closing slash, name, attributes,
# self-closing slash) let scan.strip_tags keep a lone placeholder such as <sha> in a suggestion's text
TAG = _re(r"<(/?)([A-Za-z][\w:-]*)((?:\s[^<>\n]{0,200})?)(/?)>")


class Evidence(Frozen):
    """dimension; index: the message's index in the conversation; speaker; quote (under 200
    characters); signal: what found it; strength (0..1); offset: the message's byte offset
    in the transcript (to recognise it again); detail: the rule, its clause, ...
    (A light frozen record, as :class:`~mdmem.agents.checkpoint.transcript.Message`: the Stop hook imports
    this module, and ``dataclasses`` alone costs more than a quiet hook's whole budget.)"""

    dimension: int
    index: int
    speaker: str
    quote: str
    signal: str
    strength: float
    offset: int
    detail: dict
    __slots__ = ("dimension", "index", "speaker", "quote", "signal", "strength", "offset", "detail")
    _fields = __slots__
    _defaults = {"offset": 0, "detail": {}}


def hits(evidence: Sequence[Evidence]) -> dict[int, list[Evidence]]:
    """Dimension → its evidence at or above :data:`HIT`, strongest first."""
    out: dict[int, list[Evidence]] = {}
    for e in evidence:
        if e.strength >= HIT:
            out.setdefault(e.dimension, []).append(e)
    return {d: sorted(v, key=lambda e: (-e.strength, e.index)) for d, v in sorted(out.items())}


def language(messages: Sequence[Message]) -> str:
    """``pt`` or ``en``: the language of what the user wrote (assistant text when the user wrote nothing),
    by :func:`mdmem.text.language.guess`."""
    from mdmem.text.language import guess

    text = " ".join(m.text for m in messages if m.speaker == "user")[:20000] or \
        " ".join(m.text for m in messages)[:20000]
    return guess(text)

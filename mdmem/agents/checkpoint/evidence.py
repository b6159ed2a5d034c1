"""The evidence the seven-dimension detectors return, and the sentence tools they share: prose
without code, tables, trees or markup; hard wraps joined; sentences cut once; quotes under 200
characters; questions, negations, plans and plan sections recognised; the EN/PT language guess.

Patterns are compiled on first use (:class:`_Lazy`): a Stop hook that looks at one short message
reaches a fraction of them. Standard library only (the Stop hook imports this).
"""

from __future__ import annotations

import functools
import re

from mdmem.agents.checkpoint.transcript import Frozen

TYPE_CHECKING = False  # annotations only (`typing` costs ~10 ms of a hook's start)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from mdmem.agents.checkpoint.transcript import Message

HIT = 0.6
NAMES = {1: "task closure", 2: "behaviour rule", 3: "domain rule", 4: "decision", 5: "milestone",
         6: "calibration", 7: "analysis"}
QUOTE = 199  # characters: a quote stays under 200


class Evidence(Frozen):
    """dimension; index: the message's index in the conversation; speaker; quote (under 200
    characters); signal: the rule that fired; strength (0..1); offset: the message's byte offset
    in the transcript (to recognise it again); detail: chosen/rejected, paths, the request, ...
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


class _Lazy:
    """A pattern compiled on its first use: a stop that looks at one short message reaches a
    fraction of the ~110 patterns here, and compiling all of them costs ~25 ms (measured), more
    than such a stop's budget. After the first use its methods are the compiled pattern's own."""

    def __init__(self, pattern: str, flags: int = re.I) -> None:
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name: str):
        compiled = re.compile(self.pattern, self.flags)
        for method in ("search", "match", "finditer", "findall", "sub", "split", "fullmatch"):
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


class _Hinted:
    """A pattern that can match only text holding one of ``hints`` (lower-case substrings): looked
    for first, so a stop whose text holds none never compiles it (each costs 0.3-1.4 ms to compile,
    measured; a stop that runs the detectors on one short turn reaches most of them)."""

    def __init__(self, pattern: str, hints: tuple[str, ...], flags: int = re.I) -> None:
        self.lazy, self.hints = _Lazy(pattern, flags), hints
        self.pattern, self.flags = pattern, flags

    def _maybe(self, text: str) -> bool:
        low = text.lower()
        return any(h in low for h in self.hints)

    def search(self, text: str, *args):
        return self.lazy.search(text, *args) if self._maybe(text) else None

    def match(self, text: str, *args):
        return self.lazy.match(text, *args) if self._maybe(text) else None

    def finditer(self, text: str, *args):
        return self.lazy.finditer(text, *args) if self._maybe(text) else iter(())

    def sub(self, repl, text: str, count: int = 0):
        return self.lazy.sub(repl, text, count) if self._maybe(text) else text


def _rx(pattern: str, flags: int = re.I, hints: tuple[str, ...] | None = None):
    return _Lazy(pattern, flags) if hints is None else _Hinted(pattern, hints, flags)


def _re(pattern: str, flags: int = 0) -> _Lazy:
    return _Lazy(pattern, flags)


# ----------------------------------------------------------------------------- sentences

_FENCE = _re(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)", re.S | re.M)
_SPLIT = _re(r"(?<=[.!?…])[\"')\]*]*\s+(?=\S)|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)|\n")
# a markup tag (<user-memory-input>, <br/>): markup, not words; the groups (closing slash, name, attributes,
# self-closing slash) let scan.strip_tags keep a lone placeholder such as <sha> in a suggestion's text
_TAG = _re(r"<(/?)([A-Za-z][\w:-]*)((?:\s[^<>\n]{0,200})?)(/?)>")
# not prose: table rows, directory trees, horizontal rules, headings made of symbols only
_NOT_PROSE = _re(r"^\s*(?:\|.*|[-*_=]{3,}\s*)$")
_TREE = _re(r"[│├└┌┐┘┬┴┼]|^\s*(?:[\w.-]+/)+\s*$")
# a hard-wrapped line: the next line goes on with the same sentence
_BREAK = _re(r"\n(?!\s*(?:[-*•>#|]|\d+[.)]|```|~~~|\n))(?=[ \t]*[a-z(\"'`])")


_QUESTION_START = _rx(r"^\W*(?:why|should|shall|could|would|can|(?:do|does|did)(?!\s+n[oi]t\b)|is|are|was|were|what|which|how|"
                      r"any (?:reason|idea)|por ?que|porquê|será|devemos|deveríamos|vale a pena|qual|quais|"
                      r"como|você acha|e se)\b")
_NEGATION = _rx(r"\b(?:not|n't|no|never|nor|without|cannot|can't|won't|isn't|aren't|doesn't|didn't|"
                r"haven't|hasn't|yet to|não|nao|nem|sem|nunca|ainda não)\W+(?:\w+\W+){0,2}$")
_PLAN = _rx(r"\b(?:will|'ll|going to|gonna|plan(?:ning)? to|about to|want to|need to|should|could|would|"
            r"might|may|next (?:week|month|sprint|release)|tomorrow|later|soon|before (?:we|you|i)|once (?:we|you)|"
            r"after (?:we|you)|if (?:we|you)|when (?:we|you)|vamos|vou|iremos|vai|precisamos|pretendemos|"
            r"podemos|poderíamos|antes de|amanhã|semana que vem|próxima semana|depois de|quando|se a gente)\b")


def unwrap(text: str) -> str:
    """Join hard-wrapped lines (a line whose next line starts in lower case, not a list
    item, heading, table or fence, and that does not end a sentence) into one line:
    text typed in an editor that wraps at 72-80 columns is one sentence, not fragments."""
    return _BREAK.sub(lambda m: " " if not _ENDS.search(text, 0, m.start()) else m.group(), text)


_ENDS = _re(r"[.!?:;]\s*\Z")


def prose(text: str) -> str:
    """``text`` without fenced code, markup tags, table rows and directory-tree lines."""
    text = _TAG.sub(" ", _FENCE.sub(" ", text))
    return "\n".join(ln for ln in text.split("\n") if not _NOT_PROSE.match(ln) and not _TREE.search(ln))


def sentences(text: str) -> list[str]:
    """``text`` as prose (:func:`prose`), hard wraps joined, cut into sentences and list items
    (each detector asks for the same messages' sentences: they are cut once, :func:`_cut`)."""
    return list(_cut(text))


@functools.lru_cache(maxsize=2048)
def _cut(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in _SPLIT.split(unwrap(prose(text))) if s and s.strip(" *_"))


def quote(sentence: str) -> str:
    flat = " ".join(_TAG.sub(" ", sentence).replace("**", "").replace("__", "").split())
    return flat if len(flat) <= QUOTE else flat[: QUOTE - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


_CLAUSE_CUT = _re(r"\s+[—–-]\s+|;\s+|:\s+|,\s+(?=(?:but|so|which|though|although|mas|então|porque)\b)")


def clause(sentence: str, at: int) -> str:
    """The part of ``sentence`` around character ``at`` between dashes, semicolons, colons or a
    ", but": what a rule or a decision says, without the request around it ("based on feedback
    we are changing X - let's make sure we use Y everywhere" → "let's make sure we use Y
    everywhere"); the whole sentence when that part is shorter than four words."""
    left, right = 0, len(sentence)
    for m in _CLAUSE_CUT.finditer(sentence):
        if m.end() <= at:
            left = m.end()
        elif m.start() > at:
            right = m.start()
            break
    part = sentence[left:right].strip(" ,;:-—–")
    return quote(part) if len(part.split()) >= 4 else quote(sentence)


# the words of someone speaking in their own voice: a person types "I", "we", "you", "let's", "please"; a
# review bot's comment pasted as a prompt speaks of the code in the third person ("The wrapper script
# blindly sources the .env file… Consider adding…")
_PERSON = _rx(r"\b(?:i|i['’](?:m|ve|d|ll)|me|my|we|we['’](?:re|ve|d|ll)|us|our|you|you['’](?:re|ve|d|ll)|your|"
              r"let['’]?s|please|pls|eu|nós|você|vc|meu|minha|nosso|nossa|a gente|por favor)\b")
PASTED_MIN = 300  # characters


def pasted(text: str) -> bool:
    """The user's message reads as pasted, not typed: at least :data:`PASTED_MIN` characters of prose
    that opens with a capital and never speaks in the first or second person (a review comment, a
    bot's finding, documentation). Measured on the 42 dev sessions of eval/data/checkpoint-real: the
    typed user messages this long and this impersonal are 3 review comments pasted as prompts (33's
    "Additional feedback: …", 46's and 48's) and none the user typed; a typed correction with a paste
    inside it ("again, this is not correct: <diff>") opens in lower case and stays the user's."""
    body = text.strip()
    return len(body) >= PASTED_MIN and body[:1].isupper() and not _PERSON.search(body)


def is_question(sentence: str) -> bool:
    """Ends with "?" (not one inside an open parenthesis: "we should check (are there changes?)"),
    or opens like a question."""
    end = sentence.rstrip(" *_")
    asked = end.endswith("?") and end.count("(") <= end.count(")")
    return asked or bool(_QUESTION_START.match(sentence))


def negated(sentence: str, at: int) -> bool:
    return bool(_NEGATION.search(sentence[max(0, at - 40):at]))


def planned(sentence: str, at: int) -> bool:
    return bool(_PLAN.search(sentence[max(0, at - 60):at]) or _IF.search(sentence[max(0, at - 40):at]))


_IF = _rx(r"\b(?:if|whether|once|until|unless|in case|when|se|caso|quando)\b")


def _first(patterns, sentence: str, *, allow_negated: bool = False):
    """The first (pattern, match) in ``sentence`` that is not negated."""
    for name, pattern in patterns:
        for found in pattern.finditer(sentence):
            if allow_negated or not negated(sentence, found.start()):
                return name, found
    return None




_PLAN_HEAD = _rx(r"^\s*(?:#{1,6}\s*|\*\*)?[^\n]{0,40}\b(?:plan|next steps?|to ?do|remaining|proposal|proposed|"
                 r"options?|approach|alternatives?|i'll|i will|let me|steps?|plano|próximos passos|opções)\b"
                 r"[^\n]{0,40}:?\**\s*:?\s*$")


def _no_plan(text: str) -> str:
    """``text`` without the sections a plan heading opens ("## Plan", "Next steps:", "I'll:")
    up to the next heading or the next paragraph that is not a list."""
    out: list[str] = []
    skipping = False
    blank = False
    for ln in text.split("\n"):
        stripped = ln.strip()
        if _PLAN_HEAD.match(ln) and (stripped.startswith("#") or stripped.endswith(":") or stripped.endswith(":**")):
            skipping = True
            continue
        if skipping:
            if stripped.startswith("#") or (blank and stripped and not re.match(r"[-*•]|\d+[.)]", stripped)):
                skipping = False
            else:
                blank = not stripped
                continue
        blank = not stripped
        out.append(ln)
    return "\n".join(out)





@functools.lru_cache(maxsize=2048)
def _lower(text: str) -> str:
    return text.lower()


def language(messages: Sequence[Message]) -> str:
    """``pt`` or ``en``: the language of what the user wrote (assistant text when the user wrote nothing),
    by :func:`mdmem.text.language.guess`."""
    from mdmem.text.language import guess

    text = " ".join(m.text for m in messages if m.speaker == "user")[:20000] or \
        " ".join(m.text for m in messages)[:20000]
    return guess(text)

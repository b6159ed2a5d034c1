"""Does a question ask about past conversations? ("when did we set up X?", "what did we discuss about Y
last week?", "o que conversamos sobre Z?"). Such a question is answered from the imported sessions
(``sessions/``) besides memory: the notes hold what was decided, the sessions when and how it was said.

Cue phrases, English and Portuguese, matched case-insensitively on word boundaries; a bare time phrase
("last week") counts only with a verb of talking or doing together ("we", "did", "discuss"...), since "the
deploy last week" asks about the deploy. :func:`topic` strips the cue words, leaving what to look for.
Standard library only: the prompt hook imports this.
"""

from __future__ import annotations

import re

from mdmem.base.lazy_re import lazy

_CUES = re.compile(r"""\b(?:
    when\s+did\s+(?:we|i|you)\b
  | what\s+did\s+(?:we|i|you)\s+(?:discuss|talk|say|decide|agree|conclude|do|try|find|settle)\w*
  | did\s+(?:we|i|you)\s+(?:ever\s+)?(?:discuss|talk|mention|decide|try|look)\w*
  | (?:we|i|you)\s+(?:talked|discussed|spoke|chatted|mentioned|decided|agreed)\b
  | have\s+we\s+(?:ever\s+)?(?:discussed|talked|tried|looked|decided)\b
  | (?:last|previous|earlier|past|other|old|yesterday'?s?)\s+(?:session|conversation|chat|discussion)s?\b
  | (?:in|from)\s+(?:a|an|the|our|that)\s+(?:earlier|previous|past|last|other)\s+(?:session|conversation|chat)
  | remember\s+(?:when|how|what|that)\b
  | (?:quando|como)\s+(?:n[oó]s\s+)?(?:fizemos|configuramos|decidimos|falamos|conversamos|discutimos|montamos)\b
  | o\s+que\s+(?:n[oó]s\s+)?(?:conversamos|falamos|discutimos|decidimos|combinamos)\b
  | (?:conversamos|falamos|discutimos)\s+sobre\b
  | (?:sess[aã]o|conversa)\s+(?:anterior|passada)\b
)""", re.I | re.X)
_FILLER = lazy(r"""\b(?:
    when|what|did|do|does|we|i|you|us|our|ever|discuss\w*|talk\w*|say|said|decide\w*|agree\w*|conclude\w*|
    try|tried|find|found|settle\w*|mention\w*|look\w*|remember|have|has|had|spoke|chatted|about|regarding|
    session|sessions|conversation|conversations|chat|chats|discussion|discussions|in|from|a|an|the|that|this|
    last|previous|earlier|past|other|old|how|up|on|of|for|with|to|it|is|was|were|again|
    quando|como|o|que|nós|nos|fizemos|configuramos|decidimos|falamos|conversamos|discutimos|montamos|
    combinamos|sobre|sessão|sessao|conversa|anterior|passada|de|do|da|em|no|na
)\b""", re.I | re.X)  # (compiled when first used: only for a question about the past)


def about_past(question: str) -> bool:
    """True when ``question`` refers to an earlier conversation (see the module's docstring)."""
    return bool(_CUES.search(question or ""))


def topic(question: str) -> str:
    """``question`` without its cue words ("when did we set up the CI cache?" -> "set CI cache")."""
    words = _FILLER.sub(" ", re.sub(r"[?!.,;:]", " ", question or ""))
    return " ".join(words.split())

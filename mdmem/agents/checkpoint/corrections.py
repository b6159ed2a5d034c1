"""Corrections the assistant concedes: the user's message just before a reply that opens with
"You're right", "Good catch", "Fair point", "My mistake" ("Você tem razão", "Bem observado") held
something the assistant had wrong. Real people correct without correction words: a fact ("the
first part is not correct, for X we use Y"), a doubt phrased as a question ("but that would still
make the hook fail and the user has no clue what to do, right?"), a decision argued ("we should
summarise the checkpoint's scope I think, not the whole log"). Claude Code's own reply says that
the message was a correction, in the same few phrases whatever the user typed.

The user's message counts only when it says something in its own words and carries a correction mark
or another detector's evidence; its dimension follows what it is about (a fact ③, a decision ④, a
practice ⑥). Standard library only (the Stop hook runs the detectors).

Measurements: docs/decisions/055-checkpoint-detectors-and-transcripts.md
"""

from __future__ import annotations

import re

from mdmem.agents.checkpoint.evidence import Evidence, clause, pasted, prose, quote, sentences
from mdmem.base.lazy_re import lazy as _re
from mdmem.base.lazy_re import rx as _rx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from mdmem.agents.checkpoint.transcript import Message

STRENGTH = 0.85  # a conceded correction fires the Stop hook on its own (a memory dimension at >= 0.8)
MIN_WORDS = 8    # "why won't you run it?" (5 words, conceded in a session with nothing to keep) is not enough
MEMORY = (2, 3, 4, 6)
SHORT = 400      # characters: a conceding reply this short that ends by asking is an apology, not a point taken up
# a concession to a comment the user pasted (:func:`mdmem.agents.checkpoint.evidence.pasted`: a review bot's finding) is no
# correction of the assistant by the user: what the comment says is at most a domain rule (③), and a hint, not
# enough alone to make a suggestion or fire the Stop hook. Measured on holdout3 (41-48, blind run): the two
# pasted comments conceded were taken as ⑥ corrections, both wrong (labelled ③ firm in 48, ③ borderline in 46).
# Not below HIT: at 0.55 (no dimension at all) the Stop hook went silent in 46 and 48, both with firm items: there
# the pasted comment the assistant takes up is the session's one detectable signal, and the model judges it
PASTED_STRENGTH = 0.7
# what the work left out ("but we are missing the interactive cases (yes and no)?", "you forgot the empty
# input"): the assistant adds it, most likely a step of this task rather than a practice corrected (unless said
# as a rule). The Stop hook still counts it (the user set the assistant right: the model in the session judges),
# but the offline path does not suggest it (``offline: False``). Read off holdout3's one remaining wrong
# suggestion (41, where the hook must fire: dropping the evidence made it silent there); no conceded message in
# 01-34 says it
_OMISSION = _rx(r"\b(?:we(?:['’]re| are) (?:still )?missing|(?:is|are) (?:still )?missing|you(?:['’]ve| have)? "
                r"(?:missed|forgot(?:ten)?|left out)|what about|faltou|faltam?|você esqueceu|esqueceu d[eoa])\b")
_STANDING = _rx(r"\b(?:always|never|every time|whenever|should|must|sempre|nunca|deve)\b")
_ADVICE = _rx(r"\b(?:consider|should|must|needs?|instead|only|avoid|prefer|recommend\w*)\b")

_CONCEDE = _rx(r"^\W*(?:(?:ah|oh|ok(?:ay)?|yes|yeah|yep|right|hmm|indeed|sim|ah sim|é)\W+){0,3}"
               r"(?:you['’]?re (?:absolutely |totally |completely |quite |entirely )?(?:right|correct)\b(?! to (?:ask|question|"
               r"wonder|check|be))|you are (?:absolutely |totally |quite )?(?:right|correct)\b(?! to (?:ask|question|wonder))|"
               r"(?:good|great|excellent|nice|sharp) (?:catch|point|call|eye)\b|fair (?:point|enough)\b|"
               r"my (?:mistake|bad|apologies)\b|i (?:was|stand) (?:wrong|corrected)\b|i (?:missed|overlooked|misread)\b|"
               r"(?:sorry|apologies)\b[^.!?\n]{0,40}\b(?:wrong|mistake|missed|misread|misunderstood|confus)|"
               r"(?:você|vc) (?:tem|está) (?:toda (?:a )?)?(?:razão|certo|certa)\b|tem (?:toda )?razão\b|bem observado\b|"
               r"boa (?:observação|pegada|sacada)\b|erro meu\b|foi mal\b|me enganei\b)",
               hints=("right", "correct", "catch", "point", "call", "eye", "fair", "mistake", "bad", "apolog", "wrong",
                      "corrected", "missed", "overlooked", "misread", "sorry", "razão", "certo", "certa", "observ",
                      "pegada", "sacada", "erro", "mal", "engan"))
# the user's message says something is wrong, or doubts it: without one of these a conceded message is an
# addition ("there is also the approach to search X"), not a correction
_MARK = _rx(r"\b(?:not|no|never|don['’]?t|doesn['’]?t|isn['’]?t|wasn['’]?t|aren['’]?t|shouldn['’]?t|won['’]?t|"
            r"can['’]?t|didn['’]?t|wrong|incorrect|instead|rather|but|already|still|only|actually|"
            r"não|nao|nunca|errad[oa]|mas|já|ainda|só|em vez|na verdade)\b|right\s*\?|\?\s*[?!]|!\s*\?|certo\s*\?")
# a statement said to be wrong: the fact that follows, in the user's words, is ③
_WRONG = _rx(r"\b(?:(?:is|are|was|were|that['’]?s|this is|it['’]?s)\s+(?:not|n['’]?t)\s+(?:correct|right|true|accurate|"
             r"how (?:it|this|that) works)|(?:is|are|was|were)\s+(?:wrong|incorrect|inaccurate|outdated)|"
             r"you(?:['’]?re| are)\s+(?:not (?:correct|right)|wrong|mistaken|incorrect)|"
             r"(?:não|nao) (?:está|é|esta) (?:corret[oa]|cert[oa]|verdade|assim)|está errad[oa]|"
             r"(?:você|vc) (?:está|esta) errad[oa])\b")
# a decision argued: "we should X, not Y", "let's keep X for now"
_DECIDE = _rx(r"\b(?:we|let['’]?s|i think)\b[^.?!]{0,80}?\b(?:should|need to|must|keep|go with|use)\b[^.?!]{0,120}?"
              r"(?:,\s*not\b|\binstead\b|\brather than\b|\bfor now\b|\blater\b)|"
              r"\b(?:devemos|vamos|acho que)\b[^.?!]{0,120}?(?:,\s*(?:não|nao)\b|\bem vez\b|\bpor enquanto\b|\bdepois\b)")
_ASKS_IDEAS = _rx(r"\b(?:any (?:suggestions?|ideas?|thoughts|recommendations?)|what do you (?:suggest|think|recommend)|"
                  r"how would you|ideas\s*\?|alguma (?:sugestão|ideia)|o que você (?:sugere|acha|recomenda))\b")
# not the user's words: Claude Code's own UI pasted back (⏺ ⎿), diff or numbered code lines
_PASTE_LINE = _re(r"^\s*(?:[⏺⎿▶●✻]|\d+\s*[+-]|[+-]{1,3}\s|\$ |>>>)")
_PASTED_UI = _re(r"[⏺⎿]")


def _own_words(text: str) -> str:
    """The user's message without code, tables and pasted lines (terminal, diff, numbered code)."""
    return "\n".join(ln for ln in prose(text).split("\n") if not _PASTE_LINE.match(ln))


def _words(text: str) -> int:
    return len(re.findall(r"[^\W\d_]{2,}", text))


def _restated(reply: str) -> str | None:
    """What the assistant's concession says was wrong, in its next sentence ("You're right - go-git
    handles local .gitignore fine"), unless that sentence is only what it does next ("Let me …")."""
    parts = sentences(reply)[:3]
    for s in parts:
        rest = _CONCEDE.sub("", s, count=1).strip(" -—–:,.!*")
        if _words(rest) < 4 or re.match(r"(?i)(?:let me|i['’]ll|i will|now|vou|deixa eu|perfect|great)\b", rest):
            continue
        return quote(rest)
    return None


def conceded(messages: Sequence[Message], found: Sequence[Evidence]) -> list[Evidence]:
    """``found`` with the corrections the assistant conceded: the conceded message's own evidence
    of a memory dimension raised to :data:`STRENGTH`, or a new piece (③ a fact corrected, ⑥ a
    practice doubted). Only the first assistant message after a typed user message counts, and only
    when its text opens with the concession (a "You're right" after tool output is not the user's)."""
    out = list(found)
    by_index: dict[int, list[int]] = {}
    for k, e in enumerate(out):
        if e.speaker == "user" and e.dimension in MEMORY:
            by_index.setdefault(e.index, []).append(k)
    for i, m in enumerate(messages[:-1]):
        reply = messages[i + 1]
        if m.speaker != "user" or m.kind or reply.speaker != "assistant" or not reply.text or reply.kind:
            continue
        hit = _CONCEDE.match(reply.text.replace("**", "").lstrip()[:200])
        if hit is None or _PASTED_UI.search(m.text) or (len(reply.text) < SHORT and
                                                         reply.text.rstrip(" *_`\n").endswith("?")):
            continue  # (a short "you're right, sorry - shall I do it now?": an apology for a slip, no point taken up)
        own = _own_words(m.text)
        if _words(own) < MIN_WORDS or _ASKS_IDEAS.search(own):
            continue  # too short to say anything, or asking for ideas ("…, any suggestions?"): not a correction
        said = quote(hit.group().strip(" -—–:,.!"))
        restated = _restated(reply.text)
        mine = by_index.get(m.index, [])
        paste = pasted(m.text)
        if mine and paste:
            continue  # (another detector's evidence on a pasted comment keeps its strength: not raised)
        if mine:
            for k in mine:
                e = out[k]
                out[k] = Evidence(e.dimension, e.index, e.speaker, e.quote, e.signal + f" + conceded ({said!r})",
                                  max(e.strength, STRENGTH), e.offset, e.detail | {"conceded": restated})
            continue
        if not _MARK.search(own):
            continue
        flat = " ".join(own.split())
        omission = bool(_OMISSION.search(own)) and not _STANDING.search(own)
        if paste:
            s = next((x for x in sentences(flat) if _ADVICE.search(x)), None) or sentences(flat)[0]
            out.append(Evidence(3, m.index, m.speaker, quote(s), f"a pasted comment + conceded ({said!r})",
                                PASTED_STRENGTH, m.offset, {"paths": [], "rule": quote(s), "clause": quote(s),
                                                            "kind": "pasted", "conceded": restated}))
            continue
        wrong = _WRONG.search(flat)
        fact = flat[wrong.end():].strip(" ,:;.-—–") if wrong else ""
        decide = _DECIDE.search(flat)
        if decide:
            dim, signal, at = 4, "decision argued", decide.start()
        elif wrong and _words(fact) >= 6:
            dim, signal, at = 3, "a fact corrected", wrong.end()
        else:
            dim, signal, at = 6, "a correction", (_MARK.search(flat) or hit).start()
        s = next((x for x in sentences(flat) if len(x) > 15), flat)
        detail: dict = {"kind": "correction", "clause": clause(flat, at), "conceded": restated} | \
            ({"offline": False} if omission else {})
        if dim == 3:
            detail |= {"paths": [], "rule": quote(fact), "clause": quote(fact)}
        out.append(Evidence(dim, m.index, m.speaker, quote(s if dim != 3 else flat), f"{signal} + conceded ({said!r})",
                            STRENGTH, m.offset, detail))
    return out

"""④ decisions: a non-obvious choice with its reason or the option given up, from the user
(also without a choice verb) or from the assistant (with a decision phrase or the user's approval).
"""

from __future__ import annotations

import re

from mdmem.agents.checkpoint.evidence import (
    Evidence,
    _first,
    _lower,
    _no_plan,
    _re,
    _rx,
    clause,
    is_question,
    negated,
    planned,
    quote,
    sentences,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from mdmem.agents.checkpoint.transcript import Message

# ----------------------------------------------------------------------------- ④ decision

_CHOICE = [
    ("chose", _rx(r"\b(?:we|i|let's|let us|team)\s+(?:(?:have|'ve|had|'d)\s+)?(?:decided|chose|chosen|picked|"
                  r"went with|go with|are going with|settled on|opted for|opt for|'ll go with|will go with|"
                  r"are switching to|switched to|moved to|standardi[sz]ed on)\b|\bdecision\b\s*[:\-–]|"
                  r"\bthe (?:choice|call) (?:is|was)\b|\bchose\b|\bgoing with\b|\bwe(?:'re| are) (?:dropping|"
                  r"replacing|ditching|moving off)\b")),
    ("decidimos", _rx(r"\b(?:decidimos|decidi|optamos|optei|escolhemos|escolhi|ficamos com|fechamos com|"
                      r"vamos de|vamos ficar com|a decisão (?:é|foi)|decisão\s*:|migramos para|trocamos|"
                      r"largamos|largou|abandonamos|substituímos|fomos de)\b")),
]
_ALTERNATIVE = _rx(r"\b(?:instead(?: of)?|rather than|in favou?r of|over|as opposed to|not\s+\w+\s+but|"
                   r"em vez de|ao invés de|no lugar de|em detrimento de|e não|sem|no)\b")
# "sessions go write-through, because ...", "faturamento continua no monolito, porque ...": a choice
# stated as where something goes, with its reason
_DECIDE_VERB = _rx(r"\b(?:go(?:es)? (?:with|to|on|write-\w+|for)|stays? (?:on|in|with)|gets? (?:a|an|the)\b|"
                   r"will use|we use|moves? to|switch(?:es)? to|adopts?|keeps? using|picks?|"
                   r"continua (?:no|na|em|com)|fica (?:no|na|em|com)|vai (?:pro|pra|para|de)|usamos|adotamos|"
                   r"passa a usar|migra para)\b")
_NOT_Y = _rx(r"^[^,;]{2,60}[,;]\s*(not|no|sem|não)\s+[\w.'-]+(?:\s+[\w.'-]+)?\s*(?:[.;]|$)")
_WEAK_ALTERNATIVES = ("over", "no", "sem", "instead", "e não")
_REASON = _rx(r"\b(?:because|since|so that|as it|given that|the reason|due to|which means|(?:whole |main )?argument|"
              r"porque|pois|já que|devido|por causa|uma vez que|o motivo|assim a gente|compromisso)\b")
_TRADEOFF = _rx(r"\btrade-?offs?\b|\bcusto-benefício\b|\bprós e contras\b|\bpros and cons\b")
_OVER = _rx(r"\b(?:chose|picked|use|using|went with|go with|opted for|prefer|keep)\s+(.{2,40}?)\s+"
            r"(?:over|instead of|rather than)\s+(.{2,40}?)(?=\s+(?:because|since|as|so|for)\b|[.,;:!)]|$)")
_EM_VEZ = _rx(r"\b(?:optamos por|escolhemos|vamos usar|usar|usamos|ficamos com|decidimos usar|decidimos)\s+(.{2,40}?)"
              r"\s+(?:em vez de|ao invés de|no lugar de|e não)\s+(.{2,40}?)(?=\s+(?:porque|pois|já que)\b|[.,;:!)]|$)")
_X_INSTEAD = _rx(r"(?:^|[\s,])(\S+(?:\s\S+)?)\s+(?:instead of|rather than|em vez de|ao invés de)\s+"
                 r"(.{2,40}?)(?=\s+(?:because|since|as|porque|pois)\b|[.,;:!)]|$)")


def _choice_parts(sentence: str) -> tuple[str | None, list[str]]:
    """(chosen, [rejected]) when the sentence names both, each without stray punctuation."""
    for pattern in (_OVER, _EM_VEZ, _X_INSTEAD, _DECIDE_USER[0][1]):
        m = pattern.search(sentence)
        if m:
            chosen = m.group(1).strip(" `*\"'.,;:()")
            rejected = m.group(2).strip(" `*\"'.,;:()")
            if chosen and rejected and chosen.lower() not in _STOP_WORDS and rejected.lower() not in _STOP_WORDS:
                return chosen, [rejected]
    return None, []


_STOP_WORDS = frozenset("it this that them those these the a an one we you i de o a e".split())


# decisions people state without a choice verb (the misses of the real sessions: "htmx over Datastar: more
# mature", "let's drop the dashboard and just render images", "the runtime is new enough, so no build step",
# "we could build that later, but for now that just adds complexity", "so I think we should check at the
# start of a prompt")
_DECIDE_USER = [
    ("X over Y:", _rx(r"^\W*([\w.+#/-]+(?: [\w.+#/-]+)?)\s+over\s+([\w.+#/-]+(?: [\w.+#/-]+)?)\s*(?:[:—–]|,? because|"
                      r",? since|,? as)\s")),
    ("drop X and just Y", _rx(r"\b(?:drop|skip|ditch|scrap|forget(?: about)?|remove|lose)\b[^.;]{1,40}?\band (?:just|only|"
                              r"simply)\b|\b(?:larga|esquece|tira|remove)\b[^.;]{1,40}?\be (?:só|apenas)\b")),
    ("so no X", _rx(r"[,;]\s*so (?:no|we don'?t need|there'?s no need for|we can skip)\b|"
                    r"[,;]\s*(?:então|entao) (?:sem|não precisa)\b")),
    ("not worth the complexity", _rx(r"\b(?:adds?|adding) (?:(?:too much|unnecessary|more|extra|a lot of) )?complexity\b|"
                                     r"\bnot worth (?:it|the (?:complexity|effort))\b|\boverkill\b|\byagni\b|"
                                     r"\bkeep it simple\b|\bcomplexidade (?:desnecessária|demais)\b|\bnão vale a pena\b")),
    # the user settles on a value after a back and forth ("ok let's do `Last seen: <date>`"): the value is quoted
    ("let's do `X`", _rx(r"^\W*(?:(?:ok(?:ay)?|alright|fine|sure|yes|yeah|then|so)\W+)*(?:let'?s|vamos)\s+(?:just\s+)?"
                         r"(?:do|go with|use|keep|make it|call it|fazer|usar|de|com|deixar)\s+(`[^`\n]{2,80}`|\"[^\"\n]{2,80}\"|"
                         r"“[^”\n]{2,80}”)")),
    ("I think we should", _rx(r"\bi think\b[^.;?]{0,60}?\bwe should\b|\bacho que\b[^.;?]{0,60}?\b(?:devemos|deveríamos)\b")),
]
_FOR_NOW = _rx(r"\b(?:for now|later|instead|just|rather|por enquanto|depois|em vez)\b")
_APPROVAL = _rx(r"^\W*(?:yes|yep|yeah|sounds good|agreed|i agree|agree|let'?s do (?:it|that|this)|go (?:ahead|for it)|"
                r"perfect|exactly|makes sense|ok(?:ay)?,? (?:let'?s|go|do)|sim|isso|fechado|bora|pode ir|concordo|"
                r"faz sentido|perfeito|beleza|ótimo|otimo|show|combinado|ok(?:ay)?)\b")


# what a message must hold for a detector to look at its sentences (substrings of the patterns' words: a
# superset, checked in C; a regular expression over every message costs 10-20 ms on a 2.7 MB session)
_DECISION_HINTS = (
    "decid", "chose", "chosen", "picked", "went with", "go with", "going with", "settled", "opt", "switch",
    "moved to", "standardi", "decision", "the choice", "the call", "dropping", "replacing", "ditching", "moving off",
    "decis", "escolh", "ficamos", "fechamos", "vamos", "migramos", "trocamos", "larg", "abandonamos", "substitu",
    "fomos de", "because", "since", "so that", "as it", "given that", "reason", "due to", "which means", "argument",
    "porque", "pois", "já que", "devido", "por causa", "uma vez que", "motivo", "assim a gente", "compromisso",
    "trade", "custo-benef", "prós e contras", "pros and cons")
_DECISION_USER_HINTS = (
    "over", "drop", "skip", "ditch", "scrap", "forget", "remove", "lose", "esquece", "tira", "so no", "então sem",
    "entao sem", "não precisa", "complex", "not worth", "overkill", "yagni", "simple", "não vale", "i think",
    "acho que", "let's", "lets", "let’s")


def decisions(messages: Sequence[Message]) -> list[Evidence]:
    """④ A choice with its reason or the option given up. From the assistant it needs a
    decision phrase ("we chose", "going with") or the user's approval in the next message
    (else "X rather than Y" in a plan or an explanation would count); plan sections are
    left out. From the user, a choice stated without a choice verb counts too."""
    found: list[Evidence] = []
    for n, m in enumerate(messages):
        user = m.speaker == "user"
        approved = False
        if not user:
            reply = next((x for x in messages[n + 1:n + 3] if x.speaker == "user"), None)
            approved = bool(reply and _APPROVAL.match(reply.text))
        low = _lower(m.text)
        if not (any(w in low for w in _DECISION_HINTS) or (user and any(w in low for w in _DECISION_USER_HINTS))):
            continue  # every way to a decision needs a choice phrase, a reason, a trade-off or (user) a stated one
        parts = sentences(m.text if user else _no_plan(m.text))
        for i, s in enumerate(parts):
            if is_question(s) or len(s) < 12:
                continue
            choice = _first(_CHOICE, s)
            alt = _ALTERNATIVE.search(s)
            if alt and alt.group().lower() in _WEAK_ALTERNATIVES and not choice:
                alt = None  # "over", "no", "sem", "instead" alone are too common to mean an alternative
            reason = _REASON.search(s)
            if choice and planned(s, choice[1].start()) and not re.search(r"\b(?:let's|vamos)\b", s, re.I):
                continue
            if choice and not reason and i + 1 < len(parts) and not is_question(parts[i + 1]):
                reason = _REASON.search(parts[i + 1])  # "decision: postgres. The whole argument is ..."
            said = _first(_DECIDE_USER, s) if user else None
            if choice and (alt or reason):
                strength = 1.0 if alt and reason else 0.9
                signal = " + ".join(x for x in (choice[0], alt and "alternative", reason and "reason") if x)
            elif said and said[0] == "X over Y:":
                strength, signal = 0.9, "X over Y + reason"
            elif said and said[0] == "let's do `X`":
                strength, signal = 0.8, said[0]
            elif said and said[0] in ("drop X and just Y", "so no X"):
                strength, signal = 0.8, said[0]
            elif said and said[0] == "not worth the complexity":
                strength, signal = (0.8 if _FOR_NOW.search(s) else 0.65), said[0]
            elif said:
                strength, signal = (0.75 if reason or alt else 0.65), said[0] + (" + reason" if reason else "")
            elif alt and reason and not negated(s, alt.start()) and (user or approved):
                strength, signal = 0.7, "alternative + reason"
            elif (verb := _DECIDE_VERB.search(s)) and reason and reason.start() > verb.start() \
                    and not negated(s, verb.start()) and (user or approved):
                strength, signal = 0.65, f"{verb.group().lower()!r} + reason"
            elif (neg := _NOT_Y.search(s)) and (reason or (i + 1 < len(parts) and _REASON.search(parts[i + 1]))) \
                    and (user or approved):
                strength, signal = 0.7, f"X, {neg.group(1).lower()} Y + reason"
            elif _TRADEOFF.search(s) and (reason or alt) and (user or approved):
                strength, signal = 0.7, "trade-off"
            else:
                continue
            if approved and not user:
                signal += " + approved by the user"
            chosen, rejected = _choice_parts(s)
            if said and said[0] == "let's do `X`":
                chosen = said[1].group(1).strip("`\"“” ")
            at = next((x[1].start() for x in (choice, said) if x), alt.start() if alt else 0)
            found.append(Evidence(4, m.index, m.speaker, quote(s), signal, strength, m.offset,
                                  {"chosen": chosen, "rejected": rejected, "clause": clause(s, at)}))
    return found


# ----------------------------------------------------------------------------- ④ a pick among offered options

# an option the assistant offers, one a line: "A) ...", "**B.** ...", "- Option 2: ...", "### Option C — ..."
_OPTION = _re(r"^[ \t]*(?:[-*•][ \t]*)?(?:#{1,4}[ \t]*)?(?:\*\*)?(?:option[ \t]+|opção[ \t]+)?([A-H]|[1-9])(?:[.):]|\*\*)"
              r"(?:\*\*)?[ \t]*(?:[-—–:][ \t]*)?(\S.{2,200})$|"
              # a table row whose first cell is the option: "| **A. After commit** | ... |"
              r"^[ \t]*\|[ \t]*(?:\*\*)?(?:option[ \t]+|opção[ \t]+)?([A-H]|[1-9])[.):][ \t]*([^|]{2,120}?)(?:\*\*)?[ \t]*\|"
              r"([^|\n]{0,160})", re.M | re.I)
# the question that closes the offer asks the user to choose (a "?" or a "would you like me to:" before the list)
_CHOOSE = _rx(r"\b(?:which|prefer|option|approach|choose|pick|would you like|do you want|or|qual|quais|prefere|"
              r"opção|escolhe)\b[^\n]{0,120}(?:\?|:[ \t]*$)", re.I | re.M)
# the user's answer opens with one of the labels: "A.", "B, nested in ...", "I think B", "option 2", "go with C"
_PICK = _re(r"^\W*(?i:(?:yes|yeah|yep|ok(?:ay)?|sure|sim|ok|sounds good|great|perfect|cool|alright|right)[,.!]*[ \t]+){0,2}"
            r"(?i:(?:i think|i['’]?d (?:go with|say|pick|choose)|let['’]?s (?:go with|do)|go with|do|i (?:prefer|choose|pick)|"
            r"option|opção|acho que|vamos de|prefiro|escolho)[ \t]+){0,2}\(?(?:([A-H])(?![\w'’])|"
            r"(?:(?<=(?i:option) )|(?<=(?i:opção) ))([a-h])(?![\w'’])|([a-h])(?=[.):]|\s*$)|"
            r"#?([1-9])(?![\w'’.]\w|\.\d))[).:,]?(?:\s|$)")  # a capital, or a small letter alone: "a)", not "a quick"
# the answer names the option by its place ("the first one", "yeah the second", "a primeira"): short, and not
# about what is wrong with it ("the first one fails")
_ORDINAL = _re(r"^\W*(?i:(?:yes|yeah|yep|ok(?:ay)?|sure|sim|sounds good|great|perfect|cool|alright)[,.!]*[ \t]+){0,2}"
               r"(?i:(?:i think|i['’]?d (?:go with|say|pick|choose)|let['’]?s (?:go with|do)|go with|do|i (?:prefer|choose|"
               r"pick)|acho que|vamos de|prefiro|escolho|fico com)[ \t]+)?(?P<the>(?i:(?:the|a|o)[ \t]+))?(?i:(?P<nth>first|"
               r"second|third|fourth|primeir[ao]|segund[ao]|terceir[ao]|quart[ao]))\b(?P<one>(?i:[ \t]+(?:one|option|"
               r"approach|way|opção|abordagem)))?(?![^.!?\n]*\b(?i:not|n['’]t|no|wrong|broken|fails?|failing|não|errad[ao]|quebr\w*)\b)")
# what follows the label says the option does not work ("Option 1 doesn't work since the commit hash can change",
# real session 122): an objection to that option, not a pick of it ("I think B, not A" still picks B)
_AGAINST = _re(r"[ \t,]*(?:[^\W\d_]+[ \t]+){0,2}?(?i:doesn['’]?t|does not|won['’]?t|will not|wouldn['’]?t|can['’]?t|"
               r"cannot|isn['’]?t|is not|is wrong|is broken|fails?|breaks|não)\b")
_ORDINALS = {"fir": 0, "sec": 1, "thi": 2, "fou": 3, "pri": 0, "seg": 1, "ter": 2, "qua": 3}


# what the offer asks to choose ("Which timing model do you want?" → "timing model"): the decision's subject,
# for its name; "which approach/option/one" says nothing of it
_TOPIC = _rx(r"\bwhich ([\w/ -]{3,40}?) (?:do|would|should|will|sounds?|is|are|works?|makes?)\b[^\n?]{0,60}\?|"
             r"\bqual ([\w/ -]{3,40}?) (?:você|vc|prefere|faz|parece)\b[^\n?]{0,60}\?")
_GENERIC_TOPICS = frozenset("approach option options one way path route choice solution approaches abordagem opção "
                            "caminho alternativa".split())


def picks(messages: Sequence[Message]) -> list[Evidence]:
    """④ The user picks one of the options the assistant offered ("A.", "I think B, nested in
    strategy options - it leaves room to customise later") in reply to a message that lists at
    least two labelled options and ends by asking which: a decision with the other options
    rejected, made in an interview where nobody says "we chose". Said in the user's words (the
    answer), with the options' text as chosen/rejected."""
    found: list[Evidence] = []
    offer: dict[str, str] = {}
    topic: str | None = None
    for m in messages:
        if m.speaker == "assistant":
            if m.text and m.kind != "prompt":
                found_options = [((o.group(1) or o.group(3)).upper(),
                                  o.group(2) or (o.group(4).strip(" *_`") + ": " + o.group(5).strip()))
                                 for o in _OPTION.finditer(m.text)]
                # the options closest to the question: the labels of the last one's kind (letters or digits)
                digits = bool(found_options) and found_options[-1][0].isdigit()
                options: dict[str, str] = {}
                for label, text in found_options:
                    if label.isdigit() == digits:
                        if label in options:  # the numbering starts again: a later list ("Possible fixes:")
                            options = {}
                        options[label] = text.strip(" :")
                offer = options if len(options) >= 2 and _CHOOSE.search(m.text[-1500:]) else {}
                asked = [t.group(1) or t.group(2) for t in _TOPIC.finditer(m.text[-1500:])] if offer else []
                topic = asked[-1].strip() if asked and asked[-1].strip().lower() not in _GENERIC_TOPICS else None
            continue
        if not offer or not m.text or len(m.text) > 1500:
            offer = {}
            continue
        hit = _PICK.match(m.text)
        if hit and _AGAINST.match(m.text, hit.end()):
            hit = None
        label = next(g for g in hit.groups() if g).upper() if hit else None
        if label is None and len(m.text.split()) <= 12 and (nth := _ORDINAL.match(m.text)) and \
                (nth.group("the") or nth.group("one") or not m.text[nth.end():].strip(" .!")):
            # (a bare "first, tell me what each costs" orders the work: an ordinal alone is a pick only alone)
            place = _ORDINALS[nth.group("nth")[:3].lower()]
            label = list(offer)[place] if place < len(offer) else None
        if label is None:  # answered in the option's own words: "keep it local!" for "1. **Keep it local**"
            low = m.text.lower()
            said = [k for k, v in offer.items() if len((head := _head(v)).split()) >= 2 and head in low]
            label = said[0] if len(said) == 1 else None
        if label in offer:
            chosen = offer[label]
            rejected = [v for k, v in offer.items() if k != label]
            first = (sentences(m.text) or [m.text.strip()])[0]
            # the answer says more than the label ("I think B, nested in the options - it leaves room later"): the
            # user's own reason or condition, a firmer decision than a bare "A." (0.85: it fires the Stop hook alone)
            worded = hit is not None and len(re.findall(r"[^\W\d_]{2,}", m.text)) >= 8  # (not the option's own words)
            found.append(Evidence(4, m.index, m.speaker, quote(first), f"picked option {label} of {len(offer)}"
                                  + (" + the user's words" if worded else ""), 0.85 if worded else 0.8,
                                  m.offset, {"chosen": _head(chosen, keep_case=True),
                                             "rejected": [_head(r, keep_case=True) for r in rejected],
                                             "clause": quote(chosen), "topic": topic}))
        offer = {}
    return found


def _head(option: str, keep_case: bool = False) -> str:
    """An option's title: its bold lead, else the words before a dash, colon or parenthesis
    (lower-cased to compare with an answer, unless ``keep_case``)."""
    bold = re.match(r"\*\*(.+?)\*\*", option.lstrip(" _`"))
    text = bold.group(1) if bold else re.split(r"\s[-—–(]|:\s|\.\s", option, maxsplit=1)[0]
    text = " ".join(text.strip(" *_`.").split())
    return text if keep_case else text.lower()

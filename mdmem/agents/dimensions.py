"""The seven dimensions of a memory-worthy conversation, found by deterministic
English and Portuguese detectors (regular expressions over sentences; no model).

1 ① task closure       a request carried through tool work to a delivery with proof
2 ② behaviour rule     a general rule for the assistant ("always…", "a partir de agora…")
3 ③ domain rule        a rule tied to a file type, tool or path
4 ④ decision           a non-obvious choice with its reason or the option given up
5 ⑤ milestone          released, deployed, merged, published, a version number
6 ⑥ calibration        the user corrects a practice or confirms a non-obvious one
7 ⑦ analysis           a reusable framework the assistant produced and the user took up

Each detector returns :class:`Evidence` (message index, speaker, a quote under
200 characters, the signal that fired, a strength in 0..1). A dimension is hit
when its strongest evidence reaches :data:`HIT`. Questions ("should we use X
instead of Y?"), negations ("tests don't pass yet") and plans ("we'll deploy
tomorrow") do not count.

What real sessions taught them (tests/data/checkpoint-real, tune split; issue 13):

- ① only from a turn's closing report (its final message, or text after its last tool
  call), never from table, directory-tree or plan lines; short replies ("pushed", "verify")
  carry the task on, and the latest delivery of a task supersedes the earlier ones;
- ② / ③: preferences said in passing ("make sure we use X everywhere", "I only want one,
  preferably brew", "imports go at the top, not inside methods", "not with any repository
  other than X"); with a tool, file type, path or the project as its scope a rule is ③;
- ④ from the assistant needs a decision phrase or the user's approval in the next message;
  from the user, choices without a choice verb count ("X over Y: …", "drop X and just Y",
  "…, so no build step", "for now that just adds complexity");
- ⑤ only about the project's own artefacts (first person, subject-less, or said by the user),
  never "a new version is released" upstream;
- ⑥ a qualified yes that redirects ("Sure, but the CLI should…, not you…"), "hold off…".

Measured: on the 10 tune sessions 9 of 12 reachable firm items found with no wrong suggestion;
on the 5 held-out ones 0 of 7 (people answering an interview, "please use the british
spelling :)"): regular expressions do not generalise to how people type, which is why the
Stop hook hands the judging to the model and uses these only to decide when, and as hints.

Cheap enough for the Stop hook: standard library only, patterns compiled on first use
(all ~110 cost ~25 ms), each message's sentences cut once, substring looks before sentence
work (a 2.7 MB session's 419 messages: ~30 ms).
"""

from __future__ import annotations

import functools
import re

from mdmem.agents.transcript import Frozen, Message, turns

TYPE_CHECKING = False  # annotations only (`typing` costs ~10 ms of a hook's start)
if TYPE_CHECKING:
    from collections.abc import Sequence

HIT = 0.6
NAMES = {1: "task closure", 2: "behaviour rule", 3: "domain rule", 4: "decision", 5: "milestone",
         6: "calibration", 7: "analysis"}
QUOTE = 199  # characters: a quote stays under 200


class Evidence(Frozen):
    """dimension; index: the message's index in the conversation; speaker; quote (under 200
    characters); signal: the rule that fired; strength (0..1); offset: the message's byte offset
    in the transcript (to recognise it again); detail: chosen/rejected, paths, the request, ...
    (A light frozen record, as :class:`~mdmem.agents.transcript.Message`: the Stop hook imports
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


def _rx(pattern: str, flags: int = re.I) -> _Lazy:
    return _Lazy(pattern, flags)


def _re(pattern: str, flags: int = 0) -> _Lazy:
    return _Lazy(pattern, flags)


# ----------------------------------------------------------------------------- sentences

_FENCE = _re(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)", re.S | re.M)
_SPLIT = _re(r"(?<=[.!?…])[\"')\]*]*\s+(?=\S)|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)|\n")
_TAG = _re(r"</?[A-Za-z][\w:-]*(?:\s[^<>\n]{0,200})?/?>")  # <user-memory-input>, <br/>: markup, not words
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


# ----------------------------------------------------------------------------- ① task closure

_PROOF = [
    ("tests pass", _rx(r"\b(?:all\s+|the\s+|\d+\s+)?(?:unit\s+|integration\s+|e2e\s+)?tests?\s+(?:now\s+|all\s+|still\s+)?"
                       r"(?:are\s+|is\s+)?(?:now\s+)?(?:pass(?:es|ed|ing)?|green|succeed\w*|ok)\b")),
    ("N passed", _rx(r"\b\d+\s+(?:tests?\s+)?passed\b(?!\W+\d+\s+failed)")),
    ("it works", _rx(r"\b(?:it|this|that|everything|the (?:fix|build|server|app|page|script|command|endpoint|"
                     r"deploy|migration|feature|job|pipeline|tool|workflow))\s+(?:now\s+)?(?:works|is working)\b|"
                     r"\bit (?:now )?runs\b(?! only| when| if| on)|"
                     r"\b(?:works|working|runs) (?:now|again|fine|correctly|as expected|perfectly|end[- ]to[- ]end)\b|"
                     r"\bfully working\b|\b(?:is|are) (?:now )?(?:working|green|passing)\b(?! on)|"
                     r"\b(?:has|have) (?:now )?(?:completely |all |fully )?(?:passed|succeeded)\b|"
                     r"\ball (?:checks|jobs|steps) (?:pass(?:ed)?|green|succeeded)\b|\ball clean\b")),
    ("build passes", _rx(r"\b(?:build|ci|pipeline|lint|type ?check|mypy|ruff)\s+(?:is\s+)?(?:now\s+)?"
                         r"(?:passes|passed|succeeds|succeeded|green|clean)\b")),
    ("verified", _rx(r"\b(?:verified|confirmed)\b(?! (?:by|with) (?:you|the user))")),
    ("testes passam", _rx(r"\b(?:todos os |os )?testes?\s+(?:agora\s+)?(?:estão\s+)?(?:passa(?:m|ndo|ram)?|"
                          r"verdes?|ok)\b")),
    ("funciona", _rx(r"\b(?:funciona(?:ndo)?|funcionou|rodando|roda)\b(?:\s+(?:agora|certinho|perfeitamente|"
                     r"normalmente|de novo|bem))?")),
    ("command passes", _rx(r"`[^`\n]{2,80}`\s+(?:\w+\s+){0,3}?(?:succeeds|succeeded|passes|passed|is green|ok|"
                           r"passou(?! a)|passa(?! a)|limpo|clean)\b|\bbuild successful\b|\b(?:vet|lint|check)\s+(?:limpo|clean)\b|"
                           r"\b(?:with no|zero|sem (?:nenhum )?)\s*(?:warnings?|errors?|avisos?|erros?)\b")),
    ("N passando", _rx(r"\b\d+\s+(?:testes?\s+)?(?:passando|passaram|passou|ok)\b|\bsem erros?\b|"
                       r"\b0 (?:problems|errors|erros|problemas|failures|falhas)\b")),
    ("build verde", _rx(r"\b(?:build|ci|pipeline)\s+(?:passou|verde|ok)\b")),
    ("verifiquei", _rx(r"\b(?:verifiquei|confirmei|testei)\b")),
]
_DONE = [
    ("done", _rx(r"\b(?:done|finished|completed|complete|fixed|implemented|all set|resolved|shipped it|"
                 r"that's it)\b|^\W*(?:uploaded|published|deployed|pushed|merged|committed|released|shipped)\b|"
                 r"\b(?:is|are) now (?:\w+ed|set up|in place|live)\b")),
    ("feito", _rx(r"\b(?:feito|pronto|concluído|concluido|finalizado|resolvido|corrigido|implementado|"
                  r"terminei|terminado)\b|^\W*(?:publicad[oa]|enviad[oa]|subid[oa]|deployad[oa]|mergead[oa]|"
                  r"commitad[oa])\b")),
]
_FAILING = _rx(r"\b(?:[1-9]\d*\s+failed|fail(?:s|ed|ing|ure|ures)?|errors?|broken|still|falh\w+|quebr\w+|erro)\b")
_THANKS_ONLY = _rx(r"^\W*(?:thanks?|thank you|thx|ok(?:ay)?|cool|great|nice|valeu|obrigad[oa]|beleza|show)\W*$")
_CONFIRM_WORKS = _rx(r"\b(?:works|worked|working|it runs|funcionou|funciona|deu certo|rodou)\b")


# a short reply that carries the running task on ("pushed", "verify", "commit this"): not a new request
_CONTINUES = _rx(r"^\W*(?:pushed|pished|pushed it|done|did it|verify|verified|check|continue|go on|go ahead|proceed|"
                 r"next|commit(?: (?:this|it|that|them))?|ok(?:ay)?|yes|yep|yeah|sure|resume|retry|try again|again|"
                 r"swapped|ran it|i ran it|continua|segue|pode|feito|pronto|subi|rodei|de novo)\b")
# the reply ends by asking the user something: the task is not closed, and no checkpoint now
_ASKS = _rx(r"\b(?:would you like|do you want|shall i|should i|want me to|let me know (?:if|whether|which|when|how)|"
            r"which (?:one|option|approach) (?:do|would) you|can you (?:confirm|check|run|try|tell)|could you "
            r"(?:confirm|check|run|try|tell)|please (?:confirm|run|try|check)|are you (?:ok|okay|happy) with|"
            r"quer que eu|você quer|prefere|posso (?:seguir|continuar|fazer|aplicar)|pode (?:confirmar|rodar|testar))\b")
_LIST_ITEM = _re(r"^\s*(?:[-*•]|\d+[.)]|[✓✅✔☑])\s")
_PARAGRAPH = _rx(r"\n\s*\n")
SUBSTANTIAL = 15  # tool calls: the seed's "more than 15 tool calls" (a substantial piece of work)


def asks_user(text: str) -> bool:
    """The message ends by asking the user something (its last paragraph holds a question or
    an "let me know if…" / "want me to…" request): a turn ending so waits for the user."""
    body = prose(text).strip()
    if not body:
        return False
    tail = _PARAGRAPH.split(body)[-1]
    last = (sentences(tail) or [""])[-1]
    return last.rstrip(" *_`").endswith("?") or bool(_ASKS.search(tail))


def task_closure(messages: Sequence[Message]) -> list[Evidence]:
    """① Evidence only from a turn's final assistant message (what the user reads when the
    agent stops), never from table, tree or plan lines; short replies such as "pushed" or
    "verify" carry the task on, so its tool work adds up until the delivery."""

    found: list[Evidence] = []
    at = {m.index: m for m in messages}
    request: Message | None = None
    work = 0
    for turn in turns(messages):
        opener = at.get(turn.request)
        if opener is not None:
            if request is not None and found and found[-1].detail.get("request") == request.index:
                hit = _CONFIRM_WORKS.search(opener.text)  # the user confirms it works after the delivery
                if hit and not negated(opener.text, hit.start()) and not is_question(opener.text):
                    last = found[-1]
                    found[-1] = Evidence(1, last.index, last.speaker, last.quote, last.signal + " + user confirms",
                                         min(1.0, last.strength + 0.1), last.offset, last.detail)
            if not (_CONTINUES.match(opener.text) and len(opener.text.split()) <= 8 and request is not None) \
                    and not _THANKS_ONLY.match(opener.text):
                request, work = opener, 0
        work += turn.tools
        if request is None or not work or turn.final is None:
            continue
        # the closing report: the turn's final message, and any text after its last tool call
        # (a queued slash command can be answered after the report)
        last_tool = max((i for i in turn.messages if at[i].tools), default=-1)
        closing = [i for i in turn.messages if at[i].speaker == "assistant" and at[i].text and at[i].kind != "prompt"
                   and (i > last_tool or i == turn.final)]
        def earlier_proof(turn=turn, closing=closing) -> bool:  # asked only when "done" comes without a proof
            return any(_first(_PROOF, s) and not _FAILING.search(s)
                       for i in turn.messages if i not in closing and at[i].speaker == "assistant"
                       for s in sentences(_no_plan(at[i].text))[-3:])
        best = None
        for final, s in ((at[i], s) for i in closing for s in sentences(_no_plan(at[i].text))):
            if is_question(s) or s.rstrip(" *_").endswith(":"):
                continue
            proof = _first(_PROOF, s)
            if proof and _FAILING.search(s) and not re.search(r"\b0 failed\b", s):
                proof = None
            if proof and planned(s, proof[1].start()):
                proof = None
            done = _first(_DONE, s)
            if proof:
                strength = 0.9 if done or work >= 2 else 0.8
                signal = proof[0] + (" + " + done[0] if done else "")
            elif done and not _FAILING.search(s) and not planned(s, done[1].start()) and not _LIST_ITEM.match(s) \
                    and not re.search(r"\bto\s+$", s[:done[1].start()]):
                strength, signal = (0.8, done[0] + " + proof earlier in the turn") if earlier_proof() else \
                    (0.6, done[0])
            else:
                continue
            if best is None or strength > best[0]:
                best = (strength, signal, s, final)
        if best and not asks_user(at[turn.final].text):
            strength, signal, s, final = best
            if work >= SUBSTANTIAL:
                strength = min(1.0, strength + 0.05)
            if found and found[-1].detail.get("request") == request.index:
                found.pop()  # the latest delivery of a task supersedes the earlier ones
            found.append(Evidence(1, final.index, final.speaker, quote(s), f"{signal} after {work} tool call"
                                  + ("s" if work != 1 else ""), strength, final.offset,
                                  {"request": request.index, "request_text": quote(request.text), "tools": work,
                                   "summary": _summary(final.text)}))
    return found


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


_INTERJECTION = _rx(r"^(?:[^\w]*\s*(?:done|perfect|great(?: news| progress)?|excellent|success|all set|awesome|"
                   r"nice|ok(?:ay)?|pronto|feito|ótimo|perfeito|sucesso)\b[!.:,]*\s*)+|"
                   r"^here'?s (?:a )?(?:summary of |what )?(?:the |what )?(?:i'?ve |we'?ve )?(?:was )?(?:done|changed|built)?\s*"
                   r"(?:of )?(?:the )?|^segue (?:o )?resumo (?:d[aoe]s? )?")


def _summary(text: str) -> str:
    """The first line of a delivery report that says what was delivered (a heading or bold
    lead such as "**Review Tool** — fully working local web UI"), markup, emoji and lead-ins
    such as "Done." or "Here's a summary of" removed."""
    for ln in prose(text).split("\n"):
        flat = " ".join(ln.replace("**", "").replace("__", "").strip(" #>*-•").split())
        flat = _INTERJECTION.sub("", _INTERJECTION.sub("", flat)).strip(" :.-—")
        if len(flat.split()) >= 3:
            return quote(flat)
    return ""


# ----------------------------------------------------------------------------- ② ③ rules

_LEAD = (r"^\W*(?:(?:ok(?:ay)?|also|and|so|but|please|pls|remember(?: to| this)?|note|important|rule|fyi|btw|"
         r"e|também|tambem|por favor|lembre(?:-se)?(?: de| disso)?|importante|regra|obs|ah)\W+)*")
_RULES = [
    ("always/never", _rx(_LEAD + r"(?:you\s+(?:should|must|need to|have to)\s+)?(?:always|never|don't ever|"
                         r"do not ever|at all times)\s+(?!mind\b|been\b|ever\b|heard\b|seen\b|thought\b|knew\b|"
                         r"know\b|liked?\b|had\b|was\b|were\b|did\b|works?\b|fails?\b|happens?\b)\w")),
    ("from now on", _rx(r"\b(?:from now on|going forward|moving forward|from here on(?: out)?|for all future|"
                        r"in (?:the )?future(?: sessions)?,|every time you|whenever you|each time you|"
                        r"make (?:it )?a rule|as a rule)\b")),
    ("sempre/nunca", _rx(_LEAD + r"(?:você\s+(?:deve|precisa|tem que)\s+)?(?:sempre|nunca|jamais)\s+(?!mais\b|foi\b|"
                         r"vi\b|tive\b|fui\b|gostei\b|usei\b|funcionou\b|deu\b|acontece\b|falha\b|tinha\b)\w")),
    ("a partir de agora", _rx(r"\b(?:a partir de agora|daqui (?:pra|para) frente|de agora em diante|"
                              r"daqui em diante|sempre que (?:você|vc|for)|toda vez que (?:você|vc|for)|"
                              r"nas próximas (?:sessões|vezes)|como regra)\b")),
]
# a standing preference said in passing, in the middle of a request (the misses of the real sessions:
# "let's make sure we're using US English everywhere", "I only want one install, preferably brew",
# "imports go at the top of modules, not inside of methods", "don't use it with any repository other than
# X", "when the two disagree, trust the printed forms", "whenever you build those sheets, put ... on top")
_PREFER = [
    ("make sure … everywhere", _rx(r"\bmake sure (?:that )?(?:we|you|it|all|every|the)\b[^.;]{0,80}?\b(?:everywhere|"
                                   r"throughout|consistently|every time|across (?:the|all))\b|"
                                   r"\b(?:we|you)(?:'re| are)? (?:using|use|writing|write) [^.;]{1,40}? everywhere\b")),
    ("you should regularly", _rx(r"\b(?:you|we) should (?:always |regularly |consistently |routinely |also )+"
                                 r"(?:use|run|write|keep|prefer|avoid|follow|check|test|lint|format)\b|"
                                 r"\bvocê deve (?:sempre |regularmente )(?:usar|rodar|escrever|manter)\b")),
    ("we should use TOOL", _rx(r"\b(?:we|you) should (?:use|be using|switch to|stick (?:to|with))\b|"
                               r"\b(?:devemos|deveríamos) usar\b")),
    ("I only want", _rx(r"\bi (?:only|just) want (?:one|a single|to use|the)\b|\bi want only\b|"
                        r"\bp(?:re|er)fer+ab(?:ly|le)\b|\bi(?:'d| would)? (?:much )?(?:prefer|rather)\b(?! (?:not|you))|"
                        r"\bprefiro\b|\bde prefer[êe]ncia\b|\bs[óo] quero\b|\bquero s[óo]\b")),
    ("X goes at Y, not Z", _rx(r"\b(?:go|goes|belong|belongs|live|lives|stay|stays|sit|sits)\s+(?:at|in|on|under|into|"
                               r"inside)\b[^,.;]{2,50}[,;]?\s+(?:not|never|rather than)\b|"
                               r"\b(?:ficam?|vão|vai)\s+(?:no|na|em)\b[^,.;]{2,50}[,;]?\s+(?:não|nunca)\b")),
    ("only / other than", _rx(r"\b(?:any|no)\s+[\w-]+(?:\s+[\w-]+)?\s+other than\b|\b(?:only|just) (?:with|in|on|"
                              r"for|against|inside)\s+(?:this|the|our)\b|\bnenhum\w* [\w-]+ (?:além|fora) d[eoa]\b")),
    ("follows the convention", _rx(r"\b(?:follow|follows|use|uses|in)\s+(?:the\s+)?[\w-]+\s+(?:style|convention|"
                                   r"conventions|format)\b|\bconventional commits?\b|\bseguem? (?:o|a) (?:padrão|"
                                   r"convenção|estilo)\b")),
    ("precedence", _rx(r"\bwhen (?:the two|they|these|those|both|the sources?) (?:disagree|conflict|differ)\b|"
                       r"\b(?:trust|believe|prefer) (?:the )?[\w-]+(?: [\w-]+)? over\b|"
                       r"\bquando (?:os dois|eles|elas|as fontes) (?:divergirem|discordarem|conflitarem)\b")),
    ("instead, I'd like", _rx(r"^\W*instead,?\s+(?:i'?d like|i want|let'?s|please|use|we should|you should)\b|"
                              r"\blet'?s instead\b|\bem vez disso,?\s+(?:quero|prefiro|vamos|use)\b")),
]
# a task instruction phrased as a preference ("instead, I'd like…") is a rule only with a tool, file type or path
_PREFER_STRENGTH = {"follows the convention": 0.7, "instead, I'd like": 0.75}
# what makes a preference about a project, domain, tool or file type (③ rather than ②)
_PROJECT = _rx(r"\b(?:everywhere|in (?:this|the|our) (?:repo|repository|codebase|project|code)|across the "
               r"(?:codebase|repo|project)|(?:nesse|neste|no) (?:repo|projeto|código)|em todo o (?:código|projeto))\b")
# a message that announces a rule: the rule is the rest of that sentence (or the next one)
_MARKER = _rx(r"\b(?:(?:standing|general|ground|house|simple|new|another|one|a|the)\s+rules?\b|rules? (?:for you|for "
              r"(?:the|this|our|that)|of the house)|rules?\s*:|make (?:it|that) a (?:standing |general )?rule|"
              r"general (?:thing|preference|point|note|rule)|applies to everything|for everything|"
              r"in (?:every|all) (?:future )?(?:sessions?|conversations?|projects?)|generally speaking|"
              r"i prefer (?:terse|short|concise|brief|direct|plain|that you|you to)|i want you to always|"
              r"regras?\s*(?:pra|para|:|geral|antes)|fica a regra|(?:uma|outra|duas|três|nova|a) regras?\b|"
              r"vale (?:sempre|pra (?:tudo|qualquer)|para (?:tudo|qualquer))|pra qualquer (?:coisa|assunto)|"
              r"para qualquer (?:coisa|assunto)|preferência geral|coisa geral|nada de|off the table|not allowed|"
              r"is forbidden|proibido)")
# "always"/"never"/"only" inside a sentence: a rule only with a tool, file type or path, and not a statement
# about oneself ("I always forget", "as always", "it never works")
_MID = _rx(r"(?:^|[,;:]\s*|\b(?:and|but|e|mas|so|então|please|por favor)\s+|(?:/|\.\w{1,5})\s+)"
           r"(?:always|never|sempre|nunca|jamais)\s+(?!mind\b|been\b|mais\b|again\b)([\w'-]+)")
_STATEMENT = _re(r"(?:[^s]s|ei|ou|ava|ia)$")  # "takes", "gostei", "travou", "usava": a fact, not a rule
_THIRD_PARTY = _rx(r"\b(?:will|we'll|we will|is going to|are going to|vai|vamos|iremos|vão)\b")
_SECOND_PERSON = _rx(r"\b(?:you|your|vc|você|te|seu|sua)\b")
_TOOLS = (r"git|github|gitlab|npm|npx|yarn|pnpm|bun|pip|pipx|uv|poetry|pytest|jest|vitest|mocha|docker|"
          r"docker-compose|kubectl|k8s|kubernetes|helm|terraform|ansible|makefile|cargo|rustc|golang|gofmt|"
          r"go (?:test|vet|build|mod)|mix|elixir|rails|rake|django|alembic|flask|fastapi|sql|sqlite|postgres|"
          r"postgresql|psql|mysql|redis|eslint|ruff|black|prettier|mypy|pyright|tsc|typescript|javascript|"
          r"python|webpack|vite|bash|zsh|github actions|dockerfile|nginx|aws|gcloud|vercel|netlify|"
          r"cloudflare|supabase|firebase|react|vue|svelte|tailwind|css|html|json|yaml|toml|markdown|jupyter|"
          r"pandas|numpy|deno|kotlin|swift|xcode|gradle|maven|migrations?|pull requests?|test files?|"
          r"test suite|arquivos? de teste|linter|formatter|\.env|gh|homebrew|brew|ty|imports?|modules?|"
          r"methods?|functions?|classes|docstrings?|type hints?|assertions?|asserts?|tests?|commits?|"
          r"commit messages?|branch(?:es)?|ci|changelog|readme|dependenc(?:y|ies)|"
          r"testes?|migraç(?:ão|ões)|dependências")
_ANCHOR = [
    ("file type", _rx(r"(?:^|[\s(`'\"*])(?:\*\*/)?\*?(\.[A-Za-z][A-Za-z0-9]{0,5})\b(?:\s+files?|\s+arquivos?)?")),
    ("path", _rx(r"(?:^|[\s(`'\"])((?:[\w.-]+/)+[\w.*-]*)")),
    ("code", _rx(r"`([^`\n]{1,60})`")),
    ("tool", _rx(r"\b(" + _TOOLS + r")\b")),
]


_ANCHOR_ANY = _re("|".join(f"(?:{x.pattern})" for _, x in _ANCHOR), re.I)


def _paths(sentence: str) -> list[str]:
    out: list[str] = []
    for m in _ANCHOR[0][1].finditer(sentence):
        ext = m.group(1).lower()
        if ext not in (".e", ".g", ".i"):  # "e.g", "i.e"
            out.append(f"**/*{ext}")
    for m in _ANCHOR[1][1].finditer(sentence):
        path = m.group(1)
        if "://" in sentence[m.start():m.end() + 3] or path.lower() in ("and/", "or/", "e/", "ou/"):
            continue
        out.append(path + ("**" if path.endswith("/") else ""))
    return list(dict.fromkeys(out))


def rules(messages: Sequence[Message]) -> list[Evidence]:
    """② and ③: a rule the user gives; with a file type, tool, path or the project as its
    scope it is ③ (the seed's definitions: a rule about a domain, tool or file type is ③,
    a general rule of behaviour for the assistant ②)."""
    found: list[Evidence] = []
    for m in messages:
        if m.speaker != "user":
            continue
        parts = sentences(m.text)
        for i, s in enumerate(parts):
            if is_question(s):
                continue
            rule = _first(_RULES, s, allow_negated=True)
            strength = 0.85
            if rule and rule[0] in ("always/never", "sempre/nunca") and \
                    rule[1].group().lower().startswith(("no ", "não ")):
                rule = None
            if not rule:
                marker = _MARKER.search(s)
                if marker:
                    rule = ("rule marker", marker)
                    rest = s[marker.end():].strip(" :,.-—")
                    if len(rest.split()) < 4 and i + 1 < len(parts):  # "two ground rules." then the rule
                        s = parts[i + 1]
                elif (mid := _MID.search(s)) and not _STATEMENT.search(mid.group(1).lower()) \
                        and _ANCHOR_ANY.search(s):
                    rule, strength = ("always/never + anchor", mid), 0.7
                elif ((pref := _first(_PREFER, s)) and not planned(s, pref[1].start()) or
                      (pref and pref[0] in ("you should regularly", "we should use TOOL"))) \
                        and not (_first(_CORRECT, s, allow_negated=True) and not _ANCHOR_ANY.search(s)):
                    # a preference said as a reaction is ⑥; phrased as a tool or path rule it is ③ too
                    rule, strength = pref, _PREFER_STRENGTH.get(pref[0], 0.8)
                else:
                    continue
            name = rule[0]
            after = s[rule[1].end():]
            if _THIRD_PARTY.search(after) and not _SECOND_PERSON.search(s):
                continue  # "from now on every review will follow these sections": not a rule for the assistant
            anchor = next(((a, x) for a, x in _ANCHOR if x.search(s)), None)
            scope = _PROJECT.search(s)
            if name == "we should use TOOL" and not anchor:
                continue  # "we should use a dict here": a task step, not a standing rule
            if anchor or scope:
                what = f"{anchor[0]} {anchor[1].search(s).group().strip()!r}" if anchor else "project scope"
                found.append(Evidence(3, m.index, m.speaker, quote(s), f"{name} + {what}", strength, m.offset,
                                      {"paths": _paths(s), "rule": quote(s), "clause": clause(s, rule[1].start())}))
            elif strength >= 0.8:
                found.append(Evidence(2, m.index, m.speaker, quote(s), name, strength, m.offset,
                                      {"line": "- " + quote(s), "clause": clause(s, rule[1].start())}))
    return found


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
    "acho que")
_RELEASE_HINTS = (
    "releas", "deploy", "shipped", "publish", "launch", "live", "rolled", "rolling", "cut a", "cut the", "tagged",
    "is out", "are out", "went out", "available", "lanç", "publica", "subiu", "subimos", " ar", "liberamos",
    "entregamos", "produção", "production", "merge", "store")


@functools.lru_cache(maxsize=2048)
def _lower(text: str) -> str:
    return text.lower()


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
            at = next((x[1].start() for x in (choice, said) if x), alt.start() if alt else 0)
            found.append(Evidence(4, m.index, m.speaker, quote(s), signal, strength, m.offset,
                                  {"chosen": chosen, "rejected": rejected, "clause": clause(s, at)}))
    return found


# ----------------------------------------------------------------------------- ⑤ milestone

_RELEASE = [
    ("released", _rx(r"\b(?:released|deployed|shipped|published|launched|went live|is (?:now )?live|went out to|"
                     r"(?:has )?been live|"
                     r"rolled out|cut (?:a|the) release|tagged|is out|are out|now available on|"
                     r"lançamos|lançad[oa]|lançou|publicamos|publicad[oa]|subiu (?:para|pra|em) (?:produção|prod)|"
                     r"subimos|fizemos o deploy|deploy(?:ado|amos| feito)|foi (?:pro|para o) ar|está no ar|"
                     r"liberamos|entregamos|em produção|finished rolling out|rolled out to|"
                     r"subiu (?:pra|para|pro|em|no)\b.{0,30}?\b(?:produção|prod)|"
                     r"(?:já )?(?:tá|está) (?:na|no) (?:play store|app store|ar|produção)|"
                     r"is (?:now )?(?:on|in) (?:the )?(?:play store|app store|production))\b")),
    ("merged", _rx(r"\b(?:merged|mergead[oa]|mergeamos)\b")),
]
_VERSION = _rx(r"\bv?\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?\b")
_TARGET = _rx(r"\b(?:production|prod|pypi|npm|crates\.io|app store|play store|main|master|staging|"
              r"produção|homologação|the store|live)\b")


_OWN = _rx(r"\b(?:we|we've|we have|i|i've|i have|our|us|this (?:project|repo|app|package|release|branch|pr|version)|"
           r"the (?:project|repo|app|package|site|service)|nós|nosso|nossa|eu|esse projeto|este projeto|o projeto|"
           r"o app|o pacote|(?:the |our |my |this )?[\w-]*\s?(?:PR|pull request|MR|merge request|branch|build|fix|"
           r"hotfix|release|version|feature)s?)\b")
_GENERIC = _rx(r"\b(?:sometimes|usually|often|typically|generally|whenever|a new version|new versions?|new releases?|"
               r"upstream|they|their|às vezes|geralmente|normalmente|uma nova versão)\b")


def milestones(messages: Sequence[Message]) -> list[Evidence]:
    """⑤ Only about the project's own artefacts: a first-person or subject-less release
    ("we shipped 2.0", "Released v2.3.0 to PyPI", "subimos pra produção"), never a
    third party's ("a new version is released upstream") or a step in a list of what
    a workflow does (an assistant's list item counts only with a version number)."""
    found: list[Evidence] = []
    for m in messages:
        low = _lower(m.text)
        if not any(w in low for w in _RELEASE_HINTS):  # most messages: a few substring looks, no sentences
            continue
        for s in sentences(m.text):
            if is_question(s):
                continue
            hit = _first(_RELEASE, s)
            if not hit or planned(s, hit[1].start()):
                continue
            before = s[:hit[1].start()]
            version = _VERSION.search(s)
            target = _TARGET.search(s)
            if _GENERIC.search(s):
                continue
            subjectless = not re.search(r"[A-Za-zÀ-ú]{2,}", re.sub(r"^\W*(?:[-*•]|\d+[.)])?\W*", "", before))
            # the user speaks of their own project (unless the message is a long paste); the assistant
            # needs a first-person or subject-less sentence
            own = (m.speaker == "user" and len(m.text) < 1500) or _OWN.search(before) or subjectless
            if not own:
                continue
            if m.speaker == "assistant" and _LIST_ITEM.match(s) and not version:
                continue
            if hit[0] == "merged":
                strength = 0.75 if target or version else 0.5
            else:
                strength = 0.9 if version or target else 0.7
            signal = hit[1].group().lower() + (" + version" if version else "") + (" + target" if target else "")
            found.append(Evidence(5, m.index, m.speaker, quote(s), signal, strength, m.offset,
                                  {"version": version.group() if version else None}))
    return found


# ----------------------------------------------------------------------------- ⑥ calibration

_CORRECT = [
    # a qualified yes that redirects the work ("Sure, but the CLI should handle that, not you editing the repo")
    ("yes, but not", _rx(r"^\W*(?:sure|ok(?:ay)?|yes|yeah|yep|right|fine|good point|true|fair(?: enough)?|sim|tá|ok)\b[,.!]*"
                         r"\s+(?:but|mas)\b(?=[^?]{0,160}\b(?:not (?:you|the|by|in|for|a|an|to|\w+ing)|instead|rather than|"
                         r"no need|don'?t|shouldn'?t|never|não (?:você|precisa|é)|em vez)\b)")),
    ("hold off", _rx(r"\bhold off\b|\bnot yet\b|\bwait,? (?:before|don'?t|do not)\b|\bespera,? (?:antes|não)\b|"
                     r"\bsegura (?:aí|ai)\b")),
    ("only part of it", _rx(r"\bthat'?s (?:only |just )?(?:part of it|half of it|not quite (?:it|right))\b|"
                            r"\bisso é só (?:parte|metade)\b")),
    ("no, don't", _rx(r"^\W*(?:no|nope|nah|não|nao)\b[,.!]*\s+(?:don'?t|do not|stop|please|not|never|i said|"
                      r"i told you|that's not|instead|não|pare|para|nunca|eu (?:falei|disse|pedi))\b")),
    ("no need", _rx(r"\b(?:there'?s |there is )?no need to\s+\w+|\bhold on\b|\bplease (?:don'?t|do not)\s+\w+")),
    ("don't", _rx(r"^\W*(?:please\s+|pls\s+|and\s+|also,?\s+|(?:first|second|third),?\s+)?(?:don'?t|do not)\s+(?!worry|know|think|have|mind|care|see|"
                  r"understand|remember|get|need to worry|forget)\w+")),
    ("stop doing", _rx(r"\bstop\s+(?:\w+ing|doing|it|that)\b|\bquit\s+\w+ing\b")),
    ("I told you", _rx(r"\bi (?:told|asked) you (?:to|not to|before)\b|\bthat'?s not what i (?:asked|wanted|meant)\b|"
                       r"\bnot like that\b|\bi'?d (?:rather|prefer) (?:you|that you|if you)\b|\bi prefer (?:that )?you\b|"
                       r"\b(?:way )?too (?:verbose|long|wordy|many \w+)\b|\bplease (?:avoid|stop)\b")),
    ("não faça", _rx(r"\b(?:não|nao)\s+(?:faça|faz|fica|fique|use|usa|rode|roda|adicione|adiciona|coloque|coloca|"
                     r"mexa|mexe|crie|cria|commite|commita|comite|comita|invente|inventa|escreva|escreve|mude|muda|"
                     r"apague|apaga|peça|chuta|traduz|reescreve|manda|sobe|precisa (?:me |te )?\w+r)\b")),
    ("pare de", _rx(r"\b(?:para|pare)\s+de\s+\w+")),
    ("prefiro que", _rx(r"\bprefiro que\b|\beu (?:falei|disse|pedi) (?:pra|para|que)\b|"
                        r"\bnão foi isso que eu\b|\bassim não\b|\bmuito (?:verboso|longo)\b")),
]
_CONFIRM = [
    ("keep doing that", _rx(r"\bkeep (?:doing (?:that|this|it)|it up|it like (?:that|this)|(?:that|this) "
                            r"(?:style|format|approach|way))\b|\bthat'?s (?:exactly )?(?:the way|how) i (?:like|want)\b|"
                            r"\bmore of this\b|\bdo it like this\b")),
    ("exactly", _rx(r"^\W*(?:yes[,!.]*\s+)?(?:exactly|precisely|spot on|nailed it|that'?s exactly (?:it|right|"
                    r"what i (?:wanted|meant)))\b")),
    ("isso mesmo", _rx(r"\b(?:isso mesmo|exatamente|continue assim|continua assim|mantenha assim|mantém (?:sempre )?"
                       r"assim|é (?:bem )?(?:assim|isso) (?:mesmo|que eu (?:gosto|quero))|perfeito,? (?:continue|"
                       r"mantenha|é assim)|assim que eu (?:gosto|quero)|acertou em cheio|continu[ae] \w+ndo)\b")),
]


_HOLD = _rx(r"\bhold off\b|\bespera,? (?:antes|não)\b|\bsegura (?:aí|ai)\b")
_CONTENT_ONLY = _rx(r"\b(?:isso|what) (?:que )?(?:faltava|eu precisava|a gente precisava|(?:i|we) needed|was missing)\b")


def calibration(messages: Sequence[Message]) -> list[Evidence]:
    found: list[Evidence] = []
    previous_assistant: Message | None = None
    for m in messages:
        if m.speaker != "user":
            previous_assistant = m if m.text else previous_assistant
            continue
        practice = next((quote(s) for s in sentences(previous_assistant.text) if len(s) > 15), None) \
            if previous_assistant else None
        for s in sentences(m.text):
            if is_question(s) and not s.lower().startswith(("no", "não", "nao")) and not _HOLD.search(s):
                continue
            hit = _first(_CORRECT, s, allow_negated=True)
            if hit:
                found.append(Evidence(6, m.index, m.speaker, quote(s), "correction: " + hit[0], 0.85, m.offset,
                                      {"kind": "correction", "practice": practice, "clause": clause(s, hit[1].end())}))
                continue
            hit = _first(_CONFIRM, s)
            if hit and _CONTENT_ONLY.search(s):
                hit = None  # "exactly what was missing": the content is right, no practice is confirmed
            if hit and previous_assistant:
                strength = 0.8 if hit[0] != "exactly" or len(s) > 25 else 0.65
                rest = s[hit[1].end():].strip(" ,.:;!-—–")
                found.append(Evidence(6, m.index, m.speaker, quote(s), "confirmation: " + hit[0], strength,
                                      m.offset, {"kind": "confirmation", "practice": practice,
                                                 "what": quote(rest) if len(rest.split()) >= 3 else None}))
        previous_assistant = None
    return found


# ----------------------------------------------------------------------------- ⑦ analysis

_ITEM = _re(r"^\s*(?:\d+[.)]|[-*•]|#{1,4}\s|\|)", re.M)
_FRAMEWORK = _rx(r"\b(?:framework|model|principles?|checklist|matrix|heuristics?|rules? of thumb|patterns?|"
                 r"taxonomy|criteria|trade-?offs?|playbook|mental model|step[- ]by[- ]step|layers?|pillars?|"
                 r"dimensions?|modelo|estrutura|princípios|matriz|critérios|heurísticas?|passo a passo|"
                 r"camadas|padrões|pilares|dimensões|roteiro)\b")
_TAKE_UP = _rx(r"\b(?:great|excellent|awesome|brilliant|love (?:it|this|that)|this is (?:great|useful|gold|"
               r"exactly|perfect|helpful)|very (?:useful|helpful)|super (?:useful|helpful)|helpful|useful|"
               r"let'?s (?:use|go with|adopt|apply|follow|keep) (?:this|that|it|these|the)|save (?:this|that|it)|"
               r"keep (?:this|that) (?:framework|model|list)|makes (?:a lot of )?sense|i like (?:this|that|it)|"
               r"perfect|we'?ll use|going to use (?:this|that)|ótimo|otimo|excelente|adorei|gostei|muito bom|"
               r"muito útil|faz (?:todo o )?sentido|vamos (?:usar|seguir|aplicar|adotar)|salva (?:isso|isto)|"
               r"guarda (?:isso|isto)|perfeito|sensacional|show de bola)\b")
_ABOUT_USER = _rx(r"\byour (?:profile|strengths|working style|preferences|habits|career)\b|"
                  r"\bseu (?:perfil|estilo|jeito)\b|\bsuas (?:preferências|forças)\b")


def analysis(messages: Sequence[Message]) -> list[Evidence]:
    found: list[Evidence] = []
    for i, m in enumerate(messages):
        if m.speaker != "assistant" or len(m.text) < 400:
            continue
        items = len(_ITEM.findall(_FENCE.sub("", m.text)))
        framework = _FRAMEWORK.search(m.text)
        if items < 3 and not (framework and items >= 2):
            continue
        reply = next((x for x in messages[i + 1:i + 3] if x.speaker == "user"), None)
        if reply is None:
            continue
        hit = next((h for h in _TAKE_UP.finditer(reply.text) if not negated(reply.text, h.start())), None)
        if hit is None:
            continue
        heading = next((s for s in sentences(m.text) if len(s) > 20), m.text)
        strength = 0.9 if framework else 0.75
        found.append(Evidence(7, m.index, m.speaker, quote(heading), f"{items} structured items"
                              + (f" + {framework.group().lower()!r}" if framework else "")
                              + f" + user took it up ({hit.group()!r})", strength, m.offset,
                              {"reply": quote(reply.text), "about_user": bool(_ABOUT_USER.search(m.text)),
                               "text": m.text[:4000]}))
    return found


DETECTORS = (task_closure, rules, decisions, milestones, calibration, analysis)


def detect(messages: Sequence[Message]) -> list[Evidence]:
    """Every piece of evidence in ``messages``, in dimension then message order."""
    found = [e for detector in DETECTORS for e in detector(messages)]
    return sorted(found, key=lambda e: (e.dimension, e.index))


def hits(evidence: Sequence[Evidence]) -> dict[int, list[Evidence]]:
    """Dimension → its evidence at or above :data:`HIT`, strongest first."""
    out: dict[int, list[Evidence]] = {}
    for e in evidence:
        if e.strength >= HIT:
            out.setdefault(e.dimension, []).append(e)
    return {d: sorted(v, key=lambda e: (-e.strength, e.index)) for d, v in sorted(out.items())}


_PT = _re(r"\b(?:não|você|vc|está|isso|então|também|obrigad[oa]|para|pra|com|uma|um|que|de|do|da|os|as|"
                 r"é|fazer|agora|porque|mas|já|quero|preciso|vamos)\b", re.I)
_EN = _re(r"\b(?:the|you|is|are|this|that|with|and|to|of|it|please|can|what|how|not|don't|i|we|"
                 r"want|need|let's|thanks)\b", re.I)


def language(messages: Sequence[Message]) -> str:
    """``pt`` or ``en``: the language of what the user wrote (assistant text when the user wrote nothing)."""
    text = " ".join(m.text for m in messages if m.speaker == "user")[:20000] or \
        " ".join(m.text for m in messages)[:20000]
    return "pt" if len(_PT.findall(text)) > len(_EN.findall(text)) else "en"

"""The Stop hook's cheap signals, and the one offline detector kept: a standing rule the user states
to the assistant in so many words ("remember that ...", "from now on ...", "always/never ..."), a
correction, a choice settled, a task closed, a turn that ends by asking the user, an ask to consolidate. The model judges
what is worth keeping (the scan prompt); these only say *when* to ask it, so each is a handful of
patterns compiled on first use, and each is tried only on text holding one of its hint words.

Why only these, and what was measured: docs/decisions/075-quiet-checkpoint-signals.md
"""

from __future__ import annotations

from mdmem.base.lazy_re import rx

TYPE_CHECKING = False  # not `from typing import`: the Stop hook imports as little as it can
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from mdmem.agents.checkpoint.evidence import Evidence
    from mdmem.agents.checkpoint.transcript import Message

# a standing rule addressed to the assistant, said so: a sentence that opens with "remember that/to",
# "from now on", "always"/"never" (an imperative), "in the future" / "next time" and an instruction,
# "you must/should always ...", or the same in Portuguese and Spanish; never a question
_LEAD = r"(?:^|[.!;:\n]\s*|\b(?:and|also|so|but|ok(?:ay)?|please|pls|e|mas|também|por favor|y|pero|también)\W+)"
_RULE = rx(
    _LEAD + r"(?:please\W+)?(?:"
    r"remember(?: this)?\W+(?:that|to|always|never)\b|(?:make|be) sure (?:that )?(?:you|claude|the agent) "
    r"(?:always|never|should|must|ask)\b|(?:you|claude|the agent) (?:should|must) (?:always|never|ask)\b|"
    r"(?:from now on|going forward|moving forward|from here on|in the future|next time)\W+(?:please\W+)?(?:always|never|don['’]?t|do not|use|make|run|write|keep|ask|check|remember|"
    r"avoid|put|call|prefer|stop|you|we|i want|i['’]d like|the|all|any|every|each|when|if)\b|"
    r"(?:always|never)\s+(?!\w+(?<!s)s\b)\w+|"  # an imperative ("always use ..."), not "never works"
    r"(?:you (?:need to|have to) (?:always|never))\b|(?:don['’]?t|do not) ever\b|"
    r"lembr(?:e|a|e-se)\W+(?:que|de)\b|(?:a partir de agora|daqui (?:pra|para|em) (?:frente|diante)|"
    r"de agora em diante|da próxima vez|nas próximas vezes)\b|(?:sempre|nunca|jamais)\s+(?:use|usa|rode|roda|"
    r"faça|faz|escreva|pergunte|coloque|crie|apague|mexa|responda|teste|comite|commite|siga|leia|confirme|"
    r"mantenha|deixe|chame|prefira|evite)\b|"
    r"recuerda\W+(?:que|de)\b|(?:a partir de ahora|de ahora en adelante|la próxima vez)\b|(?:siempre|nunca)\s+"
    r"(?:usa|use|ejecuta|escribe|pregunta|haz|pon|crea|borra|responde|sigue|lee|evita)\b)",
    "IM", hints=("remember", "sure", "should", "must", "from now on", "going forward", "moving forward", "from here on", "in the future",
                 "next time", "always", "never", "ever", "lembr", "a partir de agora", "daqui", "em diante",
                 "próxima", "sempre", "nunca", "jamais", "recuerda", "a partir de ahora", "adelante", "siempre"))
_NOT_RULE = rx(r"\b(?:do you|did you|can you|could you|i|we|don['’]?t|do not|you)\s+remember\b|"
               r"\b(?:never mind|nevermind|never seen|never (?:heard|used|worked|had|did|been|was|were)|"
               r"always (?:been|was|were|had))\b", hints=("remember", "never", "always"))
# the user corrects the assistant: says it is wrong, or that they said otherwise
_CORRECTION = rx(
    r"(?:^|[.!;\n]\s*)(?:no+|nope|nah|wrong|não|nao)\W+(?:that['’]?s|it['’]?s|this is|you|i said|i meant|use|don['’]?t|"
    r"do not|not|é|isso|eu|use|não)\b|\b(?:that['’]?s|this is|it['’]?s) (?:not (?:right|correct|what i)|wrong|"
    r"incorrect)\b|\b(?:not what i (?:asked|meant|wanted|said)|i (?:told|asked) you (?:to|not)|i (?:said|meant) "
    r"(?:to|not|that)|you (?:broke|ignored|forgot|missed|didn['’]?t (?:listen|read|follow))|why did you|"
    r"stop (?:doing|using|adding|changing))\b|\b(?:eu (?:falei|disse|pedi)|não (?:é|foi) (?:isso|o que eu)|"
    r"está errado|tá errado|por que você)\b",
    "IM", hints=("no,", "no ", "no.", "nope", "nah", "wrong", "não", "nao", "not right", "not correct", "not what",
                 "incorrect", "told you", "asked you", "i said", "i meant", "you broke", "you ignored", "you forgot",
                 "you missed", "you didn", "why did you", "stop doing", "stop using", "stop adding", "stop changing",
                 "eu falei", "eu disse", "eu pedi", "errado", "por que você"))
# the user settles a choice: "let's do/go with/use/keep ...", "we should ...", "for now ...", "I think we ..."
_DECIDES = rx(
    r"\b(?:let['’]?s (?:do|go with|use|keep|stick|make|just|not|drop|skip|switch|move|leave)|we should(?:n['’]?t)?|"
    r"(?:i think|i guess) (?:we|it|that|this) (?:should|could|need|can)|for now\b|go with|(?:i|we)['’]?d rather|"
    r"i prefer|p(?:re|er)ferabl[ey]|(?:vamos|bora) (?:de|usar|fazer|manter|deixar|seguir)|(?:a gente|nós) (?:deve|devia|deveria)|"
    r"por enquanto|prefiro|acho que (?:a gente|devemos|é melhor))\b",
    "I", hints=("let", "should", "think", "guess", "for now", "go with", "rather", "prefer", "perferabl", "vamos", "bora",
                "a gente", "nós", "enquanto", "prefiro", "acho"))
# the assistant's last message says the task is done: tests green, a commit, a push, a PR, a release
_CLOSED = rx(
    r"\b(?:all |the |\d+ )?tests? (?:now |all |still )?(?:are |is )?(?:now )?(?:pass(?:es|ed|ing)?|green)\b|"
    r"\b\d+ (?:tests? )?passed\b|\b(?:build|ci|checks|pipeline|lint|mypy|ruff) (?:is |are )?(?:now )?"
    r"(?:passes|passed|passing|green|clean)\b|\b(?:committed|pushed|merged|released|deployed|published)\b|"
    r"\b(?:pull request|PR) (?:#?\d+|created|opened|is up)\b|\btestes? (?:agora )?(?:passa\w*|verdes?)\b|"
    r"\b(?:commitad[oa]|commitei|publicad[oa]|concluíd[oa]|pronto)\b",
    "I", hints=("test", "passed", "build", "ci ", "checks", "pipeline", "lint", "mypy", "ruff", "committed", "pushed",
                "merged", "released", "deployed", "published", "pull request", "pr ", "testes", "commit", "publicad",
                "concluíd", "pronto"))
_FAILING = rx(r"\b(?:[1-9]\d* (?:tests? )?failed|still fail\w*|fail(?:s|ing|ure|ures)\b|not (?:yet )?"
              r"(?:committed|pushed)|falh\w+)", hints=("fail", "not", "falh"))
_ASKS = rx(r"\b(?:would you like|do you want|shall i|should i|want me to|let me know (?:if|whether|which|when|how)|"
           r"which (?:one|option|approach) (?:do|would) you|can you (?:confirm|check|run|try|tell)|could you "
           r"(?:confirm|check|run|try|tell)|please (?:confirm|run|try|check)|are you (?:ok|okay|happy) with|"
           r"quer que eu|você quer|prefere|posso (?:seguir|continuar|fazer|aplicar)|pode (?:confirmar|rodar|testar))\b",
           hints=("would you", "do you", "shall", "should i", "want me", "let me know", "which", "can you",
                  "could you", "please", "are you", "quer", "prefere", "posso", "pode"))
_ASK = rx(r"\b(?:consolidate|consolidar|consolide|sediment\w*|(?:do|run) (?:a|the) (?:memory )?checkpoint|"
          r"(?:save|remember|store|keep|note) (?:this|that|it|these|what we\b[^.?!]{0,30}?)\b[^.?!]{0,20}?"
          r"\b(?:memory|memories|for later|for next time)|add (?:this|that|it) to (?:your |the )?memory|"
          r"what should (?:we|you) remember|(?:review|summari[sz]e|recap|wrap up) (?:this|the|our) (?:session|"
          r"conversation|chat|work so far)|(?:revise|resuma|revisa|recapitule) (?:a|essa|esta|nossa) "
          r"(?:sessão|conversa)|salv[ae] (?:isso|isto) na memória|guard[ae] (?:isso|isto) na memória)\b",
          "IM", hints=("consolid", "sediment", "checkpoint", "memory", "memories", "memória", "remember", "review",
                       "summari", "recap", "wrap up", "resuma", "revise", "revisa", "recapitule", "for later",
                       "next time"))
_FENCE = rx(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)", "SM", hints=("```", "~~~"))
_SENTENCE_END = rx(r"(?<=[.!?…])\s+|\n+")
PASTED = 1500  # characters: a longer user message is mostly pasted (a log, a review, a file): not a rule said


def _own(text: str) -> str:
    """What the user typed themselves: no fenced code, no quoted (``>``) lines."""
    text = _FENCE.sub(" ", text)
    return "\n".join(ln for ln in text.split("\n") if not ln.lstrip().startswith(">"))


def rules(text: str) -> Iterator[str]:
    """The sentences of a user's message that state a standing rule to the assistant in so many words
    (see :data:`_RULE`): not a question, not "do you remember", not a pasted text."""
    if len(text) > PASTED:
        return
    own = _own(text)
    if not _RULE.search(own):
        return
    for sentence in _SENTENCE_END.split(own):
        s = sentence.strip()
        if s and not s.endswith("?") and _RULE.search(s) and not _NOT_RULE.search(s):
            yield s


def corrects(text: str) -> bool:
    """The user's message corrects the assistant ("no, use ...", "that's wrong", "I said ...")."""
    return len(text) <= PASTED and bool(_CORRECTION.search(_own(text)))


def decides(text: str) -> bool:
    """The user settles a choice ("let's go with ...", "we should ...", "for now ...")."""
    return len(text) <= PASTED and bool(_DECIDES.search(_own(text)))


def said(text: str) -> bool:
    """A rule stated, a correction or a choice settled: the turn ends at a gap worth a scan (within the budget)."""
    return any(True for _ in rules(text)) or corrects(text) or decides(text)


def closed(text: str) -> bool:
    """The assistant's last message (its last 1,500 characters) reports the task done: tests green, a
    commit, a push, a pull request, a release, and no failure."""
    tail = _own(text[-1500:])
    return bool(_CLOSED.search(tail)) and not _FAILING.search(tail)


def asks_user(text: str) -> bool:
    """The message ends by asking the user something: its last paragraph ends with a question mark or
    asks ("want me to ...", "let me know if ..."). A turn ending so waits for the user's answer."""
    body = _own(text).strip()
    if not body:
        return False
    tail = body.split("\n\n")[-1].strip()
    return tail.rstrip(" *_`)").endswith("?") or bool(_ASKS.search(tail))


def asked(text: str) -> bool:
    """The user asks to consolidate, to save something to memory, or to review the session."""
    return bool(_ASK.search(text))


def standing(messages: Sequence[Message]) -> list[Evidence]:
    """The offline checkpoint's evidence: each standing rule a user's typed message states in so many words
    (:func:`rules`), as a behaviour rule (②) strong enough to be suggested alone. Nothing else is guessed
    offline: what else is worth keeping, the model judges (``--model``, or the next session's review)."""
    from mdmem.agents.checkpoint.evidence import Evidence

    return [Evidence(2, m.index, m.speaker, rule[:199], "stated as a standing rule", 0.9, m.offset,
                     {"rule": rule[:199], "clause": rule[:199]})
            for m in messages if m.speaker == "user" and m.kind not in ("prompt", "tool-error")
            for rule in rules(m.text)]

"""The seven dimensions of a memory-worthy conversation, found by deterministic
English and Portuguese detectors (regular expressions over sentences; no model).

Measurements: docs/decisions/055-checkpoint-detectors-and-transcripts.md


Contract in detail: docs/decisions/060-module-contracts.md (mdmem/agents/checkpoint/dimensions.py).
"""

from __future__ import annotations

import re

from mdmem.agents.checkpoint.corrections import PASTED_STRENGTH, conceded
from mdmem.agents.checkpoint.decisions import decisions, picks
from mdmem.agents.checkpoint.evidence import (  # noqa: F401  (the detectors' shared names, used from here)
    FENCE,
    HIT,
    NAMES,
    QUOTE,
    Evidence,
    clause,
    first_match,
    is_question,
    language,
    lowered,
    negated,
    no_plan,
    pasted,
    planned,
    prose,
    quote,
    sentences,
    unwrap,
)
from mdmem.agents.checkpoint.rules import calibration, lessons, rules
from mdmem.agents.checkpoint.transcript import Message, turns
from mdmem.base.lazy_re import lazy as _re
from mdmem.base.lazy_re import rx as _rx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

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
            return any(first_match(_PROOF, s) and not _FAILING.search(s)
                       for i in turn.messages if i not in closing and at[i].speaker == "assistant"
                       for s in sentences(no_plan(at[i].text))[-3:])
        best = None
        for final, s in ((at[i], s) for i in closing for s in sentences(no_plan(at[i].text))):
            if is_question(s) or s.rstrip(" *_").endswith(":"):
                continue
            proof = first_match(_PROOF, s)
            if proof and _FAILING.search(s) and not re.search(r"\b0 failed\b", s):
                proof = None
            if proof and planned(s, proof[1].start()):
                proof = None
            done = first_match(_DONE, s)
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




_RELEASE_HINTS = (
    "releas", "deploy", "shipped", "publish", "launch", "live", "rolled", "rolling", "cut a", "cut the", "tagged",
    "is out", "are out", "went out", "available", "lanç", "publica", "subiu", "subimos", " ar", "liberamos",
    "entregamos", "produção", "production", "merge", "store")



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
        low = lowered(m.text)
        if not any(w in low for w in _RELEASE_HINTS):  # most messages: a few substring looks, no sentences
            continue
        for s in sentences(m.text):
            if is_question(s):
                continue
            hit = first_match(_RELEASE, s)
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


# ----------------------------------------------------------------------------- ⑦ analysis

_ITEM = _re(r"^\s*(?:\d+[.)]|[-*•]|#{1,4}\s|\|)", re.M)
_FRAMEWORK = _rx(r"\b(?:framework|model|principles?|checklist|matrix|heuristics?|rules? of thumb|patterns?|"
                 r"taxonomy|criteria|trade-?offs?|playbook|mental model|step[- ]by[- ]step|layers?|pillars?|"
                 r"dimensions?|modelo|estrutura|princípios|matriz|critérios|heurísticas?|passo a passo|"
                 r"camadas|padrões|pilares|dimensões|roteiro)\b")
_TAKE_UP = _rx(r"\b(?:great|excellent|awesome|brilliant|love (?:it|this|that)|this is (?:great|useful|gold|"
               r"exactly|perfect|helpful)|very (?:useful|helpful)|super (?:useful|helpful)|helpful|useful|"
               r"let'?s (?:use|go with|adopt|apply|follow|keep) (?:this|that|it|these|the)(?! (?:simple|short|small|minimal|lean|"
               r"light|local|focused|tight|as is)\b)|save (?:this|that|it)|"
               r"keep (?:this|that) (?:framework|model|list)|makes (?:a lot of )?sense|i like (?:this|that|it)|"
               r"perfect|we'?ll use|going to use (?:this|that)|ótimo|otimo|excelente|adorei|gostei|muito bom|"
               r"muito útil|faz (?:todo o )?sentido|vamos (?:usar|seguir|aplicar|adotar)|salva (?:isso|isto)|"
               r"guarda (?:isso|isto)|perfeito|sensacional|show de bola)\b")
_ABOUT_USER = _rx(r"\byour (?:profile|strengths|working style|preferences|habits|career)\b|"
                  r"\bseu (?:perfil|estilo|jeito)\b|\bsuas (?:preferências|forças)\b")


def _around(text: str, at: int) -> str:
    """The sentence of ``text`` that holds character ``at``."""
    start = max(text.rfind(c, 0, at) for c in ".!?\n") + 1
    ends = [i for i in (text.find(c, at) for c in ".!?\n") if i != -1]
    return text[start:min(ends) + 1 if ends else len(text)].strip()


def analysis(messages: Sequence[Message]) -> list[Evidence]:
    found: list[Evidence] = []
    for i, m in enumerate(messages):
        if m.speaker != "assistant" or len(m.text) < 400:
            continue
        items = len(_ITEM.findall(FENCE.sub("", m.text)))
        framework = _FRAMEWORK.search(m.text)
        if items < 3 and not (framework and items >= 2):
            continue
        reply = next((x for x in messages[i + 1:i + 3] if x.speaker == "user"), None)
        if reply is None:
            continue
        # not a take-up word inside a question the user asks ("would it be helpful to invoke X?")
        hit = next((h for h in _TAKE_UP.finditer(reply.text) if not negated(reply.text, h.start())
                    and not is_question(_around(reply.text, h.start()))), None)
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


DETECTORS = (task_closure, rules, decisions, picks, milestones, calibration, lessons, analysis)


def detect(messages: Sequence[Message]) -> list[Evidence]:
    """Every piece of evidence in ``messages``, in dimension then message order."""
    found = unpasted(messages, conceded(messages, [e for detector in DETECTORS for e in detector(messages)]))
    return sorted(found, key=lambda e: (e.dimension, e.index))


def unpasted(messages: Sequence[Message], found: Sequence[Evidence]) -> list[Evidence]:
    """A rule, decision or correction read in a message the user pasted (:func:`evidence.pasted`: a review
    comment, a bot's finding, documentation) is nobody's rule of behaviour, decision or correction here: at
    most a domain rule (③), and a hint (:data:`corrections.PASTED_STRENGTH`), enough to count its dimension,
    not to fire the Stop hook or make a suggestion alone. Said by the user in their own typed words it stands."""
    by_index = {m.index: m for m in messages}
    out = []
    for e in found:
        m = by_index.get(e.index)
        if e.speaker == "user" and e.dimension in (2, 3, 4, 6) and m is not None and pasted(m.text):
            e = Evidence(3, e.index, e.speaker, e.quote, e.signal if "pasted" in e.signal else e.signal + " (pasted)",
                         min(e.strength, PASTED_STRENGTH), e.offset,
                         {"paths": [], "rule": e.quote, "clause": e.detail.get("clause") or e.quote} | e.detail)
        out.append(e)
    return out


def hits(evidence: Sequence[Evidence]) -> dict[int, list[Evidence]]:
    """Dimension → its evidence at or above :data:`HIT`, strongest first."""
    out: dict[int, list[Evidence]] = {}
    for e in evidence:
        if e.strength >= HIT:
            out.setdefault(e.dimension, []).append(e)
    return {d: sorted(v, key=lambda e: (-e.strength, e.index)) for d, v in sorted(out.items())}

"""What kind of memory a text is, by deterministic English and Portuguese
rules (no model), and the shape of a decision note."""

from __future__ import annotations

import re

from mdmem.text.naming import NAME_MAX, bound, plain_links

# (type, pattern, reason): the first rule that matches wins. English and Portuguese.
_RULES = [
    ("decision", r"\b(?:decided|we chose|chose \S+ over|instead of|trade-?off|decidimos|decidi|optamos|optei|"
                 r"em vez de|escolhemos)\b", "it records a choice and what was given up"),
    ("feedback", r"\b(?:don'?t|do not|stop doing|never|always|from now on|prefer that you|please|não faça|"
                 r"nunca|sempre|a partir de agora|prefiro que)\b", "it tells the assistant how to work"),
    ("protocol", r"(?:^\s*\d+[.)]\s|\bsteps?\b|\bchecklist\b|\bprocedure\b|\bbefore (?:you |every |any )|"
                 r"\bpassos?\b|\bantes de\b)", "it is a procedure to follow"),
    ("user", r"\b(?:i am|i'm|my name is|i prefer|i like|i love|i work|i live|i use|i speak|i come from|"
             r"my (?:\w+ )?(?:editor|ide|shell|os|laptop|language|languages|timezone|time zone|pronouns|"
             r"favou?rite|preferred|home|city|role|job|stack|setup)|"
             r"eu sou|meu nome|eu prefiro|prefiro|eu gosto|gosto de|eu moro|moro (?:em|no|na)|"
             r"vivo (?:em|no|na)|eu uso|eu falo|trabalho (?:na|no|em|com)|"
             r"(?:meu|minha|meus|minhas) (?:\w+ )?(?:preferid[oa]s?|favorit[oa]s?|editor|linguagem|fuso|"
             r"cidade|cargo|fun[cç][aã]o|casa|computador|port[aá]til|sistema))\b",
     "it is about the user, in the first person"),
    ("project", r"\b(?:project|milestone|deadline|roadmap|release|sprint|projeto|prazo|lançamento)\b",
     "it is about a project's goals or status"),
    ("person", r"\b(?:(?:he|she) (?:is|works|prefers|likes|leads|owns)|colleague|manager|(?:ele|ela) (?:é|trabalha))\b",
     "it describes a person"),
]
_COMPILED = [(kind, re.compile(pattern, re.I | re.M), reason) for kind, pattern, reason in _RULES]


def classify(text: str) -> tuple[str, str]:
    """The memory type of ``text`` and why, by deterministic rules (no model);
    ``reference`` when nothing more specific matches."""
    for kind, pattern, reason in _COMPILED:
        found = pattern.search(text)
        if found:
            return kind, f"{reason} ({found.group().strip()!r})"
    return "reference", "nothing more specific matched: facts to look up"


# "chose X over Y", "optamos por X em vez de Y": each option a noun phrase, ended by the purpose or the reason
# ("for the billing service", "because …", "since …", "as …", "para …", "porque …") or by a mark
_PURPOSE = (r"(?=\s+(?:for|because|since|as|so|to|due to|given|porque|pois|já que|para|pra|por causa|devido)\b"
            r"|\s*[.,;:!?()\n—–]|\s+-\s|$)")
_OVER = re.compile(r"\bchose\s+(.+?)\s+over\s+(.+?)" + _PURPOSE + "|"
                   r"\b(?:optamos|escolhemos) (?:por )?(.+?) em vez de (.+?)" + _PURPOSE, re.I)
_PURPOSE_FOR = re.compile(r"\s+(?:for|para|pra)\s+[^.,;:!?()\n—–]+", re.I)
# where the purpose ends and the reason begins: "for the billing service because we need transactions"
_REASON = re.compile(r"\s+(?:because|since|as|so that|so|given|which|porque|pois|já que|ja que|uma vez que|"
                     r"visto que)\b.*$", re.I | re.S)


def decision_choice(body: str) -> tuple[str, str, str] | None:
    """``(chosen, rejected, purpose)`` from "chose X over Y for Z" / "optamos por X em vez de Y para Z" in
    ``body`` (``purpose``: "for Z", or "" when the text goes on with a reason or nothing), else None.
    "We chose PostgreSQL over MongoDB for the billing service" -> ("PostgreSQL", "MongoDB", "for the
    billing service")."""
    found = _OVER.search(body)
    if not found:
        return None
    chosen = (found.group(1) or found.group(3) or "").strip(" `*\"'")
    rejected = (found.group(2) or found.group(4) or "").strip(" `*\"'")
    if not chosen or not rejected:
        return None
    purpose = _PURPOSE_FOR.match(body, found.end())
    return chosen, rejected, " ".join(_REASON.sub("", purpose.group()).split()) if purpose else ""


def decision_title(body: str, limit: int = NAME_MAX) -> str | None:
    """A decision's name from its text: "PostgreSQL over MongoDB for the billing service" (Portuguese: "Adyen
    em vez de Stripe para …"), at most ``limit`` characters cut at a word; None when the text does not say
    "chose X over Y"."""
    choice = decision_choice(body)
    if choice is None:
        return None
    chosen, rejected, purpose = choice
    said = _OVER.search(body)
    over = " over " if said is not None and said.group(1) is not None else " em vez de "
    line = " ".join(plain_links(f"{chosen}{over}{rejected}{' ' + purpose if purpose else ''}").split())
    return bound(line, limit, words=limit, values=False)


def decision_note(body: str, chosen: str | None, rejected: list[str]) -> tuple[dict, str]:
    """A decision note's ``chosen``/``rejected`` frontmatter (each left out when not known: no empty ``chosen: ''``)
    and its sections (Context, Options considered, Decision), filled from the options or from "chose X over Y" /
    "optamos por X em vez de Y" in the text; only what is known: a text naming no option is kept as it is (placeholder sections, "(not recorded)",
    read as something to fill in and were never filled). A body that already has those sections is kept."""
    found = decision_choice(body)
    if chosen is None and found:
        chosen = found[0]
        rejected = rejected or [found[1]]
    kept = [r for r in rejected if r]
    meta = {**({"chosen": chosen} if chosen else {}), **({"rejected": kept} if kept else {})}  # only what is known
    if re.search(r"^##\s+Decision\b", body, re.M):
        return meta, body
    options = [f"- {chosen} (chosen)"] if chosen else []
    options += [f"- {r}" for r in kept]
    if not options:  # nothing known beyond the text: the text alone, no "(not recorded)" placeholders to fill
        return meta, body.strip()
    lines = ["## Context", body.strip(), "", "## Options considered", *options]
    if chosen:
        lines += ["", "## Decision", chosen]
    return meta, "\n".join(lines)


# What should not be saved as memory (`save` warns; a checkpoint drops such candidates).
CODE = re.compile(r"^\s*(?:```|~~~)|^\s*(?:def |class \w+[:(]|import \w|from [\w.]+ import |function |"
                   r"const |let |var |#include|SELECT .* FROM )|[;{}]\s*$", re.M)
_PATH = re.compile(r"(?:^|[\s(`'\"])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+\.[A-Za-z]\w{0,4}\b"
                   r"|(?:^|\s)(?:~|\.{1,2})?/(?:[\w.-]+/)+[\w.-]*")
_GIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b"
                  r"|\bgit (?:log|commit|rebase|merge|push|blame)\b"
                  r"|\b(?:merged|committed|cherry-picked|rebased)\b|\bPR #\d+", re.I)
_TASK = re.compile(r"\b(?:TODO|WIP|in progress|right now|currently (?:working|fixing|debugging)|this session|"
                   r"next step|for now|half[- ]done)\b", re.I)
WARNINGS = (
    (CODE, "it contains code: code patterns live in the code, not in memory"),
    (_PATH, "it names file paths: they move; say what the thing is, not where it is"),
    (_GIT, "it reads like git history: `git log` already keeps that"),
    (_TASK, "it reads like ephemeral task state: it will be stale by the next session"),
)

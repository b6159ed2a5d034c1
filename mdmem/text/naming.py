"""What a saved note is called when no name is given: its subject, short; a person's note, the person.

A name is made once, when the note is created, and holds what the note is *about*
(:func:`subject`: the first clause, at most :data:`WORDS` words); a person's note is called by the
name the text opens with (:func:`person_name`).

Pure: no I/O, standard library only.

Measurements: docs/decisions/059-names-edits-and-forgetting.md
"""

from __future__ import annotations

import re

NAME_MAX = 60  # characters of a name made from the text
WORDS = 6  # words of a name made from the text (see the module's docstring for the measure)

_WIKILINK = re.compile(r"!?\[\[([^\]|\n]*?)(?:\\?\|([^\]\n]*))?\]\]")
_MDLINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_CLAUSE_END = re.compile(r"[.?!:;](?:\s|$)|\s[—–-]\s")
_END_WORDS = frozenset(
    "a an the of to and or with for in on at by from that which who is are was were be been has have had as "
    "than but so its their your our my his her this these those into onto via per not no any every all if "
    "when while because since "
    "o os as de do da dos das e ou com para pra em no na nos nas que por se é são foi um uma sem mais "
    "quando porque".split())
_PARTICLES = frozenset("da de do dos das di du van von der den del della la le y bin ibn".split())
_NOT_NAMES = frozenset(
    "the a an my our your his her their this that these those he she they we i it there here our "
    "o os as um uma meu minha meus minhas nosso nossa seu sua ele ela eles elas eu nós este esta esse essa "
    "aquele aquela isso isto aqui lá".split())
_NAME_WORD = re.compile(r"[^\W\d_][\w'’.-]*")
_POSSESSIVE = re.compile(r"['’]s?$")
PERSON_WORDS = 5  # a name longer than this ("Ana Souza Billing Team Lead") is a title, not a name
# after a one-word name, the next word must be a verb ("Ana leads", "Rui é"), else "Talked to Ana" is "Talked"
_VERBS = frozenset("is was will would can could should must may has had does did isn't wasn't doesn't didn't "
                   "é está foi era será tem teve faz fez trabalha lidera cuida gosta prefere mora vive sabe "
                   "quer pode deve usa".split())


def first_line(text: str) -> str:
    """The first line with text (a heading's ``#`` taken off)."""
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line
    return ""


def plain_links(text: str) -> str:
    """``[[target|shown]]`` -> ``shown``, ``[[target#part]]`` -> ``target``, ``[t](url)`` -> ``t``: a
    description is a line of MEMORY.md, which holds one link per memory (its own), never others."""
    text = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1).split("#", 1)[0]).strip(), text)
    return _MDLINK.sub(lambda m: m.group(1), text)


def subject(text: str, limit: int = NAME_MAX, words: int = WORDS) -> str:
    """What a note made from ``text`` is called when no name is given (the rule is the module's docstring):
    "I live in Lisbon; my timezone is WET" -> "I live in Lisbon"; "The staging database listens on port
    5432 and …" -> "The staging database listens on port"."""
    line = " ".join(plain_links(first_line(text)).split())
    for m in _CLAUSE_END.finditer(line):
        if m.start() >= 3:
            line = line[: m.start()]
            break
    return bound(line, limit, words)


def bound(line: str, limit: int = NAME_MAX, words: int = WORDS, values: bool = False) -> str:
    """``line`` cut to at most ``words`` words and ``limit`` characters at a word, not ending on a word
    such as "the" or "is"; with ``values``, stopped before the first word holding a digit once two
    words are kept."""
    kept = line.rstrip(" .,;:!?").split(" ")[:words]
    digit = next((i for i, w in enumerate(kept) if i >= 2 and any(c.isdigit() for c in w)), None)
    if values and digit is not None:
        kept = kept[:digit]
    if len(" ".join(kept)) > limit:
        head = " ".join(kept)[:limit + 1]
        kept = head.rsplit(" ", 1)[0].split(" ") if " " in head else [head[:limit]]
    while len(kept) > 1 and kept[-1].lower().strip(".,;:!?()\"'") in _END_WORDS:
        kept.pop()
    return " ".join(kept).rstrip(" .,;:!?-—–(")


def _capitalised(word: str) -> bool:
    return bool(_NAME_WORD.fullmatch(word)) and word[0].isupper() and not (len(word) > 1 and word.isupper())


def person_name(text: str) -> str | None:
    """The name ``text`` opens with (see the module's docstring), or None: up to :data:`PERSON_WORDS`
    capitalised words (``da``, ``van``, ``von``… between them), followed by the end, a mark (``:``,
    ``,``, ``(``, a dash, ``'s``) or a word in lower case (after a one-word name, a verb: "is", "é",
    "leads")."""
    tokens = " ".join(plain_links(first_line(text)).split()).split(" ")
    name: list[str] = []
    for i, token in enumerate(tokens):
        word = token.rstrip(":,;.!?")
        mark = word != token
        if word.endswith(("'s", "’s")) or (word.endswith(("'", "’")) and word[:-1].endswith("s")):
            word, mark = _POSSESSIVE.sub("", word), True
        if _capitalised(word) and not (not name and word.lower() in _NOT_NAMES):
            name.append(word)
        elif name and word in _PARTICLES and i + 1 < len(tokens) and _capitalised(tokens[i + 1].rstrip(":,;.!?")):
            name.append(word)
            continue
        else:
            verb = word[:1].islower() and (len(name) > 1 or word.lower() in _VERBS
                                           or (len(word) > 3 and word.endswith("s") and not word.endswith("ss")))
            if not name or not (verb or token in ("-", "—", "–") or token.startswith("(")):
                return None
            break
        if mark:
            break
    if not name or sum(1 for w in name if w not in _PARTICLES) > PERSON_WORDS:
        return None
    return " ".join(name).rstrip(".")

"""What a saved note is called when no name is given: its subject, short; a person's note, the person.

A note is called by its subject (:func:`subject`): the first line, its links as text, up to its first
clause break (``. : ; ! ?``, a spaced dash), at most ``limit`` characters cut at a word.

A person (:func:`person_name`) is called by the name the text opens with: "Ana Souza is the billing team
lead" -> "Ana Souza", also "Ana Souza: …", "Ana Souza (billing) …", "Ana Souza's team …", "Ana Souza é a
líder …", "Maria da Silva leads …"; a text that does not open with a name ("The new CTO is Ana") has none.

Pure: no I/O, standard library only.
"""

from __future__ import annotations

import re

NAME_MAX = 60  # characters of a name made from the text

_WIKILINK = re.compile(r"!?\[\[([^\]|\n]*?)(?:\\?\|([^\]\n]*))?\]\]")
_MDLINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_CLAUSE_END = re.compile(r"[.?!:;](?:\s|$)|\s[—–-]\s")
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


def subject(text: str, limit: int = NAME_MAX) -> str:
    """What a note made from ``text`` is called when no name is given (the rule is the module's docstring):
    "I live in Lisbon; my timezone is WET" -> "I live in Lisbon"."""
    line = " ".join(plain_links(first_line(text)).split())
    for m in _CLAUSE_END.finditer(line):
        if m.start() >= 3:
            line = line[: m.start()]
            break
    line = line.rstrip(" .,;:!?")
    if len(line) <= limit:
        return line
    head = line[:limit]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:-—–")


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

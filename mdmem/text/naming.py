"""What a saved note is called when no name is given: its subject, short; a person's note, the person.

A name is made once, when the note is created, and holds what the note is *about*
(:func:`subject`: the first clause, whole up to :data:`CLAUSE_WORDS` words, else cut at :data:`WORDS`;
what the text opens with to say who chose or asks, "We use", "Please", taken off); a person's note is
called by the name the text opens with (:func:`person_name`).

Pure: no I/O, standard library only.

Measurements: docs/decisions/059-names-edits-and-forgetting.md, 121-a-name-a-user-would-keep.md
"""

from __future__ import annotations

import re

NAME_MAX = 60  # characters of a name made from the text
WORDS = 6  # words of a name made from the text (see the module's docstring for the measure)
CLAUSE_WORDS = 8  # a first clause this short is the name whole (people's own names: median 7 words)

_WIKILINK = re.compile(r"!?\[\[([^\]|\n]*?)(?:\\?\|([^\]\n]*))?\]\]")
_MDLINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
# where the first clause ends: a stop, a colon or semicolon, a dash between spaces, a reason ("because",
# "since", "so that"); CJK marks need no space
_CLAUSE_END = re.compile(r"[.?!:;](?:\s|$)|:(?=[\u3000-\u9fff])|[。？！：；]|——|\s[—–-]\s"
                         r"|\s(?:because|since|so that|porque|pois|já que)\s", re.I)
# where a first clause too long for a name may be cut: a comma, an aside in brackets, a condition ("when",
# "unless" …): part of the rule when the clause is short ("Ask before deleting when unsure")
_CLAUSE_BREAK = re.compile(r",\s|，|\s\(|\s(?:unless|whenever|when|while|which|except|otherwise|as long as|"
                           r"quando|desde que|a menos que|exceto)\s", re.I)
_CODE = re.compile(r"`[^`]*`")
# a comma in a list ("Claude, AI, or assistant"): the next item is short and another comma or "and"/"or" follows
_LISTED = re.compile(r"(?:and|or|e|ou)\s|[^,;.]{1,30}?(?:,\s|\s(?:and|or|e|ou)\s)", re.I)
_LIST_MARK = re.compile(r"^(?:[-*+]\s+|\d+[.)]\s+|\[[ xX]\]\s+)+")
# what a text opens with to say who chose or who asks, not what it is about, taken off the name: who chose
# (a name follows, kept as written: "We use SQLite for the cache" -> "SQLite for the cache") and who asks (a
# verb follows, capitalised: "Please run the linter" -> "Run the linter", "I prefer X" -> "Prefer X");
# "Always" and "Never" stay (a rule without them says another thing)
_CHOSE = re.compile(
    r"^(?:we(?:'re| are| will|'ll| have| now)? (?:use|using|chose|chosen|choose|picked|went with|settled on|"
    r"switched to|moved to|rely on|standardi[sz]ed on|decided to use|decided on)|(?:we|i) decided (?:to use|on)|"
    r"our (?:team|project) uses|usamos|utilizamos|escolhemos|optamos por|decidimos usar)\b[\s,:]*", re.I)
_ASKS = re.compile(
    r"^(?:(?:please|kindly|note that|remember that|remember to|keep in mind that|from now on|going forward|"
    r"i want you to|i'd like you to|i would like you to|make sure to|(?:we|i) decided to|decidimos)\b[\s,:]*"
    r"|i (?=(?:prefer|always|never|like|want)\b)|eu (?=prefiro\b))", re.I)
_END_WORDS = frozenset(
    "a an the of to and or with for in on at by from that which who is are was were be been has have had as "
    "than but so its their your our my his her this these those into onto via per not no any every all if "
    "when while because since unless until without about after before between through under over like then "
    "also just must should can will would could may might do does don't we i you they it he she us them "
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
    "I live in Lisbon; my timezone is WET" -> "I live in Lisbon"; "We use SQLite for the local cache because
    it needs no server" -> "SQLite for the local cache"; "The staging database listens on port 5432 and …"
    -> "The staging database listens on port". Markup (``**``, backticks) is not part of a name."""
    line = _LIST_MARK.sub("", " ".join(plain_links(first_line(text)).replace("**", "").split()))
    if line[:1] in "\"“'" and line[-1:] in "\"”'" and len(line) > 2:  # a quoted rule: the rule
        line = line[1:-1].strip()
    for _ in range(3):  # "Please, from now on, use pnpm" -> "Use pnpm"
        chose, asks = _CHOSE.match(line), _ASKS.match(line)
        rest = line[chose.end():] if chose else line[asks.end():] if asks else ""
        if not rest:
            break
        line = rest if chose else rest[:1].upper() + rest[1:]
    code = _CODE.sub(lambda m: "`" + "x" * (len(m.group()) - 2) + "`", line)  # no clause ends inside code
    for m in _CLAUSE_END.finditer(code):
        if m.start() >= 3:
            line, code = line[: m.start()], code[: m.start()]
            break
    if len(line.split()) > CLAUSE_WORDS:  # the longest part that fits, a comma first, else the first part
        cuts = [m.start() for m in _CLAUSE_BREAK.finditer(code)
                if len(line[: m.start()].split()) >= 2 and not _LISTED.match(code, m.end())]
        fits = [c for c in cuts if len(line[:c].split()) <= CLAUSE_WORDS]
        commas = [c for c in fits if line[c] in ",，"]
        line = line[: (commas or fits or cuts or [len(line)])[-1 if fits and not commas else 0]]
    line = line.replace("`", "")
    name = bound(line, limit, words if len(line.split()) > CLAUSE_WORDS else CLAUSE_WORDS)
    if name.count("(") > name.count(")"):  # cut inside an aside: the name ends before it
        name = bound(name[: name.rindex("(")], limit, CLAUSE_WORDS) or name
    return name


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

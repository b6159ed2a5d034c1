"""Near-duplicate text, shared by the audit (``check``'s DUPLICATE) and capture
(``save`` refusing to repeat a note): one normalised-name key and one word
5-gram (shingle) Jaccard similarity, so both agree on what a duplicate is."""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict

from mdmem.base.settings import SIMILAR

TYPE_CHECKING = False  # the checkpoint's hooks import this for same_memory: no parser, no models at load time
if TYPE_CHECKING:
    from collections.abc import Callable

    from mdmem.base.models import Note

SENTENCE_MIN = 30  # bytes: shorter lines (headings, template lines) say nothing about duplication
SENTENCE_MAX_DF = 20  # a sentence in more notes than this is boilerplate, not a duplicate signal
_FM_BYTES = re.compile(rb"\A---[ \t]*\r?\n(?:.*?\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.S)
_WORD = re.compile(r"\w+")


def name_key(text: str) -> str:
    """Case, accents, spaces and punctuation aside: ``Ledger Notes`` = ``ledger-notes``."""
    text = text.casefold()
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)  # accents become combining marks, dropped below
    return "".join(filter(str.isalnum, text))


def shingles(text: str, n: int = 5) -> set[tuple[str, ...]]:
    """The text's word n-grams (one gram of all its words when it is shorter)."""
    words = _WORD.findall(text.casefold())
    k = min(n, len(words))
    return {tuple(words[i : i + k]) for i in range(len(words) - k + 1)} if k else set()


def similarity(a: set, b: set) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def near_duplicates(notes: list[Note], read: Callable[[str], bytes | None], threshold: float = SIMILAR) -> list[tuple[str, str, str]]:
    """Pairs ``(a, b, why)`` of near-duplicate notes, fast at 10k notes: the same
    normalised name; then candidates that share a long sentence or line (an
    inverted index over sentences, ignoring boilerplate found in many notes) or
    have byte-identical bodies, verified by the Jaccard similarity of their word
    5-gram sets. ``read(path)`` gives a note's bytes (or None)."""
    from mdmem.text.parse import decode

    reasons: dict[tuple[str, str], str] = {}

    by_name: dict[str, list[str]] = defaultdict(list)
    for note in notes:
        keys = {name_key(note.title)}
        name = note.frontmatter.get("name")
        if isinstance(name, str):
            keys.add(name_key(name))
        for key in keys:
            if key:
                by_name[key].append(note.path)
    for paths in by_name.values():  # each later note against the first: k notes, k - 1 issues
        for b in dict.fromkeys(paths[1:]):
            if b != paths[0]:
                reasons.setdefault(_pair(paths[0], b), "the same name")

    bodies: dict[str, bytes] = {}
    for note in notes:
        data = read(note.path)
        if data:
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
            m = _FM_BYTES.match(data)
            bodies[note.path] = data[m.end():] if m else data
    exact: dict[bytes, list[str]] = defaultdict(list)
    lines: dict[str, set[bytes]] = {}
    seen: set[bytes] = set()
    repeated: set[bytes] = set()
    for path, body in bodies.items():  # set operations in C: no Python loop over sentences
        body = body.strip()
        if len(body) >= 20:
            exact[body].append(path)
        sents = set(body.lower().replace(b". ", b"\n").splitlines())
        lines[path] = sents
        repeated |= sents & seen
        seen |= sents
    for paths in exact.values():
        for b in paths[1:]:
            pair = _pair(paths[0], b)
            reasons[pair] = (reasons[pair] + ", the same text") if pair in reasons else "the same text"
    repeated = {s for s in repeated if len(s) >= SENTENCE_MIN}
    inverted: dict[bytes, list[str]] = defaultdict(list)
    for path, sents in lines.items():
        if not sents.isdisjoint(repeated):
            for s in sents & repeated:
                inverted[s].append(path)
    shared: Counter = Counter()
    for paths in inverted.values():
        if len(paths) > SENTENCE_MAX_DF:
            continue
        for i, a in enumerate(paths):
            for b in paths[i + 1:]:
                shared[_pair(a, b)] += 1
    long_lines: dict[str, int] = {}

    def count_long(path: str) -> int:  # only for notes in a candidate pair
        if path not in long_lines:
            long_lines[path] = sum(1 for s in lines[path] if len(s) >= SENTENCE_MIN)
        return long_lines[path]

    grams_of: dict[str, set] = {}

    def grams(path: str) -> set:
        if path not in grams_of:
            grams_of[path] = shingles(decode(bodies[path])[0])
        return grams_of[path]

    for (a, b), count in shared.items():
        if "the same text" in reasons.get((a, b), ""):
            continue
        if count < max(1, math.ceil(0.25 * min(count_long(a), count_long(b)))):
            continue
        alike = similarity(grams(a), grams(b))
        if alike >= threshold:
            text = f"{alike:.0%} the same text (word 5-grams)"
            reasons[(a, b)] = (reasons[(a, b)] + ", " + text) if (a, b) in reasons else text
    for pair in same_meaning_pairs({p: decode(b)[0] for p, b in bodies.items() if len(b) <= MEANING_BYTES}):
        reasons.setdefault(pair, "the same meaning")
    return [(a, b, why) for (a, b), why in sorted(reasons.items())]


MEANING_BYTES = 600  # a memory this short is one fact: two of them are compared by meaning (text/meaning.py)
MEANING_MAX_DF = 50  # a content word in more short notes than this pairs none of them


def same_meaning_pairs(texts: dict[str, str]) -> list[tuple[str, str]]:
    """The pairs of ``texts`` (path -> a short memory's text) that state the same memory by their words
    (:func:`mdmem.text.meaning.same_meaning`), found through the content words they share (never all pairs)."""
    from mdmem.text.meaning import same_meaning, statement, words

    texts = {path: statement(text) for path, text in texts.items()}
    index: dict[str, list[str]] = defaultdict(list)
    for path, text in texts.items():
        for w in words(text)[0]:
            index[w].append(path)
    shared: Counter = Counter()
    for paths in index.values():
        if len(paths) <= MEANING_MAX_DF:
            for i, a in enumerate(paths):
                for b in paths[i + 1:]:
                    shared[_pair(a, b)] += 1
    return sorted(pair for pair, n in shared.items() if n >= 2 and same_meaning(texts[pair[0]], texts[pair[1]]))


def _options(value: object) -> set[str]:
    """Option names (a string or a list of them) as :func:`name_key` keys."""
    items = [value] if isinstance(value, str) else value if isinstance(value, (list, tuple)) else []
    return {k for k in (name_key(v) for v in items if isinstance(v, str)) if k}


def _alike(a: str, b: str, session: bool) -> bool:
    x, y = shingles(a, 2), shingles(b, 2)
    if not x or not y:
        return False
    if session:  # overlap coefficient: one says the other, in fewer or more words
        return len(x & y) / min(len(x), len(y)) >= SIMILAR
    return similarity(x, y) >= SIMILAR


def same_memory(new: dict, saved: dict, session: bool = False) -> str | None:
    """Why the suggested memory ``new`` is the same as the saved note ``saved``, or None. Both are
    dicts of ``type``, ``name``, ``description`` and, for decisions, ``chosen`` (a string) and
    ``rejected`` (a list). What counts as the same:

    - two decisions that chose the same option (:func:`name_key`: case, accents, spaces and
      punctuation aside) where every option ``new`` rejects is one ``saved`` rejected too ("Chose
      Bandit over Cowboy" = "Bandit over Cowboy as HTTP server", chosen Bandit, rejected Cowboy);
    - otherwise, of the same type: the same name by :func:`name_key`, or a name or a description whose
      word pairs (:func:`shingles` with n=2: names and descriptions are a few words, too short for the
      5-grams notes are compared by) are :data:`SIMILAR` alike (Jaccard).

    ``session`` is for a note accepted in this very session, which a later suggestion from the same
    transcript is most likely to repeat: a decision with the same chosen option is the same, and names
    or descriptions need only overlap (:data:`SIMILAR` of the shorter one's word pairs in the other)."""
    kind = new.get("type")
    if kind != saved.get("type"):
        return None
    if kind == "decision":
        chosen, was = _options(new.get("chosen")), _options(saved.get("chosen"))
        if chosen and chosen == was and (session or _options(new.get("rejected")) <= _options(saved.get("rejected"))):
            return "the same choice"
    names = [str(x.get("name") or "") for x in (new, saved)]
    if name_key(names[0]) and name_key(names[0]) == name_key(names[1]):
        return "the same name"
    if _alike(names[0], names[1], session):
        return "a near-same name"
    descs = [str(x.get("description") or "") for x in (new, saved)]
    if _alike(descs[0], descs[1], session):
        return "a near-same description"
    return None

"""Two memories of the same meaning ("I prefer short answers, conclusion first" and "I prefer short answers with
the conclusion first"): the test ``save``, ``checkpoint accept`` and MCP ``save`` run before writing, and
``check``'s DUPLICATE pairs. Pure: no I/O, standard library only.

Lexically, a memory is its content words (lower case, light suffixes off, stop words and the words every rule
has, "always", "never", "use", out; negation kept apart): two memories say the same when the shorter one's
content words are nearly all in the longer one (:data:`CONTAINED`) and they share enough of them in all
(:data:`OVERLAP`). With vectors (a vault with ``--semantic``), a cosine at or above :data:`COSINE` with some
lexical support (:data:`COSINE_SUPPORT`) is also the same meaning. Never when one prefers what the other gives
up (:func:`opposed`) or when each names a thing the other does not (:func:`swapped`: "`npm run lint`" /
"`npm run build`", port 8080 / 8081, "pnpm run build" / "npm run build", "lint" / "lint:full"), or when they are one
sentence shape with a part swapped ("**Runtime** layers ..." / "**UI** layers ..."). Bars and measures: decisions
070 and 071 (``eval/test_duplicates_real.py``).
A refusal the user did not want costs more than a duplicate kept, so the bars favour precision.
"""

from __future__ import annotations

import re
from functools import lru_cache

# The bars, set on the dev part of eval/data/duplicates (gold of two blind labellers): decision 070; kept by decision 071.
CONTAINED = 0.8     # share of the shorter memory's content words found in the longer one
OVERLAP = 0.35      # Jaccard of the two content-word sets
MIN_WORDS = 2       # a memory of fewer content words is never called the same as another by words alone
# vectors: this close in meaning (per model: their cosines are not on one scale) ...
COSINE = {"minilm": 0.6, "use-multilingual-v3": 0.7}
COSINE_DEFAULT = 0.75
COSINE_SUPPORT = 0.2  # ... with at least this share of the shorter one's content words in the other
# or a little less close with more words in common
COSINE_MID = {"minilm": 0.55, "use-multilingual-v3": 0.6}
MID_CONTAINED = 0.6

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_NEG = frozenset("not no never don't dont doesn't doesnt avoid without forbidden nor cannot can't isn't".split())
_STOP = frozenset("""
a an the and or but of to in on at by for with from as is are be been being was were it its this that these
those there here i me my we our you your he she they them their his her do does did done doing have has had
always please must should shall will would can could may might use using used uses make sure ensure
instead rather prefer preferred prefers than over only all any every each some such so very just also
project repo repository code file files when if then else unless until before after while about into
e g eg etc ie via per one two new
""".split())
_OVER = re.compile(r"\b(?:prefer\s+)?(?!(?:do|does|did|is|are|was|were|should|must|can|could|will|would|may|might)\b)"
                   r"(\w[\w.+-]*)`?(?:\s+|,\s*)(?:over|instead\s+of|rather\s+than|not|vs\.?)\s+`?(\w[\w.+-]*)", re.I)
_AFTER = re.compile(r"\w[\w.+-]*")


_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t].*$", re.M)
# what names one thing among its kind: a code span, a technical word (a path, a file, a flag, a version, a dotted or
# dashed name, a number) or the command after "run"; two rules that each name one the other lacks are two rules
# ("run `npm run lint`" / "run `npm run build`"), one that adds a name to the other is the same rule told more fully
_CODE = re.compile(r"`([^`\n]+)`")
_TECH = re.compile(r"(?<![\w`])(?:--?[A-Za-z][\w-]*|[\w@~]*\d[\w.+-]*|\w+(?:[./:_@-]\w+)+)")
_RUN = re.compile(r"\brun\s+([^\n.,;()`]+)", re.I)
_TOOL = re.compile(r"(?<![\w.-])([a-z][\w.-]*)\s+run\b")  # the tool before "run": "pnpm run build", "mise run lint"
_ATOM = re.compile(r"[^\W_]+")
_QUOTED = re.compile(r"(?<!\w)['\"‘“]([^'\"’”\s]+)['\"’”](?!\w)")  # a quoted word names a thing as a code span does
_PREFIX = re.compile(r"\b(co|pre|re|non|sub|multi|e)-(?=[^\W\d_])", re.I)  # "co-author" is "coauthor"
# a whole technical word (a flag, a path, a file, a dotted or dashed name), compared whole: "folders-list" is not
# "messages-list" though both have "list"; a path, a file or a flag=value one adds narrows the rule ("run all
# tests" / "run the tests in `tests/Feature/ExampleTest.php`"); examples ("e.g. `feat: add parser`") name nothing
_NAME = re.compile(r"(?<![\w`])(?:--?[A-Za-z][\w=-]*|\w+(?:[./:_@=-]\w+)*[./]\*(?![*\w])|\w+(?:[./:_@=-]\w+)+)")  # a glob too
_NARROW = re.compile(r"=|^[.~/]|/.*\.|\w\.[a-z]{1,5}$")
_EXAMPLE = re.compile(r"\((?:e\.g\.|eg\b|for example|such as)[^)]*\)|\b(?:e\.g\.|for example|such as)[^.;\n]*", re.I)
_HYPHENS = str.maketrans("‐‑‒–—", "-----")
_TOKEN = re.compile(r"[^\W_](?:[\w.:/@+=-]*\w)?(?:[./]\*)?")  # a word or a name, kept whole ("lint:full", "arkitekt.*")
_EXTENDED = re.compile(r"(?<![\w:.-])([^\W_]+)(?::[\w:-]*\w|-\d+)(?![\w:-])")  # "lint:full" of "lint", "1-6" of "1"
SHAPE = 0.6         # share of the longer text's tokens in the same order in the other: one sentence shape
_NAMELIKE = re.compile(r"\w[./:_*@=]|\d")
SWAP = 2            # ... with a part of at most this many tokens swapped for another
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")  # a Markdown link is its text: "[Data hygiene](feedback_data.md)"


@lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "sses", "xes", "ches", "shes", "ed", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word[-2] in "su"):
            keep = 2 if suffix in ("sses", "xes", "ches", "shes") else 0  # "classes" -> "class", "fixes" -> "fix"
            return word[: len(word) - len(suffix) + keep] + ("y" if suffix in ("ies", "ied") else "")
    return word


@lru_cache(maxsize=2048)  # a memory is compared with every saved one: its words are worked out once
def words(text: str) -> tuple[frozenset[str], bool]:
    """``(content words, negated)``: the stemmed content words and whether the text forbids something (a
    preference, "pnpm, not npm", "X instead of Y", forbids nothing). Heading lines are left out: a note's
    title heading ("# Note") is not what it states."""
    text = _PREFIX.sub(r"\1", _LINK.sub(r"\1", _HEADING.sub("", text)))
    tokens = [t.replace("’", "'") for t in _WORD.findall(text.casefold())]
    negated = any(t in _NEG or t.endswith("n't") for t in _WORD.findall(_OVER.sub(" ", text.casefold())))
    named = {t for span in _CODE.findall(text) + _QUOTED.findall(text) for t in _ATOM.findall(span.casefold())} \
        if any(q in text for q in "`'\"‘“") else set()
    return frozenset(_stem(t) for t in tokens if (t not in _STOP or t in named) and t not in _NEG
                     and not t.endswith("n't") and (len(t) > 1 or t.isdigit())), negated


def _preferences(text: str) -> list[tuple[str, frozenset[str]]]:
    """Each "X over Y" of ``text``: X's last word and the first words of what it is preferred to ("type aliases
    over interfaces in TypeScript": ``("alias", {"interface", "in", "typescript"})``), stemmed."""
    out = []
    for m in _OVER.finditer(_HEADING.sub("", text)):
        after = [m.group(2), *_AFTER.findall(text[m.end():m.end() + 80])[:2]]
        out.append((_stem(m.group(1).casefold()), frozenset(_stem(w.casefold()) for w in after)))
    return out


def opposed(a: str, b: str) -> bool:
    """Does one prefer what the other gives up ("X over Y" against "Y over X", a side of several words too:
    "interfaces over type aliases" / "type aliases over interfaces")?"""
    pb = _preferences(b)
    return any(xa in rb and xb in ra for xa, ra in _preferences(a) for xb, rb in pb)


def lexical(a: str, b: str) -> tuple[float, float]:
    """``(contained, overlap)`` of two texts' content words (see the module's docstring)."""
    wa, _ = words(a)
    wb, _ = words(b)
    if not wa or not wb:
        return 0.0, 0.0
    common = len(wa & wb)
    return common / min(len(wa), len(wb)), common / len(wa | wb)


def same_meaning(a: str, b: str, cosine: float | None = None, model: str | None = None) -> bool:
    """Do ``a`` and ``b`` state the same memory? ``cosine``: their vectors' cosine when the vault has vectors,
    made by ``model`` (its bar: :data:`COSINE`). The vetoes (:func:`opposed`, :func:`swapped`) run last: most
    pairs are told apart by their words alone."""
    wa, na = words(a)
    wb, nb = words(b)
    if not wa or not wb:
        return False
    common = len(wa & wb)
    contained = common / min(len(wa), len(wb))
    overlap = common / len(wa | wb)
    alike = min(len(wa), len(wb)) >= MIN_WORDS and contained >= CONTAINED and overlap >= OVERLAP and na == nb
    if not alike and cosine is not None:  # (the vectors weigh a "never" themselves: "npm is forbidden" = "use pnpm")
        mid = COSINE_MID.get(model or "")
        alike = (cosine >= COSINE.get(model or "", COSINE_DEFAULT) and contained >= COSINE_SUPPORT) or (
            mid is not None and cosine >= mid and contained >= MID_CONTAINED)
    return alike and not opposed(a, b) and not swapped(a, b)


def keys(text: str) -> frozenset[str]:
    """The names ``text`` gives (code spans, technical words, the command after "run"; not its examples), as
    lower-case atoms."""
    text = _EXAMPLE.sub(" ", _LINK.sub(r"\1", text))
    plain = _CODE.sub(" ", text)
    found = _CODE.findall(text) + _TECH.findall(plain)
    found += (t for t in _TOOL.findall(plain) if t not in _STOP and t not in _NEG and not t.endswith("n't"))
    for command in _RUN.findall(plain):  # "run npm run lint before ...": the words up to the first stop word
        for i, t in enumerate(command.split()[:3]):
            if t.casefold() in _STOP or (i and not t[0].isalnum()):
                break
            found.append(t)
    return frozenset(_stem(t) for f in found for t in _ATOM.findall(f.casefold()) if t not in _STOP)


def _names(text: str) -> set[str]:
    text = _EXAMPLE.sub(" ", _LINK.sub(r"\1", text).translate(_HYPHENS))
    return {n.casefold() for part in [*_CODE.findall(text), _CODE.sub(" ", text)] for n in _NAME.findall(part)}


def swapped(a: str, b: str) -> bool:
    """Does each name something the other does not ("`npm run lint`" / "`npm run build`", port 8080 / 8081,
    "`.claude/`" / "`.gemini/`"), or does one narrow the other to a path, a file or a flag's value? Then they
    are two rules of one shape, however alike their words. A name one only adds ("pnpm 10+") is detail."""
    ka, kb = keys(a), keys(b)
    if not ka and not kb:  # plain prose: a word swapped is as likely a synonym ("Pipeline:" / "Flow:")
        return False
    ta = {_stem(t) for t in _ATOM.findall(a.casefold())}
    tb = {_stem(t) for t in _ATOM.findall(b.casefold())}
    if ka - tb and kb - ta:
        return True
    flat_a, flat_b = a.translate(_HYPHENS).casefold(), b.translate(_HYPHENS).casefold()
    only_a = {n for n in _names(a) if n not in flat_b}
    only_b = {n for n in _names(b) if n not in flat_a}
    return bool(only_a and only_b) or any(_NARROW.search(n) for n in only_a | only_b) or _recast(a, b)


def _recast(a: str, b: str) -> bool:
    """One sentence shape (:data:`SHAPE` of the tokens in order) with a part swapped for another: a content word
    or name in a changed span of each that the other text has nowhere ("**Runtime** layers may use ..." /
    "**UI** layers may use ...", "at import time" / "at runtime", "pnpm run build" / "npm run build")."""
    ta, tb = _tokens(a), _tokens(b)
    if _extends(a, tb, b) or _extends(b, ta, a):
        return True
    from difflib import SequenceMatcher  # only for the few pairs already found alike

    matcher = SequenceMatcher(None, ta, tb, autojunk=False)
    if sum(block.size for block in matcher.get_matching_blocks()) < SHAPE * max(len(ta), len(tb)):
        return False
    sa, sb = frozenset(map(_stem, ta)), frozenset(map(_stem, tb))
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace" or max(i2 - i1, j2 - j1) > SWAP:
            continue
        xa, xb = ta[i1:i2], tb[j1:j2]
        if any(_new(t, sb) for t in xa) and any(_new(t, sa) for t in xb):
            return True
        na, nb = {t for t in xa if _NAMELIKE.search(t)}, {t for t in xb if _NAMELIKE.search(t)}
        if na and nb and na != nb:  # a name in place of another, even one the first text gives elsewhere
            return True
    return False


def _extends(text: str, other_tokens: tuple[str, ...], other: str) -> bool:
    """Does ``text`` name a sub-command or a range of what the other gives bare ("mise run lint:full" / "mise run
    lint", "Phase 1-6" / "Phase 1")?"""
    folded = other.casefold()
    return any(m[1] in other_tokens and m[0] not in folded for m in
               ((x.group(0).casefold(), x.group(1).casefold()) for x in _EXTENDED.finditer(text)))


@lru_cache(maxsize=2048)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(_LINK.sub(r"\1", text).translate(_HYPHENS).casefold()))


def _new(token: str, stems: frozenset[str]) -> bool:
    """Is ``token`` a content word or name none of ``stems`` is (nor a form of: "bypass" / "bypassing")?"""
    if token in _STOP or token in _NEG or token.endswith("n't"):
        return False
    stem = _stem(token)
    return not any(s.startswith(stem) or stem.startswith(s) for s in stems if min(len(s), len(stem)) >= 4) \
        and stem not in stems


def score(a: str, b: str, cosine: float | None = None) -> float:
    """How alike ``a`` and ``b`` are, 0..1 (for ranking and messages): the lexical overlap, or the cosine."""
    contained, overlap = lexical(a, b)
    return max((contained + overlap) / 2, cosine or 0.0)


def statement(text: str) -> str:
    """What a memory states: its first paragraph that is not a heading (a checkpoint's note goes on with where
    it was proposed, a decision with its sections: not the fact)."""
    for block in re.split(r"\n[ \t]*\n", _HEADING.sub("", text).strip()):
        if block.strip():
            return block.strip()
    return ""

"""Does a memory repeat the vault: the note it would say again (the same content, name, wording or meaning, with
the vault's vectors when it has them), and what in it may not belong in memory (code, a line CLAUDE.md or a
protocol already holds). One note per fact: decision 031."""

from __future__ import annotations

import enum
import re
from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.layout import MEMORY_DIR
from mdmem.text.classify import WARNINGS
from mdmem.text.similar import SIMILAR, name_key, shingles, similarity

if TYPE_CHECKING:
    from mdmem.base.projects import Scope
    from mdmem.base.settings import Judge
    from mdmem.engine.memory import Memory
    from mdmem.engine.store import Head

MEANING = "the same meaning"  # the reason :func:`repeated` gives for a guess by meaning (not refused: decision 096)
JUDGED = "the same meaning, as the judge answered"  # a repeat the user's judge named (refused: decision 122)
DUPLICATE_LINE = 30  # characters: a body line this long found in CLAUDE.md or a protocol is a repeat
Twin = tuple[str, str | None]  # what :func:`repeated` finds: the note, and why (None: the same content)


def is_guess(reason: str | None) -> bool:
    """Is ``reason`` (a :data:`Twin`'s) a guess by meaning, saved with a warning: :data:`MEANING`, alone or with
    why no judge cleared it?"""
    return reason is not None and reason.split(";", 1)[0] == MEANING


class Unchecked(enum.Enum):
    """The repeat check has not run yet: :func:`mdmem.ops.capture.save` runs it (its ``repeat`` default)."""

    UNCHECKED = "unchecked"


UNCHECKED = Unchecked.UNCHECKED


def body_of(data: bytes) -> str:
    from mdmem.text.parse import split_note

    return split_note(data)[1]


def repeated(mem: Memory, rel: str, title: str, body: str, replaces=frozenset(),
             kind: str = "", scope: Scope | None = None, judge: Judge | None = None,
             answers: dict | None = None) -> Twin | None:
    """The memory note this one would repeat: ``(path, None)`` for the same
    content, ``(path, reason)`` for a near-duplicate (the same name, whatever the case, accents and
    spacing; for a person, also one of another person note's ``aliases``; :data:`SIMILAR` of the same wording;
    the same meaning), else None. The notes it ``replaces`` are not compared, nor, with a ``scope``, the notes it
    does not see (another project's: one note per fact holds within a project and the global memory, decision 066).

    Fast at 10k notes (decision 062): the same content is a look-up of the body's digest in the notes cache
    (the one file found is read to confirm it), the same name is read from the cache's heads, and only the
    :data:`CANDIDATES` notes that rank highest for its words in the cache's quick index (and those nearest by
    the vectors' cosine, when the vault has them) have their body read for the wording and meaning tests.

    ``judge`` (:mod:`mdmem.ops.judge`, the user's model command): when no note repeats the same content, name or
    wording, the few read notes related to the memory are handed to it and its answer decides: the note it names
    (:data:`JUDGED`, refused like a repeat of the wording), or none (no guess either); without an answer, the guess
    stands (:data:`MEANING` and why). ``answers``: the judge's answers kept by what it read
    (:func:`mdmem.ops.judge.ask`): one for the same prompt is taken, no model asked."""
    return _repeated(mem, rel, title, body, replaces, kind, scope, CANDIDATES, judge, answers)


def exhaustive(mem: Memory, rel: str, title: str, body: str, replaces=frozenset(),
               kind: str = "", scope: Scope | None = None) -> tuple[str, str | None] | None:
    """:func:`repeated` reading every memory note's body: what the bounded version is measured against
    (``scripts/bench_repeats.py``: the same answer on every real duplicate pair)."""
    return _repeated(mem, rel, title, body, replaces, kind, scope, None, None, None)


CANDIDATES = 50  # notes whose body is read for the wording and meaning tests, per ranking (decision 062)


def _repeated(mem: Memory, rel: str, title: str, body: str, replaces: frozenset | set, kind: str,
              scope: Scope | None, limit: int | None, judge: Judge | None,
              answers: dict | None) -> tuple[str, str | None] | None:
    from mdmem.text.meaning import opposed, same_meaning, statement, swapped

    flat = " ".join(body.split())
    heads = [n for n in mem.heads() if n.path != rel and n.path.startswith(MEMORY_DIR + "/") and n.type != "daily"
             and n.path not in replaces and (scope is None or scope.sees_name(n.project))]
    mine_paths = {n.path for n in heads}
    for path in mem.same_body(flat):  # the cache's digest finds it; the file, read, confirms it is still so
        if path in mine_paths and _flat_body(mem, path) == flat:
            return path, None
    keys = {k for k in (name_key(title), name_key(rel.rsplit("/", 1)[-1][:-3])) if k}
    mine = shingles(body)
    fact = statement(body)
    model, cosine = _cosines(mem, fact)
    read = None if limit is None else _candidates(mem, body, cosine, heads, limit)
    guess = None
    asked: list[tuple[float, str, str, str]] = []  # (how related, path, name, text): what a judge would read
    if judge is not None:
        from mdmem.ops.judge import related
    for note in heads:
        names = {name_key(note.title)}
        if isinstance(note.frontmatter.get("name"), str):
            names.add(name_key(note.frontmatter["name"]))
        person = kind == "person" and note.type == "person"
        if person:  # a person's other names: "Ana" is the note whose aliases say Ana
            names |= {name_key(a) for a in note.aliases}
        if keys & names:
            return note.path, "the same person" if person else "the same name"
        if read is not None and note.path not in read:
            continue
        other = _flat_body(mem, note.path, flat=False)
        if other is None:
            continue
        if " ".join(other.split()) == flat:  # edited to this since the cache last read it
            return note.path, None
        theirs, said = shingles(other), statement(other)
        if mine and theirs and similarity(mine, theirs) >= SIMILAR and not opposed(fact, said) \
                and not swapped(fact, said):  # one word apart may be another thing: "lint" / "build"
            return note.path, f"{int(100 * similarity(mine, theirs))}% the same wording"
        if note.type == "project":
            continue
        if guess is None and same_meaning(fact, said, cosine.get(note.path), model):
            guess = note.path  # a guess: a repeat by name or wording in a later note comes first (decision 096)
        if judge is not None:
            near = related(fact, said, cosine.get(note.path), model)
            if near is not None:
                label = note.frontmatter.get("name")
                asked.append((near, note.path, label if isinstance(label, str) and label.strip() else note.title,
                              said))
    if judge is not None and (asked or guess):
        from mdmem.ops.judge import ASKED_MAX, ask

        shown = [(p, n, t) for _, p, n, t in sorted(asked, key=lambda a: (-a[0], a[1]))[:ASKED_MAX]]
        verdict = ask(judge, fact, shown, answers)
        if verdict.error is None:
            return (verdict.same, JUDGED) if verdict.same else None
        return (guess, f"{MEANING}; {verdict.error}") if guess else None
    return (guess, MEANING) if guess else None


def _flat_body(mem: Memory, path: str, flat: bool = True) -> str | None:
    """A note's body as on disk now (whitespace runs made one space when ``flat``), None when unreadable."""
    try:
        other = body_of(fs.read_bytes(mem.root, path))
    except OSError:
        return None
    return " ".join(other.split()) if flat else other


K1, B = 1.2, 0.75  # BM25's usual constants
_ATOM = re.compile(r"[^\W_]+")


def _candidates(mem: Memory, body: str, cosine: dict[str, float], heads: list[Head], limit: int) -> set[str]:
    """The memory notes worth reading: the ``limit`` that rank highest for ``body``'s content words
    (:func:`mdmem.text.meaning.words`) and the ``limit`` nearest by ``cosine``. The ranking is BM25 with each
    word counted once (the quick index of the notes cache says which notes hold a word, :meth:`Store.holding`;
    a note's length is its size): a note that shares most of the memory's words, and is not much longer, ranks
    first, and that is what both tests ask of a repeat (decision 062)."""
    import math

    from mdmem.engine.quick import rowid
    from mdmem.text.meaning import words

    found = {p for p, _ in sorted(((n.path, cosine[n.path]) for n in heads if n.path in cosine),
                                  key=lambda pc: -pc[1])[:limit]}
    terms = {a for w in words(body)[0] for a in _ATOM.findall(w)}  # "x's" is two of the index's words
    if not terms or not heads:
        return found
    by_id = {rowid(n.path): n for n in heads}
    sizes = {i: max(n.size, 1) for i, n in by_id.items()}
    average = sum(sizes.values()) / len(sizes)
    score: dict[int, float] = {}
    for ids in mem.store.holding(sorted(terms)).values():
        ids = [i for i in ids if i in by_id]
        idf = math.log(1 + (len(by_id) - len(ids) + 0.5) / (len(ids) + 0.5))
        for i in ids:
            score[i] = score.get(i, 0.0) + idf
    ranked = sorted(score, key=lambda i: -score[i] * (K1 + 1) / (1 + K1 * (1 - B + B * sizes[i] / average)))
    return found | {by_id[i].path for i in ranked[:limit]}


def _cosines(mem: Memory, text: str) -> tuple[str | None, dict[str, float]]:
    """The vectors' cosines of ``text`` to each note (:func:`mdmem.engine.vectors.cosines`) when the vault has
    vectors and the semantic extra is installed, else none (the words alone decide)."""
    from mdmem.engine import vectors
    from mdmem.engine.embed import SemanticUnavailable

    if not (mem.state_dir / vectors.FILE).exists():  # (before numpy is imported: a third of a second)
        return None, {}
    try:
        from mdmem.engine.vectors import cosines

        return cosines(mem, text)
    except (SemanticUnavailable, ImportError):
        return None, {}


def warnings(mem: Memory, body: str, rel: str | None = None) -> list[str]:
    """Why ``body`` may not belong in memory (empty when it does). ``rel``: the note just saved,
    which is not compared with itself (a protocol always says what it says)."""
    found = [text for pattern, text in WARNINGS if pattern.search(body)]
    lines = {" ".join(ln.split()).casefold() for ln in body.splitlines()}
    lines = {ln for ln in lines if len(ln) >= DUPLICATE_LINE}
    if not lines:
        return found
    sources = [("CLAUDE.md", mem.root / "CLAUDE.md")]
    sources += [(n.path, mem.root / n.path) for n in mem.heads() if n.type == "protocol" and n.path != rel]
    for name, path in sources:
        data, _ = fs.read_stat(mem.root, path)
        if data is None:
            continue
        text = " ".join(body_of(data).split()).casefold()
        if any(ln in text for ln in lines):
            found.append(f"{name} already says this" + ("" if name == "CLAUDE.md" else " (a protocol)"))
    return found

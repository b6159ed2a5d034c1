"""Does a memory repeat the vault: the note it would say again (the same content, name, wording or meaning, with
the vault's vectors when it has them), and what in it may not belong in memory (code, a line CLAUDE.md or a
protocol already holds). One note per fact: decision 031."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.layout import MEMORY_DIR
from mdmem.text.classify import WARNINGS
from mdmem.text.similar import SIMILAR, name_key, shingles, similarity

if TYPE_CHECKING:
    from mdmem.base.projects import Scope
    from mdmem.engine.memory import Memory

MEANING = "the same meaning"  # the reason :func:`repeated` gives for a guess by meaning (not refused: decision 096)
DUPLICATE_LINE = 30  # characters: a body line this long found in CLAUDE.md or a protocol is a repeat


def body_of(data: bytes) -> str:
    from mdmem.text.parse import split_note

    return split_note(data)[1]


def repeated(mem: Memory, rel: str, title: str, body: str, replaces=frozenset(),
          kind: str = "", scope: Scope | None = None) -> tuple[str, str | None] | None:
    """The memory note this one would repeat: ``(path, None)`` for the same
    content, ``(path, reason)`` for a near-duplicate (the same name, whatever the case, accents and
    spacing; for a person, also one of another person note's ``aliases``), else None. The notes it
    ``replaces`` are not compared, nor, with a ``scope``, the notes it does not see (another project's: one
    note per fact holds within a project and the global memory, decision 066). The notes are the cache's heads
    (:meth:`mdmem.engine.memory.Memory.heads`: a name's frontmatter parsed only when it is compared; no links or
    headings); each body is read from its file, which the cache does not keep."""
    from mdmem.text.meaning import same_meaning, statement

    flat = " ".join(body.split())
    keys = {k for k in (name_key(title), name_key(rel.rsplit("/", 1)[-1][:-3])) if k}
    mine = shingles(body)
    fact = statement(body)
    near = None
    model, cosine = _cosines(mem, fact)
    for note in mem.heads():
        if note.path == rel or not note.path.startswith(MEMORY_DIR + "/") or note.type == "daily" \
                or note.path in replaces or (scope is not None and not scope.sees_name(note.project)):
            continue
        try:
            other = body_of(fs.read_bytes(mem.root, note.path))
        except OSError:
            continue
        if " ".join(other.split()) == flat:
            return note.path, None
        if near is None:
            names = {name_key(note.title)}
            if isinstance(note.frontmatter.get("name"), str):
                names.add(name_key(note.frontmatter["name"]))
            person = kind == "person" and note.type == "person"
            if person:  # a person's other names: "Ana" is the note whose aliases say Ana
                names |= {name_key(a) for a in note.aliases}
            theirs = shingles(other)
            if keys & names:
                near = (note.path, "the same person" if person else "the same name")
            elif mine and theirs and similarity(mine, theirs) >= SIMILAR:
                near = (note.path, f"{int(100 * similarity(mine, theirs))}% the same wording")
            elif note.type != "project" and same_meaning(fact, statement(other), cosine.get(note.path), model):
                near = (note.path, MEANING)
    return near


def _cosines(mem: Memory, text: str) -> tuple[str | None, dict[str, float]]:
    """The vectors' cosines of ``text`` to each note (:func:`mdmem.engine.vectors.cosines`) when the vault has
    vectors and the semantic extra is installed, else none (the words alone decide)."""
    from mdmem.engine.embed import SemanticUnavailable

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

"""Tests for ``mdmem.text.resolve.Resolver``: Obsidian's link resolution order.

Small synthetic vaults (lists of vault paths) per case, then a run over the two
real vaults in tests/data/fixtures/vaults/ comparing against SOURCES.md figures.
"""

from __future__ import annotations

import os
import posixpath
import re
import time
import unicodedata
from pathlib import Path

import pytest

from mdmem.text.parse import parse_note
from mdmem.text.resolve import Resolver

NFC_CAFE = unicodedata.normalize("NFC", "Café")
NFD_CAFE = unicodedata.normalize("NFD", "Café")
assert NFC_CAFE != NFD_CAFE


# ---------------------------------------------------------------- synthetic vaults

CASES = [
    # id, vault paths, target, source, expected
    # bare names: unique file anywhere, case-insensitive, ".md" added
    ("bare-unique", ["folder/My Note.md", "other.md"], "My Note", "other.md", "folder/My Note.md"),
    ("bare-lower", ["folder/My Note.md", "other.md"], "my note", "other.md", "folder/My Note.md"),
    ("bare-upper", ["folder/My Note.md", "other.md"], "MY NOTE", "other.md", "folder/My Note.md"),
    ("bare-with-md", ["folder/My Note.md", "other.md"], "My Note.md", "other.md", "folder/My Note.md"),
    ("bare-with-md-upper", ["folder/My Note.md"], "my note.MD", "x.md", "folder/My Note.md"),
    ("bare-from-deep", ["a/Note.md", "b/c/d/src.md"], "Note", "b/c/d/src.md", "a/Note.md"),
    ("dotted-name", ["notes/Release 1.2.md"], "Release 1.2", "x.md", "notes/Release 1.2.md"),
    # attachments: a target with an extension is looked up as is
    ("attachment-name", ["img/a.png", "x.md"], "a.png", "x.md", "img/a.png"),
    ("attachment-path", ["img/a.png", "x.md"], "img/a.png", "x.md", "img/a.png"),
    ("attachment-case", ["img/Photo.JPG"], "photo.jpg", "x.md", "img/Photo.JPG"),
    ("pdf-needs-extension", ["doc.pdf"], "doc", "x.md", None),
    ("md-preferred-over-other", ["Note.png", "Note.md"], "Note", "x.md", "Note.md"),
    # relative ./ and ../ against the linking note's folder
    ("rel-dot", ["notes/a/src.md", "notes/a/x.md", "notes/y/x.md", "x.md"], "./x", "notes/a/src.md", "notes/a/x.md"),
    ("rel-dot-md", ["notes/a/src.md", "notes/a/x.md", "x.md"], "./x.md", "notes/a/src.md", "notes/a/x.md"),
    ("rel-dotdot", ["notes/a/src.md", "notes/a/x.md", "notes/y/x.md", "x.md"], "../y/x", "notes/a/src.md", "notes/y/x.md"),
    ("rel-dotdot-md", ["notes/a/src.md", "notes/y/x.md"], "../y/x.md", "notes/a/src.md", "notes/y/x.md"),
    ("rel-dotdot-image", ["notes/src.md", "img/a.png"], "../img/a.png", "notes/src.md", "img/a.png"),
    ("rel-dot-root", ["src.md", "x.md", "sub/x.md"], "./x", "src.md", "x.md"),
    ("rel-url-decoded", ["notes/src.md", "notes/Note x.md"], "./Note x.md", "notes/src.md", "notes/Note x.md"),
    ("rel-missing", ["notes/a/src.md", "x.md"], "./missing", "notes/a/src.md", None),
    # an exact vault path wins
    ("exact-root-from-root", ["Dup.md", "folder/Dup.md", "src.md"], "Dup", "src.md", "Dup.md"),
    ("exact-root-from-folder", ["Dup.md", "folder/Dup.md", "folder/src.md"], "Dup", "folder/src.md", "Dup.md"),
    ("exact-root-from-elsewhere", ["Dup.md", "folder/Dup.md", "z/src.md"], "Dup", "z/src.md", "Dup.md"),
    ("exact-folder-path", ["Dup.md", "folder/Dup.md", "src.md"], "folder/Dup", "src.md", "folder/Dup.md"),
    ("exact-path-case", ["Folder/Note.md"], "folder/NOTE", "x.md", "Folder/Note.md"),
    ("exact-path-spaces", ["folder/Note x.md"], "folder/Note x.md", "x.md", "folder/Note x.md"),
    # a leading "/" means a vault path only
    ("slash-path", ["folder/Note.md"], "/folder/Note", "x.md", "folder/Note.md"),
    ("slash-path-md", ["folder/Note.md"], "/folder/Note.md", "x.md", "folder/Note.md"),
    ("slash-not-by-name", ["folder/Note.md"], "/Note", "x.md", None),
    ("slash-root", ["Note.md", "folder/Note.md"], "/Note", "folder/x.md", "Note.md"),
    # path suffix on a segment boundary
    ("suffix-segment", ["a/b/Note.md", "ab/Note.md"], "b/Note", "x.md", "a/b/Note.md"),
    ("suffix-not-partial", ["xab/Note.md"], "b/Note", "x.md", None),
    ("suffix-deep", ["p/q/r/Note.md", "s/Note.md"], "q/r/Note", "x.md", "p/q/r/Note.md"),
    ("suffix-case", ["a/B/Note.md"], "b/note", "x.md", "a/B/Note.md"),
    ("wrong-folder", ["a/Note.md"], "zzz/Note", "x.md", None),
    # several candidates: under the linking note's folder first, then shortest
    ("same-folder-first", ["n/Note.md", "yyyy/Note.md", "yyyy/src.md"], "Note", "yyyy/src.md", "yyyy/Note.md"),
    ("subfolder-of-source-first", ["n/Note.md", "y/zzzz/Note.md", "y/src.md"], "Note", "y/src.md", "y/zzzz/Note.md"),
    ("under-source-shortest", ["y/z/Note.md", "y/Note.md", "y/src.md"], "Note", "y/src.md", "y/Note.md"),
    ("shortest-otherwise", ["x/Note.md", "y/zz/Note.md", "w/src.md"], "Note", "w/src.md", "x/Note.md"),
    ("root-source-shortest", ["aaa/bbb/Note.md", "cc/Note.md", "src.md"], "Note", "src.md", "cc/Note.md"),
    ("suffix-same-folder-first", ["k/b/Note.md", "long/er/b/Note.md", "long/er/src.md"], "b/Note", "long/er/src.md", "long/er/b/Note.md"),
    ("tie-alphabetical", ["b/Note.md", "a/Note.md", "c/src.md"], "Note", "c/src.md", "a/Note.md"),
    ("tie-alphabetical-rev", ["a/Note.md", "b/Note.md", "c/src.md"], "Note", "c/src.md", "a/Note.md"),
    # Unicode normalisation: NFD link to NFC file and back; the stored path comes back
    ("nfd-link-nfc-file", [f"{NFC_CAFE}.md"], NFD_CAFE, "x.md", f"{NFC_CAFE}.md"),
    ("nfc-link-nfd-file", [f"{NFD_CAFE}.md"], NFC_CAFE, "x.md", f"{NFD_CAFE}.md"),
    ("nfd-path", [f"f/{NFC_CAFE}/n.md"], f"{NFD_CAFE}/n", "x.md", f"f/{NFC_CAFE}/n.md"),
    # empty target: the note itself
    ("empty-self", ["folder/src.md", "other.md"], "", "folder/src.md", "folder/src.md"),
    # aliases never resolve (the Resolver only knows paths); unresolved -> None
    ("alias-not-resolved", ["Real Name.md"], "Alias Name", "x.md", None),
    ("missing", ["a.md", "b/c.md"], "Missing", "a.md", None),
    ("missing-path", ["a.md"], "folder/a", "x.md", None),
]


@pytest.mark.parametrize(
    "paths, target, source, expected",
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_resolve(paths, target, source, expected):
    assert Resolver(paths).resolve(target, source) == expected


def test_resolver_accepts_any_iterable():
    r = Resolver(p for p in ["a/Note.md", "b.md"])
    assert r.resolve("Note", "b.md") == "a/Note.md"
    assert r.resolve("b", "a/Note.md") == "b.md"


def test_resolver_is_reusable_across_sources():
    r = Resolver(["x/Note.md", "y/Note.md", "x/s.md", "y/s.md", "z/s.md"])
    assert r.resolve("Note", "x/s.md") == "x/Note.md"
    assert r.resolve("Note", "y/s.md") == "y/Note.md"
    assert r.resolve("Note", "z/s.md") == "x/Note.md"


def test_parse_then_resolve_end_to_end():
    paths = ["notes/src.md", "notes/sib.md", "people/Ana.md", "img/p.png", "Dup.md", "x/Dup.md"]
    body = (
        '---\nup: "[[Ana]]"\n---\n'
        "[[sib]] ![[p.png]] [m](../people/Ana.md) [[#Top]] [[Dup]] [[Nobody]] [w](https://x.org)\n"
    )
    note = parse_note("notes/src.md", body.encode())
    r = Resolver(paths)
    got = [(ln.target, r.resolve(ln.target, note.path)) for ln in note.links]
    assert got == [
        ("Ana", "people/Ana.md"),
        ("sib", "notes/sib.md"),
        ("p.png", "img/p.png"),
        ("../people/Ana.md", "people/Ana.md"),
        ("", "notes/src.md"),
        ("Dup", "Dup.md"),
        ("Nobody", None),
    ]


# ---------------------------------------------------------------- real vaults

FIXTURES = Path(__file__).resolve().parent / "data" / "fixtures" / "vaults"

# Figures from tests/data/fixtures/SOURCES.md. The vaults were copied with only
# their .md files (images and other attachments dropped), so an unresolved
# *attachment* link there says nothing about the resolver: the distinct
# unresolved count below covers note targets only (no extension, or ".md").
REAL_VAULTS = {
    # name: (unresolved note targets: (min, max), {measure: SOURCES figure})
    "obsidian-tasks-docs": ((0, 4), {"wikilinks": 1080, "embeds": 28, "markdown": 129, "subpath": 406}),
    "dwarvesf-brain": ((89, 165), {"wikilinks": 796, "markdown": 1151, "tags": 663}),
}

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
ATTACHMENT = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def _vault_root(folder: Path) -> Path:
    """The folder holding .obsidian/ if any, else the folder itself."""
    for dirpath, dirnames, _ in os.walk(folder):
        if ".obsidian" in dirnames:
            return Path(dirpath)
    return folder


def _vault_files(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if not name.startswith("."):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                out.append(rel.replace(os.sep, "/"))
    return out


def _is_note_target(target: str) -> bool:
    last = target.rsplit("/", 1)[-1]
    return last.lower().endswith(".md") or not ATTACHMENT.search(last)


def _really_missing(target: str, source: str, lower_paths: set[str], lower_names: set[str]) -> bool:
    """Independent existence check: is there truly no file this link could mean?"""
    t = unicodedata.normalize("NFC", target).lower()
    wants = {t} if t.endswith(".md") else {t, t + ".md"}
    if t.startswith("./") or t.startswith("../"):
        folder = posixpath.dirname(unicodedata.normalize("NFC", source).lower())
        full = {posixpath.normpath(posixpath.join(folder, w)) for w in wants}
        return not any(f in lower_paths for f in full if not f.startswith(".."))
    if t.startswith("/"):
        return not any(w.lstrip("/") in lower_paths for w in wants)
    if "/" in t:
        return not any(p == w or p.endswith("/" + w) for p in lower_paths for w in wants)
    return not (wants & lower_names)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL_VAULTS))
def test_real_vault(name):
    folder = FIXTURES / name
    (lo, hi), figures = REAL_VAULTS[name]
    root = _vault_root(folder)
    files = _vault_files(root)
    lower_paths = {unicodedata.normalize("NFC", p).lower() for p in files}
    lower_names = {p.rsplit("/", 1)[-1] for p in lower_paths}

    start = time.perf_counter()
    resolver = Resolver(files)
    notes = []
    for rel in files:
        if rel.endswith(".md"):
            notes.append(parse_note(rel, (root / rel).read_bytes()))
    unresolved: dict[str, str] = {}  # target -> one source that links it
    measures = {"wikilinks": 0, "embeds": 0, "markdown": 0, "subpath": 0}
    tags: set[str] = set()
    for note in notes:
        tags.update(note.tags)
        for ln in note.links:
            assert not SCHEME.match(ln.target), f"external URL returned as link: {ln.raw!r}"
            if ln.kind == "wikilink":
                measures["wikilinks"] += 1
                measures["embeds"] += ln.embed
                measures["subpath"] += ln.subpath is not None
            elif ln.kind == "markdown":
                measures["markdown"] += 1
            if not ln.target:
                continue
            if resolver.resolve(ln.target, note.path) is None:
                unresolved.setdefault(ln.target, note.path)
    elapsed = time.perf_counter() - start
    measures["tags"] = len(tags)

    assert len(notes) == sum(1 for f in files if f.endswith(".md"))
    assert elapsed < 120, f"parse + resolve took {elapsed:.1f}s"  # generous: a quadratic resolver takes far longer

    for measure, figure in figures.items():
        got = measures[measure]
        assert 0.7 * figure <= got <= 1.3 * figure, f"{measure}: {got} vs ~{figure}"

    note_targets = sorted(t for t in unresolved if _is_note_target(t))
    assert lo <= len(note_targets) <= hi, note_targets

    wrongly_dangling = [
        (t, src) for t, src in sorted(unresolved.items())
        if not _really_missing(t, src, lower_paths, lower_names)
    ]
    assert wrongly_dangling == []


def test_exists_agrees_with_resolve():
    from mdmem.text.resolve import Resolver

    paths = ["Dup.md", "folder/Dup.md", "a/b/Note.md", "img/pic.png", "Café.md", "x/v1.2 notes.md"]
    r = Resolver(paths)
    targets = ["Dup", "dup.md", "Note", "b/Note", "a/b/Note", "/Note", "./Dup", "../Dup", "pic.png", "Pic.PNG",
               "Cafe\u0301", "v1.2 notes", "missing", "folder/missing", "", " Note ", "img"]
    for source in ("", "folder/x.md", "a/b/c.md"):
        for target in targets:
            assert r.exists(target, source) == (r.resolve(target, source) is not None), (target, source)

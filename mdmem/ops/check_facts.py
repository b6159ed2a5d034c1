"""``check``'s findings about facts that supersede or expire (:mod:`mdmem.text.validity`).

Kinds: SUPERSEDES and VALID UNTIL (warning), SUPERSEDE? and EXPIRED (info), SUPERSEDED (warning, info
once the MEMORY.md line says so).

Everything is computed from the memory files the audit already holds and the vault's link resolution:
the near-duplicate pairs come from the one pass DUPLICATE makes (:func:`mdmem.text.similar.near_duplicates`,
candidate pairs from shared long lines, never all pairs), so this adds no reading and no pairwise work.
A declared pair (one supersedes the other) is not a DUPLICATE: keeping the old note beside the new one
is what superseding means.

Details and reasons: docs/decisions/053-check-audit.md
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from mdmem.base.layout import INDEX_NAME
from mdmem.base.models import Issue, Note
from mdmem.text.validity import supersedes, valid_until

if TYPE_CHECKING:
    from mdmem.text.resolve import Resolver


def declared(notes: list[Note], resolver: Resolver) -> dict[str, set[str]]:
    """new path -> the note paths its ``supersedes`` reaches (itself and non-notes left out)."""
    out: dict[str, set[str]] = {}
    for note in notes:
        for target in supersedes(note.frontmatter):
            path = resolver.resolve(target, note.path)
            if path is not None and path != note.path and path.lower().endswith(".md"):
                out.setdefault(note.path, set()).add(path)
    return out


def _line(note: Note, target: str) -> int | None:
    """The frontmatter line of the ``[[target]]`` link (None for a plain name: the cache keeps no key lines)."""
    return next((link.line for link in note.links if link.kind == "frontmatter" and link.target == target), None)


def issues(notes: list[Note], resolver: Resolver, pairs: list[tuple[str, str, str]], today: dt.date) -> list[Issue]:
    """SUPERSEDES, VALID UNTIL, SUPERSEDE? and EXPIRED for ``notes`` (the memory files checked one by one);
    ``pairs``: the near-duplicate pairs ``(a, b, why)`` of :func:`mdmem.text.similar.near_duplicates`."""
    found: list[Issue] = []
    edges = declared(notes, resolver)
    for note in notes:
        for target in supersedes(note.frontmatter):
            path = resolver.resolve(target, note.path)
            line = _line(note, target)
            if path == note.path:
                found.append(Issue("SUPERSEDES", note.path, f"supersedes itself ([[{target}]]): nothing is replaced",
                                   "point supersedes: at the note this one replaces, or remove it", "warning", line))
            elif path is None or not path.lower().endswith(".md"):
                found.append(Issue(
                    "SUPERSEDES", note.path, f"supersedes [[{target}]], which is no note in the vault: the note it "
                    "means to replace is still recalled", "fix the link (a file name or vault path, as Obsidian "
                    "resolves it), or remove it", "warning", line))
            elif _reaches(edges, path, note.path):
                found.append(Issue(
                    "SUPERSEDES", note.path, f"supersedes {path}, which supersedes it back (directly or through "
                    "others): every note of the cycle is left out of recall", "remove supersedes: from the older "
                    "of them", "warning", line))
        until, bad = valid_until(note.frontmatter)
        if bad is not None:
            found.append(Issue("VALID UNTIL", note.path, f"valid_until: {bad!r} is not a date (YYYY-MM-DD): the "
                               "note never expires", "write the last day it holds as YYYY-MM-DD, or remove it",
                               "warning"))
        elif until and until < today.isoformat():
            found.append(Issue("EXPIRED", note.path, f"valid until {until}: left out of recall, context and the "
                               "prompt hook", "archive it (mdmem forget), or move its valid_until", "info"))
    dates = {n.path: n.date or "" for n in notes}
    for a, b, why in pairs:
        if b in edges.get(a, ()) or a in edges.get(b, ()) or dates.get(a) == dates.get(b):
            continue
        new, old = (a, b) if dates.get(a, "") > dates.get(b, "") else (b, a)
        stem = old.rsplit("/", 1)[-1][:-3]
        stem = stem if resolver.resolve(stem, new) == old else old[:-3]
        found.append(Issue(
            "SUPERSEDE?", new, f"may supersede {old} ({dates[old]}; this note {dates[new]}): near-duplicates, {why}",
            f'if it replaces it, add supersedes: "[[{stem}]]" to its frontmatter (the old note stays, out of '
            "recall); else merge the two", "info"))
    return found


def index_issues(index: Note | None, notes: list[Note], resolver: Resolver, read) -> list[Issue]:
    """SUPERSEDED: each MEMORY.md line that links a note another memory file supersedes (``read``: a vault
    path's bytes, for the line's text)."""
    if index is None:
        return []
    by: dict[str, set[str]] = {}
    for new, olds in declared(notes, resolver).items():
        for old in olds:
            by.setdefault(old, set()).add(new)
    if not by:
        return []
    from mdmem.text.parse import decode

    lines = decode(read(index.path) or b"")[0].split("\n")
    found, seen = [], set()
    for link in index.links:
        listed = resolver.resolve(link.target, index.path) if link.target else None
        if listed is None or listed not in by or (listed, link.line) in seen:
            continue
        seen.add((listed, link.line))
        news = ", ".join(sorted(by[listed]))
        names = ", ".join(p.rsplit("/", 1)[-1] for p in sorted(by[listed]))
        text = lines[link.line - 1] if 0 < link.line <= len(lines) else ""
        if "(superseded by " in text:
            found.append(Issue("SUPERSEDED", INDEX_NAME, f"line {link.line}: {listed} is superseded by {news}; the line "
                               "says so, and still costs the always-loaded budget", "remove the line when nothing "
                               "needs the old fact (or archive the note: mdmem forget)", "info", link.line))
        else:
            found.append(Issue("SUPERSEDED", INDEX_NAME, f"line {link.line}: {listed} is superseded by {news}, but the "
                               "line lists it as current: an agent loads it as the truth", "remove the line, or add "
                               f"\"(superseded by {names})\" before its token count", "warning",
                               link.line))
    return found


def pairs_declared(notes: list[Note], resolver: Resolver) -> set[tuple[str, str]]:
    """The (a, b) pairs, sorted, where one note supersedes the other."""
    return {(min(new, old), max(new, old)) for new, olds in declared(notes, resolver).items() for old in olds}


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    """Does ``start`` supersede ``goal``, directly or along a chain?"""
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False

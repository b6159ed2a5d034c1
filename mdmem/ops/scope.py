"""What a reader is shown of a mixed vault: memory before the vault's other notes, and a session's project.

A vault may hold ``memory/`` beside a person's own notes (an Obsidian vault where ``mdmem init`` added the
layout). Memory notes are the ones under ``memory/``, the ones ``MEMORY.md`` lists, or, in a flat vault (no
``memory/``), every note: what the user or their agent chose to keep. Recall and the prompt hook rank them
first and call the others "notes from your vault", never the user's memory.

A memory carrying ``project: "[[name]]"`` belongs to that project (:mod:`mdmem.base.projects`); a reader with a
:class:`~mdmem.base.projects.Scope` sees the global notes and its project's. General notes (not memory) have
no project and are always seen.
"""

from __future__ import annotations

from mdmem.base.layout import INDEX_NAME, MEMORY_DIR
from mdmem.base.projects import Scope, note_project
from mdmem.base.vault import is_flat
from mdmem.engine.memory import Memory


def memory_paths(mem: Memory) -> frozenset[str]:
    """The vault paths of the memory notes (see the module's docstring); every note in a flat vault."""
    notes = sorted(mem.store.stats())  # the paths alone: parsing every cached note cost recall 2 s at 10k sessions
    if is_flat(mem.root):
        return frozenset(notes)
    out = {p for p in notes if p.startswith(MEMORY_DIR + "/") or p == INDEX_NAME}
    index = mem.store.get(INDEX_NAME)
    if index is not None:
        out |= {target for _, target in mem.resolved_links(index) if target}
    return frozenset(out)


def owner(mem: Memory, path: str) -> str | None:
    """The project the note at ``path`` belongs to (None: global, or not a note)."""
    note = mem.store.get(path)
    return note_project(note.frontmatter) if note is not None else None


def seen(mem: Memory, path: str, scope: Scope | None) -> bool:
    """Does a reader with ``scope`` see the note at ``path``? (None: every note.)"""
    return scope is None or scope.sees_name(owner(mem, path))


def from_other(mem: Memory, path: str, scope: Scope | None) -> str | None:
    """The project a shown note comes from when it is not the reader's own (``from project Q``), else None."""
    name = owner(mem, path)
    if name is None or scope is None or (scope.project is not None and Scope(scope.project).sees_name(name)):
        return None
    return name

"""Forgetting: archiving memory notes. Nothing is ever deleted: a note moves to ``memory/.archive/``
(hidden, so it leaves the index; same relative path) and its MEMORY.md lines go, atomically, under the
vault's lock, never over a file changed since read. Only memory notes can be forgotten (a root
``README.md`` is not one).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.errors import MdmemError, NoteNotFound, UsageError
from mdmem.base.layout import INDEX_NAME, MEMORY_DIR
from mdmem.ops.capture import _check_unchanged, _clean, _index_links, _resolver_for

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory


@dataclass(frozen=True)
class Forgotten:
    path: str
    archived_to: str
    index_lines: list[str]  # the MEMORY.md lines removed (or, in a dry run, to remove)


@dataclass(frozen=True)
class ForgetResult:
    query: str
    dry_run: bool
    notes: list[Forgotten]


class AmbiguousQuery(MdmemError):
    """The query matched several notes by search and ``--yes`` was not given."""

    def __init__(self, query: str, paths: list[str]):
        self.paths = paths
        super().__init__(
            f"{query!r} is no note's path, file name or title, and {len(paths)} notes match it by search:\n"
            + "".join(f"  {p}\n" for p in paths)
            + "name one of them, or pass --yes to forget them all"
        )


def forget(
    mem: Memory, query: str, dry_run: bool = False, yes: bool = False, limit: int = 20
) -> ForgetResult:
    """Move the notes QUERY names into ``memory/.archive/`` (same relative path)
    and remove their MEMORY.md lines. QUERY is a note (path, file name, title);
    failing that, the search matches, several of them only with ``yes``.
    Nothing is deleted; ``dry_run`` changes nothing."""
    try:
        paths = [mem.resolve_note(query)]
    except NoteNotFound:
        hits = mem.search(query, limit, mode="lexical").results  # what to archive: the words, never "near" notes
        paths = list(dict.fromkeys(hit.path for hit in hits if hit.path != INDEX_NAME))
        if not paths:
            raise NoteNotFound(f"no note matches {query!r} in {mem.root}") from None
        if len(paths) > 1 and not yes:
            raise AmbiguousQuery(query, paths) from None
    flat = not (mem.root / MEMORY_DIR).is_dir()  # Claude Code's flat memory folder: every note is a memory
    for rel in paths:
        if rel == INDEX_NAME or not rel.lower().endswith(".md") or (not flat and not rel.startswith(MEMORY_DIR + "/")):
            raise UsageError(f"refusing to forget {rel}: only memory notes (under {MEMORY_DIR}/) can be "
                             "archived; move or delete other files yourself")
    with fs.write_lock(mem.state_dir, mem.lock_timeout):
        _clean(mem.root, mem.state_dir)
        resolve = _resolver_for(mem)
        index_data, index_seen = fs.read_stat(mem.root, mem.root / INDEX_NAME)
        from mdmem.text.parse import decode

        index_text = decode(index_data)[0] if index_data is not None else ""
        links = _index_links(index_text, resolve) if index_data is not None else {}
        lines = index_text.splitlines()
        drop = {i for i, targets in links.items() if targets & set(paths)}
        plan = []
        for rel in paths:
            if not (mem.root / rel).is_file():
                raise NoteNotFound(f"{rel} is gone from disk; nothing was moved")
            target = fs.archive_target(mem.root, rel)
            removed = [lines[i] for i in sorted(drop) if rel in links[i]]
            plan.append(Forgotten(rel, target, removed))
        if dry_run:
            return ForgetResult(query, True, plan)
        if drop:
            _check_unchanged(mem.root / INDEX_NAME, index_seen)
        moved = []
        for item in plan:
            src, dst = mem.root / item.path, mem.root / item.archived_to
            dst.parent.mkdir(parents=True, exist_ok=True)
            if dst.exists():
                raise MdmemError(f"{item.archived_to} appeared meanwhile; nothing more was moved")
            os.rename(src, dst)
            moved.append(item)
        if drop:
            nl = "\r\n" if "\r\n" in index_text else "\n"
            bom = "\ufeff" if index_data and index_data.startswith(b"\xef\xbb\xbf") else ""
            kept = [ln for i, ln in enumerate(lines) if i not in drop]
            fs.write_atomic(mem.root / INDEX_NAME, (bom + nl.join(kept) + nl).encode("utf-8"),
                            expected=index_seen)
    mem.refresh()
    return ForgetResult(query, False, moved)

"""Forgetting and restoring: archiving memory notes and bringing them back. Nothing is ever deleted:
a note moves to ``memory/.archive/`` (hidden, so it leaves the index; same relative path) and its
MEMORY.md lines go, atomically, under the vault's lock, never over a file changed since read. Only
memory notes can be forgotten (a root ``README.md`` is not one).

Only a note *named* exactly is archived at once; a word's search matches need ``yes``. Each
forgotten note is logged in its archive's ``forgotten.jsonl`` so :func:`restore` puts it, and its
MEMORY.md lines, back; links are never rewritten. A flat vault archives into ``.archive/`` at its root.

Details and reasons: docs/decisions/059-names-edits-and-forgetting.md
"""

from __future__ import annotations

import datetime as dt
import json
import os
import posixpath
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.errors import AmbiguousNote, MdmemError, NoteArchived, NoteNotFound, UsageError
from mdmem.base.layout import ARCHIVE_DIR, ARCHIVE_DIRS, INDEX_NAME, MEMORY_DIR, archive_log, archive_of
from mdmem.base.state import write_lock
from mdmem.base.vault import is_flat
from mdmem.ops import guard
from mdmem.ops.capture import check_unchanged, clean
from mdmem.ops.index_lines import index_links, resolver_for

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory


@dataclass(frozen=True)
class Forgotten:
    path: str
    archived_to: str
    index_lines: list[str]  # the MEMORY.md lines removed (or, in a dry run, to remove)
    links: int = 0  # links in other notes that pointed at it: they now point at an archived note
    linked_from: list[str] = field(default_factory=list)  # the notes holding those links


@dataclass(frozen=True)
class ForgetResult:
    query: str
    dry_run: bool
    notes: list[Forgotten]
    by_search: bool = False  # the query named no note: these are its search matches (archived only with yes)


@dataclass(frozen=True)
class RestoreResult:
    archived: str  # where the note was, under memory/.archive/
    path: str  # where it is now (or, in a dry run, would be)
    dry_run: bool
    index_lines: list[str]  # the MEMORY.md lines put back (or to put back)
    links: int  # links in the vault that resolve to it
    linked_from: list[str]
    logged: bool  # its origin came from the archive's log (else from its archive path)


class NeedsConfirmation(UsageError):
    """The query named no note and only a search found notes to forget: not without ``yes``."""

    def __init__(self, query: str, paths: list[str]):
        self.query, self.paths = query, paths
        shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
        them = "it" if len(paths) == 1 else f"all {len(paths)}"
        super().__init__(
            f"{query!r} names no note (a path, file name, title or alias); search finds {shown}: name the note "
            f"to forget, or pass --yes to forget {them}; nothing was moved")


def _forgettable(rel: str, flat: bool) -> bool:
    return rel != INDEX_NAME and rel.lower().endswith(".md") and (flat or rel.startswith(MEMORY_DIR + "/"))


def matches(mem: Memory, query: str, limit: int = 20) -> tuple[list[str], bool]:
    """What ``query`` would forget: ``([path], False)`` for a note it names (as ``show`` resolves it),
    else its lexical search matches among the memory notes and ``True`` (never "near" notes: the words)."""
    try:
        return [mem.resolve_note(query)], False
    except (AmbiguousNote, NoteArchived):
        raise
    except NoteNotFound as e:
        flat = is_flat(mem.root)
        hits = mem.search(query, limit, mode="lexical").results
        paths = list(dict.fromkeys(h.path for h in hits if _forgettable(h.path, flat)))
        if not paths:
            raise NoteNotFound(str(e)) from None
        return paths, True


def _sections(lines: list[str]) -> list[str | None]:
    """For each line, the Markdown heading line it stands under (None before the first)."""
    out, current = [], None
    for line in lines:
        if re.match(r"#{1,6}\s", line):
            current = line.strip()
        out.append(current)
    return out


def _links_to(mem: Memory, path: str, skip: set[str]) -> tuple[int, list[str]]:
    """How many links in the vault point at ``path`` (from notes not in ``skip``, MEMORY.md aside) and from
    which notes: the link graph's backlinks (cached in ``.mdmem/``, so no note is read)."""
    graph = mem.graph()
    if path not in graph.g:
        return 0, []
    lines = [(s, n) for s, n in graph.backlink_lines(path) if s not in skip and s != INDEX_NAME and s != path]
    return len(lines), sorted({s for s, _ in lines})


def forget(
    mem: Memory, query: str, dry_run: bool = False, yes: bool = False, limit: int = 20,
    paths: list[str] | None = None, today: dt.date | None = None,
) -> ForgetResult:
    """Move the notes QUERY names into ``memory/.archive/`` (a flat vault: ``.archive/``; same relative path),
    remove their MEMORY.md
    lines and log where they came from. QUERY names a note (path, file name, title, alias); failing
    that, its search matches, archived only with ``yes`` (a dry run shows them without it). ``paths``:
    the notes to forget, as :func:`matches` found them (after a confirmation). Nothing is deleted;
    ``dry_run`` changes nothing."""
    by_search = False
    from mdmem.ops.move import settle

    settle(mem)
    if paths is None:
        paths, by_search = matches(mem, query, limit)
        if by_search and not yes and not dry_run:
            raise NeedsConfirmation(query, paths)
    flat = is_flat(mem.root)  # Claude Code's flat memory folder: every note is a memory
    for rel in paths:
        if not _forgettable(rel, flat):
            raise UsageError(f"refusing to forget {rel}: only memory notes (under {MEMORY_DIR}/) can be "
                             "archived; move or delete other files yourself")
    with write_lock(mem.state_dir, mem.lock_timeout):
        guard.real_folders(mem.root, INDEX_NAME)
        guard.real_folders(mem.root, archive_log(flat))
        clean(mem.root, mem.state_dir)
        resolve = resolver_for(mem)
        index_data, index_seen = fs.read_stat(mem.root, mem.root / INDEX_NAME)
        from mdmem.text.parse import decode

        index_text = decode(index_data)[0] if index_data is not None else ""
        links = index_links(index_text, resolve) if index_data is not None else {}
        lines = index_text.splitlines()
        headings = _sections(lines)
        drop = {i for i, targets in links.items() if targets & set(paths)}
        plan, log = [], []
        for rel in paths:
            if not (mem.root / rel).is_file():
                raise NoteNotFound(f"{rel} is gone from disk; nothing was moved")
            guard.real_folders(mem.root, rel)
            target = fs.archive_target(mem.root, rel, flat)
            guard.real_folders(mem.root, target)  # a symlinked archive folder moved the note out of the vault
            removed = [i for i in sorted(drop) if rel in links[i]]
            count, sources = _links_to(mem, rel, set(paths))
            plan.append(Forgotten(rel, target, [lines[i] for i in removed], count, sources))
            log.append({"archived": target, "from": rel, "date": (today or dt.date.today()).isoformat(),
                        "index_lines": [{"line": lines[i], "section": headings[i]} for i in removed]})
        if dry_run:
            return ForgetResult(query, True, plan, by_search)
        if drop:
            check_unchanged(mem.root / INDEX_NAME, index_seen)
        log_data, log_seen = fs.read_stat(mem.root, archive_log(flat))
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
        entries = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in log)
        fs.write_atomic(mem.root / archive_log(flat), _appended(log_data, entries), expected=log_seen)
    mem.refresh()
    return ForgetResult(query, False, moved, by_search)


def _appended(data: bytes | None, text: str) -> bytes:
    old = data or b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    return old + text.encode("utf-8")


# ----------------------------------------------------------------------------- restore


def _key(text: str) -> str:
    return unicodedata.normalize("NFC", text.strip()).casefold()


def _log(mem: Memory) -> dict[str, dict]:
    """The archives' logs: archived path -> its newest entry (a damaged line is skipped, never fatal)."""
    data = b""
    for log in (archive_log(False), archive_log(True)):
        try:
            data += fs.read_bytes(mem.root, log) + b"\n"
        except FileNotFoundError:
            continue
    out: dict[str, dict] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("archived"), str) and isinstance(entry.get("from"), str):
            out[entry["archived"]] = entry
    return out


def archived_notes(mem: Memory) -> list[str]:
    """Every archived note (vault paths under ``memory/.archive/`` or a flat vault's ``.archive/``), by the
    one walker."""
    out = []
    for folder in ARCHIVE_DIRS:
        try:
            fs.inside(mem.root, folder)
        except OSError:
            continue
        if (mem.root / folder).is_dir():
            out += [f"{folder}/{rel}" for rel in fs.scan(mem.root / folder).notes]
    return sorted(out)


def _origin(mem: Memory, archived: str, log: dict[str, dict]) -> tuple[str, bool]:
    """Where an archived note came from, and whether the log said so."""
    entry = log.get(archived)
    if entry and not posixpath.isabs(entry["from"]) and ".." not in entry["from"].split("/"):
        return entry["from"], True
    folder = archive_of(archived) or ARCHIVE_DIR
    inner = archived[len(folder) + 1:]
    return (f"{MEMORY_DIR}/{inner}" if folder == ARCHIVE_DIR and not is_flat(mem.root) else inner), False


def find_archived(mem: Memory, ref: str) -> str:
    """An archived note from NOTE: its path (``memory/.archive/people/x.md``, or its path inside the
    archive ``people/x``), the path it was forgotten from, its file name, else its title, ``name:`` or
    an alias. Several: :class:`AmbiguousNote`; none: :class:`NoteNotFound`."""
    notes = archived_notes(mem)
    log = _log(mem)
    text = ref.strip().replace("\\", "/")
    if os.path.isabs(text):
        try:
            text = os.path.relpath(os.path.realpath(text), os.path.realpath(mem.root))
        except ValueError:
            pass
    want = _key(text.lstrip("/").removeprefix("./"))
    want_md = want if want.endswith(".md") else want + ".md"
    keys = {p: _key(p) for p in notes}
    origins = {p: _key(_origin(mem, p, log)[0]) for p in notes}
    tiers = (
        [p for p in notes if keys[p] == want_md],  # its archive path
        [p for p in notes if origins[p] == want_md],  # where it was
        [p for p in notes if keys[p].endswith("/" + want_md)  # a path inside the archive, its file name
         or origins[p].rsplit("/", 1)[-1] == want_md],  # or the file name it had (``x-2.md`` was ``x.md``)
    )
    for found in tiers:
        if len(found) == 1:
            return found[0]
        if found:
            raise AmbiguousNote(f"{ref!r} names {len(found)} archived notes: {', '.join(found)}; give its path",
                                found)
    from mdmem.text.parse import parse_note

    wanted = " ".join(want.split())
    named = []
    for p in notes:
        try:
            note = parse_note(p, fs.read_bytes(mem.root, p))
        except OSError:
            continue
        names = [note.frontmatter.get("title"), note.frontmatter.get("name"), *note.aliases]
        if any(isinstance(n, str) and " ".join(_key(n).split()) == wanted for n in names):
            named.append(p)
    if len(named) == 1:
        return named[0]
    if named:
        raise AmbiguousNote(f"{ref!r} names {len(named)} archived notes: {', '.join(named)}; give its path", named)
    try:
        path = mem.resolve_note(ref)
    except NoteNotFound:
        path = None
    if path is not None:
        raise NoteNotFound(f"{path} is not archived: it is in the vault")
    shown = ", ".join(notes[:5]) + (f" and {len(notes) - 5} more" if len(notes) > 5 else "")
    raise NoteNotFound(f"no archived note matches {ref!r}" + (f" (archived: {shown})" if notes else
                                                               " (nothing is archived)"))


def _put_back(text: str, items: list[dict]) -> tuple[str, list[str]]:
    """MEMORY.md's text with the lines of ``items`` ({line, section}) back under their headings (at the
    end of the section; a heading gone is added again at the end); a line already there is left."""
    lines = text.splitlines()
    present = {ln.strip() for ln in lines}
    added = []
    for item in items:
        line, section = item.get("line"), item.get("section")
        if not isinstance(line, str) or not line.strip() or line.strip() in present:
            continue
        start = next((i for i, ln in enumerate(lines) if isinstance(section, str) and ln.strip() == section), None)
        if start is None:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += (["", section] if isinstance(section, str) and section.strip() else []) + [line]
        else:
            end = next((i for i in range(start + 1, len(lines)) if re.match(r"#{1,6}\s", lines[i])), len(lines))
            at = end
            while at > start + 1 and not lines[at - 1].strip():
                at -= 1
            lines.insert(at, line)
        present.add(line.strip())
        added.append(line)
    return "\n".join(lines), added


def restore(mem: Memory, ref: str, dry_run: bool = False) -> RestoreResult:
    """Bring an archived note back to where it was forgotten from, with the MEMORY.md lines forgetting
    removed (under their headings again; a line already there is not doubled). Refuses when a note now
    exists at that path (nothing is moved): move that one away first, or move the archived one by hand."""
    from mdmem.ops.move import settle

    settle(mem)
    archived = find_archived(mem, ref)
    target, logged = _origin(mem, archived, _log(mem))
    if target == INDEX_NAME or not target.lower().endswith(".md") or any(
            part.startswith(".") for part in target.split("/")):
        raise UsageError(f"refusing to restore {archived} to {target}: not a note's place")
    guard.name(target, "path to restore to")
    fs.inside(mem.root, posixpath.dirname(target) or ".")
    entry = _log(mem).get(archived) if logged else None
    items = [i for i in (entry or {}).get("index_lines", []) if isinstance(i, dict)]
    with write_lock(mem.state_dir, mem.lock_timeout):
        for rel in (archived, target, INDEX_NAME):
            guard.real_folders(mem.root, rel)
        if os.path.lexists(mem.root / target):
            raise MdmemError(f"{target} exists: a note is there now, so {archived} was not restored over it; "
                             f"move that note away (mdmem move), then restore again")
        index_data, index_seen = fs.read_stat(mem.root, INDEX_NAME)
        from mdmem.text.parse import decode

        index_text = decode(index_data)[0] if index_data is not None else "# Memory index\n"
        new_text, added = _put_back(index_text, items)
        if dry_run:
            return RestoreResult(archived, target, True, added, 0, [], logged)
        fs.move_new(mem.root, archived, target, "restored")
        if added:
            nl = "\r\n" if "\r\n" in index_text else "\n"
            bom = "\ufeff" if index_data and index_data.startswith(b"\xef\xbb\xbf") else ""
            fs.write_atomic(mem.root / INDEX_NAME, (bom + new_text.replace("\n", nl) + nl).encode("utf-8"),
                            expected=index_seen)
    mem.refresh()
    count, sources = _links_to(mem, target, set())
    return RestoreResult(archived, target, False, added, count, sources, logged)

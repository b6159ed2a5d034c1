"""MEMORY.md's lines: which notes a line links (parsed, as Obsidian resolves them), a new note's line added under
its section, and the lines of superseded notes marked. Every write keeps the file's other bytes (its BOM, its line
ends) and never lands on a MEMORY.md changed since it was read."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.layout import INDEX_NAME

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory

_SECTION = re.compile(r"^##\s+(.*?)\s*#*\s*$")


def index_links(text: str, resolve) -> dict[int, set[str]]:
    """0-based line number -> the vault paths the line's links resolve to (parsed, not substrings)."""
    from mdmem.text.parse import parse_note

    note = parse_note(INDEX_NAME, text.encode("utf-8"))
    found: dict[int, set[str]] = {}
    for link in note.links:
        target = resolve(link.target)
        if target:
            found.setdefault(link.line - 1, set()).add(target)
    return found


def resolver_for(mem: Memory, extra: str | None = None):
    """Resolve a MEMORY.md link target to a vault path (``extra``: a note just written)."""
    from mdmem.text.resolve import Resolver

    scan = fs.scan(mem.root)
    paths = [*scan.notes, *scan.broken, *scan.files]
    if extra and extra not in scan.notes:
        paths.append(extra)
    resolver = Resolver(paths)
    return lambda target: resolver.resolve(target, INDEX_NAME) if target else None


def add_line(mem: Memory, rel: str, line: str, section: str,
             snapshot: tuple[bytes | None, tuple[int, int] | None] | None = None) -> bool:
    """Add ``line`` to MEMORY.md under ``## section``; False when a line already links to ``rel``."""
    path = mem.root / INDEX_NAME
    data, seen = snapshot if snapshot is not None else fs.read_stat(mem.root, path)
    if data is None:
        fs.write_atomic(path, f"# Memory index\n\n## {section}\n{line}\n".encode())
        return True
    from mdmem.text.parse import decode

    text = decode(data)[0]
    bom = "\ufeff" if data.startswith(b"\xef\xbb\xbf") else ""
    resolve = resolver_for(mem, rel)
    if any(rel in targets for targets in index_links(text, resolve).values()):
        return False
    nl = "\r\n" if b"\r\n" in data else "\n"  # (decode made every line end in LF: the file's own ends are kept)
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines)
                  if (m := _SECTION.match(ln)) and m.group(1).strip().lower() == section.lower()), None)
    if start is None:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += ["", f"## {section}", line]
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
        at = end
        while at > start + 1 and not lines[at - 1].strip():
            at -= 1
        lines.insert(at, line)
    fs.write_atomic(path, (bom + nl.join(lines) + nl).encode("utf-8"), expected=seen)
    return True


SUPERSEDED_MARK = "(superseded by {})"  # put before a MEMORY.md line's `~NNtk` (``{}``: the new note's file name)
_TOKENS_END = re.compile(r"(\s`~\d+tk`)\s*$")


def mark_superseded(mem: Memory, olds: list[str], new: str) -> list[str]:
    """Mark the MEMORY.md lines of the notes ``new`` supersedes: ``- [old.md](path) — what it said (superseded
    by new.md) `~97tk```, the line format kept (the mark goes into the description, before the token count).
    The new note is named as plain text, never a link: a MEMORY.md line links only its own note, so that
    what finds a note's line by its links (``save`` skipping a note already listed, ``forget`` taking its
    lines out, ``check``'s ORPHAN) never takes the old note's line for the new one's. Only lines whose links
    resolve to an old note and that are not marked yet change; every other byte is kept. Under the write lock
    the caller holds, never over a MEMORY.md changed since it was read (then nothing is marked and ``check``
    reports the line). Returns the old notes whose line was marked."""
    from mdmem.base.errors import WriteConflict
    from mdmem.text.parse import decode

    path = mem.root / INDEX_NAME
    data, seen = fs.read_stat(mem.root, INDEX_NAME)
    if data is None:
        return []
    bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
    try:  # the lines as they are on disk (CRLF kept); a MEMORY.md that is not UTF-8 is left to check
        raw = data[len(bom):].decode("utf-8")
    except UnicodeDecodeError:
        return []
    if "\r" in raw.replace("\r\n", ""):  # a lone CR would number lines otherwise than the parser
        return []
    mark = SUPERSEDED_MARK.format(new.rsplit("/", 1)[-1])
    lines = raw.split("\n")
    marked: list[str] = []
    for number, targets in sorted(index_links(decode(data)[0], resolver_for(mem, new)).items()):
        hit = [p for p in olds if p in targets]
        if not hit or number >= len(lines) or "(superseded by " in lines[number]:
            continue
        body = lines[number].removesuffix("\r")
        end = lines[number][len(body):]
        m = _TOKENS_END.search(body)
        lines[number] = (body[:m.start()] + " " + mark + body[m.start():] if m else body + " " + mark) + end
        marked += [p for p in hit if p not in marked]
    if not marked:
        return []
    try:
        fs.write_atomic(path, bom + "\n".join(lines).encode("utf-8"), expected=seen)
    except WriteConflict:
        return []
    return marked


# ----------------------------------------------------------------------------- dedupe and warnings

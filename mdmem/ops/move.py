"""Moving a note: rename it and rewrite every link to it the way Obsidian's "Automatically update internal
links" does, in the style each link had; crash-safe through the move journal (:mod:`mdmem.ops.journal`),
which :func:`resume` (``mdmem move --resume``) and :func:`settle` (every write, first) finish.

Every write is atomic, under the vault's lock, never over a file changed since it was read.

Details and reasons: docs/decisions/059-names-edits-and-forgetting.md, docs/decisions/016-move-journal.md
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.errors import MdmemError, UsageError, WriteConflict
from mdmem.base.files import version
from mdmem.base.layout import INDEX_NAME, nfc
from mdmem.base.state import write_lock
from mdmem.base.terminal import visible
from mdmem.ops import guard, journal
from mdmem.text.parse import Rewritable
from mdmem.text.resolve import name_key

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory


@dataclass(frozen=True)
class Rewritten:
    path: str            # the note whose links changed (its new path, for the moved note)
    links: int
    lines: list[int]     # the lines changed (1-based)


@dataclass(frozen=True)
class MoveResult:
    source: str
    target: str
    dry_run: bool
    rewritten: list[Rewritten]
    links: int           # link occurrences rewritten in all
    skipped: list[str] = field(default_factory=list)  # notes that could not be rewritten, and why


def _target_path(mem: Memory, source: str, new: str) -> str:
    text = new.strip().replace("\\", "/")
    if not text:
        raise UsageError("where to? give a new name or a vault path")
    if text.startswith("/"):
        text = text.lstrip("/")
    folder = posixpath.dirname(source)
    if text.endswith("/"):
        rel = posixpath.join(text.rstrip("/"), posixpath.basename(source))
    elif "/" in text:
        rel = text
    else:
        rel = posixpath.join(folder, text) if folder else text
    if not rel.lower().endswith(".md"):
        rel += ".md"
    rel = posixpath.normpath(rel)
    if rel.startswith("../") or rel == ".." or any(p.startswith(".") for p in rel.split("/")):
        raise UsageError(f"refusing {new!r}: the note would leave the vault or hide in a dot folder")
    return rel


def _mask_code(line: str) -> str:
    """The line with inline code spans blanked (same length), so links inside code are not rewritten."""
    return re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def _new_wikilink(raw: str, target: str) -> str:
    embed = raw.startswith("!")
    inner = raw[(3 if embed else 2):-2]
    pipe = re.search(r"\\?\|", inner)
    left, right = (inner[:pipe.start()], inner[pipe.start():]) if pipe else (inner, "")
    cut = left.find("#")
    sub = left[cut:] if cut >= 0 else ""
    return ("!" if embed else "") + "[[" + target + sub + right + "]]"


def _new_markdown(raw: str, url_path: str, display: str | None) -> str:
    close = raw.rfind("](")
    head, after = raw[: close + 2], raw[close + 2:-1]
    if display is not None:
        start = 2 if raw.startswith("!") else 1
        head = head[:start] + display + "]("
    rest = after.lstrip()
    lead = after[: len(after) - len(rest)]
    if rest.startswith("<"):
        end = rest.find(">")
        url, tail, bracket = rest[1:end], rest[end + 1:], True
    else:
        m = re.match(r"\S+", rest)
        url, tail, bracket = (m.group(), rest[m.end():], False) if m else ("", rest, False)
    _, sep, frag = url.partition("#")
    if bracket:
        new = "<" + url_path + sep + frag + ">"
    else:
        from urllib.parse import quote

        encoded = quote(url_path, safe="/") if "%" in url.partition("#")[0] else url_path.replace(" ", "%20")
        new = encoded + sep + frag
    return head + lead + new + tail + ")"


def _markdown_path(link_target: str, expected: str, source_folder: str, was: str = "") -> str:
    """The new path of a Markdown link in the link's own form: ``/``-rooted, a vault path (Obsidian's
    "absolute" form, written without the ``/``) or relative to the linking note."""
    if link_target.startswith("/"):
        return "/" + expected
    if source_folder and nfc(link_target).casefold() in (nfc(was).casefold(), nfc(was[:-3]).casefold()):
        return expected  # written as the vault path: it stays one
    rel = posixpath.relpath(expected, source_folder or ".")
    if link_target.startswith("./") and not rel.startswith("../"):
        rel = "./" + rel
    return rel


def _wiki_target(link_target: str, expected: str, note: str, resolve) -> str:
    """The shortest spelling of ``expected`` in the link's style that resolves to it from ``note``."""
    keep_md = link_target.lower().endswith(".md")
    stem = nfc(expected if keep_md else expected[:-3])  # link text is NFC; it resolves to an NFD name alike
    bare = posixpath.basename(stem)
    options = ([bare] if "/" not in link_target else []) + [stem, "/" + stem]
    for option in options:
        if resolve(option, note) == expected:
            return option
    return "/" + stem


def _plan(mem: Memory, source: str, target: str):
    """(note's old path, its new path, its bytes, its stat, its new bytes, lines changed, links) for every
    note whose links the move changes."""
    from mdmem.text.parse import parse_note
    from mdmem.text.resolve import Resolver

    scan = mem.scan
    before_paths = [*scan.notes, *scan.broken, *scan.files]
    after_paths = [target if p == source else p for p in before_paths]
    old, new = Resolver(before_paths), Resolver(after_paths)
    names = {name_key(source), name_key(target)}
    moved = lambda p: target if p == source else p  # noqa: E731
    candidates = sorted(n.path for n in mem.notes()
                        if n.path == source or any(name_key(k.target) in names for k in n.links if k.target))
    out = []
    for path in candidates:
        data, seen = fs.read_stat(mem.root, path)
        if data is None:
            continue
        note = parse_note(path, data)
        here = moved(path)
        changes = []
        for link in note.links:
            if not link.target:
                continue
            was = old.resolve(link.target, path)
            if was is None:
                continue
            want = moved(was)
            display = None
            if path == INDEX_NAME and link.kind == "markdown" and link.display == posixpath.basename(source) \
                    and was == source:
                display = posixpath.basename(target)
            if new.resolve(link.target, here) == want and display is None:
                continue
            if link.kind == "markdown":
                spelled = _markdown_path(link.target, want, posixpath.dirname(here), was)
                raw = _new_markdown(link.raw, spelled, display)
            else:
                raw = _new_wikilink(link.raw, _wiki_target(link.target, want, here, new.resolve))
            if raw != link.raw:
                changes.append((link.line, link.raw, raw))
        if changes or path == source:
            out.append((path, here, data, seen, changes))
    return out


def _apply(data: bytes, changes: list[tuple[int, str, str]]) -> tuple[bytes, list[int], int, list[str]]:
    """Rewrite each (line, old raw, new raw) in the note's text; returns the new bytes, the lines changed,
    how many links were rewritten and the ones not found as written on their line (a link spanning lines)."""
    doc = Rewritable(data)
    lines = doc.text.split("\n")
    done, count, missed = set(), 0, []
    by_line: dict[int, list[tuple[str, str]]] = {}
    for line, old, new in changes:
        by_line.setdefault(line, []).append((old, new))
    for number, pairs in by_line.items():
        i = number - 1
        if not 0 <= i < len(lines):
            continue
        text = lines[i]
        for old, new in pairs:
            masked = _mask_code(text)
            at = masked.find(old)
            if at < 0 and old.startswith(("[[", "![[")) and "|" in old:
                # in a table the parser sees `[[a|b]]` where the file says `[[a\|b]]`
                old, new = old.replace("|", "\\|", 1), new.replace("|", "\\|", 1)
                at = masked.find(old)
            if at < 0:
                missed.append(f"line {number}: {old}")
                continue
            text = text[:at] + new + text[at + len(old):]
            count += 1
            done.add(number)
        lines[i] = text
    return doc.encode("\n".join(lines)), sorted(done), count, missed


def move(mem: Memory, ref: str, new: str, dry_run: bool = False, allow_secret: bool = False) -> MoveResult:
    """Rename or move a note and rewrite every link to it (see the module's docstring). Through the write guard:
    the new name holds no control character nor a secret (unless ``allow_secret``), the move and every rewrite
    go through real folders only, and a linking note not read whole is left alone (and named). Crash-safe: the
    journal (:mod:`mdmem.ops.journal`) is written before the first change, so a killed move is finished by the
    next write (:func:`resume`)."""
    guard.name(new, "new name")
    if not allow_secret:
        guard.refuse_secrets(new, "new name")
    settle(mem)
    source = mem.resolve_note(ref)
    if source == INDEX_NAME:
        raise UsageError("MEMORY.md is the index agents load: it stays where it is")
    target = _target_path(mem, source, new)
    if target == source:
        raise UsageError(f"{source} is already there")
    with write_lock(mem.state_dir, mem.lock_timeout):
        if os.path.lexists(mem.root / target) and os.path.normcase(str(mem.root / target)) != \
                os.path.normcase(str(mem.root / source)):
            raise MdmemError(f"{target} exists already; nothing was moved")
        there = mem.scan.on_disk(target)
        if there not in (None, source, target):  # would make NFC/NFD twins (check's NAME TWINS)
            raise MdmemError(f"{there} exists already (the same name in another Unicode form); nothing was moved")
        fs.inside(mem.root, posixpath.dirname(target) or ".")
        guard.real_folders(mem.root, source)
        guard.real_folders(mem.root, target)
        plan = _plan(mem, source, target)
        rewritten: list[Rewritten] = []
        skipped: list[str] = []
        total = 0
        results = []
        moved_version = None
        for path, here, data, seen, changes in plan:
            if path == source:
                moved_version = version(data)
            try:
                guard.whole(path, data, seen)
                guard.real_folders(mem.root, path)
                new_data, lines, count, missed = _apply(data, changes) if changes else (data, [], 0, [])
            except MdmemError as e:
                if path == source:
                    raise
                skipped.append(f"{path}: {e}")
                continue
            skipped += [f"{path}: {m} (not found as written; rewrite it by hand)" for m in missed]
            results.append((path, here, new_data, seen, lines, count, data, changes))
        if not dry_run:
            if moved_version is None:
                data, _ = fs.read_stat(mem.root, source)
                moved_version = version(data or b"")
            journal.record(mem, journal.Journal(source, target, moved_version, [
                journal.Rewrite(path, here, version(data), version(new_data), changes)
                for path, here, new_data, _seen, _lines, count, data, changes in results if count]))
            fs.move_new(mem.root, source, target, "moved")
        for _path, here, new_data, seen, lines, count, _data, _changes in results:
            if count == 0:
                continue
            if not dry_run:
                try:
                    fs.write_atomic(mem.root / here, new_data, expected=seen)
                except WriteConflict:
                    skipped.append(f"{here}: changed on disk meanwhile; its links were not rewritten")
                    continue
            rewritten.append(Rewritten(here, count, lines))
            total += count
        if not dry_run:
            journal.clear(mem)
    if not dry_run:
        mem.refresh()
    return MoveResult(source, target, dry_run, rewritten, total, skipped)


def settle(mem: Memory) -> None:
    """Finish a ``move`` a killed process left unfinished (:mod:`mdmem.ops.journal`) before another write plans
    on the vault: what every write calls first. One ``lstat`` when there is none."""
    if journal.pending(mem):
        resume(mem)


def resume(mem: Memory) -> MoveResult | None:
    """Finish the move a killed process left unfinished, from its journal: the note is moved when it is still
    at its old path as it was read; each linking note still as it was read gets its rewrites, one rewritten
    already is counted, one changed since by someone else is left alone and named in ``skipped``. None when
    there was nothing to finish."""
    with write_lock(mem.state_dir, mem.lock_timeout):
        plan = journal.load(mem)
        if plan is None:
            return None
        rewritten: list[Rewritten] = []
        skipped: list[str] = []
        total = 0
        try:
            for rel in (plan.source, plan.target, *(r.here for r in plan.rewrites)):
                try:
                    if rel.startswith("/") or not rel.lower().endswith(".md"):
                        raise OSError
                    fs.inside(mem.root, posixpath.dirname(rel) or ".")
                except (OSError, ValueError):
                    raise UsageError(f"the move journal names {visible(rel, False)!r}, not a note's path in the "
                                     "vault; it was set aside, nothing was done") from None
                guard.real_folders(mem.root, rel)
            if not os.path.lexists(mem.root / plan.target):
                data, _ = fs.read_stat(mem.root, plan.source)
                if data is None or version(data) != plan.version:
                    journal.clear(mem)
                    raise MdmemError(f"the interrupted move of {plan.source} to {plan.target} cannot be finished: "
                                     f"{plan.source} changed or is gone since; nothing more was done")
                fs.move_new(mem.root, plan.source, plan.target, "moved")
            for r in plan.rewrites:
                data, seen = fs.read_stat(mem.root, r.here)
                now = version(data) if data is not None else None
                if now == r.after:
                    done = len(r.changes)
                elif now == r.before and data is not None:
                    new_data, _lines, done, _missed = _apply(data, r.changes)
                    if version(new_data) != r.after:
                        skipped.append(f"{r.here}: its links could not be rewritten again; rewrite them by hand")
                        continue
                    try:
                        fs.write_atomic(mem.root / r.here, new_data, expected=seen)
                    except WriteConflict:
                        skipped.append(f"{r.here}: changed on disk meanwhile; its links were not rewritten")
                        continue
                else:
                    skipped.append(f"{r.here}: changed on disk since the move began; its links were not rewritten")
                    continue
                rewritten.append(Rewritten(r.here, done, sorted({c[0] for c in r.changes})))
                total += done
        except MdmemError:
            journal.set_aside(mem)  # never obeyed in part again: the error says what is left to do
            raise
        journal.clear(mem)
    mem.refresh()
    return MoveResult(plan.source, plan.target, False, rewritten, total, skipped)

"""The refresh protocol: bring a vault's derived state (the notes cache, the Whoosh index, the vectors) up to date
with its files. :meth:`mdmem.engine.memory.Memory.refresh` and ``notes_current`` are its front door.

What makes ``kill -9`` and concurrent processes safe:

1. ``stat`` every note (``vault.scan``) and compare with the notes cache.
2. Nothing changed and the index is healthy: done, no lock taken.
3. Otherwise take the single-writer lock (re-scanning if another writer held
   it), parse only what changed, commit the Whoosh index first and the notes
   cache second. A crash between the two leaves the cache behind the index;
   the next run re-applies the same updates, which are idempotent.
4. A full build clears the cache and marks the index unfinished before it
   starts and marks it finished after both commits, so an interrupted build is
   redone by the next command rather than trusted.
"""

from __future__ import annotations

import errno
import functools
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmem.base import files as fs
from mdmem.base.errors import LockTimeout
from mdmem.base.models import Note, Problem
from mdmem.base.state import write_lock
from mdmem.engine.bodies import Look, front_digest
from mdmem.engine.store import CacheDamaged, Diff, Store, body_digest, no_room
from mdmem.text.parse import parse_note, problem_note, split_note

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory

INDEX_BEHIND = "index_behind"  # notes cache meta: the generation the search index lags from ("" or none: in step)
READ_WAIT = 1.0  # seconds a read command waits for another writer before answering as is
PARALLEL_PARSE_MIN = 300  # an update parses in a process pool from this many changed notes


@dataclass(frozen=True)
class RefreshResult:
    notes: int
    added: int
    changed: int
    removed: int
    seconds: float
    rebuilt: bool = False
    stale: bool = False  # the index could not be brought up to date: results may be behind the files
    why: str = ""  # why it is stale: "busy" (another writer held the lock) or "no room" (the disk said no)
    stages: dict[str, float] = field(default_factory=dict)
    vectors: Any = None  # semantic.SyncResult when the vectors were brought up to date too
    # a notes-only refresh (``index=False``): the notes it parsed again, and of them with the added and removed, those
    # whose head moved (:meth:`mdmem.engine.store.Store.heads_moved`: what lists of notes show); None: not looked at
    changed_paths: tuple[str, ...] | None = None
    moved: tuple[str, ...] | None = None


def load_note(root: Path, rel: str) -> Note:
    """Read and parse one note; an unreadable file becomes a note with a problem."""
    try:  # within the vault's bounds: a regular file inside the root, at most MAX_READ bytes
        fd = fs.open_regular(fs.inside(root, rel))
        try:
            # stat before reading: an edit during the read leaves a newer mtime
            # on disk than the one recorded, so the next refresh parses again
            st = os.fstat(fd)
            data = fs.read_fd(fd, fs.MAX_READ)
        finally:
            os.close(fd)
    except fs.OutsideVault:
        return problem_note(rel, Problem("outside_vault", "leads outside the vault; not read"))
    except OSError as e:
        code = "symlink_loop" if e.errno == errno.ELOOP else "unreadable"
        return problem_note(rel, Problem(code, f"cannot read: {e.strerror}"))
    if fs.binary(data):  # kept (with its stat, so it is not read again) but empty: never parsed, indexed, counted
        return replace(problem_note(rel, Problem(fs.NOT_TEXT, f"NUL bytes in its first {fs.TEXT_PROBE} bytes: a binary "
                                                 "file, not a note"), st.st_mtime_ns, st.st_size), tokens=0,
                       ctime_ns=st.st_ctime_ns)
    try:
        note = parse_note(rel, data, st.st_mtime_ns)
        front, body = split_note(data)
        digest, front = body_digest(body), front_digest(front, len(data))
    except Exception as e:  # a parser bug must cost one note, never the refresh
        note = problem_note(rel, Problem("parse_error", f"{type(e).__name__}: {e}"), st.st_mtime_ns, len(data))
        digest = front = ""
    # the change stamp the cache compares (files.scan), the digests of its body and frontmatter as read
    return replace(note, ctime_ns=st.st_ctime_ns, digest=digest, front=front)


def _load_many(root: Path, paths: list[str], procs: int) -> Iterator[Note]:
    if procs < 2 or len(paths) < PARALLEL_PARSE_MIN:
        for rel in paths:
            yield load_note(root, rel)
        return
    import multiprocessing as mp

    ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
    with ctx.Pool(procs) as pool:
        yield from pool.imap(functools.partial(load_note, root), paths, chunksize=32)


def _load_for_build(root: Path, broken: dict[str, Note], rel: str) -> Note:
    return broken.get(rel) or load_note(root, rel)


def refresh(mem: Memory, rebuild: bool, progress: Callable[[int, int], None] | None, strict: bool, semantic: bool,
            no_room_ok: bool, scan: fs.Scan | None, index: bool, known: Look | None) -> RefreshResult:
    """:meth:`mdmem.engine.memory.Memory.refresh` (its docstring says what each argument does)."""
    try:
        try:
            if not index and not rebuild and mem.store.get_meta("index_ok") == "1":
                return _refresh_notes(mem, strict, scan, known if scan is not None else None)
            return _refresh(mem, rebuild, progress, strict, semantic, scan)
        except CacheDamaged:
            mem.store.reset()
            return _refresh(mem, True, progress, strict, semantic)
    except Exception as e:
        if strict or not no_room_ok or not no_room(e) or not _healthy(mem):
            raise
        mem.index.refresh()
        scan = mem.scan
        return RefreshResult(len(scan.notes) + len(scan.broken), 0, 0, 0, 0.0, stale=True, why="no room")


def notes_current(mem: Memory, scan: fs.Scan | None = None) -> bool:
    """:meth:`mdmem.engine.memory.Memory.notes_current`: the notes cache's scan digest against a walk."""
    walked = mem._set_scan(scan or fs.scan(mem.root))
    return mem.store.get_meta("scan_digest") == fs.digest(walked)


def _healthy(mem: Memory) -> bool:
    from mdmem.engine.index import INDEX_VERSION

    return (
        mem.store.get_meta("index_ok") == "1"
        and mem.store.get_meta("index_version") == INDEX_VERSION
        and mem.index.exists()
    )


def _vectors_wanted(mem: Memory, asked: bool) -> bool:
    from mdmem.engine import vectors as sem
    from mdmem.engine.embed import missing, require

    if not (asked or sem.enabled(mem)):
        return False
    name = mem.settings.semantic.model
    if missing(name):
        if asked:
            require(name)
        return False  # vectors exist, the extra is gone: keep them, answer lexically
    return True


def _vectors_behind(mem: Memory) -> bool:
    from mdmem.engine.embed import IDS
    from mdmem.engine.vectors import Vectors

    v = Vectors.load(mem)
    epoch, gen, _ = mem.store.state()
    return v is None or (v.epoch, v.gen) != (epoch, gen) or v.model != IDS[mem.settings.semantic.model]


def _refresh_notes(mem: Memory, strict: bool, walked: fs.Scan | None, known: Look | None = None) -> RefreshResult:
    """``refresh(index=False)``: the changed notes parsed into the notes cache only; the search index's lag
    recorded (:data:`INDEX_BEHIND`: the cache's generation the index was last in step with)."""
    t0 = time.perf_counter()
    scan = mem._set_scan(walked or fs.scan(mem.root))
    if known is not None and list(mem.store.state()[:2]) == known.state:
        diff = Diff(known.added, known.changed, known.removed)
    else:
        diff = mem.store.diff(scan)
    if not diff:
        return RefreshResult(len(scan.notes) + len(scan.broken), 0, 0, 0, _since(t0), changed_paths=(), moved=())
    wait = mem.lock_timeout if strict else min(mem.lock_timeout, READ_WAIT)
    try:
        with write_lock(mem.state_dir, wait) as immediate:
            if not immediate:  # another writer went first: look again
                scan = mem._set_scan(fs.scan(mem.root))
                diff = mem.store.diff(scan)
            if not diff:
                return RefreshResult(len(scan.notes) + len(scan.broken), 0, 0, 0, _since(t0), changed_paths=(),
                                     moved=())
            return _update(mem, scan, diff, None, t0, index=False)
    except LockTimeout:
        if strict:
            raise
        return RefreshResult(len(scan.notes) + len(scan.broken), 0, 0, 0, _since(t0), stale=True, why="busy")


def _index_lag(mem: Memory) -> int | None:
    """The notes cache's generation the search index was last in step with, when a notes-only refresh left
    it behind (:data:`INDEX_BEHIND`); None when in step. A value that is not a generation: -1 (rebuilt)."""
    lag = mem.store.get_meta(INDEX_BEHIND)
    if not lag:
        return None
    return int(lag) if lag.isdigit() else -1


def _refresh(mem: Memory, rebuild: bool, progress: Callable[[int, int], None] | None, strict: bool,
             semantic: bool = False, walked: fs.Scan | None = None) -> RefreshResult:
    t0 = time.perf_counter()
    scan = mem._set_scan(walked or fs.scan(mem.root))
    healthy = _healthy(mem)
    diff = mem.store.diff(scan)
    lag = _index_lag(mem)
    if lag is not None and (lag < 0 or lag < mem.store.state()[2]):  # the changes it lacks were pruned
        healthy = False
    vectors = _vectors_wanted(mem, semantic)
    if not rebuild and healthy and not diff and lag is None \
            and not (vectors and (semantic or _vectors_behind(mem))):
        return RefreshResult(len(scan.notes) + len(scan.broken), 0, 0, 0, _since(t0))
    wait = mem.lock_timeout if strict or not healthy else min(mem.lock_timeout, READ_WAIT)
    try:
        with write_lock(mem.state_dir, wait) as immediate:
            if not immediate:  # another writer went first: look again
                scan = mem._set_scan(fs.scan(mem.root))
                healthy = _healthy(mem)
                diff = mem.store.diff(scan)
                lag = _index_lag(mem)
                if lag is not None and (lag < 0 or lag < mem.store.state()[2]):
                    healthy = False
            if rebuild or not healthy:
                result = _build(mem, scan, progress, t0)
            elif diff or lag is not None:
                result = _update(mem, scan, diff, progress, t0)
            else:  # only the vectors were behind
                result = RefreshResult(len(scan.notes) + len(scan.broken), 0, 0, 0, _since(t0))
            if vectors:
                from mdmem.engine.vectors import sync

                result = replace(result, vectors=sync(mem, rebuild=rebuild))
                result = replace(result, seconds=_since(t0))  # the run's whole time: embedding is most of it
    except LockTimeout:
        if strict:
            raise
        return RefreshResult(len(scan.notes) + len(scan.broken), 0, 0, 0, _since(t0), stale=True, why="busy")
    mem.index.refresh()
    return result


def _build(mem: Memory, scan: fs.Scan, progress: Callable[[int, int], None] | None, t0: float) -> RefreshResult:
    """Index every note into a new index (in worker processes), swap it in,
    then replace the cache. Until the swap, readers keep the old index."""
    from mdmem.engine.index import INDEX_VERSION

    stages = {"scan": _since(t0)}
    paths = sorted(scan.notes)
    total = len(paths) + len(scan.broken)
    broken = {p: problem_note(p, pr) for p, pr in scan.broken.items()}
    t = time.perf_counter()
    rows = mem.index.build(
        paths + sorted(broken),
        functools.partial(_load_for_build, mem.root, broken),
        Store.row,
        procs=mem.procs,
        progress=(lambda done: progress(done, total)) if progress else None,
    )
    stages["read_parse_index"] = _since(t)
    t = time.perf_counter()
    mem.store.replace_all(rows, scan, {"index_version": INDEX_VERSION, "index_ok": "1", INDEX_BEHIND: ""},
                          resolver=lambda: mem.resolver)
    stages["store"] = _since(t)
    return RefreshResult(total, total, 0, 0, _since(t0), rebuilt=True, stages=stages)


def _load(mem: Memory, scan: fs.Scan, paths: Iterable[str]) -> list[Note]:
    paths = list(paths)
    notes = list(_load_many(mem.root, [p for p in paths if p not in scan.broken], mem.procs))
    return notes + [problem_note(p, scan.broken[p]) for p in paths if p in scan.broken]


def _update(mem: Memory, scan: fs.Scan, diff: Diff, progress: Callable[[int, int], None] | None, t0: float,
            index: bool = True) -> RefreshResult:
    """The changed notes into the search index (``index``: with what a notes-only refresh left it lacking)
    and the notes cache; ``index=False``: the notes cache alone, the index's lag kept (:data:`INDEX_BEHIND`)."""
    stages = {"scan": _since(t0)}
    t = time.perf_counter()
    notes = _load(mem, scan, (*diff.added, *diff.changed))
    stages["read_parse"] = _since(t)
    lag = _index_lag(mem)
    if index:
        t = time.perf_counter()
        again, gone = [], list(diff.removed)
        if lag is not None:  # what notes-only refreshes stored since the index was last written
            done = {*diff.added, *diff.changed, *diff.removed}
            behind = sorted(mem.store.changes_since(lag) - done)
            again = _load(mem, scan, [p for p in behind if p in scan.notes or p in scan.broken])
            gone += [p for p in behind if p not in scan.notes and p not in scan.broken]
        mem.index.update(notes + again, gone, timeout=mem.lock_timeout)
        stages["index"] = _since(t)
        meta = {INDEX_BEHIND: ""} if lag is not None else None
    else:  # the generation the index is in step with: this one, unless it was behind already
        meta = {INDEX_BEHIND: str(mem.store.state()[1]) if lag is None else str(lag)}
        moved = tuple(sorted({*mem.store.heads_moved(notes), *diff.added, *diff.removed}))
    t = time.perf_counter()
    if notes or diff.removed:
        mem.store.apply(notes, diff.removed, scan, meta=meta, resolver=lambda: mem.resolver)
    elif meta:
        mem.store.set_meta(INDEX_BEHIND, meta[INDEX_BEHIND])
    stages["store"] = _since(t)
    if progress:
        progress(len(notes), len(notes))
    total = len(scan.notes) + len(scan.broken)
    return RefreshResult(
        total, len(diff.added), len(diff.changed), len(diff.removed), _since(t0), stages=stages,
        changed_paths=None if index else tuple(diff.changed), moved=None if index else moved,
    )


def _since(t0: float) -> float:
    return round(time.perf_counter() - t0, 4)

"""The notes cache: every parsed note (without its body text) keyed by path,
with the (mtime_ns, size) it was parsed at, in ``.mdmem/notes.db``.

SQLite in WAL mode gives atomic commits that survive ``kill -9`` and readers
that are never blocked by the writer. Writers are serialised by
:func:`write_lock` (``flock`` on ``.mdmem/write.lock``, freed by the kernel
when a process dies). A cache whose schema version does not match is wiped
and rebuilt; it is derived state.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import pickle
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from mdmem.base.errors import LockTimeout
from mdmem.base.files import Lock
from mdmem.base.models import Note, Problem
from mdmem.base.files import Scan, digest
from mdmem.engine import quick

SCHEMA_VERSION = "3"  # 3: the quick index (FTS5, :mod:`mdmem.engine.quick`) and the scan digest


class CacheDamaged(Exception):
    """``notes.db`` is not a database any more (damaged pages, garbage): discard it."""


def _guard(method):
    """sqlite3's "malformed"/"not a database" errors -> :class:`CacheDamaged`
    (but not ``OperationalError``, which covers a busy database)."""

    @functools.wraps(method)
    def guarded(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as e:
            raise CacheDamaged(str(e)) from e

    return guarded


@dataclass(frozen=True)
class Diff:
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)


class Store:
    def __init__(self, state_dir: Path):
        state_dir.mkdir(parents=True, exist_ok=True)
        self.path = state_dir / "notes.db"
        # Opening sets WAL mode and creates the tables: two processes doing it at once on a new file got
        # "database is locked" (WAL switch) about 1 run in 6, so opening is serialised by the one lock.
        with Lock(state_dir / "store.lock", 30.0):
            try:
                self._db = self._open()
            except sqlite3.OperationalError:
                raise  # busy or locked by another process: never throw its files away under it
            except sqlite3.DatabaseError:  # corrupt or not a database: it is derived, start over
                self._discard()
                self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute(
            "CREATE TABLE IF NOT EXISTS notes (path TEXT PRIMARY KEY, mtime_ns INTEGER,"
            " size INTEGER, note BLOB)"
        )
        # the change log lets derived views (the link graph) catch up incrementally
        db.execute("CREATE TABLE IF NOT EXISTS changes (gen INTEGER, path TEXT)")
        quick.create(db)
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            with _tx(db):
                quick.clear(db)
                db.execute("DELETE FROM notes")
                db.execute("DELETE FROM changes")
                db.execute("DELETE FROM meta")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('epoch', ?)", (uuid.uuid4().hex,))
        return db

    def _discard(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(str(self.path) + suffix)
            except FileNotFoundError:
                pass

    def close(self) -> None:
        self._db.close()

    def reset(self) -> None:
        """Throw the cache away and start an empty one."""
        self._db.close()
        self._discard()
        self._db = self._open()

    # reading ---------------------------------------------------------------
    @_guard
    def stats(self) -> dict[str, tuple[int, int]]:
        return {p: (m, s) for p, m, s in self._db.execute("SELECT path, mtime_ns, size FROM notes")}

    @_guard
    def get(self, path: str) -> Note | None:
        row = self._db.execute("SELECT note FROM notes WHERE path=?", (path,)).fetchone()
        return pickle.loads(row[0]) if row else None

    def notes(self) -> Iterator[Note]:
        for (blob,) in self._db.execute("SELECT note FROM notes ORDER BY path"):
            yield pickle.loads(blob)

    @_guard
    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    @_guard
    def set_meta(self, key: str, value: str) -> None:
        with _tx(self._db):
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    @_guard
    def state(self) -> tuple[str, int, int]:
        """(epoch, generation, pruned-up-to): the epoch changes when the cache is
        rebuilt from scratch, the generation at every other write."""
        meta = dict(self._db.execute("SELECT key, value FROM meta WHERE key IN ('epoch', 'gen', 'pruned')"))
        return meta.get("epoch", ""), int(meta.get("gen", 0)), int(meta.get("pruned", 0))

    @_guard
    def changes_since(self, gen: int) -> set[str]:
        return {p for (p,) in self._db.execute("SELECT DISTINCT path FROM changes WHERE gen > ?", (gen,))}

    @_guard
    def prune_changes(self, upto: int) -> None:
        """Forget the change log up to ``upto`` (a consumer older than that must rebuild)."""
        with _tx(self._db):
            self._db.execute("DELETE FROM changes WHERE gen <= ?", (upto,))
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('pruned', ?)", (str(upto),))

    @_guard
    def vault_problems(self) -> list[tuple[str, Problem]]:
        row = self._db.execute("SELECT value FROM meta WHERE key='vault_problems'").fetchone()
        return [(p, Problem(c, m)) for p, c, m in json.loads(row[0])] if row else []

    @_guard
    def diff(self, scan: Scan) -> Diff:
        cached = self.stats()
        current = dict(scan.notes)
        current.update({p: (0, 0) for p in scan.broken})
        added = sorted(p for p in current if p not in cached)
        changed = sorted(p for p, st in current.items() if p in cached and cached[p] != st)
        removed = sorted(p for p in cached if p not in current)
        return Diff(tuple(added), tuple(changed), tuple(removed))

    # writing (hold write_lock) ---------------------------------------------
    @staticmethod
    def row(note: Note) -> tuple[str, int, int, bytes, tuple]:
        """A note as a cache row: its stat and its pickle, without the body text, and its quick-index row
        (made from the text, which is then dropped)."""
        return (note.path, note.mtime_ns, note.size, pickle.dumps(replace(note, text=""), pickle.HIGHEST_PROTOCOL),
                quick.row(note))

    def apply(
        self, notes: Iterable[Note], removed: Iterable[str], scan: Scan | None = None,
        meta: dict[str, str] | None = None,
    ) -> None:
        """Store parsed notes (without their text), forget removed paths and set
        ``meta``, in one transaction."""
        self._write([self.row(n) for n in notes], removed, scan, meta, clear=False)

    def replace_all(self, rows: list[tuple], scan: Scan, meta: dict[str, str]) -> None:
        """After a full build: the cache becomes exactly ``rows``, in one transaction."""
        self._write(rows, (), scan, meta, clear=True)

    @_guard
    def _write(self, rows, removed, scan, meta, clear: bool) -> None:
        removed = list(removed)
        with _tx(self._db):
            if clear:
                self._db.execute("DELETE FROM notes")
                self._db.execute("DELETE FROM changes")
                self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                     [("epoch", uuid.uuid4().hex), ("gen", "0"), ("pruned", "0")])
            else:
                row = self._db.execute("SELECT value FROM meta WHERE key='gen'").fetchone()
                gen = int(row[0]) + 1 if row else 1
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('gen', ?)", (str(gen),))
                self._db.executemany(
                    "INSERT INTO changes VALUES (?, ?)", [(gen, r[0]) for r in rows] + [(gen, p) for p in removed]
                )
            if clear:
                quick.clear(self._db)
            self._db.executemany("INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?)", [r[:4] for r in rows])
            self._db.executemany("DELETE FROM notes WHERE path=?", [(p,) for p in removed])
            quick.put(self._db, [r[4] for r in rows], removed, fresh=clear)
            if scan is not None:
                problems = [(p, pr.code, pr.message) for p, pr in scan.problems]
                self._db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('vault_problems', ?)", (json.dumps(problems),)
                )
                # what the cache was made from, for readers that only need to know whether it is current
                # (the prompt hook): compare it with files.digest() of a new scan
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('scan_digest', ?)", (digest(scan),))
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list((meta or {}).items()))



@contextmanager
def _tx(db: sqlite3.Connection):
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


@contextmanager
def write_lock(state_dir: Path, timeout: float):
    """Hold the vault's single-writer lock; yields True when it was free at
    once, False when another writer had to finish first. Raises
    :class:`LockTimeout` after ``timeout`` seconds."""
    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_dir / "write.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        immediate, deadline, delay = True, time.monotonic() + timeout, 0.005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                immediate = False
                if time.monotonic() >= deadline:
                    raise LockTimeout(
                        f"another mdmem process has held the write lock on {state_dir} for "
                        f"{timeout:g} s; try again, or raise MDMEM_LOCK_TIMEOUT"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        yield immediate
    finally:
        os.close(fd)  # closing the descriptor releases the flock

"""The notes cache: every parsed note (without its body text) keyed by path,
with the (mtime_ns, size) it was parsed at, in ``.mdmem/notes.db``.

SQLite in WAL mode gives atomic commits that survive ``kill -9`` and readers
that are never blocked by the writer. Writers are serialised by
:func:`write_lock` (``flock`` on ``.mdmem/write.lock``, freed by the kernel
when a process dies). A cache whose schema version does not match is wiped
and rebuilt; it is derived state.
"""

from __future__ import annotations

import datetime as dt
import errno
import functools
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mdmem.base.files import UNSTATED_DIGEST, Lock, Scan, digest
from mdmem.base.layout import SESSIONS_DIR
from mdmem.base.models import Heading, Link, Note, Problem
from mdmem.engine import quick, supersede
from mdmem.engine.heads import FM_TAG, HEAD_COLUMNS, SCHEMA_VERSION, CacheDamaged, Head, lean_heads, typed
from mdmem.engine.heads import first_heads as _first_heads
from mdmem.engine.heads import heads_of as _heads_of
from mdmem.engine.heads import kinds as _kinds

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])


def _epoch() -> str:
    """A new cache's epoch: random, as a UUID4's hex (``uuid`` itself imports ``platform``: 2.5 ms on the card's hook)."""
    return os.urandom(16).hex()


def _guard(method: F) -> F:
    """sqlite3's "malformed"/"not a database" errors -> :class:`CacheDamaged`
    (but not ``OperationalError``, which covers a busy database)."""

    @functools.wraps(method)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as e:
            raise CacheDamaged(str(e)) from e

    return guarded  # type: ignore[return-value]


@dataclass(frozen=True)
class Diff:
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)


def no_room(e: BaseException) -> bool:
    """The disk is full or the state folder cannot be written: not a bug, not a damaged cache."""
    if isinstance(e, OSError):
        return e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM)
    text = str(e).lower()
    return isinstance(e, sqlite3.OperationalError) and (
        "disk is full" in text or "disk i/o error" in text or "readonly" in text)


def _create(db: sqlite3.Connection) -> None:
    """The notes cache's tables and indexes, made where missing."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS notes (path TEXT PRIMARY KEY, mtime_ns INTEGER,"
        " size INTEGER, note BLOB, ctime_ns INTEGER)"
    )
    # a covering index for stats()/diff(): every refresh reads all (path, mtime, size) rows, and the
    # table scan also walked the rows' JSON pages (10k notes: 31 -> 21 ms measured)
    db.execute("CREATE INDEX IF NOT EXISTS notes_stat ON notes(path, mtime_ns, size, ctime_ns)")
    # the change log lets derived views (the link graph) catch up incrementally
    db.execute("CREATE TABLE IF NOT EXISTS changes (gen INTEGER, path TEXT)")
    # each note's head (:func:`head_row`): what lists of notes need, a few hundred bytes a row
    # (and the digest of its body, :func:`body_digest`: ``save``'s "the same content" is a look-up, decision 062)
    db.execute("CREATE TABLE IF NOT EXISTS heads (path TEXT PRIMARY KEY, title TEXT, type TEXT, date TEXT,"
               " flags TEXT, project TEXT, head TEXT, digest TEXT, said TEXT, marks TEXT, front TEXT)")
    db.execute("CREATE INDEX IF NOT EXISTS heads_digest ON heads(digest)")
    # what the card reads of the kinds it lists, read from this index alone (``lean_heads``: 10k notes, 6,200
    # rows, 13.7 -> 9.5 ms), and its counts by kind (``kinds``: a scan of it, no sort: 5.4 -> 1.7 ms); made in
    # a cache that lacks it, without a rebuild (decision 126)
    db.execute("CREATE INDEX IF NOT EXISTS heads_card ON heads(type, project, flags, path, date, marks, title)")
    quick.create(db)
    supersede.create(db)


def _objects(db: sqlite3.Connection) -> list[tuple]:
    return sorted(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))


@functools.cache
def _expected() -> list[tuple]:
    """What a notes cache mdmem makes holds (its ``sqlite_master``), made once a process in memory: a cache that
    came with a vault (a clone, an archive) may hold a trigger that rewrites each row mdmem writes, for good
    (decision 131)."""
    db = sqlite3.connect(":memory:")
    try:
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        _create(db)
        return _objects(db)
    finally:
        db.close()


def _new_epoch() -> list[tuple[str, str]]:
    """The meta rows of a cache begun again: a new epoch, and this user's stamp of it."""
    epoch = _epoch()
    stamp = _stamp(epoch)
    return [("epoch", epoch)] + ([("host", stamp)] if stamp is not None else [])


def _stamp(epoch: str) -> str | None:
    """The cache's mark of this user's mdmem (a MAC of its epoch under the user's key, which never travels with a
    vault: :mod:`mdmem.base.keys`); None when the key cannot be had (the rows are then checked at each open)."""
    from mdmem.base.keys import KeyTrouble, mac, user_key

    try:
        return mac(user_key(), f"mdmem notes cache\0{epoch}".encode())
    except (KeyTrouble, OSError):
        return None


_PHANTOMS = ("SELECT 1 FROM heads WHERE path NOT IN (SELECT path FROM notes)",
             "SELECT 1 FROM quick WHERE path NOT IN (SELECT path FROM notes)",
             "SELECT 1 FROM claims WHERE path NOT IN (SELECT path FROM notes)",
             "SELECT 1 FROM superseded WHERE by NOT IN (SELECT path FROM notes)")


def _made_here(db: sqlite3.Connection) -> bool:
    """Was this cache made by this user's mdmem (its stamp), or, when it was not (one made before stamps, one that
    came with the vault), does each row the lists read stand for a note it holds? Then it is stamped; else it is not
    mdmem's, and thrown away. A cache that came with a clone has every note parsed again at its first refresh (the
    notes' ctimes are new), which rewrites the rows of the notes it holds: rows of notes it does not hold would stay
    for good (~25 ms at 10k notes, once)."""
    meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('epoch', 'host')"))
    stamp = _stamp(str(meta.get("epoch")))
    if stamp is not None and isinstance(meta.get("host"), str):
        from mdmem.base.keys import same

        if same(meta["host"], stamp):
            return True
    if any(db.execute(q + " LIMIT 1").fetchone() for q in _PHANTOMS):
        return False
    if stamp is not None:
        with _tx(db):
            db.execute("INSERT OR REPLACE INTO meta VALUES ('host', ?)", (stamp,))
    return True


class Store:
    def __init__(self, state_dir: Path) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self.path = state_dir / "notes.db"
        # Opening sets WAL mode and creates the tables: two processes doing it at once on a new file got
        # "database is locked" (WAL switch) about 1 run in 6, so opening is serialised by the one lock.
        with Lock(state_dir / "store.lock", 30.0):
            try:
                self._db = self._open()
            except sqlite3.OperationalError as e:  # busy or locked: never throw its files away under it
                if not (no_room(e) and self.path.is_file()):
                    raise
                self._db = self._open_frozen()  # a full disk: read the cache as it is, writes will fail
            except sqlite3.DatabaseError:  # corrupt or not a database: it is derived, start over
                self._discard()
                self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is not None and row[0] != SCHEMA_VERSION:  # an older layout of the table: made again below
                db.execute("DROP TABLE IF EXISTS notes")
                db.execute("DROP TABLE IF EXISTS heads")
            _create(db)
            if _objects(db) != _expected():  # a trigger, a view, a table of another shape: never mdmem's
                raise sqlite3.DatabaseError("the notes cache holds what mdmem never makes")
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None or row[0] != SCHEMA_VERSION:
                with _tx(db):
                    quick.clear(db)
                    supersede.clear(db)
                    db.execute("DELETE FROM notes")
                    db.execute("DELETE FROM heads")
                    db.execute("DELETE FROM changes")
                    db.execute("DELETE FROM meta")
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                    db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", _new_epoch())
            elif not _made_here(db):
                raise sqlite3.DatabaseError("the notes cache holds rows of notes that are not in it")
        except BaseException:
            db.close()  # (the caller throws the file away: never while it is open)
            raise
        return db

    def _open_frozen(self) -> sqlite3.Connection:
        """The cache opened read-only and ``immutable`` (no ``-wal``/``-shm`` files made, which a full disk
        refuses): reads see what the last writer checkpointed, and every write fails as "readonly"."""
        from urllib.parse import quote

        db = sqlite3.connect(f"file:{quote(str(self.path))}?immutable=1", uri=True, timeout=30,
                             isolation_level=None, check_same_thread=False)
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            db.close()
            raise sqlite3.OperationalError("disk is full and the notes cache is from another version")
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
    def stats(self) -> dict[str, tuple[int, int, int]]:
        """path -> the (mtime_ns, size, ctime_ns) each note was read at: :func:`mdmem.base.files.scan`'s fingerprint."""
        rows = self._db.execute("SELECT path, mtime_ns, size, ctime_ns FROM notes")
        return {p: (m, s, c) for p, m, s, c in rows}

    @_guard
    def get(self, path: str) -> Note | None:
        """The cached note, or None (not cached, or its row was not mdmem's data: the row is dropped,
        so the next refresh parses the file again, and the caller reads the file meanwhile)."""
        row = self._db.execute("SELECT note FROM notes WHERE path=?", (path,)).fetchone()
        if not row:
            return None
        try:
            return loads(row[0])
        except CacheDamaged:
            self._drop([path])
            return None

    def notes(self) -> Iterator[Note]:
        """Every cached note in path order; rows that are not mdmem's data are skipped and dropped."""
        bad = []
        for path, blob in self._db.execute("SELECT path, note FROM notes ORDER BY path").fetchall():
            try:
                yield loads(blob)
            except CacheDamaged:
                bad.append(path)
        if bad:
            self._drop(bad)

    @_guard
    def heads(self, types: Iterable[str] | None = None, titled: Iterable[str] = (),
              lined: Iterable[str] = (), headed: Iterable[str] = ()) -> list[Head]:
        """Every cached note's :class:`Head` in path order: what lists of notes need, without parsing what they do
        not (headings, links; and a note's frontmatter until it is asked for). The card reads these: at 10k notes
        whole rows cost most of its time (decision 061). Of the notes of ``types`` when given, read as
        :func:`mdmem.engine.heads.lean_heads` reads them (``titled``, ``lined``, ``headed``: decision 120)."""
        if types is None:
            return list(map(Head, self._db.execute(f"SELECT {HEAD_COLUMNS} FROM heads ORDER BY path")))
        return lean_heads(self._db, types, titled, lined, headed)

    @_guard
    def first_heads(self, kind: str, count: int, keep: Callable[[Head], bool], titled: Iterable[str] = (),
                    lined: Iterable[str] = (), headed: Iterable[str] = ()) -> list[Head]:
        """:func:`mdmem.engine.heads.first_heads`: the first ``count`` heads of a type, in path order, that ``keep``."""
        return _first_heads(self._db, kind, count, keep, titled, lined, headed)

    @_guard
    def kinds(self, besides: Iterable[str] = ()) -> list[tuple[str, str | None, str, int]]:
        """:func:`mdmem.engine.heads.kinds`: (type, project, flags, count) of the notes of the other types."""
        return _kinds(self._db, besides)

    @_guard
    def heads_of(self, paths: Iterable[str]) -> list[Head]:
        """The cached :class:`Head` of each of ``paths`` that is cached, in path order."""
        return _heads_of(self._db, paths)

    @_guard
    def heads_moved(self, notes: Iterable[Note]) -> list[str]:
        """Of ``notes`` (parsed again), those whose head differs from the cached one in what a list of notes shows
        (every column but the stat and the body's digest; a note not cached: moved). An edit of a body alone moves
        none: the SessionStart card, made of heads, stays the same (the card's hook reuses it)."""
        notes = list(notes)
        old = {h.path: h for h in self.heads_of(n.path for n in notes)}
        moved = []
        for note in notes:
            new, was = head_row(note), old.get(note.path)
            try:
                same = was is not None and (*was[:6], *was[7:]) == (*new[:6], *new[8:10]) \
                    and json.loads(was[6])[:3] == json.loads(new[6])[:3]
            except (ValueError, TypeError):
                same = False
            if not same:
                moved.append(note.path)
        return moved

    @_guard
    def same_body(self, digest: str) -> list[str]:
        """The cached notes whose body had this :func:`body_digest` when they were last read, in path order."""
        if not digest:
            return []
        return [p for (p,) in self._db.execute("SELECT path FROM heads WHERE digest=? ORDER BY path", (digest,))]

    @_guard
    def holding(self, terms: Iterable[str]) -> dict[str, list[int]]:
        """term -> the quick-index rowids (:func:`mdmem.engine.quick.rowid`) of the notes whose body has it: what
        ``save`` ranks its candidates by (decision 062). Written in the same transaction as the heads. A term the
        index's tokenizer splits in two (a phrase, which its ``detail=column`` cannot match) holds none."""
        found = {}
        for t in terms:
            try:
                found[t] = quick.matches(self._db, t, "words")
            except sqlite3.OperationalError as e:
                if "fts5" not in str(e):
                    raise
                found[t] = []
        return found

    def _drop(self, paths: list[str]) -> None:
        with _tx(self._db):
            self._db.executemany("DELETE FROM notes WHERE path=?", [(p,) for p in paths])
            self._db.executemany("DELETE FROM heads WHERE path=?", [(p,) for p in paths])

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
        """What changed since the cache was written. One pass finds the paths whose stat differs (the
        added among them); the removed are looked for only when the counts say some are gone: 14 -> 11
        ms at 10k notes (median of 15 in one process, under load), where three passes and a copy of
        the scan's dict cost more than reading the rows."""
        cached = self.stats()
        current = scan.notes
        if scan.broken:
            current = dict(current)
            current.update({p: (0, 0, 0) for p in scan.broken})
        get = cached.get
        differ = [p for p, st in current.items() if get(p) != st]
        added = [p for p in differ if p not in cached]
        if added:
            fresh = set(added)
            differ = [p for p in differ if p not in fresh]
        gone = len(cached) - (len(current) - len(added))
        removed = [p for p in cached if p not in current] if gone else []
        return Diff(tuple(sorted(added)), tuple(sorted(differ)), tuple(sorted(removed)))

    # writing (hold write_lock) ---------------------------------------------
    @staticmethod
    def row(note: Note) -> tuple[str, int, int, str, tuple, tuple | None, int, tuple]:
        """A note as a cache row: its stat and its JSON (:func:`dumps`), without the body text, its
        quick-index row (made from the text, which is then dropped) and its claim row
        (:func:`mdmem.engine.supersede.row`: ``supersedes``, ``valid_until``; None for most notes), then its
        ctime and its head row (:func:`head_row`)."""
        return (note.path, note.mtime_ns, note.size, dumps(note), quick.row(note), supersede.row(note), note.ctime_ns,
                head_row(note))

    def apply(
        self, notes: Iterable[Note], removed: Iterable[str], scan: Scan | None = None,
        meta: dict[str, str] | None = None, resolver: Any = None,
    ) -> None:
        """Store parsed notes (without their text), forget removed paths and set
        ``meta``, in one transaction. ``resolver()`` gives the vault's
        :class:`~mdmem.text.resolve.Resolver` when ``supersedes`` links need resolving
        (default: one made from ``scan``)."""
        self._write([self.row(n) for n in notes], removed, scan, meta, clear=False, resolver=resolver)

    def replace_all(self, rows: list[tuple], scan: Scan, meta: dict[str, str], resolver: Any = None) -> None:
        """After a full build: the cache becomes exactly ``rows``, in one transaction."""
        self._write(rows, (), scan, meta, clear=True, resolver=resolver)

    # who supersedes whom (:mod:`mdmem.engine.supersede`) --------------------
    @_guard
    def standing(self) -> tuple[dict[str, list[str]], dict[str, str]]:
        """``({old path: [the notes superseding it]}, {path: valid_until})``."""
        return supersede.standing(self._db)

    @_guard
    def hidden(self, today: str) -> set[str]:
        """The notes superseded or expired (``valid_until`` before ``today``, ISO)."""
        return supersede.hidden(self._db, today)

    @_guard
    def valid_through(self, today: str) -> str | None:
        return supersede.valid_through(self._db, today)

    @_guard
    def _write(self, rows: list[tuple], removed: Iterable[str], scan: Scan | None, meta: dict[str, str] | None, clear: bool,
               resolver: Any = None) -> None:
        removed = list(removed)
        with _tx(self._db):
            if clear:
                self._db.execute("DELETE FROM notes")
                self._db.execute("DELETE FROM heads")
                self._db.execute("DELETE FROM changes")
                self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                     [*_new_epoch(), ("gen", "0"), ("pruned", "0")])
            else:
                row = self._db.execute("SELECT value FROM meta WHERE key='gen'").fetchone()
                gen = int(row[0]) + 1 if row else 1
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('gen', ?)", (str(gen),))
                self._db.executemany(
                    "INSERT INTO changes VALUES (?, ?)", [(gen, r[0]) for r in rows] + [(gen, p) for p in removed]
                )
            if clear:
                quick.clear(self._db)
            self._db.executemany("INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?)",
                                 [(*r[:4], r[6]) for r in rows])
            self._db.executemany("DELETE FROM notes WHERE path=?", [(p,) for p in removed])
            self._db.executemany("INSERT OR REPLACE INTO heads VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [r[7] for r in rows])
            self._db.executemany("DELETE FROM heads WHERE path=?", [(p,) for p in removed])
            quick.put(self._db, [r[4] for r in rows], removed, fresh=clear)
            if clear:
                supersede.clear(self._db)
            supersede.put(self._db, [r[0] for r in rows], [r[5] for r in rows], removed, fresh=clear)
            if (rows or removed) and supersede.claimed(self._db):
                if resolver is None:
                    from mdmem.text.resolve import Resolver

                    paths = [*scan.notes, *scan.broken, *scan.files] if scan is not None else \
                        [p for (p,) in self._db.execute("SELECT path FROM notes")]
                    resolve = Resolver(paths).resolve
                else:
                    resolve = resolver().resolve
                supersede.relink(self._db, resolve)
            if scan is not None:
                problems = [(p, pr.code, pr.message) for p, pr in scan.problems]
                self._db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('vault_problems', ?)", (json.dumps(problems),)
                )
                # what the cache was made from, for readers that only need to know whether it is current
                # (the prompt hook): compare it with files.digest() of a new scan
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('scan_digest', ?)", (digest(scan),))
                # the same less the imported sessions' notes: the prompt hook's first look (it stats none of them)
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                 (UNSTATED_DIGEST, digest(scan, SESSIONS_DIR)))
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list((meta or {}).items()))



@contextmanager
def _tx(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# ----------------------------------------------------------------------------- the row format
# A note is stored as a JSON array, never a pickle: a crafted row in a cache that came from someone else
# (a synced or cloned .mdmem/) can then only be wrong data, never code. Measured on the dwarvesf-brain
# fixture (885 notes): loading a row costs 41 us against pickle's 28 us (+0.13 s per full pass over 10k
# notes), rows are 24% smaller; every note round-trips equal.

def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dt.datetime):
        return {FM_TAG: "datetime", "v": value.isoformat()}
    if isinstance(value, dt.date):
        return {FM_TAG: "date", "v": value.isoformat()}
    if isinstance(value, bytes):
        return {FM_TAG: "bytes", "v": value.hex()}
    return {FM_TAG: "str", "v": str(value)}


def dumps(note: Note) -> str:
    return json.dumps([
        note.path, note.title, note.type, _plain(note.frontmatter), note.tags, note.aliases,
        [[h.level, h.text, h.line] for h in note.headings],
        [[k.raw, k.target, k.subpath, k.display, k.embed, k.kind, k.line] for k in note.links],
        note.tokens, [[p.code, p.message] for p in note.problems], note.mtime_ns, note.size, note.date,
    ], ensure_ascii=False, separators=(",", ":"))


def body_digest(body: str) -> str:
    """A note's body with its whitespace runs made one space, hashed: two bodies that differ only in spacing have
    one digest (what ``save`` calls the same content). Empty for an empty body."""
    import hashlib

    flat = " ".join(body.split())
    return hashlib.blake2b(flat.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest() if flat else ""


def head_row(note: Note) -> tuple[str, str, str, str | None, str, str | None, str, str, str, str, str]:
    """A note's row of the ``heads`` table: path, title, type, date, flags (``i`` an index note, ``s`` sensitive,
    ``a`` saved by an agent: :mod:`mdmem.base.layout`, ``source:``), its project (:func:`mdmem.base.projects.note_project`),
    the JSON of its frontmatter, tags, aliases and stat, its body's :func:`body_digest` (``note.digest``), and how the
    card names it (:func:`mdmem.text.said.said`, :func:`mdmem.text.said.marks`: the card formats none of its lines,
    decision 063), and ``note.front`` (:func:`mdmem.engine.bodies.front_digest`; "" for a note not read from a file:
    always parsed again)."""
    from mdmem.base.layout import is_index_note, is_sensitive
    from mdmem.base.projects import note_project
    from mdmem.text.said import marks, said

    fm = note.frontmatter
    flags = ("i" if is_index_note(note.path, fm) else "") + ("s" if is_sensitive(fm, note.tags) else "") \
        + ("a" if fm.get("source") == "agent" else "")
    return (note.path, note.title, note.type, note.date, flags, note_project(fm),
            json.dumps([_plain(fm), note.tags, note.aliases, note.mtime_ns, note.size], ensure_ascii=False,
                       separators=(",", ":")), note.digest, said(note), marks(note), note.front)


def loads(data: str | bytes) -> Note:
    """A row back into a Note; anything else (garbage, a pickle from an old or foreign cache) is
    :class:`CacheDamaged`: the cache is derived, so it is rebuilt, never trusted."""
    try:
        return _loads(data)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
        raise CacheDamaged(f"a row of the notes cache is not mdmem's data ({type(e).__name__})") from None


def _loads(data: str | bytes) -> Note:
    (path, title, type_, fm, tags, aliases, headings, links, tokens, problems, mtime, size, date) = json.loads(data)
    return Note(path, title, type_, typed(fm), tuple(tags), tuple(aliases),
                tuple(Heading(*h) for h in headings), tuple(Link(*k) for k in links), tokens,
                tuple(Problem(*p) for p in problems), mtime, size, date)

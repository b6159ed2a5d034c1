"""The notes' heads as lists of notes read them (:class:`Head`), and a read-only look at the notes cache for the
SessionStart card (:class:`HeadReader`): standard library and ``base`` only.

The card made again at 10k notes spent most of its time on what it never shows: importing the engine (the
``Memory`` facade, the store's writer, the parser's modules, ``dataclasses``) and making 10k heads (with their
frontmatter's JSON) when it lists seven kinds of notes and only counts the others. When the notes cache is
current, the card's hook reads it through :class:`HeadReader`: the heads of the kinds asked for, without their
frontmatter (fetched for the few rows that read it), and the other notes as counts by kind, project and flags,
one query each, from the same ``heads`` table every command reads (no second copy to keep in step; decision 120).
"""

from __future__ import annotations

import os
import sqlite3
from operator import itemgetter

from mdmem.base import files
from mdmem.base.state import state_folder

TYPE_CHECKING = False  # not `from typing import`: the card's hook imports as little as it can
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path
    from typing import Any

SCHEMA_VERSION = "11"  # the notes cache's layout (:class:`mdmem.engine.store.Store` writes it): 3: the quick index
# (FTS5, :mod:`mdmem.engine.quick`) and the scan digest; 4: notes stored as JSON arrays (no pickle); 5: the claims and
# superseded tables (:mod:`mdmem.engine.supersede`); 6: ``ctime_ns`` in the change fingerprint; 7: the ``heads`` table
# (:meth:`mdmem.engine.store.Store.heads`); 8: the heads' body ``digest`` (``Store.same_body``); 9: their ``said`` and
# ``marks`` columns (the card's lines, decision 063); 10: their ``front`` (:func:`mdmem.engine.bodies.front_digest`:
# an edit of a body alone told without parsing, decision 101); 11: the quick index's ``title`` is the note's
# ``name:`` (the name the prompt hook shows, decision 121). Older caches are rebuilt.
HEAD_COLUMNS = "path, title, type, date, flags, project, head, said, marks"  # a Head's row, in its order


class CacheDamaged(Exception):
    """``notes.db`` is not a database any more (damaged pages, garbage): discard it."""


FM_TAG = "\x00t"  # a frontmatter value JSON cannot hold, tagged: {"\x00t": "date", "v": "2024-01-01"}


def typed(value: Any) -> Any:
    """A frontmatter value as stored (:func:`mdmem.engine.store._plain`) back to what the parser gave."""
    if isinstance(value, dict):
        tag = value.get(FM_TAG)
        if tag is not None and len(value) == 2:
            import datetime as dt

            v = value["v"]
            if tag == "date":
                return dt.date.fromisoformat(v)
            if tag == "datetime":
                return dt.datetime.fromisoformat(v)
            if tag == "bytes":
                return bytes.fromhex(v)
            return v
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return value


_LAZY = frozenset(("frontmatter", "tags", "aliases", "mtime_ns", "size"))


class Head(tuple):
    """A note as lists of notes need it (a row of the notes cache's ``heads`` table): path, title, type, date,
    ``flags`` (``i`` index note, ``s`` sensitive, ``a`` saved by an agent), ``project`` (the note's, None for a
    global one) at once; ``frontmatter``, ``tags``, ``aliases``, ``mtime_ns`` and ``size`` parsed on first use.
    No headings, links or problems. The row itself (a tuple), not a frozen dataclass: the card makes thousands
    of them and reads the frontmatter of a few (decision 061). A row that is not mdmem's data raises
    :class:`CacheDamaged` when its frontmatter is first read."""

    path = property(itemgetter(0))
    title = property(itemgetter(1))
    type = property(itemgetter(2))
    date = property(itemgetter(3))
    flags = property(itemgetter(4))
    project = property(itemgetter(5))
    said = property(itemgetter(7))  # how a list names it (:func:`mdmem.text.said.said`)
    marks = property(itemgetter(8))  # :func:`mdmem.text.said.marks`
    frontmatter: dict[str, Any]
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    mtime_ns: int
    size: int

    def _head(self) -> str:
        """The JSON of its frontmatter, tags, aliases and stat (the row's ``head`` column)."""
        return self[6]

    def __getattr__(self, name: str) -> Any:  # reached only until the parsed parts are set
        if name not in _LAZY:
            raise AttributeError(name)
        from mdmem.base.fastjson import loads

        try:
            head = self._head()
            fm, tags, aliases, mtime, size = loads(head)
            # (a value JSON cannot hold is tagged, its tag escaped as \\u0000: most rows hold none)
            self.frontmatter = typed(fm) if "\\u0000t" in head else fm
            self.tags, self.aliases = tuple(tags), tuple(aliases)
            self.mtime_ns, self.size = int(mtime), int(size)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError, sqlite3.Error) as e:
            raise CacheDamaged(f"a row of the notes cache is not mdmem's data ({type(e).__name__})") from None
        return getattr(self, name)

    def __repr__(self) -> str:
        return f"Head({self[0]!r}, {self[2]!r})"


def lean_heads(db: sqlite3.Connection, types: Iterable[str] | None = None, titled: Iterable[str] = (),
               lined: Iterable[str] = (), headed: Iterable[str] = ()) -> list[Head]:
    """The heads (of the notes of ``types``; every note when None) in path order, each row's frontmatter fetched
    from ``db`` on first use (:class:`Head`): a list of notes that reads the frontmatter of a few of them does not
    load thousands of JSON texts (the card at 10k notes: decision 120). ``titled``, ``lined`` and ``headed``: the
    types whose every ``title``, ``said`` and many a frontmatter the caller reads, fetched with the rows; another
    row's, on first use (the card names 5 of 1,500 decisions). ``db`` must stay open while they are read. The kinds
    whose line and frontmatter are not fetched are read from the index ``heads_card`` alone (:mod:`mdmem.engine.store`)
    where the cache has it."""
    columns, asked = _columns(titled, lined, headed)
    if types is None:
        rows = list(db.execute(f"SELECT {columns} FROM heads", asked))
    else:
        rows = []
        whole = set(types) & (set(lined) | set(headed))  # their line or frontmatter fetched: from the rows
        for kinds, (cols, args) in ((sorted(whole), (columns, asked)),
                                    (sorted(set(types) - whole), _columns(titled, (), ()))):  # from the index
            if kinds:
                rows += db.execute(f"SELECT {cols} FROM heads WHERE type IN ({','.join('?' * len(kinds))})",
                                   [*args, *kinds])
    return sorted(map(_lean(db), rows), key=itemgetter(0))  # (sorted here: SQLite's sort of the rows cost more)


def first_heads(db: sqlite3.Connection, kind: str, count: int, keep: Callable[[Head], bool], titled: Iterable[str] = (),
                lined: Iterable[str] = (), headed: Iterable[str] = ()) -> list[Head]:
    """The first ``count`` heads of the notes of type ``kind``, in path order, that ``keep`` keeps (read as
    :func:`lean_heads` reads them): the rows are read until then, not all (the card names 15 of 900 people)."""
    columns, asked = _columns(titled, lined, headed)
    lean = _lean(db)
    out: list[Head] = []
    for row in db.execute(f"SELECT {columns} FROM heads WHERE type=? ORDER BY path", [*asked, kind]):
        if len(out) == count:
            break
        head = lean(row)
        if keep(head):
            out.append(head)
    return out


def _columns(titled: Iterable[str], lined: Iterable[str], headed: Iterable[str]) -> tuple[str, list[str]]:
    """The columns of a lean head's row (:func:`lean_heads`) and their parameters."""
    titled, lined, headed = sorted(set(titled)), sorted(set(lined)), sorted(set(headed))

    def some(column: str, kinds: list[str]) -> str:
        return f"CASE WHEN type IN ({','.join('?' * len(kinds))}) THEN {column} END" if kinds else "NULL"

    return (f"path, {some('title', titled)}, type, date, flags, project, {some('head', headed)}, "
            f"{some('said', lined)}, marks", [*titled, *headed, *lined])


def _lean(db: sqlite3.Connection) -> type[Head]:
    """A head of ``db`` whose missing title, line (``said``) or frontmatter are read from it on first use."""

    class Lean(Head):
        title = property(lambda self: self[1] if self[1] is not None else self._column("title"))
        said = property(lambda self: self[7] if self[7] is not None else self._column("said"))
        _db = db

        def _column(self, name: str) -> Any:
            got = self.__dict__.get(name)
            if got is None:
                row = db.execute(f"SELECT {name} FROM heads WHERE path=?", (self[0],)).fetchone()
                got = self.__dict__[name] = row[0] if row else ""
            return got

        def _head(self) -> str:
            if self[6] is not None:
                return self[6]
            got = self.__dict__.get("head")
            if got is not None:
                return got
            row = db.execute("SELECT head FROM heads WHERE path=?", (self[0],)).fetchone()
            if row is None:
                raise ValueError("gone")
            return row[0]

    return Lean


_FILLED = {"title": 1, "head": 6, "said": 7}  # a lean head's columns that may be left out of its row: its place


def fill(heads: Iterable[Head], columns: Iterable[str]) -> None:
    """Read ``columns`` (of ``title``, ``head``, ``said``) of the lean heads among ``heads`` whose rows left them out
    (:func:`lean_heads`), in one query: a list that shows 40 of 1,600 notes reads their lines at once, not a query a
    line. Other heads (whole rows) are left as they are."""
    for name in columns:
        at = _FILLED[name]
        lacking = {h[0]: h for h in heads if h[at] is None and name not in h.__dict__}
        if not lacking:
            continue
        db = type(next(iter(lacking.values())))._db  # type: ignore[attr-defined]  # (a lean head's class has one)
        paths = list(lacking)
        for i in range(0, len(paths), 500):
            chunk = paths[i:i + 500]
            for path, value in db.execute(f"SELECT path, {name} FROM heads WHERE path IN ({','.join('?' * len(chunk))})",
                                          chunk):
                lacking[path].__dict__[name] = value if value is not None or name == "head" else ""


def kinds(db: sqlite3.Connection, besides: Iterable[str] = ()) -> list[tuple[str, str | None, str, int]]:
    """(type, project, flags, how many) for the notes whose type is not one of ``besides``: what a list that only
    counts them needs (the card's first line), one grouped query instead of a head a note."""
    skip = sorted(set(besides))
    return db.execute("SELECT type, project, flags, count(*) FROM heads"
                      + (f" WHERE type NOT IN ({','.join('?' * len(skip))})" if skip else "")
                      + " GROUP BY type, project, flags", skip).fetchall()


def heads_of(db: sqlite3.Connection, paths: Iterable[str]) -> list[Head]:
    """The cached :class:`Head` of each of ``paths`` that is cached, in path order."""
    wanted = sorted(set(paths))
    rows = [r for i in range(0, len(wanted), 500) for r in db.execute(
        f"SELECT {HEAD_COLUMNS} FROM heads WHERE path IN ({','.join('?' * len(wanted[i:i + 500]))})",
        wanted[i:i + 500])]
    return sorted(map(Head, rows), key=lambda h: h.path)


def open_cache(vault: str) -> sqlite3.Connection | None:
    """The vault's notes cache opened read-only (``mode=ro``: no write, no journal made; a locked cache waited for
    0.2 s), or None when it cannot be opened: for the card's hook, which then refreshes it through the engine."""
    path = state_folder(vault, "notes.db")
    uri = "file:" + path.replace("%", "%25").replace("?", "%3f").replace("#", "%23") + "?mode=ro"
    try:
        return sqlite3.connect(uri, uri=True, timeout=0.2, isolation_level=None)
    except sqlite3.Error:
        return None


class _Text:
    """A note's body as :meth:`mdmem.engine.memory.Memory.read` gives it (``body``)."""

    __slots__ = ("body",)

    def __init__(self, body: str) -> None:
        self.body = body


class HeadReader:
    """The notes cache read as the card reads it, without the engine: opened read-only in one read transaction (one
    snapshot), for a caller that has walked the vault (``scan``). ``current``: the cache was written from the files
    as that walk saw them (its scan digest); when not, the caller refreshes through
    :class:`mdmem.engine.memory.Memory` instead. What ``ops.context`` reads of a ``Memory`` for the index-mode card:
    ``root``, ``state_dir``, ``scan``, ``heads(types)``, ``kinds(besides)``, ``heads_of(paths)``, ``read(path)`` and
    ``store`` (``standing``, ``valid_through``, ``state``). None from :meth:`open` when the cache cannot be read
    as it stands (missing, locked, damaged, another layout)."""

    def __init__(self, root: Path, db: sqlite3.Connection, scan: files.Scan) -> None:
        self.root, self._db, self.scan = root, db, scan
        from pathlib import Path

        self.state_dir = Path(state_folder(root))
        self.store = self

    @classmethod
    def open(cls, vault: str, scan: files.Scan) -> HeadReader | None:
        from mdmem.base.vault import find_vault

        if not os.path.isfile(state_folder(vault, "notes.db")):
            return None
        db = open_cache(vault)
        if db is None:
            return None
        try:
            db.execute("BEGIN")
            meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('schema', 'scan_digest')"))
        except sqlite3.Error:
            db.close()
            return None
        if meta.get("schema") != SCHEMA_VERSION or meta.get("scan_digest") != files.digest(scan):
            db.close()
            return None
        return cls(find_vault(vault), db, scan)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> HeadReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def heads(self, types: Iterable[str] | None = None, titled: Iterable[str] = (),
              lined: Iterable[str] = (), headed: Iterable[str] = ()) -> list[Head]:
        return lean_heads(self._db, types, titled, lined, headed)

    def first_heads(self, kind: str, count: int, keep: Callable[[Head], bool], titled: Iterable[str] = (),
                    lined: Iterable[str] = (), headed: Iterable[str] = ()) -> list[Head]:
        return first_heads(self._db, kind, count, keep, titled, lined, headed)

    def kinds(self, besides: Iterable[str] = ()) -> list[tuple[str, str | None, str, int]]:
        return kinds(self._db, besides)

    def heads_of(self, paths: Iterable[str]) -> list[Head]:
        return heads_of(self._db, paths)

    def read(self, path: str) -> _Text:
        """The note's body from disk, as :meth:`mdmem.engine.memory.Memory.read` splits it."""
        from mdmem.text.raw import decoded, split_frontmatter

        return _Text(split_frontmatter(decoded(files.read_bytes(self.root, path))[0])[1])

    # what ops reads of a Memory's store
    def standing(self) -> tuple[dict[str, list[str]], dict[str, str]]:
        from mdmem.engine import supersede

        return supersede.standing(self._db)

    def valid_through(self, today: str) -> str | None:
        from mdmem.engine import supersede

        return supersede.valid_through(self._db, today)

    def state(self) -> tuple[str, int, int]:
        meta = dict(self._db.execute("SELECT key, value FROM meta WHERE key IN ('epoch', 'gen', 'pruned')"))
        return meta.get("epoch", ""), int(meta.get("gen", 0)), int(meta.get("pruned", 0))

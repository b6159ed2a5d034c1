"""The quick index: a SQLite FTS5 table inside the notes cache (``.mdmem/notes.db``), for the prompt hook.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/engine/quick.py)."""

from __future__ import annotations

import re

from mdmem.base.blake import blake2b

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable

    from mdmem.base.models import Note

TABLE = "quick"
DDL = (f"CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING fts5(path UNINDEXED, title UNINDEXED, "
       "description UNINDEXED, type UNINDEXED, date UNINDEXED, flags UNINDEXED, name, about, words, "
       "tokenize='porter unicode61 remove_diacritics 2', detail=column)")
COLUMNS = ("name", "about", "words")  # the indexed ones, in order
MAX_WORDS = 5000
_WORD = re.compile(r"\w+")


def rowid(path: str) -> int:
    """A stable 56-bit id for a vault path (a collision among 10k notes: about 1 in 10^9)."""
    return int.from_bytes(blake2b(path.encode("utf-8", "surrogatepass"), digest_size=7).digest(), "big")


def row(note: Note) -> tuple:
    """The FTS5 row of a parsed note (its ``text`` still attached); its ``title`` is the name the prompt hook
    shows: the frontmatter ``name:`` the user gave, else the file name (the hook parses no note)."""
    from mdmem.base.layout import is_index_note, is_sensitive

    fm = note.frontmatter
    names = [note.title] + [fm[k] for k in ("name", "title") if isinstance(fm.get(k), str)] + list(note.aliases)
    description = " ".join(fm["description"].split()) if isinstance(fm.get("description"), str) else ""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(note.text)))[:MAX_WORDS]
    flags = ("i" if is_index_note(note.path, fm) else "") + ("s" if is_sensitive(fm, note.tags) else "") \
        + ("a" if fm.get("source") == "agent" else "")  # an agent's: the prompt hook checks it is still unconfirmed
    given = " ".join(fm["name"].split()) if isinstance(fm.get("name"), str) else ""
    return (rowid(note.path), note.path, given or note.title, description, note.type, note.date or "", flags,
            " | ".join(dict.fromkeys(" ".join(n.replace("-", " ").replace("_", " ").split()) for n in names)),
            " ".join([description, *note.tags]), " ".join(words))


def create(db: sqlite3.Connection) -> None:
    db.execute(DDL)


def clear(db: sqlite3.Connection) -> None:
    db.execute(f"DELETE FROM {TABLE}")


def put(db: sqlite3.Connection, rows: list[tuple], removed: Iterable[str] = (), fresh: bool = False) -> None:
    """Replace the rows of these notes and drop the removed paths (inside the caller's transaction);
    ``fresh``: the table was just cleared, nothing to replace."""
    if not fresh:
        gone = [(rowid(p),) for p in removed] + [(r[0],) for r in rows]
        db.executemany(f"DELETE FROM {TABLE} WHERE rowid=?", gone)
    db.executemany(f"INSERT INTO {TABLE}(rowid, path, title, description, type, date, flags, name, about, words)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)


# ----------------------------------------------------------------------------- reading (the prompt hook)


def open_readonly(db_path: str) -> sqlite3.Connection | None:
    """A read-only connection on ``notes.db`` holding the quick index, else None (no cache yet, an old one
    without the table, or a damaged file)."""
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=2)
        found = db.execute("SELECT 1 FROM sqlite_master WHERE name=?", (TABLE,)).fetchone()
    except sqlite3.Error:
        return None
    if not found:
        db.close()
        return None
    return db


def _phrase(term: str) -> str:
    return '"' + term.replace('"', "") + '"'


def doc_count(db: sqlite3.Connection, term: str, column: str | None = None) -> int:
    """In how many notes ``term`` occurs (in ``column``, else in any)."""
    query = ("{" + column + "} : " if column else "") + _phrase(term)
    return db.execute(f"SELECT count(*) FROM {TABLE} WHERE {TABLE} MATCH ?", (query,)).fetchone()[0]


def matches(db: sqlite3.Connection, term: str, column: str) -> list[int]:
    """The rowids of the notes holding ``term`` in ``column`` (one of :data:`COLUMNS`)."""
    query = "{" + column + "} : " + _phrase(term)
    return [r for (r,) in db.execute(f"SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH ?", (query,))]


def rows(db: sqlite3.Connection, ids: Iterable[int]) -> dict[int, tuple]:
    """rowid -> (path, title, description, type, date, flags, name): ``title`` is the name to show (the
    frontmatter ``name:``, else the file name), ``name`` holds the note's names (file name, frontmatter name,
    aliases) separated by `` | ``."""
    ids = list(ids)
    out = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        for r in db.execute(f"SELECT rowid, path, title, description, type, date, flags, name FROM {TABLE} "
                            f"WHERE rowid IN ({marks})", chunk):
            out[r[0]] = r[1:]
    return out


def dated(db: sqlite3.Connection, start: str, end: str, limit: int = 50) -> list[tuple]:
    """(rowid, path, title, description, type, date, flags, name) of the notes dated in [start, end],
    newest first."""
    return db.execute(f"SELECT rowid, path, title, description, type, date, flags, name FROM {TABLE} "
                      "WHERE date >= ? AND date <= ? ORDER BY date DESC, path LIMIT ?", (start, end, limit)).fetchall()

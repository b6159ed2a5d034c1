"""Who supersedes whom, and what expires: two small tables inside the notes cache (``.mdmem/notes.db``).

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/engine/supersede.py)."""

from __future__ import annotations

from mdmem.base.fastjson import dumps, loads

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterable

    from mdmem.base.models import Note

CLAIMS = "claims"
SUPERSEDED = "superseded"


def create(db: sqlite3.Connection) -> None:
    db.execute(f"CREATE TABLE IF NOT EXISTS {CLAIMS} (path TEXT PRIMARY KEY, targets TEXT, valid_until TEXT)")
    db.execute(f"CREATE TABLE IF NOT EXISTS {SUPERSEDED} (path TEXT, by TEXT, PRIMARY KEY (path, by))")


def clear(db: sqlite3.Connection) -> None:
    db.execute(f"DELETE FROM {CLAIMS}")
    db.execute(f"DELETE FROM {SUPERSEDED}")


def row(note: Note) -> tuple | None:
    """A note's claim row, ``(path, targets JSON, valid_until ISO or "")``, or None when it claims nothing."""
    from mdmem.text.validity import supersedes, valid_until

    targets = supersedes(note.frontmatter)
    until, _ = valid_until(note.frontmatter)
    if not targets and not until:
        return None
    return note.path, dumps(targets), until or ""


def put(db: sqlite3.Connection, paths: list[str], rows: list[tuple | None], removed: Iterable[str] = (), fresh: bool = False) -> None:
    """Replace the claims of the notes at ``paths`` with ``rows`` (None: it claims nothing) and drop the
    removed paths (inside the caller's transaction)."""
    if not fresh:
        db.executemany(f"DELETE FROM {CLAIMS} WHERE path=?", [(p,) for p in (*paths, *removed)])
    db.executemany(f"INSERT OR REPLACE INTO {CLAIMS} VALUES (?, ?, ?)", [r for r in rows if r is not None])


def claimed(db: sqlite3.Connection) -> bool:
    """Is there anything to resolve (a claim now, or a superseded pair from before)?"""
    return db.execute(f"SELECT EXISTS (SELECT 1 FROM {CLAIMS} WHERE targets != '[]') "
                      f"OR EXISTS (SELECT 1 FROM {SUPERSEDED})").fetchone()[0] == 1


def relink(db: sqlite3.Connection, resolve: Callable[[str, str], str | None]) -> None:
    """Redo ``superseded`` from ``claims``: ``resolve(target, source)`` is the vault's link resolution
    (inside the caller's transaction). Targets that resolve to no note (``.md``) or to the claiming note
    itself are left out."""
    pairs = set()
    for source, targets in db.execute(f"SELECT path, targets FROM {CLAIMS} WHERE targets != '[]'").fetchall():
        for target in loads(targets):
            path = resolve(target, source)
            if path is not None and path != source and path.lower().endswith(".md"):
                pairs.add((path, source))
    db.execute(f"DELETE FROM {SUPERSEDED}")
    db.executemany(f"INSERT INTO {SUPERSEDED} VALUES (?, ?)", sorted(pairs))


# ----------------------------------------------------------------------------- reading


def standing(db: sqlite3.Connection) -> tuple[dict[str, list[str]], dict[str, str]]:
    """``({old path: [new paths, sorted]}, {path: valid_until})`` for the whole vault."""
    by: dict[str, list[str]] = {}
    for path, new in db.execute(f"SELECT path, by FROM {SUPERSEDED} ORDER BY path, by"):
        by.setdefault(path, []).append(new)
    until = dict(db.execute(f"SELECT path, valid_until FROM {CLAIMS} WHERE valid_until != ''"))
    return by, until


def hidden(db: sqlite3.Connection, today: str) -> set[str]:
    """The notes recall, context and the prompt hook leave out on ``today`` (ISO): superseded ones and
    expired ones (``valid_until`` before today). An older cache without the tables: none."""
    import sqlite3

    try:
        return {p for (p,) in db.execute(
            f"SELECT path FROM {SUPERSEDED} UNION SELECT path FROM {CLAIMS} "
            "WHERE valid_until != '' AND valid_until < ?", (today,))}
    except sqlite3.OperationalError:
        return set()


def valid_through(db: sqlite3.Connection, today: str) -> str | None:
    """The last day on which what is expired stays as on ``today``: the earliest ``valid_until`` on or after
    it (None: no note will expire). A card made today is right through that day."""
    return db.execute(f"SELECT min(valid_until) FROM {CLAIMS} WHERE valid_until >= ?", (today,)).fetchone()[0]

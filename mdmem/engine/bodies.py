"""Did only notes' bodies change since the notes cache was written? Told without parsing a note.

The SessionStart card is made of the notes' heads (decision 061); an edit of a body alone (the common edit)
leaves every head as it was, so the kept card stands (decision 100). Knowing that by parsing the edited note
cost the hook markdown-it's and PyYAML's first import (45-81 ms of ~230 at 10k notes). Here it is told from
the bytes: each head keeps :func:`front_digest` (a digest of its frontmatter's text); a note whose frontmatter
hashes the same, whose body holds nothing like a ``#sensitive`` tag, which is a regular file (not a link), neither
sensitive, the user's nor an agent's, and whose date is not its file's, is on the card as it was (its inline tags
may differ: the card shows none, and reads only ``sensitive``). The cache is only read
(nothing here writes it; the next refresh parses the note as before). Standard library and ``base`` only: the
card's hook imports it before anything heavy (decision 101).
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import stat
import time

from mdmem.base import files
from mdmem.base.state import state_folder
from mdmem.text.raw import MAX_PARSE_BYTES, decoded, split_frontmatter

# where an inline ``#sensitive`` tag could be: ``#`` at a line's start or after a space, ``>`` (a quote's marker) or
# ``|`` (a table's cell). The parser's rule (:func:`mdmem.text.links._tag`) wants ``#`` at its inline text's start or
# after a space, and an inline text starts at a line's start or after those markers (a list's or a heading's marker
# is followed by a space); its name is lower-cased and loses trailing ``/``. A body this never matches makes no note
# sensitive. The only tag the card reads: it shows no tag, and hides a sensitive note (``is_sensitive``).
SENSITIVE_TAG = re.compile(r"(?:^|[\s>|])#sensitive", re.I | re.M)
MAX_EDITED = 32  # more notes changed than this: the refresh parses them anyway (a sync, a checkout)


def front_digest(front: str | None, size: int) -> str:
    """What tells a head's frontmatter unchanged without parsing: the digest of its text (``front``, None when the
    note has none), or "" for an empty note or one too large for its body to be parsed (always parsed again)."""
    if not size or size > MAX_PARSE_BYTES:
        return ""
    text = "\0" if front is None else "-" + front
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _day(mtime_ns: int) -> str:
    """The UTC day of a file time: a note's date when its frontmatter gives none (:func:`mdmem.text.parse._date`)."""
    return time.strftime("%Y-%m-%d", time.gmtime(mtime_ns / 1e9))


class Look:
    """What :func:`only_bodies` saw: the notes cache's ``state`` (``[epoch, generation]``) and the notes ``added``,
    ``changed`` and ``removed`` since it was written (sorted, as :meth:`mdmem.engine.store.Store.diff` gives them:
    a refresh that follows need not read the cache's stats again), and whether only bodies changed (``kept``)."""

    __slots__ = ("added", "changed", "kept", "removed", "state")

    def __init__(self, state: list, added: list[str], changed: list[str], removed: list[str], kept: bool) -> None:
        self.state, self.kept = state, kept
        self.added, self.changed, self.removed = tuple(sorted(added)), tuple(sorted(changed)), tuple(sorted(removed))


def only_bodies(vault: str, scan: files.Scan, state: object) -> Look | None:
    """Have the notes that changed since the notes cache was written, when the cache is still the one ``state`` (its
    ``[epoch, generation]``) names, each changed in their body alone, in a way the card does not show: the same
    frontmatter text (:func:`front_digest`), nothing like a ``#sensitive`` tag in the body, not a sensitive note,
    the user's note (its body is on the card) nor an agent's (its body decides whether it is still unconfirmed), a
    regular file, a date that does not follow the file's time? The :class:`Look` says (``kept``). None when the
    cache cannot be read as it stands (missing, damaged, of another layout, locked) or another cache than
    ``state``: the caller refreshes and parses as before."""
    if scan.broken or not isinstance(state, list) or len(state) != 2:
        return None
    path = state_folder(vault, "notes.db")
    uri = "file:" + path.replace("%", "%25").replace("?", "%3f").replace("#", "%23") + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=0.2, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        return _look(vault, db, scan, state)
    except (sqlite3.Error, OSError, ValueError, TypeError, IndexError):
        return None
    finally:
        db.close()


def _look(vault: str, db: sqlite3.Connection, scan: files.Scan, state: list) -> Look | None:
    db.execute("BEGIN")  # one snapshot: the state, the stats and the heads read together
    meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('epoch', 'gen')"))
    if [meta.get("epoch", ""), int(meta.get("gen", 0))] != state:
        return None
    cached = {p: (m, s, c) for p, m, s, c in db.execute("SELECT path, mtime_ns, size, ctime_ns FROM notes")}
    current = scan.notes
    get = cached.get
    differ = [p for p, st in current.items() if get(p) != st]
    added = [p for p in differ if p not in cached]
    changed = [p for p in differ if p in cached] if added else differ
    removed = [p for p in cached if p not in current] if len(cached) != len(current) - len(added) else []
    look = Look(state, added, changed, removed, False)
    if added or removed or not changed or len(changed) > MAX_EDITED:
        return look
    heads = {r[0]: r for r in db.execute(
        f"SELECT path, type, flags, date, front FROM heads WHERE path IN ({','.join('?' * len(changed))})", changed)}
    look.kept = all(rel in heads and _same_head(vault, rel, heads[rel], cached[rel][0], current[rel])
                    for rel in changed)
    return look


def _same_head(vault: str, rel: str, row: tuple, was_mtime: int, now: tuple[int, int, int]) -> bool:
    _, kind, flags, date, front = row
    if not front or not isinstance(front, str) or kind == "user" or not isinstance(flags, str) or "a" in flags \
            or "s" in flags:  # the user's note, an agent's, a sensitive one (maybe by an inline tag): parsed
        return False
    if date == _day(was_mtime) and date != _day(now[0]):  # its date may be the file's, and that moved
        return False
    full = os.path.join(vault, rel)
    if stat.S_ISLNK(os.lstat(full).st_mode):  # a note made a link: the refresh reads it as it always does
        return False
    fd = files.open_regular(files.inside(vault, rel))
    try:
        st = os.fstat(fd)
        data = files.read_fd(fd, MAX_PARSE_BYTES + 1)
    finally:
        os.close(fd)
    if (st.st_mtime_ns, st.st_size, st.st_ctime_ns) != now or files.binary(data):  # written since the walk
        return False
    fm, body, _ = split_frontmatter(decoded(data)[0])
    return front_digest(fm, len(data)) == front and not SENSITIVE_TAG.search(body)

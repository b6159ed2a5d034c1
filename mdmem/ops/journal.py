"""The move journal: ``.mdmem/move.json``, written (durably) before a ``move`` makes its first change, removed
after its last. It says what moves where (with the version of the note's bytes read) and which notes get which
link rewrites (each note's version before and after, and the rewrites themselves), so that when the process is
killed midway (``kill -9``, a power cut) the next write, ``mdmem move --resume`` or the MCP server finishes
it (:func:`mdmem.ops.move.resume`), and ``check`` reports it meanwhile. Without it, a killed move left most
linking notes pointing at the old name, with no notice.

A journal is vault state like the rest of ``.mdmem/``: read within the vault's bounds (a regular file, at most
:data:`MAX_BYTES`), checked field by field; one that does not read as a journal is reported and set aside
(renamed ``move.json.bad``), never obeyed in part.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.errors import MdmemError
from mdmem.base.state import check_state

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory

FILE = "move.json"
MAX_BYTES = 64 << 20  # a journal of 10,000 rewritten notes is a few MB


@dataclass(frozen=True)
class Rewrite:
    path: str                # the linking note's path before the move
    here: str                # its path after (the target, for the moved note itself)
    before: str              # its version (:func:`mdmem.base.files.version`) as read
    after: str               # its version once rewritten
    changes: list[tuple[int, str, str]]  # (line, old link, new link)


@dataclass(frozen=True)
class Journal:
    source: str
    target: str
    version: str             # the moved note's version as read
    rewrites: list[Rewrite]


class BadJournal(MdmemError):
    """``.mdmem/move.json`` does not read as a move journal."""


def _path(mem: Memory) -> str:
    return os.path.join(mem.state_dir, FILE)


def pending(mem: Memory) -> bool:
    """Is there an interrupted move to finish? (One ``lstat``.)"""
    return os.path.lexists(_path(mem))


def record(mem: Memory, journal: Journal) -> None:
    """Write the journal, synced to disk, before the move's first change; never through a symlinked ``.mdmem`` nor
    over a symlinked ``move.json`` (:func:`mdmem.base.state.check_state`, which knows this file)."""
    check_state(mem.root)
    data = {"source": journal.source, "target": journal.target, "version": journal.version,
            "rewrites": [{"path": r.path, "here": r.here, "before": r.before, "after": r.after,
                          "changes": [list(c) for c in r.changes]} for r in journal.rewrites]}
    fs.write_atomic(_path(mem), json.dumps(data, ensure_ascii=False).encode("utf-8"))


def load(mem: Memory) -> Journal | None:
    """The journal of an interrupted move, None when there is none; :class:`BadJournal` when it does not read
    as one (it is then set aside, so it stops every write only once)."""
    path = _path(mem)
    check_state(mem.root)  # a symlinked move.json is refused there, never read
    try:
        fd = fs.open_regular(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        _set_aside(path)
        raise BadJournal(f".mdmem/{FILE} cannot be read ({e.strerror}); set aside as {FILE}.bad") from None
    try:
        raw = fs.read_fd(fd, MAX_BYTES + 1)
    finally:
        os.close(fd)
    try:
        if len(raw) > MAX_BYTES:
            raise ValueError("too large")
        data = json.loads(raw)
        rewrites = [Rewrite(_str(r["path"]), _str(r["here"]), _str(r["before"]), _str(r["after"]),
                            [(int(n), _str(a), _str(b)) for n, a, b in r["changes"]]) for r in data["rewrites"]]
        return Journal(_str(data["source"]), _str(data["target"]), _str(data["version"]), rewrites)
    except (ValueError, KeyError, TypeError) as e:
        _set_aside(path)
        raise BadJournal(f".mdmem/{FILE} is not a move journal ({type(e).__name__}); set aside as {FILE}.bad; "
                         "check the links of the last move by hand (mdmem check)") from None


def clear(mem: Memory) -> None:
    try:
        os.unlink(_path(mem))
    except FileNotFoundError:
        pass


def set_aside(mem: Memory) -> None:
    """Keep a journal that cannot be followed as ``move.json.bad`` (for a person to read), out of the way."""
    _set_aside(_path(mem))


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def _set_aside(path: str) -> None:
    try:
        os.replace(path, path + ".bad")
    except OSError:
        pass

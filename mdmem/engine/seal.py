"""The search index's seal: which index files mdmem wrote, signed with the user's key, checked before Whoosh reads one.

Every index file Whoosh opens (it unpickles them) must have the SHA-256 listed in
``.mdmem/index/mdmem.seal``, a manifest signed (HMAC) with the user's key; anything else raises
:class:`Untrusted` before it is parsed, and the index is rebuilt from the notes.

Measurements: docs/decisions/058-hostile-vault-boundary.md
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
import stat
import time

from mdmem.base import files as fs
from mdmem.base.keys import mac, same, user_key

MANIFEST = "mdmem.seal"
VERSION = 1
RACY_NS = 100_000_000  # a stamp younger than this (since the file's ctime) is not trusted: 0.1 s >> a clock tick
WAIT_MIN = 1 << 20  # bytes: a racy file this large is hashed after RACY_NS has passed (then its stamp holds)
MANIFEST_MAX = 4 << 20  # bytes read of a manifest at most
_TOC = re.compile(r"^_[A-Za-z0-9]+_[0-9]+\.toc$")
_SEGMENT = re.compile(r"^_?[A-Za-z0-9]+_[0-9a-z]+\.[A-Za-z0-9_.]+$")


class Untrusted(OSError):
    """An index file that is not sealed with the user's key (unsigned, altered, another key's); not opened."""


def is_toc(name: str) -> bool:
    return bool(_TOC.match(name))


def _index_file(name: str) -> bool:
    return bool(_TOC.match(name) or _SEGMENT.match(name)) and not name.endswith(".tmp")


def _stamp(st: os.stat_result) -> list[int]:
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _digest(fd: int, size: int) -> str:
    if size == 0:
        return hashlib.sha256(b"").hexdigest()
    with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as view:
        return hashlib.sha256(view).hexdigest()


class Seal:
    """The manifest of one index folder: read (and its MAC checked) on first use and again when a file is not
    in it (another process committed meanwhile); written by :meth:`write` at each commit."""

    def __init__(self, folder: str | os.PathLike, vault: str | os.PathLike | None = None) -> None:
        self.folder = os.fspath(folder)
        self.key = user_key(vault)
        self.entries: dict[str, dict] = {}
        self._seen: tuple | None = None  # the manifest's stamp when last read

    # reading ---------------------------------------------------------------
    def load(self) -> None:
        """Read the manifest; anything unsigned, damaged or signed with another key leaves no entry."""
        path = os.path.join(self.folder, MANIFEST)
        self.entries = {}
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            self._seen = None
            return
        try:
            st = os.fstat(fd)
            self._seen = tuple(_stamp(st))
            if not stat.S_ISREG(st.st_mode):
                return
            data = fs.read_fd(fd, MANIFEST_MAX + 1)
        finally:
            os.close(fd)
        body, _, signature = data.rstrip(b"\n").rpartition(b"\n")
        if len(data) > MANIFEST_MAX or not body or not same(signature.decode("ascii", "replace"), mac(self.key, body)):
            return
        try:
            payload = json.loads(body)
            entries = payload["files"] if payload.get("version") == VERSION else {}
            if isinstance(entries, dict) and all(isinstance(e, dict) for e in entries.values()):
                self.entries = entries
        except (ValueError, TypeError, AttributeError, KeyError):
            pass

    def _changed(self) -> bool:
        try:
            return tuple(_stamp(os.lstat(os.path.join(self.folder, MANIFEST)))) != self._seen
        except OSError:
            return self._seen is not None

    def open(self, name: str) -> int:
        """A read-only descriptor on the index file ``name`` once its content is the sealed one; else
        :class:`Untrusted` (nothing of it read but to hash it)."""
        path = os.path.join(self.folder, name)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise Untrusted(f"{path} is not a regular file")
            if self._seen is None or (name not in self.entries and self._changed()):
                self.load()
            entry = self.entries.get(name)
            if entry is None:
                raise Untrusted(f"{path} is not sealed with your key")
            if entry.get("stamp") == _stamp(st) and entry.get("settled"):
                return fd
            if entry.get("size") != st.st_size or not same(entry.get("sha256", ""), _digest(fd, st.st_size)):
                raise Untrusted(f"{path} changed since mdmem sealed it")
        except BaseException:
            os.close(fd)
            raise
        return fd

    # writing ---------------------------------------------------------------
    def write(self, renamed: tuple[str, str], created: set[str], fresh: bool) -> None:
        """Seal the folder as it is about to be: ``renamed`` (temp name, TOC name) is the commit's table of
        contents; ``created``: the files this process wrote; ``fresh``: every file here is this process's (a
        new index being built)."""
        if self._seen is None:
            self.load()
        temp, toc = renamed
        entries: dict[str, dict] = {}
        for name in sorted(os.listdir(self.folder)):
            final = toc if name == temp else name
            if not _index_file(final) or name == MANIFEST:
                continue
            ours = fresh or name in created or name == temp
            old = self.entries.get(final)
            if not ours and old is None:
                continue  # not written by mdmem, never signed
            entry = self._entry(name, None if ours else old, toc=final == toc)
            if entry is not None:
                entries[final] = entry
        body = json.dumps({"version": VERSION, "files": entries}, sort_keys=True, separators=(",", ":")).encode()
        fs.write_atomic(os.path.join(self.folder, MANIFEST), body + b"\n" + mac(self.key, body).encode() + b"\n",
                        durable=False)
        self.entries = entries
        self._seen = tuple(_stamp(os.lstat(os.path.join(self.folder, MANIFEST))))

    def _entry(self, name: str, old: dict | None, toc: bool) -> dict | None:
        """The entry of a file: hashed now, or ``old`` when the file still has the stamp it was sealed with."""
        path = os.path.join(self.folder, name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return None
            if old is not None and old.get("stamp") == _stamp(st) and old.get("settled"):
                return old
            age = time.time_ns() - st.st_ctime_ns
            if not toc and st.st_size >= WAIT_MIN and 0 <= age < RACY_NS:
                time.sleep((RACY_NS - age) / 1e9)
            hashed_at = time.time_ns()
            digest = _digest(fd, st.st_size)
            if old is not None and not same(old.get("sha256", ""), digest):
                return None  # changed since it was sealed: never signed now
            st = os.fstat(fd)
        finally:
            os.close(fd)
        # a TOC is renamed after this (the rename changes its ctime): hashed at every open, it is small
        settled = not toc and hashed_at - st.st_ctime_ns >= RACY_NS
        return {"size": st.st_size, "sha256": digest, "stamp": _stamp(st), "settled": settled}

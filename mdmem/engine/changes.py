"""Has anything in the vault changed since we last asked? For long-running
processes (``mdmem mcp``) that would otherwise ``stat`` every note before every
call (~100 ms at 10k notes).

Linux inotify, read without blocking and without a thread: the kernel queues an
event before the system call that caused it returns, so a change made before
:meth:`Changes.changed` is called is always seen by it (no race with a watcher
thread). Every non-hidden folder is watched (symlinked ones at their target, a
symlinked file on its own); new folders are added as they appear. Where inotify
is missing or fails (another OS, the watch limit), :meth:`changed` always
answers True and the caller refreshes as usual. Standard library only.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging
import os
import struct
import sys
from pathlib import Path

log = logging.getLogger("mdmem.engine.changes")

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED, IN_ISDIR = 0x400, 0x800, 0x4000, 0x8000, 0x40000000
MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
        | IN_DELETE_SELF | IN_MOVE_SELF)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then the name, NUL-padded)


class Changes:
    """``changed()``: True when something under ``root`` may have changed since the previous call."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.fd: int | None = None
        try:
            if not sys.platform.startswith("linux"):
                raise OSError(errno.ENOSYS, "inotify is Linux-only")
            self._libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
            if fd < 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            self.fd = fd
            self._watch_tree(str(root))
        except (OSError, AttributeError) as e:
            log.info("not watching %s for changes (%s): every call checks the files", root, e)
            self.close()

    @property
    def watching(self) -> bool:
        return self.fd is not None

    def _watch(self, path: str) -> None:
        if self._libc.inotify_add_watch(self.fd, os.fsencode(path), MASK) < 0:
            raise OSError(ctypes.get_errno(), f"cannot watch {path}: {os.strerror(ctypes.get_errno())}")

    def _watch_tree(self, top: str) -> None:
        """Watch ``top`` and the non-hidden folders under it, as :func:`mdmem.base.files.scan` walks them."""
        seen: set[tuple[int, int]] = set()
        stack = [top]
        while stack:
            folder = stack.pop()
            try:
                st = os.stat(folder)
                if (st.st_dev, st.st_ino) in seen:
                    continue
                seen.add((st.st_dev, st.st_ino))
                self._watch(folder)
                entries = list(os.scandir(folder))
            except FileNotFoundError:  # gone meanwhile: its parent's event says so
                continue
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                try:
                    if entry.is_dir():
                        stack.append(entry.path)
                    elif entry.is_symlink():  # its target changes where no folder watch sees it
                        self._watch(entry.path)
                except FileNotFoundError:
                    continue

    def changed(self) -> bool:
        if self.fd is None:
            return True
        found = False
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return found
            except OSError as e:
                log.warning("reading file-system events failed (%s): every call checks the files from now on", e)
                self.close()
                return True
            found = self._parse(data) or found
            if self.fd is None:  # watching a new folder failed
                return True

    def _parse(self, data: bytes) -> bool:
        found, at = False, 0
        while at + _EVENT.size <= len(data):
            _wd, mask, _cookie, size = _EVENT.unpack_from(data, at)
            name = data[at + _EVENT.size: at + _EVENT.size + size].split(b"\0", 1)[0]
            at += _EVENT.size + size
            if mask & IN_Q_OVERFLOW:
                found = True
            elif mask & IN_IGNORED or name.startswith(b"."):
                continue  # a removed watch (its folder's deletion is its own event); hidden files
            else:
                found = True
            if mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO) and self.fd is not None:
                self._watch_new()
        return found

    def _watch_new(self) -> None:
        # the event does not say where (that would need a wd -> path map); a new folder is
        # rare, so walk the folders again (watching one twice is harmless)
        try:
            self._watch_tree(str(self.root))
        except OSError as e:
            log.warning("cannot watch a new folder (%s): every call checks the files from now on", e)
            self.close()

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

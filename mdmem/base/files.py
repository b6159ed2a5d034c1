"""The vault on disk: walking it, reading it within its bounds, writing it atomically, and the one
lock. Every other module reaches the disk through here (which folder is a vault, finding it and
making one: :mod:`mdmem.base.vault`; where the vault's derived state lives, ``.mdmem/``, and how it is
read and written: :mod:`mdmem.base.state`).

Nothing outside the vault root is read (no symlink out, regular files only, at most :data:`MAX_READ`
bytes); hidden path segments are ignored; only ``.md`` files are notes.

Cheap to import (os, stat, errno): the Claude Code hooks take the lock and the atomic writer from here.

Details and reasons: docs/decisions/058-hostile-vault-boundary.md
"""

from __future__ import annotations

import errno
import os
import stat
import time

from mdmem.base.errors import LockTimeout, WriteConflict

TYPE_CHECKING = False  # not `from typing import`: this module stays cheap for the hooks
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from mdmem.base import models
    from mdmem.base.models import Problem

NOT_TEXT = "not_text"  # the problem code of a file found binary (:func:`binary`)
TEXT_PROBE = 1024  # bytes: a NUL among a file's first this many is a binary file named .md, not a note (:func:`binary`)
MAX_READ = 64 * 1024 * 1024  # bytes read of any one vault file at most (a 50 MB note loads, /dev/zero does not)


class OutsideVault(OSError):
    """A path leads outside the vault's root; nothing was read."""


class NotRegular(OSError):
    """A FIFO, device or socket named like a note; never opened for reading."""


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Scan:
    """What is on disk now: notes with their (mtime_ns, size, ctime_ns) (:func:`scan`), other files,
    notes that could not even be stat'ed, and folder-level problems.
    (A plain class, not a dataclass: this module stays cheap for the hooks.)"""

    __slots__ = ("notes", "files", "broken", "problems", "folders", "excluded", "_keys", "digests")

    def __init__(self, notes: dict[str, tuple[int, int, int]], files: tuple[str, ...],
                 broken: dict[str, Problem], problems: tuple[tuple[str, Problem], ...],
                 folders: dict[str, int] | None = None, excluded: dict[str, str] | None = None) -> None:
        self.notes, self.files, self.broken, self.problems = notes, files, broken, problems
        self.folders = folders or {}  # every folder walked -> its mtime_ns, taken before it was listed
        # Markdown files Obsidian keeps out of search and the graph (its Excluded files, its templates folder):
        # vault path -> "excluded" or "template". Never notes; listed in ``files`` too, so links to them resolve
        # (as in Obsidian) and ``show PATH`` still reads them.
        self.excluded = excluded or {}
        self._keys: dict[str, str] | None = None
        self.digests: dict[str | None, str] = {}  # digest(self, unstated), made once: a walk is never changed

    def on_disk(self, rel: str) -> str | None:
        """The path of the note or file that ``rel`` names as it is on disk: ``rel`` itself when it was walked,
        else the one whose NFC key (:func:`mdmem.base.layout.nfc`) is ``rel``'s (``Café.md`` typed NFC, written
        NFD by a Mac), the NFC-named one of twins; None when there is none. What a writer checks before it
        creates ``rel``, so that it never makes a twin of a note that is there under another form."""
        from mdmem.base.layout import nfc

        if rel in self.notes or rel in self.broken:
            return rel
        if self._keys is None:  # only non-ASCII names can differ in form: a few, built once a scan
            self._keys = {}
            for path in (*self.notes, *self.broken, *self.files):
                if not path.isascii():
                    key = nfc(path)
                    if self._keys.setdefault(key, path) != path and path == key:
                        self._keys[key] = path  # twins: the NFC-named one, as links resolve
        return self._keys.get(nfc(rel)) or (rel if rel in self.files else None)


def scan(root: str | os.PathLike, unstated: str | None = None) -> Scan:
    """Walk the vault with ``os.scandir``: the one walker. Follows a symlink only when its
    target lies inside the vault, never in a loop.

    ``unstated``: a folder (vault path, e.g. ``sessions``) whose notes are neither stat-ed nor listed, its
    folders still walked and their mtimes kept: the prompt hook's look at whether anything changed, which
    compares ``digest(scan, unstated)`` with the one the notes cache keeps (10k imported session notes cost
    10k ``stat`` calls, two thirds of that hook, and are written by ``mdmem import``, which refreshes the
    cache itself; one added, removed or renamed moves its folder's mtime).

    Only notes are ``stat``-ed; folders are recognised from ``d_type`` and
    other files are listed by name, so a 10k-note vault costs ~10k syscalls;
    a symlink costs one ``realpath`` more. Each folder is listed through a descriptor of it where
    the platform allows (``os.scandir(fd)``), so a note's ``stat`` is ``fstatat`` on its bare name
    rather than a walk of its whole path again: 45 -> 38 ms CPU for the generated 10k vault (median
    of 15 in one process, under load), the same result.

    Paths are the names as they are on disk, never normalised: a name written in NFD (macOS, sync tools)
    must be opened by those bytes on Linux. Matching is by :func:`mdmem.base.layout.nfc` keys, elsewhere.
    NFC/NFD twins (two files on Linux) are two notes here; ``check`` reports them (NAME TWINS).

    A note's change fingerprint is ``(st_mtime_ns, st_size, st_ctime_ns)``, the same ``stat`` (no syscall
    more). mtime and size alone missed an edit that keeps both (``cp -p``, ``touch -r``, an rsync or a backup
    restoring mtimes): the card and search kept the old text. ``st_ctime_ns`` is set by the kernel at every
    change of the file (a write, and the ``utimensat`` that puts an mtime back) and no user call can set it.
    It also moves on a chmod or a rename: such a note is parsed again once, nothing more. mtime stays the
    note's date (a restored mtime is the date the user means). Cost, measured on the generated 10k vault (2
    cores shared with other test runs; 7 interleaved A/B process pairs against the previous commit, each the
    median of 15 in-process runs): the walk + the cache's diff, what every command pays when nothing changed,
    93.6 -> 101.9 ms (median of the pairs' ratios 1.05, the pairs ranging 0.69-1.37: within the noise); a
    whole no-change ``refresh`` 102 -> 90 ms. The one real cost: the notes cache's schema changed (a
    ``ctime_ns`` column), so an existing cache is rebuilt once."""

    def Problem(code: str, message: str) -> models.Problem:
        from mdmem.base.models import Problem  # (dataclasses + typing: ~20 ms of a Stop hook that fires)

        return Problem(code, message)

    top = str(root)
    left_out = None
    if os.path.lexists(os.path.join(top, ".obsidian")):  # else no settings module: ~30 ms of a hook's imports
        from mdmem.base.obsidian import obsidian_settings

        obsidian = obsidian_settings(top)
        left_out = obsidian.excluded if (obsidian.ignore_filters or obsidian.templates) else None
    excluded: dict[str, str] = {}
    real_top = os.path.realpath(top)
    inside = real_top.rstrip(os.sep) + os.sep
    cut = len(top) + 1
    notes: dict[str, tuple[int, int, int]] = {}
    files: list[str] = []
    broken: dict[str, models.Problem] = {}
    problems: list[tuple[str, models.Problem]] = []
    st = os.stat(top)
    seen = {(st.st_dev, st.st_ino)}
    stack: list[tuple[str, int, tuple[tuple[int, int], ...]]] = [(top, st.st_dev, ((st.st_dev, st.st_ino),))]

    def rel(path: str) -> str:
        return path[cut:] if os.sep == "/" else path[cut:].replace(os.sep, "/")

    folders: dict[str, int] = {}
    by_fd = os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY")

    skip = None if unstated is None else unstated.strip("/") + "/"

    def _walk_folder(folder: str, base: str, dev: int, ancestors: tuple, entries: list) -> None:
        if skip is not None and base.startswith(skip):  # its notes left out by d_type (no stat), in one pass
            entries = [e for e in entries if not (e.name[-3:].lower() == ".md" and e.is_file(follow_symlinks=False))]
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if not name.isascii() and not _utf8(name):
                problems.append((rel(os.path.join(folder, name)).encode("utf-8", "replace").decode(), Problem(
                    "not_utf8", "file name is not valid UTF-8; skipped")))
                continue
            is_note = name.lower().endswith(".md")
            try:
                link = entry.is_symlink()
                if link:
                    target = os.path.realpath(os.path.join(folder, name))
                    if target != real_top and not target.startswith(inside):
                        problems.append((rel(os.path.join(folder, name)), Problem(
                            "outside_vault", "symlink to a place outside the vault; not followed")))
                        continue
                if entry.is_dir():
                    if link:
                        st = entry.stat()
                        key, child_dev = (st.st_dev, st.st_ino), st.st_dev
                    else:
                        key, child_dev = (dev, entry.inode()), dev
                    if key in ancestors:
                        problems.append((rel(os.path.join(folder, name)), Problem(
                            "symlink_loop", "symlink to one of its own parent folders; not followed")))
                    elif key not in seen:
                        seen.add(key)
                        stack.append((os.path.join(folder, name), child_dev, ancestors + (key,)))
                elif is_note:
                    st = entry.stat()
                    if not stat.S_ISREG(st.st_mode):  # a FIFO or device: never a note, never opened
                        problems.append((rel(os.path.join(folder, name)), Problem(
                            "not_regular", "not a regular file (a FIFO, device or socket named .md); not a note")))
                    elif left_out is not None and (why := left_out(base + name)):
                        excluded[base + name] = why
                        files.append(base + name)
                    else:
                        notes[base + name] = (st.st_mtime_ns, st.st_size, st.st_ctime_ns)
                else:
                    files.append(base + name)
            except OSError as e:
                code = "symlink_loop" if e.errno == errno.ELOOP else "unreadable"
                problem = Problem(code, f"cannot stat: {e.strerror}")
                if is_note:
                    broken[rel(os.path.join(folder, name))] = problem
                else:
                    problems.append((rel(os.path.join(folder, name)), problem))

    while stack:
        folder, dev, ancestors = stack.pop()
        here = rel(folder) if folder != top else ""
        base = here + "/" if here else ""  # a note's path is base + its name: no slicing of every path
        fd = -1
        try:
            folders[here] = os.stat(folder).st_mtime_ns
            if by_fd:
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            entries = list(os.scandir(fd if by_fd else folder))
        except OSError as e:
            if fd >= 0:
                os.close(fd)
            problems.append((rel(folder), Problem("unreadable", f"cannot list folder: {e.strerror}")))
            continue
        try:
            _walk_folder(folder, base, dev, ancestors, entries)
        finally:
            if fd >= 0:
                os.close(fd)
    return Scan(notes, tuple(sorted(files)), broken, tuple(problems), folders, excluded)


UNSTATED_DIGEST = "scan_digest_sessions_unstated"  # notes cache meta: digest(scan, SESSIONS_DIR) of the scan it holds


def digest(scan: Scan, unstated: str | None = None) -> str:
    """A short hash of what a scan saw: equal digests, same notes on disk. Made of the number of notes, the
    sums of their mtimes and sizes, the unreadable notes' paths and every folder's mtime: an edit moves a
    note's mtime, and adding, removing or renaming a file moves its folder's. Order-free sums instead of
    hashing every path: 1-2 ms for 10k notes where hashing sorted path/stat lines took as long as the scan
    itself (56 vs 82 ms, measured at 10k under load). Salted with what a path means (names as on disk
    since NFD names stopped being keyed by their NFC form): a cache made by an older walker, whose sums can
    be the same, is looked at once more. ``unstated``: the digest leaves that folder's notes out (their count,
    stats and unreadable ones; its folders' mtimes stay): the same for a full scan and ``scan(root, unstated)``.
    Made once per scan and ``unstated`` (the card's hook asked for it four times)."""
    from mdmem.base.blake import blake2b

    known = scan.digests.get(unstated)
    if known is not None:
        return known
    notes, broken = scan.notes, scan.broken
    h = blake2b(digest_size=16)
    h.update(b"paths as on disk, ctime\n")
    if unstated is not None:
        skip = unstated.strip("/") + "/"
        if skip[:-1] in scan.folders:  # else no note can be under it
            notes = {p: st for p, st in notes.items() if not p.startswith(skip)}
            broken = {p: b for p, b in broken.items() if not p.startswith(skip)}
        h.update(f"without the notes of {skip}\n".encode("utf-8", "surrogateescape"))
    h.update(f"{sums(notes) if unstated is not None else scan_sums(scan)}\n".encode())
    for rel in sorted(broken):
        h.update(f"{rel}\0broken\n".encode("utf-8", "surrogateescape"))
    for rel, mtime in sorted(scan.folders.items()):
        h.update(f"{rel}\0{mtime}\n".encode("utf-8", "surrogateescape"))
    scan.digests[unstated] = h.hexdigest()
    return scan.digests[unstated]


def sums(notes: dict[str, tuple[int, int, int]]) -> str:
    """The count of ``notes`` (path -> the walk's (mtime_ns, size, ctime_ns)) and the sums of their stats: what any
    write of a note moves (its ctime, set by the kernel at every change, only moves forward)."""
    stats = notes.values()
    return f"{len(notes)}:{sum(m for m, _, _ in stats)}:{sum(s for _, s, _ in stats)}:{sum(c for _, _, c in stats)}"


def scan_sums(scan: Scan) -> str:
    """:func:`sums` of the scan's notes, made once per scan (the card's key and the scan's digest both hold it)."""
    known = scan.digests.get(_SUMS)
    if known is None:
        known = scan.digests[_SUMS] = sums(scan.notes)
    return known


_SUMS = "\0sums"  # its key among a scan's digests (no folder is named so)


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes come back as surrogates
        return False
    return True


def stat_note(root: Path, rel: str) -> tuple[int, int] | None:
    return _stat(os.path.join(root, rel))


def _stat(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def inside(root: str | os.PathLike, rel: str | os.PathLike) -> str:
    """The real path of ``root / rel`` when it lies inside the vault; raises :class:`OutsideVault`."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, rel))
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise OutsideVault(errno.EACCES, "outside the vault", str(rel))
    return real


def open_regular(path: str | os.PathLike, follow: bool = True) -> int:
    """A descriptor on ``path`` if it is a regular file (FIFOs are opened non-blocking, then refused); ``follow``:
    False, never through a symlink (mdmem's derived state)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
                 | (0 if follow else _NOFOLLOW))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_fd(fd: int, limit: int) -> bytes:
    chunks, left = [], limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def binary(data: bytes) -> bool:
    """A NUL byte among the first :data:`TEXT_PROBE` bytes: not text (git's and grep's test, on the first KB).
    No Markdown holds one, UTF-16 text does (it is not read as a note either), and random bytes have one
    in their first KB with probability 1 - (255/256)**1024 = 98%. Such a file is reported, never parsed: a
    new user's trial found 200 KB of random bytes decoded as cp1252 into made-up tags and ~62,500 tokens."""
    return b"\0" in data[:TEXT_PROBE]


def read_bytes(root: str | os.PathLike, rel: str | os.PathLike, limit: int = MAX_READ) -> bytes:
    """Read one vault file within the vault's bounds: a regular file inside the root, at most
    ``limit`` bytes. Raises OSError (:class:`OutsideVault`, :class:`NotRegular`, ...): the caller
    turns it into a Problem or a message."""
    fd = open_regular(inside(root, rel))
    try:
        return read_fd(fd, limit)
    finally:
        os.close(fd)


def read_stat(root: str | os.PathLike, rel: str | os.PathLike,
              limit: int = MAX_READ) -> tuple[bytes | None, tuple[int, int] | None]:
    """A vault file's bytes and the (mtime_ns, size) they were read at; (None, None) if absent."""
    try:
        fd = open_regular(inside(root, rel))
    except FileNotFoundError:
        return None, None
    try:
        st = os.fstat(fd)
        return read_fd(fd, limit), (st.st_mtime_ns, st.st_size)
    finally:
        os.close(fd)


def read_outside(path: str | os.PathLike, limit: int, tail: bool = False) -> bytes:
    """A regular file that is not in a vault (a transcript, ``save --file``), at most ``limit``
    bytes: the first ones, or with ``tail`` the last ones. Never blocks on a FIFO or a device."""
    fd = open_regular(path)
    try:
        if tail:
            size = os.fstat(fd).st_size
            if size > limit:
                os.lseek(fd, size - limit, os.SEEK_SET)
        return read_fd(fd, limit)
    finally:
        os.close(fd)


def write_atomic(path: str | os.PathLike, data: bytes, expected: tuple[int, int] | None = None,
                 durable: bool = True) -> None:
    """Write via a temp file in the same folder, fsync, ``os.replace``.

    ``durable=False`` skips the two fsyncs (still atomic: a reader sees the old file or the
    new one, but a power cut may lose the write): for derived state that is rebuilt when lost,
    such as the Stop hook's per-session counters (measured: the fsyncs were 10-15 ms of a quiet
    stop's ~25 ms).

    ``expected`` is the (mtime_ns, size) seen when the file was read: when the
    file changed since, nothing is written and :class:`WriteConflict` is raised.
    It is compared twice: before the temp file is written (fail fast) and again
    just before the rename, so an edit made while the temp file was being written
    and synced is not overwritten (measured: the single early check lost 5 of 5
    edits in a targeted race; the window left is the few microseconds between the
    last ``stat`` and ``rename``, which POSIX offers no way to close)."""
    path = os.fspath(path)
    folder, name = os.path.split(path)
    folder = folder or "."
    os.makedirs(folder, exist_ok=True)

    def unchanged() -> None:
        if expected is not None and _stat(path) != expected:
            raise WriteConflict(f"{path} changed on disk since it was read; nothing was written")

    unchanged()
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        try:  # keep the replaced file's mode, else the umask's
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if durable:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        unchanged()
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with _suppress():
            os.unlink(tmp)
        raise
    if not durable:
        return
    with _suppress():
        dirfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)


def write_new(path: Path, data: bytes) -> None:
    """Create ``path``; refuse when something appeared there meanwhile."""
    if path.exists():
        raise WriteConflict(f"{path} appeared on disk meanwhile; nothing was written")
    write_atomic(path, data)


def move_new(root: Path, source: str, target: str, what: str) -> None:
    """Move the vault file ``source`` to ``target`` (vault-relative; the folder is made), never over a file that
    appeared there meanwhile: a hard link then an unlink where the file system has them, else a rename after a last
    look. ``what`` ("moved", "restored") says what did not happen, in the :class:`WriteConflict`."""
    src, dst = root / source, root / target
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
        os.unlink(src)
    except FileExistsError:
        raise WriteConflict(f"{target} appeared meanwhile; nothing was {what}") from None
    except OSError:
        if os.path.lexists(dst):
            raise WriteConflict(f"{target} appeared meanwhile; nothing was {what}") from None
        os.rename(src, dst)


def archive_target(root: Path, rel: str, flat: bool = False) -> str:
    """Where forgetting ``rel`` moves it: ``memory/.archive/<path under memory/>``, in a flat vault
    ``.archive/<path>`` (``-2``, ``-3``... when taken)."""
    from mdmem.base.layout import archive_path

    base = archive_path(rel, flat)
    stem, n = base[:-3], 2
    while os.path.lexists(os.path.join(root, base)):
        base, n = f"{stem}-{n}.md", n + 1
    return base


def clean_temp(folder: Path, older_than: float = 3600.0) -> int:
    """Remove mdmem's own temp files (``.NAME.PID.HEX.tmp``) left in ``folder`` by a killed writer
    more than ``older_than`` seconds ago. Returns how many were removed."""
    removed, now = 0, time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if entry.name.startswith(".") and entry.name.endswith(".tmp") and entry.is_file(follow_symlinks=False):
            with _suppress():
                if now - entry.stat(follow_symlinks=False).st_mtime > older_than:
                    os.unlink(entry.path)
                    removed += 1
    return removed


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class _suppress:
    def __enter__(self) -> _suppress:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return exc[0] is not None and issubclass(exc[0], OSError)


class Lock:
    """The one lock: an exclusive ``flock`` on ``path``, waited for up to ``timeout`` seconds
    (then :class:`LockTimeout` with ``message``). ``with Lock(...) as immediate``: True when the
    lock was free at once. The kernel frees it when the process dies, even on ``kill -9``."""

    def __init__(self, path: str | os.PathLike, timeout: float, message: str | None = None) -> None:
        self.path, self.timeout, self.message = os.fspath(path), timeout, message
        self.fd = -1

    def __enter__(self) -> bool:
        import fcntl

        # never through a symlink: a planted one would have us create (or lock) a file anywhere
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
        immediate, deadline, delay = True, time.monotonic() + self.timeout, 0.005
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return immediate
            except BlockingIOError:
                immediate = False
                if time.monotonic() >= deadline:
                    os.close(self.fd)
                    self.fd = -1
                    raise LockTimeout(self.message or f"another process holds {self.path} "
                                      f"(waited {self.timeout:g} s)") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.1)

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = -1


def version(data: bytes) -> str:
    """A note's version: a hash of its bytes (what ``Memory.read`` and ``read_note`` return, and ``edit``
    checks as ``expected``)."""
    from mdmem.base.blake import blake2b

    return blake2b(data, digest_size=8).hexdigest()

"""The vault on disk: finding it, listing it, reading it, and writing it atomically.

This is the only module that touches vault files. Hidden path segments (any
name starting with ``.``: ``.obsidian``, ``.trash``, ``.git``, ``.mdmem``, and
mdmem's own temp files) are ignored; only ``.md`` files are notes, every other
file is a possible link target.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from .errors import MdmemError, VaultNotFound, WriteConflict
from .models import Problem

STATE_DIR = ".mdmem"


def mdmem_home() -> Path:
    return Path(os.environ.get("MDMEM_HOME") or Path.home() / ".mdmem")


def default_vault() -> Path:
    """The user's default vault, created by ``mdmem init`` with no PATH."""
    return mdmem_home() / "vault"


def is_vault(path: Path) -> bool:
    return (path / STATE_DIR).is_dir() or ((path / "MEMORY.md").is_file() and (path / "memory").is_dir())


def find_vault(explicit: str | os.PathLike | None = None, cwd: Path | None = None) -> Path:
    """``--vault``, then ``MDMEM_VAULT``, then the nearest ancestor that looks like
    a vault, then the default vault. First match wins."""
    for given, origin in ((explicit, "--vault"), (os.environ.get("MDMEM_VAULT"), "MDMEM_VAULT")):
        if given:
            path = Path(given).expanduser()
            if not path.is_dir():
                raise VaultNotFound(f"vault not found: {path} ({origin}) is not a folder")
            return path.resolve()
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if is_vault(folder):
            return folder
    fallback = default_vault()
    if fallback.is_dir():
        return fallback.resolve()
    raise VaultNotFound(
        "no vault found: pass --vault PATH, set MDMEM_VAULT, run mdmem inside a vault, "
        "or create the default vault with `mdmem init`"
    )


@dataclass(frozen=True)
class Scan:
    """What is on disk now: notes with their (mtime_ns, size), other files,
    notes that could not even be stat'ed, and folder-level problems."""

    notes: dict[str, tuple[int, int]]
    files: tuple[str, ...]
    broken: dict[str, Problem]
    problems: tuple[tuple[str, Problem], ...]


def scan(root: Path) -> Scan:
    """Walk the vault with ``os.scandir``, following symlinks but never in a loop.

    Only notes are ``stat``-ed; folders are recognised from ``d_type`` and
    other files are listed by name, so a 10k-note vault costs ~10k syscalls."""
    top = str(root)
    cut = len(top) + 1
    notes: dict[str, tuple[int, int]] = {}
    files: list[str] = []
    broken: dict[str, Problem] = {}
    problems: list[tuple[str, Problem]] = []
    st = os.stat(top)
    seen = {(st.st_dev, st.st_ino)}
    stack = [(top, st.st_dev, ((st.st_dev, st.st_ino),))]

    def rel(path: str) -> str:
        path = path[cut:] if os.sep == "/" else path[cut:].replace(os.sep, "/")
        return path if path.isascii() else unicodedata.normalize("NFC", path)

    while stack:
        folder, dev, ancestors = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as e:
            problems.append((rel(folder), Problem("unreadable", f"cannot list folder: {e.strerror}")))
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if not name.isascii() and not _utf8(name):
                problems.append((rel(entry.path).encode("utf-8", "replace").decode(), Problem(
                    "not_utf8", "file name is not valid UTF-8; skipped")))
                continue
            is_note = name.lower().endswith(".md")
            try:
                if entry.is_dir():
                    if entry.is_symlink():
                        st = entry.stat()
                        key, child_dev = (st.st_dev, st.st_ino), st.st_dev
                    else:
                        key, child_dev = (dev, entry.inode()), dev
                    if key in ancestors:
                        problems.append((rel(entry.path), Problem(
                            "symlink_loop", "symlink to one of its own parent folders; not followed")))
                    elif key not in seen:
                        seen.add(key)
                        stack.append((entry.path, child_dev, ancestors + (key,)))
                elif is_note:
                    st = entry.stat()
                    if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block a read
                        broken[rel(entry.path)] = Problem("unreadable", "not a regular file")
                    else:
                        notes[rel(entry.path)] = (st.st_mtime_ns, st.st_size)
                else:
                    files.append(rel(entry.path))
            except OSError as e:
                code = "symlink_loop" if e.errno == errno.ELOOP else "unreadable"
                problem = Problem(code, f"cannot stat: {e.strerror}")
                if is_note:
                    broken[rel(entry.path)] = problem
                else:
                    problems.append((rel(entry.path), problem))
    return Scan(notes, tuple(sorted(files)), broken, tuple(problems))


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes come back as surrogates
        return False
    return True


def stat_note(root: Path, rel: str) -> tuple[int, int] | None:
    try:
        st = os.stat(root / rel)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def read_bytes(root: Path, rel: str) -> bytes:
    """Read one vault file; raises OSError (the caller turns it into a Problem)."""
    with open(root / rel, "rb") as f:
        return f.read()


def write_atomic(path: Path, data: bytes, expected: tuple[int, int] | None = None) -> None:
    """Write via a temp file in the same folder, fsync, ``os.replace``.

    ``expected`` is the (mtime_ns, size) seen when the file was read: when the
    file changed since, nothing is written and :class:`WriteConflict` is raised.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if expected is not None:
        now = stat_note(path.parent, path.name)
        if now != expected:
            raise WriteConflict(f"{path} changed on disk since it was read; nothing was written")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    try:
        try:  # mkstemp makes 0600 files: keep the replaced file's mode, else the umask's
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with _suppress():
            os.unlink(tmp)
        raise
    with _suppress():
        dirfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class _suppress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is not None and issubclass(exc[0], OSError)


def skeleton_dir() -> Path:
    """The skeleton of a new vault: ``mdmem/skeleton`` in a wheel, ``vault/`` in a checkout."""
    packaged = Path(__file__).parent / "skeleton"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).parent.parent / "vault"
    if checkout.is_dir():
        return checkout
    raise MdmemError("the vault skeleton is missing from this installation")


def init_vault(path: Path) -> list[str]:
    """Lay the skeleton down at ``path``; refuse (writing nothing) if any of its
    files already exists. Returns the created files, vault-relative."""
    source = skeleton_dir()
    plan = sorted(p.relative_to(source) for p in source.rglob("*") if p.is_file())
    clashes = [str(rel) for rel in plan if (path / rel).exists()]
    if clashes:
        raise MdmemError(f"refusing to overwrite existing files in {path}: " + ", ".join(clashes))
    for rel in plan:
        write_atomic(path / rel, (source / rel).read_bytes())
    (path / STATE_DIR).mkdir(exist_ok=True)
    return [rel.as_posix() for rel in plan]

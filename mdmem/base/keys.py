"""The user's own secret key, which authenticates the derived files mdmem trusts (the search index's seal).

A vault travels (sync, copy, git clone, a shared drive) and its ``.mdmem/`` with it, so a file there may have
been written by anyone; Whoosh unpickles its index files, so mdmem opens them only under a MAC made with a key
that never travels with a vault: ``$MDMEM_HOME/keys/index.key`` (``~/.mdmem/keys/``), 32 random bytes, mode
0600 in a folder of mode 0700, both the user's own. It is made on first use, atomically and race-free: the
bytes go whole into a temp file of mode 0600, which is then hard-linked to the key's name (``link`` fails when
another process was first, and that process's key is read instead); a reader never sees half a key.

A key that is a symlink or no regular file, another user's, readable by others, not 32 bytes, or that lies
inside the vault being opened is refused (:class:`KeyTrouble`, one line saying what to do) and never replaced:
a key others could read may have leaked, and the user decides what happens to it.

Standard library only.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import stat

from mdmem.base.errors import MdmemError
from mdmem.base.layout import mdmem_home

KEY_BYTES = 32
KEY_DIR = "keys"
KEY_NAME = "index.key"
_CACHE: dict[str, bytes] = {}  # key path -> key, once read in this process


class KeyTrouble(MdmemError):
    """The user's key cannot be made or trusted; the message says why and what to do."""


def key_path() -> str:
    """Where the user's key lives: ``$MDMEM_HOME/keys/index.key``."""
    return os.path.join(os.path.abspath(os.path.expanduser(mdmem_home())), KEY_DIR, KEY_NAME)


def user_key(vault: str | os.PathLike | None = None) -> bytes:
    """The user's key, made on first use; ``vault``: the vault it will guard (the key must lie outside it)."""
    path = key_path()
    if vault is not None:
        root = os.path.realpath(vault)
        real = os.path.realpath(os.path.dirname(path))
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            raise KeyTrouble(f"mdmem's key folder {os.path.dirname(path)} lies inside the vault {vault}, which may "
                             "travel with it; set MDMEM_HOME to a folder outside every vault")
    key = _CACHE.get(path)
    if key is None:
        key = _CACHE[path] = _read_or_make(path)
    return key


def mac(key: bytes, data: bytes) -> str:
    """HMAC-SHA256 of ``data`` under ``key``, as hex."""
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def same(a: str, b: str) -> bool:
    """Two MACs equal, compared in constant time."""
    return hmac.compare_digest(a.encode("ascii", "replace"), b.encode("ascii", "replace"))


def _folder(folder: str) -> None:
    """The key folder: made with mode 0700; refused when it is a symlink, not the user's, or open to others."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as e:
        raise KeyTrouble(f"cannot make mdmem's key folder {folder}: {e.strerror}") from None
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise KeyTrouble(f"mdmem's key folder {folder} is not a folder of yours (a symlink, or another user's); "
                         "move it away")
    if st.st_mode & 0o077:
        try:
            os.chmod(folder, 0o700)  # made by a looser umask or by hand: close it before any key goes in
        except OSError as e:
            raise KeyTrouble(f"mdmem's key folder {folder} is open to others and cannot be closed: {e.strerror}") \
                from None


def _read(path: str) -> bytes | None:
    """The key at ``path``, None when there is none; :class:`KeyTrouble` when it cannot be trusted."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        why = "a symlink" if e.errno == errno.ELOOP else e.strerror
        raise KeyTrouble(f"mdmem's key {path} cannot be used ({why}); move it away and a new one is made") from None
    try:
        st = os.fstat(fd)
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
        raise KeyTrouble(f"mdmem's key {path} is not a file of yours; move it away and a new one is made")
    if st.st_mode & 0o077:
        raise KeyTrouble(f"mdmem's key {path} can be read by others (mode {stat.S_IMODE(st.st_mode):o}), so it may "
                         "have leaked; delete it (a new one is made, and every index is rebuilt once)")
    if len(data) != KEY_BYTES:
        raise KeyTrouble(f"mdmem's key {path} is damaged ({len(data)} bytes, not {KEY_BYTES}); delete it (a new "
                         "one is made, and every index is rebuilt once)")
    return data


def _read_or_make(path: str) -> bytes:
    key = _read(path)
    if key is not None:
        return key
    folder = os.path.dirname(path)
    _folder(folder)
    tmp = os.path.join(folder, f".{KEY_NAME}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, os.urandom(KEY_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # atomic, and never over a key another process made meanwhile
    except FileExistsError:
        pass
    except OSError:  # a file system without hard links: a rename, unless a key appeared meanwhile
        if not os.path.lexists(path):
            os.rename(tmp, path)
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    key = _read(path)
    if key is None:
        raise KeyTrouble(f"mdmem's key {path} vanished as it was made; try again")
    return key

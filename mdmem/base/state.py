"""Where a vault's derived state lives and how mdmem reads and writes it: the state folder ``.mdmem/`` (in the
vault, or outside it under ``$MDMEM_STATE_DIR`` / ``[state] folder`` keyed by the vault's path, or under
``$MDMEM_HOME/read-only/`` for a vault mdmem cannot write), the check that every folder and file mdmem keeps there
is real (never a symlink out of the vault), the JSON state files of the hooks and the review queue, and the vault's
write lock. The vault's own files (the walker, bounded reads, atomic writes, the lock): :mod:`mdmem.base.files`.

Cheap to import (os, stat): the hooks check and write their state through here.

Details and reasons: docs/decisions/011-state-folder-real-and-read-only-vaults.md,
docs/decisions/067-state-outside-the-vault.md
"""

from __future__ import annotations

import os
import stat

from mdmem.base.errors import UnsafeState
from mdmem.base.files import Lock, NotRegular, write_atomic
from mdmem.base.layout import STATE_DIR, STATE_GITIGNORE

TYPE_CHECKING = False  # not `from typing import`: this module stays cheap for the hooks
if TYPE_CHECKING:
    from pathlib import Path


# what mdmem keeps directly in .mdmem/: each, when it exists, must be itself (never a symlink out of the vault:
# SQLite, the locks and the hook log would write through one)
STATE_FILES = ("notes.db", "notes.db-wal", "notes.db-shm", "notes.db-journal", "graph.json", "vectors.npz",
               "write.lock", "store.lock", ".gitignore", "move.json")  # (config.toml: its reader refuses a link, settings.read)
STATE_FOLDERS = ("index", "index.new", "index.old", "hooks", "checkpoints")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

STATE_ENV = "MDMEM_STATE_DIR"  # the folder holding every vault's state outside the vault (over [state] folder)
READ_ONLY_DIR = "read-only"    # $MDMEM_HOME/<this>/<key>: the state of a vault mdmem cannot write


def state_home() -> str | None:
    """The folder that holds every vault's state outside the vaults (a vault synced by iCloud, Dropbox or
    Obsidian Sync): ``$MDMEM_STATE_DIR``, else ``[state] folder`` of the user's own config
    (:func:`mdmem.base.settings.state_folder`), resolved; None: each vault keeps its state in ``.mdmem/``."""
    value = os.environ.get(STATE_ENV)
    if value is None:
        from mdmem.base.layout import user_config_path

        if os.path.exists(user_config_path()):  # else the settings reader is not even imported (the hooks)
            from mdmem.base.settings import state_folder

            value = state_folder()
    return os.path.realpath(os.path.expanduser(value.strip())) if value and value.strip() else None


def state_key(vault: str | os.PathLike, named: bool = True) -> str:
    """The name of a vault's state folder outside it: the vault's folder name (readable) and a hash of its
    resolved path (two vaults never share one, whatever their names); ``named=False``: the hash alone."""
    from mdmem.base.blake import blake2b

    real = os.path.realpath(vault)
    digest = blake2b(os.fsencode(real), digest_size=8).hexdigest()
    if not named:
        return digest
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in os.path.basename(real))[:40].strip("-")
    return f"{name or 'vault'}-{digest}"


def state_root(vault: str | os.PathLike) -> str:
    """The folder whose ``.mdmem/`` holds ``vault``'s derived state (index, notes cache, graph, hooks' and
    checkpoints' state, usage, journal): the one place that decides it (decision 067).

    - :func:`state_home` set: ``<home>/<state_key>``, nothing of mdmem's in the vault;
    - else the vault itself, while its ``.mdmem`` (or, before it exists, the vault) can be written;
    - else (a read-only mount, another user's vault) ``$MDMEM_HOME/read-only/<hash>`` (decision 011).

    A folder right under one of those homes is its own root (the call is idempotent). A few ``stat`` calls."""
    from mdmem.base.layout import mdmem_home

    root = os.fspath(vault)
    home = state_home()
    readonly = os.path.abspath(os.path.join(os.path.expanduser(mdmem_home()), READ_ONLY_DIR))
    parent = os.path.dirname(os.path.abspath(root))
    if parent in (home, readonly):  # a vault's state root already (<home>/<key>)
        return root
    if home:
        real = os.path.realpath(root)
        return root if os.path.dirname(real) == home else os.path.join(home, state_key(real))
    here = os.path.join(root, STATE_DIR)
    if not os.path.exists(root) or os.path.lexists(here) and not os.path.isdir(here):
        return root  # no vault yet, or a .mdmem the checks will name
    if os.access(here if os.path.isdir(here) else root, os.W_OK):
        return root
    return os.path.join(readonly, state_key(root, named=False))


def state_folder(vault: str | os.PathLike, *parts: str) -> str:
    """``vault``'s state folder (:func:`state_root`'s ``.mdmem``) joined with ``parts``, as a path only: no
    check, nothing made (a reader's path; a writer goes through :func:`state_path`)."""
    return os.path.join(state_root(vault), STATE_DIR, *parts)


def _own_root(root: str, make: bool) -> None:
    """A state root outside the vault (:func:`state_root`): a real folder of this user's, never a symlink (made,
    mode 0700, when missing and ``make``)."""
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        if not make:
            return
        os.makedirs(os.path.dirname(root), mode=0o700, exist_ok=True)
        try:
            os.mkdir(root, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(root)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise UnsafeState(f"{root} is not a real folder (a symlink or a file); mdmem keeps a vault's state only in "
                          "a real folder of yours (remove it: it is derived state, made again)")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise UnsafeState(f"{root} belongs to another user; mdmem keeps a vault's state only in a folder of yours")


def state_path(root: str | os.PathLike, *parts: str, make: bool = True) -> str:
    """``<vault>/.mdmem/<parts...>`` as a str, after making sure ``.mdmem`` and every folder ``parts`` names below
    it is a real folder, never a symlink nor anything else (made when missing and ``make``): mdmem once followed a symlinked ``.mdmem`` and replaced a user's ``notes.db`` outside the vault.
    Raises :class:`~mdmem.base.errors.UnsafeState` saying which. The one check every writer of mdmem's state
    uses (the index, the notes cache, the hooks' and checkpoints' state, the locks). ``root`` is a vault: its state
    is where :func:`state_root` says."""
    mapped = state_root(root)
    if mapped != os.fspath(root):
        _own_root(mapped, make)
    return _state_path_at(mapped, parts, make)


def _state_path_at(root: str, parts: tuple[str, ...], make: bool) -> str:
    """:func:`state_path` below the state root ``root`` (already mapped)."""
    path = os.path.join(os.fspath(root), STATE_DIR)
    for part in ("", *parts):
        if part:
            path = os.path.join(path, part)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            if not make:
                return os.path.join(os.fspath(root), STATE_DIR, *parts)
            try:
                os.mkdir(path)
                continue
            except FileExistsError:  # made meanwhile (or a dangling symlink): look again
                st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeState(f"{path} is a symlink; mdmem keeps its state only in a real folder inside the vault, "
                              "and writes nothing through it (remove the link)")
        if not stat.S_ISDIR(st.st_mode):
            raise UnsafeState(f"{path} is a file, not mdmem's state folder; move it away")
    return path


def state_file(path: str | os.PathLike) -> str:
    """``path``, a file in mdmem's state (``<vault>/.mdmem/.../name``), once every folder from ``.mdmem`` down to it
    is real (:func:`state_path`, made when missing) and the file itself is no symlink."""
    path = os.fspath(path)
    parts = path.split(os.sep)
    at = len(parts) - 1 - parts[::-1].index(STATE_DIR)
    state_path(os.sep.join(parts[:at]) or os.sep, *parts[at + 1:-1])
    if os.path.islink(path):
        raise UnsafeState(f"{path} is a symlink; mdmem writes nothing through it (remove the link)")
    return path


def read_state(path: str, limit: int = 4 * 1024 * 1024) -> dict:
    """A JSON object of mdmem's derived state (the hooks', the review queue's), {} when missing, damaged or not a
    regular file: derived state starts again. Never through a symlink; a FIFO does not block."""
    from mdmem.base.fastjson import loads

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
        with open(fd, "rb") as f:
            state = loads(f.read(limit))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def open_log(path: str) -> int:
    """A descriptor appending to the log ``path`` (made when missing), for the one who writes it: the hook log, a
    background process's, ``fired-<agent>.log``. Never through a symlink, never blocked: opened non-blocking, so a
    FIFO planted in its place (a synced vault) neither hangs a hook nor is written; anything but a regular file is
    refused with :class:`~mdmem.base.files.NotRegular` (an OSError, which every log writer ignores)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(f"{path} is not a regular file; nothing logged in it")
        os.set_blocking(fd, True)  # a file, as any other (a background process writes its output to it)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_state(path: str, state: dict) -> None:
    """Atomic, not durable: derived state (a lost update restarts a count); only in a real state folder
    (:func:`state_file`)."""
    from mdmem.base.fastjson import dumps

    write_atomic(state_file(path), dumps(state).encode(), durable=False)


def check_state(root: str | os.PathLike) -> None:
    """Raise :class:`~mdmem.base.errors.UnsafeState` when ``.mdmem`` or one of the folders and files mdmem keeps
    in it (:data:`STATE_FOLDERS`, :data:`STATE_FILES`) is a symlink or of the wrong kind (a FIFO); makes nothing. About
    15 ``lstat`` calls: the hooks check this before they read or write any state."""
    mapped = state_root(root)
    if mapped != os.fspath(root):
        _own_root(mapped, False)
    root = mapped
    folder = _state_path_at(root, (), False)
    for name in STATE_FOLDERS:
        _state_path_at(root, (name,), False)
    for name in STATE_FILES:
        try:
            mode = os.lstat(os.path.join(folder, name)).st_mode
        except OSError:
            continue
        if stat.S_ISLNK(mode):
            raise UnsafeState(f"{os.path.join(folder, name)} is a symlink; mdmem reads and writes nothing through it "
                              "(remove the link)")
        if not stat.S_ISREG(mode):  # a FIFO would block SQLite or a reader
            raise UnsafeState(f"{os.path.join(folder, name)} is not a regular file; move it away (it is derived "
                              "state, made again)")


def state_dir(root: Path) -> Path:
    """``<vault>/.mdmem`` (:func:`state_path`: a real folder, made when missing), with a ``.gitignore`` of ``*`` so
    derived state is never committed; what mdmem keeps in it is checked too (:func:`check_state`)."""
    from pathlib import Path

    folder = state_path(root)
    check_state(root)
    ignore = os.path.join(folder, ".gitignore")
    if not os.path.exists(ignore):
        try:
            fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
            try:
                os.write(fd, STATE_GITIGNORE.encode())
            finally:
                os.close(fd)
        except OSError:
            pass
    return Path(folder)


def write_lock(state: Path, timeout: float) -> Lock:
    """The vault's single-writer lock (``.mdmem/write.lock``), in a real state folder (:func:`state_path`)."""
    state_path(state.parent)
    return Lock(state / "write.lock", timeout,
                f"another mdmem process has held the write lock on {state} for {timeout:g} s; "
                "try again, or raise MDMEM_LOCK_TIMEOUT")

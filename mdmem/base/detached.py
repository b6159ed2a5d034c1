"""Starting mdmem detached: what a hook hands to a background process so it stays within its budget (an import of
past sessions: :mod:`mdmem.agents.history.background`; the notes cache's refresh after an edit of bodies alone:
:func:`mdmem.agents.hooks.state.spawn_refresh`). The child has its own session (a hook's process group killed, or
the agent gone, leaves it running), no stdin, and writes nowhere the agent reads: its output is appended to a log
under ``.mdmem/hooks/``. Standard library only: hooks import this.
"""

from __future__ import annotations

import os
import time

from mdmem.base.state import open_log, state_folder

LOG_MAX = 1 << 20  # a background process's log is started afresh past this size


def spawn(vault: str, args: list[str], log_name: str) -> int:
    """Start ``python -P -m mdmem ARGS`` detached (its own session, no stdin, cwd the vault), its output appended to
    ``.mdmem/hooks/LOG_NAME`` after a line naming it (dropped when that is not a regular file:
    :func:`~mdmem.base.state.open_log`); its pid. The one way a hook starts mdmem in the background.

    ``-P``: the vault (its cwd) is not put on ``sys.path``, so a folder named ``mdmem`` in a synced vault cannot stand
    in for mdmem. Started by ``os.posix_spawn`` where the platform has it (with ``setsid``): importing
    :mod:`subprocess` cost the prompt hook ~10 ms whenever it refreshed in the background (decision 126)."""
    import sys

    folder = state_folder(vault, "hooks")
    os.makedirs(folder, exist_ok=True)
    log = os.path.join(folder, log_name)
    try:
        if os.path.getsize(log) > LOG_MAX:
            os.replace(log, log + ".1")
    except OSError:
        pass
    argv = [sys.executable, "-P", "-m", "mdmem", *args]
    try:
        fd = open_log(log)
    except OSError:  # a link, a FIFO or a device in its place (a synced vault): the work done, its output dropped
        fd = os.open(os.devnull, os.O_WRONLY)
    with open(fd, "ab") as out:
        out.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {' '.join(args)}\n".encode("utf-8", "replace"))
        out.flush()
        try:
            return _posix_spawn(argv, out.fileno(), vault)
        except (AttributeError, NotImplementedError):  # no posix_spawn, no setsid in it, no list of fds
            import subprocess

            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd=vault,
                                    start_new_session=True, close_fds=True)
            return proc.pid


def _posix_spawn(argv: list[str], out: int, cwd: str) -> int:
    """``argv`` started by ``os.posix_spawn`` in its own session, stdin from ``/dev/null``, stdout and stderr to
    ``out``, in ``cwd`` (this process steps into it for the call and back: hooks run one thread). No other descriptor
    reaches the child: those Python opened are non-inheritable (closed at exec), and those the hook inherited from the
    agent (a pipe it reads the hook's output from, a lock, a socket) are closed by the spawn's own file actions
    (:func:`_inherited`), or the agent would wait on the pipe for the background process, not the hook."""
    close = [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
    try:
        back = os.open(".", os.O_RDONLY)
    except OSError:  # this folder gone or unreadable: no way back to it, subprocess's own chdir does it
        raise NotImplementedError from None
    try:
        os.chdir(cwd)
        return os.posix_spawn(argv[0], argv, dict(os.environ), setsid=True, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_DUP2, out, 1),
            (os.POSIX_SPAWN_DUP2, out, 2), *close])
    finally:
        os.fchdir(back)
        os.close(back)


def _inherited() -> list[int]:
    """This process's inheritable descriptors above 2: those a child would get, listed in ``/proc/self/fd`` (Linux)
    or ``/dev/fd`` (macOS), as :mod:`subprocess` lists them for ``close_fds``. NotImplementedError where there is no
    such list (another platform, no ``/proc``): subprocess, which knows more ways, starts the child then."""
    import sys

    folder = {"linux": "/proc/self/fd", "darwin": "/dev/fd"}.get(sys.platform)
    if folder is None:
        raise NotImplementedError
    try:
        names = os.listdir(folder)
    except OSError:
        raise NotImplementedError from None
    found = []
    for name in names:
        try:
            fd = int(name)
            if fd > 2 and os.get_inheritable(fd):
                found.append(fd)
        except (ValueError, OSError):  # the listing's own descriptor, closed by now
            pass
    return found

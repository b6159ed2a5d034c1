"""What every Claude Code hook shares: the fail-open errors, the time bound, the clock
(``MDMEM_NOW``), the ``[hook]`` settings, the log, and the per-session state files read and
written as JSON.

On the Stop hook's quiet path (most stops), so standard library only, and not even ``json``,
``re``, ``signal`` or ``enum``: measured under load, ``import json`` alone costs 0.8x a bare
``python -c pass`` (it imports ``re``, which imports ``enum``), ``import signal`` 0.4x, against a
budget of 2x for the whole quiet hook. JSON goes through :mod:`mdmem.base.fastjson` and the
timer through ``_signal``.
"""

from __future__ import annotations

import os
import time

from mdmem.base import files
from mdmem.base.errors import MdmemError
from mdmem.base.fastjson import dumps, loads  # noqa: F401  (re-exported through hooks.session)
from mdmem.base.layout import INDEX_NAME, mdmem_home
from mdmem.base.state import (  # noqa: F401  (read_state, write_state: the hooks' state files)
    open_log,
    read_state,
    state_folder,
    state_path,
    write_lock,
    write_state,
)

TYPE_CHECKING = False  # not `from typing import`: the quiet stop imports as little as it can
if TYPE_CHECKING:
    from typing import Any

LOCK_WAIT = 5.0    # seconds to wait for another hook holding the session's state
# the [hook] defaults: the same as mdmem.base.settings.HOOK_DEFAULTS (a test keeps them equal); kept
# here so a vault without a config.toml never imports the settings module (~10 ms of a quiet hook)
DEFAULTS: dict[str, Any] = {"policy": "signals", "min_stops": 20, "min_minutes": 30.0, "min_dimensions": 2,
                             "min_interval_minutes": 10.0, "min_tool_calls": 15, "max_transcript_mb": 8.0,
                             "timeout_seconds": 2.0, "output": "block", "sessions_reminder_hours": 24.0}


# ----------------------------------------------------------------------------- errors, time bound, clock

class HookError(MdmemError):
    """A hook's input or state is unusable; the hook fails open (exit 0, message on stderr and in the log)."""


class HookTimeout(HookError):
    """The hook ran past its time bound (``timeout_seconds``): it gives up, exit 0."""


_STARTED = time.monotonic()


def _on_alarm(signum, frame):
    raise HookTimeout(f"gave up after the hook's time bound ({time.monotonic() - _STARTED:.1f} s)")


def arm(seconds: float) -> None:
    """Bound the rest of this process's hook run to ``seconds`` (0: no bound): past it,
    :class:`HookTimeout` is raised wherever the hook is (reading stdin, a transcript, the
    vault), and the fail-open path exits 0. Main thread only (a signal timer)."""
    import _signal as signal  # not `signal`: it imports enum (see the module's docstring)

    if not hasattr(signal, "setitimer"):
        return
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(0.0, float(seconds)))


def disarm() -> None:
    import _signal as signal

    if hasattr(signal, "setitimer") and signal.getsignal(signal.SIGALRM) is _on_alarm:
        signal.setitimer(signal.ITIMER_REAL, 0)


def rearm(seconds: float) -> None:
    """The configured bound, counted from the process's start, when :func:`arm` set one
    (in-process callers such as a replay are never interrupted)."""
    import _signal as signal

    if hasattr(signal, "setitimer") and signal.getsignal(signal.SIGALRM) is _on_alarm:
        left = float(seconds) - (time.monotonic() - _STARTED)
        signal.setitimer(signal.ITIMER_REAL, max(0.01, left) if float(seconds) > 0 else 0)


def now() -> float:
    given = os.environ.get("MDMEM_NOW")
    if not given:
        return time.time()
    try:
        return float(given)
    except ValueError:
        import datetime as dt

        moment = dt.datetime.fromisoformat(given)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.UTC)
        return moment.timestamp()


def today() -> str:
    """Today as YYYY-MM-DD: ``MDMEM_TODAY`` when set (as every command's ``--today``), else the local date of
    :func:`now`. The hooks' one today."""
    return os.environ.get("MDMEM_TODAY") or time.strftime("%Y-%m-%d", time.localtime(now()))


def text_field(payload: dict, key: str) -> str:
    """A string field of the hook's input; "" when absent or not a string (Claude Code's fields are
    read this way everywhere: an unknown shape is ignored, never trusted)."""
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def folder_field(payload: dict, key: str = "cwd") -> str | None:
    """A field naming an existing folder (``cwd``), else None."""
    value = text_field(payload, key)
    return value if value and os.path.isdir(value) else None


def settings(vault: str, opts: dict) -> dict:
    """``[hook]`` of the vault's config over its defaults, then the flags (read only when the file exists:
    the settings module costs ~10 ms to import, a tenth of a quiet hook's budget)."""
    if not os.path.lexists(os.path.join(vault, ".mdmem", "config.toml")):  # a FIFO, a link: the reader says why
        return DEFAULTS | {k: v for k, v in opts.items() if k in ("policy", "output")}
    from mdmem.base.settings import hook_settings

    return hook_settings(vault, opts)


def log(vault: str | None, line: str) -> None:
    """Append to ``<vault>/.mdmem/hooks/hook.log`` (or ``~/.mdmem/hook.log``, also when the vault's state folder
    is unsafe: :func:`mdmem.base.state.state_path`), kept under 1 MB; never through a symlink, never into a FIFO or
    a device (:func:`~mdmem.base.state.open_log`: nothing logged, the hook neither blocked nor failed)."""
    try:
        try:
            folder = state_path(vault, "hooks") if vault is not None else mdmem_home()
        except MdmemError as e:  # a symlinked .mdmem: nothing written there; the log line goes home, saying why
            folder, line = mdmem_home(), f"{line} ({e})" if str(e) not in line else line
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "hook.log")
        if os.path.exists(path) and os.path.getsize(path) > 1_000_000:
            os.replace(path, path + ".1")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime())
        with open(open_log(path), "a", encoding="utf-8") as f:  # never a link, a FIFO or a device
            f.write(f"{stamp} {line}\n")
    except OSError:
        pass


# ----------------------------------------------------------------------------- state


# ----------------------------------------------------------------------------- the notes cache, for hooks that read it

REFRESH_MAX = 200      # notes changed since the index: more than this and the hook answers from it as is


def notes_db(vault: str) -> str:
    """The notes cache's file (``.mdmem/notes.db``), as a str: no pathlib on the hooks' path."""
    return state_folder(vault, "notes.db")


def fresh(vault: str, log, later: bool = False) -> None:
    """Bring the index up to date when the vault changed since it was made (the scan's digest differs
    from the cache's), for a hook that reads the notes cache (the prompt hook; the checkpoint's check of the
    saved notes); more than :data:`REFRESH_MAX` changed notes are left to ``mdmem index``.

    ``later`` (the prompt hook): when the only change is an edit of the bodies of a few notes, told without parsing
    (:func:`mdmem.engine.bodies.only_bodies`, as the card's hook keeps its card: the same frontmatter text, no
    ``#sensitive`` in the body, never the user's, an agent's or a sensitive note, nothing added or removed) and none
    is ``MEMORY.md`` (its links say which notes are the user's memory), the cache is left as it stands for this
    hook (those notes' old body words; their excerpt is read from the file) and its refresh is handed to a detached
    process (:func:`spawn_refresh`), sparing the hook the parser's and the engine's imports (decision 123).
    Anything else, or a refresh that cannot be started, is refreshed here, as before."""
    from mdmem.base.files import UNSTATED_DIGEST
    from mdmem.base.layout import SESSIONS_DIR
    from mdmem.engine import quick

    db = quick.open_readonly(notes_db(vault))
    if db is None:
        return
    # first a look that stats no imported session note (``mdmem import`` refreshes the cache itself; one added,
    # removed or renamed moves the folder's mtime): at 10k session notes, two thirds of this hook (decision 100)
    scan = files.scan(vault, SESSIONS_DIR)  # a str: no pathlib on the quick path
    unstated = files.digest(scan, SESSIONS_DIR)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('scan_digest', 'index_ok', 'epoch', 'gen', ?)",
                               (UNSTATED_DIGEST,)))
        if meta.get(UNSTATED_DIGEST) == unstated:
            return
        if SESSIONS_DIR in scan.folders:  # else that walk saw every note: it is the whole scan
            scan = files.scan(vault)
        digest = files.digest(scan)
        if meta.get("scan_digest") == digest:
            record_digest(vault, digest, unstated)  # a cache from before this look: recorded once
            return
        if meta.get("index_ok") != "1":
            log(vault, "prompt: the index is being built (or a build was cut short); answering from it as is")
            return  # a whole build would outlast the hook's timeout: `mdmem index` does it
        look = _bodies_look(vault, scan, meta) if later else None
        if look is None:
            cached = {p: (m, s, c) for p, m, s, c in db.execute("SELECT path, mtime_ns, size, ctime_ns FROM notes")}
    finally:
        db.close()
    if look is not None:
        changed = len(look.added) + len(look.changed) + len(look.removed)
    else:
        now = dict(scan.notes) | {p: (0, 0, 0) for p in scan.broken}
        changed = sum(1 for p, st in now.items() if cached.get(p) != st) + sum(1 for p in cached if p not in now)
    if not changed:  # only a folder moved (an editor's swap file came and went): the notes are as indexed
        record_digest(vault, digest, unstated)
        return
    if look is not None and look.kept and INDEX_NAME not in look.changed:
        try:
            pid = spawn_refresh(vault)
        except OSError as e:
            log(vault, f"prompt: the background refresh could not start ({e.strerror or e}); refreshing here")
        else:
            log(vault, f"prompt: {changed} note(s) edited in their body alone; answering from the index as it stands, "
                       f"refreshed in the background (pid {pid})")
            return
    if changed > REFRESH_MAX:
        log(vault, f"prompt: {changed} notes changed since the index; answering from it as is (run `mdmem index`)")
        return
    result = refresh_cache(vault, scan, look)
    if result.stale:  # another writer held the vault (it refreshes), or no room: the next prompt looks again
        log(vault, f"prompt: the index is {changed} note(s) behind and could not be brought up to date "
                   f"({result.why or 'busy'}); answering from it as is")
        return
    log(vault, f"prompt: the index was {changed} note(s) behind; brought up to date")


def _bodies_look(vault: str, scan: files.Scan, meta: dict):
    """The look of :func:`mdmem.engine.bodies.only_bodies` at the cache ``meta`` was read from (its epoch and
    generation: a cache written since is another one, and the look says None), or None."""
    from mdmem.engine.bodies import only_bodies

    try:
        state = [meta.get("epoch", ""), int(meta.get("gen", 0))]
    except (TypeError, ValueError):
        return None
    return only_bodies(vault, scan, state)


def refresh_cache(vault: str, scan: files.Scan | None = None, look=None):
    """The notes cache brought up to date (never Whoosh: the hooks read the cache's quick index), its scan digests
    recorded; ``scan`` and ``look``: the hook's walk and its look at the cache, when it has them (the look's diff
    is used while the cache is still the one it looked at). The :class:`~mdmem.engine.refresh.RefreshResult`."""
    from pathlib import Path

    from mdmem.base.layout import SESSIONS_DIR
    from mdmem.engine.memory import Memory

    with Memory(Path(vault)) as mem:
        result = mem.refresh(strict=False, index=False, scan=scan if look is not None else None, known=look)
        if result.stale:
            return result
        digest = files.digest(mem.scan)
        if mem.store.get_meta("scan_digest") != digest:  # nothing to redo, but the digest was behind
            mem.store.set_meta("scan_digest", digest)
            mem.store.set_meta(files.UNSTATED_DIGEST, files.digest(mem.scan, SESSIONS_DIR))
    return result


def spawn_refresh(vault: str) -> int:
    """Start ``mdmem hook refresh --vault VAULT`` detached (:func:`mdmem.base.detached.spawn`; its output in the hook
    log); its pid. The prompt hook's refresh after an edit of bodies alone."""
    from mdmem.base.detached import spawn

    return spawn(vault, ["hook", "refresh", "--vault", vault], "hook.log")


def background_refresh(vault: str) -> int:
    """``mdmem hook refresh``: what :func:`spawn_refresh` started, in its own process: the notes cache brought up to
    date under the write lock (another one refreshing, a user's command or a second of these: it waits
    :data:`~mdmem.engine.refresh.READ_WAIT` and leaves it to that one), one line in the hook log, never an
    exception; exit 0."""
    from mdmem.base.errors import MdmemError
    from mdmem.base.state import check_state

    try:
        check_state(vault)  # a symlinked .mdmem: nothing read or written through it
        result = refresh_cache(vault)
    except Exception as e:  # a detached process: what went wrong goes to the log, never a traceback
        log(vault, f"hook refresh: the notes cache could not be refreshed "
                   f"({e if isinstance(e, MdmemError) else f'{type(e).__name__}: {e}'})")
        return 0
    if result.stale:
        log(vault, f"hook refresh: left to the writer holding the vault ({result.why or 'busy'})")
    else:
        log(vault, f"hook refresh: the notes cache brought up to date in the background ({result.added} added, "
                   f"{result.changed} changed, {result.removed} removed)")
    return 0


def record_digest(vault: str, digest: str, unstated: str | None = None) -> None:
    """Keep the scan's digest as the cache's, so the next prompt does not look again (skipped when a writer
    holds the vault: it records the digest itself); ``unstated``: the same less the sessions' notes
    (``files.digest(scan, SESSIONS_DIR)``, the prompt hook's first look), when the caller has it."""
    import sqlite3
    from pathlib import Path

    from mdmem.base.errors import LockTimeout

    try:
        with write_lock(Path(state_folder(vault)), 0.2):
            db = sqlite3.connect(notes_db(vault), timeout=1)
            try:
                with db:
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('scan_digest', ?)", (digest,))
                    if unstated is not None:
                        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (files.UNSTATED_DIGEST, unstated))
            finally:
                db.close()
    except (LockTimeout, sqlite3.Error, OSError):
        pass

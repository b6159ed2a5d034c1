"""Which imported sessions (``sessions/``) were reviewed, and how many of each project still wait: derived state.

``mdmem checkpoint review --session S`` of an imported session marks it here (``.mdmem/hooks/sessions-reviewed.json`` of the state folder,
session id -> time), never in the session note: a vault file is written only by the import the user ran. A note
marked ``reviewed: true`` (by hand, or by an older import) counts as reviewed too. The importer leaves, per project,
the number of sessions never reviewed and the newest of their ids (``sessions-waiting.json``), so the SessionStart
card names them with one small read, and the card records there when it last did, to say it at most every
``[hook] sessions_reminder_hours`` (docs/decisions/086-review-of-imported-sessions.md). Stdlib only: the hooks read it.
"""

from __future__ import annotations

import os
import time

from mdmem.base.state import read_state, state_folder, write_state

REVIEWED = "sessions-reviewed.json"
WAITING = "sessions-waiting.json"
NEWEST = 5  # ids of a project's unreviewed sessions kept, newest first (the card names the first)
_LIMIT = 16 * 1024 * 1024


def _read(root: str | os.PathLike, name: str) -> dict:
    return read_state(state_folder(root, "hooks", name), _LIMIT)  # missing: nothing reviewed yet


def _write(root: str | os.PathLike, name: str, data: dict) -> None:
    write_state(state_folder(root, "hooks", name), data)


def reviewed(root: str | os.PathLike) -> dict[str, float]:
    """Session id -> when its review was read."""
    return {k: v for k, v in _read(root, REVIEWED).items() if isinstance(v, (int, float))}


def waiting(root: str | os.PathLike) -> dict[str, dict]:
    """Project -> ``{"count": n, "ids": [newest unreviewed first], "shown": time the card last named them}``."""
    return {k: v for k, v in _read(root, WAITING).items() if isinstance(v, dict)}


def set_waiting(root: str | os.PathLike, counts: dict[str, tuple[int, list[str]]]) -> None:
    """The importer's count: project -> (unreviewed sessions, their ids newest first); keeps when each was shown."""
    old = waiting(root)
    new = {p: {"count": n, "ids": ids[:NEWEST], **({"shown": old[p]["shown"]} if "shown" in old.get(p, {}) else {})}
           for p, (n, ids) in counts.items() if n}
    if new != old:
        _write(root, WAITING, new)


def mark_reviewed(root: str | os.PathLike, session: str, project: str | None, at: float | None = None) -> None:
    """Record ``session`` reviewed; one fewer waiting in ``project``."""
    done = reviewed(root)
    if session in done:
        return
    _write(root, REVIEWED, done | {session: at if at is not None else time.time()})
    counts = waiting(root)
    entry = counts.get(project or "")
    if entry is not None:
        ids = [i for i in entry.get("ids", ()) if i != session]
        entry.update(count=max(0, int(entry.get("count", 0)) - 1), ids=ids)
        _write(root, WAITING, {p: v for p, v in counts.items() if v.get("count")})


def reminder(root: str | os.PathLike, project: str | None, every_hours: float, now: float) -> dict | None:
    """``project``'s waiting entry when the card may name it now (some wait, ``every_hours`` > 0 and that long since
    it last did), recording that it does; else None."""
    if not project or every_hours <= 0:
        return None
    counts = waiting(root)
    entry = counts.get(project)
    if not entry or not entry.get("count") or now - float(entry.get("shown", 0) or 0) < every_hours * 3600:
        return None
    entry["shown"] = now
    try:
        _write(root, WAITING, counts)
    except OSError:
        return None  # a read-only vault: better never than every session
    return entry

"""The turns of a session no checkpoint scan covered: PreCompact and SessionEnd record them (offsets and counts,
never the text), the next card of the same project names the session (:func:`review_line`), and ``mdmem checkpoint
review --session S`` hands them to the new session's model; an agent with no SessionEnd has them recorded at its
next session start (:func:`record_ended`). SessionEnd also hands the session's import to a background process.
Standard library and ``mdmem.base`` only at load time."""

from __future__ import annotations

import os
import time

from mdmem.agents.hooks.pending import PENDING_DAYS
from mdmem.agents.hooks.state import (
    LOCK_WAIT,
    HookError,
    folder_field,
    log,
    now,
    read_state,
    text_field,
    write_state,
)
from mdmem.base import files
from mdmem.base.errors import MdmemError
from mdmem.base.layout import safe_session
from mdmem.base.state import state_folder, state_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

REVIEW_PREFIX = "review-"  # .mdmem/hooks/review-<session>.json: turns of a session no scan covered


def _record_uncovered(vault: str, payload: dict, event: str, read: Callable) -> dict | None:
    """PreCompact and SessionEnd: record which part of the transcript no scan covered (from the Stop
    hook's last scan, ``covered`` in its state, to the end), when the user typed something there. Nothing
    is judged here and nothing written to memory: the next session's card (same project) names the
    session and ``mdmem checkpoint review --session S`` hands that part to the new session's model. The
    record holds offsets and counts, never the conversation's text. ``read`` is the agent's transcript reader."""
    session, transcript = text_field(payload, "session_id"), text_field(payload, "transcript_path")
    if not session:
        raise HookError("no session_id in the hook's input")
    if not transcript or not os.path.isfile(transcript):
        raise HookError(f"no transcript to read ({transcript or 'no transcript_path'})")

    folder = state_path(vault, "hooks")
    name = safe_session(session)
    state = read_state(os.path.join(folder, f"stop-{name}.json"))
    start = int(state.get("covered", 0) or 0) if state.get("transcript") in (None, transcript) else 0
    base = os.path.join(folder, REVIEW_PREFIX + name)
    with files.Lock(base + ".lock", LOCK_WAIT, f"another hook holds {base}.lock (waited {LOCK_WAIT:.0f} s)"):
        old = read_state(base + ".json")
        if old.get("status") == "pending" and old.get("transcript") == transcript:
            start = min(start, int(old.get("from", start) or 0))  # an earlier compaction's part is still unreviewed
        tr = read(transcript, start=start)
        typed = sum(1 for m in tr.messages if m.speaker == "user" and m.kind != "prompt")
        if not typed:
            log(vault, f"{event} session={session}: every turn was scanned")
            return None
        cwd = folder_field(payload) or state.get("cwd") or ""
        record = {"session": session, "transcript": transcript, "from": tr.start, "to": tr.end, "cwd": cwd,
                  "event": event, "at": now(), "typed": typed, "status": "pending",
                  "agent": text_field(payload, "mdmem_agent") or state.get("agent") or "claude",
                  "size": os.path.getsize(transcript)}
        write_state(base + ".json", record)
    log(vault, f"{event} session={session}: {typed} user message(s) no scan covered; kept for review")
    return record


IMPORT_SOURCE = {"claude": "claude-code", "codex": "codex", "gemini": "gemini"}  # `mdmem import SOURCE` per agent
CATCH_UP_IDLE = 600  # seconds: a session whose Stop hook ran this recently may still be going on


def record_ended(vault: str, payload: dict, read: Callable) -> int:
    """What SessionEnd would have recorded, for an agent that has no SessionEnd (Codex): every other session of
    this agent whose Stop hook last ran more than :data:`CATCH_UP_IDLE` seconds ago, in the last
    :data:`PENDING_DAYS` days, and whose transcript grew since its last record, gets its uncovered turns recorded
    for review (:func:`_record_uncovered`). Returns how many sessions were looked at."""
    agent, current = text_field(payload, "mdmem_agent") or "claude", text_field(payload, "session_id")
    folder = state_folder(vault, "hooks")
    try:
        names = [n for n in os.listdir(folder) if n.startswith("stop-") and n.endswith(".json")]
    except OSError:
        return 0
    t, seen = time.time(), 0
    for name in names:
        path = os.path.join(folder, name)
        try:
            age = t - os.stat(path).st_mtime
        except OSError:
            continue
        if age < CATCH_UP_IDLE or age > PENDING_DAYS * 86400:
            continue
        state = read_state(path)
        session, transcript = state.get("session") or name[5:-5], state.get("transcript")
        if state.get("agent") != agent or session == current or not isinstance(transcript, str):
            continue
        old = read_state(os.path.join(folder, REVIEW_PREFIX + safe_session(session) + ".json"))
        try:
            if old.get("status") == "reviewed" or os.path.getsize(transcript) == old.get("size"):
                continue
        except OSError:
            continue
        seen += 1
        try:
            _record_uncovered(vault, {"session_id": session, "transcript_path": transcript,
                                      "cwd": state.get("cwd") or "", "mdmem_agent": agent}, "SessionStart", read)
        except (HookError, MdmemError):
            continue
    return seen


def unreviewed(vault: str, cwd: str | None, session: str | None = None, own: bool = False) -> list[dict]:
    """The sessions whose uncovered turns wait for a review, newest first: of the same project (``cwd``
    the same folder as the session's, or one inside the other), seen in the last :data:`PENDING_DAYS`
    days; ``own``: only ``session``'s (after a compaction), else never ``session``'s own. A record untouched
    for longer than that is removed (the folder does not grow with every session ever run)."""
    folder = state_folder(vault, "hooks")
    try:
        names = [f for f in os.listdir(folder) if f.startswith(REVIEW_PREFIX) and f.endswith(".json")]
    except OSError:
        return []
    limit = now() - PENDING_DAYS * 86400
    here = os.path.realpath(cwd) if cwd else None
    out = []
    for f in names:
        path = os.path.join(folder, f)
        try:
            if os.stat(path).st_mtime < time.time() - PENDING_DAYS * 86400:  # past the window: derived state, gone
                os.remove(path)
                continue
        except OSError:
            continue
        data = read_state(path)
        sid = data.get("session")
        if data.get("status") != "pending" or not isinstance(sid, str) or not isinstance(data.get("at"), (int, float)):
            continue
        if data["at"] < limit or (own and sid != session) or (not own and sid == session):
            continue
        there = os.path.realpath(data["cwd"]) if isinstance(data.get("cwd"), str) and data["cwd"] else None
        if here and there and not (here == there or here.startswith(there + os.sep) or there.startswith(here + os.sep)):
            continue
        out.append(data)
    out.sort(key=lambda d: (-d["at"], d["session"]))
    return out


def review_line(vault: str, waiting: list[dict]) -> str:
    """The card's one line for the sessions whose turns no scan covered (:func:`unreviewed`)."""
    import shlex

    from mdmem.agents.launch import runner
    from mdmem.base.terminal import visible

    newest = waiting[0]
    more = f" (and {len(waiting) - 1} more session(s))" if len(waiting) > 1 else ""
    command = f"{runner()} checkpoint review --session {shlex.quote(newest['session'])} --vault {shlex.quote(str(vault))}"
    return visible(f"mdmem: not scanned: {newest.get('typed', 0)} user message(s) of session {newest['session']}"
                   f"{more} were never checked for memories: run `{command}`, judge what it prints, and propose "
                   "anything worth keeping (the user chooses).", False)


def pre_compact(vault: str, payload: dict, opts: dict, *, read: Callable) -> dict | None:
    """PreCompact: the turns no scan covered, recorded for review; ``read`` is the agent's transcript reader."""
    record = _record_uncovered(vault, payload, "PreCompact", read)
    if record is None:
        return None
    return {"systemMessage": "mdmem: the turns no memory checkpoint scanned are kept for review after the compaction."}


def session_end(vault: str, payload: dict, opts: dict, *, read: Callable) -> None:
    """The record of what no scan covered, and the session's import into ``sessions/`` handed to a background process
    (:mod:`mdmem.agents.history.background`, once the vault imports sessions: :func:`~mdmem.agents.history.
    background.enabled`): what the user said is in the vault before Claude Code deletes the transcript, and the
    hook does not wait for it."""
    from mdmem.agents.history.background import enabled, spawn_import

    transcript = text_field(payload, "transcript_path")
    if transcript and os.path.isfile(transcript) and enabled(vault):
        source = IMPORT_SOURCE.get(text_field(payload, "mdmem_agent") or "claude")
        pid = spawn_import(vault, source, transcript) if source else None
        log(vault, f"SessionEnd session={text_field(payload, 'session_id') or '?'}: import started (pid {pid})")
    _record_uncovered(vault, payload, "SessionEnd", read)
    return None

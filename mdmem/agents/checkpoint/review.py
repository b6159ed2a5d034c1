"""``mdmem checkpoint review --session S``: the turns of an earlier session that no scan covered, handed to
the model of a new session to judge.

The PreCompact and SessionEnd hooks record which part of a session's transcript no Stop-hook scan covered
(:func:`mdmem.agents.hooks.uncovered._record_uncovered`: offsets, never text); the next session's card names the session
in one line. This reads that part again from the transcript and returns the scan prompt (answering through
``mdmem checkpoint propose --session S``, as a scan in the session does) and the conversation, bounded
(:data:`REVIEW_MAX` characters, long messages elided in the middle). Reading it marks the record reviewed, so the
card stops naming it.

An imported session (a note of ``sessions/``, :func:`review_imported`) is reviewed whole: from its transcript while
the agent still keeps it, else from the note; reading it marks it reviewed in :mod:`mdmem.base.reviews` (derived
state: the note itself is not written).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mdmem.agents.checkpoint.transcript import conversation_day
from mdmem.agents.hooks.state import now, read_state, write_state
from mdmem.agents.hooks.uncovered import REVIEW_PREFIX
from mdmem.base.errors import MdmemError, UsageError
from mdmem.base.layout import safe_session
from mdmem.base.state import state_folder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

REVIEW_MAX = 60_000  # characters of conversation a review hands the model


@dataclass(frozen=True)
class Review:
    """What ``checkpoint review`` prints: the scan prompt, then the conversation no scan covered."""

    session: str
    lang: str
    messages: int
    prompt: str
    conversation: str
    what: str = "the part no scan covered"

    @property
    def text(self) -> str:
        return f"{self.prompt}\n\n--- the conversation (session {self.session}, {self.what}) ---\n\n" \
               f"{self.conversation}\n"


def agent_of(vault: Path, session: str) -> str:
    """Whose session ``session`` was (its review record says; ``claude`` when it does not): its transcript is
    read with that agent's reader."""
    path = state_folder(vault, "hooks", REVIEW_PREFIX + safe_session(session) + ".json")
    agent = read_state(path).get("agent")
    return agent if isinstance(agent, str) and agent else "claude"


def review(vault: Path, session: str, run: str = "mdmem", mark: bool = True, *, read: Callable) -> Review:
    """The review of ``session``'s uncovered turns (see the module's docstring); ``mark``: record it reviewed;
    ``read``: the transcript reader of the agent whose session it was (:func:`agent_of`)."""
    from mdmem.agents.checkpoint import scan
    from mdmem.agents.checkpoint.propose import conversation_text
    from mdmem.text.language import choose, tally

    path = state_folder(vault, "hooks", REVIEW_PREFIX + safe_session(session) + ".json")
    record = read_state(path)
    transcript = record.get("transcript")
    if not isinstance(transcript, str) or not os.path.isfile(transcript):
        raise UsageError(f"no turns of session {session!r} wait for a review (or its transcript is gone)")
    start, end = int(record.get("from", 0) or 0), int(record.get("to", 0) or 0)
    tr = read(transcript, start=start, errors=True)
    messages = [m for m in tr.messages if not end or m.offset < end]
    users = " ".join(m.text for m in messages if m.speaker == "user" and m.kind != "prompt")[:20000]
    lang = choose(*tally(users))
    cwd = record.get("cwd") if isinstance(record.get("cwd"), str) else None
    known = scan.Known.read(vault, [Path(cwd) / "CLAUDE.md"] if cwd else [], session, scope=scan.scope_of(vault, cwd))
    prompt = scan.scan_prompt(session, vault, known=known, lang=lang, run=run,
                              why="turns of an earlier session that no checkpoint scanned")
    if mark:  # the conversation's date, for the notes accepted from the review (:func:`place`)
        day = conversation_day(transcript, messages, end or None)
        write_state(path, record | {"status": "reviewed", "reviewed": now()} | ({"conversation_date": day} if day else {}))
    return Review(session, lang, len(messages), prompt, conversation_text(messages, REVIEW_MAX))


def waits(vault: Path, session: str) -> bool:
    """Whether ``session`` has turns no scan covered recorded by the hooks (else it may be an imported session)."""
    path = state_folder(vault, "hooks", REVIEW_PREFIX + safe_session(session) + ".json")
    return isinstance(read_state(path).get("transcript"), str)


def imported_note(vault: Path, session: str) -> tuple[str, dict, str] | None:
    """(path, frontmatter, body) of the ``sessions/`` note of ``session`` (its whole id, or the start of it:
    8 characters at least), None when the vault has none."""
    import re

    import frontmatter

    from mdmem.base import files as fs
    from mdmem.base.layout import SESSIONS_DIR

    key = re.sub(r"[^A-Za-z0-9]", "", session)[:8]
    folder = Path(vault) / SESSIONS_DIR
    if len(key) < 8 or not folder.is_dir():
        return None
    for path in sorted(folder.glob(f"*-{key}*.md")):
        rel = f"{SESSIONS_DIR}/{path.name}"
        try:
            post = frontmatter.loads(fs.read_bytes(vault, rel).decode("utf-8", "replace"))
        except (OSError, ValueError, MdmemError):
            continue
        sid = str(post.metadata.get("session") or "")
        if post.metadata.get("type") == "session" and sid and (sid == session or sid.startswith(session)):
            return rel, dict(post.metadata), post.content
    return None


def review_imported(vault: Path, session: str, run: str = "mdmem", mark: bool = True, *,
                    read_for: Callable[[str], Callable | None]) -> Review:
    """The review of an imported session, whole (see the module's docstring); ``read_for(agent)``: that agent's
    transcript reader, None for a chat export (read from the note)."""
    import re

    from mdmem.agents.checkpoint import scan
    from mdmem.agents.checkpoint.propose import conversation_text
    from mdmem.base import reviews
    from mdmem.text.language import choose, tally

    found = imported_note(vault, session)
    if found is None:
        raise UsageError(f"no turns of session {session!r} wait for a review, and no imported session has that id")
    rel, meta, body = found
    sid = str(meta["session"])
    transcript = meta.get("transcript")
    read = read_for(str(meta.get("agent") or ""))
    day = _day(meta.get("ended") or meta.get("started"))
    if read is not None and isinstance(transcript, str) and os.path.isfile(transcript):
        messages = read(transcript, start=0, errors=True).messages
        day = conversation_day(transcript, messages) or day
        users = " ".join(m.text for m in messages if m.speaker == "user" and m.kind != "prompt")[:20000]
        count, text, what = len(messages), conversation_text(messages, REVIEW_MAX), "imported; its transcript"
    else:
        said = body.split("## What the user said", 1)[-1].split("\n## ", 1)[0]
        users = said[:20000]
        count = len(re.findall(r"^\d+\. ", said, re.M))
        text, what = body[:REVIEW_MAX], f"imported; its note {rel}, the transcript is gone"
    lang = choose(*tally(users))
    cwd = meta.get("cwd")
    known = scan.Known.read(vault, [Path(cwd) / "CLAUDE.md"] if isinstance(cwd, str) and cwd else [], sid)
    prompt = scan.scan_prompt(sid, vault, known=known, lang=lang, run=run,
                              why="an earlier session imported from the agent's history, never reviewed")
    if mark:
        reviews.mark_reviewed(vault, sid, str(meta.get("project") or ""), now())
        write_state(state_folder(vault, "hooks", REVIEW_PREFIX + safe_session(sid) + ".json"),
                    {"session": sid, "status": IMPORTED, "reviewed": now(), "note": rel,
                     "cwd": cwd if isinstance(cwd, str) else ""} | ({"conversation_date": day} if day else {}))
    return Review(sid, lang, count, prompt, text, what)


IMPORTED = "reviewed-imported"  # a review record's status for an imported session (what `place` reads of it)


def _day(value) -> str | None:
    """A frontmatter time (a date, a datetime or ISO text) as its local date, YYYY-MM-DD."""
    import datetime as dt

    if isinstance(value, dt.datetime):
        return (value.astimezone() if value.tzinfo else value).date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return _day(dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def place(vault: Path, session: str | None, cwd, project: str | None = None, no_project: bool = False,
          folder: str | None = None):
    """``(scope, conversation_date, source)`` of a checkpoint that a model proposes for ``session``: the scope
    (:func:`mdmem.agents.checkpoint.scan.scope_of`) of the folder the session worked in as the hooks recorded it
    (its review record, else its Stop hook's state; ``source`` "recorded"), else as its transcript says
    (``folder``, read by the caller's agent adapter; "transcript"), else ``cwd``, the caller's folder ("cwd": the
    caller says so, a guess), so that a review of project B's session run from project A proposes, and
    ``accept`` saves, B's memories; ``project``/``no_project`` as given win. The date: the reviewed
    conversation's (:func:`review` keeps it), unless the session went on since (its Stop hook ran after the
    review); else None (the day it is stored: the conversation is going on)."""
    from mdmem.agents.checkpoint.scan import scope_of

    record: dict = {}
    stop: dict = {}
    since = 0.0
    if session:
        hooks = state_folder(vault, "hooks")
        record = read_state(os.path.join(hooks, REVIEW_PREFIX + safe_session(session) + ".json"))
        stop_path = os.path.join(hooks, "stop-" + safe_session(session) + ".json")
        stop = read_state(stop_path)
        try:
            since = os.stat(stop_path).st_mtime if stop else 0.0
        except OSError:
            since = 0.0
    where = next((c for c in (record.get("cwd"), stop.get("cwd")) if isinstance(c, str) and c), None)
    day = record.get("conversation_date") if record.get("status") in ("reviewed", IMPORTED) else None
    reviewed = record.get("reviewed")
    if not isinstance(day, str) or not isinstance(reviewed, (int, float)) or since > reviewed:
        day = None
    source = "recorded" if where else "transcript" if folder else "cwd"
    return scope_of(vault, where or folder or cwd, project, no_project), day, source

"""``mdmem checkpoint review --session S``: the turns of an earlier session that no scan covered, handed to
the model of a new session to judge.

The PreCompact and SessionEnd hooks record which part of a session's transcript no Stop-hook scan covered
(:func:`mdmem.agents.hooks.session._record_uncovered`: offsets, never text); the next session's card names the session
in one line. This reads that part again from the transcript and returns the scan prompt (answering through
``mdmem checkpoint propose --session S``, as a scan in the session does) and the conversation, bounded
(:data:`REVIEW_MAX` characters, long messages elided in the middle). Reading it marks the record reviewed, so the
card stops naming it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mdmem.agents.hooks.session import REVIEW_PREFIX
from mdmem.agents.hooks.state import now, read_state, write_state
from mdmem.base.errors import UsageError
from mdmem.base.files import state_folder
from mdmem.base.layout import safe_session

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

    @property
    def text(self) -> str:
        return f"{self.prompt}\n\n--- the conversation (session {self.session}, the part no scan covered) ---\n\n" \
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
    if mark:
        write_state(path, record | {"status": "reviewed", "reviewed": now()})
    return Review(session, lang, len(messages), prompt, conversation_text(messages, REVIEW_MAX))

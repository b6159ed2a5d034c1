"""The agent-neutral shape of a past session, what every transcript reader returns.

A :class:`Session` holds the conversation as the agent's own tools would show it after replay (rewinds,
rollbacks and edits applied, the kept branch of a tree), with what the user typed apart from what the harness
injected: only messages a person typed have ``role == "user"``; tool output, sidechains, subagents and
system or meta records never do. Readers are plain functions from a file path to a session (or, for the chat
exports, to many), so a hook for that agent can reuse them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mdmem.agents.history.records import project_of


@dataclass(frozen=True)
class SessionMessage:
    """One message: ``role`` "user" or "assistant"; ``at`` an ISO 8601 time when the source has one;
    ``kind`` "queued" (typed while the agent worked) or ""."""

    role: str
    text: str
    at: str | None = None
    kind: str = ""


@dataclass(frozen=True)
class Session:
    """A past session: ``agent`` (claude-code, codex, gemini, chatgpt, claude-ai), the source's ``id``,
    ``cwd`` (its working folder when it records one), ``start``/``end`` (ISO 8601), ``title`` (the
    source's own, if any), ``messages`` in order, ``files`` it wrote or edited, ``source`` (the file)."""

    agent: str
    id: str
    messages: tuple[SessionMessage, ...]
    cwd: str | None = None
    start: str | None = None
    end: str | None = None
    title: str | None = None
    files: tuple[str, ...] = ()
    source: str = ""
    branch: str | None = None
    model: str | None = None
    notes: dict = field(default_factory=dict)  # reader's counts: replayed rewinds, rollbacks, skipped lines

    @property
    def project(self) -> str | None:
        """The project's name: the last part of ``cwd``."""
        return project_of(self.cwd)

    def user_messages(self) -> list[SessionMessage]:
        return [m for m in self.messages if m.role == "user"]

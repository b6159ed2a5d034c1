"""Claude Code's hooks: mdmem's hooks speak its JSON, so both directions are the identity; its transcripts are
its JSONL (:mod:`mdmem.agents.claude.transcript`), the reader the neutral hooks take (``read=``).

What an agent's ``hooks.py`` gives :mod:`mdmem.cli.hook` (``mdmem hook NAME --agent AGENT``): ``NAME``, its
``EVENTS`` (the agent's event -> mdmem's hook), ``FORCED`` options, ``inbound`` (its payload -> the neutral
fields), ``outbound`` (the answer -> what it expects) and, when its transcripts are its own format,
``transcript_reader()``. Importing it imports nothing else (the quiet Stop budget)."""

from __future__ import annotations

NAME = "claude"
EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt", "Stop": "stop",
          "PreCompact": "pre-compact", "SessionEnd": "session-end"}
FORCED: dict[str, dict[str, str]] = {}


def inbound(hook: str, payload: dict) -> dict:
    return payload


def outbound(hook: str, answer):
    return answer


def transcript_reader():
    """Claude Code's JSONL transcripts, read from the byte the last stop reached."""
    from mdmem.agents.claude.transcript import read

    return read

"""Claude Code's hooks: mdmem's hooks speak its JSON, so both directions are the identity."""

from __future__ import annotations

NAME = "claude"
EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt", "Stop": "stop",
          "PreCompact": "pre-compact", "SessionEnd": "session-end"}
FORCED: dict[str, dict[str, str]] = {}


def inbound(hook: str, payload: dict) -> dict:
    return payload


def outbound(hook: str, answer):
    return answer

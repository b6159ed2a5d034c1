"""Codex CLI's hooks: Claude Code's JSON on stdin and stdout, with a strict output schema per event.

Codex validates each answer against its generated schema (``additionalProperties: false``;
openai/codex ``codex-rs/hooks/schema/generated/``, copies in tests/data/agents/codex/): a Stop answer may hold
only ``continue, decision, reason, stopReason, suppressOutput, systemMessage``, so the checkpoint is always a
block (no context output on Stop). Plain stdout at SessionStart becomes model context, as in Claude Code. Codex
has no SessionEnd event: the next session's start picks up what was left.
"""

from __future__ import annotations

from mdmem.agents.hooks.wire import keep

NAME = "codex"
EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt", "Stop": "stop", "PreCompact": "pre-compact"}
FORCED = {"stop": {"output": "block"}}
_UNIVERSAL = ("continue", "stopReason", "suppressOutput", "systemMessage")
ALLOWED = {"stop": _UNIVERSAL + ("decision", "reason"),
           "prompt": _UNIVERSAL + ("decision", "reason", "hookSpecificOutput"),
           "session-start": _UNIVERSAL + ("hookSpecificOutput",),
           "pre-compact": _UNIVERSAL}


def inbound(hook: str, payload: dict) -> dict:
    if hook == "session-start":  # no SessionEnd in Codex: the sessions that ended are recorded now
        payload = {**payload, "mdmem_catch_up": True}
    return payload


def transcript_reader():
    """Codex's rollouts, read from the byte the last stop reached (the checkpoint's ``read=``)."""
    from mdmem.agents.codex.tail import read

    return read


def outbound(hook: str, answer):
    if isinstance(answer, dict):
        return keep(answer, ALLOWED.get(hook, _UNIVERSAL))
    return answer

"""GitHub Copilot CLI's hooks (``.github/hooks/*.json``, version 1): camel-case fields, ``agentStop`` blocks.

``agentStop`` answers ``decision: "block"`` + ``reason`` (the follow-up instruction); ``sessionStart`` answers
``additionalContext``, which Copilot CLI 1.0.8 was reported to ignore (github/copilot-cli#2142). Sources: the
Copilot CLI hooks reference on docs.github.com and the SDK's hook types (closed source: not verified against a
running Copilot).
"""

from __future__ import annotations

from mdmem.agents.hooks.wire import first, present, reshaped

NAME = "copilot"
EVENTS = {"sessionStart": "session-start", "agentStop": "stop", "preCompact": "pre-compact",
          "sessionEnd": "session-end"}
FORCED = {"stop": {"output": "block"}}


def inbound(hook: str, payload: dict) -> dict:
    out = {**payload, "session_id": first(payload, "session_id", "sessionId"),
           "transcript_path": first(payload, "transcript_path", "transcriptPath"),
           "cwd": first(payload, "cwd", "workingDirectory"),
           "stop_hook_active": bool(first(payload, "stop_hook_active", "stopHookActive"))}
    return present(out)


def outbound(hook: str, answer):
    return reshaped(hook, answer, "additionalContext", lambda text: {"decision": "block", "reason": text})

"""Cursor's hooks (``.cursor/hooks.json``, version 1): lower-camel events and their own fields.

Cursor's payloads carry ``conversation_id`` and ``workspace_roots`` (not ``session_id`` and ``cwd``); ``stop``
carries ``status`` and ``loop_count`` and answers ``followup_message``, sent as the next user message;
``sessionStart`` answers ``additional_context``. ``beforeSubmitPrompt`` can only block, so per-prompt recall
reaches Cursor through MCP and its rules file, not a hook. Sources: cursor.com/docs/agent/hooks and the
third-party references cited in docs/agents.md (Cursor is closed source: not verified against a running Cursor).
"""

from __future__ import annotations

from mdmem.agents.hooks.wire import first, present, reshaped

NAME = "cursor"
EVENTS = {"sessionStart": "session-start", "stop": "stop", "preCompact": "pre-compact", "sessionEnd": "session-end"}
FORCED = {"stop": {"output": "block"}}


def inbound(hook: str, payload: dict) -> dict:
    roots = payload.get("workspace_roots")
    cwd = first(payload, "cwd") or (roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str)
                                    else None)
    out = {**payload, "session_id": first(payload, "session_id", "conversation_id"), "cwd": cwd}
    if hook == "stop":
        count = payload.get("loop_count")
        out["stop_hook_active"] = bool(payload.get("stop_hook_active")) or (isinstance(count, int) and count > 0)
    return present(out)


def outbound(hook: str, answer):
    return reshaped(hook, answer, "additional_context", lambda text: {"followup_message": text})

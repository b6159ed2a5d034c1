"""Gemini CLI's hooks (and Antigravity CLI's, which reads the same settings): its event names and fields.

Gemini CLI's hooks reference (google-gemini/gemini-cli ``docs/hooks/reference.md``): every payload has
``session_id, transcript_path, cwd, hook_event_name, timestamp``; ``BeforeAgent`` adds ``prompt``;
``AfterAgent`` adds ``prompt, prompt_response, stop_hook_active`` and takes ``decision: "block"`` + ``reason``,
sent to the agent as a new prompt; ``SessionStart`` and ``BeforeAgent`` take
``hookSpecificOutput.additionalContext``. Stdout must be JSON only, so the card goes out as JSON too.
"""

from __future__ import annotations

from mdmem.agents.hooks.wire import context_of

NAME = "gemini"
EVENTS = {"SessionStart": "session-start", "BeforeAgent": "prompt", "AfterAgent": "stop",
          "PreCompress": "pre-compact", "SessionEnd": "session-end"}
FORCED = {"stop": {"output": "block"}}
_EVENT = {"session-start": "SessionStart", "prompt": "BeforeAgent"}


def inbound(hook: str, payload: dict) -> dict:
    if hook == "stop" and "last_assistant_message" not in payload and isinstance(payload.get("prompt_response"), str):
        return {**payload, "last_assistant_message": payload["prompt_response"]}
    return payload


def transcript_reader():
    """Gemini's chat recordings, read whole (updates and rewinds replayed; the checkpoint's ``read=``)."""
    from mdmem.agents.gemini.chats import transcript

    return transcript


def outbound(hook: str, answer):
    if answer is None or answer == "":
        return None
    if hook in _EVENT:
        text = context_of(answer)
        out: dict = {}
        if isinstance(answer, dict) and isinstance(answer.get("systemMessage"), str):
            out["systemMessage"] = answer["systemMessage"]
        if text:
            out["hookSpecificOutput"] = {"hookEventName": _EVENT[hook], "additionalContext": text}
        return out or None
    return answer if isinstance(answer, dict) else None

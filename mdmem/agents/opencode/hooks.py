"""OpenCode's hooks: mdmem's plugin (``plugin.js``, installed as ``.opencode/plugins/mdmem.js``) runs ``mdmem hook
NAME --agent opencode`` with OpenCode's own hook input on stdin; this maps it in and mdmem's answer out.

What the plugin sends, per OpenCode hook (anomalyco/opencode ``packages/plugin/src/index.ts`` @0d4d22f4, the
``Hooks`` interface; events in ``packages/sdk/js/src/gen/types.gen.ts`` @c4794191), each with the plugin's
``directory`` and ``hook_event_name``:

- ``experimental.chat.system.transform`` (input ``{sessionID, model}``; ``compacted`` when the session was just
  compacted) -> ``session-start``; answer ``{"system": CARD}``, pushed onto ``output.system``;
- ``chat.message`` (input ``{sessionID, agent, model, messageID}``, output ``parts``) -> ``prompt``; answer
  ``{"context": NOTES}``, added as a synthetic text part;
- the ``session.idle`` event (``{type, properties: {sessionID}}``; ``transcript``: the session's messages the
  plugin wrote, :mod:`mdmem.agents.opencode.messages`; ``continuing``: the turn answers mdmem's scan) -> ``stop``;
  answer ``{"prompt": SCAN}``, which the plugin sends as the session's next message (OpenCode has no blocking stop);
- ``experimental.session.compacting`` (input ``{sessionID}``, ``transcript``) -> ``pre-compact``; no answer.

OpenCode has no session end: the next session's start records what the ended ones left (as for Codex).
"""

from __future__ import annotations

from mdmem.agents.hooks.wire import context_of, first, present

NAME = "opencode"
EVENTS = {"experimental.chat.system.transform": "session-start", "chat.message": "prompt", "session.idle": "stop",
          "experimental.session.compacting": "pre-compact"}
FORCED = {"stop": {"output": "block"}}
ANSWER = {"session-start": "system", "prompt": "context", "stop": "prompt"}  # the plugin's field per hook


def inbound(hook: str, payload: dict) -> dict:
    event = payload.get("event")
    props = event.get("properties") if isinstance(event, dict) else None
    out = {**payload, "session_id": first(payload, "session_id", "sessionID") or (
        props.get("sessionID") if isinstance(props, dict) else None),
        "cwd": first(payload, "cwd", "directory"), "transcript_path": first(payload, "transcript_path", "transcript")}
    if hook == "session-start":
        out["source"] = "compact" if payload.get("compacted") is True else "startup"
        out["mdmem_catch_up"] = True  # no session end in OpenCode: the sessions that ended are recorded now
    elif hook == "prompt":
        parts = payload.get("parts")
        texts = [p["text"] for p in parts if isinstance(p, dict) and p.get("type") == "text"
                 and isinstance(p.get("text"), str) and not p.get("synthetic")] if isinstance(parts, list) else []
        out["prompt"] = "\n".join(texts) or None
    elif hook == "stop":
        out["stop_hook_active"] = payload.get("continuing") is True
    return present(out)


def transcript_reader():
    """The messages the plugin wrote, read whole (the checkpoint's ``read=``)."""
    from mdmem.agents.opencode.messages import transcript

    return transcript


def outbound(hook: str, answer):
    text = context_of(answer)
    return {ANSWER[hook]: text} if text and hook in ANSWER else None

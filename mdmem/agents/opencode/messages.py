"""OpenCode's messages as mdmem's plugin hands them to the hooks: one ``{"info": Message, "parts": [Part]}`` per
line, as OpenCode's SDK returns them (``client.session.messages``; types in anomalyco/opencode
``packages/sdk/js/src/gen/types.gen.ts``: ``UserMessage``/``AssistantMessage`` with ``role``, ``TextPart`` with
``text``, ``synthetic``, ``ignored``, ``ToolPart`` with ``tool``), read into a
:class:`~mdmem.agents.history.model.Session`.

A person's words are the text parts OpenCode did not make (``synthetic``: the notes mdmem's plugin adds, the scan
it hands back; ``ignored``): a user message with none is left out. Standard library only (the Stop hook reads it).
"""

from __future__ import annotations

import os

MAX_BYTES = 16 * 1024 * 1024


def read(path: str | os.PathLike):
    """The session in ``path`` (a line that is not a message is skipped)."""
    from mdmem.agents.history.model import Session, SessionMessage
    from mdmem.base.fastjson import loads
    from mdmem.base.files import read_outside

    messages, session, cwd = [], "", None
    for line in read_outside(path, MAX_BYTES).decode("utf-8", "replace").splitlines():
        try:
            record = loads(line)
        except ValueError:
            continue
        info = record.get("info") if isinstance(record, dict) else None
        parts = record.get("parts") if isinstance(record, dict) else None
        if not isinstance(info, dict) or not isinstance(parts, list):
            continue
        role = info.get("role")
        session = session or str(info.get("sessionID") or "")
        path_info = info.get("path")
        if isinstance(path_info, dict) and isinstance(path_info.get("cwd"), str):
            cwd = path_info["cwd"]
        texts = [p["text"] for p in parts if isinstance(p, dict) and p.get("type") == "text"
                 and isinstance(p.get("text"), str) and not p.get("synthetic") and not p.get("ignored")]
        if role in ("user", "assistant") and any(t.strip() for t in texts):
            messages.append(SessionMessage(role=role, text="\n".join(t for t in texts if t.strip())))
    return Session(agent="opencode", id=session, messages=tuple(messages), cwd=cwd)

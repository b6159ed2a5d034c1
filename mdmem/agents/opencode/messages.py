"""OpenCode's messages as mdmem's plugin hands them to the hooks: one ``{"info": Message, "parts": [Part]}`` per
line, as OpenCode's SDK returns them (``client.session.messages``; types in anomalyco/opencode
``packages/sdk/js/src/gen/types.gen.ts`` @c4794191: ``UserMessage``/``AssistantMessage`` with ``role``,
``sessionID``, ``path.cwd``; ``TextPart`` with ``text``, ``synthetic``, ``ignored``; ``ToolPart`` with ``tool``).

A person's words are the text parts OpenCode did not make (``synthetic``: the notes mdmem's plugin adds, the scan
it hands back; ``ignored``): a user message with none is left out. :func:`transcript` is the checkpoint's reader
(the Stop hook's quiet path: standard library only, no dataclasses).
"""

from __future__ import annotations

import os

MAX_BYTES = 16 * 1024 * 1024


def _rows(path: str | os.PathLike) -> tuple[str, str | None, list[tuple[str, str, tuple[str, ...]]]]:
    """(session id, cwd, [(role, text, tools called)]) of the file at ``path``; a line that is no message is
    skipped."""
    from mdmem.base.fastjson import loads
    from mdmem.base.files import read_outside

    rows, session, cwd = [], "", None
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
        where = info.get("path")
        if isinstance(where, dict) and isinstance(where.get("cwd"), str):
            cwd = where["cwd"]
        parts = [p for p in parts if isinstance(p, dict)]
        texts = [p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str)
                 and p["text"].strip() and not p.get("synthetic") and not p.get("ignored")]
        tools = tuple(str(p.get("tool")) for p in parts if p.get("type") == "tool")
        if role in ("user", "assistant") and (texts or (role == "assistant" and tools)):
            rows.append((role, "\n".join(texts), tools))
    return session, cwd, rows


def transcript(path: str | os.PathLike, start: int = 0, **_: object):
    """The checkpoint's reader (``read=``): the messages after the first ``start`` (positions are message counts,
    the whole file is read each time; a byte reader's options do not apply)."""
    from mdmem.agents.checkpoint.transcript import Message, Transcript
    from mdmem.base.errors import MdmemError

    try:
        session, cwd, rows = _rows(path)
    except OSError as e:
        raise MdmemError(f"cannot read transcript {os.fspath(path)}: {e.strerror or e}") from None
    messages = [Message(index=i, speaker=role, text=text, tools=tools, offset=i, id=None, kind="")
                for i, (role, text, tools) in enumerate(rows)]
    start = 0 if start > len(messages) else start
    return Transcript(messages=messages[start:], format="jsonl", session_id=session, start=start,
                      end=len(messages), records=len(messages), cwd=cwd)


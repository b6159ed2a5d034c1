"""What every session reader needs and nothing more: a JSONL file's records, streamed (:func:`jsonl_records`), and
the text of a message's content in any of the agents' shapes (:func:`text_of`), a session's project
(:func:`project_of`). Standard library only, no
dataclasses: the Stop hook reads another agent's transcript through these on its quiet path (``import
dataclasses`` alone measured 2.15x a bare ``python -c pass``, whose double is the quiet hook's whole budget).
"""

from __future__ import annotations

import os


def text_of(content) -> str:
    """The text in a message content that may be a string, a list of parts (``{"text": ...}`` or
    ``{"type": "text"|"input_text"|"output_text", "text": ...}``) or a dict with ``text``."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        value = content.get("text")
        return value if isinstance(value, str) else ""
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str) and \
                    part.get("type", "text") in ("text", "input_text", "output_text"):
                parts.append(part["text"])
        return "\n".join(p for p in parts if p)
    return ""


def jsonl_records(path: str | os.PathLike, limit: int):
    """Each JSON object of a JSONL file, one line at a time (streamed: a session file of any size costs one line
    of memory), a line over ``limit`` bytes skipped; yields ``(record or None, line_bytes)``, None for a
    malformed line. Only a regular file is opened (:func:`mdmem.base.files.open_regular`)."""
    from mdmem.base import files
    from mdmem.base.fastjson import loads

    fd = files.open_regular(path)
    with os.fdopen(fd, "rb") as f:
        for line in f:
            if len(line) > limit:
                yield None, len(line)
                continue
            if not line.strip():
                continue
            try:
                rec = loads(line)
            except ValueError:
                yield None, len(line)
                continue
            yield (rec if isinstance(rec, dict) else None), len(line)


def project_of(cwd: str | None) -> str | None:
    """The project a working folder belongs to: its last part, or for a git worktree kept inside the project
    (``<project>/.worktrees/<name>``, ``<project>/.claude/worktrees/<name>``) the project's folder."""
    if not cwd:
        return None
    parts = [p for p in cwd.replace("\\", "/").split("/") if p]
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] in (".worktrees", "worktrees"):
            j = i - 1
            while j > 0 and parts[j].startswith("."):
                j -= 1
            return parts[j]
    return parts[-1] if parts else None

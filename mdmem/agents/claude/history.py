"""Claude Code's past sessions: ``~/.claude/projects/<cwd-slug>/<sessionId>.jsonl`` read as :class:`Session`.

The conversation comes from :func:`mdmem.agents.claude.transcript.read` (the checkpoint's reader: sidechains,
subagent files, ``isMeta``/compaction-summary records, tool results, command wrappers and hook feedback are
never the user's; text typed while the agent worked is kept as ``queued``). A second streamed pass over the
same lines adds what that reader does not keep: each message's time (by its first record's byte offset), the
session's ``cwd``, git branch, title (``custom-title``/``ai-title``/``summary`` records) and the files its
``Write``/``Edit``/``MultiEdit``/``NotebookEdit`` calls touched. Subagent transcripts
(``<session>/subagents/*.jsonl``) are not sessions and are never listed.
"""

from __future__ import annotations

import os
from pathlib import Path

from mdmem.agents.history.model import Session, SessionMessage

LINE_LIMIT = 16 * 1024 * 1024
_WRITES = ("Write", "Edit", "MultiEdit", "NotebookEdit")


def home() -> Path:
    """Claude Code's projects folder (``CLAUDE_CONFIG_DIR``/projects or ``~/.claude/projects``)."""
    from mdmem.agents.claude.transcript import claude_projects_dir

    return Path(claude_projects_dir())


def files(root: Path | None = None) -> list[Path]:
    """Every session transcript under the projects folder (one level of project folders; no subagents)."""
    root = root or home()
    if not root.is_dir():
        return []
    return sorted(p for p in root.glob("*/*.jsonl") if p.is_file())


def read(path: str | os.PathLike) -> Session:
    """One Claude Code transcript as a :class:`Session` (see the module's docstring).

    The second pass parses only the lines it needs (a message's first record, an assistant record that writes a
    file, a title, the first with a ``cwd``); the others give their time with a byte search. Parsing every line
    of a session full of tool output made the pass cost more than the conversation's own reader."""
    import json
    import re

    from mdmem.agents.claude import transcript
    from mdmem.base import files as fs

    conv = transcript.read(path)
    wanted = {m.offset for m in conv.messages}
    times: dict[int, str] = {}
    touched: dict[str, None] = {}
    cwd = branch = title = model = None
    start = end = None
    stamp = re.compile(rb'"timestamp":"([0-9T:.\-+Z]{10,40})"')
    offset = 0
    fd = fs.open_regular(path)
    with os.fdopen(fd, "rb") as f:
        for line in f:
            here = offset
            offset += len(line)
            if len(line) > LINE_LIMIT or not line.strip() or b'"isSidechain":true' in line:
                continue
            if line.startswith(b'{"type":"file-history-snapshot"'):
                continue
            found = stamp.findall(line)
            if found:
                at = found[-1].decode()
                times[here] = at
                start = start or at
                end = at
            writes = b'"tool_use"' in line and any(b'"name":"' + w.encode() + b'"' in line for w in _WRITES)
            titled = b'-title"' in line or line.startswith(b'{"type":"summary"')
            if not (here in wanted or writes or titled or (cwd is None and b'"cwd"' in line) or
                    (branch is None and b'"gitBranch":"' in line) or (model is None and b'"model":"' in line)):
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if not isinstance(rec, dict):
                continue
            kind = rec.get("type")
            if kind in ("custom-title", "ai-title"):
                title = rec.get("customTitle") or rec.get("aiTitle") or rec.get("title") or title
                continue
            if kind == "summary" and isinstance(rec.get("summary"), str) and not title:
                title = rec["summary"]
                continue
            if isinstance(rec.get("timestamp"), str):
                times[here] = rec["timestamp"]
            if isinstance(rec.get("cwd"), str) and not cwd:
                cwd = rec["cwd"]
            if isinstance(rec.get("gitBranch"), str) and rec["gitBranch"] and rec["gitBranch"] != "HEAD":
                branch = rec["gitBranch"]
            message = rec.get("message")
            if kind == "assistant" and isinstance(message, dict):
                if isinstance(message.get("model"), str) and message["model"] != "<synthetic>":
                    model = message["model"]
                for block in message.get("content") or ():
                    if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") in _WRITES:
                        args: dict = block["input"] if isinstance(block.get("input"), dict) else {}
                        target = args.get("file_path") or args.get("notebook_path")
                        if isinstance(target, str) and target:
                            touched[target] = None
    messages = tuple(SessionMessage("user" if m.speaker == "user" else "assistant", m.text,
                                    times.get(m.offset), "queued" if m.kind == "queued" else "")
                     for m in conv.messages if m.kind != "prompt")
    sid = conv.session_id or Path(path).stem
    return Session("claude-code", sid, messages, cwd=cwd or conv.cwd, start=start, end=end, title=title,
                   files=tuple(touched), source=os.fspath(path), branch=branch, model=model,
                   notes={"malformed": conv.malformed})

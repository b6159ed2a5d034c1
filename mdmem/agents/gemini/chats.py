"""Gemini CLI chat recordings read as :class:`~mdmem.agents.history.model.Session`.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/agents/gemini/chats.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from mdmem.agents.history.model import Session, SessionMessage, jsonl_records, text_of

LINE_LIMIT = 16 * 1024 * 1024
JSON_LIMIT = 64 * 1024 * 1024
_WRITES = ("write_file", "replace", "edit", "write_todos_file")
# user records Gemini CLI writes itself: after a turn that ended on a tool call it sends "System: Please continue."
# (seen in the real sessions of tests/data/gemini); nobody typed it
_INJECTED = ("System: Please continue.",)


def home() -> Path:
    """``GEMINI_CLI_HOME``/.gemini or ``~/.gemini``."""
    base = os.environ.get("GEMINI_CLI_HOME")
    return (Path(base).expanduser() if base else Path.home()) / ".gemini"


def files(root: Path | None = None) -> list[Path]:
    """Every main session recording under ``tmp/*/chats/`` (``.jsonl``, and a legacy ``.json`` with no
    ``.jsonl`` twin)."""
    root = root or home()
    tmp = root / "tmp"
    if not tmp.is_dir():
        return []
    found = [p for p in tmp.glob("*/chats/session-*.jsonl") if p.is_file()]
    found += [p for p in tmp.glob("*/chats/session-*.json")
              if p.is_file() and not p.with_suffix(".jsonl").exists()]
    return sorted(found)


def _roots(root: Path) -> dict[str, str]:
    """short id -> project root, from ``projects.json`` (``{"projects": {root: id}}`` or ``{root: id}``)."""
    try:
        data = json.loads((root / "projects.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    table = data.get("projects", data) if isinstance(data, dict) else {}
    return {str(v): str(k) for k, v in table.items() if isinstance(table, dict) and isinstance(v, str)}


def _project_root(path: Path, meta: dict) -> str | None:
    folder = path.parent.parent  # tmp/<shortId>
    found = _roots(folder.parent.parent).get(folder.name)
    if found:
        return found
    try:
        marker = (folder / ".project_root").read_text(encoding="utf-8").strip()
        if marker:
            return marker
    except OSError:
        pass
    dirs = meta.get("directories")
    if isinstance(dirs, list) and dirs and isinstance(dirs[0], str):
        return dirs[0]
    return None


def _message(rec: dict) -> SessionMessage | None:
    kind = rec.get("type")
    at = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
    if kind == "user":
        shown = rec.get("displayContent")
        text = text_of(shown if shown else rec.get("content")).strip()
        return SessionMessage("user", text, at) if text and not text.startswith(_INJECTED) else None
    if kind == "gemini":
        text = text_of(rec.get("content")).strip()
        return SessionMessage("assistant", text, at) if text else None
    return None


def _touched(rec: dict, into: dict) -> None:
    for call in rec.get("toolCalls") or ():
        if isinstance(call, dict) and call.get("name") in _WRITES and isinstance(call.get("args"), dict):
            target = call["args"].get("file_path") or call["args"].get("absolute_path")
            if isinstance(target, str) and target:
                into[target] = None


def read(path: str | os.PathLike) -> Session:
    """One recording as a :class:`Session`, replayed (see the module's docstring)."""
    path = Path(path)
    meta: dict = {}
    records: dict[str, dict] = {}  # message id -> its latest record, in first-seen order
    rewinds = replaced = 0
    if path.suffix == ".json":
        from mdmem.base import files as fs

        fd = fs.open_regular(path)
        data = fs.read_fd(fd, JSON_LIMIT)
        os.close(fd)
        doc = json.loads(data) if data.strip() else {}
        meta = doc if isinstance(doc, dict) else {}
        for i, rec in enumerate(meta.get("messages") or ()):
            if isinstance(rec, dict):
                records[str(rec.get("id", i))] = rec
    else:
        for rec, _size in jsonl_records(path, LINE_LIMIT):
            if rec is None:
                continue
            if "$rewindTo" in rec:
                target = str(rec["$rewindTo"])
                if target in records:
                    keys = list(records)
                    for key in keys[keys.index(target):]:
                        del records[key]
                else:
                    records.clear()  # gemini-cli: an unknown id clears the conversation
                rewinds += 1
            elif isinstance(rec.get("$set"), dict):
                update = rec["$set"]
                if isinstance(update.get("messages"), list):
                    records = {str(m.get("id", i)): m for i, m in enumerate(update["messages"]) if isinstance(m, dict)}
                    replaced += 1
                meta.update({k: v for k, v in update.items() if k != "messages"})
            elif "sessionId" in rec and "type" not in rec:
                meta.update(rec)
            elif "id" in rec and "type" in rec:
                key = str(rec["id"])
                records[key] = {**records[key], **rec} if key in records else rec
    messages = []
    touched: dict[str, None] = {}
    times = []
    for rec in records.values():
        msg = _message(rec)
        if msg is not None:
            messages.append(msg)
        if msg is not None and msg.at:
            times.append(msg.at)
        if rec.get("type") == "gemini":
            _touched(rec, touched)
    start = meta.get("startTime") if isinstance(meta.get("startTime"), str) else (min(times) if times else None)
    # the last write: a rewind or a `$set` of fewer messages still moves it on (an import keeps the newest copy)
    updated = meta.get("lastUpdated") if isinstance(meta.get("lastUpdated"), str) else None
    end = max([*times, *([updated] if updated else [])], default=None)
    sid = str(meta.get("sessionId") or path.stem)
    title = meta.get("summary") if isinstance(meta.get("summary"), str) else None
    return Session("gemini", sid, tuple(messages), cwd=_project_root(path, meta), start=start,
                   end=end if isinstance(end, str) else None, title=title, files=tuple(touched),
                   source=os.fspath(path), notes={"rewinds": rewinds, "replaced": replaced,
                                                  "subagent": meta.get("kind") == "subagent"})

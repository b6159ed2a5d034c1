"""Gemini CLI chat recordings read as :class:`~mdmem.agents.history.model.Session`.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/agents/gemini/chats.py).
"""

from __future__ import annotations

import os

from mdmem.agents.history.records import jsonl_records, text_of

TYPE_CHECKING = False  # the Stop hook reads a recording through :func:`transcript`: no pathlib, json, dataclasses
if TYPE_CHECKING:
    from pathlib import Path

    from mdmem.agents.checkpoint.transcript import Transcript
    from mdmem.agents.history.model import Session

LINE_LIMIT = 16 * 1024 * 1024
JSON_LIMIT = 64 * 1024 * 1024
_WRITES = ("write_file", "replace", "edit", "write_todos_file")
# user records Gemini CLI writes itself: after a turn that ended on a tool call it sends "System: Please continue."
# (seen in the real sessions of tests/data/gemini); nobody typed it
_INJECTED = ("System: Please continue.",)


def home() -> Path:
    """``GEMINI_CLI_HOME``/.gemini or ``~/.gemini``."""
    from pathlib import Path

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


def _roots(root: str) -> dict[str, str]:
    """short id -> project root, from ``projects.json`` (``{"projects": {root: id}}`` or ``{root: id}``)."""
    from mdmem.base.fastjson import loads

    try:
        with open(os.path.join(root, "projects.json"), encoding="utf-8") as f:
            data = loads(f.read())
    except (OSError, ValueError):
        return {}
    table = data.get("projects", data) if isinstance(data, dict) else {}
    return {str(v): str(k) for k, v in table.items() if isinstance(table, dict) and isinstance(v, str)}


def _project_root(path: str, meta: dict) -> str | None:
    folder = os.path.dirname(os.path.dirname(os.path.abspath(path)))  # tmp/<shortId>
    found = _roots(os.path.dirname(os.path.dirname(folder))).get(os.path.basename(folder))
    if found:
        return found
    try:
        with open(os.path.join(folder, ".project_root"), encoding="utf-8") as f:
            marker = f.read().strip()
        if marker:
            return marker
    except OSError:
        pass
    dirs = meta.get("directories")
    if isinstance(dirs, list) and dirs and isinstance(dirs[0], str):
        return dirs[0]
    return None


def _said(rec: dict) -> tuple[str, str, str | None] | None:
    """(role, text, time) of a record a person or the model wrote, else None."""
    kind = rec.get("type")
    at = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
    if kind == "user":
        shown = rec.get("displayContent")
        text = text_of(shown if shown else rec.get("content")).strip()
        return ("user", text, at) if text and not text.startswith(_INJECTED) else None
    if kind == "gemini":
        text = text_of(rec.get("content")).strip()
        return ("assistant", text, at) if text else None
    return None


def _touched(rec: dict, into: dict) -> None:
    for call in rec.get("toolCalls") or ():
        if isinstance(call, dict) and call.get("name") in _WRITES and isinstance(call.get("args"), dict):
            target = call["args"].get("file_path") or call["args"].get("absolute_path")
            if isinstance(target, str) and target:
                into[target] = None


def _replay(path: str) -> tuple[dict, list[dict], int, int]:
    """The recording's metadata, its records after every update and rewind, the rewinds and the replacements."""
    meta: dict = {}
    records: dict[str, dict] = {}  # message id -> its latest record, in first-seen order
    rewinds = replaced = 0
    if os.path.splitext(path)[1] == ".json":
        from mdmem.base import files as fs

        fd = fs.open_regular(path)
        data = fs.read_fd(fd, JSON_LIMIT)
        os.close(fd)
        from mdmem.base.fastjson import loads

        doc = loads(data) if data.strip() else {}
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
    return meta, list(records.values()), rewinds, replaced


def _id(path: str, meta: dict) -> str:
    return str(meta.get("sessionId") or os.path.splitext(os.path.basename(path))[0])


def transcript(path: str | os.PathLike, start: int = 0, **_: object) -> Transcript:
    """The recording for the checkpoint (its ``read=``): the conversation after the first ``start`` messages
    (positions are message counts: the whole file is replayed each time; a byte reader's options do not apply)."""
    from mdmem.agents.checkpoint.transcript import Message, Transcript
    from mdmem.base.errors import MdmemError

    path = os.fspath(path)
    try:
        meta, records, *_counts = _replay(path)
    except OSError as e:
        raise MdmemError(f"cannot read transcript {path}: {e.strerror or e}") from None
    said = [s for s in map(_said, records) if s is not None]
    messages = [Message(index=i, speaker=role, text=text, tools=(), offset=i, id=None, kind="")
                for i, (role, text, _) in enumerate(said)]
    start = 0 if start > len(messages) else start
    return Transcript(messages=messages[start:], format="jsonl", session_id=_id(path, meta),
                      start=start, end=len(messages), records=len(messages), cwd=_project_root(path, meta))


def read(path: str | os.PathLike) -> Session:
    """One recording as a :class:`Session`, replayed (see the module's docstring)."""
    from mdmem.agents.history.model import Session, SessionMessage

    path = os.fspath(path)
    meta, records, rewinds, replaced = _replay(path)
    messages = []
    touched: dict[str, None] = {}
    times = []
    for rec in records:
        said = _said(rec)
        msg = SessionMessage(*said) if said is not None else None
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
    sid = _id(path, meta)
    title = meta.get("summary") if isinstance(meta.get("summary"), str) else None
    return Session("gemini", sid, tuple(messages), cwd=_project_root(path, meta), start=start,
                   end=end if isinstance(end, str) else None, title=title, files=tuple(touched),
                   source=os.fspath(path), notes={"rewinds": rewinds, "replaced": replaced,
                                                  "subagent": meta.get("kind") == "subagent"})

"""Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`` (and
``archived_sessions/``) read as :class:`~mdmem.agents.history.model.Session`.

Each line is ``{"timestamp", "type", "payload"}``. What the user typed is the ``event_msg`` ``user_message``
(the ``response_item`` user messages also carry what Codex injected: ``<environment_context>``,
``<user_instructions>``, AGENTS.md); the assistant's words are ``event_msg`` ``agent_message``. Rollouts from
before those events existed fall back to the ``response_item`` messages, less the injected ones. Replayed as
Codex resumes a thread: ``thread_rolled_back`` drops its last ``num_turns`` turns (a turn starts at a user
message); a ``compacted`` record replaces what the *model* sees, not what was said, so the messages before it
stay (its summary is nobody's message). Files touched come from ``apply_patch`` calls (``*** Add/Update/Delete
File:`` lines) and ``patch_apply_begin`` events. Sub-agent threads (``session_meta.source`` naming a parent) are
not the user's sessions and are skipped by :func:`files`' caller through :attr:`Session.notes`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mdmem.agents.history.model import Session, SessionMessage
from mdmem.agents.history.records import jsonl_records, text_of

LINE_LIMIT = 16 * 1024 * 1024
_INJECTED = ("<environment_context>", "<user_instructions>", "<user_shell_command>", "# AGENTS.md instructions",
             "<turn_aborted>", "<subagent_notification>")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)


def home() -> Path:
    """``CODEX_HOME`` or ``~/.codex``."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def files(root: Path | None = None) -> list[Path]:
    """Every rollout under ``sessions/`` and ``archived_sessions/`` (``.jsonl``; compressed ones are not read)."""
    root = root or home()
    found: list[Path] = []
    for sub in ("sessions", "archived_sessions"):
        folder = root / sub
        if folder.is_dir():
            found += [p for p in folder.rglob("rollout-*.jsonl") if p.is_file()]
    return sorted(found)


def _injected(text: str) -> bool:
    return text.lstrip().startswith(_INJECTED)


def read(path: str | os.PathLike) -> Session:
    """One rollout as a :class:`Session` (see the module's docstring)."""
    meta: dict = {}
    cwd = branch = model = None
    start = end = None
    events: list[SessionMessage] = []  # from event_msg
    items: list[SessionMessage] = []  # from response_item messages: the fallback
    turn_starts: list[int] = []  # index in events where each user turn starts
    item_starts: list[int] = []
    touched: dict[str, None] = {}
    rolled = compacted = malformed = 0
    for rec, _size in jsonl_records(path, LINE_LIMIT):
        if rec is None:
            malformed += 1
            continue
        kind, payload, at = rec.get("type"), rec.get("payload"), rec.get("timestamp")
        if not isinstance(payload, dict):
            continue
        if isinstance(at, str):
            start = start or at
            end = at
        if kind == "session_meta":
            meta = meta or payload
            cwd = cwd or payload.get("cwd")
            git = payload.get("git")
            if isinstance(git, dict) and isinstance(git.get("branch"), str):
                branch = git["branch"]
            if isinstance(payload.get("timestamp"), str):
                start = min(start or payload["timestamp"], payload["timestamp"])
        elif kind == "turn_context":
            cwd = cwd or payload.get("cwd")
            model = payload.get("model") if isinstance(payload.get("model"), str) else model
        elif kind == "compacted":
            compacted += 1
        elif kind == "event_msg":
            sub = payload.get("type")
            if sub == "user_message" and isinstance(payload.get("message"), str):
                text = payload["message"].strip()
                if text and not _injected(text):
                    turn_starts.append(len(events))
                    events.append(SessionMessage("user", text, at if isinstance(at, str) else None))
            elif sub == "agent_message" and isinstance(payload.get("message"), str):
                if payload["message"].strip():
                    events.append(SessionMessage("assistant", payload["message"].strip(),
                                                 at if isinstance(at, str) else None))
            elif sub == "thread_rolled_back":
                n = payload.get("num_turns")
                n = n if isinstance(n, int) and n > 0 else 1
                rolled += n
                for starts, msgs in ((turn_starts, events), (item_starts, items)):
                    if starts:
                        cut = starts[max(0, len(starts) - n)]
                        del msgs[cut:]
                        del starts[max(0, len(starts) - n):]
            elif sub == "patch_apply_begin" and isinstance(payload.get("changes"), dict):
                for name in payload["changes"]:
                    touched[str(name)] = None
        elif kind == "response_item":
            sub = payload.get("type")
            if sub == "message" and payload.get("role") in ("user", "assistant"):
                text = text_of(payload.get("content")).strip()
                if text and not (payload["role"] == "user" and _injected(text)):
                    if payload["role"] == "user":
                        item_starts.append(len(items))
                    items.append(SessionMessage(payload["role"], text, at if isinstance(at, str) else None))
            elif sub in ("function_call", "custom_tool_call", "local_shell_call"):
                args = payload.get("arguments") if sub == "function_call" else payload.get("input")
                if isinstance(args, str) and "*** " in args and "apply_patch" in (payload.get("name") or "") + args:
                    for name in _PATCH_FILE.findall(args):
                        touched[name.strip()] = None
    # an event stream with the user's messages is the record; a rollout from before it, the response items
    messages = events if any(m.role == "user" for m in events) else items
    sid = str(meta.get("id") or _id_from_name(Path(path).name))
    source = meta.get("source")
    parent = isinstance(source, dict) and "subagent" in source
    return Session("codex", sid, tuple(messages), cwd=cwd if isinstance(cwd, str) else None, start=start, end=end,
                   files=tuple(touched), source=os.fspath(path), branch=branch, model=model,
                   notes={"rolled_back": rolled, "compacted": compacted, "malformed": malformed,
                          "subagent": parent})


def _id_from_name(name: str) -> str:
    """``rollout-2025-11-22T21-45-35-<uuid>.jsonl`` -> the uuid."""
    m = re.search(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", name)
    return m.group(1) if m else name.removesuffix(".jsonl")

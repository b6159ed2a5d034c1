"""Claude.ai's data export: each conversation of ``conversations.json`` as a
:class:`~mdmem.agents.history.model.Session`.

A conversation is ``{uuid, name, created_at, updated_at, chat_messages: [{uuid, sender: human | assistant,
text, content[], created_at, parent_message_uuid?}]}`` (``messages`` is accepted for ``chat_messages``). An
edited prompt or a retried answer makes a tree: when the messages carry ``parent_message_uuid``, the kept
branch is the one ``current_leaf_message_uuid`` ends (else the newest leaf), followed up to the root;
without parents the list is read in order. Only ``text`` content blocks count (``tool_use``/``tool_result``
and thinking blocks are not what was said); attachments' extracted text is not the user's message either.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from mdmem.agents.exports import iso, sessions
from mdmem.agents.history.model import Session, SessionMessage
from mdmem.agents.history.records import text_of


def _kept(messages: list[dict], leaf: str | None) -> list[dict]:
    by_id = {m.get("uuid"): m for m in messages if m.get("uuid")}
    if not any(m.get("parent_message_uuid") in by_id for m in messages):
        return messages
    parents = {m.get("parent_message_uuid") for m in messages}
    if leaf not in by_id:
        leaves = [m for m in messages if m.get("uuid") not in parents]
        leaf = max(leaves, key=lambda m: m.get("created_at") or "", default={}).get("uuid")
    path, seen = [], set()
    while leaf in by_id and leaf not in seen:
        seen.add(leaf)
        path.append(by_id[leaf])
        leaf = by_id[leaf].get("parent_message_uuid")
    return path[::-1]


def _text(m: dict) -> str:
    content = m.get("content")
    if isinstance(content, list) and content:
        text = text_of([b for b in content if isinstance(b, dict) and b.get("type", "text") == "text"])
        if text.strip():
            return text.strip()
    return m["text"].strip() if isinstance(m.get("text"), str) else ""


def session(conv: dict, source: str = "") -> Session | None:
    sid = conv.get("uuid") or conv.get("id")
    if not sid:
        return None
    raw = conv.get("chat_messages") if isinstance(conv.get("chat_messages"), list) else conv.get("messages")
    raw = [m for m in raw or () if isinstance(m, dict)]
    messages = []
    for m in _kept(raw, conv.get("current_leaf_message_uuid")):
        role = {"human": "user", "user": "user", "assistant": "assistant"}.get(str(m.get("sender") or m.get("role")))
        text = _text(m)
        if role and text:
            messages.append(SessionMessage(role, text, iso(m.get("created_at"))))
    return Session("claude-ai", str(sid), tuple(messages), start=iso(conv.get("created_at")),
                   end=iso(conv.get("updated_at")), title=conv.get("name") or None, source=source)


def read(path: str | os.PathLike) -> Iterator[Session]:
    """Every conversation of the export at ``path`` (its ``conversations.json`` or ZIP), one at a time."""
    return sessions(path, session)

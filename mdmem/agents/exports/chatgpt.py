"""ChatGPT's data export: each conversation of ``conversations.json`` as a
:class:`~mdmem.agents.history.model.Session`.

A conversation is a tree (``mapping``: node id -> ``{message, parent, children}``): every edit of a prompt and
every regenerated answer starts a branch. The branch the user kept is the one ``current_node`` ends: it is
followed up through ``parent`` to the root and read in that order; the other branches are not what was said
in the end (importers that follow every child show abandoned drafts as the conversation). Kept: ``user``
messages with text parts (not hidden ones, ``is_visually_hidden_from_conversation``, nor the custom
instructions ChatGPT injects, ``user_editable_context``) and ``assistant`` text addressed to the user
(``recipient`` "all"); ``system`` and ``tool`` messages, code and browsing calls are left out.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from mdmem.agents.exports import iso, sessions
from mdmem.agents.history.model import Session, SessionMessage


def _text(message: dict) -> str:
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type") not in ("text", "multimodal_text"):
        return ""
    parts = content.get("parts") or ()
    return "\n".join(p for p in parts if isinstance(p, str)).strip()


def branch(conv: dict) -> list[dict]:
    """The messages on the path from the root to ``current_node`` (the kept branch), in order. Without a
    ``current_node``, the path to the newest leaf. A cycle or a missing parent ends the walk."""
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict) or not mapping:
        return []
    node = conv.get("current_node")
    if node not in mapping:
        leaves = [k for k, v in mapping.items() if isinstance(v, dict) and not v.get("children")]
        node = max(leaves, key=lambda k: ((mapping[k].get("message") or {}).get("create_time") or 0), default=None)
    path, seen = [], set()
    while node in mapping and node not in seen:
        seen.add(node)
        entry = mapping[node] if isinstance(mapping[node], dict) else {}
        if isinstance(entry.get("message"), dict):
            path.append(entry["message"])
        node = entry.get("parent")
    return path[::-1]


def session(conv: dict, source: str = "") -> Session | None:
    """One conversation as a :class:`Session` (None when it has no id)."""
    sid = conv.get("conversation_id") or conv.get("id")
    if not sid:
        return None
    messages = []
    for m in branch(conv):
        role = (m.get("author") or {}).get("role")
        meta: dict = m["metadata"] if isinstance(m.get("metadata"), dict) else {}
        if meta.get("is_visually_hidden_from_conversation") or meta.get("is_user_system_message"):
            continue
        text = _text(m)
        if not text:
            continue
        if role == "user":
            messages.append(SessionMessage("user", text, iso(m.get("create_time"))))
        elif role == "assistant" and m.get("recipient", "all") == "all":
            messages.append(SessionMessage("assistant", text, iso(m.get("create_time"))))
    times = [m.at for m in messages if m.at]
    start = iso(conv.get("create_time")) or (min(times) if times else None)
    end = iso(conv.get("update_time")) or (max(times) if times else None)
    return Session("chatgpt", str(sid), tuple(messages), start=start, end=end,
                   title=conv.get("title") if isinstance(conv.get("title"), str) else None, source=source,
                   model=conv.get("default_model_slug") if isinstance(conv.get("default_model_slug"), str) else None)


def read(path: str | os.PathLike) -> Iterator[Session]:
    """Every conversation of the export at ``path`` (its ``conversations.json`` or ZIP), one at a time."""
    return sessions(path, session)

"""What a Codex rollout gained since the last stop, for the Stop hook: only the appended bytes are read.

A rollout is append-only JSONL; the checkpoint's trigger needs the turns' words, which Codex records as
``event_msg`` ``user_message`` and ``agent_message`` events, so only lines naming one are parsed (the rest,
reasoning and tool output, are most of the bytes). A rollback appends a ``thread_rolled_back`` event: the words
it takes back were still typed by the user, so the trigger keeps them (the importer, :mod:`.rollout`, replays
rollbacks). Standard library only: this is the hook's quiet path, measured in docs/agents.md.
"""

from __future__ import annotations

import os

from mdmem.base.fastjson import loads

_WANTED = (b'"user_message"', b'"agent_message"')
_INJECTED = ("<environment_context>", "<user_instructions>", "<user_shell_command>", "# AGENTS.md instructions",
             "<turn_aborted>", "<subagent_notification>")  # = rollout._INJECTED: what the harness adds
LIMIT = 8 * 1024 * 1024


def read(path: str | os.PathLike, start: int = 0, **_: object):
    """The messages after byte ``start``, as the checkpoint's transcript (positions are bytes, as for Claude's);
    a Claude reader's options (``subagents``, ``max_bytes``, ``errors``) do not apply."""
    from mdmem.agents.checkpoint.transcript import Message, Transcript, read_tail

    data, begin, cut = read_tail(path, start, LIMIT)
    end = begin + data.rfind(b"\n") + 1  # a line being written is read next time
    messages: list[Message] = []
    offset = begin
    for line in data[: end - begin].split(b"\n"):
        here, offset = offset, offset + len(line) + 1
        if not any(w in line for w in _WANTED):
            continue
        try:
            rec = loads(line)
        except ValueError:
            continue
        payload = rec.get("payload") if isinstance(rec, dict) else None
        if not isinstance(payload, dict) or rec.get("type") != "event_msg":
            continue
        kind, text = payload.get("type"), payload.get("message")
        if kind not in ("user_message", "agent_message") or not isinstance(text, str) or not text.strip():
            continue
        if kind == "user_message" and text.lstrip().startswith(_INJECTED):
            continue
        messages.append(Message(index=len(messages), speaker="user" if kind == "user_message" else "assistant",
                                text=text.strip(), tools=(), offset=here, id=None, kind=""))
    return Transcript(messages=messages, format="jsonl", session_id=None, start=start, end=end, cut=cut)

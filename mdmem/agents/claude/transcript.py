"""Claude Code's transcripts: its JSONL (``~/.claude/projects/<project>/<session>.jsonl``), read into the
conversation model of :mod:`mdmem.agents.checkpoint.transcript`; a file that is not JSONL is read as plain text.

The format is internal and changes between versions, so it is read defensively (unknown records and malformed
lines skipped and counted). Kept: what the user typed (prompts, queued messages, a tool rejection's feedback
recognised by the record's structure) and the assistant's text, grouped by ``message.id``; left out: meta records,
compaction summaries, hook feedback, command wrappers, task notifications, tool results, thinking, subagents unless
asked (their "user" records are Claude's prompts). Bounded; standard library only (it runs in the Stop hook).
What each record kind is and why: docs/decisions/055-checkpoint-detectors-and-transcripts.md.
"""

from __future__ import annotations

import os

from mdmem.agents.checkpoint.transcript import LIMIT, Message, Transcript, parse_text, read_tail, replace
from mdmem.base.errors import MdmemError
from mdmem.base.fastjson import loads
from mdmem.base.lazy_re import Lazy

SKIPPED_TYPES = frozenset({"progress", "file-history-snapshot", "attachment", "summary",
                           "system", "custom-title", "tag", "agent-name", "last-prompt"})
_WRAPPERS = ("<command-", "<local-command-")
# Claude Code writes compact JSON, where these byte strings can only be structure (inside a
# string value quotes are escaped): such lines are skipped without being parsed.
_FAST_SKIP = ((b'"type":"progress"', "progress"), (b'"type":"file-history-snapshot"', "file-history-snapshot"),
              (b'"type":"tool_result"', "tool-result"))  # in this order: progress records nest tool results
# A tool call the user rejected with a reason: Claude Code answers the call with a tool_result (is_error)
# "The user doesn't want to proceed with this tool use. … To tell you how to proceed, the user said:\n<reason>".
# The reason is typed by the user mid-turn and is often the session's clearest correction ("break out into a
# separate type … (don't be lazy!)"; 5 of the 14 tune sessions 21-34 hold such records), so it is read as a
# queued user message. AskUserQuestion's "clarify" answer comes through the same words and is Claude Code's
# boilerplate, not the user's: left out.
_REJECTED = b"the user said:"
_REJECTED_TEXT = "the user said:\n"
# ... recognised by the record's structure, never by these words alone (a tool's output can hold them: a `cat` of a
# README, a fetched page): Claude Code writes the rejection as the tool_result's whole content, a string, with
# `is_error: true`, and the record's own `toolUseResult` is the same text after "Error: " (a tool's output has a
# dict there, or no error mark). Measured on eval/data/checkpoint-real: all 50 rejection records hold this shape
# and the exact sentence below, over Claude Code 2.1.7 to 2.1.38.
_REJECTED_HEAD = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
                  "file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n")
_REJECTED_BOILERPLATE = ("The user wants to clarify these questions",)
# text the user typed while a tool ran is a top-level text block after the tool_result, the last of the
# message's content: `{"type":"text","text":"…"}]},"` (a text block nested inside a tool result's own content
# ends `"}]}]},"`). Measured on eval/data/checkpoint-real: 2 of 861 tool-result lines hold both marks, and
# both are typed text ("and remember to use pagination"); "type":"text" alone is in 201 (2.7 of 7 MB)
_HEAD = 2048
_TYPED_MARK = b'{"type":"text","text":"'
_TYPED_END = b'"}]},"'
_ARGS = Lazy(r"<command-args>(.*?)</command-args>", "S")
_NOISE_TEXT = ("Stop hook feedback:", "[Request interrupted by user", "Caveat: The messages below were generated",
               "<task-notification>", "<system-reminder>", "<bash-input>", "<bash-stdout>", "<user-prompt-submit-hook>")


def _wrapper(text: str) -> bool:
    return text.lstrip().startswith(_WRAPPERS)


def _slash(text: str) -> bool:
    """A bare slash command such as "/exit"."""
    text = text.strip()
    return text.startswith("/") and len(text) > 1 and not any(c.isspace() for c in text)


def looks_like_jsonl(head: bytes) -> bool:
    return head.lstrip()[:1] == b"{"


def read(path: str | os.PathLike, start: int = 0, subagents: bool = False,
         max_bytes: int | None = None, errors: bool = False) -> Transcript:
    """The conversation in the file ``path`` from byte ``start`` on (the hook
    reads only what was appended since its last scan), at most the last
    ``max_bytes`` (default :data:`LIMIT`). A JSONL file is read up to the end of
    its last complete line, so a record being written is read next time. ``-``
    reads standard input (at most ``max_bytes``). ``errors``: short tool results that carry an error become
    messages of ``kind="tool-error"`` (for a model reading the conversation; the detectors never see them)."""
    limit = LIMIT if max_bytes is None else max(0, int(max_bytes))
    if str(path) == "-":
        import sys

        return parse(sys.stdin.buffer.read(limit), 0, errors=errors)
    data, begin, cut = read_tail(path, start, limit)
    result = parse(data, begin, subagents=subagents, errors=errors)
    if cut:
        result = replace(result, start=start, cut=cut)
    if subagents and result.format == "jsonl" and start == 0:
        result = _with_subagents(result, os.fspath(path), limit)
    return result


def parse(data: bytes, start: int = 0, subagents: bool = False, errors: bool = False) -> Transcript:
    """A transcript from bytes: JSONL when the first non-blank byte is ``{``."""
    if looks_like_jsonl(data[:4096]) or (start > 0 and not data.strip()):
        return parse_jsonl(data, start, subagents, errors)
    return parse_text(data.decode("utf-8", "replace"), start)


def _queued_text(rec: dict) -> str:
    text = rec.get("content")
    if isinstance(text, list):
        text = _content(text)[0]
    if not isinstance(text, str):
        return ""
    text = _typed(text.strip())
    if not text or _wrapper(text) or _slash(text) or text.startswith(_NOISE_TEXT):
        return ""
    return text


def _rejection(line: bytes) -> str:
    """The reason a user gave when rejecting a tool call (see :data:`_REJECTED`), or ""."""
    try:
        rec = loads(line)
    except ValueError:
        return ""
    return _rejection_of(rec) if isinstance(rec, dict) else ""


def _rejection_of(rec: dict) -> str:
    """The words a user typed when rejecting a tool call, when the record has the structure Claude Code writes
    for one (see :data:`_REJECTED_HEAD`), else ""."""
    msg = rec.get("message")
    if rec.get("type") != "user" or rec.get("isSidechain") or not isinstance(msg, dict):
        return ""
    content = msg.get("content")
    if not isinstance(content, list) or len(content) != 1 or not isinstance(content[0], dict):
        return ""
    block = content[0]
    body = block.get("content")
    if block.get("type") != "tool_result" or block.get("is_error") is not True or not isinstance(body, str) \
            or not body.startswith(_REJECTED_HEAD) or rec.get("toolUseResult") != "Error: " + body:
        return ""
    text = body[len(_REJECTED_HEAD):].strip()
    if text and not text.startswith(_REJECTED_BOILERPLATE) and not _wrapper(text):
        return text
    return ""


def _tool_error(rec: dict) -> str:
    """A short tool result that carries an error (``is_error``, at most :data:`ERROR_MAX` characters), not a
    rejection; else ""."""
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("is_error") is True:
            body = block.get("content")
            if isinstance(body, list):
                body = "\n".join(b["text"] for b in body if isinstance(b, dict) and isinstance(b.get("text"), str))
            if isinstance(body, str) and body.strip() and len(body) <= ERROR_MAX \
                    and not body.startswith(_REJECTED_HEAD[:60]):
                return body.strip()
    return ""


ERROR_MAX = 600  # characters of a tool's error a model is shown (a failing test's last lines, a refusal)
# what Claude Code's interface writes as a user record that nobody typed
_INTERFACE = ("Unknown command: /", "Unknown skill: ")
_INTERFACE_LINES = frozenset({"Waiting.", "Waiting…", "Waiting..."})
_INLINE_TAGS = Lazy(r"<(ide_opened_file|ide_selection|ide_diagnostics|system-reminder)>.*?</\1>", "S")


def _typed(text: str) -> str:
    """A user record's text without what the interface adds (IDE tags, system reminders inside it); "" when
    nothing typed is left, or when it is an interface line ("Unknown command: /pricing", "Waiting.")."""
    if "<ide_" in text or "<system-reminder>" in text:
        text = _INLINE_TAGS.sub("", text).strip()
    if text in _INTERFACE_LINES or text.startswith(_INTERFACE):
        return ""
    return text


def parse_jsonl(data: bytes, start: int = 0, subagents: bool = False, errors: bool = False) -> Transcript:
    cut = data.rfind(b"\n") + 1
    if cut == 0 and data and not data.endswith(b"\n"):
        cut = len(data) if _complete(data) else 0
    elif cut < len(data) and _complete(data[cut:]):
        cut = len(data)  # a last line without its newline, but whole
    skipped: dict[str, int] = {}
    messages: list[Message] = []
    records = malformed = tool_calls = 0
    session = cwd = None
    by_id: dict[str, int] = {}  # message.id -> index in messages
    queued: dict[str, int] = {}  # queued text -> index in messages (a later user record of it is not repeated)
    offset = start
    for line in data[:cut].split(b"\n"):
        here = offset
        offset += len(line) + 1
        if not line.strip():
            continue
        # a record's own "type" is in its first few hundred bytes (measured: at most 420 of 1,850 skipped lines
        # in eval/data/checkpoint-real): looked for there first, so a skipped line is scanned whole once at most
        fast = next((kind for marker, kind in _FAST_SKIP if marker in line[:_HEAD]), None)
        if fast is None and len(line) > _HEAD:
            fast = next((kind for marker, kind in _FAST_SKIP if marker in line), None)
        if fast == "tool-result" and _TYPED_MARK in line and _TYPED_END in line:
            fast = None  # a tool result with text the user typed while the tool ran: parsed (see _TYPED_MARK)
        if fast == "tool-result" and _REJECTED in line:
            text = _rejection(line)
            if text:
                records += 1
                messages.append(Message(len(messages), "user", text, (), here, None, "queued"))
                continue
        if fast == "tool-result" and errors and b'"is_error":true' in line:
            fast = None  # a tool's error, for a model reading the conversation: parsed
        if fast is not None:  # most of a transcript's bytes: skipped without parsing them
            records += 1
            skipped[fast] = skipped.get(fast, 0) + 1
            continue
        try:
            rec = loads(line)
        except ValueError:
            malformed += 1
            continue
        if not isinstance(rec, dict):
            malformed += 1
            continue
        records += 1
        session = session or _str(rec.get("sessionId"))
        cwd = cwd or _str(rec.get("cwd"))
        kind = rec.get("type")
        if kind == "queue-operation":
            text = _queued_text(rec) if rec.get("operation") == "enqueue" else ""
            if text:
                queued[text] = len(messages)
                messages.append(Message(len(messages), "user", text, (), here, None, "queued"))
            else:
                skipped["queue-operation"] = skipped.get("queue-operation", 0) + 1
            continue
        if kind in SKIPPED_TYPES:
            skipped[str(kind)] = skipped.get(str(kind), 0) + 1
            continue
        if kind not in ("user", "assistant"):
            skipped["unknown"] = skipped.get("unknown", 0) + 1
            continue
        side = bool(rec.get("isSidechain"))
        if side and not subagents:
            skipped["subagent"] = skipped.get("subagent", 0) + 1
            continue
        if rec.get("isMeta"):
            skipped["meta"] = skipped.get("meta", 0) + 1
            continue
        if rec.get("isCompactSummary"):
            skipped["compact-summary"] = skipped.get("compact-summary", 0) + 1
            continue
        msg = rec.get("message")
        if not isinstance(msg, dict):
            skipped["no-message"] = skipped.get("no-message", 0) + 1
            continue
        text, tools, results = _content(msg.get("content"))
        if kind == "user":
            if results and not text:
                text = _rejection_of(rec) if not side else ""
                if text:
                    messages.append(Message(len(messages), "user", text, (), here, None, "queued"))
                elif errors and not side and _tool_error(rec):
                    messages.append(Message(len(messages), "assistant", _tool_error(rec), (), here, None,
                                            "tool-error"))
                else:
                    skipped["tool-result"] = skipped.get("tool-result", 0) + 1
                continue
            text = _typed(text) if text else text
            if text and _wrapper(text):  # a slash command: keep only what the user typed after it
                args = _ARGS.search(text)
                text = args.group(1).strip() if args else ""
                if not text:
                    skipped["command"] = skipped.get("command", 0) + 1
                    continue
            if not text or text.lstrip().startswith(_NOISE_TEXT):
                skipped["noise"] = skipped.get("noise", 0) + 1
                continue
            if side:  # a subagent's "user" is Claude prompting it: assistant text
                messages.append(Message(len(messages), "assistant", text, (), here, None, "prompt"))
                continue
            if text in queued:  # the queued text delivered as a prompt after all: keep its first place
                skipped["queued-repeat"] = skipped.get("queued-repeat", 0) + 1
                del queued[text]
                continue
            # text beside a tool result was typed while the tool ran: it joins the running turn, as queued text does
            messages.append(Message(len(messages), "user", text, (), here, None, "queued" if results else ""))
            continue
        if msg.get("model") == "<synthetic>" or rec.get("isApiErrorMessage"):
            skipped["synthetic"] = skipped.get("synthetic", 0) + 1
            continue
        tool_calls += len(tools)
        mid = _str(msg.get("id"))
        if mid is not None and mid in by_id:
            i = by_id[mid]
            old = messages[i]
            joined = "\n".join(t for t in (old.text, text) if t)
            messages[i] = replace(old, text=joined, tools=old.tools + tools)
            continue
        if not text and not tools:
            skipped["empty"] = skipped.get("empty", 0) + 1
            if mid is not None:  # a thinking-only record: later records of it may carry text
                by_id[mid] = len(messages)
                messages.append(Message(len(messages), "assistant", "", (), here, mid))
            continue
        if mid is not None:
            by_id[mid] = len(messages)
        messages.append(Message(len(messages), "assistant", text, tools, here, mid))
    kept = [m for m in messages if m.text or m.tools]
    if len(kept) != len(messages):
        kept = [replace(m, index=i) for i, m in enumerate(kept)]
    return Transcript(tuple(kept), "jsonl", session, start, start + cut, records, malformed,
                      dict(skipped), tool_calls, cwd)


def _complete(line: bytes) -> bool:
    try:
        return isinstance(loads(line), dict)
    except ValueError:
        return False


def _str(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _content(content) -> tuple[str, tuple[str, ...], int]:
    """(text, tool names, tool results) of a message's content."""
    if isinstance(content, str):
        return content.strip(), (), 0
    if not isinstance(content, list):
        return "", (), 0
    texts: list[str] = []
    tools: list[str] = []
    results = 0
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            if block["text"].strip():
                texts.append(block["text"].strip())
        elif kind == "tool_use":
            tools.append(_str(block.get("name")) or "tool")
        elif kind == "tool_result":
            results += 1
    return "\n".join(texts), tuple(tools), results


def _with_subagents(result: Transcript, path: str, limit: int = LIMIT) -> Transcript:
    from pathlib import Path

    folder = Path(path).with_suffix("") / "subagents"
    messages = list(result.messages)
    calls = result.tool_calls
    for sub in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        try:
            data, begin, _ = read_tail(sub, 0, limit)
        except MdmemError:
            continue
        part = parse_jsonl(data, begin, subagents=True)
        calls += part.tool_calls
        for m in part.messages:  # a subagent file's records are all its own: its "user" is Claude
            speaker, kind = ("assistant", "prompt") if m.speaker == "user" else (m.speaker, m.kind)
            messages.append(replace(m, index=len(messages), speaker=speaker, kind=kind))
    return replace(result, messages=tuple(messages), tool_calls=calls)


def claude_projects_dir():
    """Where Claude Code keeps its transcripts: ``projects/`` of its configuration folder."""
    from mdmem.agents.claude.env import user_config_dir

    return user_config_dir() / "projects"


def latest_for(cwd: str | os.PathLike):
    """The newest transcript Claude Code wrote for the project at ``cwd``
    (its folder name is the absolute path with every other character than
    letters and digits turned into ``-``)."""
    from pathlib import Path

    projects = claude_projects_dir()
    import re

    name = re.sub(r"[^A-Za-z0-9]", "-", str(Path(cwd).resolve()))
    folder = projects / name
    found = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns) if folder.is_dir() else []
    if not found:
        raise MdmemError(f"no Claude Code transcript for {cwd} in {folder}: pass the transcript's path")
    return found[-1]


def for_session(session: str):
    """The transcript Claude Code wrote for ``session`` (``projects/<folder>/<session>.jsonl``; the newest when
    several projects hold one), else None; a session id that is not a plain file name has none."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,119}", session or ""):
        return None
    projects = claude_projects_dir()
    try:
        found = [p for p in projects.glob(f"*/{session}.jsonl") if p.is_file()]
        return max(found, key=lambda p: p.stat().st_mtime_ns) if found else None
    except OSError:
        return None


HEAD = 256 * 1024  # bytes of a transcript read for its folder: the first records carry it


def folder_of(path) -> str | None:
    """The folder a transcript's conversation worked in: the first record's ``cwd`` within its first
    :data:`HEAD` bytes, else None."""
    import json

    try:
        with open(path, "rb") as f:
            head = f.read(HEAD)
    except OSError:
        return None
    for line in head.split(b"\n"):
        if b'"cwd"' not in line:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        cwd = rec.get("cwd") if isinstance(rec, dict) else None
        if isinstance(cwd, str) and cwd.strip():
            return cwd
    return None

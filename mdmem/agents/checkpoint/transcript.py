"""A conversation, whatever agent held it: the model every transcript is read into (:class:`Message`,
:class:`Transcript`, :func:`turns`), the bounded read of a transcript file's tail, and the plain-text
format. An agent's own format is its adapter's (Claude Code's JSONL: :mod:`mdmem.agents.claude.transcript`),
which hands the checkpoint a ``read`` that gives a :class:`Transcript`.

Reading is bounded (regular files only, at most ``limit`` bytes, the last ones); plain-text
conversations (``User:`` / ``Assistant:`` turns) are read too. Standard library only and cheap to
import: it runs in the Stop hook.

Measurements: docs/decisions/055-checkpoint-detectors-and-transcripts.md
"""

from __future__ import annotations

import os

from mdmem.base import files
from mdmem.base.errors import MdmemError
from mdmem.base.lazy_re import Lazy

LIMIT = 64 * 1024 * 1024  # bytes of a transcript read at most by default (the last ones)

_NAMES = r"(user|human|you|usuário|usuario|assistant|claude|ai|assistente)"
_SPEAKER = Lazy(
    r"^[ \t]{0,3}(?:#{1,6}[ \t]*" + _NAMES + r"[ \t]*:?[ \t]*$\n?"   # "## User" on its own line
    r"|(?:\*\*|__)?" + _NAMES + r"(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*)", "IM")
_TOOL_LINE = Lazy(r"^[ \t]*\[tool:\s*([^\]]+)\].*$\n?", "IM")
_USER_NAMES = {"user", "human", "you", "usuário", "usuario"}


class Frozen:
    """A small frozen record (what ``@dataclass(frozen=True)`` gives, without importing
    ``dataclasses``): fields by position or name, defaults, ``==``, ``repr``, :func:`replace`."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _defaults: dict = {}

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(self._fields)} arguments")
        values = dict(zip(self._fields, args))
        for name, value in kwargs.items():
            if name not in self._fields or name in values:
                raise TypeError(f"{type(self).__name__}: unexpected or repeated argument {name!r}")
            values[name] = value
        for name in self._fields:
            if name in values:
                value = values[name]
            elif name in self._defaults:
                value = self._defaults[name]
                value = dict(value) if isinstance(value, dict) else value
            else:
                raise TypeError(f"{type(self).__name__} needs {name!r}")
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is frozen")

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other):
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self):
        return hash(self._values())

    def __repr__(self):
        return f"{type(self).__name__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields) + ")"

    def __reduce__(self):  # copy, deepcopy and pickle build it again through __init__
        return type(self), self._values()

    def _asdict(self) -> dict:
        return {n: getattr(self, n) for n in self._fields}


def replace(record, **changes):
    """A copy of ``record`` with ``changes`` (as ``dataclasses.replace``)."""
    return type(record)(**{n: changes.get(n, getattr(record, n)) for n in record._fields})


class Message(Frozen):
    """index: position in the conversation (0-based); speaker: "user" or "assistant"; text; tools:
    names of the tools this assistant message called; offset: byte offset of its first record in
    the file (JSONL) or of its turn (text); id: an assistant message's ``message.id`` (its records
    are grouped by it); kind: "queued" (typed while the agent worked), "prompt" (Claude's prompt
    to a subagent) or ""."""

    index: int
    speaker: str
    text: str
    tools: tuple[str, ...]
    offset: int
    id: str | None
    kind: str
    __slots__ = ("index", "speaker", "text", "tools", "offset", "id", "kind")
    _fields = __slots__
    _defaults = {"tools": (), "offset": 0, "id": None, "kind": ""}


class Transcript(Frozen):
    """messages; format ("jsonl" or "text"); session_id; start: the byte offset reading began at;
    end: the byte offset of the end of the last complete line read; records: JSONL records read;
    malformed: lines that are not a JSON object; skipped: left-out records by kind; tool_calls;
    cwd; cut: bytes after ``start`` left unread because of the size limit."""

    messages: list[Message]
    format: str
    session_id: str | None
    start: int
    end: int
    records: int
    malformed: int
    skipped: dict[str, int]
    tool_calls: int
    cwd: str | None
    cut: int
    __slots__ = ("messages", "format", "session_id", "start", "end", "records", "malformed", "skipped",
                 "tool_calls", "cwd", "cut")
    _fields = __slots__
    _defaults = {"records": 0, "malformed": 0, "skipped": {}, "tool_calls": 0, "cwd": None, "cut": 0}


def read_tail(path: str | os.PathLike, start: int = 0, limit: int = LIMIT) -> tuple[bytes, int, int]:
    """(bytes, offset they begin at, bytes skipped) of the regular file ``path`` from ``start``
    on, at most the last ``limit`` of them (a tail that does not begin at ``start`` begins
    after its first newline). Raises :class:`MdmemError` with one line for the user."""
    p = os.fspath(path)
    try:
        fd = files.open_regular(p)
    except FileNotFoundError:
        raise MdmemError(f"transcript not found: {p}") from None
    except files.NotRegular:
        if os.path.isdir(p):
            raise MdmemError(f"transcript is a folder, not a file: {p}") from None
        raise MdmemError(f"transcript is not a regular file (a device, FIFO or socket): {p}") from None
    except OSError as e:
        raise MdmemError(f"cannot read transcript {p}: {e.strerror or e}") from None
    try:
        size = os.fstat(fd).st_size
        if start > size:  # the file was replaced or truncated: read it again
            start = 0
        begin = max(start, size - limit)
        os.lseek(fd, begin, os.SEEK_SET)
        data = files.read_fd(fd, max(0, limit))
    except OSError as e:
        raise MdmemError(f"cannot read transcript {p}: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if begin > start:
        nl = data.find(b"\n") + 1
        data, begin = data[nl:], begin + nl
    return data, begin, begin - start


class Turn(Frozen):
    """One agent turn: a prompt the user typed (not a queued one) and what the assistant did until
    the next such prompt. request: index of the user message that opened it (-1: before any);
    final: index of its last assistant message with text (the reply the user reads); messages:
    indices of every message in it, queued user text included; tools: tool calls made in it."""

    request: int
    final: int | None
    messages: tuple[int, ...]
    tools: int
    __slots__ = ("request", "final", "messages", "tools")
    _fields = __slots__


def turns(messages) -> list[Turn]:
    """The conversation cut into agent turns."""
    out: list[Turn] = []
    members: list[int] = []
    request, tools, final = -1, 0, None
    for m in messages:
        if m.speaker == "user" and m.kind != "queued":
            if members:
                out.append(Turn(request, final, tuple(members), tools))
            request, members, tools, final = m.index, [m.index], 0, None
            continue
        members.append(m.index)
        if m.speaker == "assistant":
            tools += len(m.tools)
            if m.text and m.kind != "prompt":
                final = m.index
    if members:
        out.append(Turn(request, final, tuple(members), tools))
    return out


def parse_text(text: str, start: int = 0) -> Transcript:
    """A ``User:`` / ``Assistant:`` conversation (YAML frontmatter skipped)."""
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            text = text[text.find("\n", end + 1) + 1:] if text.find("\n", end + 1) != -1 else ""
    marks = list(_SPEAKER.finditer(text))
    messages: list[Message] = []
    tool_calls = 0
    for i, mark in enumerate(marks):
        body = text[mark.end(): marks[i + 1].start() if i + 1 < len(marks) else len(text)]
        speaker = "user" if (mark.group(1) or mark.group(2)).lower() in _USER_NAMES else "assistant"
        tools: tuple[str, ...] = ()
        if speaker == "assistant":
            tools = tuple(t.strip() for t in _TOOL_LINE.findall(body))
            tool_calls += len(tools)
            body = _TOOL_LINE.sub("", body)
        body = body.strip()
        if not body and not tools:
            continue
        if speaker == "assistant" and messages and messages[-1].speaker == "assistant":
            prev = messages[-1]  # one assistant turn written as several blocks
            messages[-1] = Message(prev.index, "assistant", "\n".join(t for t in (prev.text, body) if t),
                                   prev.tools + tools, prev.offset)
            continue
        messages.append(Message(len(messages), speaker, body, tools, start + len(text[:mark.start()].encode())))
    if not marks and text.strip():
        raise MdmemError("not a conversation: expected Claude Code JSONL, or turns starting with "
                         "`User:` / `Assistant:`")
    return Transcript(tuple(messages), "text", None, start, start + len(text.encode()), 0, 0, {}, tool_calls)


STAMP_LINE_MAX = 4 * 1024 * 1024  # bytes of a record read for its time at most
_STAMP = Lazy(r'"timestamp"\s*:\s*"(\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)?)"')


def conversation_day(path: str | os.PathLike | None, messages, end: int | None = None) -> str | None:
    """The conversation's own date (YYYY-MM-DD, local time): the ``timestamp`` of the record of its last user message
    (before the byte offset ``end`` when given) in the JSONL transcript ``path``, which records it (Claude Code,
    Codex, Gemini); None for a plain-text conversation or a record without a time. A checkpoint's memories are dated
    by it, not by the day they are accepted."""
    import datetime as dt

    last = next((m for m in reversed(list(messages)) if m.speaker == "user" and m.kind != "prompt"
                 and (end is None or m.offset < end)), None)
    if last is None or path is None:
        return None
    try:
        fd = files.open_regular(os.fspath(path))
    except OSError:
        return None
    try:
        os.lseek(fd, last.offset, os.SEEK_SET)
        data = b""
        while b"\n" not in data and len(data) < STAMP_LINE_MAX:  # the record's line, not the rest of the file
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            data += chunk
        line = data.split(b"\n", 1)[0].decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)
    found = _STAMP.search(line)
    if not found:
        return None
    try:
        at = dt.datetime.fromisoformat(found.group(1).replace("Z", "+00:00"))
    except ValueError:
        return None
    return (at.astimezone() if at.tzinfo else at).date().isoformat()

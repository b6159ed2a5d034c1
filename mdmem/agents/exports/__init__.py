"""Chat data exports (ChatGPT, Claude.ai): a ``conversations.json`` (or the export's ZIP) read as sessions.

Streamed: an export holds every conversation a user ever had (hundreds of MB are common), so it is parsed one
conversation at a time (``ijson``, imported here only, never on a hook's path) and memory stays bounded by the
largest conversation, not the export (docs/decisions/085-streamed-chat-exports.md).
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable, Iterator

CONVERSATION_LIMIT = 256 << 20  # bytes of the export one conversation may span (more: the export is refused)


class _Bounded:
    """A binary file that counts what is read since :meth:`reset` and refuses past ``limit``: one conversation
    of a hostile export cannot take the memory the stream saves."""

    def __init__(self, f, limit: int, label: str) -> None:
        self.f, self.limit, self.label, self.used = f, limit, label, 0

    def read(self, size: int = -1) -> bytes:
        from mdmem.base.errors import UsageError

        if size == 0:  # ijson asks for nothing to learn whether the file gives bytes or text
            return b""
        data = self.f.read(size if size > 0 else 1 << 16)
        self.used += len(data)
        if self.used > self.limit:
            raise UsageError(f"{self.label}: a conversation over {self.limit >> 20} MB")
        return data

    def reset(self) -> None:
        self.used = 0


def _items(f, label: str) -> Iterator[dict]:
    """Each conversation of one JSON document: a top-level array, or ``{"conversations": [...]}``."""
    import ijson

    from mdmem.base.errors import UsageError

    src = _Bounded(f, CONVERSATION_LIMIT, label)
    head = f.peek(64)[:64] if hasattr(f, "peek") else b""
    prefix = "conversations.item" if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") else "item"
    found = False
    try:
        for item in ijson.items(src, prefix, use_float=True):
            src.reset()
            found = True
            if isinstance(item, dict):
                yield item
    except ijson.JSONError as e:
        raise UsageError(f"{label} is not JSON: {e}") from None
    if not found and prefix != "item":
        raise UsageError(f"{label}: expected a list of conversations")


def load(path: str | os.PathLike) -> Iterator[dict]:
    """The conversations of an export, one at a time: ``conversations.json`` itself, or the ZIP holding it (a
    sharded ``conversations-000.json``... in the ZIP is read in order). Only a regular file is opened."""
    from mdmem.base import files as fs
    from mdmem.base.errors import UsageError

    fd = fs.open_regular(path)
    with os.fdopen(fd, "rb") as f:
        if f.peek(4)[:4].startswith(b"PK"):
            with zipfile.ZipFile(f) as z:
                names = sorted(n for n in z.namelist() if os.path.basename(n).startswith("conversations")
                               and n.endswith(".json"))
                if not names:
                    raise UsageError(f"{path}: no conversations.json in this ZIP")
                for name in names:
                    with z.open(name) as part:
                        yield from _items(part, f"{path}: {name}")
            return
        yield from _items(f, os.fspath(path))


def sessions(path: str | os.PathLike, session: Callable) -> Iterator:
    """``session(conversation, source)`` for every conversation of the export at ``path``, those it accepts,
    one at a time."""
    for conv in load(path):
        found = session(conv, os.fspath(path))
        if found is not None:
            yield found


def iso(value) -> str | None:
    """A Unix time (ChatGPT's ``create_time``) or an ISO string as ISO 8601 UTC."""
    import datetime as dt

    if isinstance(value, (int, float)) and value > 0:
        return dt.datetime.fromtimestamp(value, dt.UTC).isoformat().replace("+00:00", "Z")
    return value if isinstance(value, str) and value else None

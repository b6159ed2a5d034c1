"""Chat data exports (ChatGPT, Claude.ai): a ``conversations.json`` (or the export's ZIP) read as sessions."""

from __future__ import annotations

import json
import os
import zipfile

LIMIT = 1 << 30  # an export's conversations.json read at most (bytes)


def load(path: str | os.PathLike) -> list:
    """The conversations array of an export: ``conversations.json`` itself, or the ZIP holding it (a sharded
    ``conversations-000.json``... in the ZIP is read in order). Only a regular file; at most :data:`LIMIT`."""
    from mdmem.base import files as fs
    from mdmem.base.errors import UsageError

    fd = fs.open_regular(path)
    try:
        head = os.pread(fd, 4, 0)
        if head.startswith(b"PK"):
            out: list = []
            with os.fdopen(os.dup(fd), "rb") as f, zipfile.ZipFile(f) as z:
                names = sorted(n for n in z.namelist() if os.path.basename(n).startswith("conversations")
                               and n.endswith(".json"))
                if not names:
                    raise UsageError(f"{path}: no conversations.json in this ZIP")
                for name in names:
                    if z.getinfo(name).file_size > LIMIT:
                        raise UsageError(f"{path}: {name} is over {LIMIT >> 20} MB")
                    part = json.loads(z.read(name))
                    out += part if isinstance(part, list) else []
            return out
        data = fs.read_fd(fd, LIMIT + 1)
    finally:
        os.close(fd)
    if len(data) > LIMIT:
        raise UsageError(f"{path} is over {LIMIT >> 20} MB")
    try:
        doc = json.loads(data)
    except ValueError as e:
        raise UsageError(f"{path} is not JSON: {e}") from None
    if isinstance(doc, dict) and isinstance(doc.get("conversations"), list):
        doc = doc["conversations"]
    if not isinstance(doc, list):
        raise UsageError(f"{path}: expected a list of conversations")
    return doc


def sessions(path: str | os.PathLike, session) -> list:
    """``session(conversation, source)`` for every conversation of the export at ``path``, those it accepts."""
    out = []
    for conv in load(path):
        found = session(conv, os.fspath(path)) if isinstance(conv, dict) else None
        if found is not None:
            out.append(found)
    return out


def iso(value) -> str | None:
    """A Unix time (ChatGPT's ``create_time``) or an ISO string as ISO 8601 UTC."""
    import datetime as dt

    if isinstance(value, (int, float)) and value > 0:
        return dt.datetime.fromtimestamp(value, dt.UTC).isoformat().replace("+00:00", "Z")
    return value if isinstance(value, str) and value else None

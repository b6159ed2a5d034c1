"""Where a note came from, and whether an agent's note still waits for the user's word.

Every note mdmem writes says in its frontmatter who wrote it: ``source`` (``user`` typed through the CLI,
``checkpoint`` accepted by the user from a conversation's suggestions, ``agent`` saved by a model over MCP or
from an agent's shell, ``import``), ``session`` (the conversation's id, when there is one) and ``agent``
(``claude-code``, ...). A note without ``source`` is a file the user wrote: the user's. :class:`Provenance`
is the one writer of these fields (the project a note belongs to joins them there).

An agent's note is *unconfirmed* until the user confirms it (``mdmem confirm``: ``source: user``) or edits
its text themselves. A user edit is recognised by the body's digest: mdmem records the digest of the text it
wrote for an agent in ``.mdmem/agent-writes.json``; a body that differs from it was changed by someone else.
Link targets are left out of the digest (a ``move`` of another note rewrites them), and a note with no
record at all (the state folder deleted, the note moved) stays unconfirmed: failing closed, never as the
user's rule. Standard library only: the hooks use it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass

from mdmem.base.state import state_folder

SOURCES = ("user", "checkpoint", "agent", "import")
FIELDS = ("source", "session", "agent")  # the frontmatter keys, in the order written
KEYS = (*FIELDS, "confirmed")  # what only mdmem writes (an agent's frontmatter edit may not set them)
AGENT_WRITES = "agent-writes.json"  # in the state folder: vault path -> digest of the body mdmem wrote for an agent
CLAUDE_CODE = "claude-code"
RULE_TYPES = frozenset({"feedback", "protocol", "user"})  # an agent's note of these types is listed apart, unconfirmed
_LINK = re.compile(r"\[\[[^\]\n]*\]\]|\]\([^)\n]*\)")


@dataclass(frozen=True)
class Provenance:
    """Who writes a note: ``source`` (one of :data:`SOURCES`), the conversation's ``session`` id and ``agent``
    when there is one, and ``created``, the conversation's own date (YYYY-MM-DD) when it has one."""

    source: str = "user"
    session: str | None = None
    agent: str | None = None
    created: str | None = None

    def fields(self) -> dict[str, str]:
        """The frontmatter keys, in :data:`FIELDS` order; those without a value left out."""
        values = {"source": self.source, "session": self.session, "agent": self.agent}
        return {k: v for k, v in values.items() if v}


def shell_agent() -> str | None:
    """The agent whose shell runs this command (Claude Code sets ``CLAUDECODE=1`` in its tools' shells), else None:
    a CLI write from there is the agent's, not the user's."""
    return CLAUDE_CODE if os.environ.get("CLAUDECODE") == "1" else None


def of(frontmatter: dict) -> dict[str, str | None]:
    """A note's provenance as shown (``show``, ``--json``, MCP): a note without ``source`` is the user's."""
    def text(key: str) -> str | None:
        value = frontmatter.get(key)
        return None if value is None else str(value)

    source = text("source")
    return {"source": source if source in SOURCES else "user", "session": text("session"), "agent": text("agent"),
            "confirmed": text("confirmed")}


def body_digest(data: bytes | str) -> str:
    """The digest of a note's text after its frontmatter, link targets and spacing left out."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if text.startswith("---\n"):
        end = text.find("\n---", 3)
        text = text[end + 4:] if end >= 0 else text
    flat = " ".join(_LINK.sub(" ", text).split())
    return hashlib.sha256(flat.encode("utf-8", "surrogatepass")).hexdigest()


def _record_path(state: str | os.PathLike) -> str:
    return os.path.join(state, AGENT_WRITES)


def _read(state: str | os.PathLike) -> dict:
    from mdmem.base.files import read_outside

    try:
        data = json.loads(read_outside(_record_path(state), 8 * 1024 * 1024))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record(state: str | os.PathLike, rel: str, data: bytes | None) -> None:
    """Remember the body mdmem wrote for an agent at ``rel`` (None: forget it, the note is the user's now).
    Under the caller's write lock."""
    from mdmem.base.files import write_atomic

    known = _read(state)
    if data is None:
        if known.pop(rel, None) is None:
            return
    else:
        known[rel] = body_digest(data)
    os.makedirs(state, exist_ok=True)
    write_atomic(_record_path(state), json.dumps(known, sort_keys=True, indent=0).encode())


def unconfirmed(root: str | os.PathLike, rel: str, frontmatter: dict, data: bytes | None = None,
                state: str | os.PathLike | None = None, known: dict | None = None) -> bool:
    """Is the note at ``rel`` an agent's that the user has neither confirmed nor edited? ``data``: its bytes when
    the caller has them; ``known``: the record when the caller read it already (:func:`records`)."""
    if frontmatter.get("source") != "agent":
        return False
    known = records(state or state_folder(root)) if known is None else known
    written = known.get(rel)
    if not isinstance(written, str):
        return True  # no record: fail closed
    if data is None:
        from mdmem.base.files import read_bytes

        try:
            data = read_bytes(root, rel)
        except OSError:
            return True
    return body_digest(data) == written


def records(state: str | os.PathLike) -> dict:
    """The agent-write record (vault path -> body digest), read once for many notes."""
    return _read(state)

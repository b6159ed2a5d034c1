"""Another agent's transcript for the checkpoint: the agent's hook adapter names its reader, and the checkpoint
reads that agent's file through it instead of Claude Code's JSONL.

A reader is a function from a path to a :class:`~mdmem.agents.history.model.Session` (the importers' readers:
Codex rollouts with their rollbacks, Gemini chat recordings with their updates and rewinds). The whole file is
read each time (these readers replay edits that can reach back), and the positions the Stop hook keeps are message
counts, not bytes. Standard library only at import.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from mdmem.agents.checkpoint.transcript import Transcript

_reader: Callable | None = None
_incremental = False


def use(reader: Callable | None, incremental: bool = False) -> None:
    """Read transcripts with ``reader`` in this process (the hook adapter of the agent that runs it): a whole
    file's :class:`Session`, or (``incremental``) ``reader(path, start)`` giving the checkpoint's transcript of
    what follows byte ``start`` itself."""
    global _reader, _incremental
    _reader, _incremental = reader, incremental


def active() -> bool:
    return _reader is not None


def read(path: str | os.PathLike, start: int = 0) -> Transcript:
    """The conversation after the first ``start`` messages, as the checkpoint's :class:`Transcript`."""
    from mdmem.agents.checkpoint.transcript import Message, Transcript
    from mdmem.base.errors import MdmemError

    assert _reader is not None
    if _incremental:
        return _reader(path, start)
    try:
        session = _reader(path)
    except OSError as e:
        raise MdmemError(f"cannot read transcript {os.fspath(path)}: {e.strerror or e}") from None
    messages = [Message(index=i, speaker=m.role, text=m.text, tools=(), offset=i, id=None, kind=m.kind)
                for i, m in enumerate(session.messages) if m.role in ("user", "assistant")]
    start = 0 if start > len(messages) else start
    return Transcript(messages=messages[start:], format="jsonl", session_id=session.id, start=start,
                      end=len(messages), records=len(messages), cwd=session.cwd)

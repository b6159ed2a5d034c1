"""Another agent's transcript for the checkpoint, from a reader of whole sessions: :func:`from_sessions` turns a
function from a path to a :class:`~mdmem.agents.history.model.Session` (the importers' readers: Gemini chat
recordings with their updates and rewinds) into the checkpoint's transcript reader, the ``read=`` the hooks and
the review take (:mod:`mdmem.agents.checkpoint.stop`, :mod:`mdmem.agents.hooks.session`). The whole file is read
each time (these readers replay edits that can reach back), and the positions the Stop hook keeps are message
counts, not bytes. Standard library only at import.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from mdmem.agents.checkpoint.transcript import Transcript


def from_sessions(reader: Callable) -> Callable[..., Transcript]:
    """A transcript reader ``read(path, start=0, **_)`` over ``reader(path) -> Session``: the conversation after
    the first ``start`` messages (the options of a byte reader, ``subagents``, ``max_bytes``, ``errors``, do not
    apply to a whole session and are ignored)."""

    def read(path: str | os.PathLike, start: int = 0, **_: object) -> Transcript:
        from mdmem.agents.checkpoint.transcript import Message, Transcript
        from mdmem.base.errors import MdmemError

        try:
            session = reader(path)
        except OSError as e:
            raise MdmemError(f"cannot read transcript {os.fspath(path)}: {e.strerror or e}") from None
        messages = [Message(index=i, speaker=m.role, text=m.text, tools=(), offset=i, id=None, kind=m.kind)
                    for i, m in enumerate(session.messages) if m.role in ("user", "assistant")]
        start = 0 if start > len(messages) else start
        return Transcript(messages=messages[start:], format="jsonl", session_id=session.id, start=start,
                          end=len(messages), records=len(messages), cwd=session.cwd)

    return read

"""``mdmem confirm NOTE``: the user makes a note an agent saved their own.

Until then the card and the prompt hook show an agent's rule-like note as proposed, never as the user's rule
(:mod:`mdmem.base.provenance`). Confirming sets ``source: user`` and ``confirmed: DATE`` through the one edit
path (:func:`mdmem.ops.edit.edit`: atomic, never over a file changed since it was read, every other byte kept)
and drops the agent-write record. An agent cannot confirm: the command is not on MCP, and from an agent's
shell (Claude Code's ``CLAUDECODE=1``) it is refused.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mdmem.base import provenance
from mdmem.base.errors import MdmemError
from mdmem.base.state import write_lock

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory


@dataclass(frozen=True)
class ConfirmResult:
    path: str
    was: str            # its source before (user, checkpoint, agent, import)
    changed: bool       # False: it was the user's already
    confirmed: str | None  # the date written


def confirm(mem: Memory, ref: str, today: str | dt.date | None = None) -> ConfirmResult:
    """Make the note ``ref`` names the user's (see the module's docstring); a note that is the user's already
    changes nothing."""
    from mdmem.ops.edit import edit

    agent = provenance.shell_agent()
    if agent is not None:
        raise MdmemError(f"refusing to confirm from {agent}'s shell: an agent cannot confirm a note for the user; "
                         "run `mdmem confirm` in your own terminal")
    path = mem.resolve_note(ref)
    shown = provenance.of(mem.note(path).frontmatter)
    if shown["source"] == "user":
        return ConfirmResult(path, "user", False, shown["confirmed"])
    day = today.isoformat() if isinstance(today, dt.date) else (today or dt.date.today().isoformat())
    edit(mem, path, set_keys={"source": "user", "confirmed": day}, today=day)
    with write_lock(mem.state_dir, mem.lock_timeout):
        provenance.record(mem.state_dir, path, None)
    return ConfirmResult(path, str(shown["source"]), True, day)

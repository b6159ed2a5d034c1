"""The import a hook hands to a background process (:func:`mdmem.base.detached.spawn`), so the hook stays within its
budget.

SessionEnd imports the transcript that just ended (``mdmem import claude-code <transcript>``); SessionStart
catches up what a session killed before its SessionEnd left behind (``--since 2d --project <cwd>``), at most
once per :data:`CATCH_UP_EVERY` seconds per vault; an agent with no SessionEnd hook relies on that alone.
Only in a vault that imports sessions (:func:`enabled`: it has a ``sessions/`` folder, made by the first
``mdmem import``): importing is the user's choice, made once. The child is detached (its own session, no stdin; output appended to ``.mdmem/hooks/import.log``), so the
hook returns at once and the import survives the agent's exit. Standard library only: hooks import this.
"""

from __future__ import annotations

import os
import time

from mdmem.base.layout import SESSIONS_DIR
from mdmem.base.state import open_log, state_folder

CATCH_UP_EVERY = 3600.0


def enabled(vault: str) -> bool:
    """Does this vault import sessions (has the user run ``mdmem import`` once: a ``sessions/`` folder)?"""
    return os.path.isdir(os.path.join(vault, SESSIONS_DIR))


def spawn_import(vault: str, source: str, file: str | None = None, *extra: str) -> int:
    """Start ``mdmem import SOURCE [FILE] --vault VAULT --quiet EXTRA...`` in the background; its pid."""
    from mdmem.base.detached import spawn

    return spawn(vault, ["import", source, *([file] if file else []), "--vault", vault, "--quiet", *extra], "import.log")


def catch_up(vault: str, source: str, cwd: str | None) -> int | None:
    """At a session's start: import the recent sessions of ``cwd``'s project in the background, unless done
    in the last :data:`CATCH_UP_EVERY` seconds (a marker's mtime); the pid, or None when not due."""
    marker = state_folder(vault, "hooks", f"import-{source}.last")
    try:
        if time.time() - os.stat(marker).st_mtime < CATCH_UP_EVERY:
            return None
    except OSError:
        pass
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    fd = open_log(marker)  # never a link; a FIFO planted there is refused (an OSError), never waited on
    try:
        os.utime(fd)
    finally:
        os.close(fd)
    return spawn_import(vault, source, None, "--since", "2d", *(("--project", cwd) if cwd else ()))


def with_reminder(card: str, vault: str, cwd: str | None, now: float, limit: int) -> str:
    """``card`` with :func:`reminder_line` at its end, when there is one and it fits in ``limit`` bytes."""
    line = reminder_line(vault, cwd, now)
    if not line or len(card.encode("utf-8")) + len(line.encode("utf-8")) + 2 > limit:
        return card
    return (card.rstrip("\n") + "\n\n" if card else "") + line


def reminder_line(vault: str, cwd: str | None, now: float) -> str:
    """The card's one line naming the imported sessions of ``cwd``'s project never reviewed (:mod:`mdmem.base.reviews`),
    at most every ``[hook] sessions_reminder_hours`` (0: never); "" when there is nothing to say now."""
    import shlex

    from mdmem.agents.history.records import project_of
    from mdmem.agents.hooks.state import settings
    from mdmem.base import reviews
    from mdmem.base.errors import MdmemError

    if not enabled(vault):
        return ""
    try:
        every = float(settings(vault, {})["sessions_reminder_hours"])
    except MdmemError:
        return ""  # a broken config.toml: the card says so once already
    project = project_of(cwd)
    entry = reviews.reminder(vault, project, every, now)
    if not entry or not entry.get("ids"):
        return ""
    from mdmem.agents.launch import runner
    from mdmem.base.terminal import visible

    command = f"{runner()} checkpoint review --session {shlex.quote(str(entry['ids'][0]))} --vault {shlex.quote(vault)}"
    return visible(f"mdmem: {entry['count']} imported past session(s) of {project} were never reviewed for memories; "
                   f"when there is time, run `{command}`, judge what it prints, and propose anything worth keeping "
                   "(the user chooses).", False)

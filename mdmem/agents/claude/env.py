"""Where Claude Code keeps things: the project folder and the user's configuration folder (the one place
that reads ``CLAUDE_CONFIG_DIR``). The lowest of the Claude Code modules: settings, skills, the MCP
registration and the transcript reader use it, and it uses none of them. How an agent starts mdmem is
agent-neutral: :mod:`mdmem.agents.launch`."""

from __future__ import annotations

import os
from pathlib import Path

from mdmem.base.errors import MdmemError


def find_project(given: str | os.PathLike | None = None, cwd: Path | None = None) -> Path:
    """``given``, else the nearest ancestor of ``cwd`` holding ``.git`` or
    ``.claude`` (the search stops below the home folder, whose ``.claude`` is
    the user's own configuration), else ``cwd``."""
    if given:
        path = Path(given).expanduser().absolute()
        if not path.is_dir():
            raise MdmemError(f"project folder {path} is not a folder")
        return path
    here = (cwd or Path.cwd()).absolute()
    home = Path.home().resolve()
    for folder in (here, *here.parents):
        if folder == home or folder.resolve() == home:
            break
        if (folder / ".git").exists() or (folder / ".claude").is_dir():
            return folder
    return here


def user_config_dir() -> Path:
    """Claude Code's configuration folder: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    custom = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(custom).expanduser().absolute() if custom else Path.home() / ".claude"


def claude_state_path() -> Path:
    """Claude Code's own state file, which holds the user and local MCP scopes: ``.claude.json`` in
    ``$CLAUDE_CONFIG_DIR`` when set, else in the home folder (beside ``~/.claude``, not in it)."""
    custom = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(custom).expanduser().absolute() if custom else Path.home()) / ".claude.json"

"""Where Claude Code keeps things and how it starts mdmem: the project folder, the user's configuration
folder, the command line of mdmem. The lowest of the Claude Code modules: settings, skills and the hooks
all use it, and it uses none of them."""

from __future__ import annotations

import os
from pathlib import Path

from mdmem.agents.launch import HOOK_CODE, hook_runner, runner  # noqa: F401  (how Claude Code starts mdmem)
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
    custom = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(custom).expanduser().absolute() if custom else Path.home() / ".claude"


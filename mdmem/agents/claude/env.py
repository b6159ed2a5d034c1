"""Where Claude Code keeps things and how it starts mdmem: the project folder, the user's configuration
folder, the command line of mdmem. The lowest of the Claude Code modules: settings, skills and the hooks
all use it, and it uses none of them."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
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
    custom = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(custom).expanduser().absolute() if custom else Path.home() / ".claude"


HOOK_CODE = "from mdmem.__main__ import main; main()"


def hook_runner() -> str:
    """How Claude Code starts mdmem's hooks: this interpreter, ``-P -c`` :data:`HOOK_CODE`
    (``sys.argv`` then reads ``-c hook stop ...``, which :mod:`mdmem.__main__` hands to the fast
    path). Not the console script: the one pip writes imports ``re`` (hence ``enum``) before mdmem
    runs; not ``-m mdmem``: runpy's imports. Measured under load (load average ~12 on 2 cores, 21
    interleaved runs of a quiet Stop hook, pair by pair against ``python -c pass``): console script
    2.26x, ``-m`` 1.98x, this 1.37x. ``-P`` (Python 3.11+) keeps the current folder off
    ``sys.path``, so a project with an ``mdmem`` folder of its own cannot stand in for mdmem."""
    return f"{shlex.quote(os.path.abspath(sys.executable))} -P -c {shlex.quote(HOOK_CODE)}"


def runner() -> str:
    """How to start mdmem: the console script when it is the one on PATH, else
    ``python -m mdmem`` with this interpreter (never resolved: a venv's python
    is a symlink and resolving it would lose the venv)."""
    script = sys.argv[0] if sys.argv else ""
    found = shutil.which("mdmem")
    if found and script and os.path.isfile(script):
        try:
            if os.path.samefile(found, script):
                return shlex.quote(os.path.abspath(script))
        except OSError:
            pass
    return f"{shlex.quote(os.path.abspath(sys.executable))} -m mdmem"

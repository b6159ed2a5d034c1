"""When each agent's hooks last ran and how the last failure read: ``<vault>/.mdmem/hooks/fired-<agent>.json`` (or
``$MDMEM_HOME/fired-<agent>.json`` when no vault was found), what ``mdmem hook status`` shows.

One small JSON file per agent, ``{project: {hook: {"at": time, "error": line, "error_at": time}}}``, rewritten
whole at each run (atomic, not durable: it is derived state; two hooks racing lose one stamp, never the file). The
project is the hook's ``cwd``. An error is kept as one line that holds no words of the user (decision 029): the
exception's kind, and its message only when it is one of mdmem's own (:class:`MdmemError` says a path or a reason,
never a transcript's text); any other exception keeps its kind and where in mdmem it was raised. On the hook fast
path: standard library only, ``fastjson``, no ``json``/``re``. Details: docs/decisions/080-hook-status.md
"""

from __future__ import annotations

import os

from mdmem.base import files
from mdmem.base.errors import MdmemError
from mdmem.base.fastjson import dumps, loads
from mdmem.base.layout import mdmem_home

PROJECTS_KEPT = 50   # the projects one agent's file remembers, the most recent first
LINE_MAX = 200       # characters of an error line


def path(vault: str | None, agent: str) -> str:
    """The agent's file: in the vault's state folder, else (no vault, or an unsafe state folder) in MDMEM_HOME."""
    try:
        folder = files.state_path(vault, "hooks") if vault is not None else mdmem_home()
    except MdmemError:
        folder = mdmem_home()
    return os.path.join(folder, f"fired-{agent}.json")


def error_line(e: BaseException) -> str:
    """The error as :func:`record` keeps it: one line, no user words (see the module's docstring)."""
    if isinstance(e, MdmemError):
        text = f"{type(e).__name__}: {e}"
    else:
        tb, where = e.__traceback__, ""
        while tb is not None:  # the innermost frame in mdmem's own code
            name = tb.tb_frame.f_code.co_filename
            if f"{os.sep}mdmem{os.sep}" in name:
                where = f" at {name[name.rfind(os.sep + 'mdmem' + os.sep) + 1:]}:{tb.tb_lineno}"
            tb = tb.tb_next
        text = f"{type(e).__name__}{where}"
    return " ".join(text.split())[:LINE_MAX]


def read(file: str) -> dict:
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
        with open(fd, "rb") as f:
            data = loads(f.read(1024 * 1024))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record(vault: str | None, agent: str, hook: str, project: str, at: float, error: BaseException | None = None
           ) -> None:
    """Stamp ``hook`` of ``agent`` as run at ``at`` in ``project`` (and its error, when it failed). Never raises:
    a hook that cannot record still answers."""
    try:
        file = path(vault, agent)
        data = read(file)
        entry = data.get(project)
        entry = entry if isinstance(entry, dict) else {}
        stamp = entry.get(hook)
        stamp = stamp if isinstance(stamp, dict) else {}
        stamp["at"] = at
        if error is not None:
            stamp["error"], stamp["error_at"] = error_line(error), at
        entry[hook] = stamp
        data.pop(project, None)
        data = {project: entry, **data}  # the most recent first
        if len(data) > PROJECTS_KEPT:
            data = dict(list(data.items())[:PROJECTS_KEPT])
        os.makedirs(os.path.dirname(file), exist_ok=True)
        files.write_atomic(file, dumps(data).encode(), durable=False)  # (a rename: never through a symlink)
    except (OSError, MdmemError, ValueError, TypeError):
        pass


def of(vault: str | None, agent: str, project: str) -> dict[str, dict]:
    """Per hook, its last run in ``project`` or a folder inside it: ``{"at", "error"?, "error_at"?}`` (the latest
    of each over those folders)."""
    found: dict[str, dict] = {}
    prefix = project.rstrip(os.sep) + os.sep
    for where, entry in read(path(vault, agent)).items():
        if not isinstance(entry, dict) or not (where == project or where.startswith(prefix)):
            continue
        for hook, stamp in entry.items():
            if not isinstance(stamp, dict):
                continue
            mine = found.setdefault(hook, {})
            if float(stamp.get("at") or 0) > float(mine.get("at") or 0):
                mine["at"] = stamp["at"]
            if stamp.get("error") and float(stamp.get("error_at") or 0) > float(mine.get("error_at") or 0):
                mine["error"], mine["error_at"] = stamp["error"], stamp["error_at"]
    return found

"""When each agent's hooks last ran and how the last failure read: ``<vault>/.mdmem/hooks/fired-<agent>.log`` (or
``$MDMEM_HOME/fired-<agent>.log`` when no vault was found), what ``mdmem hook status`` shows.

One line appended per hook run, ``time<TAB>hook<TAB>project<TAB>error`` (the project is the hook's ``cwd``; the
error empty when it ran well): one ``write``, no rename (measured in-process: 0.03 ms, against 3.9 ms for an atomic
rewrite of a small JSON file on this machine). Past 256 KB the file becomes ``.1`` (the one before is dropped).
An error is kept as one line that holds no words of the user (decision 029): its kind, and its message only when
it is one of mdmem's own (:class:`MdmemError` says a path or a reason, never a transcript's text); any other
exception keeps its kind and where in mdmem it was raised. On the hook fast path: standard library only.
Details: docs/decisions/081-hook-status-and-agent-budgets.md
"""

from __future__ import annotations

import os

from mdmem.base.errors import MdmemError
from mdmem.base.files import open_regular
from mdmem.base.layout import mdmem_home
from mdmem.base.state import open_log, state_path

LINE_MAX = 200          # characters of an error line
ROTATE_BYTES = 256_000  # the log's size before it becomes .1


def path(vault: str | None, agent: str, make: bool = True) -> str:
    """The agent's file: in the vault's state folder (made when missing and ``make``), else (no vault, or an unsafe
    state folder) in MDMEM_HOME."""
    try:
        folder = state_path(vault, "hooks", make=make) if vault is not None else mdmem_home()
    except MdmemError:
        folder = mdmem_home()
    return os.path.join(folder, f"fired-{agent}.log")


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


def _one_line(text: str) -> str:
    return " ".join(text.split())


def record(vault: str | None, agent: str, hook: str, project: str, at: float, error: BaseException | None = None
           ) -> None:
    """Append that ``hook`` of ``agent`` ran at ``at`` in ``project`` (and its error, when it failed). Never raises:
    a hook that cannot record still answers."""
    line = f"{at:.3f}\t{hook}\t{_one_line(project)}\t{error_line(error) if error is not None else ''}\n"
    try:
        file = path(vault, agent)
        if vault is None:
            os.makedirs(os.path.dirname(file), exist_ok=True)
        fd = open_log(file)  # never a link, a FIFO or a device
        try:
            os.write(fd, line.encode("utf-8", "replace"))
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > ROTATE_BYTES:
            os.replace(file, file + ".1")
    except OSError:
        pass


def of(vault: str | None, agent: str, project: str) -> dict[str, dict]:
    """Per hook, its last run in ``project`` or a folder inside it: ``{"at", "error"?, "error_at"?}``."""
    found: dict[str, dict] = {}
    prefix = project.rstrip(os.sep) + os.sep
    file = path(vault, agent, make=False)  # (a status only reads: no state folder made)
    for name in (file + ".1", file):
        try:
            fd = open_regular(name)  # a FIFO in its place is not waited on
            with open(fd, encoding="utf-8", errors="replace") as f:
                lines = f.read(4 * ROTATE_BYTES).splitlines()
        except OSError:
            continue
        for line in lines:
            fields = line.split("\t")
            if len(fields) != 4 or not (fields[2] == project or fields[2].startswith(prefix)):
                continue
            try:
                at = float(fields[0])
            except ValueError:
                continue
            mine = found.setdefault(fields[1], {})
            mine["at"] = max(at, mine.get("at", 0.0))
            if fields[3] and at >= mine.get("error_at", 0.0):
                mine["error"], mine["error_at"] = fields[3], at
    return found

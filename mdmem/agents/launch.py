"""How an agent starts mdmem, for every agent: the hook command (the fast path, :func:`hook_runner`, :func:`hook`),
the command a person or a model is told to run (:func:`runner`, :func:`started_as`) and the MCP server command
(:func:`server_argv`). Agent-neutral: every adapter writes these into its agent's configuration. Standard library
only; ``shlex`` and ``shutil`` (which import ``re``) only when called: the hooks read :func:`started_as`."""

from __future__ import annotations

import os
import sys

HOOK_CODE = "from mdmem.__main__ import main; main()"


def hook_runner() -> str:
    """How an agent starts mdmem's hooks: this interpreter, ``-P -c`` :data:`HOOK_CODE` (``sys.argv`` then reads
    ``-c hook stop ...``, which :mod:`mdmem.__main__` hands to the fast path). Not the console script: the one pip
    writes imports ``re`` (hence ``enum``) before mdmem runs; not ``-m mdmem``: runpy's imports. Measured under
    load (load average ~12 on 2 cores, 21 interleaved runs of a quiet Stop hook, pair by pair against
    ``python -c pass``): console script 2.26x, ``-m`` 1.98x, this 1.37x. ``-P`` (Python 3.11+) keeps the current
    folder off ``sys.path``, so a project with an ``mdmem`` folder of its own cannot stand in for mdmem."""
    import shlex

    return f"{shlex.quote(os.path.abspath(sys.executable))} -P -c {shlex.quote(HOOK_CODE)}"


def runner() -> str:
    """How to start mdmem: the console script when it is the one on PATH, else ``python -m mdmem`` with this
    interpreter (never resolved: a venv's python is a symlink and resolving it would lose the venv)."""
    import shlex
    import shutil

    script = sys.argv[0] if sys.argv else ""
    found = shutil.which("mdmem")
    if found and script and os.path.isfile(script):
        try:
            if os.path.samefile(found, script):
                return shlex.quote(os.path.abspath(script))
        except OSError:
            pass
    return f"{shlex.quote(os.path.abspath(sys.executable))} -m mdmem"


def started_as() -> str:
    """How this hook was started, for the commands the model is told to run: the console script
    (``.../bin/mdmem``), else ``python -m mdmem`` with this interpreter (what :func:`runner` gives when the
    hook's own command is not a console script)."""
    import shlex

    script = sys.argv[0] if sys.argv else ""
    if os.path.basename(script).startswith("mdmem") and os.path.isfile(script):
        return shlex.quote(os.path.abspath(script))
    # the hooks run as `python -P -c ...` (:func:`hook_runner`): the console script beside that python, when
    # pip wrote one (a venv's bin/), is the same install and a shorter command to copy
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "mdmem")
    if os.path.isfile(beside):
        return shlex.quote(beside)
    return f"{shlex.quote(os.path.abspath(sys.executable))} -m mdmem"


def server_argv(vault: str) -> list[str]:
    """``mdmem mcp --vault VAULT`` as an argument list (MCP configurations take a command and its args)."""
    import shlex

    return [*shlex.split(runner()), "mcp", "--vault", vault]


def hook(agent: str, name: str, vault: str) -> str:
    """The command an agent runs for mdmem's hook ``name`` (what :func:`mdmem.agents.configs.ours` recognises)."""
    import shlex

    return f"{hook_runner()} hook {name} --agent {agent} --vault {shlex.quote(vault)}"

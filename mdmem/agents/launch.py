"""How an agent starts mdmem: the hook command (the fast path) and the MCP server command, for every agent."""

from __future__ import annotations

import os
import shlex
import shutil
import sys

HOOK_CODE = "from mdmem.__main__ import main; main()"


def hook_runner() -> str:
    """This interpreter with ``-P -c`` :data:`HOOK_CODE`: the hooks' fastest start (not the console script,
    which imports ``re`` first; not ``-m``, runpy's imports); ``-P`` keeps the current folder off ``sys.path``.
    Measured in docs/decisions/ (the hook start-up record)."""
    return f"{shlex.quote(os.path.abspath(sys.executable))} -P -c {shlex.quote(HOOK_CODE)}"


def runner() -> str:
    """How to start mdmem: the console script when it is the one on PATH, else ``python -m mdmem`` with this
    interpreter (never resolved: a venv's python is a symlink and resolving it would lose the venv)."""
    script = sys.argv[0] if sys.argv else ""
    found = shutil.which("mdmem")
    if found and script and os.path.isfile(script):
        try:
            if os.path.samefile(found, script):
                return shlex.quote(os.path.abspath(script))
        except OSError:
            pass
    return f"{shlex.quote(os.path.abspath(sys.executable))} -m mdmem"


def server_argv(vault: str) -> list[str]:
    """``mdmem mcp --vault VAULT`` as an argument list (MCP configurations take a command and its args)."""
    return [*shlex.split(runner()), "mcp", "--vault", vault]


def hook(agent: str, name: str, vault: str) -> str:
    """The command an agent runs for mdmem's hook ``name`` (what :func:`mdmem.agents.configs.ours` recognises)."""
    return f"{hook_runner()} hook {name} --agent {agent} --vault {shlex.quote(vault)}"

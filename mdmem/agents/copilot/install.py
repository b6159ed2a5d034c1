"""``mdmem install copilot``: the hooks in ``<project>/.github/hooks/mdmem.json`` (version 1, ``bash`` commands).

The MCP server goes in the user's ``~/.copilot/mcp-config.json``, which mdmem does not write: the step is printed.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from mdmem.agents import launch
from mdmem.agents.configs import Edit, Hook

HOOKS = {"sessionStart": "session-start", "agentStop": "stop", "preCompact": "pre-compact",
         "sessionEnd": "session-end"}


def notes(vault: str) -> list[str]:
    return ["Copilot CLI reads MCP servers from ~/.copilot/mcp-config.json: add mdmem with `/mcp add` in Copilot, "
            f"command: {shlex.join(launch.server_argv(vault))}",
            "Copilot CLI 1.0.8 was reported to ignore a sessionStart hook's context (github/copilot-cli#2142): "
            "if the card does not reach the model, the MCP server's recall still does."]


def edits(project: Path, vault: str, prompt: bool = True) -> list[Edit]:
    hooks = tuple(Hook(event, launch.hook("copilot", name, vault), {"timeoutSec": 30})
                  for event, name in HOOKS.items())
    return [Edit(project / ".github" / "hooks" / "mdmem.json", "flat-hooks", hooks=hooks, skeleton={"version": 1},
                 command_field="bash")]

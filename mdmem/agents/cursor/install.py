"""``mdmem install cursor``: hooks in ``<project>/.cursor/hooks.json`` (version 1), the server in ``.cursor/mcp.json``.

Cursor's ``beforeSubmitPrompt`` cannot add context, so per-prompt recall reaches Cursor through the MCP server.
"""

from __future__ import annotations

from pathlib import Path

from mdmem.agents import launch
from mdmem.agents.configs import Edit, Hook

HOOKS = {"sessionStart": "session-start", "stop": "stop", "preCompact": "pre-compact", "sessionEnd": "session-end"}
NOTES = ["Cursor's prompt hook cannot add context: per-prompt recall reaches Cursor through the MCP server "
         "(its search and recall tools)."]


def edits(project: Path, vault: str, prompt: bool = True) -> list[Edit]:
    hooks = tuple(Hook(event, launch.hook("cursor", name, vault), {"loop_limit": 1} if name == "stop" else {})
                  for event, name in HOOKS.items())
    argv = launch.server_argv(vault)
    return [Edit(project / ".cursor" / "hooks.json", "flat-hooks", hooks=hooks, skeleton={"version": 1},
                 typed=False),
            Edit(project / ".cursor" / "mcp.json", "json-server", key=("mcpServers", "mdmem"),
                 entry={"command": argv[0], "args": argv[1:]})]

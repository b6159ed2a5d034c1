"""``mdmem install gemini``: the hooks and the MCP server in ``<project>/.gemini/settings.json``.

Gemini CLI's hook timeouts are milliseconds (a Claude Code ``30`` copied as is would be 30 ms). Antigravity CLI
(``agy``) is reported to read the same settings; not verified here.
"""

from __future__ import annotations

from pathlib import Path

from mdmem.agents import launch
from mdmem.agents.configs import Edit, Hook

HOOKS = {"SessionStart": "session-start", "BeforeAgent": "prompt", "AfterAgent": "stop",
         "PreCompress": "pre-compact", "SessionEnd": "session-end"}
TIMEOUT_MS = 30_000
NOTES = ["Gemini CLI fingerprints project hooks: on its next start it asks you to trust the new mdmem hooks."]


def edits(project: Path, vault: str, prompt: bool = True) -> list[Edit]:
    settings = project / ".gemini" / "settings.json"
    hooks = tuple(Hook(event, launch.hook("gemini", name, vault), {"name": f"mdmem-{name}", "timeout": TIMEOUT_MS})
                  for event, name in HOOKS.items() if prompt or name != "prompt")
    argv = launch.server_argv(vault)
    return [Edit(settings, "hooks", hooks=hooks),
            Edit(settings, "json-server", key=("mcpServers", "mdmem"), entry={"command": argv[0], "args": argv[1:]})]

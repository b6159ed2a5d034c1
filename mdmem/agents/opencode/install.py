"""``mdmem install opencode``: the MCP server in ``<project>/opencode.json`` and the card in ``AGENTS.md``.

OpenCode's hooks are in-process TypeScript plugins; mdmem ships none yet, so the card is a generated block in
AGENTS.md (which OpenCode loads) and recall goes through the MCP server.
"""

from __future__ import annotations

from pathlib import Path

from mdmem.agents import launch
from mdmem.agents.configs import Edit

CARDS = (("AGENTS.md", False),)


def edits(project: Path, vault: str, prompt: bool = True) -> list[Edit]:
    return [Edit(project / "opencode.json", "json-server", key=("mcp", "mdmem"),
                 entry={"type": "local", "command": launch.server_argv(vault)})]

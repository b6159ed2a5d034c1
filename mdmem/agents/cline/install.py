"""``mdmem install cline``: the card as ``.clinerules/mdmem.md`` (a rules file mdmem owns); the MCP server is
added in Cline's MCP settings (printed)."""

from __future__ import annotations

import shlex

from mdmem.agents import launch

CARDS = ((".clinerules/mdmem.md", True),)


def notes(vault: str) -> list[str]:
    return [f"Add mdmem in Cline's MCP servers (cline_mcp_settings.json), command: {shlex.join(launch.server_argv(vault))}"]

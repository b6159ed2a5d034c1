"""``mdmem install windsurf``: the card as ``.windsurf/rules/mdmem.md`` (Windsurf reads at most 12,000 characters
a rules file); the MCP server goes in ``~/.codeium/windsurf/mcp_config.json`` (printed)."""

from __future__ import annotations

import shlex

from mdmem.agents import launch

CARDS = ((".windsurf/rules/mdmem.md", True),)
BUDGET = 11_000


def notes(vault: str) -> list[str]:
    return [f"Add mdmem to ~/.codeium/windsurf/mcp_config.json, command: {shlex.join(launch.server_argv(vault))}"]

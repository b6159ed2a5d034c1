"""``mdmem install goose``: the card in ``AGENTS.md`` (Goose loads it, then ``.goosehints``).

Goose's hooks are observation-only but for Stop, and its payloads carry no transcript, so the checkpoint cannot
judge a turn there; the MCP server is a Goose extension in ``~/.config/goose/config.yaml`` (printed, not written).
"""

from __future__ import annotations

import shlex

from mdmem.agents import launch

CARDS = (("AGENTS.md", False),)


def notes(vault: str) -> list[str]:
    return ["Add mdmem as a Goose extension (`goose configure` > Add Extension > Command-line Extension), "
            f"command: {shlex.join(launch.server_argv(vault))}"]

"""``mdmem install codex``: the hooks in ``<project>/.codex/hooks.json``, the MCP server in ``.codex/config.toml``.

Codex runs a hook only once its hash is trusted (``[hooks.state."<source>:<event>:<group>:<handler>"]
trusted_hash`` in the user's ``~/.codex/config.toml``); mdmem cannot compute that hash reliably (it is Codex's
internal normal form), so it prints the step (open Codex, ``/hooks``, trust mdmem's hooks) and ``mdmem hook
status --agent codex`` says "installed but not trusted" until a hash is recorded. Codex has no SessionEnd.
"""

from __future__ import annotations

import os
from pathlib import Path

from mdmem.agents import launch
from mdmem.agents.configs import Edit, Hook

HOOKS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt", "Stop": "stop", "PreCompact": "pre-compact"}
TIMEOUT = 30  # seconds
NOTES = ["Codex runs a project hook only once you trust it: start `codex` in this project, type /hooks and trust "
         "mdmem's hooks (SessionStart, UserPromptSubmit, Stop, PreCompact); `mdmem hook status --agent codex` "
         "says whether they are trusted.",
         "The MCP server is in .codex/config.toml, which Codex reads for a trusted project."]


def edits(project: Path, vault: str, prompt: bool = True) -> list[Edit]:
    hooks = tuple(Hook(event, launch.hook("codex", name, vault), {"timeout": TIMEOUT})
                  for event, name in HOOKS.items() if prompt or name != "prompt")
    return [Edit(project / ".codex" / "hooks.json", "hooks", hooks=hooks),
            Edit(project / ".codex" / "config.toml", "toml-server", key=("mcp_servers", "mdmem"),
                 entry={"command": launch.server_argv(vault)[0], "args": launch.server_argv(vault)[1:]})]


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def trusted(project: Path) -> dict[str, bool]:
    """Per event of :data:`HOOKS`: whether Codex's user config records a trusted hash for mdmem's hook in this
    project's ``.codex/hooks.json`` (the key starts with that file's path and holds the event's name)."""
    import tomllib

    source = str(project / ".codex" / "hooks.json")
    try:
        with open(codex_home() / "config.toml", "rb") as f:
            state = tomllib.load(f).get("hooks", {}).get("state", {})
    except (OSError, tomllib.TOMLDecodeError, AttributeError):
        state = {}
    keys = [k for k, v in state.items() if isinstance(v, dict) and v.get("trusted_hash")] if isinstance(
        state, dict) else []
    return {event: any(k.startswith(source) and event.lower() in k.lower() for k in keys) for event in HOOKS}

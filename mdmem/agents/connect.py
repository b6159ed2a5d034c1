"""``mdmem install AGENT`` / ``uninstall AGENT`` for every agent but Claude Code, over one plan per agent.

An agent's ``install`` module (``mdmem.agents.<agent>.install``) says what to write: ``edits(project, vault)``
(hooks and MCP entries, :mod:`mdmem.agents.configs`), ``CARDS`` (files that carry the memory card, for agents
without a session-start hook: :mod:`mdmem.agents.cardfile`), and ``NOTES`` or ``notes(vault)`` (the steps mdmem
cannot do for the user). The front end picks the module by name and hands it here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import ModuleType

from mdmem.agents import cardfile, configs
from mdmem.agents.configs import AgentResult, FileResult

CARD_BUDGET = 6_000  # bytes: well inside Codex's 32 KiB for all AGENTS.md files and Windsurf's 12,000 characters


def _notes(module: ModuleType, vault: str) -> list[str]:
    found = getattr(module, "notes", None)
    return list(found(vault)) if callable(found) else list(getattr(module, "NOTES", []))


def card_text(vault: str, project: Path, budget: int = CARD_BUDGET) -> str:
    """The session-start card for a session in ``project``, as a file the agent loads carries it: without the
    project's own AGENTS.md (the card may be written into it) and without a pending checkpoint (a file is not
    a session)."""
    from mdmem.agents.hooks.session import card_command, card_protocol, today
    from mdmem.base.projects import for_read
    from mdmem.engine.memory import Memory
    from mdmem.ops.context import context

    with Memory.open(vault) as mem:
        mem.refresh(strict=False)
        return context(mem, "index", budget, cwd=project, protocol=card_protocol(vault), today=today(),
                       command=card_command(vault), bootstrap=False,
                       scope=for_read(vault, cwd=str(project), session=True)).text


def install(agent: str, module: ModuleType, project: Path, vault: str, *, prompt: bool = True,
            dry_run: bool = False) -> AgentResult:
    edits = module.edits(project, vault, prompt) if hasattr(module, "edits") else []
    result = configs.install(agent, project, edits, dry_run, _notes(module, vault))
    cards = getattr(module, "CARDS", ())
    if cards:
        text = card_text(vault, project, getattr(module, "BUDGET", CARD_BUDGET))
        files = [FileResult(str(project / name), cardfile.write(project / name, text, owned, dry_run))
                 for name, owned in cards]
        result = replace(result, files=result.files + files)
    return result


def uninstall(agent: str, module: ModuleType, project: Path, *, dry_run: bool = False) -> AgentResult:
    edits = module.edits(project, "-", True) if hasattr(module, "edits") else []
    result = configs.uninstall(agent, project, list(reversed(edits)), dry_run)
    files = []
    for name, owned in getattr(module, "CARDS", ()):
        files.append(FileResult(str(project / name), cardfile.remove(project / name, owned, dry_run)))
        if not dry_run:
            configs._prune((project / name).parent, project)
    return replace(result, files=result.files + files)


def write_card(path: Path, vault: str, project: Path, owned: bool | None = None, dry_run: bool = False) -> str:
    """``mdmem context --write FILE``: refresh the card in ``path`` (a whole file mdmem owns when it says so
    in its first lines, else the block between the markers)."""
    if owned is None:
        head = path.read_bytes()[:400].decode("utf-8", "replace") if path.is_file() else ""
        owned = configs.OWNED_MARK in head and cardfile.BEGIN not in head
    return cardfile.write(path, card_text(vault, project), owned, dry_run)


def status(agent: str, module: ModuleType, project: Path, vault: str | None = None) -> dict:
    """What of ``agent``'s install is in ``project``: per hook event installed or not, the MCP entry, a plugin file,
    the card files, for Codex whether each hook is trusted; and per mdmem hook when it last ran in the project
    and its last error (:mod:`mdmem.agents.hooks.fired`, in ``vault``: by default the one the installed hooks
    name)."""
    import json
    import shlex

    events: dict[str, dict] = {}
    server = plugin = None
    named = []  # the vaults the installed entries name
    for edit in (module.edits(project, "-", True) if hasattr(module, "edits") else []):
        f = configs.read_file(edit.path)
        if edit.kind == "file":
            text = (f.raw or b"").decode("utf-8", "replace")
            plugin = {"installed": f.raw is not None and configs._owned_file(f.raw), "file": str(edit.path)}
            named += [json.loads(line.split("=", 1)[1].split("//")[0]) for line in text.splitlines()
                      if plugin["installed"] and line.startswith("const VAULT = ")]
            continue
        data = configs._parse(edit, f.raw) if f.raw is not None else {}
        if edit.kind in ("hooks", "flat-hooks"):
            table = data.get("hooks")
            table = table if isinstance(table, dict) else {}
            for hook in edit.hooks:
                entries = configs._plain(table.get(hook.event, []))
                text = json.dumps(entries)
                events[hook.event] = {"installed": f" --agent {agent} --vault " in text, "file": str(edit.path)}
                for word in _commands(entries, edit.command_field):
                    if configs.ours(word, agent):
                        words = shlex.split(word)
                        named.append(words[words.index("--vault") + 1])
        else:
            node: object = configs._plain(data)
            for part in edit.key:
                node = node.get(part) if isinstance(node, dict) else None
            server = {"installed": configs._server_is_ours(node), "file": str(edit.path)}
    trusted = getattr(module, "trusted", None)
    if callable(trusted):
        for event, ok in trusted(project).items():
            if event in events:
                events[event]["trusted"] = ok
    cards = {name: cardfile.BEGIN in (project / name).read_text("utf-8", "replace")
             or configs.OWNED_MARK in (project / name).read_text("utf-8", "replace")[:400]
             for name, _ in getattr(module, "CARDS", ()) if (project / name).is_file()}
    from mdmem.agents.hooks import fired

    vault = vault or (named[0] if named else None)
    return {"agent": agent, "project": str(project), "events": events, "server": server, "plugin": plugin,
            "cards": cards, "vault": vault, "fired": fired.of(vault, agent, str(project))}


def _commands(entries: object, field: str) -> list[str]:
    """The command strings of a hook event's entries (Claude-style groups or a flat list)."""
    found: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get(field), str):
            found.append(entry[field])
        found += _commands(entry.get("hooks"), field)
    return found

"""Install, remove and inspect mdmem's Claude Code hooks in a ``settings.json``;
register the ``mdmem mcp`` server (``mdmem install claude``, see "the MCP server" below).

``mdmem hook install|uninstall|status`` land here. Standard library only (plus
``vault``/``errors``): these commands run without Typer.

Settings files by scope: ``project`` is ``<project>/.claude/settings.json``
(shared, usually committed), ``local`` is ``<project>/.claude/settings.local.json``
(personal) and ``user`` is ``~/.claude/settings.json`` or
``$CLAUDE_CONFIG_DIR/settings.json``. mdmem's entries are recognised by their
command (:data:`OWN_COMMAND`); every other key, event, group and hook is kept
as it was, in order.

A settings file that is a symlink (a dotfiles repository, say) is written
through to its target, so the link stays a link; the backup
``<file>.mdmem-backup`` sits next to the path as addressed, not in the target's
folder, and gets the old file's permission bits (settings may hold secrets).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from mdmem.base.errors import MdmemError
from mdmem.base.files import write_atomic

# event -> (matcher or None, `mdmem hook` sub-command); one line per event.
HOOKS: dict[str, tuple[str | None, str]] = {
    "Stop": (None, "stop"),
    "SessionStart": ("startup|resume|clear|compact", "session-start"),
    "UserPromptSubmit": (None, "prompt"),  # opt out: `hook install --no-prompt`
    "PreCompact": (None, "pre-compact"),
    "SessionEnd": (None, "session-end"),
}
PROMPT_EVENT = "UserPromptSubmit"
TIMEOUT = 10  # seconds; written on new entries only, a user's own timeout is kept
SCOPES = ("project", "local", "user")
BACKUP_SUFFIX = ".mdmem-backup"
# The brief's pattern, plus an optional closing quote after `mdmem` so that a
# shlex-quoted script path ('/my bin/mdmem' hook stop) is recognised too.
# mdmem's own entries: `mdmem hook <any sub-command>`, so an event added to HOOKS (or one an older
# mdmem wrote) is recognised without touching this pattern
OWN_COMMAND = re.compile(r"(^|[\s/])mdmem['\"]?(\s|$).*\bhook [a-z][a-z-]*\b| -m mdmem hook [a-z][a-z-]*\b")


@dataclass(frozen=True)
class InstallResult:
    path: str
    scope: str
    actions: dict[str, str]  # event -> added | updated | unchanged | removed | absent
    backup: str | None
    dry_run: bool
    content: str  # the file's text after the operation ("" when there is no file)


@dataclass(frozen=True)
class EventStatus:
    installed: bool
    command: str | None
    vault: str | None
    vault_exists: bool | None


@dataclass(frozen=True)
class ScopeStatus:
    scope: str
    path: str
    exists: bool
    error: str | None
    events: dict[str, EventStatus]


@dataclass(frozen=True)
class StatusResult:
    scopes: list[ScopeStatus]
    warnings: list[str]
    skills: list = None  # skills.SkillAction per skill and folder: installed, not mdmem's, absent
    session: dict | None = None  # the current session's stop count, next checkpoint, pending checkpoint


# --- where ------------------------------------------------------------------

def find_project(given: str | os.PathLike | None = None, cwd: Path | None = None) -> Path:
    """``given``, else the nearest ancestor of ``cwd`` holding ``.git`` or
    ``.claude`` (the search stops below the home folder, whose ``.claude`` is
    the user's own configuration), else ``cwd``."""
    if given:
        path = Path(given).expanduser().absolute()
        if not path.is_dir():
            raise MdmemError(f"project folder {path} is not a folder")
        return path
    here = (cwd or Path.cwd()).absolute()
    home = Path.home().resolve()
    for folder in (here, *here.parents):
        if folder == home or folder.resolve() == home:
            break
        if (folder / ".git").exists() or (folder / ".claude").is_dir():
            return folder
    return here


def user_config_dir() -> Path:
    custom = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(custom).expanduser().absolute() if custom else Path.home() / ".claude"


def settings_path(scope: str, project: str | os.PathLike | None = None) -> Path:
    if scope == "user":
        return user_config_dir() / "settings.json"
    if scope not in SCOPES:
        raise MdmemError(f"unknown scope {scope!r}: use one of {', '.join(SCOPES)}")
    name = "settings.json" if scope == "project" else "settings.local.json"
    return find_project(project) / ".claude" / name


# --- the command ------------------------------------------------------------

def runner() -> str:
    """How to start mdmem: the console script when it is the one on PATH, else
    ``python -m mdmem`` with this interpreter (never resolved: a venv's python
    is a symlink and resolving it would lose the venv)."""
    script = sys.argv[0] if sys.argv else ""
    found = shutil.which("mdmem")
    if found and script and os.path.isfile(script):
        try:
            if os.path.samefile(found, script):
                return shlex.quote(os.path.abspath(script))
        except OSError:
            pass
    return f"{shlex.quote(os.path.abspath(sys.executable))} -m mdmem"


def hook_command(subcommand: str, vault: str | os.PathLike, exe: str | None = None) -> str:
    return f"{exe or runner()} hook {subcommand} --vault {shlex.quote(str(Path(vault).absolute()))}"


def is_mdmem_hook(entry: object) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("command"), str)
            and OWN_COMMAND.search(entry["command"]) is not None)


# --- reading ----------------------------------------------------------------

@dataclass
class _Settings:
    path: Path  # as addressed (may be a symlink)
    real: Path  # where the bytes live
    data: dict
    raw: bytes | None  # None: no file
    stamp: tuple[int, int] | None


def _kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        raise ValueError(f"duplicate key {next(k for k, _ in pairs if k in seen or seen.add(k))!r}")
    return data


def _check_hooks(data: dict, bad) -> None:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise bad(f'"hooks" must be an object, not {_kind(hooks)}')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise bad(f'"hooks.{event}" must be an array, not {_kind(groups)}')
        for i, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise bad(f'"hooks.{event}[{i}]" must be an object with a "hooks" array')


def _load(path: Path, check=_check_hooks) -> _Settings:
    """Read a JSON settings file (a missing or empty one is ``{}``); ``check(data, bad)``
    validates the part mdmem will change (``bad(problem)`` makes the error)."""
    real = Path(os.path.realpath(path))
    try:
        st = os.stat(real)  # before reading: a change after this is caught at write time
        raw = real.read_bytes()
    except FileNotFoundError:
        return _Settings(path, real, {}, None, None)
    except OSError as e:
        raise MdmemError(f"cannot read {path}: {e.strerror}") from None

    def bad(problem: str) -> MdmemError:
        return MdmemError(f"{path}: {problem}; nothing was changed")

    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise bad("not UTF-8 text") from None
    try:  # an empty file is taken as {}
        data = json.loads(text, object_pairs_hook=_unique_keys) if text.strip() else {}
    except json.JSONDecodeError as e:
        raise bad(f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except ValueError as e:
        raise bad(f"not usable JSON ({e})") from None
    if not isinstance(data, dict):
        raise bad(f"the top level must be an object, not {_kind(data)}")
    check(data, bad)
    return _Settings(path, real, data, raw, (st.st_mtime_ns, st.st_size))


def _render(data: dict) -> str:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if json.loads(text) != data:  # cannot happen; the promise is never to write broken JSON
        raise MdmemError("internal error: the new settings do not read back; nothing was written")
    return text


def _save(settings: _Settings, text: str) -> str | None:
    """Back the old file up (if any), then write ``text`` atomically through any symlink."""
    backup = None
    if settings.raw is not None:
        backup = settings.path.with_name(settings.path.name + BACKUP_SUFFIX)
        mode = os.stat(settings.real).st_mode & 0o7777
        os.close(os.open(backup, os.O_WRONLY | os.O_CREAT, mode))
        os.chmod(backup, mode)  # write_atomic keeps the mode of the file it replaces
        write_atomic(backup, settings.raw)
    write_atomic(settings.real, text.encode("utf-8"), expected=settings.stamp)
    return str(backup) if backup else None


def _finish(settings: _Settings, scope: str, actions: dict[str, str], dry_run: bool) -> InstallResult:
    changed = any(a in ("added", "updated", "removed") for a in actions.values())
    if not changed:
        content = settings.raw.decode("utf-8-sig") if settings.raw is not None else ""
        return InstallResult(str(settings.path), scope, actions, None, dry_run, content)
    content = _render(settings.data)
    backup = None if dry_run else _save(settings, content)
    return InstallResult(str(settings.path), scope, actions, backup, dry_run, content)


# --- the operations ---------------------------------------------------------

def install(scope: str, vault: str | os.PathLike, project: str | os.PathLike | None = None, *,
            hooks: dict[str, tuple[str | None, str]] = HOOKS, exe: str | None = None,
            dry_run: bool = False, prompt: bool = True) -> InstallResult:
    """Add mdmem's hook for each event of ``hooks``, or bring an existing one up to date. Without
    ``prompt`` the UserPromptSubmit hook is left out (and removed if an earlier install added it)."""
    settings = _load(settings_path(scope, project))
    events = settings.data.setdefault("hooks", {})
    actions: dict[str, str] = {}
    if not prompt:
        hooks = {event: spec for event, spec in hooks.items() if event != PROMPT_EVENT}
        actions[PROMPT_EVENT] = _drop_event(settings.data, PROMPT_EVENT)
        events = settings.data.setdefault("hooks", {})
    for event, (matcher, subcommand) in hooks.items():
        want = hook_command(subcommand, vault, exe)
        groups = events.setdefault(event, [])
        found = [(g, e) for g in groups for e in g.get("hooks", []) if is_mdmem_hook(e)]
        if not found:
            group = {} if matcher is None else {"matcher": matcher}
            group["hooks"] = [{"type": "command", "command": want, "timeout": TIMEOUT}]
            groups.append(group)
            actions[event] = "added"
            continue
        (home, entry), extra = found[0], found[1:]
        changed = bool(extra) or entry["command"] != want
        entry["command"] = want  # in place: key order and the user's other keys stay
        for group, dupe in extra:  # the hook would run twice: keep the first only
            group["hooks"] = [e for e in group["hooks"] if e is not dupe]
        groups[:] = [g for g in groups if g.get("hooks") or not any(g is x for x, _ in extra)]
        if matcher is not None and home.get("matcher") != matcher and all(map(is_mdmem_hook, home["hooks"])):
            home["matcher"] = matcher
            changed = True
        actions[event] = "updated" if changed else "unchanged"
    order = list(HOOKS) + [e for e in actions if e not in HOOKS]
    actions = {event: actions[event] for event in order if event in actions}
    return _finish(settings, scope, actions, dry_run)


def _drop_event(data: dict, event: str) -> str:
    """Remove mdmem's entries from one event (dropping the groups and the event it leaves empty)."""
    events = data.get("hooks", {})
    groups = events.get(event, [])
    kept, hit = [], False
    for group in groups:
        entries = group.get("hooks", [])
        others = [e for e in entries if not is_mdmem_hook(e)]
        if len(others) != len(entries):
            hit = True
            if not others:
                continue
            group["hooks"] = others
        kept.append(group)
    if not hit:
        return "absent"
    if kept:
        events[event] = kept
    else:
        del events[event]
    return "removed"


def uninstall(scope: str, project: str | os.PathLike | None = None, *,
              hooks: dict[str, tuple[str | None, str]] = HOOKS, dry_run: bool = False) -> InstallResult:
    """Remove every mdmem entry (from any event), dropping what that leaves empty."""
    settings = _load(settings_path(scope, project))
    events = settings.data.get("hooks", {})
    removed: list[str] = []
    for event, groups in list(events.items()):
        kept, hit = [], False
        for group in groups:
            entries = group.get("hooks", [])
            others = [e for e in entries if not is_mdmem_hook(e)]
            if len(others) != len(entries):
                hit = True
                if not others:
                    continue  # a group mdmem emptied goes; one that was empty already stays
                group["hooks"] = others
            kept.append(group)
        if hit:
            removed.append(event)
            if kept:
                events[event] = kept
            else:
                del events[event]
    if removed and not events:
        del settings.data["hooks"]
    actions = {event: "removed" if event in removed else "absent" for event in hooks}
    actions.update({event: "removed" for event in removed})
    return _finish(settings, scope, actions, dry_run)


def _vault_of(command: str) -> str | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i, word in enumerate(words):
        if word == "--vault" and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--vault="):
            return word.split("=", 1)[1]
    return None


def status(project: str | os.PathLike | None = None, *,
           hooks: dict[str, tuple[str | None, str]] = HOOKS, vault: str | os.PathLike | None = None,
           session: str | None = None) -> StatusResult:
    """Where mdmem's hooks and skills are installed, in every scope; and, for the vault (``vault``, else the
    one the installed hooks name) and the session (``session``, else the one that stopped last), the stop
    count, when the next checkpoint may fire, and the pending checkpoint."""
    from mdmem.agents import hooks as hook_logic
    from mdmem.agents import skills

    scopes, warnings = [], []
    for scope in SCOPES:
        path = settings_path(scope, project)
        error, data = None, {}
        try:
            data = _load(path).data
        except MdmemError as e:
            error = str(e).removeprefix(f"{path}: ").removesuffix("; nothing was changed")
        events = {}
        for event in hooks:
            groups = data.get("hooks", {}).get(event, [])
            ours = (e["command"] for g in groups for e in g.get("hooks", []) if is_mdmem_hook(e))
            command = next(ours, None)
            named = _vault_of(command) if command else None
            exists = Path(named).is_dir() if named else None
            if named and not exists:
                warnings.append(f"{scope} scope: the {event} hook points at {named}, which is not a folder")
            events[event] = EventStatus(command is not None, command, named, exists)
        scopes.append(ScopeStatus(scope, str(path), path.exists(), error, events))
    if vault is None:
        named = [ev.vault for sc in scopes for ev in sc.events.values() if ev.vault and ev.vault_exists]
        vault = named[0] if named else None
    info = hook_logic.session_status(str(Path(vault).absolute()), session) if vault else None
    return StatusResult(scopes, warnings, skills.status(project), info)


# --- the MCP server ---------------------------------------------------------
# `mdmem install claude` registers `mdmem mcp` with Claude Code and installs the
# hooks. project scope: the server in <project>/.mcp.json, the hooks in
# .claude/settings.local.json (they hold this machine's paths, so never in the
# shared settings.json); user scope: the server in the top-level "mcpServers"
# of ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json), the hooks in
# ~/.claude/settings.json.

MCP_NAME = "mdmem"
HOOK_SCOPE = {"project": "local", "user": "user"}


def mcp_config_path(scope: str, project: str | os.PathLike | None = None) -> Path:
    if scope == "project":
        return find_project(project) / ".mcp.json"
    if scope == "user":
        custom = os.environ.get("CLAUDE_CONFIG_DIR")
        return (Path(custom).expanduser().absolute() if custom else Path.home()) / ".claude.json"
    raise MdmemError(f"unknown scope {scope!r}: use project or user")


def _check_servers(data: dict, bad) -> None:
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise bad(f'"mcpServers" must be an object, not {_kind(servers)}')
    if not isinstance(servers.get(MCP_NAME, {}), dict):
        raise bad(f'"mcpServers.{MCP_NAME}" must be an object, not {_kind(servers[MCP_NAME])}')


def mcp_entry(vault: str | os.PathLike, exe: str | None = None) -> dict:
    """``{"command", "args"}`` starting ``mdmem mcp --vault V`` (``python -m mdmem``: the python, then ``-m mdmem``)."""
    command, *args = shlex.split(exe or runner())
    return {"command": command, "args": [*args, "mcp", "--vault", str(Path(vault).absolute())]}


def register_mcp(scope: str, vault: str | os.PathLike, project: str | os.PathLike | None = None, *,
                 exe: str | None = None, dry_run: bool = False) -> InstallResult:
    """Add the ``mdmem`` server to ``mcpServers`` (or bring its command up to date), keeping everything else."""
    settings = _load(mcp_config_path(scope, project), _check_servers)
    servers = settings.data.setdefault("mcpServers", {})
    want = mcp_entry(vault, exe)
    entry = servers.get(MCP_NAME)
    if entry is None:
        servers[MCP_NAME] = want
        action = "added"
    elif all(entry.get(key) == value for key, value in want.items()):
        action = "unchanged"
    else:
        entry.update(want)  # in place: the user's own keys (env, type...) stay
        action = "updated"
    return _finish(settings, scope, {f"mcpServers.{MCP_NAME}": action}, dry_run)


def unregister_mcp(scope: str, project: str | os.PathLike | None = None, *, dry_run: bool = False) -> InstallResult:
    """Remove the ``mdmem`` server from ``mcpServers`` (everything else is kept)."""
    settings = _load(mcp_config_path(scope, project), _check_servers)
    servers = settings.data.get("mcpServers", {})
    action = "absent"
    if MCP_NAME in servers:
        del servers[MCP_NAME]
        action = "removed"
        if not servers:
            del settings.data["mcpServers"]
    return _finish(settings, scope, {f"mcpServers.{MCP_NAME}": action}, dry_run)


@dataclass(frozen=True)
class ClaudeInstall:
    mcp: InstallResult
    hooks: InstallResult
    skills: object = None  # skills.SkillsResult


def install_claude(scope: str, vault: str | os.PathLike, project: str | os.PathLike | None = None, *,
                   exe: str | None = None, dry_run: bool = False, prompt: bool = True) -> ClaudeInstall:
    """The MCP server, the hooks and the skills for ``scope`` (project or user). Both settings files are
    read and checked before either is written, so a bad one leaves both untouched."""
    from mdmem.agents import skills
    from mdmem.agents.hooks import memory_protocol

    if scope not in HOOK_SCOPE:
        raise MdmemError(f"unknown scope {scope!r}: use project or user")
    protocol = memory_protocol()
    planned = ClaudeInstall(register_mcp(scope, vault, project, exe=exe, dry_run=True),
                            install(HOOK_SCOPE[scope], vault, project, exe=exe, dry_run=True, prompt=prompt),
                            skills.install(scope, vault, project, exe=exe, protocol=protocol, dry_run=True))
    if dry_run:
        return planned
    return ClaudeInstall(register_mcp(scope, vault, project, exe=exe),
                         install(HOOK_SCOPE[scope], vault, project, exe=exe, prompt=prompt),
                         skills.install(scope, vault, project, exe=exe, protocol=protocol))


def uninstall_claude(scope: str, project: str | os.PathLike | None = None, *, dry_run: bool = False) -> ClaudeInstall:
    """Undo ``install claude``: the server, mdmem's hooks and mdmem's skills (nothing else)."""
    from mdmem.agents import skills

    if scope not in HOOK_SCOPE:
        raise MdmemError(f"unknown scope {scope!r}: use project or user")
    planned = ClaudeInstall(unregister_mcp(scope, project, dry_run=True),
                            uninstall(HOOK_SCOPE[scope], project, dry_run=True),
                            skills.uninstall(scope, project, dry_run=True))
    if dry_run:
        return planned
    return ClaudeInstall(unregister_mcp(scope, project), uninstall(HOOK_SCOPE[scope], project),
                         skills.uninstall(scope, project))

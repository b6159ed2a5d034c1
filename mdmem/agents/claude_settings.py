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
from dataclasses import dataclass, replace
from pathlib import Path

from mdmem.agents.claude_env import find_project, runner, user_config_dir
from mdmem.base.errors import MdmemError
from mdmem.base.files import state_dir, write_atomic

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
    note: str | None = None  # where and why, when it is not the obvious place (install claude)


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

def settings_path(scope: str, project: str | os.PathLike | None = None) -> Path:
    if scope == "user":
        return user_config_dir() / "settings.json"
    if scope not in SCOPES:
        raise MdmemError(f"unknown scope {scope!r}: use one of {', '.join(SCOPES)}")
    name = "settings.json" if scope == "project" else "settings.local.json"
    return find_project(project) / ".claude" / name


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
                continue  # a group mdmem emptied goes; one that was empty already stays
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
    removed = [event for event in list(settings.data.get("hooks", {}))
               if _drop_event(settings.data, event) == "removed"]
    if removed and not settings.data["hooks"]:
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
# `mdmem install claude` registers `mdmem mcp` with Claude Code and installs the hooks.
#
# project scope. The server goes in <project>/.mcp.json, a file projects commit, only when its entry
# holds nothing of this machine: `mdmem` as the command (it is on PATH) and the vault as a path
# relative to the project (it lies inside it): {"command": "mdmem", "args": ["mcp", "--vault", "notes"]}.
# Claude Code starts a stdio server in the folder it was launched in, and from 2.1.141 passes
# CLAUDE_PROJECT_DIR, against which `mdmem mcp` resolves a relative --vault. Otherwise (mdmem only in a
# venv, a vault elsewhere) the entry would hold absolute paths, so it goes to Claude Code's local scope
# instead: projects["<project>"].mcpServers of ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json), which
# is this user's, on this machine, for this project; the output says which and why. The hooks always go
# to .claude/settings.local.json (they hold this machine's paths), and .claude/.gitignore gets
# `settings.local.json` and `*.mdmem-backup` so neither shows as untracked in git.
#
# user scope: the server in the top-level "mcpServers" of ~/.claude.json, the hooks in
# ~/.claude/settings.json (both this machine's, so absolute paths are right there).
#
# `mdmem uninstall claude` undoes it: mdmem's server entry leaves every scope `install claude` writes
# for that scope, the hooks leave the settings file; a file left holding nothing (.mcp.json,
# settings.local.json) and a .claude/.gitignore left holding only mdmem's lines are removed with it.

MCP_NAME = "mdmem"
HOOK_SCOPE = {"project": "local", "user": "user"}
MCP_SCOPES = ("project", "local", "user")
CLAUDE_GITIGNORE = ("settings.local.json", "*" + BACKUP_SUFFIX)  # lines of <project>/.claude/.gitignore
GITIGNORE_HEAD = "# written by mdmem: personal Claude Code settings and mdmem's backups stay out of git"


def claude_state_path() -> Path:
    """Claude Code's own state file, which holds the user and local MCP scopes."""
    custom = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(custom).expanduser().absolute() if custom else Path.home()) / ".claude.json"


def mcp_config_path(scope: str, project: str | os.PathLike | None = None) -> Path:
    if scope == "project":
        return find_project(project) / ".mcp.json"
    if scope in ("user", "local"):
        return claude_state_path()
    raise MdmemError(f"unknown scope {scope!r}: use project or user")


def _project_key(project: str | os.PathLike | None) -> str:
    """How ~/.claude.json names a project: the real path of the folder Claude Code runs in."""
    return os.path.realpath(find_project(project))


def _servers_of(data: dict, scope: str, key: str | None, create: bool) -> dict | None:
    """The "mcpServers" object of ``scope`` in ``data`` (created when ``create``), else None."""
    if scope == "local":
        if not create and not isinstance(data.get("projects", {}).get(key), dict):
            return None
        entry = data.setdefault("projects", {}).setdefault(key, {})
    else:
        entry = data
    return entry.setdefault("mcpServers", {}) if create else entry.get("mcpServers")


def _check_servers_in(scope: str, key: str | None):
    def check(data: dict, bad) -> None:
        where, holder = "", data
        if scope == "local":
            projects = data.get("projects", {})
            if not isinstance(projects, dict):
                raise bad(f'"projects" must be an object, not {_kind(projects)}')
            holder = projects.get(key, {})
            if not isinstance(holder, dict):
                raise bad(f'"projects.{key}" must be an object, not {_kind(holder)}')
            where = f"projects.{key}."
        servers = holder.get("mcpServers", {})
        if not isinstance(servers, dict):
            raise bad(f'"{where}mcpServers" must be an object, not {_kind(servers)}')
        if not isinstance(servers.get(MCP_NAME, {}), dict):
            raise bad(f'"{where}mcpServers.{MCP_NAME}" must be an object, not {_kind(servers[MCP_NAME])}')
    return check


def _check_servers(data: dict, bad) -> None:
    _check_servers_in("user", None)(data, bad)


def vault_in_project(vault: str | os.PathLike, project: str | os.PathLike | None = None) -> str | None:
    """The vault's path relative to the project (``.`` for the project itself), or None when it lies outside."""
    root, real = os.path.realpath(find_project(project)), os.path.realpath(vault)
    if real == root:
        return "."
    if real.startswith(root.rstrip(os.sep) + os.sep):
        return Path(os.path.relpath(real, root)).as_posix()
    return None


def mcp_entry(vault: str | os.PathLike, exe: str | None = None, relative: str | None = None) -> dict:
    """``{"command", "args"}`` starting ``mdmem mcp --vault V``: with ``relative``, the portable
    ``mdmem mcp --vault <relative>``; else this machine's (``python -m mdmem``: the python, then
    ``-m mdmem``) with the vault's absolute path."""
    if relative is not None:
        return {"command": "mdmem", "args": ["mcp", "--vault", relative]}
    command, *args = shlex.split(exe or runner())
    return {"command": command, "args": [*args, "mcp", "--vault", str(Path(vault).absolute())]}


def register_mcp(scope: str, vault: str | os.PathLike, project: str | os.PathLike | None = None, *,
                 exe: str | None = None, dry_run: bool = False, relative: str | None = None) -> InstallResult:
    """Add the ``mdmem`` server to ``mcpServers`` of ``scope`` (project: .mcp.json; local: this project's
    entry of ~/.claude.json; user: its top level), or bring its command up to date, keeping everything else."""
    key = _project_key(project) if scope == "local" else None
    settings = _load(mcp_config_path(scope, project), _check_servers_in(scope, key))
    servers = _servers_of(settings.data, scope, key, create=True)
    want = mcp_entry(vault, exe, relative)
    entry = servers.get(MCP_NAME)
    if entry is None:
        servers[MCP_NAME] = want
        action = "added"
    elif all(entry.get(k) == value for k, value in want.items()):
        action = "unchanged"
    else:
        entry.update(want)  # in place: the user's own keys (env, type...) stay
        action = "updated"
    return _finish(settings, scope, {f"mcpServers.{MCP_NAME}": action}, dry_run)


def unregister_mcp(scope: str, project: str | os.PathLike | None = None, *, dry_run: bool = False) -> InstallResult:
    """Remove the ``mdmem`` server from ``mcpServers`` of ``scope``; a .mcp.json left with nothing else
    is removed (it was all mdmem's)."""
    key = _project_key(project) if scope == "local" else None
    path = mcp_config_path(scope, project)
    settings = _load(path, _check_servers_in(scope, key))
    servers = _servers_of(settings.data, scope, key, create=False)
    if not servers or MCP_NAME not in servers:
        return _finish(settings, scope, {f"mcpServers.{MCP_NAME}": "absent"}, dry_run)
    del servers[MCP_NAME]
    if scope == "project" and not servers and set(settings.data) <= {"mcpServers"}:
        if not dry_run:
            _remove(settings)
        return InstallResult(str(path), scope, {f"mcpServers.{MCP_NAME}": "removed"}, None, dry_run, "",
                             note="removed the file: it held nothing else")
    return _finish(settings, scope, {f"mcpServers.{MCP_NAME}": "removed"}, dry_run)


def _remove(settings: _Settings) -> None:
    """Delete a settings file mdmem emptied, unless it changed since it was read."""
    if settings.stamp is not None:
        st = os.stat(settings.real)
        if (st.st_mtime_ns, st.st_size) != settings.stamp:
            from mdmem.base.errors import WriteConflict

            raise WriteConflict(f"{settings.path} changed on disk since it was read; nothing was written")
        os.unlink(settings.path)


def _gitignore(project: str | os.PathLike | None, dry_run: bool) -> str | None:
    """Make ``<project>/.claude/.gitignore`` list :data:`CLAUDE_GITIGNORE` (lines already there are kept);
    the path when it was written (or would be), else None."""
    path = find_project(project) / ".claude" / ".gitignore"
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = None
    except (OSError, UnicodeDecodeError) as e:
        raise MdmemError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    have = {line.strip() for line in (old or "").splitlines()}
    missing = [line for line in CLAUDE_GITIGNORE if line not in have]
    if not missing:
        return None
    if not dry_run:
        head = "" if old is None else (old if old.endswith("\n") or not old else old + "\n")
        lines = ([GITIGNORE_HEAD] if old is None else []) + missing
        write_atomic(path, (head + "\n".join(lines) + "\n").encode("utf-8"),
                     expected=None if old is None else _stamp(path))
    return str(path)


def _ungitignore(project: str | os.PathLike | None, dry_run: bool) -> str | None:
    """Remove ``.claude/.gitignore`` when it holds only what :func:`_gitignore` writes and no backup of
    mdmem's is left for it to hide; its path if so."""
    path = find_project(project) / ".claude" / ".gitignore"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if any(path.parent.glob("*" + BACKUP_SUFFIX)):
        return None
    if {ln.strip() for ln in text.splitlines() if ln.strip()} <= {GITIGNORE_HEAD, *CLAUDE_GITIGNORE}:
        if not dry_run:
            path.unlink()
        return str(path)
    return None


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_mtime_ns, st.st_size


@dataclass(frozen=True)
class ClaudeInstall:
    mcp: InstallResult
    hooks: InstallResult
    gitignore: str | None = None  # the .claude/.gitignore written (or, in a dry run, to write)
    replaced: InstallResult | None = None  # mdmem's entry taken out of the other project scope
    skills: object = None  # skills.SkillsResult: the /memory-check, /consolidate and memory skills


def install_claude(scope: str, vault: str | os.PathLike, project: str | os.PathLike | None = None, *,
                   exe: str | None = None, dry_run: bool = False, prompt: bool = True) -> ClaudeInstall:
    """The MCP server, the hooks and the skills for ``scope`` (project or user); see "the MCP server"
    above for which file gets the server. Every file is read and checked before any is written, so a bad
    one leaves all untouched."""
    from mdmem.agents import skills
    from mdmem.text.protocol import memory_protocol

    if scope not in HOOK_SCOPE:
        raise MdmemError(f"unknown scope {scope!r}: use project or user")
    protocol = memory_protocol()
    mcp_scope, relative, why, other = scope, None, None, None
    if scope == "project":
        relative = vault_in_project(vault, project)
        if relative is None:
            why = f"the vault {Path(vault).absolute()} is outside the project"
        elif exe is not None or shutil.which("mdmem") is None:
            why = "`mdmem` is not on PATH, so the entry needs this machine's path to it"
        if why:
            mcp_scope, relative, other = "local", None, "project"
        else:
            other = "local"

    def run(dry: bool) -> ClaudeInstall:
        mcp = register_mcp(mcp_scope, vault, project, exe=exe, dry_run=dry, relative=relative)
        if why:
            mcp = replace(mcp, note=f"local scope: this project, for you on this machine only ({why}); "
                                    ".mcp.json is left as it was")
        hooks = install(HOOK_SCOPE[scope], vault, project, exe=exe, dry_run=dry, prompt=prompt)
        replaced = None
        if other == "local":  # an old machine-specific entry would win over the new shared one
            stale = unregister_mcp("local", project, dry_run=dry)
            replaced = stale if stale.actions[f"mcpServers.{MCP_NAME}"] == "removed" else None
        ignore = _gitignore(project, dry) if scope == "project" else None
        made = skills.install(scope, vault, project, exe=exe, protocol=protocol, dry_run=dry)
        return ClaudeInstall(mcp, hooks, ignore, replaced, made)

    planned = run(True)
    if dry_run:
        return planned
    state_dir(Path(vault))  # .mdmem/ with its .gitignore now, before a hook makes .mdmem/hooks/ without it
    return run(False)


@dataclass(frozen=True)
class ClaudeUninstall:
    results: list[InstallResult]  # the MCP server's scopes, then the hooks
    gitignore: str | None = None  # the .claude/.gitignore removed (it held only mdmem's lines)
    skills: object = None  # skills.SkillsResult: mdmem's skills removed


def uninstall_claude(scope: str, project: str | os.PathLike | None = None, *,
                     dry_run: bool = False) -> ClaudeUninstall:
    """Undo :func:`install_claude` for ``scope``: the server leaves .mcp.json and the local scope
    (project) or the user scope (user); the hooks leave their settings file, which is removed when
    nothing else is left in it; so does a .claude/.gitignore holding only mdmem's lines; and mdmem's skills."""
    from mdmem.agents import skills

    if scope not in HOOK_SCOPE:
        raise MdmemError(f"unknown scope {scope!r}: use project or user")
    scopes = ("project", "local") if scope == "project" else ("user",)
    for s in scopes:  # check every file before changing any
        unregister_mcp(s, project, dry_run=True)
    uninstall(HOOK_SCOPE[scope], project, dry_run=True)
    skills.uninstall(scope, project, dry_run=True)
    removed_skills = skills.uninstall(scope, project, dry_run=dry_run)
    results = [unregister_mcp(s, project, dry_run=dry_run) for s in scopes]
    hooks = uninstall(HOOK_SCOPE[scope], project, dry_run=True)
    emptied = "removed" in hooks.actions.values() and json.loads(hooks.content or "null") == {}
    if scope == "project" and emptied:  # settings.local.json held only mdmem's hooks: it goes
        if not dry_run:
            _remove(_load(Path(hooks.path)))
        hooks = replace(hooks, dry_run=dry_run, content="", note="removed the file: it held nothing else")
    else:
        hooks = uninstall(HOOK_SCOPE[scope], project, dry_run=dry_run)
    results.append(hooks)
    ignore = None
    if scope == "project":
        ignore = _ungitignore(project, dry_run)
        folder = find_project(project) / ".claude"
        if not dry_run and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return ClaudeUninstall(results, ignore, removed_skills)

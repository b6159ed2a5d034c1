"""``mdmem install claude`` / ``uninstall claude``: register the ``mdmem mcp`` server with Claude
Code and install the hooks (:mod:`mdmem.agents.claude.settings`) and the skills; undo it.
Standard library only.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from mdmem.agents.claude.env import claude_state_path, find_project
from mdmem.agents.claude.settings import (
    BACKUP_SUFFIX,
    MCP_NAME,
    InstallResult,
    SettingsFile,
    finish,
    install,
    json_kind,
    load,
    uninstall,
)
from mdmem.agents.claude.skills import NAMES as SKILL_NAMES
from mdmem.agents.launch import runner
from mdmem.base.errors import MdmemError
from mdmem.base.files import write_atomic
from mdmem.base.state import state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdmem.agents.claude.skills import SkillsResult

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
# `settings.local.json`, `*.mdmem-backup` and mdmem's three skill folders (their commands hold this
# machine's interpreter and vault paths: committed, they would break for whoever clones the project) so
# none shows as untracked in git.
#
# user scope: the server in the top-level "mcpServers" of ~/.claude.json, the hooks in
# ~/.claude/settings.json (both this machine's, so absolute paths are right there).
#
# `mdmem uninstall claude` undoes it: mdmem's server entry leaves every scope `install claude` writes
# for that scope, the hooks leave the settings file; a file left holding nothing (.mcp.json,
# settings.local.json) and a .claude/.gitignore left holding only mdmem's lines are removed with it.

HOOK_SCOPE = {"project": "local", "user": "user"}
MCP_SCOPES = ("project", "local", "user")
CLAUDE_GITIGNORE = ("settings.local.json", "*" + BACKUP_SUFFIX,  # lines of <project>/.claude/.gitignore
                    *(f"skills/{name}/" for name in SKILL_NAMES))
GITIGNORE_HEAD = "# written by mdmem: personal Claude Code settings, mdmem's skills and backups stay out of git"
OLD_HEADS = ("# written by mdmem: personal Claude Code settings and mdmem's backups stay out of git",)


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
                raise bad(f'"projects" must be an object, not {json_kind(projects)}')
            holder = projects.get(key, {})
            if not isinstance(holder, dict):
                raise bad(f'"projects.{key}" must be an object, not {json_kind(holder)}')
            where = f"projects.{key}."
        servers = holder.get("mcpServers", {})
        if not isinstance(servers, dict):
            raise bad(f'"{where}mcpServers" must be an object, not {json_kind(servers)}')
        if not isinstance(servers.get(MCP_NAME, {}), dict):
            raise bad(f'"{where}mcpServers.{MCP_NAME}" must be an object, not {json_kind(servers[MCP_NAME])}')
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


def is_mdmem_server(entry: object) -> bool:
    """A ``mcpServers`` entry mdmem wrote (:func:`mcp_entry`): its command and arguments start mdmem's MCP server
    and nothing else, ``mdmem mcp --vault V`` or ``<python> -m mdmem mcp --vault V``. A user's own entry under the
    name ``mdmem`` (a wrapper script, another command) is never mdmem's to update or remove."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args) or len(args) < 3 \
            or args[-3:-1] != ["mcp", "--vault"]:
        return False
    lead = args[:-3]
    if lead == []:
        return os.path.basename(entry["command"]).lower() in ("mdmem", "mdmem.exe")
    return lead == ["-m", "mdmem"]


def register_mcp(scope: str, vault: str | os.PathLike, project: str | os.PathLike | None = None, *,
                 exe: str | None = None, dry_run: bool = False, relative: str | None = None) -> InstallResult:
    """Add the ``mdmem`` server to ``mcpServers`` of ``scope`` (project: .mcp.json; local: this project's
    entry of ~/.claude.json; user: its top level), or bring its command up to date, keeping everything else. An
    entry by that name that mdmem did not write (:func:`is_mdmem_server`) is left alone ("kept: not mdmem's")."""
    key = _project_key(project) if scope == "local" else None
    settings = load(mcp_config_path(scope, project), _check_servers_in(scope, key))
    servers = _servers_of(settings.data, scope, key, create=True)
    assert servers is not None  # made when absent (create=True)
    want = mcp_entry(vault, exe, relative)
    entry = servers.get(MCP_NAME)
    if entry is None:
        servers[MCP_NAME] = want
        action = "added"
    elif not is_mdmem_server(entry):  # the user's own: kept as it is, said so
        action = "kept: not mdmem's"
    elif all(entry.get(k) == value for k, value in want.items()):
        action = "unchanged"
    else:
        entry.update(want)  # in place: the user's own keys (env, type...) stay
        action = "updated"
    return finish(settings, scope, {f"mcpServers.{MCP_NAME}": action}, dry_run)


def unregister_mcp(scope: str, project: str | os.PathLike | None = None, *, dry_run: bool = False) -> InstallResult:
    """Remove the ``mdmem`` server mdmem wrote (:func:`is_mdmem_server`; a user's own entry by that name stays)
    from ``mcpServers`` of ``scope``, and each object that removal leaves
    empty: ``mcpServers``, then (local scope) the project's entry and ``projects``, as
    :func:`register_mcp` made them (a new user's trial found ``"mcpServers": {}`` left behind); every
    other key stays as it was. A .mcp.json left with nothing else is removed (it was all mdmem's); so is a
    ~/.claude.json left with nothing else when no backup says it existed before ``install`` (mdmem made it); one
    that existed stays (``{}`` at the least)."""
    key = _project_key(project) if scope == "local" else None
    path = mcp_config_path(scope, project)
    settings = load(path, _check_servers_in(scope, key))
    servers = _servers_of(settings.data, scope, key, create=False)
    if not servers or MCP_NAME not in servers:
        return finish(settings, scope, {f"mcpServers.{MCP_NAME}": "absent"}, dry_run)
    if not is_mdmem_server(servers[MCP_NAME]):  # the user's own entry by that name: never removed
        return finish(settings, scope, {f"mcpServers.{MCP_NAME}": "kept: not mdmem's"}, dry_run)
    del servers[MCP_NAME]
    if scope == "project" and not servers and set(settings.data) <= {"mcpServers"}:
        if not dry_run:
            _remove(settings)
        return InstallResult(str(path), scope, {f"mcpServers.{MCP_NAME}": "removed"}, None, dry_run, "",
                             note="removed the file: it held nothing else")
    holder = settings.data["projects"][key] if scope == "local" else settings.data
    if not servers:
        del holder["mcpServers"]
        if scope == "local" and not holder:
            del settings.data["projects"][key]
            if not settings.data["projects"]:
                del settings.data["projects"]
    if not settings.data and not path.with_name(path.name + BACKUP_SUFFIX).exists():
        # nothing but mdmem's was in it, and no backup of an earlier file: `install` made it (Claude Code had never
        # written it); it goes, as it came, with no backup of a file that held only mdmem's server
        if not dry_run:
            _remove(settings)
        return InstallResult(str(path), scope, {f"mcpServers.{MCP_NAME}": "removed"}, None, dry_run, "",
                             note="removed the file: mdmem made it and nothing else is in it")
    return finish(settings, scope, {f"mcpServers.{MCP_NAME}": "removed"}, dry_run)


def _remove(settings: SettingsFile) -> None:
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


def _ungitignore(project: str | os.PathLike | None, dry_run: bool) -> tuple[str, bool] | None:
    """Take mdmem's lines out of ``.claude/.gitignore`` (what :func:`_gitignore` writes), the user's kept: the
    file goes when nothing else is left. The line hiding mdmem's backups stays while a backup is there (a skill
    left in place, the user's or edited by them, is theirs: no line of mdmem's hides it). ``(path, removed)``
    when it changed (or would: removed, or only updated, the user's lines kept), else None."""
    path = find_project(project) / ".claude" / ".gitignore"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    keep = {"*" + BACKUP_SUFFIX} if any(path.parent.glob("*" + BACKUP_SUFFIX)) else set()
    ours = {GITIGNORE_HEAD, *OLD_HEADS, *CLAUDE_GITIGNORE} - keep
    lines = text.splitlines()
    left = [ln for ln in lines if ln.strip() not in ours]
    if len(left) == len(lines):
        return None
    kept = any(ln.strip() for ln in left)
    if not dry_run:
        if kept:
            write_atomic(path, ("\n".join(left).rstrip("\n") + "\n").encode("utf-8"), expected=_stamp(path))
        else:
            path.unlink()
    return str(path), not kept


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
    skills: SkillsResult | None = None  # the /memory-check, /consolidate and memory skills


def install_claude(scope: str, vault: str | os.PathLike, project: str | os.PathLike | None = None, *,
                   exe: str | None = None, dry_run: bool = False, prompt: bool = True) -> ClaudeInstall:
    """The MCP server, the hooks and the skills for ``scope`` (project or user); see "the MCP server"
    above for which file gets the server. Every file is read and checked before any is written, so a bad
    one leaves all untouched."""
    from mdmem.agents.claude import skills

    if scope not in HOOK_SCOPE:
        raise MdmemError(f"unknown scope {scope!r}: use project or user")
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
        made = skills.install(scope, vault, project, exe=exe, dry_run=dry)
        return ClaudeInstall(mcp, hooks, ignore, replaced, made)

    planned = run(True)
    if dry_run:
        return planned
    state_dir(Path(vault))  # .mdmem/ with its .gitignore now, before a hook makes .mdmem/hooks/ without it
    return run(False)


@dataclass(frozen=True)
class ClaudeUninstall:
    results: list[InstallResult]  # the MCP server's scopes, then the hooks
    gitignore: str | None = None  # the .claude/.gitignore changed: removed (it held only mdmem's lines) or updated
    skills: SkillsResult | None = None  # mdmem's skills removed
    gitignore_removed: bool = True  # False: the file stays, the user's own lines in it (only mdmem's taken out)


def uninstall_claude(scope: str, project: str | os.PathLike | None = None, *,
                     dry_run: bool = False) -> ClaudeUninstall:
    """Undo :func:`install_claude` for ``scope``: the server leaves .mcp.json and the local scope
    (project) or the user scope (user); the hooks leave their settings file, which is removed when
    nothing else is left in it; so does a .claude/.gitignore holding only mdmem's lines; and mdmem's skills."""
    from mdmem.agents.claude import skills

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
            _remove(load(Path(hooks.path)))
        hooks = replace(hooks, dry_run=dry_run, content="", note="removed the file: it held nothing else")
    else:
        hooks = uninstall(HOOK_SCOPE[scope], project, dry_run=dry_run)
    results.append(hooks)
    ignore, gone = None, True
    if scope == "project":
        changed = _ungitignore(project, dry_run)
        ignore, gone = changed if changed is not None else (None, True)
        folder = find_project(project) / ".claude"
        if not dry_run and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return ClaudeUninstall(results, ignore, removed_skills, gone)

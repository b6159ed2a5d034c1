"""Install, remove and inspect mdmem's Claude Code hooks in a ``settings.json``. Registering the
``mdmem mcp`` server with them (``mdmem install claude``) is :mod:`mdmem.agents.claude.install`.

``mdmem hook install|uninstall|status`` land here. Standard library only (plus
``vault``/``errors``): these commands run without Typer.

mdmem's entries are recognised by their whole command (:func:`is_mdmem_hook`); every other hook is
kept as it was. A symlinked settings file is written through; the backup keeps the old permission bits.

Details and reasons: docs/decisions/050-hooks-stop-policy-and-fast-path.md
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path

from mdmem.agents.claude.env import find_project, user_config_dir
from mdmem.agents.launch import hook_runner
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
SETTINGS_MAX = 16 * 1024 * 1024  # bytes read of a settings file at most (Claude Code's are a few KB)
SCOPES = ("project", "local", "user")
BACKUP_SUFFIX = ".mdmem-backup"
_SUBCOMMAND = re.compile(r"[a-z][a-z-]*")
_CODE = "from mdmem.__main__ import main; main()"  # launch.HOOK_CODE, written by hook_runner


def _runs_mdmem(words: list[str]) -> bool:
    """Do ``words`` start mdmem, as :func:`~mdmem.agents.launch.runner` or ``hook_runner`` write it (the
    console script, ``python -m mdmem``, ``python [-P] -c <HOOK_CODE>``), and nothing else?"""
    if len(words) == 1:
        return os.path.basename(words[0]).lower() in ("mdmem", "mdmem.exe")
    rest = words[1:]
    while rest[:1] == ["-P"]:
        rest = rest[1:]
    return rest in (["-m", "mdmem"], ["-c", _CODE])


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
    skills: list | None = None  # skills.SkillAction per skill and folder: installed, not mdmem's, absent
    session: dict | None = None  # the current session's stop count, next checkpoint, pending checkpoint
    fired: dict | None = None  # per hook, its last run in the project and its last error (agents/hooks/fired.py)


# --- where ------------------------------------------------------------------

def settings_path(scope: str, project: str | os.PathLike | None = None) -> Path:
    if scope == "user":
        return user_config_dir() / "settings.json"
    if scope not in SCOPES:
        raise MdmemError(f"unknown scope {scope!r}: use one of {', '.join(SCOPES)}")
    name = "settings.json" if scope == "project" else "settings.local.json"
    return find_project(project) / ".claude" / name


def hook_command(subcommand: str, vault: str | os.PathLike, exe: str | None = None) -> str:
    """The command of one hook: ``exe`` when given, else :func:`~mdmem.agents.launch.hook_runner`
    (this interpreter with ``-P -c``: the hooks' start-up without the console script's imports)."""
    return f"{exe or hook_runner()} hook {subcommand} --vault {shlex.quote(str(Path(vault).absolute()))}"


def is_mdmem_hook(entry: object) -> bool:
    """An entry mdmem wrote: its command is, word for word, a way to start mdmem, ``hook <sub-command>`` and
    at most ``--vault <path>`` (what :func:`hook_command` writes, by this mdmem or an older one)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    try:
        words = shlex.split(entry["command"])
    except ValueError:
        return False
    for i, word in enumerate(words):
        if word == "hook" and i + 1 < len(words) and _SUBCOMMAND.fullmatch(words[i + 1]):
            tail = words[i + 2:]
            return _runs_mdmem(words[:i]) and (
                tail == [] or (len(tail) == 2 and tail[0] == "--vault") or
                (len(tail) == 1 and tail[0].startswith("--vault=")))
    return False


# --- reading ----------------------------------------------------------------

@dataclass
class SettingsFile:
    path: Path  # as addressed (may be a symlink)
    real: Path  # where the bytes live
    data: dict
    raw: bytes | None  # None: no file
    stamp: tuple[int, int] | None


def json_kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise ValueError(f"duplicate key {k!r}")
            seen.add(k)
    return data


def _check_hooks(data: dict, bad) -> None:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise bad(f'"hooks" must be an object, not {json_kind(hooks)}')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise bad(f'"hooks.{event}" must be an array, not {json_kind(groups)}')
        for i, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise bad(f'"hooks.{event}[{i}]" must be an object with a "hooks" array')


def load(path: Path, check=_check_hooks) -> SettingsFile:
    """Read a JSON settings file (a missing or empty one is ``{}``); ``check(data, bad)``
    validates the part mdmem will change (``bad(problem)`` makes the error)."""
    from mdmem.base.files import read_outside

    real = Path(os.path.realpath(path))
    try:
        st = os.stat(real)  # before reading: a change after this is caught at write time
        raw = read_outside(real, SETTINGS_MAX + 1)  # a regular file (a FIFO once hung the installer), bounded
        if len(raw) > SETTINGS_MAX:
            raise MdmemError(f"cannot read {path}: larger than {SETTINGS_MAX // (1024 * 1024)} MB; nothing was changed")
    except FileNotFoundError:
        return SettingsFile(path, real, {}, None, None)
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
    except RecursionError:
        raise bad("nested too deeply") from None
    if not isinstance(data, dict):
        raise bad(f"the top level must be an object, not {json_kind(data)}")
    check(data, bad)
    return SettingsFile(path, real, data, raw, (st.st_mtime_ns, st.st_size))


def _render(data: dict) -> str:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if json.loads(text) != data:  # cannot happen; the promise is never to write broken JSON
        raise MdmemError("internal error: the new settings do not read back; nothing was written")
    return text


def _save(settings: SettingsFile, text: str) -> str | None:
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


def _as_backed_up(settings: SettingsFile) -> str | None:
    """The backup's text when it holds exactly ``settings.data``, keys in the same order (mdmem takes out what it
    put in): written
    back as it was, the user's formatting and all, rather than re-rendered."""
    backup = settings.path.with_name(settings.path.name + BACKUP_SUFFIX)
    try:
        fd = os.open(backup, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            raw = os.read(fd, 16 << 20)
        finally:
            os.close(fd)
        text = raw.decode("utf-8")
        same = json.dumps(json.loads(text)) == json.dumps(settings.data)  # key order too, not only equal
        return text if same and text.strip() else None
    except (OSError, ValueError):
        return None


def finish(settings: SettingsFile, scope: str, actions: dict[str, str], dry_run: bool) -> InstallResult:
    changed = any(a in ("added", "updated", "removed") for a in actions.values())
    if not changed:
        content = settings.raw.decode("utf-8-sig") if settings.raw is not None else ""
        return InstallResult(str(settings.path), scope, actions, None, dry_run, content)
    content = _as_backed_up(settings) or _render(settings.data)
    backup = None if dry_run else _save(settings, content)
    return InstallResult(str(settings.path), scope, actions, backup, dry_run, content)


# --- the operations ---------------------------------------------------------

def install(scope: str, vault: str | os.PathLike, project: str | os.PathLike | None = None, *,
            hooks: dict[str, tuple[str | None, str]] = HOOKS, exe: str | None = None,
            dry_run: bool = False, prompt: bool = True) -> InstallResult:
    """Add mdmem's hook for each event of ``hooks``, or bring an existing one up to date. Without
    ``prompt`` the UserPromptSubmit hook is left out (and removed if an earlier install added it)."""
    settings = load(settings_path(scope, project))
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
            hook = [{"type": "command", "command": want, "timeout": TIMEOUT}]
            groups.append({"hooks": hook} if matcher is None else {"matcher": matcher, "hooks": hook})
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
    return finish(settings, scope, actions, dry_run)


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
    settings = load(settings_path(scope, project))
    removed = [event for event in list(settings.data.get("hooks", {}))
               if _drop_event(settings.data, event) == "removed"]
    if removed and not settings.data["hooks"]:
        del settings.data["hooks"]
    actions = {event: "removed" if event in removed else "absent" for event in hooks}
    actions.update({event: "removed" for event in removed})
    return finish(settings, scope, actions, dry_run)


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
    from mdmem.agents.claude import skills
    from mdmem.agents.hooks import session as hook_logic

    scopes, warnings = [], []
    for scope in SCOPES:
        path = settings_path(scope, project)
        error, data = None, {}
        try:
            data = load(path).data
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
        found = [ev.vault for sc in scopes for ev in sc.events.values() if ev.vault and ev.vault_exists]
        vault = found[0] if found else None
    info = hook_logic.session_status(str(Path(vault).absolute()), session) if vault else None
    from mdmem.agents.hooks import fired

    runs = fired.of(str(Path(vault).absolute()), "claude", str(find_project(project))) if vault else None
    return StatusResult(scopes, warnings, skills.status(project), info, runs)


MCP_NAME = "mdmem"  # the server's name in Claude Code's config (registration: mdmem.agents.claude.install)

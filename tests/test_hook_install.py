"""`mdmem hook install|uninstall|status`: merging mdmem's hooks into Claude Code settings files."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mdmem.agents.launch import HOOK_CODE

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample-vault"
def run_hook(*args, env: dict, cwd: Path, code: int = 0, exe: list[str] | None = None):
    """`python -m mdmem hook ARGS`: the real command line."""
    if exe is None:
        exe = [sys.executable, "-m", "mdmem", "hook"]
    proc = subprocess.run([*exe, *map(str, args)], check=False, capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=60)
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def run_json(*args, env: dict, cwd: Path) -> dict:
    return json.loads(run_hook(*args, "--json", env=env, cwd=cwd).stdout)


@pytest.fixture
def world(tmp_path: Path):
    """A home, a project (with .git) and a cwd inside it, a vault with a space in its name, and an env."""
    home, project, vault = tmp_path / "home", tmp_path / "proj", tmp_path / "my vault"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    home.mkdir()
    shutil.copytree(SAMPLE, vault, ignore=shutil.ignore_patterns(".mdmem"))
    env = {k: v for k, v in os.environ.items() if k not in ("MDMEM_VAULT", "MDMEM_HOME", "CLAUDE_CONFIG_DIR")}
    env["HOME"] = str(home)

    class World:
        pass

    w = World()
    w.home, w.project, w.vault, w.env, w.cwd = home, project, vault, env, project / "src"
    w.settings = project / ".claude" / "settings.local.json"  # the default scope: local
    w.project_settings = project / ".claude" / "settings.json"  # --scope project (shared, committed)
    return w


def command(vault: Path, sub: str = "stop") -> str:
    return f"{shlex.quote(sys.executable)} -P -c {shlex.quote(HOOK_CODE)} hook {sub} --vault {shlex.quote(str(vault))}"


def mdmem_group(vault: Path) -> dict:
    return {"hooks": [{"type": "command", "command": command(vault), "timeout": 10}]}


def session_group(vault: Path) -> dict:
    return {"matcher": "startup|resume|clear|compact",
            "hooks": [{"type": "command", "command": command(vault, "session-start"), "timeout": 10}]}


def plain_group(vault: Path, sub: str) -> dict:
    return {"hooks": [{"type": "command", "command": command(vault, sub), "timeout": 10}]}


def mdmem_hooks(vault: Path) -> dict:
    """What a fresh install writes under "hooks": a Stop group, a SessionStart group, then the prompt,
    pre-compact and session-end groups."""
    return {"Stop": [mdmem_group(vault)], "SessionStart": [session_group(vault)],
            "UserPromptSubmit": [plain_group(vault, "prompt")], "PreCompact": [plain_group(vault, "pre-compact")],
            "SessionEnd": [plain_group(vault, "session-end")]}


EVENTS = ("Stop", "SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd")


def both(action: str) -> dict:
    """Every event mdmem installs, with one action."""
    return {event: action for event in EVENTS}


def dump(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


EXISTING = {
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "bär"},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check-bash.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
    },
    "model": "opus",
}


# --- install ----------------------------------------------------------------

@pytest.mark.parametrize("scope", ["project", "local", "user", "config-dir"])
def test_fresh_install_into_each_scope(world, scope):
    where = {
        "project": world.project_settings,
        "local": world.settings,
        "user": world.home / ".claude" / "settings.json",
        "config-dir": world.home / "cfg" / "settings.json",
    }[scope]
    if scope == "config-dir":
        world.env["CLAUDE_CONFIG_DIR"] = str(world.home / "cfg")
    args = ["--scope", "user" if scope == "config-dir" else scope]
    out = run_json("install", *args, "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert out["path"] == str(where) and out["actions"] == both("added") and out["backup"] is None
    assert where.read_text() == out["content"] == dump({"hooks": mdmem_hooks(world.vault)})
    others = {world.project_settings, world.settings,
              world.home / ".claude" / "settings.json", world.home / "cfg" / "settings.json"} - {where}
    assert not any(p.exists() for p in others)


def test_default_scope_is_local(world):
    """Without --scope the hook goes to the personal .claude/settings.local.json: the command holds
    this machine's absolute paths, and .claude/settings.json is usually committed."""
    local = world.project / ".claude" / "settings.local.json"
    out = run_json("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert out["scope"] == "local" and out["path"] == str(local) and out["actions"] == both("added")
    assert local.read_text() == dump({"hooks": mdmem_hooks(world.vault)})
    assert not (world.project / ".claude" / "settings.json").exists()
    out = run_json("uninstall", env=world.env, cwd=world.cwd)
    assert out["scope"] == "local" and out["actions"] == both("removed") and local.read_text() == "{}\n"
    assert not (world.project / ".claude" / "settings.json").exists()


def test_vault_found_from_cwd_and_project_option(world, tmp_path):
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    out = run_json("install", "--project", elsewhere, env=world.env, cwd=world.vault / "memory")
    assert out["path"] == str(elsewhere / ".claude" / "settings.local.json")
    assert json.loads(out["content"]) == {"hooks": mdmem_hooks(world.vault)}


def test_no_vault_is_an_error(world):
    proc = run_hook("install", env=world.env, cwd=world.cwd, code=1)
    assert proc.stderr.startswith("mdmem: cannot install the hook: no vault found")
    assert "--vault" in proc.stderr and "mdmem init" in proc.stderr
    assert not world.settings.exists()


def test_install_twice_is_byte_identical(world):
    run_hook("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    before, mtime = world.settings.read_bytes(), world.settings.stat().st_mtime_ns
    out = run_json("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert out["actions"] == both("unchanged") and out["backup"] is None
    assert world.settings.read_bytes() == before and world.settings.stat().st_mtime_ns == mtime
    assert not world.settings.with_name(world.settings.name + ".mdmem-backup").exists()


def test_existing_settings_are_kept_and_backed_up(world):
    world.settings.parent.mkdir()
    old = json.dumps(EXISTING, indent=4)  # other formatting; no final newline
    world.settings.write_text(old)
    out = run_json("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert out["actions"] == both("added")
    want = json.loads(json.dumps(EXISTING))
    want["hooks"]["Stop"].append(mdmem_group(world.vault))  # after the user's own Stop group
    for event, groups in mdmem_hooks(world.vault).items():  # new events go last, in order
        if event != "Stop":
            want["hooks"][event] = groups
    assert world.settings.read_text() == dump(want)  # same keys, same order, same other hooks
    assert out["backup"] == str(world.settings) + ".mdmem-backup"
    assert Path(out["backup"]).read_text() == old
    # and uninstall gives the original file back, byte for byte (its own formatting: the backup's bytes)
    assert run_json("uninstall", env=world.env, cwd=world.cwd)["actions"] == both("removed")
    assert world.settings.read_text() == old
    assert Path(out["backup"]).read_text() == dump(want)  # the backup is overwritten each time


def test_stale_command_is_updated_in_place(world):
    stale = {"type": "command", "command": "/old/bin/mdmem hook stop --vault /old", "timeout": 30}
    dupe = {"type": "command", "command": "python3 -m mdmem hook stop --vault /older"}
    data = {"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "before.sh"}, stale,
                   {"type": "command", "command": "after.sh"}]},
        {"hooks": [dupe]},
    ]}}
    world.settings.parent.mkdir()
    world.settings.write_text(dump(data))
    out = run_json("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert out["actions"] == both("added") | {"Stop": "updated"}
    stale["command"] = command(world.vault)  # same place, the user's timeout kept; the duplicate is gone
    assert world.settings.read_text() == dump({"hooks": mdmem_hooks(world.vault) | {
        "Stop": [data["hooks"]["Stop"][0]]}})
    assert run_json("install", "--vault", world.vault, env=world.env, cwd=world.cwd)["actions"] == both(
        "unchanged")


@pytest.mark.parametrize("text, problem", [
    ('{"hooks": {', "not valid JSON"),
    ('{"model": "a", "model": "b"}', "duplicate key 'model'"),
    ("[]", "the top level must be an object, not an array"),
    ('{"hooks": []}', '"hooks" must be an object, not an array'),
    ('{"hooks": {"Stop": {}}}', '"hooks.Stop" must be an array, not an object'),
    ('{"hooks": {"Stop": ["echo"]}}', '"hooks.Stop[0]" must be an object with a "hooks" array'),
    ('{"hooks": {"Stop": [{"hooks": {}}]}}', '"hooks.Stop[0]" must be an object with a "hooks" array'),
])
@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_bad_files_are_refused_and_untouched(world, text, problem, action):
    world.settings.parent.mkdir()
    world.settings.write_text(text)
    extra = ["--vault", world.vault] if action == "install" else []
    proc = run_hook(action, *extra, env=world.env, cwd=world.cwd, code=1)
    assert proc.stderr.startswith(f"mdmem: {world.settings}: ")
    assert problem in proc.stderr and "nothing was changed" in proc.stderr and proc.stdout == ""
    assert world.settings.read_text() == text
    assert sorted(p.name for p in world.settings.parent.iterdir()) == [world.settings.name]


def test_empty_file_counts_as_empty_settings(world):
    world.settings.parent.mkdir()
    world.settings.write_text("")
    out = run_json("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert out["actions"] == both("added") and Path(out["backup"]).read_text() == ""


@pytest.mark.slow
def test_dry_run_writes_nothing(world):
    out = run_json("install", "--dry-run", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert out["dry_run"] is True and out["actions"] == both("added") and out["backup"] is None
    assert not (world.project / ".claude").exists()
    real = run_json("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert real["content"] == out["content"] == world.settings.read_text()
    before = world.settings.read_bytes()
    gone = run_json("uninstall", "--dry-run", env=world.env, cwd=world.cwd)
    assert gone["actions"] == both("removed") and gone["content"] == "{}\n"
    assert world.settings.read_bytes() == before
    moved = world.vault.parent / "moved vault"
    (moved / "memory").mkdir(parents=True)
    text = run_hook("install", "--dry-run", "--vault", moved, env=world.env, cwd=world.cwd).stdout
    assert text.startswith("".join(f"{e}: updated\n" for e in EVENTS) + f"dry run: would write {world.settings}:\n{{")


# --- uninstall --------------------------------------------------------------

@pytest.mark.slow
def test_uninstall_keeps_other_hooks_and_drops_empties(world):
    ours = {"type": "command", "command": command(world.vault)}
    data = {"model": "opus", "hooks": {
        "Stop": [{"hooks": [ours]}, {"hooks": [{"type": "command", "command": "keep.sh"}, dict(ours)]}],
        "SessionStart": [{"matcher": "startup", "hooks": [
            {"type": "command", "command": command(world.vault, "session-start")}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": []}],
    }}
    world.settings.parent.mkdir()
    world.settings.write_text(dump(data))
    out = run_json("uninstall", env=world.env, cwd=world.cwd)
    assert out["actions"] == both("absent") | {"Stop": "removed", "SessionStart": "removed"}
    assert world.settings.read_text() == dump({"model": "opus", "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "keep.sh"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": []}],  # not mdmem's doing: left alone
    }})
    run_hook("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    world.settings.write_text(dump({"hooks": {"Stop": [mdmem_group(world.vault)]}}))
    run_hook("uninstall", env=world.env, cwd=world.cwd)
    assert world.settings.read_text() == "{}\n"  # the file stays, emptied of mdmem


@pytest.mark.slow
def test_uninstall_when_absent(world):
    out = run_json("uninstall", "--scope", "local", env=world.env, cwd=world.cwd)
    assert out["actions"] == both("absent") and out["backup"] is None and out["content"] == ""
    assert not (world.project / ".claude").exists()
    world.settings.parent.mkdir()
    world.settings.write_text(json.dumps(EXISTING))
    before = world.settings.read_bytes()
    assert run_json("uninstall", env=world.env, cwd=world.cwd)["actions"] == both("absent")
    assert world.settings.read_bytes() == before
    assert run_hook("uninstall", env=world.env, cwd=world.cwd).stdout == (
        "".join(f"{e}: absent\n" for e in EVENTS) + f"nothing to change in {world.settings}\n")


# --- status -----------------------------------------------------------------

@pytest.mark.slow
def test_status(world):
    run_hook("install", "--scope", "project", "--vault", world.vault, env=world.env, cwd=world.cwd)
    world.settings.write_text("{oops")
    out = run_json("status", env=world.env, cwd=world.cwd)
    missing = {"installed": False, "command": None, "vault": None, "vault_exists": None}
    subs = dict(zip(EVENTS, ("stop", "session-start", "prompt", "pre-compact", "session-end")))
    skills = [{"name": n, "path": str(base / ".claude" / "skills" / n / "SKILL.md"), "action": "absent"}
              for base in (world.project, world.home) for n in ("memory-check", "consolidate", "mdmem-memory")]
    assert out == {"warnings": [], "scopes": [
        {"scope": "project", "path": str(world.project_settings), "exists": True, "error": None, "events": {
            e: {"installed": True, "command": command(world.vault, subs[e]), "vault": str(world.vault),
                "vault_exists": True} for e in EVENTS}},
        {"scope": "local", "path": str(world.settings), "exists": True,
         "error": "not valid JSON (Expecting property name enclosed in double quotes at line 1 column 2)",
         "events": {e: missing for e in EVENTS}},
        {"scope": "user", "path": str(world.home / ".claude" / "settings.json"), "exists": False,
         "error": None,
         "events": {e: missing for e in EVENTS}},
    ], "skills": skills, "session": {"vault": str(world.vault), "session": None, "stops": 0, "next": None,
                                     "pending": None, "prompt_notes": 0, "review": None}, "fired": {}}
    shutil.rmtree(world.vault)
    proc = run_hook("status", env=world.env, cwd=world.cwd)
    assert proc.stdout == (
        f"project: {world.project_settings}\n"
        + "".join(f"  {e}: installed: {command(world.vault, subs[e])}\n" for e in EVENTS)
        + f"local: {world.settings} (error: not valid JSON (Expecting property name enclosed in double quotes "
        "at line 1 column 2))\n"
        + "".join(f"  {e}: not installed\n" for e in EVENTS)
        + f"user: {world.home / '.claude' / 'settings.json'} (no file)\n"
        + "".join(f"  {e}: not installed\n" for e in EVENTS))
    assert proc.stderr == "".join(f"mdmem: warning: project scope: the {e} hook points at {world.vault}, "
                                  "which is not a folder\n" for e in EVENTS)


def test_home_is_not_a_project(world, tmp_path):
    """~/.claude is the user's configuration: outside any repository the project is the cwd."""
    (world.home / ".claude").mkdir()
    (world.home / "notes").mkdir()
    out = run_json("status", env=world.env, cwd=world.home / "notes")
    assert out["scopes"][0]["path"] == str(world.home / "notes" / ".claude" / "settings.json")


# --- files on disk ------------------------------------------------------------

def test_file_mode_is_kept(world):
    world.settings.parent.mkdir()
    world.settings.write_text("{}")
    world.settings.chmod(0o600)
    backup = world.settings.with_name(world.settings.name + ".mdmem-backup")
    backup.write_text("an older backup")
    backup.chmod(0o644)
    out = run_json("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert stat.S_IMODE(world.settings.stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(out["backup"]).stat().st_mode) == 0o600  # settings may hold secrets


def test_symlinked_settings_are_written_through(world, tmp_path):
    """Decision: a symlinked settings file (dotfiles) stays a link; its target gets the new text;
    the backup sits beside the link, not in the dotfiles folder."""
    target = tmp_path / "dotfiles" / "claude.json"
    target.parent.mkdir()
    target.write_text(dump(EXISTING))
    target.chmod(0o640)
    link = world.home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(target)
    out = run_json("install", "--scope", "user", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == out["content"] and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert out["backup"] == str(link) + ".mdmem-backup" and Path(out["backup"]).read_text() == dump(EXISTING)
    assert sorted(p.name for p in target.parent.iterdir()) == ["claude.json"]
    run_hook("uninstall", "--scope", "user", env=world.env, cwd=world.cwd)
    assert link.is_symlink() and target.read_text() == dump(EXISTING)


@pytest.mark.slow
def test_hooks_start_with_the_interpreter_not_the_console_script(world, tmp_path):
    """Installed from the console script on PATH, the hooks run its interpreter with `-P -c` (the
    console script pip writes imports `re` before mdmem runs: measured 2.26x `python -c pass` for a
    quiet Stop hook under load, 1.37x this way); a second install recognises them, and an older
    install's console-script commands are brought up to date."""
    bindir = tmp_path / "bin dir"
    bindir.mkdir()
    script = bindir / "mdmem"
    script.write_text(f"#!{sys.executable}\nfrom mdmem.__main__ import main\nmain()\n")
    script.chmod(0o755)
    world.env["PATH"] = f"{bindir}{os.pathsep}{world.env.get('PATH', '')}"
    out = json.loads(run_hook("install", "--vault", world.vault, "--json", exe=[str(script), "hook"],
                              env=world.env, cwd=world.cwd).stdout)
    vault, exe = shlex.quote(str(world.vault)), f"{shlex.quote(sys.executable)} -P -c {shlex.quote(HOOK_CODE)}"
    assert json.loads(out["content"]) == {"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": f"{exe} hook stop --vault {vault}", "timeout": 10}]}],
        "SessionStart": [{"matcher": "startup|resume|clear|compact", "hooks": [
            {"type": "command", "command": f"{exe} hook session-start --vault {vault}", "timeout": 10}]}],
        **{event: [{"hooks": [{"type": "command", "command": f"{exe} hook {sub} --vault {vault}", "timeout": 10}]}]
           for event, sub in (("UserPromptSubmit", "prompt"), ("PreCompact", "pre-compact"),
                              ("SessionEnd", "session-end"))}}}
    again = run_hook("install", "--vault", world.vault, "--json", exe=[str(script), "hook"],
                     env=world.env, cwd=world.cwd)
    assert json.loads(again.stdout)["actions"] == both("unchanged")  # the -P -c command is recognised
    old = json.loads(out["content"])
    for groups in old["hooks"].values():
        for hook in groups[0]["hooks"]:
            hook["command"] = hook["command"].replace(exe, shlex.quote(str(script)))  # as an older mdmem wrote it
    settings = world.settings
    settings.write_text(dump(old))
    updated = run_hook("install", "--vault", world.vault, "--json", exe=[str(script), "hook"], env=world.env,
                       cwd=world.cwd)
    assert json.loads(updated.stdout)["actions"] == both("updated")
    assert json.loads(settings.read_text()) == json.loads(out["content"])
    # the installed command runs the hook as Claude Code would (argv: -c hook stop ...)
    stop = shlex.split(json.loads(settings.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"])
    quiet = subprocess.run(stop, input='{"stop_hook_active": true}', capture_output=True, text=True, env=world.env,
                           cwd=world.cwd, timeout=60)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_more_events_are_a_one_line_change(world):
    """HOOKS is caller-supplied: one more line (a hypothetical event) gets its own group, in
    HOOKS order, next to the real ones; a stale SessionStart matcher is brought up to date.
    (The hypothetical event reuses the `stop` sub-command; is_mdmem_hook takes any lower-case sub-command.)"""
    from mdmem.agents.claude.settings import HOOKS, install, uninstall

    hooks = {**HOOKS, "SubagentStop": (None, "stop")}  # the one line
    world.project_settings.parent.mkdir()
    world.project_settings.write_text(dump({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": command(world.vault, "session-start")}]}]}}))
    result = install("project", world.vault, world.project, hooks=hooks, exe="mdmem")
    assert result.actions == both("added") | {"SessionStart": "updated", "SubagentStop": "added"}
    vault = shlex.quote(str(world.vault))
    plain = lambda sub: [{"hooks": [  # noqa: E731
        {"type": "command", "command": f"mdmem hook {sub} --vault {vault}", "timeout": 10}]}]
    assert json.loads(result.content) == {"hooks": {
        "SessionStart": [{"matcher": "startup|resume|clear|compact", "hooks": [
            {"type": "command", "command": f"mdmem hook session-start --vault {vault}"}]}],
        "Stop": plain("stop"), "UserPromptSubmit": plain("prompt"), "PreCompact": plain("pre-compact"),
        "SessionEnd": plain("session-end"), "SubagentStop": plain("stop")}}
    again = install("project", world.vault, world.project, hooks=hooks, exe="mdmem")
    assert again.actions == both("unchanged") | {"SubagentStop": "unchanged"}
    assert again.content == result.content
    gone = uninstall("project", world.project, hooks=hooks)
    assert gone.actions == both("removed") | {"SubagentStop": "removed"}
    assert gone.content == "{}\n"


def test_usage_errors_exit_2(world):
    proc = run_hook("install", "--scope", "global", env=world.env, cwd=world.cwd, code=2)
    assert "choose project, local, user" in proc.stderr
    proc = run_hook("uninstall", "--bogus", env=world.env, cwd=world.cwd, code=2)
    assert "No such option: --bogus" in proc.stderr
    proc = run_hook("status", "--project", world.project / "nope", env=world.env, cwd=world.cwd, code=1)
    assert proc.stderr == f"mdmem: project folder {world.project / 'nope'} is not a folder\n"


@pytest.mark.slow
def test_prompt_hook_is_opt_out(world):
    """`--no-prompt` installs every hook but UserPromptSubmit, and takes an earlier one away."""
    run_hook("install", "--vault", world.vault, env=world.env, cwd=world.cwd)
    out = run_json("install", "--no-prompt", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert out["actions"] == both("unchanged") | {"UserPromptSubmit": "removed"}
    want = mdmem_hooks(world.vault)
    del want["UserPromptSubmit"]
    assert world.settings.read_text() == dump({"hooks": want})
    again = run_json("install", "--no-prompt", "--vault", world.vault, env=world.env, cwd=world.cwd)
    assert again["actions"] == both("unchanged") | {"UserPromptSubmit": "absent"} and again["backup"] is None
    assert run_json("install", "--vault", world.vault, env=world.env, cwd=world.cwd)["actions"] == \
        both("unchanged") | {"UserPromptSubmit": "added"}
    back = json.loads(world.settings.read_text())["hooks"]
    assert back == mdmem_hooks(world.vault) and list(back)[-1] == "UserPromptSubmit"  # a new event goes last

"""What a new user's trial of the checkpoint found, each through the real CLI and hooks on a copy of the
sample vault: a partial accept leaves only what is still pending (under the number the user saw); a hand run
of `mdmem checkpoint TRANSCRIPT` stays off the agents' cards; a suggestion holding a secret is marked when it is
proposed, and every command mdmem prints for it carries `--session` and `--vault`; `mdmem hook NAME --help`
prints the hook's usage."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from support import SESSION

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789AB"  # a made-up value of a GitHub token's shape
THREE = {"dimensions": [3, 6, 7], "candidates": [
    {"type": "protocol", "dimension": 3, "name": "Alembic generates migrations",
     "description": "Never hand-edit migrations", "body": "Generate migrations with alembic; never edit them by hand."},
    {"type": "feedback", "dimension": 6, "name": "Short replies", "description": "Keep replies under ten lines",
     "body": "Keep replies under ten lines."},
    {"type": "reference", "dimension": 7, "name": "GitHub deploy token", "description": "The deploy token",
     "body": f"token: {TOKEN}"}]}
RUN = f"{shlex.quote(sys.executable)} -m mdmem"  # how a process of this interpreter starts mdmem (no console script)


def mdmem(*args, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m mdmem ARGS`` as Claude Code or a person runs it: a separate process (the hooks' fast path)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {"MDMEM_HOME": os.environ["MDMEM_HOME"]}
    return subprocess.run([sys.executable, "-m", "mdmem", *map(str, args)], input=stdin, capture_output=True,
                          text=True, env=env, timeout=120, cwd=cwd)


def card(vault: Path, session: str = "sess2", source: str = "startup") -> str:
    proc = mdmem("hook", "session-start", "--vault", vault,
                 stdin=json.dumps({"session_id": session, "source": source, "hook_event_name": "SessionStart"}))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


def pending_block(text: str) -> list[str]:
    """The card's pending checkpoint: its head, its suggestions and the instruction line; [] when none."""
    head = "## Pending memory checkpoint"
    return text[text.index(head):].rstrip("\n").splitlines() if head in text else []


def stored(vault: Path, session: str) -> dict:
    return json.loads((vault / ".mdmem" / "checkpoints" / f"{session}.json").read_text())


@pytest.mark.slow
def test_a_hand_run_stays_off_the_cards_and_accept_still_takes_it(vault: Path, tmp_path: Path):
    talk = tmp_path / "talk.txt"
    talk.write_text(SESSION)
    ran = mdmem("checkpoint", talk, "--vault", vault)
    assert ran.returncode == 0 and ran.stdout.startswith("[Checkpoint] This conversation hit ")
    assert ran.stdout.rstrip("\n").endswith('Save which? Reply with numbers (e.g. 1,2) or "skip".')
    assert " ".join(ran.stderr.split()) == (
        f"To save: `{RUN} checkpoint accept 1,2 --session talk --vault {vault}` (with the numbers chosen); to "
        f"discard them: `{RUN} checkpoint skip --session talk --vault {vault}`.")
    assert stored(vault, "talk")["origin"] == "hand" and stored(vault, "talk")["status"] == "pending"
    assert pending_block(card(vault)) == [] and pending_block(card(vault, "talk", "compact")) == []
    status = json.loads(mdmem("hook", "status", "--vault", vault, "--session", "talk", "--json").stdout)
    assert status["session"]["pending"]["kept_by"] == "a hand run of `mdmem checkpoint`, not shown on the card"
    # the PreCompact hook keeps no suggestions of its own: it records what no scan covered, for a model to review
    pre = mdmem("hook", "pre-compact", "--vault", vault, stdin=json.dumps(
        {"session_id": "s1", "transcript_path": str(talk), "cwd": str(tmp_path), "hook_event_name": "PreCompact",
         "trigger": "auto"}))
    assert pre.returncode == 0 and not (vault / ".mdmem" / "checkpoints" / "s1.json").exists()
    assert pending_block(card(vault)) == []
    # the hand run's numbers still work with --session
    saved = mdmem("checkpoint", "accept", "1", "--session", "talk", "--vault", vault)
    assert saved.returncode == 0 and saved.stderr.strip() == ("1. for CLAUDE.md (add it yourself): - never edit files "
                                                               "under migrations/ by hand; generate them with alembic.")


@pytest.mark.slow
def test_an_offline_suggestion_never_carries_a_secret_the_user_typed(tmp_path: Path):
    """A new user's trial: a token in the user's message made the offline suggestion "Chose use ghp_… over …".
    The rule the user stated is quoted redacted, so no hook state, stored checkpoint or card holds it."""
    vault = tmp_path / "v"
    assert mdmem("init", vault).returncode == 0

    def rec(kind: str, text: str, n: int) -> str:
        content = text if kind == "user" else [{"type": "text", "text": text}]
        return json.dumps({"type": kind, "message": {"role": kind, "content": content, "id": f"m{n}"},
                           "sessionId": "s1", "uuid": f"u{n}"})

    talk = tmp_path / "s1.jsonl"
    talk.write_text("\n".join([
        rec("user", "The deploy needs a token.", 1),
        rec("assistant", "Which one should I use?", 2),
        rec("user", f"From now on, always deploy with {TOKEN} instead of a fresh token.", 3),
        rec("assistant", "Understood.", 4)]) + "\n")
    event = {"session_id": "s1", "transcript_path": str(talk), "cwd": str(tmp_path)}
    stop = mdmem("hook", "stop", "--vault", vault, stdin=json.dumps(event | {"hook_event_name": "Stop"}))
    assert stop.returncode == 0 and stop.stdout == ""  # the session's first stop: within the budget
    pre = mdmem("hook", "pre-compact", "--vault", vault,
                stdin=json.dumps(event | {"hook_event_name": "PreCompact", "trigger": "auto"}))
    assert pre.returncode == 0 and pre.stderr == ""
    hooks = vault / ".mdmem" / "hooks"  # the hooks' own state keeps no token: offsets and counts
    assert all(TOKEN not in p.read_text() for p in hooks.iterdir() if p.suffix == ".json")
    hand = mdmem("checkpoint", talk, "--session", "s1", "--vault", vault)
    assert hand.returncode == 0
    [rule] = stored(vault, "s1")["candidates"]
    assert "[GitHub token redacted]" in rule["body"] and rule["type"] == "claude-md"
    saved = mdmem("checkpoint", "accept", "all", "--session", "s1", "--vault", vault)
    assert saved.returncode == 0  # a CLAUDE.md line: proposed to the user, not written
    leaked = [p.relative_to(vault) for p in vault.rglob("*") if p.is_file() and "ghp_" in p.read_text(errors="replace")]
    assert leaked == []


HOOKS = {"stop": "--vault, --agent, --policy, --output", "session-start": "--vault, --agent, --budget",
         "prompt": "--vault, --agent", "pre-compact": "--vault, --agent", "session-end": "--vault, --agent"}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HOOKS))
def test_hook_help_prints_its_usage_and_unknown_options_fail_open(name: str, vault: Path, cli):
    for flag in ("--help", "-h"):
        proc = mdmem("hook", name, flag)
        assert proc.returncode == 0 and proc.stderr == ""
        assert proc.stdout.startswith(f"usage: mdmem hook {name} [--vault PATH]")
        assert "stdin (Claude Code's JSON): session_id" in proc.stdout and "  -h, --help     this help\n" in proc.stdout
        assert cli("hook", name, flag).stdout == proc.stdout  # the Typer app hands it to the same fast path
    bogus = mdmem("hook", name, "--policy" if name != "stop" else "--budget", "x", "--vault", vault, stdin="{}")
    assert bogus.returncode == 0 and bogus.stdout == ""
    option = "--policy" if name != "stop" else "--budget"
    assert bogus.stderr == (f"mdmem hook {name}: unknown option '{option}' "
                            f"(known: {HOOKS[name]}, --help, -h)\n")


@pytest.mark.slow
def test_propose_drops_a_secret_saying_why_on_stdout_and_keeps_nothing_of_it(vault: Path):
    import anyio
    from mcp import Client

    from mdmem.mcp_server import build_server

    en = mdmem("checkpoint", "propose", "--session", "en1", "--vault", vault, stdin=json.dumps(THREE))
    lines = en.stdout.splitlines()
    assert en.returncode == 0 and lines[0].startswith("[Checkpoint] This conversation hit") and len(lines) == 5
    assert lines[3] == ("not kept: GitHub deploy token (holds a secret (line 1: a GitHub token): not kept; propose it "
                        "again without the secret)")  # inside the list the model shows, never the value
    pt = mdmem("checkpoint", "propose", "--session", "pt1", "--lang", "pt", "--vault", vault, stdin=json.dumps(THREE))
    assert "não guardada: GitHub deploy token (holds a secret (line 1: a GitHub token)" in pt.stdout

    async def go():
        async with Client(build_server(vault), mode="legacy") as client:
            got = json.loads((await client.call_tool("checkpoint_propose", {
                "candidates": THREE["candidates"], "session": "m1", "dimensions": [3, 6, 7]})).content[0].text)
            assert "not kept: GitHub deploy token (holds a secret" in got["text"] and len(got["candidates"]) == 2

    anyio.run(go)
    leaked = [p for p in (vault / ".mdmem").rglob("*") if p.is_file() and TOKEN in p.read_text(errors="replace")]
    assert leaked == [] and TOKEN not in en.stdout + en.stderr


@pytest.mark.slow
def test_a_second_propose_revises_what_is_pending(vault: Path):
    """A model that proposed a wrong candidate corrects it: the same name replaces it, or "replaces": [N];
    the answer lists everything pending now."""
    first = {"candidates": [
        {"type": "protocol", "name": "Never run git init", "description": "modelled on git log",
         "body": "The repository exists already."},
        {"type": "feedback", "name": "Keep replies short", "body": "Under ten lines."}]}
    mdmem("checkpoint", "propose", "--session", "r1", "--vault", vault, stdin=json.dumps(first))
    fixed = {"replaces": [2], "candidates": [
        {"type": "protocol", "name": "Never run git init", "description": "The repository exists; write Conventional "
         "Commits", "body": "Never `git init`: the repository exists. Commit messages follow Conventional Commits."},
        {"type": "feedback", "name": "Replies under ten lines", "body": "Keep replies under ten lines."}]}
    out = mdmem("checkpoint", "propose", "--session", "r1", "--vault", vault, stdin=json.dumps(fixed))
    assert out.stdout.splitlines()[1:3] == [
        "1. [protocol] ③ Never run git init — The repository exists; write Conventional Commits",
        "2. [feedback] ⑥ Replies under ten lines — Keep replies under ten lines"]
    assert [c["name"] for c in stored(vault, "r1")["candidates"]] == ["Never run git init", "Replies under ten lines"]
    saved = mdmem("checkpoint", "accept", "all", "--session", "r1", "--vault", vault)
    assert saved.returncode == 0 and "Conventional Commits" in (vault / "memory" / "protocols" /
                                                                "never-run-git-init.md").read_text()

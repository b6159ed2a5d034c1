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
MARKED = "3. [reference] ⑦ GitHub deploy token — The deploy token (holds a secret: refused unless --allow-secret)"


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


def test_a_partial_accept_leaves_only_the_refused_suggestion_pending_under_its_number(vault: Path):
    listed = mdmem("checkpoint", "propose", "--session", "sess1", "--vault", vault, stdin=json.dumps(THREE))
    assert listed.returncode == 0 and listed.stdout.splitlines()[3] == MARKED
    got = mdmem("checkpoint", "accept", "1,2,3", "--session", "sess1", "--vault", vault, "--json")
    assert got.returncode == 1
    result = json.loads(got.stdout)
    assert [(a["number"], a["status"]) for a in result["accepted"]] == [(1, "created"), (2, "created"), (3, "refused")]
    assert result["pending"] == [3] and result["skipped"] == []
    assert result["accepted"][2]["message"] == (
        "the text holds what looks like a secret (line 1: a GitHub token); nothing was written. If it is not a "
        f"secret, or to keep it knowingly: `{RUN} checkpoint accept 3 --allow-secret --session sess1 --vault "
        f"{vault}` (the user, on the command line; never over MCP); it stays pending")
    # the card of a later session lists #3 alone, marked, and asks for it by its number
    block = pending_block(card(vault))
    assert block[:3] == ["## Pending memory checkpoint (session sess1)", "Suggested memories, not saved yet:", MARKED]
    assert block[3].startswith("(mdmem) Show the user these suggested memories") and len(block) == 4
    assert f"checkpoint accept 3 --session sess1 --vault {vault}`" in block[3]
    assert f"checkpoint skip --session sess1 --vault {vault}`" in block[3]
    status = mdmem("hook", "status", "--vault", vault, "--session", "sess1", "--json")
    assert json.loads(status.stdout)["session"]["pending"]["candidates"] == ["3. [reference] GitHub deploy token"]
    # saved numbers are not accepted twice: a retry answers "already saved" and writes nothing
    notes = {p: p.read_bytes() for p in (vault / "memory").rglob("*.md")}
    again = json.loads(mdmem("checkpoint", "accept", "1,2", "--session", "sess1", "--vault", vault, "--json").stdout)
    assert [(a["number"], a["status"], a["message"]) for a in again["accepted"]] == [
        (1, "unchanged", "already saved by an earlier accept: nothing changed"),
        (2, "unchanged", "already saved by an earlier accept: nothing changed")]
    assert {p: p.read_bytes() for p in (vault / "memory").rglob("*.md")} == notes
    # ... but #3, not chosen this time, is discarded as a not-chosen suggestion always is
    assert again["skipped"] == [3] and again["pending"] == [] and stored(vault, "sess1")["status"] == "accepted"
    assert pending_block(card(vault)) == []


def test_skip_after_a_partial_accept_discards_what_is_left(vault: Path):
    mdmem("checkpoint", "propose", "--session", "sess1", "--vault", vault, stdin=json.dumps(THREE))
    assert mdmem("checkpoint", "accept", "1,2,3", "--session", "sess1", "--vault", vault).returncode == 1
    skipped = mdmem("checkpoint", "skip", "--vault", vault)  # the newest pending one: sess1
    assert skipped.returncode == 0 and skipped.stderr.strip() == "discarded 1 suggestion(s) of session sess1"
    data = stored(vault, "sess1")
    assert data["status"] == "skipped" and data["candidates"] == []
    assert [(c["number"], (c.get("result") or {}).get("status")) for c in data["done"]] == [
        (1, "created"), (2, "created"), (3, None)]
    assert pending_block(card(vault)) == []
    # proposed again in the session: none of the three comes back (saved, or skipped by the user)
    again = json.loads(mdmem("checkpoint", "propose", "--session", "sess1", "--vault", vault, "--json",
                             stdin=json.dumps(THREE)).stdout)
    assert again["candidates"] == [] and [d["reason"] for d in again["dropped"]][2] == \
        "already proposed in this session"


def test_accept_all_with_allow_secret_saves_the_pending_one_knowingly(vault: Path):
    mdmem("checkpoint", "propose", "--session", "sess1", "--vault", vault, stdin=json.dumps(THREE))
    mdmem("checkpoint", "accept", "1,2,3", "--session", "sess1", "--vault", vault)
    bad = mdmem("checkpoint", "accept", "4", "--session", "sess1", "--vault", vault)
    assert bad.returncode == 2 and "'4' is not a candidate number (1-3)" in bad.stderr
    ok = json.loads(mdmem("checkpoint", "accept", "all", "--allow-secret", "--session", "sess1", "--vault", vault,
                          "--json").stdout)
    assert [(a["number"], a["status"]) for a in ok["accepted"]] == [(3, "created")]  # all = what is pending
    assert TOKEN in (vault / ok["accepted"][0]["path"]).read_text()
    assert stored(vault, "sess1")["status"] == "accepted" and pending_block(card(vault)) == []


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
    # what the hooks keep is shown: the PreCompact hook on the same transcript puts the session on the card
    pre = mdmem("hook", "pre-compact", "--vault", vault, stdin=json.dumps(
        {"session_id": "s1", "transcript_path": str(talk), "cwd": str(tmp_path), "hook_event_name": "PreCompact",
         "trigger": "auto"}))
    assert pre.returncode == 0 and stored(vault, "s1")["origin"] == "PreCompact"
    assert pending_block(card(vault))[0] == ("## Pending memory checkpoint (session s1, kept before the "
                                             "conversation was compacted)")
    # the hand run's numbers still work with --session
    saved = mdmem("checkpoint", "accept", "1", "--session", "talk", "--vault", vault)
    assert saved.returncode == 0 and saved.stderr.strip() == \
        "1. saved memory/decisions/decision-chose-sqs-over-redis.md (decision)"


def test_propose_marks_a_secret_in_english_portuguese_and_over_mcp(vault: Path):
    import anyio
    from mcp import Client

    from mdmem.mcp_server import build_server

    pt = mdmem("checkpoint", "propose", "--session", "pt1", "--lang", "pt", "--vault", vault, stdin=json.dumps(THREE))
    assert pt.stdout.splitlines()[3] == ("3. [reference] ⑦ GitHub deploy token — The deploy token (contém um segredo: "
                                         "recusada sem --allow-secret)")
    assert stored(vault, "pt1")["candidates"][2]["secret"] == "line 1: a GitHub token"
    assert [c.get("secret") for c in stored(vault, "pt1")["candidates"][:2]] == [None, None]

    async def go():
        async with Client(build_server(vault), mode="legacy") as client:
            got = json.loads((await client.call_tool("checkpoint_propose", {
                "candidates": THREE["candidates"], "session": "m1", "dimensions": [3, 6, 7]})).content[0].text)
            assert got["text"].splitlines()[3] == ("3. [reference] ⑦ GitHub deploy token — The deploy token (holds a "
                                                   "secret: refused unless allow_secret)")

    anyio.run(go)


def test_an_offline_suggestion_never_carries_a_secret_the_user_typed(tmp_path: Path):
    """A new user's trial: a token in the user's message made the offline suggestion "Chose use ghp_… over …".
    What the detectors quote is redacted, so no hook output, card, stored checkpoint or accepted note holds it."""
    vault = tmp_path / "v"
    assert mdmem("init", vault).returncode == 0

    def rec(kind: str, text: str, n: int) -> str:
        content = text if kind == "user" else [{"type": "text", "text": text}]
        return json.dumps({"type": kind, "message": {"role": kind, "content": content, "id": f"m{n}"},
                           "sessionId": "s1", "uuid": f"u{n}"})

    talk = tmp_path / "s1.jsonl"
    talk.write_text("\n".join([
        rec("user", f"The deploy needs a token. Should we use {TOKEN} or a fresh one?", 1),
        rec("assistant", f"We decided to use {TOKEN} instead of a fresh token because it already has the scopes.", 2),
        rec("user", "no, don't paste the whole diff back to me, just say which files changed.", 3),
        rec("assistant", "Understood.", 4)]) + "\n")
    event = {"session_id": "s1", "transcript_path": str(talk), "cwd": str(tmp_path)}
    stop = mdmem("hook", "stop", "--vault", vault, "--policy", "evidence",
                 stdin=json.dumps(event | {"hook_event_name": "Stop"}))
    hint = '- ④ msg 1 (assistant): "We decided to use [GitHub token redacted] instead of a fresh token because it'
    assert stop.returncode == 0 and hint in json.loads(stop.stdout)["reason"]
    pre = mdmem("hook", "pre-compact", "--vault", vault,
                stdin=json.dumps(event | {"hook_event_name": "PreCompact", "trigger": "auto"}))
    assert pre.returncode == 0 and pre.stderr == ""
    assert [(c["name"], c["secret"]) for c in stored(vault, "s1")["candidates"]] == [
        ("Chose use [GitHub token redacted] over a fresh token", None),
        ("No, don't paste the whole diff back to me", None)]
    assert pending_block(card(vault, "s2"))[2] == (
        "1. [decision] ④ Chose use [GitHub token redacted] over a fresh token — use [GitHub token redacted] over "
        "a fresh token: it already has the scopes")
    saved = mdmem("checkpoint", "accept", "all", "--session", "s1", "--vault", vault)
    assert saved.returncode == 0 and saved.stderr.splitlines()[0] == (
        "1. saved memory/decisions/decision-chose-use-github-token-redacted-over-a-fresh-token.md (decision)")
    note = (vault / "memory" / "decisions" / "decision-chose-use-github-token-redacted-over-a-fresh-token.md")
    assert "We decided to use [GitHub token redacted] instead of a fresh token" in note.read_text()
    # (the Stop hook's own state, .mdmem/hooks/, keeps the transcript's last messages as they are, as the transcript
    # Claude Code keeps does: it is not a suggestion)
    leaked = [p.relative_to(vault) for p in vault.rglob("*") if p.is_file() and "ghp_" in p.read_text(errors="replace")]
    assert leaked == [Path(".mdmem/hooks/stop-s1.json")]


HOOKS = {"stop": "--vault, --policy, --output", "session-start": "--vault, --budget", "prompt": "--vault",
         "pre-compact": "--vault", "session-end": "--vault"}


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

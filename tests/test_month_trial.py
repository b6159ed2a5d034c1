"""What a scripted month in one vault with three git projects found, each through the real CLI, hooks and MCP:
a pending checkpoint stays in its project (the card of another project does not show it; `accept` from another
folder saves into the session's project), a checkpoint's notes are dated by the conversation, not the accept, and
the smaller things a user living with mdmem for months runs into."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mdmem.cli.app import app
from support import git_repo, new_vault, propose, run_hook

OLD_DAY = "2026-11-20"


@pytest.fixture
def month(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    cli, vault = new_vault(tmp_path)
    projects = {n: git_repo(tmp_path, n) for n in ("projA", "projB", "projC")}
    return {"cli": cli, "vault": vault, "tmp": tmp_path, **projects}


RULE = {"type": "feedback", "dimension": 6, "name": "Release notes in projB",
        "description": "Write the release notes before tagging a release in projB.",
        "body": "Write the release notes before tagging a release in projB."}


def _card(month: dict, where: str, session: str) -> str:
    return run_hook("session-start", month["vault"], month["tmp"],
                    {"session_id": session, "hook_event_name": "SessionStart", "source": "startup",
                     "cwd": str(month[where])})


@pytest.mark.slow  # hooks or the MCP server started (> 1 s)
def test_a_pending_checkpoint_stays_in_its_project(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    cli, vault = month["cli"], month["vault"]
    monkeypatch.chdir(month["projB"])
    propose(cli, vault, "sB-live", RULE)
    assert "Pending memory checkpoint (session sB-live)" in _card(month, "projB", "sB-other")
    assert "Pending memory checkpoint" not in _card(month, "projA", "sA-new")  # another project's session
    monkeypatch.chdir(month["projA"])  # accepted from A's folder: saved as B's, the session's project
    done = cli.json("checkpoint", "accept", "1", "--session", "sB-live", "--vault", str(vault))
    [saved] = done["accepted"]
    assert saved["status"] == "created", done
    assert 'project: "[[projB]]"' in (vault / saved["path"]).read_text()


def test_accept_and_skip_without_a_session_take_this_projects_checkpoint(month: dict,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --session, accept and skip take the newest pending checkpoint of the folder's project (or a global
    one), never another project's newer one: that one is named, to be taken by its --session."""
    cli, vault = month["cli"], month["vault"]
    monkeypatch.chdir(month["projA"])
    propose(cli, vault, "sA-1", RULE)
    monkeypatch.chdir(month["projB"])
    propose(cli, vault, "sB-2", RULE | {"name": "Changelog", "description": "Keep a CHANGELOG entry per PR.",
                                        "body": "Keep a CHANGELOG entry per pull request."})
    monkeypatch.chdir(month["projA"])  # B's checkpoint is the newer one
    done = cli.json("checkpoint", "accept", "1", "--vault", str(vault))
    assert done["session"] == "sA-1" and 'project: "[[projA]]"' in (vault / done["accepted"][0]["path"]).read_text()
    refused = cli("checkpoint", "skip", "--vault", str(vault), code=1)
    assert "no pending checkpoint in project projA" in refused.stderr and "'sB-2'" in refused.stderr
    monkeypatch.chdir(month["projB"])
    assert cli.json("checkpoint", "skip", "--vault", str(vault))["session"] == "sB-2"


def test_accept_with_global_or_project_overrides_the_sessions(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    cli, vault = month["cli"], month["vault"]
    monkeypatch.chdir(month["projB"])
    propose(cli, vault, "sB-1", RULE, RULE | {"name": "Changelog", "description": "Keep a CHANGELOG entry per PR.",
                                               "body": "Keep a CHANGELOG entry per pull request."})
    monkeypatch.chdir(month["projA"])
    one = cli.json("checkpoint", "accept", "1", "--session", "sB-1", "--global", "--vault", str(vault))
    assert "project:" not in (vault / one["accepted"][0]["path"]).read_text()
    two = cli.json("checkpoint", "accept", "2", "--session", "sB-1", "--project", "projC", "--vault", str(vault))
    assert 'project: "[[projC]]"' in (vault / two["accepted"][0]["path"]).read_text()


def test_a_global_checkpoint_is_shown_in_every_project(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(month["tmp"])  # outside any project
    propose(month["cli"], month["vault"], "s-global", RULE)
    assert "Pending memory checkpoint (session s-global)" in _card(month, "projA", "sA-2")


def _transcript(path: Path, day: str, cwd: Path) -> Path:
    """A Claude Code JSONL transcript whose records are stamped ``day``."""
    records = [
        {"type": "user", "message": {"role": "user", "content": "From now on, never push on Fridays."}},
        {"type": "assistant", "message": {"id": "m1", "role": "assistant",
                                          "content": [{"type": "text", "text": "Understood."}]}},
    ]
    path.write_text("".join(json.dumps({"sessionId": "s-old", "uuid": f"u{i}", "cwd": str(cwd),
                                        "timestamp": f"{day}T10:0{i}:00Z", **r}) + "\n"
                            for i, r in enumerate(records)))
    return path


def _model(tmp: Path) -> str:
    import sys

    model = tmp / "model.py"  # a model command answering one candidate
    model.write_text("import json, sys\nsys.stdin.read()\nprint(json.dumps({'dimensions': [6], 'candidates': "
                     "[{'type': 'feedback', 'dimension': 6, 'name': 'No pushes on Fridays', 'description': "
                     "'Never push on Fridays.', 'body': 'Never push on Fridays.'}]}))\n")
    return f"{sys.executable} {model}"


def test_a_checkpoint_note_is_dated_by_the_conversation(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    cli, vault, tmp = month["cli"], month["vault"], month["tmp"]
    old = _transcript(tmp / "old.jsonl", OLD_DAY, month["projA"])
    cli("checkpoint", str(old), "--model", _model(tmp), "--vault", str(vault))
    done = cli.json("checkpoint", "accept", "1", "--session", "s-old", "--vault", str(vault))
    text = (vault / done["accepted"][0]["path"]).read_text()
    assert f"created: {OLD_DAY}" in text, text
    assert f"session on {OLD_DAY}." in text, text
    assert 'project: "[[projA]]"' in text, text  # the transcript's folder, not the accept's


def test_a_reviewed_sessions_notes_are_dated_by_it(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    cli, vault, tmp = month["cli"], month["vault"], month["tmp"]
    old = _transcript(tmp / "s-old.jsonl", OLD_DAY, month["projB"])
    run_hook("session-end", vault, tmp, {"session_id": "s-old", "transcript_path": str(old),
                                         "hook_event_name": "SessionEnd", "cwd": str(month["projB"])})
    monkeypatch.chdir(month["projA"])  # reviewed from another project's session
    cli("checkpoint", "review", "--session", "s-old", "--vault", str(vault))
    propose(cli, vault, "s-old", RULE | {"name": "No pushes on Fridays", "description": "Never push on Fridays.",
                                          "body": "Never push on Fridays."})
    done = cli.json("checkpoint", "accept", "1", "--session", "s-old", "--vault", str(vault))
    text = (vault / done["accepted"][0]["path"]).read_text()
    assert f"created: {OLD_DAY}" in text, text
    assert 'project: "[[projB]]"' in text, text


SHORT = "I prefer short answers with the conclusion first"


@pytest.mark.slow  # hooks or the MCP server started (> 1 s)
def test_a_text_another_project_holds_is_saved_in_this_one(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    cli, vault = month["cli"], month["vault"]
    monkeypatch.chdir(month["projB"])
    b = cli.json("save", SHORT, "--type", "feedback", "--vault", str(vault))
    monkeypatch.chdir(month["projA"])
    a = cli.json("save", SHORT, "--type", "feedback", "--vault", str(vault))
    assert a["status"] == "created" and a["path"] != b["path"], a
    assert 'project: "[[projA]]"' in (vault / a["path"]).read_text()
    assert 'project: "[[projB]]"' in (vault / b["path"]).read_text()
    issues = cli.json("check", "--vault", str(vault))["issues"]
    pair = {a["path"], b["path"]}
    assert not [i for i in issues if i["kind"] == "DUPLICATE" and i["path"] in pair], issues
    [shared] = [i for i in issues if i["kind"] == "IN TWO PROJECTS"]
    assert "the same in projects" in shared["detail"] and "make it global?" in shared["detail"], shared
    assert shared["severity"] == "info"


@pytest.mark.slow  # hooks or the MCP server started (> 1 s)
def test_saved_globally_a_projects_note_becomes_global(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    cli, vault = month["cli"], month["vault"]
    monkeypatch.chdir(month["projB"])
    b = cli.json("save", SHORT, "--type", "feedback", "--vault", str(vault))
    before = sorted(p.name for p in (vault / "memory").rglob("*.md"))
    done = cli.json("save", SHORT, "--type", "feedback", "--global", "--vault", str(vault))
    assert done["status"] == "updated" and done["path"] == b["path"], done
    assert "project:" not in (vault / b["path"]).read_text()
    assert "it is global now" in done["warnings"][0], done
    assert sorted(p.name for p in (vault / "memory").rglob("*.md")) == before  # one note for the fact
    card = _card(month, "projA", "sA-3")
    assert "short answers with the conclusion first" in card.lower()


def test_new_picks_a_free_name_and_a_refusal_names_the_ways_out(month: dict) -> None:
    cli, vault = month["cli"], month["vault"]
    cli("save", "Always run the tests before pushing, they catch regressions early.", "--type", "feedback",
        "--vault", str(vault))
    other = "Always run the tests before pushing: the linters too."
    refused = cli("save", other, "--type", "feedback", "--vault", str(vault), code=1)
    said = refused.stderr
    assert "--update" in said and "--supersedes" in said and "--new" in said, said
    done = cli.json("save", other, "--type", "feedback", "--new", "--vault", str(vault))
    assert done["status"] == "created", done
    assert done["path"] == "memory/feedback/always-run-the-tests-before-pushing-2.md", done


def _card_at(month: dict, where: str, session: str, at: float) -> str:
    import subprocess
    import sys

    from support import hook_env

    payload = {"session_id": session, "hook_event_name": "SessionStart", "source": "startup", "cwd": str(month[where])}
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "session-start", "--vault", str(month["vault"])],
                          input=json.dumps(payload), capture_output=True, text=True, timeout=120, cwd=month["tmp"],
                          env=hook_env(month["tmp"], MDMEM_NOW=str(at)))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _uses(vault: Path) -> list[dict]:
    log = vault / ".mdmem" / "usage.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.slow  # hooks or the MCP server started (> 1 s)
def test_the_card_counts_as_a_use_of_the_rules_it_names(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime as dt
    import time

    cli, vault = month["cli"], month["vault"]
    monkeypatch.chdir(month["projA"])
    rule = cli.json("save", "Never force-push to the main branch", "--type", "feedback", "--vault", str(vault))
    later = time.time() + 300 * 86400  # the card shown 300 days on
    assert "Never force-push" in _card_at(month, "projA", "s1", later)
    card_uses = [u for u in _uses(vault) if u["how"] == "card"]
    assert len(card_uses) == 1 and rule["path"] in card_uses[0]["paths"], card_uses
    _card_at(month, "projA", "s2", later + 60)  # served as kept the same day: no second line
    assert len([u for u in _uses(vault) if u["how"] == "card"]) == 1
    _card_at(month, "projA", "s3", later + 86400)  # the next day: one more
    assert len([u for u in _uses(vault) if u["how"] == "card"]) == 2
    far = (dt.date.fromtimestamp(later) + dt.timedelta(days=10)).isoformat()
    issues = cli.json("check", "--today", far, "--vault", str(vault))["issues"]
    assert not [i for i in issues if i["kind"] == "UNUSED" and i["path"] == rule["path"]], issues


@pytest.mark.slow  # hooks or the MCP server started (> 1 s)
def test_a_project_note_made_by_an_mcp_save_is_the_agents(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    import anyio
    from mcp import Client

    from mdmem.mcp_server import build_server

    vault = month["vault"]
    monkeypatch.chdir(month["projC"])  # the server runs in the repository

    async def mcp_save() -> dict:
        async with Client(build_server(vault), mode="legacy") as client:
            result = await client.call_tool("save", {"text": "projC invoices are numbered per tenant.",
                                                     "type": "reference"})
            assert not result.is_error, result.content[0].text
            return json.loads(result.content[0].text)

    saved = anyio.run(mcp_save)
    assert "source: agent" in (vault / saved["path"]).read_text()
    project = (vault / "memory/projects/projC.md").read_text()
    assert "source: agent" in project and "source: user" not in project, project


def test_a_new_project_named_by_flag_is_said(month: dict) -> None:
    cli, vault = month["cli"], month["vault"]
    done = cli.json("save", "The nightly export runs at 02:00 UTC.", "--type", "reference", "--project",
                    "no such proj", "--vault", str(vault))
    assert "new project no such proj: its note memory/projects/no such proj.md was made" in done["warnings"][0], done
    again = cli.json("save", "The weekly export runs on Sundays.", "--type", "reference", "--project",
                     "no such proj", "--vault", str(vault))
    assert not [w for w in again["warnings"] if "new project" in w], again


def test_a_decision_without_options_has_no_empty_fields(month: dict) -> None:
    cli, vault = month["cli"], month["vault"]
    done = cli.json("save", "We keep the billing service on one Postgres instance.", "--type", "decision",
                    "--vault", str(vault))
    text = (vault / done["path"]).read_text()
    assert "chosen:" not in text and "rejected:" not in text, text


@pytest.mark.slow  # hooks or the MCP server started (> 1 s)
def test_uninstall_claude_says_what_it_did_and_takes_back_what_it_made(month: dict, tmp_path: Path) -> None:
    import subprocess
    import sys

    from support import hook_env

    env = {k: v for k, v in hook_env(tmp_path).items() if k != "CLAUDE_CONFIG_DIR"}  # ~/.claude.json: a tmp HOME's
    home = Path(env["HOME"])
    home.mkdir(exist_ok=True)
    project = month["projA"]
    (project / ".claude").mkdir()
    (project / ".claude" / ".gitignore").write_text("my-notes.txt\n")

    def mdmem(*args: str) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "mdmem", *args], capture_output=True, text=True, env=env,
                              cwd=project, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc

    mdmem("install", "claude", "--vault", str(month["vault"]))
    out = mdmem("uninstall", "claude")
    said = out.stdout + out.stderr
    assert f"updated {project / '.claude' / '.gitignore'}" in said and "removed " + str(
        project / ".claude" / ".gitignore") not in said, said
    assert (project / ".claude" / ".gitignore").read_text() == "my-notes.txt\n"
    assert not (home / ".claude.json").exists()  # absent before: nothing left (user scope below)
    mdmem("install", "claude", "--scope", "user", "--vault", str(month["vault"]))
    assert (home / ".claude.json").exists()
    mdmem("uninstall", "claude", "--scope", "user")
    assert not (home / ".claude.json").exists() and not (home / ".claude.json.mdmem-backup").exists()


def test_over_mcp_a_checkpoint_is_accepted_into_its_sessions_project(month: dict,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import anyio
    from mcp import Client

    from mdmem.mcp_server import build_server

    vault = month["vault"]

    async def call(tool: str, args: dict) -> dict:
        async with Client(build_server(vault), mode="legacy") as client:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result.content[0].text
            return json.loads(result.content[0].text)

    monkeypatch.chdir(month["projB"])  # the agent's server in projB proposes
    anyio.run(call, "checkpoint_propose", {"candidates": [RULE], "dimensions": [6], "session": "m-b"})
    monkeypatch.chdir(month["projA"])  # accepted by a server running in projA
    done = anyio.run(call, "checkpoint_accept", {"numbers": "1", "session": "m-b"})
    [saved] = done["accepted"]
    assert 'project: "[[projB]]"' in (vault / saved["path"]).read_text()


def test_the_offline_checkpoint_is_dated_by_the_conversation(month: dict) -> None:
    cli, vault, tmp = month["cli"], month["vault"], month["tmp"]
    old = _transcript(tmp / "offline.jsonl", OLD_DAY, month["projA"])
    found = cli.json("checkpoint", str(old), "--vault", str(vault))
    assert found["candidates"] and all(f"session on {OLD_DAY}." in c["body"] for c in found["candidates"]), found
    kept = json.loads((vault / ".mdmem" / "checkpoints" / "s-old.json").read_text())
    assert (kept["conversation_date"], kept["project"]) == (OLD_DAY, "projA"), kept


def test_a_global_rule_superseded_from_a_project_is_said(month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """Superseding a global note from a project's folder hides it from every project and makes the new one the
    project's: the save says so and how to make the new rule global."""
    cli, vault = month["cli"], month["vault"]
    old = cli.json("save", "Deploys go out on Tuesdays only", "-t", "feedback", "--global", "--vault", str(vault))
    monkeypatch.chdir(month["projB"])
    new = cli.json("save", "Deploys go out on Wednesdays only", "-t", "feedback", "--supersedes", old["path"],
                   "--vault", str(vault))
    assert any(f"{old['path']} was global and {new['path']} is project projB's: other projects now see neither" in w
               and f"mdmem edit {new['path']} --unset project" in w for w in new["warnings"]), new["warnings"]
    monkeypatch.chdir(month["tmp"])  # outside any project: a global note superseded by a global one says nothing
    again = cli.json("save", "Deploys go out on Thursdays only", "-t", "feedback", "--supersedes", new["path"],
                     "--global", "--vault", str(vault))
    assert not [w for w in again["warnings"] if "other projects now see neither" in w]


def test_propose_without_a_recorded_folder_takes_the_transcripts_else_says_so(
        month: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """No hook recorded the session's folder: the folder its transcript says; without a transcript, the caller's
    folder, said in the output."""
    import os

    cli, vault = month["cli"], month["vault"]
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-projB"
    folder.mkdir(parents=True)
    _transcript(folder / "s-away.jsonl", OLD_DAY, month["projB"])
    monkeypatch.chdir(month["projA"])  # proposed from another project's folder
    result = cli.runner.invoke(app, ["checkpoint", "propose", "--vault", str(vault), "--session", "s-away"],
                               input=json.dumps({"dimensions": [6], "candidates": [RULE]}))
    assert result.exit_code == 0 and "no folder is recorded" not in result.stderr, result.output
    done = cli.json("checkpoint", "accept", "1", "--session", "s-away", "--vault", str(vault))
    assert 'project: "[[projB]]"' in (vault / done["accepted"][0]["path"]).read_text()
    result = cli.runner.invoke(app, ["checkpoint", "propose", "--vault", str(vault), "--session", "s-lost"],
                               input=json.dumps({"dimensions": [6], "candidates": [RULE | {"name": "Other"}]}))
    assert result.exit_code == 0, result.output
    assert ("mdmem: no folder is recorded for session s-lost and no transcript of it was found: compared with "
            f"project projA's memory, this folder's ({month['projA']})") in " ".join(result.stderr.split())

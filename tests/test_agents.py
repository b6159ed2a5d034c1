"""Every agent mdmem installs into: install then uninstall leaves the agent's files as they were, a user's own
entries survive both, and the installed hook commands, run as the agent runs them (``sh -c`` with the payload on
stdin), answer in the agent's own schema (Codex: its generated JSON schemas, copied in tests/data/agents/codex/;
Gemini: its hooks reference, tests/data/agents/gemini/SOURCES.md)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest

from support import ROOT

CODEX = ROOT / "tests" / "data" / "agents" / "codex"
AGENTS = ("codex", "gemini", "cursor", "copilot", "goose", "opencode", "cline", "windsurf", "aider")
USER_FILES = {  # what a user had before mdmem came: entries that mention mdmem but are not mdmem's own
    ".codex/config.toml": '# mine\nmodel = "o4"\n\n[mcp_servers.mdmem]\ncommand = "/opt/wrap/mdmem-other"\n',
    ".gemini/settings.json": '{"theme": "dark",   "hooks": {"AfterAgent": [{"hooks": [{"type": "command", '
                             '"command": "echo remember to run mdmem && ./lint"}]}]}}\n',
    ".cursor/mcp.json": '{"mcpServers": {"other": {"command": "x"}}}\n',
    "AGENTS.md": "# Project rules\n\nUse tabs.\n",
}


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and ".git" not in p.parts}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    for name, text in USER_FILES.items():
        (p / name).parent.mkdir(parents=True, exist_ok=True)
        (p / name).write_text(text, "utf-8")
    return p


@pytest.mark.slow
@pytest.mark.parametrize("agent", AGENTS)
def test_install_then_uninstall_leaves_every_file_byte_identical(cli, vault, project, agent):
    before = _tree(project)
    cli("install", agent, "--vault", vault, "--project", project)
    assert _tree(project) != before, "install wrote nothing"
    again = _tree(project)
    cli("install", agent, "--vault", vault, "--project", project)  # idempotent
    assert _tree(project) == again
    cli("uninstall", agent, "--project", project)
    assert _tree(project) == before


@pytest.mark.slow
def test_a_users_own_entries_are_never_taken(cli, vault, project):
    out = cli.json("install", "codex", "--vault", vault, "--project", project)
    kept = [f for f in out["files"] if f["path"].endswith("config.toml")][0]
    assert kept["action"] == "kept" and "mdmem-other" in kept["detail"]  # the user's own "mdmem" server
    cli("install", "gemini", "--vault", vault, "--project", project)
    settings = json.loads((project / ".gemini/settings.json").read_text())
    commands = [h["command"] for g in settings["hooks"]["AfterAgent"] for h in g["hooks"]]
    assert commands[0] == "echo remember to run mdmem && ./lint" and "--agent gemini" in commands[1]
    assert settings["theme"] == "dark" and settings["hooks"]["AfterAgent"][1]["hooks"][0]["timeout"] == 30_000
    cli("uninstall", "codex", "--project", project)
    cli("uninstall", "gemini", "--project", project)
    assert (project / ".codex/config.toml").read_text() == USER_FILES[".codex/config.toml"]
    assert (project / ".gemini/settings.json").read_text() == USER_FILES[".gemini/settings.json"]


def _installed(project: Path, file: str, event: str, flat: bool = False, field: str = "command") -> str:
    data = json.loads((project / file).read_text())
    entries = data["hooks"][event] if flat else [h for g in data["hooks"][event] for h in g["hooks"]]
    return [e[field] for e in entries if "--agent" in e[field]][0]


def _run(command: str, payload: dict) -> subprocess.CompletedProcess:
    """The hook as the agent runs it: its command through ``sh -c``, the payload on stdin."""
    return subprocess.run(["sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=60)


def _schema(name: str) -> dict:
    return json.loads((CODEX / f"{name}.schema.json").read_text())


@pytest.mark.slow
def test_codex_hooks_answer_in_codex_schema(cli, vault, project):
    cli("install", "codex", "--vault", vault, "--project", project)
    base = {"cwd": str(project), "model": "gpt-5-codex", "permission_mode": "default", "session_id": "s-1",
            "transcript_path": None, "turn_id": "t-1"}
    start = _run(_installed(project, ".codex/hooks.json", "SessionStart"),
                 {**base, "hook_event_name": "SessionStart", "source": "startup"})
    assert start.returncode == 0 and "# Memory" in start.stdout  # plain stdout: Codex makes it model context
    prompt = {**base, "hook_event_name": "UserPromptSubmit", "prompt": "why did we choose integer cents?"}
    jsonschema.validate(prompt, _schema("user-prompt-submit.command.input"))
    out = _run(_installed(project, ".codex/hooks.json", "UserPromptSubmit"), prompt)
    answer = json.loads(out.stdout)
    jsonschema.validate(answer, _schema("user-prompt-submit.command.output"))
    assert "cents" in answer["hookSpecificOutput"]["additionalContext"].lower()
    stop = {**base, "hook_event_name": "Stop", "stop_hook_active": True, "last_assistant_message": "done"}
    jsonschema.validate(stop, _schema("stop.command.input"))
    quiet = _run(_installed(project, ".codex/hooks.json", "Stop"), stop)
    assert quiet.returncode == 0 and quiet.stdout == ""  # a turn that continues because of a hook: never again


def test_codex_stop_answer_keeps_only_what_codex_allows():
    from mdmem.agents.codex.hooks import outbound

    claude_shaped = {"decision": "block", "reason": "scan", "systemMessage": "note",
                     "hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "x"}}
    jsonschema.validate(outbound("stop", claude_shaped), _schema("stop.command.output"))
    with pytest.raises(jsonschema.ValidationError):  # the schema is strict: what the adapter removes matters
        jsonschema.validate(claude_shaped, _schema("stop.command.output"))


@pytest.mark.slow
def test_gemini_hooks_answer_json_only(cli, vault, project):
    cli("install", "gemini", "--vault", vault, "--project", project)
    base = {"session_id": "g-1", "transcript_path": str(project / "chat.jsonl"), "cwd": str(project),
            "timestamp": "2026-12-06T10:00:00Z"}
    start = _run(_installed(project, ".gemini/settings.json", "SessionStart"),
                 {**base, "hook_event_name": "SessionStart", "source": "startup"})
    answer = json.loads(start.stdout)  # JSON only: Gemini takes any other line as a message
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "# Memory" in answer["hookSpecificOutput"]["additionalContext"]
    before = _run(_installed(project, ".gemini/settings.json", "BeforeAgent"),
                  {**base, "hook_event_name": "BeforeAgent", "prompt": "why did we choose integer cents?"})
    context = json.loads(before.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "BeforeAgent" and "cents" in context["additionalContext"].lower()
    after = _run(_installed(project, ".gemini/settings.json", "AfterAgent"),
                 {**base, "hook_event_name": "AfterAgent", "prompt": "hi", "prompt_response": "hello",
                  "stop_hook_active": True})
    assert after.returncode == 0 and after.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize(("agent", "file", "event", "field", "key"), [
    ("cursor", ".cursor/hooks.json", "sessionStart", "command", "additional_context"),
    ("copilot", ".github/hooks/mdmem.json", "sessionStart", "bash", "additionalContext"),
])
def test_flat_hook_agents_get_the_card_in_their_field(cli, vault, project, agent, file, event, field, key):
    cli("install", agent, "--vault", vault, "--project", project)
    command = _installed(project, file, event, flat=True, field=field)
    payload = ({"hook_event_name": event, "conversation_id": "c-1", "generation_id": "g",
                "workspace_roots": [str(project)]} if agent == "cursor" else
               {"timestamp": 1760000000, "cwd": str(project), "source": "new", "sessionId": "p-1"})
    answer = json.loads(_run(command, payload).stdout)
    assert list(answer) == [key] and "# Memory" in answer[key]


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["codex", "gemini", "cursor", "copilot"])
def test_a_payload_missing_every_field_never_breaks_the_agent(cli, vault, project, agent):
    from mdmem.agents.hooks.wire import AGENTS

    assert agent in AGENTS
    cli("install", agent, "--vault", vault, "--project", project)
    for name in ("session-start", "prompt", "stop", "pre-compact", "session-end"):
        command = _any_command(project, agent).replace(" hook session-start ", f" hook {name} ")
        done = _run(command, {})
        assert done.returncode == 0, (name, done.stderr)
        assert "Traceback" not in done.stderr


def _any_command(project: Path, agent: str) -> str:
    return {"codex": lambda: _installed(project, ".codex/hooks.json", "SessionStart"),
            "gemini": lambda: _installed(project, ".gemini/settings.json", "SessionStart"),
            "cursor": lambda: _installed(project, ".cursor/hooks.json", "sessionStart", flat=True),
            "copilot": lambda: _installed(project, ".github/hooks/mdmem.json", "sessionStart", flat=True,
                                          field="bash")}[agent]()


@pytest.mark.slow
def test_the_card_file_refreshes_between_markers_and_leaves_the_users_text(cli, vault, project):
    cli("install", "goose", "--vault", vault, "--project", project)
    text = (project / "AGENTS.md").read_text()
    assert text.startswith(USER_FILES["AGENTS.md"]) and "<!-- mdmem:begin" in text and text.count("\n# Memory (") == 1
    (project / "AGENTS.md").write_text(text + "\nMy later line.\n")
    cli("context", "--write", project / "AGENTS.md", "--vault", vault)
    again = (project / "AGENTS.md").read_text()
    assert again.count("<!-- mdmem:begin") == 1 and again.endswith("My later line.\n")
    assert len(again.encode()) < len(USER_FILES["AGENTS.md"]) + 6_500  # the card's budget


def test_codex_status_says_installed_but_not_trusted_until_codex_records_a_hash(cli, vault, project, tmp_path,
                                                                                monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    cli("install", "codex", "--vault", vault, "--project", project)
    status = cli.json("hook", "status", "--agent", "codex", "--project", project)
    assert status["events"]["Stop"] == {"installed": True, "file": str(project / ".codex/hooks.json"),
                                        "trusted": False}
    (tmp_path / "codex-home").mkdir()
    source = project / ".codex" / "hooks.json"
    (tmp_path / "codex-home" / "config.toml").write_text(
        f'[hooks.state."{source}:stop:0:0"]\ntrusted_hash = "sha256:abc"\n')
    status = cli.json("hook", "status", "--agent", "codex", "--project", project)
    assert status["events"]["Stop"]["trusted"] is True and status["events"]["SessionStart"]["trusted"] is False


RULE = "From now on, always write commit messages in Conventional Commits format, and never push to main directly."
CANDIDATE = {"dimensions": [6], "candidates": [{
    "type": "feedback", "dimension": 6, "name": "Conventional Commits, no direct push to main",
    "description": "commit messages in Conventional Commits; never push to main directly", "body": RULE}]}


def _codex_rollout(tmp_path: Path) -> Path:
    """The real rollout (tests/data/codex/SOURCES.md), as it stands before the turn :func:`_codex_rule_turn` adds."""
    real = next((ROOT / "tests" / "data" / "codex").glob("rollout-*.jsonl"))
    path = tmp_path / real.name
    path.write_bytes(real.read_bytes())
    return path


def _codex_rule_turn(path: Path) -> None:
    """One more turn in which the user states a rule, as Codex records a turn: an ``event_msg``
    ``user_message`` then ``agent_message``, appended."""
    turn = [{"timestamp": "2025-11-22T22:30:00.000Z", "type": "event_msg",
             "payload": {"type": "user_message", "message": RULE, "images": []}},
            {"timestamp": "2025-11-22T22:30:05.000Z", "type": "event_msg",
             "payload": {"type": "agent_message", "message": "Understood: Conventional Commits from now on."}}]
    with path.open("a", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in turn))


def _propose(reason: str, answer: dict, cwd: Path) -> subprocess.CompletedProcess:
    """What the model in the session does with the scan prompt: the command it names, the JSON on stdin."""
    line = [ln for ln in reason.splitlines() if "checkpoint propose" in ln and ln.rstrip().endswith("<<'JSON'")][0]
    command = line.rstrip()[: -len("<<'JSON'")]
    return subprocess.run(["sh", "-c", command], input=json.dumps(answer), capture_output=True, text=True,
                          timeout=60, cwd=cwd)


@pytest.mark.slow
def test_codex_whole_loop_through_the_installed_hooks(cli, vault, project, tmp_path):
    cli("install", "codex", "--vault", vault, "--project", project)
    rollout = _codex_rollout(tmp_path)
    stop = {"cwd": str(project), "hook_event_name": "Stop", "last_assistant_message": "Understood.", "model": "m",
            "permission_mode": "default", "session_id": "019aad50-a7e6", "stop_hook_active": False,
            "transcript_path": str(rollout), "turn_id": "t-5"}
    jsonschema.validate(stop, _schema("stop.command.input"))
    command = _installed(project, ".codex/hooks.json", "Stop")
    for turn in ("t-3", "t-4"):  # the session's earlier stops: the checkpoint waits for a gap or a rule
        assert _run(command, {**stop, "turn_id": turn}).stdout == ""
    _codex_rule_turn(rollout)
    fired = _run(command, stop)
    answer = json.loads(fired.stdout)
    jsonschema.validate(answer, _schema("stop.command.output"))
    assert answer["decision"] == "block" and "checkpoint propose" in answer["reason"]
    again = _run(_installed(project, ".codex/hooks.json", "Stop"), {**stop, "turn_id": "t-6"})
    assert again.stdout == ""  # no new words from the user: no second scan
    stored = _propose(answer["reason"], CANDIDATE, project)
    assert stored.returncode == 0, stored.stderr
    start = _run(_installed(project, ".codex/hooks.json", "SessionStart"),
                 {"cwd": str(project), "hook_event_name": "SessionStart", "model": "m", "permission_mode": "default",
                  "session_id": "next", "source": "startup", "transcript_path": None})
    assert "Conventional Commits, no direct push to main" in start.stdout  # pending, for the user to accept


@pytest.mark.slow
def test_gemini_stop_reads_geminis_own_recording(cli, vault, project, tmp_path):
    cli("install", "gemini", "--vault", vault, "--project", project)
    real = ROOT / "tests" / "data" / "gemini" / "session-12-cbfeaa512b.json"
    recording = json.loads(real.read_text())
    path = tmp_path / "session.json"
    path.write_text(json.dumps(recording))
    after = {"session_id": recording["sessionId"], "transcript_path": str(path), "cwd": str(project),
             "hook_event_name": "AfterAgent", "timestamp": "2026-01-10T02:10:06Z", "prompt": "go on",
             "prompt_response": "Done.", "stop_hook_active": False}
    command = _installed(project, ".gemini/settings.json", "AfterAgent")
    for _ in range(2):  # the session's earlier turns
        assert _run(command, after).stdout == ""
    recording["messages"] += [{"id": "u-rule", "timestamp": "2026-01-10T02:10:00.000Z", "type": "user",
                               "content": RULE},
                              {"id": "g-ok", "timestamp": "2026-01-10T02:10:05.000Z", "type": "gemini",
                               "content": "Understood."}]
    path.write_text(json.dumps(recording))
    fired = _run(command, {**after, "prompt": RULE, "prompt_response": "Understood."})
    answer = json.loads(fired.stdout)
    assert answer["decision"] == "block" and "checkpoint propose" in answer["reason"]
    assert _propose(answer["reason"], CANDIDATE, project).returncode == 0


@pytest.mark.slow
def test_codex_has_no_session_end_so_the_next_start_records_what_no_scan_covered(cli, vault, project, tmp_path):
    cli("install", "codex", "--vault", vault, "--project", project)
    rollout = _codex_rollout(tmp_path)
    _codex_rule_turn(rollout)
    base = {"cwd": str(project), "model": "m", "permission_mode": "default", "transcript_path": str(rollout)}
    stop = {**base, "hook_event_name": "Stop", "last_assistant_message": "ok", "session_id": "ended-1",
            "stop_hook_active": False, "turn_id": "t-1"}
    assert _run(_installed(project, ".codex/hooks.json", "Stop"), stop).stdout == ""  # a first stop never scans
    state = vault / ".mdmem" / "hooks" / "stop-ended-1.json"
    old = state.stat().st_mtime - 3600  # the session ended an hour ago (Codex never says so)
    os.utime(state, (old, old))
    start = _run(_installed(project, ".codex/hooks.json", "SessionStart"),
                 {**base, "hook_event_name": "SessionStart", "session_id": "next-1", "source": "startup",
                  "transcript_path": None})
    assert "not scanned" in start.stdout and "checkpoint review --session ended-1" in start.stdout
    review = cli("checkpoint", "review", "--session", "ended-1", "--vault", vault).stdout
    assert RULE in review and "checkpoint propose" in review  # the rule, read from Codex's own rollout

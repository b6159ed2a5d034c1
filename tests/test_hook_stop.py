"""`mdmem hook stop` end to end, as Claude Code runs it: a process with JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import SESSION

T0 = 1_790_000_000.0  # a fixed clock (MDMEM_NOW)


def run(vault: Path, payload, *args: str, now: float = T0, env: dict | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {"MDMEM_NOW": str(now)}
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "stop", *(("--vault", str(vault)) if vault else ()),
                           *args], input=raw, capture_output=True, text=True, env=environ | (env or {}),
                          timeout=60, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    if proc.stdout:  # Claude Code reads exactly one JSON object, or nothing
        assert proc.stdout.endswith("\n") and proc.stdout.count("\n") == 1
        assert isinstance(json.loads(proc.stdout), dict)
    return proc


def payload(transcript: Path, session: str = "s1", **extra) -> dict:
    return {"session_id": session, "transcript_path": str(transcript), "cwd": str(transcript.parent),
            "hook_event_name": "Stop", "stop_hook_active": False, "permission_mode": "default",
            "some_future_field": {"x": 1}, **extra}


def hints(reason: str) -> list[str]:
    """The hint lines of a scan prompt: "④ msg 1 (assistant)", ..."""
    return [ln[2:].split(":")[0] for ln in reason.splitlines() if ln.startswith("- ") and " msg " in ln[:12]]


def state(vault: Path, session: str = "s1") -> dict:
    return json.loads((vault / ".mdmem" / "hooks" / f"stop-{session}.json").read_text())


@pytest.fixture
def talk(tmp_path: Path) -> Path:
    path = tmp_path / "talk.md"
    path.write_text(SESSION)
    return path


PROMPT = "[mdmem checkpoint] Before you stop, scan this conversation along the seven dimensions below"
NOTE = "mdmem: checkpoint: Claude reviews the session for memories worth keeping (you choose what is saved)."


@pytest.mark.slow
def test_cadence_fires_after_20_stops_and_30_minutes(vault: Path, talk: Path):
    cadence = ("--policy", "cadence")
    for i in range(19):  # 19 stops over an hour: not enough stops
        assert run(vault, payload(talk), *cadence, now=T0 + i * 200).stdout == ""
    assert state(vault)["stops"] == 19
    # the 20th stop comes 25 minutes after the first: not enough time
    s = state(vault)
    s_path = vault / ".mdmem" / "hooks" / "stop-s1.json"
    s_path.write_text(json.dumps(s | {"first": T0 + 3600}))
    assert run(vault, payload(talk), *cadence, now=T0 + 3600 + 25 * 60).stdout == ""
    assert state(vault)["since"] == 20
    fired = run(vault, payload(talk), *cadence, now=T0 + 3600 + 31 * 60)
    out = json.loads(fired.stdout)
    assert set(out) == {"decision", "reason", "systemMessage"} and out["decision"] == "block"
    reason = out["reason"]
    assert reason.startswith(PROMPT) and len(reason) <= 6000
    assert hints(reason) == []  # the model reads the conversation: no detector's guesses in the prompt
    assert "Why now: 21 stops since the last checkpoint." in reason
    assert f"checkpoint propose --session s1 --vault {vault} <<'JSON'" in reason
    assert f"checkpoint accept 1,3 --session s1 --vault {vault}` with their numbers" in reason
    assert "save nothing before they answer" in reason and "0-1 dimensions hit → do nothing" in reason
    assert "finishing this task (1) is not enough by itself" in reason and "with or without a candidate of their own" in reason
    # the prompt's three answers: what counts as saved, what counts as a hit, which dimensions to list
    assert "a rule this session wrote into CLAUDE.md, a skill file or a `#` memory" in reason
    assert "a decision or its reasons written only into code, a plan, a commit or the repository's docs is not " \
           "saved here" in reason and "A decision (4) counts when it sets how the project works" in reason
    assert "Scan everything since the last checkpoint." in reason
    assert "except a rule or correction the user stated, which is worth proposing alone" in reason
    assert out["systemMessage"] == NOTE
    assert state(vault)["since"] == 0 and state(vault)["triggers"] == 1
    assert not (vault / ".mdmem" / "checkpoints").exists()  # the model proposes; the hook stores nothing
    # Claude continues because of the block; its next stop has stop_hook_active: silent, nothing counted
    again = run(vault, payload(talk, stop_hook_active=True), *cadence, now=T0 + 3600 + 32 * 60)
    assert again.stdout == "" and state(vault)["stops"] == 21
    # the counter starts over: the next stops are silent
    assert run(vault, payload(talk), *cadence, now=T0 + 3600 + 33 * 60).stdout == ""


@pytest.mark.slow
def test_cadence_thresholds_from_config(vault: Path, talk: Path):
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem" / "config.toml").write_text("[hook]\npolicy = \"cadence\"\nmin_stops = 2\nmin_minutes = 0\n"
                                                  "output = \"context\"\n")
    assert run(vault, payload(talk)).stdout == ""
    out = json.loads(run(vault, payload(talk), now=T0 + 1).stdout)
    assert set(out) == {"hookSpecificOutput", "systemMessage"}
    assert out["hookSpecificOutput"]["hookEventName"] == "Stop"
    assert out["hookSpecificOutput"]["additionalContext"].startswith(PROMPT)
    # a flag wins over the file
    assert "decision" in json.loads(run(vault, payload(talk, session_id="s2"), "--output", "block").stdout or
                                    run(vault, payload(talk, session_id="s2"), "--output", "block").stdout)


def _grow(path: Path, text: str) -> None:
    with open(path, "a") as f:
        f.write(text)


def test_each_stop_reads_only_the_appended_bytes(vault: Path, tmp_path: Path):
    talk = tmp_path / "t.md"
    talk.write_text("User: What time is it in Lisbon?\nAssistant: It is 14:05 there.\n")
    assert run(vault, payload(talk)).stdout == ""
    first = state(vault)
    assert first["offset"] == talk.stat().st_size and first["scanned"]["from"] == 0
    assert run(vault, payload(talk), now=T0 + 60).stdout == ""  # nothing new: nothing read
    assert state(vault)["scanned"] == {"from": first["offset"], "to": first["offset"], "messages": 0, "malformed": 0}
    _grow(talk, "User: And in Porto?\nAssistant: The same: 14:05.\n")
    assert run(vault, payload(talk), now=T0 + 120).stdout == ""
    assert state(vault)["scanned"]["from"] == first["offset"] and state(vault)["typed"] == 2
    assert "Porto" not in (vault / ".mdmem" / "hooks" / "stop-s1.json").read_text()  # no user words kept


def test_a_rule_is_quoted_to_the_model_on_a_growing_jsonl_transcript(vault: Path, tmp_path: Path):
    path = tmp_path / "s.jsonl"

    def rec(kind, text, mid=None):
        msg = {"role": kind, "content": [{"type": "text", "text": text}] if kind == "assistant" else text}
        if mid:
            msg["id"] = mid
        return json.dumps({"type": kind, "message": msg, "sessionId": "j1"}) + "\n"

    path.write_text(rec("user", "Which queue should we use?") + rec("assistant", "Let me weigh the two.", "m1"))
    run(vault, payload(path, "j1"))
    line = rec("assistant", "We chose SQS over Redis because it is managed and we have no ops team.", "m1")
    _grow(path, line[:40])
    run(vault, payload(path, "j1"), now=T0 + 1)  # half a line: left for next time
    assert state(vault, "j1")["offset"] == path.stat().st_size - 40
    _grow(path, line[40:] + rec("user", "Never paste whole files into the chat."))
    out = run(vault, payload(path, "j1"), now=T0 + 2).stdout  # the third stop, and the user stated a rule
    assert hints(json.loads(out)["reason"]) == ["② msg 2 (user)"]
    # m1's records are one message again; the state keeps the carried messages' offsets, not their words
    assert [sorted(m) for m in state(vault, "j1")["carry"]] == [["index", "offset"], ["index", "offset"]]
    assert "whole files" not in (vault / ".mdmem" / "hooks" / "stop-j1.json").read_text()


def test_last_assistant_message_counts_before_the_transcript_has_it(vault: Path, tmp_path: Path):
    talk = tmp_path / "t.md"
    talk.write_text("User: Rename the queue module.\n")
    assert run(vault, payload(talk, last_assistant_message="Done. Want me to push it too?")).stdout == ""
    assert state(vault)["asked"] == 1  # the turn ends by asking the user: a due scan would wait for the answer


@pytest.mark.slow
def test_silence_and_fail_open(vault: Path, talk: Path, tmp_path: Path):
    assert run(vault, payload(talk, stop_hook_active=True)).stdout == ""
    assert not (vault / ".mdmem" / "hooks" / "stop-s1.json").exists()
    for bad in ("not json", "[1, 2]", ""):
        proc = run(vault, bad)
        assert proc.stdout == "" and "mdmem hook stop:" in proc.stderr
    proc = run(vault, payload(tmp_path / "missing.jsonl"), "--policy", "evidence")
    assert proc.stdout == "" and "transcript not found" in proc.stderr
    proc = run(vault, payload(talk), "--bogus")
    assert proc.stdout == "" and "unknown option" in proc.stderr
    log = (vault / ".mdmem" / "hooks" / "hook.log").read_text()
    assert log.count(" stop error: ") == 5 and "transcript not found" in log
    # no vault anywhere: still exit 0, logged under MDMEM_HOME
    home = tmp_path / "home"
    proc = run(None, payload(talk), env={"MDMEM_HOME": str(home), "HOME": str(home)}, cwd=tmp_path)
    assert proc.stdout == "" and "no vault found" in proc.stderr
    assert "no vault found" in (home / "hook.log").read_text()
    # a bad [hook] setting is an error (fail open), naming the file
    (vault / ".mdmem" / "config.toml").write_text("[hook]\npolicy = \"sometimes\"\n")
    proc = run(vault, payload(talk))
    assert proc.stdout == "" and "config.toml must be one of signals, cadence, evidence" in \
        proc.stderr.replace("[hook] policy in ", "").replace(str(vault / ".mdmem") + "/", "")


def test_vault_found_from_the_hook_cwd(vault: Path, talk: Path):
    proc = run(None, payload(talk) | {"cwd": str(vault / "memory")}, "--policy", "evidence")
    assert proc.stderr == "" and (vault / ".mdmem" / "hooks" / "stop-s1.json").exists()


@pytest.mark.slow
def test_two_hooks_racing_on_one_session_both_count(vault: Path, talk: Path):
    """Six hooks at once on one session, three times: every stop counted (the state is read and written under
    the session's lock), no temp file left. Nothing here depends on how fast the machine is: each hook gets its
    whole input before any is waited for (fed one after another, the sixth waited for the other five with its
    time bound running, and gave up under load), and the hooks' own time bound is off (``timeout_seconds = 0``);
    the test's 30 s is only a hang guard."""
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem" / "config.toml").write_text("[hook]\ntimeout_seconds = 0\n")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {"MDMEM_NOW": str(T0)}
    cmd = [sys.executable, "-m", "mdmem", "hook", "stop", "--vault", str(vault), "--policy", "cadence"]
    given = talk.parent / "payload.json"
    given.write_text(json.dumps(payload(talk)))
    for _ in range(3):
        procs = []
        for _ in range(6):
            with given.open() as stdin:  # the whole input at once, from a file
                procs.append(subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                              env=environ, text=True))
        for p in procs:
            out, err = p.communicate(timeout=30)
            assert p.returncode == 0 and out == "" and err == ""
    assert state(vault)["stops"] == 18
    assert not [p for p in (vault / ".mdmem" / "hooks").iterdir() if p.name.endswith(".tmp")]


def test_damaged_state_starts_the_count_again(vault: Path, talk: Path):
    run(vault, payload(talk))
    (vault / ".mdmem" / "hooks" / "stop-s1.json").write_text("{garbage")
    assert run(vault, payload(talk)).stderr == "" and state(vault)["stops"] == 1


HEAVY = ("whoosh", "networkx", "rich", "typer", "click", "yaml", "markdown_it", "frontmatter", "sqlite3")


def test_the_hook_never_imports_heavy_modules(vault: Path, talk: Path):
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem" / "config.toml").write_text("[hook]\nmin_stops = 1\nmin_minutes = 0\n")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "mdmem", "hook", "stop", "--vault", str(vault),
                           "--policy", "cadence"],
                          input=json.dumps(payload(talk)), capture_output=True, text=True, env=environ, timeout=60)
    assert json.loads(proc.stdout)["decision"] == "block"  # it fired: the whole path was taken
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert "mdmem" in imported and not imported & set(HEAVY), sorted(imported & set(HEAVY))

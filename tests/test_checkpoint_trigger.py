"""The checkpoint's trigger with a budget, and nothing left behind: the Stop hook fires at natural gaps, never
twice without new user words, and what no scan covered is recorded at the session's end, named on the next
session's card in one line, and handed to its model by ``mdmem checkpoint review --session S``.

Real data: eval/data/checkpoint-real/02-entire-gitignore-correction.jsonl (entireio/cli@394f81f, MIT; see that
folder's SOURCES.md): three stops, a firm correction at the second ("the CLI should handle that for every
user")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, Cli, script

T0 = 1_790_000_000.0
REAL = ROOT / "eval" / "data" / "checkpoint-real" / "02-entire-gitignore-correction.jsonl"


def hook(vault: Path, name: str, payload: dict, now: float = T0) -> str:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {"MDMEM_NOW": str(now)}
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", name, "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, env=environ, timeout=60)
    assert proc.returncode == 0 and "error" not in proc.stderr, proc.stderr
    return proc.stdout


def new_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "memory").mkdir(parents=True)
    (vault / "MEMORY.md").write_text("<!-- budget -->\n# Memory\n")
    return vault


@pytest.mark.slow
def test_a_real_session_within_the_budget_is_reviewed_by_the_next_one(tmp_path: Path):
    vault, project = new_vault(tmp_path), tmp_path / "project"
    project.mkdir()
    data = REAL.read_bytes()
    grow = tmp_path / "session.jsonl"
    ev = script("eval_checkpoint")
    outs = []
    for length, clock, last in ev.stops(data):
        grow.write_bytes(data[:length])
        payload = {"session_id": "old", "transcript_path": str(grow), "cwd": str(project), "stop_hook_active": False}
        outs.append(hook(vault, "stop", payload | ({"last_assistant_message": last} if last else {}), clock or T0))
    assert outs == ["", "", ""]  # three stops: within the budget no in-session scan
    grow.write_bytes(data)
    assert hook(vault, "session-end", {"session_id": "old", "transcript_path": str(grow), "cwd": str(project)}) == ""
    record = json.loads((vault / ".mdmem" / "hooks" / "review-old.json").read_text())
    assert record["from"] == 0 and record["to"] == len(data) and record["status"] == "pending"
    assert "gitignore" not in json.dumps(record)  # offsets and counts, never the conversation's words
    card = hook(vault, "session-start", {"session_id": "new", "cwd": str(project), "source": "startup"})
    line = [ln for ln in card.splitlines() if ln.startswith("mdmem: not scanned:")]
    assert len(line) == 1 and "checkpoint review --session old --vault" in line[0]
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert "not scanned" not in hook(vault, "session-start", {"session_id": "x", "cwd": str(other),
                                                              "source": "startup"})  # another project
    out = Cli()("checkpoint", "review", "--session", "old", "--vault", vault).stdout
    assert out.startswith("[mdmem checkpoint]") and "checkpoint propose --session old" in out
    assert "--- the conversation (session old, the part no scan covered) ---" in out
    assert "the entire cli should handle that automatically for the user" in out  # the user's correction
    card = hook(vault, "session-start", {"session_id": "new2", "cwd": str(project), "source": "startup"})
    assert "not scanned" not in card  # reviewed: the card stops naming it


class Session:
    def __init__(self, path: Path) -> None:
        self.path, self.n = path, 0
        path.write_text("")

    def _write(self, rec: dict) -> None:
        self.n += 1
        with open(self.path, "a") as f:
            f.write(json.dumps({"sessionId": "s", "uuid": f"u{self.n}", **rec}) + "\n")

    def turn(self, user: str | None, reply: str) -> Session:
        if user is not None:
            self._write({"type": "user", "message": {"role": "user", "content": user}})
        self._write({"type": "assistant", "message": {"id": f"m{self.n}", "role": "assistant",
                                                       "content": [{"type": "text", "text": reply}]}})
        return self


def test_an_ask_fires_at_once_but_never_twice_without_new_user_words(tmp_path: Path):
    vault = new_vault(tmp_path)
    s = Session(tmp_path / "s.jsonl")
    payload = {"session_id": "s", "transcript_path": str(s.path), "cwd": str(tmp_path), "stop_hook_active": False}
    s.turn("please consolidate this session into memory", "Done.")
    out = hook(vault, "stop", payload)
    assert "the user asked to consolidate" in json.loads(out)["reason"]
    s.turn(None, "Anything else?")  # the turn goes on with no new words from the user
    assert hook(vault, "stop", payload, T0 + 3600) == ""
    assert hook(vault, "session-end", payload) == ""
    assert not (vault / ".mdmem" / "hooks" / "review-s.json").exists()  # every turn was scanned


@pytest.mark.slow
def test_a_rule_fires_at_the_end_of_its_turn_once_the_session_is_under_way(tmp_path: Path):
    vault = new_vault(tmp_path)
    s = Session(tmp_path / "s.jsonl")
    payload = {"session_id": "s", "transcript_path": str(s.path), "cwd": str(tmp_path), "stop_hook_active": False}
    s.turn("from now on, always run pytest before every commit", "Understood.")
    assert hook(vault, "stop", payload) == ""  # the first stop: within the budget, left for later
    s.turn("now rename the export module to sheets", "Renamed.")
    assert hook(vault, "stop", payload, T0 + 60) == ""
    s.turn("never push to main without a review, from now on", "Understood, I will not.")
    reason = json.loads(hook(vault, "stop", payload, T0 + 120))["reason"]
    assert "Why now: the user stated a rule or corrected the assistant." in reason


@pytest.mark.slow
def test_a_review_record_past_its_window_is_dropped(tmp_path: Path):
    vault = new_vault(tmp_path)
    s = Session(tmp_path / "s.jsonl")
    payload = {"session_id": "old", "transcript_path": str(s.path), "cwd": str(tmp_path)}
    s.turn("never push to main without a review", "Understood.")
    hook(vault, "session-end", payload)
    record = vault / ".mdmem" / "hooks" / "review-old.json"
    assert "not scanned" in hook(vault, "session-start", {"session_id": "new", "cwd": str(tmp_path)})
    os.utime(record, (1, 1))  # untouched for longer than the card's window
    assert "not scanned" not in hook(vault, "session-start", {"session_id": "new", "cwd": str(tmp_path)})
    assert not record.exists()

"""The review queue of imported sessions: `checkpoint review --session S` reads an imported session (its transcript
while the agent keeps it, else its note) and marks it reviewed in derived state, never in the note; `check` counts
the sessions of each project never reviewed; the SessionStart card names them in one line, at most every
`[hook] sessions_reminder_hours`. On a rollout written in Codex's record shapes (tests/data/codex, decision 045)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, hook_env

pytestmark = pytest.mark.slow  # each test runs the CLI and hooks several times (about 8 s)

ROLLOUT = ROOT / "tests" / "data" / "codex" / "rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl"
SESSION = "019aad50-a7e6-7422-b7a8-0b384290624f"
DAY = 1790000000.0  # a fixed clock (MDMEM_NOW) for the card's once-a-day rule


@pytest.fixture
def imported(cli, vault: Path, isolated: Path) -> tuple[Path, Path]:
    day = isolated / "codex" / "sessions" / "2025" / "11" / "22"
    day.mkdir(parents=True)
    transcript = day / ROLLOUT.name
    transcript.write_bytes(ROLLOUT.read_bytes())
    cli("import", "codex", "--vault", vault, env={"CODEX_HOME": str(isolated / "codex")})
    return vault, transcript


def _card(vault: Path, tmp_path: Path, now: float) -> str:
    project = tmp_path / "code" / "rtchess"  # the imported session's project is its folder's name
    project.mkdir(parents=True, exist_ok=True)
    payload = {"session_id": f"s{now}", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(project)}
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "session-start", "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, timeout=120, cwd=project,
                          env=hook_env(tmp_path, MDMEM_NOW=str(now)))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _note(vault: Path) -> Path:
    [note] = (vault / "sessions").glob("*-codex-*.md")
    return note


def test_the_card_names_unreviewed_sessions_of_its_project_once_a_day(imported, tmp_path):
    vault, _ = imported
    line = "1 imported past session(s) of rtchess were never reviewed"
    first = _card(vault, tmp_path, DAY)
    assert line in first and f"checkpoint review --session {SESSION}" in first
    assert line not in _card(vault, tmp_path, DAY + 3600)  # not again the same day
    assert line in _card(vault, tmp_path, DAY + 25 * 3600)
    (vault / ".mdmem" / "config.toml").write_text("[hook]\nsessions_reminder_hours = 0\n")
    assert line not in _card(vault, tmp_path, DAY + 60 * 3600)  # the user turned it off


def test_review_reads_the_transcript_marks_it_reviewed_and_never_writes_the_note(cli, imported, tmp_path):
    vault, transcript = imported
    assert cli.json("check", "--vault", vault)["sessions_unreviewed"] == {"rtchess": 1}
    before = _note(vault).read_bytes()
    out = cli("checkpoint", "review", "--session", SESSION[:13], "--vault", vault).stdout
    assert "imported; its transcript" in out and "[msg 0 · user]" in out
    assert cli.json("check", "--vault", vault)["sessions_unreviewed"] == {}
    assert _note(vault).read_bytes() == before
    assert "never reviewed" not in _card(vault, tmp_path, DAY)
    again = cli.json("import", "codex", "--vault", vault, env={"CODEX_HOME": str(transcript.parents[4])})
    assert all(i["status"] == "unchanged" for i in again["items"])
    assert cli.json("check", "--vault", vault)["sessions_unreviewed"] == {}


def test_review_falls_back_to_the_note_once_the_transcript_is_gone(cli, imported):
    vault, transcript = imported
    transcript.unlink()
    out = cli("checkpoint", "review", "--session", SESSION, "--vault", vault).stdout
    assert "the transcript is gone" in out and "## What the user said" in out
    assert cli.json("check", "--vault", vault)["sessions_unreviewed"] == {}
    assert "no imported session has that id" in cli("checkpoint", "review", "--session", "ffffffffffff",
                                                    "--vault", vault, code=2).stderr


def test_the_review_state_follows_a_state_folder_outside_the_vault(cli, vault: Path, isolated: Path, tmp_path):
    """A synced vault (MDMEM_STATE_DIR): what was reviewed and what waits is kept in the state folder outside it."""
    state = tmp_path / "state-outside"
    env = {"CODEX_HOME": str(isolated / "codex"), "MDMEM_STATE_DIR": str(state)}
    day = isolated / "codex" / "sessions" / "2025" / "11" / "22"
    day.mkdir(parents=True)
    (day / ROLLOUT.name).write_bytes(ROLLOUT.read_bytes())
    cli("import", "codex", "--vault", vault, env=env)
    cli("checkpoint", "review", "--session", SESSION, "--vault", vault, env=env)
    assert cli.json("check", "--vault", vault, env=env)["sessions_unreviewed"] == {}
    kept = {p.name for p in state.rglob("sessions-*.json")}
    assert kept == {"sessions-reviewed.json", "sessions-waiting.json"} or kept == {"sessions-reviewed.json"}, kept
    assert not list((vault / ".mdmem").rglob("sessions-*.json"))

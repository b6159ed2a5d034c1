"""Session recall: `recall` (auto and --sessions), MCP `search`/`recall` with `sessions`, the prompt hook, and
`check`'s count of sessions never reviewed; on two real Claude Code sessions (tests/data/claude-code) and a Codex
rollout imported into sample-vault."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT

pytestmark = pytest.mark.slow  # the whole module is in the slow lane (.ci/run)

CODEX = ROOT / "tests" / "data" / "codex" / "rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl"
CLAUDE = ROOT / "tests" / "data" / "claude-code"  # real transcripts, cited there (the 105 of eval/: eval/test_session_recall_real.py)
HOME_SESSIONS = ("07-mclaude-brew-yubikey.jsonl", "01-entire-us-english.jsonl")


@pytest.fixture
def imported(cli, vault: Path, isolated: Path) -> Path:
    folder = isolated / ".claude" / "projects" / "p"
    folder.mkdir(parents=True)
    for name in HOME_SESSIONS:
        shutil.copy(CLAUDE / name, folder / name)
    day = isolated / "codex" / "sessions" / "2025" / "11" / "22"
    day.mkdir(parents=True)
    shutil.copy(CODEX, day / CODEX.name)
    cli("import", "claude-code", "--vault", vault)
    cli("import", "codex", "--vault", vault, env={"CODEX_HOME": str(isolated / "codex")})
    return vault


def test_a_question_about_past_conversations_gets_its_session_first(cli, imported):
    out = cli.json("recall", "when did we pair the second yubikey?", "--vault", imported)
    assert [h["path"] for h in out["sessions"]][:1] == ["sessions/2026-01-17-claude-code-f551142a.md"]
    assert out["markdown"].index("### Past sessions") < min(
        (out["markdown"].index(f"({r['path']})") for r in out["ranked"]), default=len(out["markdown"]))
    assert "second(mostly cloned) yubikey" in out["markdown"]
    assert not any(r["path"].startswith("sessions/") for r in out["ranked"] + out["related"])


def test_sessions_only_when_asked_or_about_the_past(cli, imported):
    plain = cli.json("recall", "yubikey", "--vault", imported)
    assert plain["sessions"] == [] and "Past sessions" not in plain["markdown"]
    asked = cli.json("recall", "yubikey", "--sessions", "--vault", imported)
    assert asked["sessions"][0]["agent"] == "claude-code"
    off = cli.json("recall", "when did we pair the yubikey", "--no-sessions", "--vault", imported)
    assert off["sessions"] == []


def test_a_time_phrase_limits_sessions_to_its_window(cli, imported):
    out = cli.json("recall", "what did we talk about in November 2025", "--vault", imported, "--today",
                   "2026-03-01")
    assert [h["project"] for h in out["sessions"]] == ["rtchess"]


def test_check_counts_sessions_never_reviewed_per_project(cli, imported):
    report = cli.json("check", "--vault", imported)
    assert report["sessions_unreviewed"] == {"[USER]": 1, "cli": 1, "rtchess": 1}
    assert "3 imported sessions never reviewed" in cli("check", "--vault", imported).stdout
    assert not any(i["kind"] == "DANGLING" and "sessions" not in i["detail"] and i["path"].startswith(
        "memory/daily/20") and ("rtchess" in i["detail"] or "[[cli]]" in i["detail"]) for i in report["issues"])


def _prompt(vault: Path, tmp_path: Path, text: str, isolated: Path, session: str = "s1") -> str:
    payload = json.dumps({"session_id": session, "cwd": str(tmp_path), "prompt": text,
                          "hook_event_name": "UserPromptSubmit"})
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "prompt", "--vault", str(vault)], input=payload,
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_prompt_hook_gives_sessions_only_for_a_prompt_about_an_earlier_conversation(imported, tmp_path,
                                                                                        isolated):
    out = _prompt(imported, tmp_path, "what did we discuss about US English spelling?", isolated)
    assert "sessions/2026-02-04-claude-code-ddf36c6d.md" in out
    out = _prompt(imported, tmp_path, "make sure we use US English spelling everywhere", isolated)
    assert "sessions/" not in out
    # a word with an underscore is two words to the quick index (it once made the hook fail on a phrase query)
    out = _prompt(imported, tmp_path, "when did we rename summarise_to summarize?", isolated, "s2")
    assert "sessions/2026-02-04-claude-code-ddf36c6d.md" in out


def test_search_gives_notes_and_sessions_apart_as_recall_does(cli, imported):
    """`mdmem search` (the ops search the MCP tool shares): the notes, never a session among them; the sessions
    after them when asked, for a question about a past conversation, or when no note answers (decision 110)."""
    session = "sessions/2026-01-17-claude-code-f551142a.md"
    alone = cli.json("search", "yubikey", "--vault", imported)  # only sessions hold the word
    assert alone["results"] == [] and alone["sessions"][0]["path"] == session
    assert alone["sessions"][0]["agent"] == "claude-code" and alone["sessions"][0]["lines"]
    shown = cli("search", "yubikey", "--vault", imported).stdout
    assert "past sessions" in shown and session in shown
    assert cli.json("search", "yubikey", "--no-sessions", "--vault", imported)["sessions"] == []
    # narrowed to a type, a folder or a date: what was asked for is the answer
    assert cli.json("search", "yubikey", "--type", "reference", "--vault", imported)["sessions"] == []
    assert [r["path"] for r in cli.json("search", "yubikey", "--type", "session", "--vault",
                                        imported)["results"]][:1] == [session]
    saved = cli.json("save", "The second yubikey stays in the office safe", "-t", "reference", "--vault", imported)
    noted = cli.json("search", "yubikey", "--vault", imported)
    assert [r["path"] for r in noted["results"]] == [saved["path"]] and noted["sessions"] == []
    asked = cli.json("search", "yubikey", "--sessions", "--vault", imported)
    assert [r["path"] for r in asked["results"]] == [saved["path"]] and asked["sessions"][0]["path"] == session
    past = cli.json("search", "when did we pair the second yubikey?", "--vault", imported)
    assert past["sessions"][0]["path"] == session
    assert not any(r["path"].startswith("sessions/") for r in past["results"])


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_search_and_recall_take_sessions(imported, anyio_backend):
    from mcp import Client

    from mdmem.mcp_server import build_server

    async with Client(build_server(imported), mode="legacy") as c:
        found = json.loads((await c.call_tool("search", {"query": "yubikey", "sessions": True})).content[0].text)
        assert found["sessions"][0]["path"] == "sessions/2026-01-17-claude-code-f551142a.md"
        assert not any(r["path"].startswith("sessions/") for r in found["results"])
        # no note holds the word: the sessions that do answer rather than nothing
        plain = json.loads((await c.call_tool("search", {"query": "yubikey"})).content[0].text)
        assert plain["results"] == [] and plain["sessions"][0]["path"] == "sessions/2026-01-17-claude-code-f551142a.md"
        off = json.loads((await c.call_tool("search", {"query": "yubikey", "sessions": False})).content[0].text)
        assert off == plain | {"sessions": []}
        only = json.loads((await c.call_tool("search", {"query": "yubikey", "type": "session"})).content[0].text)
        assert only["results"][0]["path"] == "sessions/2026-01-17-claude-code-f551142a.md" and only["sessions"] == []
        saved = json.loads((await c.call_tool("save", {"text": "The second yubikey stays in the office safe",
                                                       "type": "reference"})).content[0].text)
        noted = json.loads((await c.call_tool("search", {"query": "yubikey"})).content[0].text)
        assert [r["path"] for r in noted["results"]] == [saved["path"]] and noted["sessions"] == []
        auto = json.loads((await c.call_tool("recall", {"query": "when did we pair the yubikey?"})).content[0].text)
        assert "sessions/2026-01-17-claude-code-f551142a" in auto["markdown"]


def _hook(name: str, vault: Path, payload: dict, cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", name, "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, timeout=120, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc


def _wait_for(path: Path, limit: float = 90.0) -> bool:
    """A hang guard on the background import (it is not timed: the test waits for its result)."""
    import time

    end = time.monotonic() + limit
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.1)
    return False


def test_session_end_imports_the_session_in_the_background_once_the_vault_imports(cli, vault, tmp_path):
    transcript = tmp_path / "t" / "0ccf1a04.jsonl"
    transcript.parent.mkdir()
    shutil.copy(ROOT / "tests" / "data" / "claude-code" / "14-session-share-curry-poems.jsonl", transcript)
    payload = {"session_id": "0ccf1a04-1b4c-43b6-8aa5-79e41db43a68", "transcript_path": str(transcript),
               "cwd": str(tmp_path), "hook_event_name": "SessionEnd", "reason": "exit"}
    _hook("session-end", vault, payload, tmp_path)
    assert not (vault / "sessions").exists()  # never imported here: the user has not chosen to
    assert not (vault / ".mdmem" / "hooks" / "import.log").exists()
    (vault / "sessions").mkdir()  # what the first `mdmem import` leaves
    _hook("session-end", vault, payload, tmp_path)
    assert (vault / ".mdmem" / "hooks" / "import.log").exists()
    assert _wait_for(vault / "sessions" / "2026-01-22-claude-code-0ccf1a04.md") or \
        _wait_for(vault / "sessions" / "2026-01-23-claude-code-0ccf1a04.md")


def test_sessions_never_crowd_the_notes_out_of_recall(cli, imported):
    """The three sessions rank above every note for "make sure it works" (recall's pool is 3 for --limit 1): recall
    still finds a memory note, since sessions are masked in the search itself, not dropped after it."""
    from mdmem.engine.memory import Memory

    with Memory(imported) as mem:  # the engine's ranking, unmasked (`mdmem search` masks them too)
        found = mem.search("make sure it works", 3).results
    out = cli.json("recall", "make sure it works", "--vault", imported, "--limit", "1")
    assert [r.path[:9] for r in found] == ["sessions/"] * 3
    assert out["ranked"] and not out["ranked"][0]["path"].startswith("sessions/")


def test_many_hidden_sessions_never_cut_the_notes_out_of_recall(cli, vault: Path):
    """Search hides imported sessions; the rare words it counts to decide it may skip the common ones must be the
    notes' own: 55 sessions holding "quokka" once left a question "quokka kafka" with no note at all (the four
    notes about Kafka were never scored)."""
    folder = vault / "sessions"
    folder.mkdir()
    for i in range(600):
        extra = " quokka" if i < 55 else ""  # in 55 of 660 notes: rare (under 10%), yet more than recall's pool
        (folder / f"2026-01-01-claude-code-{i:08x}.md").write_text(
            f"---\nname: session {i}\ntype: session\nsession: {i:08x}-0000\nagent: claude-code\n---\n"
            f"# session {i}\n\nWe talked about kafka topics{extra}.\n", encoding="utf-8")
    out = cli.json("recall", "quokka kafka", "--no-sessions", "--vault", vault)
    kafka = {"memory/daily/2026-11-25.md", "memory/decisions/decision-ledger-double-entry.md",
             "memory/people/diego-almeida.md", "memory/people/priya-raman.md"}  # the notes that say "Kafka"
    assert kafka <= {r["path"] for r in out["ranked"]}
    assert not any(r["path"].startswith("sessions/") for r in out["ranked"])

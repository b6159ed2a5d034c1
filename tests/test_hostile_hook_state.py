"""What a hook leaves behind or finds in the state folder cannot hold its caller: the background process a hook starts
keeps none of the descriptors the agent gave the hook (a pipe the agent reads the hook's output from would stay open
until that process ends), a FIFO planted as a log under ``.mdmem/hooks/`` neither hangs nor fails a hook, and a
pending checkpoint dated in the future (a vault delivered by sync or an archive) is not shown on every card forever
(decision 130)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mdmem.base.state import write_lock
from tests.support import hook_env, run_hook, settled

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, sessions and inherited descriptors are POSIX")

GUARD = 30.0  # seconds: a hang guard, never a timing a test depends on
ADYEN = "memory/references/adyen-webhooks.md"


def _hook(name: str, vault: Path, tmp_path: Path, payload: dict, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mdmem", "hook", name, "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, env=hook_env(tmp_path),
                          timeout=GUARD, cwd=tmp_path, **kw)


def _log(vault: Path) -> list[str]:
    log = vault / ".mdmem" / "hooks" / "hook.log"
    return log.read_text("utf-8").splitlines() if log.exists() else []


def test_the_background_refresh_keeps_no_descriptor_the_agent_gave_the_hook(vault: Path, cli, tmp_path: Path):
    cli("index", "--vault", vault)
    path = vault / ADYEN  # a body edited alone: the prompt hook hands the refresh to a background process
    text = path.read_text("utf-8")
    end = text.index("\n---\n", 3) + 5
    path.write_text(text[:end] + "Adyen webhooks now go through the zebrafrost relay.\n\n" + text[end:], "utf-8")
    read, write = os.pipe()  # an agent's pipe, also open in the hook as another descriptor than its stdout
    try:
        # the vault's writer lock held: the background refresh waits for it, so it is still running when the hook
        # has answered (it gives up after a second, leaving the refresh to this "writer")
        with write_lock(vault / ".mdmem", 5):
            proc = _hook("prompt", vault, tmp_path, {"session_id": "s1", "hook_event_name": "UserPromptSubmit",
                                                     "prompt": "how do we handle adyen webhooks?",
                                                     "cwd": str(tmp_path)}, pass_fds=(write,))
            os.close(write)
            write = -1
            assert proc.returncode == 0, proc.stderr
            assert any("refreshed in the background" in line for line in _log(vault)), _log(vault)[-5:]
            ready, _, _ = select.select([read], [], [], GUARD)
            assert ready and os.read(read, 1) == b""  # EOF: no process holds the pipe's write end any more
            # ... while the background refresh is still waiting for the lock: it never had the pipe
            assert not any("hook refresh: " in line for line in _log(vault)), _log(vault)[-5:]
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
    assert settled(vault) == 1


@pytest.mark.parametrize("hook", ["session-start", "prompt"])
def test_a_fifo_as_the_hook_log_neither_hangs_nor_fails_a_hook(vault: Path, cli, tmp_path: Path, hook: str):
    cli("index", "--vault", vault)
    if hook == "prompt":  # a body edited alone: the prompt hook also starts a background refresh logging there
        path = vault / ADYEN
        path.write_text(path.read_text("utf-8") + "\nThe zebrafrost relay retries.\n", "utf-8")
    folder = vault / ".mdmem" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("hook.log", "fired-claude.log"):
        os.mkfifo(folder / name)
    proc = _hook(hook, vault, tmp_path, {"session_id": "s1", "hook_event_name": "x", "source": "startup",
                                         "prompt": "how do we handle adyen webhooks?", "cwd": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert "adyen" in proc.stdout.lower() or hook == "session-start" and "Memory protocol" in proc.stdout
    assert (folder / "hook.log").is_fifo()  # left as it is, nothing written into it
    status = subprocess.run([sys.executable, "-m", "mdmem", "hook", "status", "--vault", str(vault)],
                            capture_output=True, text=True, env=hook_env(tmp_path), timeout=GUARD, cwd=tmp_path)
    assert status.returncode == 0, status.stderr  # the status reads fired-claude.log: a FIFO is not waited on


def test_fifos_at_the_usage_log_and_the_cards_marker_neither_hang_nor_fail_the_card(vault: Path, cli, tmp_path: Path):
    """The card reads and appends ``usage.jsonl`` and reads and writes its once-a-day marker beside the kept card:
    a FIFO planted at either is neither waited on nor written into."""
    cli("index", "--vault", vault)
    payload = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(tmp_path)}
    first = _hook("session-start", vault, tmp_path, payload)
    assert first.returncode == 0 and "Memory protocol" in first.stdout, first.stderr
    markers = list((vault / ".mdmem" / "hooks").glob("context-card*-used"))
    assert markers  # the kept card's marker, made by the first card
    for marker in markers:
        marker.unlink()
        os.mkfifo(marker)
    os.replace(vault / ".mdmem" / "usage.jsonl", vault / ".mdmem" / "usage.old")
    os.mkfifo(vault / ".mdmem" / "usage.jsonl")
    kept = _hook("session-start", vault, tmp_path, payload)  # the kept card: its marker read, the use recorded
    assert kept.returncode == 0 and kept.stdout == first.stdout, kept.stderr
    for card in (vault / ".mdmem" / "hooks").glob("context-card*.json"):
        card.unlink()
    again = _hook("session-start", vault, tmp_path, payload)  # made again: the log read for the ranking
    assert again.returncode == 0 and "Memory protocol" in again.stdout, again.stderr
    assert (vault / ".mdmem" / "usage.jsonl").is_fifo()


def _checkpoint(vault: Path, session: str, saved: object, name: str) -> None:
    folder = vault / ".mdmem" / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session}.json").write_text(json.dumps({
        "session": session, "status": "pending", "origin": "propose", "lang": "en", "saved": saved,
        "candidates": [{"number": 1, "type": "feedback", "dimension": 6, "mark": "", "name": name,
                        "description": "Kept for the card", "body": "x"}]}), "utf-8")


def test_a_pending_checkpoint_dated_in_the_future_or_not_a_number_is_not_on_the_card(vault: Path, tmp_path: Path):
    now = int(time.time())
    _checkpoint(vault, "evil", 99999999999, "Quokka from the future")
    _checkpoint(vault, "words", "tomorrow", "Quokka with a word for a date")
    _checkpoint(vault, "inf", 1e309, "Quokka at infinity")
    card = lambda: run_hook("session-start", vault, tmp_path, {"session_id": "s1", "hook_event_name": "SessionStart",  # noqa: E731
                                                               "source": "startup", "cwd": str(tmp_path)})
    text = card()
    assert "Quokka" not in text and "Pending memory checkpoint" not in text, text
    _checkpoint(vault, "skew", now + 3600, "Quokka an hour ahead")  # another machine's clock a little ahead: shown
    text = card()
    assert "Quokka an hour ahead" in text and "Quokka from the future" not in text, text


def test_a_checkpoint_dated_in_the_future_is_never_the_newest_pending_one(vault: Path, cli, tmp_path: Path):
    from tests.support import propose

    text = "Write the release notes before tagging a release."
    propose(cli, vault, "mine", {"type": "feedback", "dimension": 6, "name": "Release notes first",
                                 "description": text, "body": text})
    _checkpoint(vault, "evil", 99999999999, "Quokka from the future")
    _checkpoint(vault, "words", "tomorrow", "Quokka with a word for a date")  # (it broke the ranking: str < int)
    # `checkpoint skip` without --session takes the newest pending checkpoint: the user's, not the one "from 5138"
    assert cli.json("checkpoint", "skip", "--vault", vault)["session"] == "mine"
    cli("checkpoint", "skip", "--vault", vault, code=1)  # nothing else pending to take without its --session
    assert cli.json("checkpoint", "skip", "--session", "evil", "--vault", vault)["session"] == "evil"


def test_fifos_at_the_import_log_and_its_marker_neither_hang_nor_fail_the_session_hooks(vault: Path, tmp_path: Path):
    (vault / "sessions").mkdir()  # a vault that imports sessions: the session hooks start imports in the background
    folder = vault / ".mdmem" / "hooks"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "import.log")
    os.mkfifo(folder / "import-claude-code.last")  # the catch-up's marker, dated long ago: a catch-up is due
    os.utime(folder / "import-claude-code.last", (0, 0))
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "sessionId": "s1", "cwd": str(tmp_path),
                                      "message": {"role": "user", "content": "hello"}}) + "\n", "utf-8")
    start = _hook("session-start", vault, tmp_path, {"session_id": "s1", "hook_event_name": "SessionStart",
                                                     "source": "startup", "cwd": str(tmp_path)})
    assert start.returncode == 0 and "Memory protocol" in start.stdout, start.stderr
    assert any("the catch-up import could not start" in line for line in _log(vault)), _log(vault)[-5:]
    end = _hook("session-end", vault, tmp_path, {"session_id": "s1", "hook_event_name": "SessionEnd", "reason": "exit",
                                                 "transcript_path": str(transcript), "cwd": str(tmp_path)})
    assert end.returncode == 0, end.stderr
    assert any("import started (pid" in line for line in _log(vault)), _log(vault)[-5:]  # its output dropped
    assert (folder / "import.log").is_fifo() and (folder / "import-claude-code.last").is_fifo()

"""The prompt hook after an edit of notes' bodies alone answers from the quick index as it stands (the excerpt read from
the file as it is now) and hands the notes cache's refresh to a background ``mdmem hook refresh``; any other change
(a description, a note made sensitive by its frontmatter or a ``#sensitive`` in its body, an added or removed note,
the user's note, an agent's, MEMORY.md) is refreshed inline before it answers, as before (decision 123)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mdmem.base import files
from tests.support import hook_env, run_hook, settled

ADYEN = "memory/references/adyen-webhooks.md"
AGENTS = "memory/references/ledger-export-window.md"


def _ask(vault: Path, tmp_path: Path, prompt: str, session: str) -> list[str]:
    """The prompt hook run as Claude Code runs it; the paths of the notes it injected."""
    out = run_hook("prompt", vault, tmp_path, {"session_id": session, "hook_event_name": "UserPromptSubmit",
                                               "prompt": prompt, "cwd": str(tmp_path)})
    if not out.strip():
        return []
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return [line.split(" (", 1)[1].split(")", 1)[0] for line in context.splitlines() if line.startswith("- ")] \
        + [context]


def _log(vault: Path) -> list[str]:
    log = vault / ".mdmem" / "hooks" / "hook.log"
    return log.read_text("utf-8").splitlines() if log.exists() else []


def _current(vault: Path) -> bool:
    """Was the notes cache written from the files as they are (its scan digest the vault's)?"""
    db = sqlite3.connect(vault / ".mdmem" / "notes.db")
    try:
        (digest,) = db.execute("SELECT value FROM meta WHERE key='scan_digest'").fetchone()
    finally:
        db.close()
    return digest == files.digest(files.scan(vault))


@pytest.fixture
def indexed(vault: Path, cli) -> Path:
    (vault / AGENTS).write_text("---\ntype: reference\nsource: agent\ndescription: The ledger export runs at 02:00 "
                                "Lisbon time\n---\nThe ledger export window is 02:00-03:00.\n", "utf-8")
    cli("index", "--vault", vault)
    return vault


def _edit_body(vault: Path, rel: str, line: str) -> None:
    """``line`` made the first line of the note's body (after its frontmatter, which stays byte for byte)."""
    path = vault / rel
    text = path.read_text("utf-8")
    end = text.index("\n---\n", 3) + 5
    path.write_text(text[:end] + line + "\n\n" + text[end:], "utf-8")


def test_a_body_edit_is_answered_from_the_index_as_it_stands_and_refreshed_in_the_background(indexed, tmp_path):
    vault = indexed
    _edit_body(vault, ADYEN, "Adyen webhooks now go through the zebrafrost relay.")
    before = len(_log(vault))
    found = _ask(vault, tmp_path, "how do we handle adyen webhooks?", "s1")
    assert found[0] == ADYEN and "zebrafrost relay" in found[-1]  # the excerpt: the file as it is now
    lines = _log(vault)[before:]
    assert any("note(s) edited in their body alone; answering from the index as it stands, refreshed in the "
               "background" in line for line in lines), lines
    assert not any("brought up to date\n" in line + "\n" for line in lines if "prompt:" in line)  # none inline
    assert settled(vault) == 1
    assert any("hook refresh: the notes cache brought up to date in the background (0 added, 1 changed, 0 removed)"
               in line for line in _log(vault)), _log(vault)[-5:]
    assert _current(vault)
    db = sqlite3.connect(vault / ".mdmem" / "notes.db")  # the new body's words in the quick index
    try:
        assert db.execute("SELECT path FROM quick WHERE quick MATCH 'zebrafrost'").fetchall() == [(ADYEN,)]
    finally:
        db.close()
    # the next prompt finds the cache fresh: nothing to refresh
    before = len(_log(vault))
    assert _ask(vault, tmp_path, "how do we handle adyen webhooks?", "s2")[0] == ADYEN
    assert not any("prompt: " in line and ("behind" in line or "background" in line) for line in _log(vault)[before:])


@pytest.mark.parametrize("edit", ["description", "sensitive", "tag", "added", "removed", "user", "agent", "index"])
def test_any_other_change_is_refreshed_before_the_hook_answers(indexed, tmp_path, edit):
    vault = indexed
    path = vault / ADYEN
    prompt, want, never = "how do we handle adyen webhooks?", ADYEN, None
    if edit == "description":
        path.write_text(path.read_text("utf-8").replace("description: How Adyen", "description: Quokkaflow, how Adyen"),
                        "utf-8")
    elif edit == "sensitive":  # made sensitive by its frontmatter: never given from the index as it stood
        path.write_text(path.read_text("utf-8").replace("type: reference\n", "type: reference\nsensitive: true\n"),
                        "utf-8")
        want, never = None, ADYEN
    elif edit == "tag":  # ... or by a tag in its body
        _edit_body(vault, ADYEN, "Kept private: #sensitive")
        want, never = None, ADYEN
    elif edit == "added":
        (vault / "memory" / "references" / "zebrafrost-relay.md").write_text(
            "---\ntype: reference\ndescription: The zebrafrost relay forwards webhooks\n---\nIt retries.\n", "utf-8")
        prompt, want = "what is the zebrafrost relay?", "memory/references/zebrafrost-relay.md"
    elif edit == "removed":
        path.unlink()
        want, never = None, ADYEN
    elif edit == "user":
        _edit_body(vault, "memory/people/diego-almeida.md", "Prefers tea to coffee.")
    elif edit == "agent":  # an agent's note: its body decides whether the user edited (confirmed) it
        _edit_body(vault, AGENTS, "Checked again in December.")
    else:  # MEMORY.md: its links say which notes are the user's memory
        (vault / "MEMORY.md").write_text((vault / "MEMORY.md").read_text("utf-8") + "\n- [[zebrafrost]]\n", "utf-8")
    before = len(_log(vault))
    found = _ask(vault, tmp_path, prompt, "s1")
    lines = _log(vault)[before:]
    assert any("prompt: the index was 1 note(s) behind; brought up to date" in line for line in lines), lines
    assert not any("background" in line for line in lines), lines
    assert settled(vault) == 0 and _current(vault)  # fresh when the hook returned
    if want:
        assert found and found[0] == want
    if edit == "description":  # shown from the quick index: the new one
        assert "Quokkaflow, how Adyen" in found[-1], found[-1]
    if never:
        assert never not in found


def test_two_background_refreshes_at_once_and_a_users_command_are_harmless(indexed, tmp_path, cli):
    vault = indexed
    _edit_body(vault, ADYEN, "Adyen webhooks now go through the zebrafrost relay.")
    procs = [subprocess.Popen([sys.executable, "-m", "mdmem", "hook", "refresh", "--vault", str(vault)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=hook_env(tmp_path), cwd=tmp_path)
             for _ in range(2)]
    cli("index", "--vault", vault)
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and out == b"" and err == b"", err
    done = [line for line in _log(vault) if "hook refresh: " in line]
    assert len(done) == 2 and all("brought up to date in the background" in line or "left to the writer" in line
                                  for line in done), done
    assert _current(vault)


def test_the_refresh_command_without_a_vault_exits_0_and_prints_nothing(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "refresh", "--vault", str(tmp_path / "none")],
                          capture_output=True, text=True, env=hook_env(tmp_path), timeout=60, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert "hook refresh: needs --vault and a vault" in (tmp_path / "home-mdmem" / "hook.log").read_text("utf-8")

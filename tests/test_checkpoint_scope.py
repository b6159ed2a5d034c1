"""The checkpoint in one vault shared by two git projects, through the real CLI: the "existing memory" a
session in project B is told of holds the global memories and B's, never A's; and ``checkpoint propose``
says up front which candidate repeats a saved note of B or the global memory ("same as [[X]]: accepting
updates X"), which ``accept`` then does, without a new note."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from support import SESSION, git_repo, new_vault, propose

ATLAS = "In atlas, keep the migration files small: one table per migration file."
BOREALIS = "In borealis, never commit generated images; they are built in CI from the sources."
GLOBAL = "I prefer short answers with the conclusion first, then the details."


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    cli, vault = new_vault(tmp_path)
    atlas, borealis = git_repo(tmp_path, "atlas"), git_repo(tmp_path, "borealis")
    monkeypatch.chdir(atlas)
    cli("save", ATLAS, "--type", "feedback", "--name", "Atlas migrations", "--vault", str(vault))
    cli("save", GLOBAL, "--type", "feedback", "--name", "Short answers", "--global", "--vault", str(vault))
    monkeypatch.chdir(borealis)
    cli("save", BOREALIS, "--type", "feedback", "--name", "Borealis images", "--vault", str(vault))
    return {"cli": cli, "vault": vault, "atlas": atlas, "borealis": borealis, "tmp": tmp_path}


def _existing(prompt: str) -> str:
    """The scan prompt's "Existing memory" part."""
    start = prompt.index("Existing memory")
    return prompt[start:prompt.index("\n\n", start)]


def test_existing_memory_is_the_projects_and_the_global(vault: dict) -> None:
    tmp, cli = vault["tmp"], vault["cli"]
    seen = tmp / "prompt.txt"
    model = tmp / "model.py"  # a model command: keeps what it was handed, proposes nothing
    model.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(sys.stdin.read())\n"
                     "print('{\"dimensions\": [], \"candidates\": []}')\n")
    transcript = tmp / "session.txt"
    transcript.write_text(SESSION)
    cmd = f"{sys.executable} {model}"
    cli("checkpoint", str(transcript), "--model", cmd, "--vault", str(vault["vault"]))  # cwd: borealis
    shown = _existing(seen.read_text())
    assert "borealis images" in shown.lower() and "short answers" in shown.lower(), shown
    assert "atlas" not in shown.lower(), shown
    # the same session in atlas sees atlas's and the global, not borealis's
    import os

    os.chdir(vault["atlas"])
    cli("checkpoint", str(transcript), "--model", cmd, "--vault", str(vault["vault"]))
    shown = _existing(seen.read_text())
    assert "atlas migrations" in shown.lower() and "short answers" in shown.lower(), shown
    assert "borealis" not in shown.lower(), shown



def test_another_projects_note_is_not_called_saved(vault: dict) -> None:
    """A candidate in borealis named as atlas's note is kept (atlas's is not borealis's memory)."""
    out = propose(vault["cli"], vault["vault"], "b0", {"type": "feedback", "dimension": 6, "name": "Atlas migrations",
                                                        "description": "Keep SQL migrations reviewed by two people.",
                                                        "body": "Keep SQL migrations reviewed by two people."})
    assert "1. [feedback]" in out and "not kept" not in out, out


def test_propose_marks_the_note_accept_updates(vault: dict) -> None:
    cli, root = vault["cli"], vault["vault"]
    before = sorted(p.relative_to(root).as_posix() for p in (root / "memory").rglob("*.md"))
    reworded = BOREALIS.rstrip(".") + ", always."  # the same wording: a repeat, not a guess
    global_again = "I prefer short answers, with the conclusion first and then the details."
    atlas_again = "In atlas keep migration files small, one table per migration file."
    out = propose(cli, root, "b1",
                   {"type": "feedback", "dimension": 6, "name": "No generated images", "description": reworded,
                    "body": reworded},
                   {"type": "feedback", "dimension": 6, "name": "Answer style", "description": global_again,
                    "body": global_again},
                   {"type": "feedback", "dimension": 6, "name": "Small migration files", "description": atlas_again,
                    "body": atlas_again})
    lines = out.splitlines()
    first = lines.index(next(ln for ln in lines if ln.startswith("1. ")))
    assert lines[first + 1].strip().startswith("same as [[Borealis images]]: accepting updates Borealis images"), out
    second = lines.index(next(ln for ln in lines if ln.startswith("2. ")))
    # a guess by meaning is said beside it, and accepting it saves a new note (decision 096)
    assert "(check: may say what [[Short answers]] says (the same meaning, a guess))" in lines[second], out
    assert not lines[second + 1].strip().startswith("same as"), out
    third = lines.index(next(ln for ln in lines if ln.startswith("3. ")))
    assert "same as" not in "\n".join(lines[third:]), out  # atlas's note is another project's
    done = cli.json("checkpoint", "accept", "1,2,3", "--session", "b1", "--vault", str(root))
    status = {a["number"]: (a["status"], a["path"]) for a in done["accepted"]}
    assert status[1] == ("updated", "memory/feedback/Borealis images.md"), status
    assert status[2][0] == "created" and status[3][0] == "created", status
    assert "it may say what memory/feedback/Short answers.md says" in done["accepted"][1]["message"], done
    assert "from the sources, always." in (root / "memory/feedback/Borealis images.md").read_text()
    assert "first and then the details" not in (root / "memory/feedback/Short answers.md").read_text()
    after = sorted(p.relative_to(root).as_posix() for p in (root / "memory").rglob("*.md"))
    assert sorted(set(after) - set(before)) == sorted([status[2][1], status[3][1]])
    assert 'project: "[[borealis]]"' in (root / status[3][1]).read_text()


def test_the_stop_hooks_scan_prompt_is_the_sessions_project(vault: dict) -> None:
    """The Stop hook, fired in borealis (the payload's cwd), lists borealis's and the global memories only."""
    import subprocess

    from support import hook_env

    root, tmp = vault["vault"], vault["tmp"]
    (root / ".mdmem" / "config.toml").write_text("[hook]\nmin_stops = 1\nmin_minutes = 0\n")
    talk = tmp / "talk.md"
    talk.write_text("User: From now on, keep your replies under ten lines.\nAssistant: Understood.\n")
    payload = {"session_id": "s1", "transcript_path": str(talk), "cwd": str(vault["borealis"]),
               "hook_event_name": "Stop", "stop_hook_active": False}
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "stop", "--vault", str(root), "--policy", "cadence"],
                          input=json.dumps(payload), capture_output=True, text=True, env=hook_env(tmp), timeout=120)
    reason = json.loads(proc.stdout)["reason"]
    shown = _existing(reason)
    assert "borealis images" in shown.lower() and "short answers" in shown.lower(), shown
    assert "atlas" not in shown.lower(), shown


def test_mcp_propose_marks_the_note_too(vault: dict) -> None:
    """MCP's checkpoint_propose (the server running in borealis) says it as the CLI does."""
    import anyio
    from mcp import Client

    from mdmem.mcp_server import build_server

    again = BOREALIS.rstrip(".") + ", always."

    async def propose() -> str:
        async with Client(build_server(vault["vault"]), mode="legacy") as client:
            result = await client.call_tool("checkpoint_propose", {"session": "m1", "candidates": [
                {"type": "feedback", "dimension": 6, "name": "No generated images", "description": again,
                 "body": again}]})
            assert not result.is_error, result.content[0].text
            return json.loads(result.content[0].text)["text"]

    assert "same as [[Borealis images]]: accepting updates Borealis images" in anyio.run(propose)

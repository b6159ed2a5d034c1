"""Memory first in a mixed vault: the Tasks plugin's published docs (a real Obsidian vault, 118 notes) with a week
of memory added. recall and the prompt hook put the memory note first; the prompt hook calls the docs "notes
from your vault", never the user's memory; what a memory was used for is recorded in .mdmem/ (not the note)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import FIXTURES

pytestmark = pytest.mark.slow  # the whole module is in the slow lane (.ci/run)

DOCS = FIXTURES / "vaults" / "obsidian-tasks-docs" / "docs"
WEEK = [
    ("decision", "We chose SQLite over Postgres for the blog database because it is one file to back up."),
    ("feedback", "When I ask about my task queries, answer with the query block first, then explain it."),
    ("reference", "The blog's drafts live in the Drafts folder of the personal vault; published posts move to Posts."),
    ("feedback", "Dates in my notes are written as YYYY-MM-DD, never as day/month."),
]


@pytest.fixture
def mixed(tmp_path: Path, cli) -> Path:
    vault = tmp_path / "tasks-docs"
    shutil.copytree(DOCS, vault)
    cli("init", str(vault))
    for kind, text in WEEK:
        cli("save", text, "--type", kind, "--vault", str(vault))
    return vault


def _entries(said: str) -> list[str]:
    """The notes' lines of the prompt hook's answer (inside its fence)."""
    return [line for line in said.splitlines() if line.startswith("- ")]


def _prompt(vault: Path, tmp_path: Path, text: str, session: str) -> str:
    payload = {"session_id": session, "prompt": text, "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit"}
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "prompt", "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout.strip() else ""


def test_recall_and_the_prompt_hook_put_memory_first(mixed: Path, tmp_path: Path, cli):
    got = cli.json("recall", "what database did we choose for the blog?", "--vault", mixed)
    assert got["ranked"][0]["path"].startswith("memory/decisions/")
    assert all(not r["path"].startswith("memory/") for r in got["ranked"][1:]) or len(got["ranked"]) <= 3
    said = _prompt(mixed, tmp_path, "which database did we pick for the blog and why?", "m1")
    assert said.startswith("mdmem: notes from the user's memory") and "(memory/decisions/" in _entries(said)[0]
    docs = _prompt(mixed, tmp_path, "how do I write a Tasks query that filters on due dates and recurrence?", "m2")
    assert docs  # the docs answer it: never as the user's memory
    lines = _entries(docs)
    if all("(memory/" not in line for line in lines):
        assert docs.startswith("mdmem: notes from your vault")
    else:
        assert all("not the user's memory" in line for line in lines if "(memory/" not in line)
    # each use is recorded in .mdmem/, never in the note
    log = (mixed / ".mdmem" / "usage.jsonl").read_text()
    assert '"how":"recall"' in log and '"how":"prompt"' in log
    assert "uses" not in (mixed / got["ranked"][0]["path"]).read_text()

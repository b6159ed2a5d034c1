"""One note per fact through the real CLI: a rewording of a saved memory is refused, naming the note; --update
adds to it; --new keeps both; `check` reports the pair; a checkpoint suggestion of the same meaning updates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the whole module is in the slow lane (.ci/run)

FIRST = "I prefer short answers, conclusion first"
AGAIN = "I prefer short answers with the conclusion first"


def test_a_rewording_is_refused_and_update_adds_to_the_note(cli, vault: Path):
    saved = cli.json("save", FIRST, "-t", "feedback", "--vault", vault)
    refused = cli("save", AGAIN, "-t", "feedback", "--vault", vault, code=1).stderr
    assert f"would say what {saved['path']} says (the same meaning)" in refused and "--update" in refused
    updated = cli.json("save", AGAIN, "--update", saved["path"], "--vault", vault)
    assert updated["status"] == "updated" and updated["path"] == saved["path"]
    assert AGAIN in (vault / saved["path"]).read_text()
    # a related but different rule is saved
    other = cli.json("save", "I prefer answers in Portuguese when I write in Portuguese", "-t", "feedback",
                     "--vault", vault)
    assert other["status"] == "created"
    kept = cli.json("save", AGAIN, "-t", "feedback", "--new", "--vault", vault)
    assert kept["status"] == "created"
    issues = [i for i in cli.json("check", "--vault", vault)["issues"] if i["kind"] == "DUPLICATE"]
    assert any(i["detail"].endswith("the same meaning") and {i["path"], i["detail"].split()[2].rstrip(":")} ==
               {saved["path"], kept["path"]} for i in issues), issues


def test_a_checkpoint_suggestion_of_the_same_meaning_updates_the_note(cli, vault: Path):
    """Saved after the suggestion was made (by hand, or another session's accept): accepting it updates that
    note rather than saving a second copy (the post-compaction suggestions did)."""
    proposal = {"dimensions": [6], "candidates": [{"type": "feedback", "dimension": 6, "name": "Short answers",
                                                   "description": AGAIN, "body": AGAIN}]}
    result = cli.runner.invoke(__import__("mdmem.cli.app").cli.app.app,
                               ["checkpoint", "propose", "--vault", str(vault), "--session", "d1"],
                               input=json.dumps(proposal))
    assert result.exit_code == 0, result.stderr
    saved = cli.json("save", FIRST, "-t", "feedback", "--vault", vault)
    accepted = cli.json("checkpoint", "accept", "1", "--session", "d1", "--vault", vault)
    (one,) = accepted["accepted"]
    assert one["status"] == "updated" and one["path"] == saved["path"]

"""The smaller things a month with mdmem showed, each through the real CLI: a decision's name stops at its reason;
a decision saved without options has no placeholder sections; recall says a note's first sentence once;
uninstall keeps a skill the user edited and takes its own lines out of a .claude/.gitignore the user added to."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the whole module is in the slow lane (.ci/run)

SENTENCE = "We chose PostgreSQL over MongoDB for the billing service because we need transactions"


def test_a_decisions_name_stops_at_its_reason(cli, vault: Path):
    out = cli.json("save", SENTENCE, "--type", "decision", "--vault", vault)
    assert out["name"] == "PostgreSQL over MongoDB for the billing service"


def test_a_decision_without_options_has_no_placeholder_sections(cli, vault: Path):
    out = cli.json("save", "Sessions are kept in Redis from now on.", "--type", "decision", "--vault", vault)
    text = (vault / out["path"]).read_text()
    assert "(not recorded)" not in text and "## Revisit when" not in text and "(see context)" not in text
    assert text.rstrip().endswith("Sessions are kept in Redis from now on.")


def test_recall_says_a_notes_sentence_once(cli, vault: Path):
    cli("save", "The zebracorn office opens at nine on weekdays.", "--type", "reference", "--vault", vault)
    out = cli("recall", "zebracorn office", "--vault", vault).stdout
    assert out.count("The zebracorn office opens at nine on weekdays") == 1, out


def test_uninstall_keeps_an_edited_skill_and_takes_out_only_its_gitignore_lines(cli, vault: Path, tmp_path: Path,
                                                                                 monkeypatch):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cli("install", "claude", "--vault", vault, "--project", project)
    skill = project / ".claude" / "skills" / "consolidate" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Scan this conversation", "Scan this whole conversation"))
    ignore = project / ".claude" / ".gitignore"
    ignore.write_text(ignore.read_text() + "my-notes.txt\n")
    again = cli.json("install", "claude", "--vault", vault, "--project", project)
    assert ("consolidate", "kept") in [(s["name"], s["action"]) for s in again["skills"]["skills"]]
    assert "Scan this whole conversation" in skill.read_text()  # an install does not overwrite the edit either
    gone = cli.json("uninstall", "claude", "--project", project)
    assert ("consolidate", "kept") in [(s["name"], s["action"]) for s in gone["skills"]["skills"]]
    assert "Scan this whole conversation" in skill.read_text()
    assert ignore.read_text() == "my-notes.txt\n"

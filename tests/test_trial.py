"""What a new-user trial found beside forget (tests/test_forget.py): a mistyped --vault made any folder a
vault; recall's empty answers said what was not true, or nothing at all; init copied the skeleton's stale
budget comment. Real files in tmp_path, the real CLI."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from mdmem.ops.budget import budget_comment
from support import run_process

# ------------------------------------------------------------------------------ a folder that is not a vault


@pytest.mark.parametrize("command", [("save", "a fact", "-t", "reference"), ("forget", "a"),
                                     ("install", "claude", "--dry-run")])
def test_a_folder_of_notes_is_refused_by_the_writers_and_left_as_it_was(tmp_path, cli, command):
    docs = tmp_path / "some docs"
    docs.mkdir()
    (docs / "a.md").write_text("# a\n\nfoo\n")
    r = cli(*command, "--vault", docs, code=2)
    assert r.stderr == (f"mdmem: {docs} (--vault) is a folder of notes, not a vault yet: make it one with `mdmem init "
                        f"'{docs}'` before writing to it (reading it works as it is)\n")
    assert r.stdout == ""
    assert sorted(p.name for p in docs.iterdir()) == ["a.md"]  # nothing created


@pytest.mark.parametrize("command", [("search", "x"), ("show", "a"), ("recall", "x"), ("check",), ("graph", "map"),
                                     ("save", "a fact", "-t", "reference")])
def test_a_folder_without_any_note_stays_refused(tmp_path, cli, command):
    docs = tmp_path / "some docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "notes.txt").write_text("foo\n")
    r = cli(*command, "--vault", docs, code=2)
    assert r.stderr == (f"mdmem: {docs} (--vault) is not a vault (no MEMORY.md, memory/, .obsidian/ or .mdmem/, and "
                        f"no note); check the path, or make it one with `mdmem init '{docs}'` (or `mdmem index --vault "
                        f"'{docs}'` to index it as it is)\n")
    assert r.stdout == ""
    assert sorted(p.name for p in docs.iterdir()) == ["sub"]  # nothing created


@pytest.mark.slow
def test_the_same_folder_through_mdmem_vault_and_each_mark_of_a_vault(tmp_path, cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# a\n\nfoo\n")
    r = cli("search", "foo", env={"MDMEM_VAULT": str(docs)}, code=2)
    assert r.stderr.startswith(f"mdmem: {docs} (MDMEM_VAULT) is not a vault (no MEMORY.md")
    assert not (docs / ".mdmem").exists()
    for mark in ("MEMORY.md", "memory/", ".obsidian/", ".mdmem/"):  # any one of them is enough
        folder = tmp_path / mark.strip("/").lstrip(".")
        folder.mkdir()
        (folder / "a.md").write_text("# a\n\nfoo\n")
        if mark.endswith("/"):
            (folder / mark).mkdir()
        else:
            (folder / mark).write_text("# Memory\n")
        assert [h["path"] for h in cli.json("search", "foo", "--vault", folder)["results"]] == ["a.md"], mark


def test_index_takes_a_folder_of_notes_as_it_is(tmp_path, cli):
    """The one way to use a plain folder of notes without adding MEMORY.md and memory/: index it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# a\n\nfoo\n")
    assert cli.json("index", "--vault", docs)["notes"] == 1
    assert sorted(p.name for p in docs.iterdir()) == [".mdmem", "a.md"]
    assert [h["path"] for h in cli.json("search", "foo", "--vault", docs)["results"]] == ["a.md"]


def test_a_separate_process_refuses_it_too(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    proc = run_process("recall", "foo", "--vault", docs)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "`mdmem init" in proc.stderr and sorted(docs.iterdir()) == []


# ------------------------------------------------------------------------------ recall that finds nothing


def _dated_vault(root: Path) -> Path:
    (root / "memory/projects").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory index\n")
    for name, day in (("atlas", "2026-12-02"), ("billing", "2026-11-20"), ("garden", "2026-12-02")):
        (root / f"memory/projects/{name}.md").write_text(f"---\ncreated: {day}\n---\n# {name}\n\nPlans for {name}.\n")
    return root


@pytest.mark.slow
def test_an_empty_window_says_how_many_notes_are_dated_and_the_nearest_date(tmp_path, cli):
    root = _dated_vault(tmp_path / "v")
    out = cli("recall", "what happened yesterday", "--today", "2026-12-02", "--vault", root).stdout
    assert out == ("## Memory recall: what happened yesterday\n\n### yesterday (2026-12-01 – 2026-12-01)\n"
                   "Nothing is dated in this window; 3 notes are dated, the nearest on 2026-12-02.\n")
    out = cli("recall", "last week", "--today", "2026-12-09", "--vault", root).stdout  # 11-30 .. 12-06: holds 12-02
    assert "Nothing is dated" not in out and "- 2026-12-02 atlas (created): atlas\n" in out
    out = cli("recall", "semana passada", "--today", "2026-11-20", "--vault", root).stdout  # 11-09 .. 11-15
    assert out.endswith("Nothing is dated in this window; 3 notes are dated, the nearest on 2026-11-20.\n")


def test_a_recall_that_finds_nothing_says_so(tmp_path, cli):
    root = _dated_vault(tmp_path / "v")
    assert cli("recall", "kubernetes", "--vault", root).stdout == (
        "## Memory recall: kubernetes\n\nNothing found: no notes match.\n")
    got = cli.json("recall", "kubernetes", "--vault", root)
    assert (got["ranked"], got["related"], got["markdown"]) == (
        [], [], "## Memory recall: kubernetes\n\nNothing found: no notes match.\n")
    assert cli("recall", "atlas", "--vault", root).stdout.startswith(
        "## Memory recall: atlas\n\n### atlas (memory/projects/atlas.md)\n")


# ------------------------------------------------------------------------------ init's budget comment


@pytest.mark.slow
def test_init_writes_todays_date_and_the_figure_check_computes(tmp_path, cli):
    new = tmp_path / "new"
    cli("init", new, "--today", "2026-12-02")
    assert (new / "MEMORY.md").read_text().splitlines()[0] == budget_comment(0, 40000, dt.date(2026, 12, 2))
    assert cli.json("check", "--vault", new)["budget"]["tokens"] == 0
    # an existing folder with memory notes: the comment carries their tokens, as check counts them
    old = tmp_path / "old"
    (old / "memory/people").mkdir(parents=True)
    (old / "memory/people/ana.md").write_text("# Ana\n\n" + "Ana runs payments. " * 150)
    (old / "memory/people/.hidden.md").write_text("not a note\n" * 99)
    (old / "notes.md").write_text("outside memory/: not counted\n" * 99)
    cli("init", old, env={"MDMEM_TODAY": "2026-12-03"})
    tokens = cli.json("check", "--vault", old)["budget"]["tokens"]
    assert tokens == (len("# Ana\n\n" + "Ana runs payments. " * 150)) * 10 // 32 == 892
    assert (old / "MEMORY.md").read_text().splitlines()[0] == "<!-- budget: ~892tk / 40000tk (2%) | updated: 2026-12-03 -->"
    # a MEMORY.md that was there already is never changed
    before = (old / "MEMORY.md").read_bytes()
    cli("init", old, "--today", "2027-01-01")
    assert (old / "MEMORY.md").read_bytes() == before

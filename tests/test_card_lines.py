"""Each note's card line is kept beside its head in the notes cache (``said``, ``marks``: decision 063): it is the
line the note's own frontmatter makes (:mod:`mdmem.text.said`), for names and descriptions of every shape, and it
follows an edit of the note; the card lists it as the note would have it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from mdmem.engine.memory import Memory
from mdmem.ops.context import card
from mdmem.text.said import marks, said

NOTES = {
    # the description begins with the name: said alone
    "memory/feedback/lisbon.md": "type: feedback\nname: I live in Lisbon\ndescription: I live in Lisbon and write docs",
    # the description is the name in other words' case and punctuation: the name alone
    "memory/feedback/tabs.md": "type: feedback\nname: Use tabs\ndescription: 'use TABS.'",
    # name and description: both
    "memory/feedback/tests.md": "type: feedback\ndescription: Run the tests before any push",
    # a name written as a file name is kept even when the description extends it
    "memory/feedback/never-run.md": "type: feedback\nname: never-run-migrations\ndescription: never run migrations on the prod box",
    # controls and a tag in the text are written out, runs of spaces made one
    "memory/feedback/odd.md": "type: feedback\nname: \"Odd\\tone <b>\"\ndescription: \"two   spaces\\u2028here\"",
    "memory/protocols/py.md": "type: protocol\npaths: ['**/*.py']\ndescription: Python style",
    "memory/protocols/always.md": "type: protocol\npaths: []\ndescription: Say what you did",
    "memory/projects/open.md": "type: project\nstatus: ' In Progress '\ndescription: The open one",
    "memory/projects/unset.md": "type: project\ndescription: No status",
    "memory/projects/done.md": "type: project\nstatus: done\ndescription: Finished",
    "memory/projects/odd-status.md": "type: project\nstatus: [1, 2]\ndescription: A list for a status",
}


def _write(vault: Path, rel: str, front: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}\n---\nBody.\n", "utf-8")


def _lines(mem: Memory) -> tuple[list, list]:
    heads = list(mem.heads())
    notes = list(mem.notes())
    return [(h.path, h.said, h.marks) for h in heads], [(n.path, said(n), marks(n)) for n in notes]


def test_each_heads_line_is_the_one_its_note_makes_and_follows_an_edit(vault: Path):
    for rel, front in NOTES.items():
        _write(vault, rel, front)
    with Memory(vault) as mem:
        mem.refresh()
        kept, made = _lines(mem)
        assert kept == made and len(kept) > len(NOTES)
        by_path = {p: (s, m) for p, s, m in kept}
        assert by_path["memory/feedback/lisbon.md"] == ("I live in Lisbon and write docs", "o")
        assert by_path["memory/feedback/tabs.md"][0] == "Use tabs"
        assert by_path["memory/feedback/never-run.md"][0] == "never-run-migrations — never run migrations on the prod box"
        assert by_path["memory/protocols/py.md"][1] == "po" and by_path["memory/protocols/always.md"][1] == "o"
        assert [by_path[f"memory/projects/{p}.md"][1] for p in ("open", "unset", "done", "odd-status")] == \
            ["o", "o", "", "o"]
        text = card(mem, today=dt.date(2026, 12, 6))
        assert "- Run the tests before any push" not in text  # the name is the file's title, then the description
        assert "- tests — Run the tests before any push" in text and "- I live in Lisbon and write docs" in text
        # an edit: the kept line follows it, a protocol's paths dropped, a project closed
        _write(vault, "memory/feedback/tests.md", "type: feedback\ndescription: Run the whole suite first")
        _write(vault, "memory/protocols/py.md", "type: protocol\ndescription: Python style")
        _write(vault, "memory/projects/open.md", "type: project\nstatus: paused\ndescription: The open one")
        mem.refresh()
        kept, made = _lines(mem)
        assert kept == made
        by_path = {p: (s, m) for p, s, m in kept}
        assert by_path["memory/feedback/tests.md"][0] == "tests — Run the whole suite first"
        assert by_path["memory/protocols/py.md"][1] == "o" and by_path["memory/projects/open.md"][1] == ""
        text = card(mem, today=dt.date(2026, 12, 6))
        assert "- tests — Run the whole suite first" in text and "Run the tests before" not in text

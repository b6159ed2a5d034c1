"""`save`'s one-note-per-fact look-up at its bounded cost (decision 062): the same content found through the
notes cache's body digest, kept current with the files (an edit in Obsidian not yet indexed never makes a
wrong refusal), and a rewording found among many notes through the search index's candidates."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mdmem.engine.memory import Memory

RULE = "Deploys go through the staging cluster first and wait for the smoke tests to pass"
pytestmark = pytest.mark.slow  # each runs the real CLI several times (> 0.5 s)

OTHER = "Invoices are sent on the first working day of the month, never before the ledger closes"


def test_a_note_edited_on_disk_after_indexing_is_compared_as_it_is_now(cli, vault: Path):
    saved = cli.json("save", RULE, "-t", "feedback", "--name", "staging first", "--vault", vault)
    assert saved["status"] == "created"
    again = cli.json("save", RULE, "-t", "feedback", "--name", "deploy order", "--vault", vault)
    assert (again["status"], again["path"]) == ("unchanged", saved["path"])
    path = vault / saved["path"]
    path.write_text(path.read_text().replace(RULE, OTHER))  # edited in Obsidian: the cache still holds RULE's digest
    with Memory(vault) as mem:
        assert saved["path"] in mem.same_body(RULE)  # stale until the next refresh
    # the old wording is no longer in that note: not "unchanged" pointing at it
    moved = cli.json("save", RULE, "-t", "feedback", "--name", "deploy order", "--vault", vault)
    assert moved["status"] == "created" and moved["path"] != saved["path"]
    # and what the note says now is found there
    now = cli.json("save", OTHER, "-t", "feedback", "--name", "invoice day", "--vault", vault)
    assert (now["status"], now["path"]) == ("unchanged", saved["path"])


def test_a_stale_digest_alone_never_refuses(cli, vault: Path):
    """Read straight from the cache before any refresh: the digest names the note, the file denies it."""
    from mdmem.ops.repeats import repeated

    saved = cli.json("save", RULE, "-t", "feedback", "--name", "staging first", "--vault", vault)
    path = vault / saved["path"]
    path.write_text(path.read_text().replace(RULE, OTHER))
    with Memory(vault) as mem:
        assert repeated(mem, "memory/feedback/deploy-order.md", "deploy order", RULE) is None


def test_a_rewording_among_many_notes_is_found(cli, vault: Path):
    folder = vault / "memory" / "feedback"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(120):  # many notes sharing most words: the note to find sorts last
        (folder / f"a-{i:03}.md").write_text(
            f"---\ntype: feedback\n---\nDeploys of service {i} go through the cluster of region {i % 7}\n")
    target = folder / "z-staging.md"
    target.write_text(f"---\ntype: feedback\n---\n{RULE}, always\n")
    os.utime(target)
    refused = cli("save", RULE, "-t", "feedback", "--name", "deploy order", "--vault", vault, code=1).stderr
    assert "memory/feedback/z-staging.md" in refused and "the same wording" in refused

"""The hooks bring the notes cache up to date without the search index (``Memory.refresh(index=False)``): what the
index then lacks is kept as its lag and folded in by the next command that searches it; a lag that cannot be
trusted (a value that is no generation, changes already pruned) means the index is rebuilt, never read behind."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mdmem.engine.memory import Memory
from mdmem.engine.refresh import INDEX_BEHIND
from tests.support import cache_meta, run_hook, settled

PAYLOAD = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"}


def _set_meta(vault: Path, key: str, value: str) -> None:
    db = sqlite3.connect(vault / ".mdmem" / "notes.db")
    with db:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
    db.close()


def _edit(vault: Path, rel: str, word: str) -> None:
    path = vault / rel
    path.write_text(path.read_text("utf-8") + f"\n\nAlso: {word}.\n", "utf-8")


def _found(cli, vault: Path, word: str) -> list[str]:
    return [r["path"] for r in cli.json("search", word, "--vault", vault)["results"]]


def test_the_card_after_an_edit_updates_the_notes_cache_only_and_search_folds_the_lag_in(vault, tmp_path, cli):
    cli("index", "--vault", vault)
    rel = "memory/feedback/answer-first.md"
    _edit(vault, rel, "zanzibarquux")
    card = run_hook("session-start", vault, tmp_path, PAYLOAD | {"cwd": str(tmp_path)})
    assert card.startswith("# Memory (")
    assert cache_meta(vault, INDEX_BEHIND) not in (None, "")  # the notes cache is current, the search index behind
    with Memory.open(vault) as mem:
        assert mem.notes_current()
    assert rel in _found(cli, vault, "zanzibarquux")  # the search's refresh folded the lag in
    assert cache_meta(vault, INDEX_BEHIND) == ""
    # a second edit and a note removed, each through a hook's refresh, then found / gone in search (the card
    # keeps itself after the edit of a body without refreshing: decision 101; the prompt hook has it refreshed in the
    # background: decision 123)
    prompt = {"session_id": "s2", "hook_event_name": "UserPromptSubmit", "prompt": "what about zanzibarquux?",
              "cwd": str(tmp_path)}
    _edit(vault, "memory/feedback/ask-before-new-dependencies.md", "quetzalplink")
    run_hook("session-start", vault, tmp_path, PAYLOAD | {"cwd": str(tmp_path)})
    run_hook("prompt", vault, tmp_path, prompt)
    assert settled(vault) == 1
    lag = cache_meta(vault, INDEX_BEHIND)
    assert lag not in (None, "")
    (vault / rel).unlink()
    run_hook("prompt", vault, tmp_path, prompt)
    assert cache_meta(vault, INDEX_BEHIND) == lag  # still behind from the first of the two refreshes
    assert _found(cli, vault, "quetzalplink") == ["memory/feedback/ask-before-new-dependencies.md"]
    assert _found(cli, vault, "zanzibarquux") == []


@pytest.mark.parametrize("lag", ["not a number", "pruned"])
def test_a_lag_that_cannot_be_trusted_rebuilds_the_index(vault, tmp_path, cli, lag):
    cli("index", "--vault", vault)
    _edit(vault, "memory/feedback/answer-first.md", "zanzibarquux")
    run_hook("session-start", vault, tmp_path, PAYLOAD | {"cwd": str(tmp_path)})
    if lag == "pruned":  # the changes the index lacks are gone from the cache's record
        _set_meta(vault, "pruned", str(int(cache_meta(vault, "gen") or 0) + 1))
    else:
        _set_meta(vault, INDEX_BEHIND, lag)
    with Memory.open(vault) as mem:
        assert mem.refresh().rebuilt
    assert _found(cli, vault, "zanzibarquux") == ["memory/feedback/answer-first.md"]
    assert cache_meta(vault, INDEX_BEHIND) == ""

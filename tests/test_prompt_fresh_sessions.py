"""The prompt hook's look at whether the notes cache is current stats no imported session note first (the cache
keeps a digest of the vault less ``sessions/``'s notes): a memory note edited, a session note added or removed
is still seen and brought into the cache; a missing or damaged digest only costs the whole look, once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mdmem.base import files
from mdmem.base.layout import SESSIONS_DIR
from tests.support import cache_meta, run_hook, settled

SESSION = """---
type: session
session: 0f3c
agent: claude-code
started: 2026-11-20T10:00:00
---
# Session 2026-11-20

User: we moved the ledger export to {word}.
"""


def _prompt(vault: Path, tmp_path: Path) -> None:
    run_hook("prompt", vault, tmp_path, {"session_id": "s1", "hook_event_name": "UserPromptSubmit",
                                        "prompt": "how does the atlas billing ledger work?", "cwd": str(tmp_path)})


def _db(vault: Path) -> sqlite3.Connection:
    return sqlite3.connect(vault / ".mdmem" / "notes.db")


def _cached(vault: Path) -> dict[str, int]:
    db = _db(vault)
    try:
        return {p: m for p, m in db.execute("SELECT path, mtime_ns FROM notes")}
    finally:
        db.close()


@pytest.fixture
def indexed(vault: Path, cli) -> Path:
    (vault / SESSIONS_DIR).mkdir()
    (vault / SESSIONS_DIR / "2026-11-20-claude-code-0f3c.md").write_text(SESSION.format(word="parquet"), "utf-8")
    cli("index", "--vault", vault)
    return vault


def test_the_cache_keeps_the_digest_less_the_sessions_and_the_hook_sees_every_change_but_their_stats(indexed,
                                                                                                     tmp_path):
    vault = indexed
    assert cache_meta(vault, files.UNSTATED_DIGEST) == files.digest(files.scan(vault), SESSIONS_DIR)
    # a memory note edited: seen
    note = vault / "memory" / "feedback" / "answer-first.md"
    note.write_text(note.read_text("utf-8") + "\nAlso when it is no.\n", "utf-8")
    _prompt(vault, tmp_path)
    assert settled(vault) == 1  # (a body alone: refreshed in the background, decision 123)
    assert _cached(vault)["memory/feedback/answer-first.md"] == note.stat().st_mtime_ns
    # a session note added (its folder's mtime moves): seen, though no session note is stat-ed first
    added = vault / SESSIONS_DIR / "2026-11-21-claude-code-9a1b.md"
    added.write_text(SESSION.format(word="avro"), "utf-8")
    _prompt(vault, tmp_path)
    assert f"{SESSIONS_DIR}/{added.name}" in _cached(vault)
    added.unlink()
    _prompt(vault, tmp_path)
    assert f"{SESSIONS_DIR}/{added.name}" not in _cached(vault)
    assert cache_meta(vault, files.UNSTATED_DIGEST) == files.digest(files.scan(vault), SESSIONS_DIR)
    assert cache_meta(vault, "scan_digest") == files.digest(files.scan(vault))


@pytest.mark.parametrize("damage", ["missing", "garbage"])
def test_a_missing_or_damaged_digest_costs_the_whole_look_once(indexed, tmp_path, damage):
    vault = indexed
    db = _db(vault)
    with db:
        if damage == "missing":
            db.execute("DELETE FROM meta WHERE key=?", (files.UNSTATED_DIGEST,))
        else:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (files.UNSTATED_DIGEST, "\x00not a digest"))
    db.close()
    before = _cached(vault)
    _prompt(vault, tmp_path)
    assert _cached(vault) == before  # nothing changed: nothing parsed again
    assert cache_meta(vault, files.UNSTATED_DIGEST) == files.digest(files.scan(vault), SESSIONS_DIR)


def test_the_walk_that_leaves_a_folders_notes_out_has_the_same_digest(indexed):
    vault = indexed
    whole, light = files.scan(vault), files.scan(vault, SESSIONS_DIR)
    assert not any(p.startswith(SESSIONS_DIR + "/") for p in light.notes)
    assert light.folders == whole.folders
    assert files.digest(light, SESSIONS_DIR) == files.digest(whole, SESSIONS_DIR) != files.digest(whole)

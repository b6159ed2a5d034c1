"""The SessionStart card after an edit: when only notes' bodies changed (no head: name, description, type, tags,
frontmatter...) the kept card stands, and it is the card made from scratch; an edit of what a list shows, of the user's
note (its body is on the card), an added note, or a kept card whose record is missing or damaged: made again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import run_hook

PAYLOAD = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"}


def _card(vault: Path, tmp_path: Path) -> str:
    return run_hook("session-start", vault, tmp_path, PAYLOAD | {"cwd": str(tmp_path)})


def _kept(vault: Path) -> Path:
    """The kept card (one per project: the session's cwd is one)."""
    (kept,) = (vault / ".mdmem" / "hooks").glob("context-card*.json")
    return kept


def _how(vault: Path) -> str:
    """How the last card came: the hook's log line ("kept: only bodies changed" or "made again")."""
    lines = (vault / ".mdmem" / "hooks" / "hook.log").read_text("utf-8").splitlines()
    return next(line for line in reversed(lines) if "session-start source=" in line)


def _fresh(vault: Path, tmp_path: Path) -> str:
    """The card made from scratch (its kept copy removed)."""
    _kept(vault).unlink()
    text = _card(vault, tmp_path)
    assert "made again" in _how(vault)
    return text


def _append(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.write_text(path.read_text("utf-8") + text, "utf-8")


def test_an_edit_of_a_body_keeps_the_card_which_is_the_card_made_from_scratch(vault, tmp_path):
    first = _card(vault, tmp_path)
    _append(vault, "memory/feedback/answer-first.md", "\nAlso when the answer is no.\n")
    _append(vault, "memory/decisions/decision-integer-cents.md", "\nChecked again in December.\n")
    after = _card(vault, tmp_path)
    assert "kept: only bodies changed" in _how(vault)
    assert after == first == _fresh(vault, tmp_path)
    # and again from the card kept so: a second body edit
    _append(vault, "memory/feedback/answer-first.md", "\nEven on Fridays.\n")
    assert _card(vault, tmp_path) == first and "kept: only bodies changed" in _how(vault)


@pytest.mark.parametrize("edit", ["description", "date", "tag", "added", "user", "record"])
def test_an_edit_the_card_may_show_makes_it_again(vault, tmp_path, edit):
    first = _card(vault, tmp_path)
    rel = "memory/feedback/answer-first.md"
    path = vault / rel
    if edit == "description":
        path.write_text(path.read_text("utf-8").replace("no preamble", "never a preamble"), "utf-8")
    elif edit == "date":  # its rank among the feedback
        path.write_text(path.read_text("utf-8").replace("updated: 2026-11-24", "updated: 2026-12-01"), "utf-8")
    elif edit == "tag":  # made sensitive by an inline tag: the card no longer shows it
        _append(vault, rel, "\nSee #sensitive too.\n")
    elif edit == "added":
        (vault / "memory" / "feedback" / "short-commits.md").write_text(
            "---\ntype: feedback\ndescription: One change per commit\n---\nSmall commits.\n", "utf-8")
    elif edit == "user":
        user = next(p for p in (vault / "memory").rglob("*.md") if "type: user" in p.read_text("utf-8"))
        _append(vault, str(user.relative_to(vault)), "\n- Prefers tea to coffee\n")
    else:  # the kept card's record damaged: its frame and store not what they should be
        data = json.loads(_kept(vault).read_text("utf-8"))
        _kept(vault).write_text(json.dumps(data | {"frame": ["not", "a", "frame"], "store": "garbage"}), "utf-8")
        _append(vault, rel, "\nAlso when the answer is no.\n")
    after = _card(vault, tmp_path)
    assert "made again" in _how(vault)
    assert after == _fresh(vault, tmp_path)
    if edit in ("description", "added", "tag"):
        assert after != first


def test_a_kept_card_with_no_record_of_its_frame_is_made_again_after_an_edit(vault, tmp_path):
    """A card kept by an older version (no frame or store) or a truncated file: made again, never trusted."""
    _card(vault, tmp_path)
    for damaged in ('{"text": "# Memory (stale)"}', "{not json"):
        _kept(vault).write_text(damaged, "utf-8")
        _append(vault, "memory/feedback/answer-first.md", "\nOnce more.\n")
        assert "stale" not in _card(vault, tmp_path)
        assert "made again" in _how(vault)


# ----------------------------------------------------------------------------- told without parsing (decision 101)

def _gen(vault: Path) -> tuple[str, str]:
    """The notes cache's epoch and generation: what moves when it is written."""
    import sqlite3

    db = sqlite3.connect(vault / ".mdmem" / "notes.db")
    try:
        meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('epoch', 'gen')"))
    finally:
        db.close()
    return meta.get("epoch", ""), meta.get("gen", "0")


def test_a_body_edit_keeps_the_card_with_no_note_parsed_and_the_next_command_reads_the_new_body(vault, tmp_path, cli):
    first = _card(vault, tmp_path)
    before = _gen(vault)
    _append(vault, "memory/feedback/answer-first.md", "\nZanzibarword checked again.\n")
    assert _card(vault, tmp_path) == first
    assert "none parsed" in _how(vault)
    assert _gen(vault) == before  # the cache left as it was: nothing in it claims the new body
    # the next command refreshes and parses the note: the new body is what it reads
    assert "answer-first" in cli("search", "Zanzibarword", "--vault", str(vault)).stdout
    assert _card(vault, tmp_path) == first == _fresh(vault, tmp_path)


def test_an_inline_tag_added_to_a_body_keeps_the_card_unparsed(vault, tmp_path):
    """The card shows no tag and reads none but ``sensitive``: a tag (in a heading, a quote, a table) is a body's."""
    first = _card(vault, tmp_path)
    _append(vault, "memory/feedback/answer-first.md", "\n## More #style\n\n>#tone\n\n|#a|b|\n|-|-|\n")
    assert _card(vault, tmp_path) == first
    assert "none parsed" in _how(vault)
    assert first == _fresh(vault, tmp_path)


def _symlink(vault: Path, rel: str) -> None:
    """The note replaced by a link to a copy of itself, the same frontmatter, another body."""
    path = vault / rel
    other = path.with_name("elsewhere.txt")
    other.write_text(path.read_text("utf-8") + "\nOne more line.\n", "utf-8")
    path.unlink()
    path.symlink_to(other.name)


def _corrupt_front(vault: Path, rel: str) -> None:
    import sqlite3

    db = sqlite3.connect(vault / ".mdmem" / "notes.db")
    with db:
        db.execute("UPDATE heads SET front=? WHERE path=?", ("garbage", rel))
    db.close()
    _append(vault, rel, "\nOnce more.\n")


@pytest.mark.parametrize("edit", ["frontmatter", "sensitive tag", "sensitive note", "user", "symlink", "corrupt row",
                                  "no cache", "garbage cache", "file date", "added"])
def test_what_may_move_a_head_is_never_told_without_parsing(vault, tmp_path, edit):
    """Every edit that could move a head, or that cannot be told from the bytes, goes the parsed way; the card
    is then the card made from scratch."""
    import os

    _card(vault, tmp_path)
    rel = "memory/feedback/answer-first.md"
    path = vault / rel
    if edit == "frontmatter":  # a key the card does not show: parsed all the same, the head compared
        path.write_text(path.read_text("utf-8").replace("type: feedback\n", "type: feedback\nseen: yes\n"), "utf-8")
    elif edit == "sensitive tag":
        _append(vault, rel, "\n> quoted\n>#Sensitive/\n")
    elif edit == "sensitive note":  # sensitive by its frontmatter: never told without parsing either
        path.write_text(path.read_text("utf-8").replace("type: feedback\n", "type: feedback\nsensitive: true\n"), "utf-8")
        _card(vault, tmp_path)
        _append(vault, rel, "\nOnce more.\n")
    elif edit == "user":
        user = next(p for p in (vault / "memory").rglob("*.md") if "type: user" in p.read_text("utf-8"))
        _append(vault, str(user.relative_to(vault)), "\n- Prefers tea to coffee\n")
    elif edit == "symlink":
        _symlink(vault, rel)
    elif edit == "corrupt row":
        _corrupt_front(vault, rel)
    elif edit == "no cache":
        for suffix in ("", "-wal", "-shm"):
            (vault / ".mdmem" / f"notes.db{suffix}").unlink(missing_ok=True)
        _append(vault, rel, "\nOnce more.\n")
    elif edit == "garbage cache":
        for suffix in ("-wal", "-shm"):
            (vault / ".mdmem" / f"notes.db{suffix}").unlink(missing_ok=True)
        (vault / ".mdmem" / "notes.db").write_bytes(b"not a database" * 100)
        _append(vault, rel, "\nOnce more.\n")
    elif edit == "file date":  # a note whose date is its file's: the date moves with the file
        note = vault / "memory" / "feedback" / "undated.md"
        note.write_text("---\ntype: feedback\ndescription: Dates from the file\n---\nBody.\n", "utf-8")
        os.utime(note, (1_600_000_000, 1_600_000_000))
        _card(vault, tmp_path)
        _append(vault, "memory/feedback/undated.md", "\nMore.\n")
        os.utime(note, (1_700_000_000, 1_700_000_000))
    else:
        (vault / "memory" / "feedback" / "short-commits.md").write_text(
            "---\ntype: feedback\ndescription: One change per commit\n---\nSmall commits.\n", "utf-8")
    after = _card(vault, tmp_path)
    assert "none parsed" not in _how(vault)
    assert after == _fresh(vault, tmp_path)

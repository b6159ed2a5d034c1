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
    elif edit == "tag":
        _append(vault, rel, "\nSee #style too.\n")
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
    if edit in ("description", "added"):
        assert after != first


def test_a_kept_card_with_no_record_of_its_frame_is_made_again_after_an_edit(vault, tmp_path):
    """A card kept by an older version (no frame or store) or a truncated file: made again, never trusted."""
    _card(vault, tmp_path)
    for damaged in ('{"text": "# Memory (stale)"}', "{not json"):
        _kept(vault).write_text(damaged, "utf-8")
        _append(vault, "memory/feedback/answer-first.md", "\nOnce more.\n")
        assert "stale" not in _card(vault, tmp_path)
        assert "made again" in _how(vault)

"""The SessionStart card made again from the notes cache as it stands (decision 120): read without the engine (the heads
of the kinds the card lists, the other notes as counts by type, project and flags), it is the card the engine makes
after a refresh, and the card made from every note's head, after each kind of change a vault sees."""

from __future__ import annotations

import datetime as dt
import os
import shutil
from pathlib import Path

import pytest

from mdmem.base import files
from mdmem.base.projects import scope_for
from mdmem.engine.heads import HeadReader
from mdmem.engine.memory import Memory
from mdmem.ops.block import CARD_TYPES, _counts, _notes, card
from tests.support import run_hook

PAYLOAD = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"}
REF = "memory/references/adyen-webhooks.md"


def _card(vault: Path, tmp_path: Path) -> tuple[str, str]:
    """The hook's card and how it came (its log line)."""
    text = run_hook("session-start", vault, tmp_path, PAYLOAD | {"cwd": str(tmp_path)})
    lines = (vault / ".mdmem" / "hooks" / "hook.log").read_text("utf-8").splitlines()
    return text, next(line for line in reversed(lines) if "session-start source=" in line)


def _uncached(vault: Path, tmp_path: Path) -> tuple[str, str]:
    for kept in (vault / ".mdmem" / "hooks").glob("context-card*.json"):
        kept.unlink()
    return _card(vault, tmp_path)


def _edit(vault: Path, rel: str, old: str, new: str) -> None:
    path = vault / rel
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")


def _change(vault: Path, change: str) -> None:
    if change == "description":
        _edit(vault, "memory/feedback/answer-first.md", "description: ", "description: Now: ")
    elif change == "added":  # one of a kind the card lists, one it only counts
        (vault / "memory" / "feedback" / "short-commits.md").write_text(
            "---\ntype: feedback\ndescription: One change per commit\n---\nSmall commits.\n", "utf-8")
        (vault / "memory" / "references" / "kafka-topics.md").write_text(
            "---\ntype: reference\ndescription: The topics we keep\n---\norders, refunds.\n", "utf-8")
    elif change == "removed":
        (vault / REF).unlink()
        (vault / "memory" / "feedback" / "no-diff-summaries.md").unlink()
    elif change == "moved":
        (vault / REF).rename(vault / "memory" / "adyen-webhooks.md")
        (vault / "memory" / "feedback" / "answer-first.md").rename(vault / "memory" / "feedback" / "answer-early.md")
    elif change == "sensitive":  # a note only counted, made sensitive: no longer counted
        _edit(vault, REF, "type: reference", "type: reference\nsensitive: true")
    elif change == "project":  # of another project: neither counted nor listed in this one
        _edit(vault, REF, "type: reference", 'type: reference\nproject: "[[elsewhere]]"')
        _edit(vault, "memory/feedback/answer-first.md", "type: feedback", 'type: feedback\nproject: "[[elsewhere]]"')
    elif change == "superseded":  # a counted note superseded by another: hidden
        (vault / "memory" / "references" / "adyen-webhooks-v2.md").write_text(
            '---\ntype: reference\ndescription: Webhooks, again\nsupersedes: "[[adyen-webhooks]]"\n---\nv2.\n', "utf-8")
    elif change == "people":  # more people than the card names: the first 15 shown read, the rest counted
        for i in range(20):
            extra = "sensitive: true\n" if i == 1 else 'project: "[[elsewhere]]"\n' if i == 2 else ""
            (vault / "memory" / "people" / f"aa-person-{i:02}.md").write_text(
                f"---\ntype: person\nname: Person {i:02}\n{extra}---\nMet at work.\n", "utf-8")
    elif change == "conflict":  # a sync conflict copy of a counted note: never a memory until resolved
        shutil.copy(vault / REF, vault / "memory" / "references" / "adyen-webhooks (conflicted copy 2026-12-01).md")
    else:
        raise AssertionError(change)


@pytest.mark.parametrize("change", ["description", "added", "removed", "moved", "sensitive", "project",
                                    "superseded", "conflict", "people"])
def test_the_card_from_the_cache_is_the_card_made_after_a_refresh_and_from_every_head(vault, tmp_path, change):
    _card(vault, tmp_path)
    _change(vault, change)
    refreshed, how = _card(vault, tmp_path)  # the cache behind the files: refreshed through the engine, then made
    assert "card made again" in how and "from the notes cache" not in how
    uncached, how = _uncached(vault, tmp_path)  # the cache current: read as it stands
    assert "made again from the notes cache" in how
    assert uncached == refreshed
    if change == "people":
        assert "Person 00, Person 03," in uncached and "Person 01" not in uncached and "(+" in uncached
    # and the lists and counts as the card makes them from every note's head, as before it read only its kinds
    scope = scope_for(None, str(tmp_path), str(vault), {}, session=True)
    day = dt.date.today()
    with Memory.open(vault) as mem:
        assert mem.notes_current()
        every = card(mem, _notes(mem, False, day, scope), today=day)
        walk = files.scan(vault)
        with HeadReader.open(str(vault), walk) as reader:
            listed = _notes(reader, False, day, scope, CARD_TYPES)
            assert all(n.type in CARD_TYPES for n in listed)
            assert card(reader, listed, today=day, counts=_counts(reader, listed, False, day, scope)) == every


def test_a_cache_behind_the_files_or_of_another_layout_is_not_read_as_it_stands(vault, tmp_path):
    _card(vault, tmp_path)
    _uncached(vault, tmp_path)  # (the first run built the cache)
    assert HeadReader.open(str(vault), files.scan(vault)) is not None
    _edit(vault, REF, "description: ", "description: Now: ")
    assert HeadReader.open(str(vault), files.scan(vault)) is None  # behind: the hook refreshes it first
    _card(vault, tmp_path)
    import sqlite3

    db = sqlite3.connect(vault / ".mdmem" / "notes.db")
    with db:
        db.execute("UPDATE meta SET value='9' WHERE key='schema'")
    db.close()
    assert HeadReader.open(str(vault), files.scan(vault)) is None  # another layout: the engine rebuilds it
    text, how = _uncached(vault, tmp_path)
    assert "# Memory (" in text and "card made again (" in how


def test_the_card_is_keyed_by_the_notes_and_their_stats_not_by_other_files(vault, tmp_path):
    """The card's key (:func:`mdmem.agents.hooks.session.fingerprint`) holds the notes' paths and the sums of their
    stats: an edit (however small), an added, removed or renamed note moves it; an editor's backup file does not."""
    from mdmem.agents.hooks.session import fingerprint

    def key() -> str:
        return fingerprint(str(vault), str(tmp_path))

    before = key()
    backup = vault / "memory" / "feedback" / "answer-first.md~"
    backup.write_text("an editor's backup\n", "utf-8")
    assert key() == before
    backup.unlink()
    note = vault / "memory" / "feedback" / "answer-first.md"
    data, st = note.read_bytes(), note.stat()
    note.write_bytes(data.replace(b"a", b"b", 1))  # same size, its mtime put back: its ctime moved
    os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
    edited = key()
    assert edited != before
    note.rename(vault / "memory" / "feedback" / "answer-early.md")
    assert key() not in (before, edited)


def test_the_card_reads_every_kind_it_lists():
    from mdmem.base.provenance import RULE_TYPES

    assert RULE_TYPES <= CARD_TYPES  # an agent's proposals of these types are listed: their heads must be read


def test_the_uses_the_card_ranks_by_leave_its_own_lines_out_whatever_the_paths_say(tmp_path):
    """``usage.read(ignore=(CARD,))`` skips the card's own lines unparsed (most of a months-old log): a line of another
    use whose path spells the words of a card line is counted all the same."""
    from mdmem.base.usage import CARD, read, record

    record(tmp_path, ["memory/a.md", 'memory/"how":"card".md'], "prompt", 100.0)
    record(tmp_path, ["memory/a.md", "memory/b.md"], CARD, 200.0)
    record(tmp_path, ["memory/b.md"], "recall", 50.0)
    assert read(tmp_path, ignore=(CARD,)) == {"memory/a.md": (1, 100.0), 'memory/"how":"card".md': (1, 100.0),
                                               "memory/b.md": (1, 50.0)}
    assert read(tmp_path)["memory/b.md"] == (2, 200.0)

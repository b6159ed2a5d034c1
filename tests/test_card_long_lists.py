"""The card with lists far longer than its room (decision 126): it makes the lines of a list only as far as it reads
them, reads their text from the notes cache a chunk at a time, and lists whose needs are over the room take their
shares in the card's order. The same card from the notes cache as it stands and after a refresh through the engine."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from mdmem.base import files
from mdmem.base.projects import scope_for
from mdmem.engine.heads import HeadReader
from mdmem.engine.memory import Memory
from mdmem.ops.block import CARD_TYPES, _counts, _notes, card
from mdmem.ops.fit import Listed, share

DAY = dt.date(2026, 12, 6)
WORDS = "answer review commit deploy cache schema branch release migrate rollback".split()


def _vault(root: Path, feedback: int = 400, protocols: int = 200) -> Path:
    """A vault of many feedback notes and protocols, each with a description of its own (real lists: thousands)."""
    for kind, folder, many in (("feedback", "feedback", feedback), ("protocol", "protocols", protocols)):
        (root / "memory" / folder).mkdir(parents=True)
        for i in range(many):
            words = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(6))
            (root / "memory" / folder / f"{kind}-{i:04}.md").write_text(
                f"---\ntype: {kind}\ndescription: {kind} {i} says {words}\ndate: 2026-{1 + i % 12:02}-{1 + i % 28:02}"
                f"\n---\nBody {i}.\n", "utf-8")
    (root / "MEMORY.md").write_text("# Memory\n", "utf-8")
    return root


def _both(vault: Path, tmp_path: Path) -> tuple[str, str, list[str]]:
    """The card made through the engine, the card made from the cache as it stands, and the SQL the latter ran."""
    scope = scope_for(None, str(tmp_path), str(vault), {}, session=True)
    with Memory.open(vault) as mem:
        mem.refresh()
        engine = card(mem, _notes(mem, False, DAY, scope, CARD_TYPES), today=DAY,
                      counts=_counts(mem, _notes(mem, False, DAY, scope, CARD_TYPES), False, DAY, scope))
    statements: list[str] = []
    with HeadReader.open(str(vault), files.scan(vault)) as reader:
        reader._db.set_trace_callback(statements.append)
        listed = _notes(reader, False, DAY, scope, CARD_TYPES)
        cached = card(reader, listed, today=DAY, counts=_counts(reader, listed, False, DAY, scope))
    return engine, cached, statements


def test_a_card_of_long_lists_reads_a_few_chunks_not_a_query_a_line(tmp_path):
    vault = _vault(tmp_path / "v")
    engine, cached, statements = _both(vault, tmp_path)
    assert cached == engine
    assert "- … and " in cached and "type:feedback" in cached and "type:protocol" in cached  # both cut to the room
    lines = sum(1 for line in cached.splitlines() if re.match(r"- (feedback|protocol)-\d+ — ", line))
    assert 10 < lines < 120
    by_path = [s for s in statements if "WHERE path=" in s]  # a line's text read alone: one query a line
    chunks = [s for s in statements if "WHERE path IN" in s]
    assert not by_path, by_path[:3]
    assert 1 <= len(chunks) <= 8, len(chunks)


def test_a_long_list_makes_only_the_lines_it_needs():
    made: list[int] = []

    class Note:
        def __init__(self, i: int):
            self.path, self.i = f"memory/feedback/n{i}.md", i

    def line(note: Note) -> str:
        made.append(note.i)
        return f"- rule number {note.i}, said in about forty bytes"

    long = Listed("## Feedback", ([Note(i) for i in range(5000)], line, ()), "- … and {n} more")
    assert long.need(2000) > 2000 and len(made) < 60  # over the room: not all 5,000 lines made to say so
    used = long.fit(1500)
    assert 0 < used <= 1500 and long.shown[-1].startswith("- … and ") and len(made) < 60
    assert long.named() == [f"memory/feedback/n{i}.md" for i in range(len(long.shown) - 2)]
    short = Listed("## Short", ([Note(i) for i in range(3)], line, ()), "- … and {n} more")
    assert short.need(2000) == sum(len(t.encode()) + 1 for t in ["## Short", *short.lines])  # under: exact


def test_lists_over_the_room_take_their_shares_in_the_cards_order():
    """Two lists each over the room split it; the first given goes first (its lines' granularity leaves the second
    what it did not use), whatever their whole lengths (they are not made to be measured)."""

    def many(n: int, word: str) -> Listed:
        return Listed(f"## {word}", [f"- {word} {i} with some words to fill a line" for i in range(n)], "- … {n} more")

    def used(part: Listed) -> int:
        return sum(len(t.encode()) + 1 for t in part.shown)

    first, second = many(300, "feedback"), many(100, "protocols")
    assert share([first, second], 1000) <= 1000 and first.shown and second.shown
    assert used(first) <= 500 < used(second)  # the first took its half; the second, the rest
    a, b = many(300, "feedback"), many(100, "protocols")
    share([b, a], 1000)  # the order given decides, not which is longer
    assert used(b) <= 500 < used(a)
    small = many(2, "days")
    share([many(300, "feedback"), small], 1000)
    assert len(small.shown) == 3  # a list that fits is shown whole before the long ones share the rest


def test_the_cards_rows_come_from_an_index_a_cache_made_before_it_gains_without_a_rebuild(tmp_path):
    import sqlite3

    vault = _vault(tmp_path / "v", feedback=30, protocols=10)
    with Memory.open(vault) as mem:
        mem.refresh()
    path = vault / ".mdmem" / "notes.db"
    db = sqlite3.connect(path)
    epoch = db.execute("SELECT value FROM meta WHERE key='epoch'").fetchone()
    db.execute("DROP INDEX heads_card")  # a cache written before the index
    db.commit()
    db.close()
    with Memory.open(vault) as mem:
        assert mem.notes_current()
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key='epoch'").fetchone() == epoch  # not made again
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    from mdmem.engine.heads import lean_heads

    heads = lean_heads(db, ["feedback", "protocol", "user"], ("user",), ("user",), ("user",))
    assert len(heads) == 40
    plans = [db.execute("EXPLAIN QUERY PLAN " + s).fetchall() for s in statements if "FROM heads WHERE type IN" in s]
    assert any("COVERING INDEX heads_card" in str(p) for p in plans), plans
    db.close()

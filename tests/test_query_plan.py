"""The common-word split (``engine/query_plan.common_split``): a question's common words only add to the notes
that hold one of its rarer words, once enough notes do; the scores of those notes do not move."""

from __future__ import annotations

from pathlib import Path

import pytest
from whoosh import query as q

from mdmem.base.settings import OFF
from mdmem.engine.memory import Memory
from mdmem.engine.query_plan import COMMON, common_split


def _vault(root: Path, rare_notes: int) -> Path:
    """150 notes say "The harbour was calm" (common words: in every note); ``rare_notes`` of them also say
    "zeppelin" once, in 300 words (rare while under 10% of the notes); one more note says "The harbour was calm"
    forty times and never "zeppelin", so BM25F ranks it above the long notes that hold the rare word."""
    folder = root / "memory" / "references"
    folder.mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n")
    for i in range(150):
        extra = " A zeppelin passed. " + " ".join(f"word{i}x{j}" for j in range(300)) if i < rare_notes else ""
        (folder / f"note-{i:03d}.md").write_text(f"# Note {i}\n\nThe harbour was calm.{extra}\n")
    (folder / "tide-log.md").write_text("# Log\n\n" + "The harbour was calm. " * 40 + "\n")
    return root


def _hits(root: Path, text: str) -> list[tuple[str, float]]:
    mem = Memory.open(root)
    mem.refresh()
    return [(h.path, h.score) for h in mem.search(text, 10, recency=OFF, mode="lexical").results]


@pytest.mark.slow
def test_a_note_with_only_common_words_is_not_scored_once_enough_notes_hold_a_rare_one(tmp_path: Path):
    hits = _hits(_vault(tmp_path, rare_notes=14), "a zeppelin over the calm harbour?")
    assert [p for p, _ in hits] == [f"memory/references/note-{i:03d}.md" for i in range(10)]


def test_with_fewer_notes_holding_a_rare_word_than_the_pool_the_query_runs_whole(tmp_path: Path):
    hits = _hits(_vault(tmp_path, rare_notes=5), "a zeppelin over the calm harbour?")
    paths = [p for p, _ in hits]
    assert paths[0] == "memory/references/tide-log.md"  # what the whole query ranks first


@pytest.mark.slow
def test_the_notes_holding_a_rare_word_keep_their_exact_scores(tmp_path: Path):
    root = _vault(tmp_path, rare_notes=14)
    mem = Memory.open(root)
    mem.refresh()
    searcher = mem.index._searcher_()
    whole = mem.index.parse_query("zeppelin calm harbour")
    split = common_split(whole, searcher, 10)
    assert isinstance(split, q.AndMaybe)
    before = {hit["path"]: hit.score for hit in searcher.search(whole, limit=None)}
    after = {hit["path"]: hit.score for hit in searcher.search(split, limit=None)}
    assert len(after) == 14 and len(before) == 151
    assert all(after[path] == before[path] for path in after)
    assert 14 / 152 < COMMON < 151 / 152
    # a lone word, or notes holding a rare word fewer than the pool: the query as it was
    assert common_split(mem.index.parse_query("harbour"), searcher, 10) == mem.index.parse_query("harbour")
    assert common_split(whole, searcher, 15) == whole

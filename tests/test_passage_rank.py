"""Lexical search's best-passage stage: a note whose one passage holds the question's words
together ranks above a longer note that holds each of them more often, in different passages."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mdmem import Memory
from mdmem.base.settings import Recency
from mdmem.text.passage_rank import best_passages, blend, count_passages

FILLER = ("The weather was grey and the meeting ran long, so we talked about budgets, printers, parking, "
          "lunch options and the quarterly review for a while before anyone remembered the agenda.")


def _note(special: dict[int, str], total: int = 12) -> str:
    """``total`` filler paragraphs (each over 30 words), paragraph ``i`` led by ``special[i]``."""
    return "\n\n".join(f"{special.get(i, '')} {FILLER} Item {i}.".strip() for i in range(total)) + "\n"


def _vault(root: Path) -> Path:
    notes = root / "memory" / "daily"
    notes.mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    # each word three times, never in one passage: whole-note BM25F puts this note first
    (notes / "2026-01-02.md").write_text(_note({0: "I bought a kayak.", 2: "Lisbon was sunny.", 4: "The kayak is red.",
                                                6: "Lisbon again.", 8: "A kayak paddle.", 10: "Lisbon trams."}),
                                         encoding="utf-8")
    # both words once, in one paragraph: the passage that answers "kayak in Lisbon"
    (notes / "2026-01-05.md").write_text(_note({5: "We rented a kayak in Lisbon on the river."}), encoding="utf-8")
    for day in ("2026-01-07", "2026-01-09", "2026-01-11"):
        (notes / f"{day}.md").write_text(_note({}), encoding="utf-8")
    return root


def test_the_note_whose_passage_holds_the_words_together_comes_first(tmp_path: Path):
    with Memory.open(_vault(tmp_path / "v")) as mem:
        mem.refresh()
        plain = mem.index.search("kayak in Lisbon", 5, recency=Recency(weight=0.0))  # BM25F alone
        assert [h.path for h in plain] == ["memory/daily/2026-01-02.md", "memory/daily/2026-01-05.md"]
        hits = mem.search("kayak in Lisbon", 5, recency=Recency(weight=0.0), mode="lexical").results
        assert [h.path for h in hits] == ["memory/daily/2026-01-05.md", "memory/daily/2026-01-02.md"]
        # the first note keeps its BM25F score when it stays first; the snippet is the best passage
        assert "Item 4. We rented a **kayak** in **Lisbon** on the river." in hits[0].snippet
        assert hits[1].score < plain[0].score


def test_best_passages_and_blend_are_bm25_over_passages():
    def analyse(text: str) -> Counter[str]:
        return Counter(w.lower().strip(".,") for w in text.split())

    one = count_passages("alpha beta\n\ngamma", "", analyse)  # one short section: one passage
    two = count_passages("## One\n" + "alpha gamma " * 10 + "\n\n## Two\n" + "beta " * 15, "Title", analyse)
    assert [(n, text) for _, n, text in one] == [(3, "alpha beta\n\ngamma")]
    assert [n for _, n, _ in two] == [23, 18]  # "##", the heading word, the words, the title
    assert all(tf["title"] == 1 for tf, _, _ in two)  # the title counts in every passage
    best = best_passages([one, two], {"alpha": 2.0, "beta": 1.0})
    assert best[0][1] == "alpha beta\n\ngamma"
    assert best[1][1].startswith("## One\nalpha gamma")
    mean = (3 + 23 + 18) / 3
    norm = 1.2 * (0.7 + 0.3 * 3 / mean)
    assert best[0][0] == pytest.approx(2.0 * 2.2 / (1 + norm) + 1.0 * 2.2 / (1 + norm), rel=1e-12)
    norm = 1.2 * (0.7 + 0.3 * 23 / mean)
    assert best[1][0] == pytest.approx(2.0 * 10 * 2.2 / (10 + norm), rel=1e-12)
    assert best_passages([count_passages("nothing here at all", "", analyse)], {"alpha": 1.0}) == [(0.0, "")]
    assert blend([10.0, 8.0, 4.0], [1.0, 2.0]) == [0.5 * 10 + 0.5 * 10 * 0.5, 0.5 * 8 + 0.5 * 10, 0.5 * 4]
    assert blend([10.0, 8.0], [0.0, 0.0]) == [10.0, 8.0]  # no passage matched: BM25F as it was

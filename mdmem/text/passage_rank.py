"""Lexical search's second stage: the first notes BM25F ranked, scored again by their best passage.

Each of the first :data:`DEPTH` notes is scored again by its best passage (BM25 over
:mod:`mdmem.text.passages`) and blended with its BM25F (:data:`SHARE`), so a long note that says each
word in a different exchange no longer beats the exchange that says them together.

Pure: texts in, scores out; the caller (:mod:`mdmem.engine.index`) gives the analyser and the idf.

Measurements: docs/decisions/057-passages-and-hybrid-search.md
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from mdmem.text.passages import passages

DEPTH = 10    # notes scored again (measured: 10, 20 and 30 gave the same figures on both sets)
SHARE = 0.5   # weight of the best passage in a note's score
K1 = 1.2
B = 0.3


Counted = list[tuple[Counter[str], int, str]]  # per passage: term counts, terms in all, its Markdown


def count_passages(body: str, title: str, analyse: Callable[[str], Counter[str]]) -> Counted:
    """A note body's passages as term counts (``analyse`` turns a text into {index term: count}), the
    title's terms counted in every passage."""
    head = analyse(title)
    out = []
    for p in passages(body):
        terms = analyse(p.text) + head
        out.append((terms, sum(terms.values()), p.text))
    return out


def best_passages(notes: Sequence[Counted], idf: dict[str, float]) -> list[tuple[float, str]]:
    """For each note (:func:`count_passages`): (BM25 of its best passage, that passage's Markdown);
    ``idf`` maps each query term to its weight, a passage's length is set against the mean of all the
    notes' passages. A note no passage of which matches gets (0.0, "")."""
    sizes = [n for rows in notes for _, n, _ in rows]
    mean = (sum(sizes) / len(sizes)) if sizes else 1.0
    out = []
    for rows in notes:
        best, text = 0.0, ""
        for tf, n, passage in rows:
            norm = K1 * (1 - B + B * n / (mean or 1.0))
            score = 0.0
            for t, w in idf.items():
                f = tf.get(t)
                if f:
                    score += w * f * (K1 + 1) / (f + norm)
            if score > best:
                best, text = score, passage
        out.append((best, text))
    return out


def blend(scores: Sequence[float], best: Sequence[float], share: float = SHARE) -> list[float]:
    """Note scores (BM25F, best first) blended with their best passages' scores (same order, as many or
    fewer: the notes past them count a passage score of 0). Unchanged when no passage matched."""
    top_best = max(best, default=0.0)
    if not scores or top_best <= 0:
        return list(scores)
    top = max(scores)
    return [(1 - share) * s + share * top * (best[i] / top_best if i < len(best) else 0.0)
            for i, s in enumerate(scores)]

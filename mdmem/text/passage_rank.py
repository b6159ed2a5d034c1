"""Lexical search's second stage: the first notes BM25F ranked, scored again by their best passage.

A session note or a daily note holds many subjects; whole-note BM25F adds up a question's words
wherever they fall, so a long note that says each word once in a different exchange beats the short
exchange that says them together. The second stage cuts each of the first :data:`DEPTH` notes into
the same passages search by meaning embeds (:mod:`mdmem.text.passages`), scores every passage with
BM25 (the index's idf, passage length against the mean of the candidates' passages) and blends::

    score = (1 - SHARE) x note BM25F + SHARE x top BM25F x best passage / top best passage

so scores stay in BM25F's units and a note below :data:`DEPTH` (its passage part counted as 0) can
never rise above one that was scored. The note's title leads every passage (BM25F
boosts a title match; a passage score without it would sink a note found by its title).

Measured on the development splits only (a harness over ``scripts/bench_recall.py``'s vaults and
``Memory.lexical``; Hit@1 / R@5 any / R@5 all / MRR@10, figures in ``docs-notes/longmemeval.md``):

* REALTALK dev, 289 questions (two-person chats, one ~800-word note a session): whole-note BM25F
  0.633 / 0.910 / 0.706 / 0.745 -> **0.682 / 0.917 / 0.706 / 0.775**;
* LongMemEval_s dev, 181 questions (~50 user-assistant sessions a vault): 0.851 / 0.945 / 0.818 / 0.896 ->
  **0.873 / 0.978 / 0.851 / 0.913**.

``SHARE`` 0.25 / 0.5 / 0.75 / 1.0 (first trial, b 0.75) on REALTALK: Hit@1 0.661 / 0.671 / 0.689 / 0.675, R@5 all
0.716 / 0.709 / 0.696 / 0.682: the passage alone loses the whole-note evidence a multi-part answer needs; 0.5
is the largest share that kept every figure at or above whole-note BM25F on both sets. ``DEPTH`` 10 / 20 / 30:
the same figures on both. ``B`` 0.75 -> 0.3: REALTALK Hit@1 0.671 -> 0.682 (R@5 all 0.716 -> 0.706), LongMemEval
the same Hit@1 (R@5 any 0.983 -> 0.978), and a short passage that names a word once no longer beats a note that
names it twice (the sample vault's "VLANs"). Sliding windows of 60 or 120 words instead of the passages, or the
share of the question's idf a passage covers instead of BM25: no better. Cost: the first :data:`DEPTH` notes are
read and cut again for each query (REALTALK-size notes: +11 ms p50 a query on this machine under load, ~+1.5 ms
when their counted passages are cached; 1.05-1.10x the warm query time at 10k generated notes, interleaved).

Pure: texts in, scores out; the caller (:mod:`mdmem.engine.index`) gives the analyser and the idf.
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

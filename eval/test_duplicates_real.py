"""One note per fact, measured: the same-meaning detector (mdmem.text.meaning) on real pairs of rules from
public CLAUDE.md, AGENTS.md, Cursor rules and memory files (eval/data/duplicates: SOURCES.md), labelled same /
different. The dev part set the bars; the held-out part (other topics: tests, Python tooling, docs, answer
style) was never tuned on. Precision matters most: a refusal the user did not want is worse than a duplicate.

Figures (docs/decisions/031-one-note-per-fact.md): words alone dev P 1.00 R 0.33, held-out P 0.67 R 0.15;
with MiniLM vectors dev P 1.00 R 0.57, held-out P 0.83 R 0.77; with USE vectors as words alone but one pair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mdmem.text.meaning import same_meaning

DATA = Path(__file__).parent / "data" / "duplicates"


def _load():
    rules = {r["id"]: r["text"] for r in map(json.loads, (DATA / "rules.jsonl").read_text().splitlines())}
    pairs = [json.loads(line) for line in (DATA / "pairs.jsonl").read_text().splitlines()]
    return rules, pairs


def _score(rules, pairs, split: str, model: str | None) -> tuple[float, float]:
    cos = {}
    if model:
        from mdmem.engine import embed

        try:
            m = embed.model(model)
        except embed.SemanticUnavailable:
            pytest.skip(f"{model} not installed")
        ids = list(rules)
        cos = dict(zip(ids, m.embed([rules[i] for i in ids])))
    tp = fp = fn = 0
    for p in pairs:
        if p["split"] != split:
            continue
        c = float(cos[p["a"]] @ cos[p["b"]]) if model else None
        got, gold = same_meaning(rules[p["a"]], rules[p["b"]], c, model), p["label"] == "same"
        tp, fp, fn = tp + (got and gold), fp + (got and not gold), fn + (gold and not got)
    return tp / max(tp + fp, 1), tp / max(tp + fn, 1)


def test_the_labelled_pairs_are_whole():
    rules, pairs = _load()
    assert all(p["a"] in rules and p["b"] in rules and p["label"] in ("same", "different") for p in pairs)
    assert {p["split"] for p in pairs} == {"dev", "heldout"}
    assert len({(p["a"], p["b"]) for p in pairs}) == len(pairs)


@pytest.mark.parametrize("model, split, precision, recall", [
    (None, "dev", 1.0, 0.33), (None, "heldout", 0.66, 0.15),
    ("minilm", "dev", 1.0, 0.57), ("minilm", "heldout", 0.83, 0.76),
])
def test_precision_and_recall(model, split, precision, recall):
    """The measured figures hold (a change to the detector that lowers them fails here)."""
    rules, pairs = _load()
    p, r = _score(rules, pairs, split, model)
    assert p >= precision and r >= recall, (p, r)

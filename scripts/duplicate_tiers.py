"""Precision and recall of each one-note-per-fact test on the labelled real pairs (eval/data/duplicates: the
tuning set and the fresh set, gold = what two blind labellers agreed on): the same wording (word shingles >=
SIMILAR, without and with the vetoes), the same meaning (words, + USE, + MiniLM) and the same meaning with a
cosine bar on top. The figures behind decision 096 (which tests refuse, which only warn).

    .venv/bin/python scripts/duplicate_tiers.py
"""

from __future__ import annotations

import json
from pathlib import Path

from mdmem.engine import embed
from mdmem.text.meaning import opposed, same_meaning, swapped
from mdmem.text.similar import SIMILAR, shingles, similarity

DATA = Path(__file__).resolve().parents[1] / "eval" / "data" / "duplicates"
SETS = {"tuning": ("candidates.jsonl", "labels.jsonl"), "fresh": ("fresh.jsonl", "fresh-labels.jsonl")}


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text("utf-8").splitlines()]


def main() -> None:
    gold = {}
    for which, (pairs_file, labels_file) in SETS.items():
        pairs = {p["id"]: p for p in _rows(pairs_file)}
        gold[which] = [(pairs[lab["id"]], lab["gold"]) for lab in _rows(labels_file) if lab["gold"]]
    texts = sorted({t for rows in gold.values() for p, _ in rows for t in (p["a"], p["b"])})
    vectors = {}
    for model in ("minilm", "use-multilingual-v3"):
        try:
            vectors[model] = dict(zip(texts, embed.model(model).embed(texts)))
        except embed.SemanticUnavailable:
            print(f"{model}: not installed, left out")

    def show(name: str, test) -> None:
        out = []
        for which, rows in gold.items():
            tp = fp = fn = 0
            for p, label in rows:
                got, same = bool(test(p)), label == "same"
                tp, fp, fn = tp + (got and same), fp + (got and not same), fn + (same and not got)
            out.append(f"{which}: P {tp / max(tp + fp, 1):.2f} R {tp / max(tp + fn, 1):.2f} ({tp} right, {fp} wrong)")
        print(f"{name:44s}" + " | ".join(out))

    def wording(p: dict) -> bool:
        return similarity(shingles(p["a"]), shingles(p["b"])) >= SIMILAR

    show("same wording", wording)
    show("same wording, vetoes", lambda p: wording(p) and not opposed(p["a"], p["b"]) and not swapped(p["a"], p["b"]))
    show("same meaning, words", lambda p: same_meaning(p["a"], p["b"]))
    for model, vec in vectors.items():
        def cos(p: dict, vec=vec) -> float:
            return float(vec[p["a"]] @ vec[p["b"]])

        show(f"same meaning, {model}", lambda p, m=model, c=cos: same_meaning(p["a"], p["b"], c(p), m))
        for bar in (0.8, 0.85, 0.9):
            show(f"  and cosine >= {bar}", lambda p, m=model, c=cos, b=bar: same_meaning(p["a"], p["b"], c(p), m)
                 and c(p) >= b)


if __name__ == "__main__":
    main()

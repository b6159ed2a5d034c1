"""Score the same-meaning detector (mdmem.text.meaning, decisions 071, 096, 105) on any labelled list of pairs:
precision and recall of its calls for the words alone, + USE (the default model) and + MiniLM, and of the wording
test that refuses (decision 096: the same wording, with the names and opposite vetoes).

    .venv/bin/python scripts/score_duplicates.py PAIRS.jsonl LABELS.jsonl [--json]

PAIRS: one ``{"id", "a", "b"}`` a line (other keys ignored); LABELS: one ``{"id", "gold"}`` a line, gold ``same`` or
``different`` (true / false too); a pair without a decided gold (null, ``unsure``) is left out. A model whose extra
is not installed is said and left out. Nothing is fitted here: the weights and bars are meaning.py's constants.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from mdmem.text.meaning import opposed, same_meaning, swapped
from mdmem.text.similar import SIMILAR, shingles, similarity

MODELS = {"words": None, "use": "use-multilingual-v3", "minilm": "minilm"}


def load(pairs_file: Path, labels_file: Path) -> list[tuple[dict, bool]]:
    """The pairs with a decided gold: ``(pair, same)``."""
    rows = [json.loads(line) for line in pairs_file.read_text("utf-8").splitlines() if line.strip()]
    gold = {}
    for line in labels_file.read_text("utf-8").splitlines():
        if line.strip():
            lab = json.loads(line)
            value = lab.get("gold")
            if value in ("same", True):
                gold[lab["id"]] = True
            elif value in ("different", False):
                gold[lab["id"]] = False
    return [(p, gold[p["id"]]) for p in rows if p["id"] in gold]


def counts(pairs: list[tuple[dict, bool]], call: Callable[[dict], bool]) -> dict:
    tp = fp = fn = 0
    for p, same in pairs:
        got = bool(call(p))
        tp, fp, fn = tp + (got and same), fp + (got and not same), fn + (same and not got)
    return {"precision": round(tp / max(tp + fp, 1), 3), "recall": round(tp / max(tp + fn, 1), 3),
            "right": tp, "wrong": fp, "missed": fn}


def cosines(model: str, pairs: list[tuple[dict, bool]]) -> dict[tuple[str, str], float] | None:
    """Each pair's cosine by ``model``, None when its extra is not installed."""
    from mdmem.engine import embed

    texts = sorted({t for p, _ in pairs for t in (p["a"], p["b"])})
    try:
        vec = dict(zip(texts, embed.model(model).embed(texts)))
    except embed.SemanticUnavailable:
        return None
    return {(p["a"], p["b"]): float(vec[p["a"]] @ vec[p["b"]]) for p, _ in pairs}


def score(pairs: list[tuple[dict, bool]]) -> dict[str, dict]:
    """Every test's figures on ``pairs``: ``refuse: wording`` and ``warn: meaning, <model>``."""
    def wording(p: dict) -> bool:
        return similarity(shingles(p["a"]), shingles(p["b"])) >= SIMILAR and not opposed(p["a"], p["b"]) \
            and not swapped(p["a"], p["b"])

    out = {"refuse: the same wording (decision 096)": counts(pairs, wording)}
    for name, model in MODELS.items():
        cos = cosines(model, pairs) if model else {}
        if cos is None:
            out[f"warn: the same meaning, {name}"] = {"skipped": f"{model} is not installed"}
            continue
        out[f"warn: the same meaning, {name}"] = counts(
            pairs, lambda p, c=cos, m=model: same_meaning(p["a"], p["b"], c.get((p["a"], p["b"])), m))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", type=Path)
    parser.add_argument("labels", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    pairs = load(args.pairs, args.labels)
    figures = score(pairs)
    if args.json:
        print(json.dumps({"pairs": len(pairs), "same": sum(s for _, s in pairs), "figures": figures}, indent=1))
        return
    print(f"{len(pairs)} pairs with a decided gold ({sum(s for _, s in pairs)} same)")
    for test, f in figures.items():
        if "skipped" in f:
            print(f"{test:44s} {f['skipped']}")
        else:
            print(f"{test:44s} P {f['precision']:.2f} R {f['recall']:.2f} "
                  f"({f['right']} right, {f['wrong']} wrong, {f['missed']} missed)")


if __name__ == "__main__":
    main()

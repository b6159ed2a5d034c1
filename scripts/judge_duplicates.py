"""The duplicates' judge (mdmem.ops.judge, decision 122) on labelled real pairs: what mdmem hands the model, and how
its answers score.

    .venv/bin/python scripts/judge_duplicates.py prompts PAIRS.jsonl --out PROMPTS.jsonl
    .venv/bin/python scripts/judge_duplicates.py score PAIRS.jsonl LABELS.jsonl --answers ANSWERS.jsonl [--json]

``prompts`` writes, for each pair whose two sides are related enough to ask (:func:`mdmem.ops.judge.related`, by
the words, or by MiniLM's or USE's cosine when installed), ``{"id", "prompt"}``: the exact text ``save`` hands the
judge when ``a`` is saved and ``b`` is being saved. It reads no label. Whoever stands in for the model answers each
prompt on its own, ``{"id", "answer"}`` (the raw text a model command would print).

``score`` parses each answer with mdmem's own parser (:func:`mdmem.ops.judge.parse`) and counts a pair caught when
it was asked and the answer names the saved note; a pair not asked, or an answer that does not parse, is not
caught (mdmem saves it, with the words' guess as a warning). Figures per asking stage (words alone, + USE,
+ MiniLM) and the guess alone (decision 071) for comparison, on pairs with a decided gold only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_duplicates import MODELS, cosines, counts, load

from mdmem.ops.judge import parse, prompt, related
from mdmem.text.meaning import same_meaning


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def stages(pairs: list[dict]) -> dict[str, dict[str, bool]]:
    """For each asking stage (words, + a model), whether each pair is asked."""
    out: dict[str, dict[str, bool]] = {}
    as_gold = [(p, False) for p in pairs]
    for name, model in MODELS.items():
        cos = cosines(model, as_gold) if model else {}
        if cos is None:
            continue
        out[name] = {p["id"]: related(p["b"], p["a"], cos.get((p["a"], p["b"])), model) is not None for p in pairs}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    ask = sub.add_parser("prompts")
    ask.add_argument("pairs", type=Path)
    ask.add_argument("--out", type=Path, required=True)
    score = sub.add_parser("score")
    score.add_argument("pairs", type=Path)
    score.add_argument("labels", type=Path)
    score.add_argument("--answers", type=Path, required=True)
    score.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.what == "prompts":
        pairs = rows(args.pairs)
        asked = stages(pairs)
        with args.out.open("w", encoding="utf-8") as out:
            n = 0
            for p in pairs:
                if any(s[p["id"]] for s in asked.values()):
                    out.write(json.dumps({"id": p["id"], "prompt": prompt(p["b"], [("", p["a"])])},
                                         ensure_ascii=False) + "\n")
                    n += 1
        print(f"{n} of {len(pairs)} pairs asked; stages: "
              + ", ".join(f"{k} {sum(v.values())}" for k, v in asked.items()))
        return
    gold = load(args.pairs, args.labels)
    answers = {r["id"]: r.get("answer", "") for r in rows(args.answers)}
    said: dict[str, bool] = {}
    unparsed = 0
    for p, _ in gold:
        if p["id"] in answers:
            try:
                said[p["id"]] = parse(answers[p["id"]], 1) == 1
            except ValueError:
                unparsed += 1
                said[p["id"]] = False
    asked = stages([p for p, _ in gold])
    figures = {}
    for name, stage in asked.items():
        figures[f"judge, asked by {name}"] = counts(gold, lambda p, s=stage: s[p["id"]] and said.get(p["id"], False))
    for name, model in MODELS.items():
        cos = cosines(model, gold) if model else {}
        if cos is not None:
            figures[f"guess alone, {name}"] = counts(
                gold, lambda p, c=cos, m=model: same_meaning(p["a"], p["b"], c.get((p["a"], p["b"])), m))
    missing = sum(1 for p, _ in gold if any(s[p["id"]] for s in asked.values()) and p["id"] not in answers)
    head = {"pairs": len(gold), "same": sum(s for _, s in gold), "answers": len(answers), "unparsed": unparsed,
            "asked without an answer": missing}
    if args.json:
        print(json.dumps(head | {"figures": figures}, indent=1))
        return
    print(", ".join(f"{k} {v}" for k, v in head.items()))
    for test, f in figures.items():
        print(f"{test:32s} P {f['precision']:.2f} R {f['recall']:.2f} "
              f"({f['right']} right, {f['wrong']} wrong, {f['missed']} missed)")


if __name__ == "__main__":
    main()

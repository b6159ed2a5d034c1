#!/usr/bin/env python3
"""The names ``mdmem save`` gives real lines when no name is given (not a test; decision 121).

    python scripts/name_sample.py [--n 40] [--seed 121] [--all] > names.jsonl

Lines: every distinct side (``a``, ``b``) of the labelled duplicate pairs under eval/data/duplicates
(rule lines of public agent-instruction files and Claude Code memory notes, sources in its README). Each
line is named as ``save`` names it without ``--type``: the type :func:`classify` infers, then a decision's
options (:func:`decision_title`) or the subject (:func:`subject`). Prints one JSON object a line,
``{"text", "type", "name"}``, for a seeded sample of ``--n`` lines (``--all``: every line); run it on two
trees (``PYTHONPATH=...``) for a before/after.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from mdmem.text.classify import classify, decision_title
from mdmem.text.naming import subject

DATA = Path(__file__).resolve().parent.parent / "eval" / "data" / "duplicates"


def lines() -> list[str]:
    seen: dict[str, None] = {}
    for name in ("candidates.jsonl", "fresh.jsonl", "fresh3.jsonl"):
        for row in (DATA / name).read_text(encoding="utf-8").splitlines():
            pair = json.loads(row)
            for side in ("a", "b"):
                text = " ".join(str(pair.get(side) or "").split())
                if text:
                    seen.setdefault(text, None)
    return sorted(seen)


def name(text: str) -> tuple[str, str]:
    kind = classify(text)[0]
    return kind, (decision_title(text) if kind == "decision" else None) or subject(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=121)
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    pool = lines()
    picked = pool if args.all else random.Random(args.seed).sample(pool, args.n)
    for text in picked:
        kind, made = name(text)
        print(json.dumps({"text": text, "type": kind, "name": made}, ensure_ascii=False))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Re-score hybrid fusion variants on the raw lists ``bench_recall.py --candidates`` kept; not a test.

    python scripts/tune_fusion.py RECORDS.jsonl [RECORDS2.jsonl ...] [--grid]

Each record holds, per question, BM25F's top 50 and the vectors' top 50 as (session, score), so a
fusion variant is scored on the same lists without building or embedding anything again. Prints
Hit@1 / R@5 any / R@5 all / MRR of lexical, semantic and each variant, per file; with ``--grid``,
the weight grid of the calibrated fusion (how the default of ``mdmem.engine.vectors.fuse`` was chosen:
tune on dev files only, then read the test files once).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_recall import score  # noqa: E402

from mdmem.base.settings import Fusion  # noqa: E402
from mdmem.engine.vectors import fuse  # noqa: E402

SHOW = ("hit@1", "r@5_any", "r@5_all", "mrr")


def records(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if "cand" in r:
            out.append(r)
    return out


def evaluate(rows: list[dict], rank, question: bool = False) -> dict:
    ms = [score(rank(r["cand"], r.get("question", "")) if question else rank(r["cand"]), set(r["gold"]))
          for r in rows]
    return {k: round(statistics.fmean(m[k] for m in ms), 4) for k in SHOW}


def lexical(c):
    return [s for s, _ in c["lex"]][:10]


def semantic(c):
    return [s for s, _ in c["sem"]][:10]


def aggregated(c, share: float) -> list[tuple[str, float]]:
    """The vectors' list with a note scored ``best + share x second best`` passage (``share`` 0: max)."""
    if not share:
        return [tuple(x) for x in c["sem"]]
    extra = c.get("sem_scores") or {}
    out = [(sid, s + share * ((extra.get(sid) or [s]) + [0.0])[1]) for sid, s in c["sem"]]
    return sorted(out, key=lambda x: -x[1])


def semantic_agg(share: float):
    def rank(c):
        return [s for s, _ in aggregated(c, share)][:10]
    return rank


def fused(fusion: Fusion, share: float = 0.0):
    def rank(c, question=""):
        return [s for s, _ in fuse([tuple(x) for x in c["lex"]], aggregated(c, share), fusion, question)][:10]
    return rank


def lead_report(rows: list[dict]) -> None:
    """Where the fused first hit (the fusion alone, ``lead`` 0) differs from BM25F's: how many of those
    changes put a gold session first (gain) or took one away (loss), by the spread of the cosines (best minus
    the pool's mean) and by whether the question has a digit: the evidence for ``vectors.lead``."""
    import re

    bins = ((0.0, 0.1), (0.1, 0.15), (0.15, 0.2), (0.2, 0.25), (0.25, 0.3), (0.3, 9.0))
    table: dict[str, list[int]] = {}
    for r in rows:
        c, gold = r["cand"], set(r["gold"])
        lex = [tuple(x) for x in c["lex"]]
        sem = [tuple(x) for x in c["sem"]]
        top = fuse(lex, sem, Fusion(lead=0.0))
        if not lex or not top or top[0][0] == lex[0][0]:
            continue
        cos = [s for _, s in sem]
        spread = max(cos) - sum(cos) / len(cos)
        digit = bool(re.search(r"\d", r.get("question", "")))
        name = "digit" if digit else next(f"spread {lo:.2f}-{hi:.2f}" for lo, hi in bins if lo <= spread < hi)
        gain, loss = top[0][0] in gold and lex[0][0] not in gold, lex[0][0] in gold and top[0][0] not in gold
        t = table.setdefault(name, [0, 0, 0])
        t[0 if gain else 1 if loss else 2] += 1
    for name in sorted(table):
        g, lo, n = table[name]
        print(f"  first hit changed, {name:18} gain {g:3}  loss {lo:3}  neither {n:3}")


def line(name: str, m: dict) -> str:
    return f"  {name:44} " + " ".join(f"{k}={m[k]:.3f}" for k in SHOW)


def labelled_sets(out: Path) -> None:
    """Candidate records for the labelled sets of ``tests/data/semantic`` (41 short notes; paraphrase
    and exact-term questions), written to ``out/{paraphrase,exact}.jsonl`` in bench_recall's shape."""
    import shutil
    import tempfile
    import tomllib

    from mdmem import Memory
    from mdmem.base.settings import Recency
    from mdmem.engine import vectors

    data = ROOT / "tests" / "data" / "semantic"
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(data / "vault", vault)
        with Memory.open(vault) as mem:
            mem.refresh(semantic=True)
            for name in ("paraphrase", "exact"):
                with open(out / f"{name}.jsonl", "w", encoding="utf-8") as f:
                    for i, q in enumerate(tomllib.loads((data / f"{name}.toml").read_text())["q"]):
                        lex = mem.lexical(q["question"], 50, recency=Recency(weight=0.0), snippets=False)
                        sem = vectors.search(mem, q["question"], 50)
                        f.write(json.dumps({"question_id": f"{name}-{i}", "question_type": name, "gold": q["answers"],
                                            "cand": {"lex": [[h.path, h.score] for h in lex],
                                                     "sem": [[m.path, m.score] for m in sem]}}) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--grid", action="store_true")
    ap.add_argument("--lead", action="store_true", help="the first-hit gate (vectors.lead): spreads and digit rule")
    ap.add_argument("--labelled", type=Path, help="write the labelled sets' candidate records into this folder")
    args = ap.parse_args()
    if args.labelled:
        args.labelled.mkdir(parents=True, exist_ok=True)
        labelled_sets(args.labelled)
    variants = {"default": (Fusion(), 0.0), "calibrated, no lead gate": (Fusion(lead=0.0), 0.0),
                "scores 0.25/0.75 (old)": (Fusion(0.25, 0.75, method="scores"), 0.0),
                "rrf 1/1": (Fusion(1, 1, method="rrf"), 0.0)}
    if args.lead:
        for spread in (0.1, 0.15, 0.2, 0.25, 0.3, 99.0):
            variants[f"calibrated, lead spread {spread}"] = (Fusion(lead=spread), 0.0)
    if args.grid:
        for ws in (0.2, 0.35, 0.5, 0.75, 1.0):
            for flat in (0.0, 0.05, 0.1, 0.15, 0.2):
                variants[f"calibrated 1/{ws} flat {flat}"] = (Fusion(1.0, ws, method="calibrated", flat=flat), 0.0)
        for share in (0.1, 0.25, 0.5):
            variants[f"default, passages max+{share}x2nd"] = (Fusion(), share)
    for f in args.files:
        rows = records(f)
        print(f"{f.name}: {len(rows)} questions")
        base = evaluate(rows, lexical)
        print(line("lexical", base))
        print(line("semantic", evaluate(rows, semantic)))
        if args.grid:
            for share in (0.1, 0.25, 0.5):
                print(line(f"semantic, passages max+{share}x2nd", evaluate(rows, semantic_agg(share))))
        if args.lead:
            lead_report(rows)
        for name, (fusion, share) in variants.items():
            m = evaluate(rows, fused(fusion, share), question=True)
            worse = [k for k in SHOW if m[k] < base[k] - 1e-9]
            print(line(name, m) + (f"   below lexical on {','.join(worse)}" if worse else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

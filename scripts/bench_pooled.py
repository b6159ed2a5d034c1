#!/usr/bin/env python3
"""Search on one large vault of real conversations, with labels; not a test.

    python scripts/bench_pooled.py --data /work/data/longmemeval/longmemeval_s.json --work DIR [--split dev]

Every haystack session of a LongMemEval_s split (``scripts/bench_recall.py``'s sha256 split) becomes one daily
note of ONE vault (dev: 7,952 sessions, ~12 kB each, 96 MB), the split's questions are asked of it, and gold =
each question's answer sessions. Where ``bench_recall.py`` gives each question its own vault of ~50 sessions,
this is a vault as large as the generated 10k one with real text in it, for what only shows at that size
(``engine/query_plan.common_split``). Prints Hit@1, R@5 any, MRR@10 and the CPU time of a warm lexical search
(p50 / p95, one process, each question once after a warm-up pass); ``--hits FILE`` keeps each question's
sessions, to compare two trees (``PYTHONPATH=tree``). The vault is written once and reused.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def make(data: Path, split: str, root: Path) -> dict:
    import bench_recall as br

    questions, _ = br.load(data, split, False)
    daily = root / "memory" / "daily"
    daily.mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    seen: dict[str, str] = {}
    mapping: dict[str, str] = {}
    for q in questions:
        for sid, stamp, turns in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"]):
            if sid in seen:
                continue
            day, _clock = br.iso_date(stamp)
            name = seen[sid] = f"{day}-{len(seen):05d}.md"
            lines = ["---", "type: daily", f"date: {day}", f"session_id: {json.dumps(sid)}", "---", ""]
            for t in turns:
                lines += [f"**{t['role']}:** {t['content'].strip()}", ""]
            (daily / name).write_text("\n".join(lines), encoding="utf-8")
            mapping[f"memory/daily/{name}"] = sid
    return {"mapping": mapping, "questions": [{"id": q["question_id"], "q": q["question"],
                                               "gold": q["answer_session_ids"]} for q in questions]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--split", default="dev", choices=["dev", "test"])
    ap.add_argument("--hits", type=Path)
    args = ap.parse_args(argv)
    from mdmem.engine.memory import Memory

    root, meta_file = args.work / f"vault-{args.split}", args.work / f"meta-{args.split}.json"
    if not meta_file.exists():
        meta_file.write_text(json.dumps(make(args.data, args.split, root)), encoding="utf-8")
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    mapping, questions = meta["mapping"], meta["questions"]
    mem = Memory.open(root)
    t = time.perf_counter()
    mem.refresh()
    build = time.perf_counter() - t
    for q in questions:
        mem.search(q["q"], 10, mode="lexical")
    found, cpu = {}, []
    for q in questions:
        c = time.process_time()
        hits = mem.search(q["q"], 10, mode="lexical").results
        cpu.append((time.process_time() - c) * 1000)
        found[q["id"]] = [mapping.get(h.path) for h in hits]

    def first(q: dict) -> int:
        return next((i for i, s in enumerate(found[q["id"]], 1) if s in q["gold"]), 0)

    n = len(questions)
    cpu.sort()
    print(json.dumps({"notes": len(mapping), "questions": n, "refresh_s": round(build, 1),
                      "hit@1": round(sum(first(q) == 1 for q in questions) / n, 3),
                      "r@5_any": round(sum(0 < first(q) <= 5 for q in questions) / n, 3),
                      "mrr@10": round(sum(1 / first(q) for q in questions if first(q)) / n, 3),
                      "cpu_p50_ms": round(cpu[n // 2], 1), "cpu_p95_ms": round(cpu[int(n * 0.95)], 1)}))
    if args.hits:
        args.hits.write_text(json.dumps(found), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

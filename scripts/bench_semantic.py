#!/usr/bin/env python3
"""Figures for search by meaning (the ``semantic`` extra); not a test.

    python scripts/bench_semantic.py VAULT [VAULT ...] [--runs 5]

For each vault (copied to a temp folder first, so the original keeps no vectors):
the lexical build, then ``mdmem index --semantic`` (notes/s and chunks/s of the
embedding step, vectors file size), the cost of a one-note edit seen by ``mdmem
index`` with vectors on, whole ``mdmem search`` processes in each mode, and warm
in-process query latency per mode (p50/p95 over the vault's own titles).
Generated vaults: ``scripts/gen_vault.py``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(cmd: list[str]) -> tuple[float, dict | None]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=7200)
    wall = time.perf_counter() - t
    if proc.returncode:
        raise RuntimeError(f"{cmd}: {proc.stderr[-2000:]}")
    try:
        return wall, json.loads(proc.stdout)
    except ValueError:
        return wall, None


def pct(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"{statistics.median(xs):.1f} / {xs[min(len(xs) - 1, int(len(xs) * 0.95))]:.1f}"


def measure(mdmem: str, source: Path, runs: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="mdmem-sem-"))
    try:
        vault = work / "vault"
        shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".mdmem"))
        lex_s, lex = run([mdmem, "index", "--vault", str(vault), "--json"])
        sem_s, sem = run([mdmem, "index", "--vault", str(vault), "--semantic", "--json"])
        v = sem["vectors"]
        size = (vault / ".mdmem" / "vectors.npz").stat().st_size
        notes = sorted((vault / "memory").rglob("*.md"))
        edits = []
        for i in range(runs):
            note = notes[(i * 7919) % len(notes)]
            note.write_text(note.read_text() + f"\nbench edit {i}: the quarterly kayak outing moved to Sintra.\n")
            t, out = run([mdmem, "index", "--vault", str(vault), "--json"])
            assert out["vectors"]["embedded"] == 1, out
            edits.append(t * 1000)
        cold = {}
        for mode in ("lexical", "semantic", "hybrid"):
            xs = []
            for _ in range(runs):
                t, _ = run([mdmem, "search", "who organises team outings", "--vault", str(vault), "--mode", mode,
                            "--json"])
                xs.append(t * 1000)
            cold[mode] = statistics.median(xs)
        from mdmem.engine.memory import Memory

        warm = {}
        with Memory.open(vault) as mem:
            mem.refresh()
            titles = sorted(n.title.replace("-", " ") for n in mem.notes())[:: max(1, len(notes) // 30)][:30]
            for mode in ("lexical", "semantic", "hybrid"):
                mem.search(titles[0], 10, mode=mode)
                xs = []
                for q in titles:
                    t = time.perf_counter()
                    mem.search(q, 10, mode=mode)
                    xs.append((time.perf_counter() - t) * 1000)
                warm[mode] = pct(xs)
        return {"notes": lex["notes"], "lexical_build_s": round(lex_s, 1), "semantic_step_s": v["seconds"],
                "semantic_process_s": round(sem_s, 1), "chunks": v["total_chunks"],
                "notes_per_s": round(v["embedded"] / v["seconds"], 1), "chunks_per_s": round(v["chunks"] / v["seconds"], 1),
                "vectors_mb": round(size / 1e6, 1), "edit_index_ms": statistics.median(edits), "cold_ms": cold,
                "warm_p50_p95_ms": warm}
    finally:
        shutil.rmtree(work, ignore_errors=True)


FUSION = None  # the hybrid fusion to measure (None: mdmem's default)


def quality(data: Path = Path(__file__).resolve().parent.parent / "tests" / "data" / "semantic") -> dict:
    """recall@1, recall@5 and MRR of each mode on the labelled sets of tests/data/semantic/."""
    import tomllib

    from mdmem.engine.memory import Memory

    work = Path(tempfile.mkdtemp(prefix="mdmem-semq-"))
    try:
        vault = work / "vault"
        shutil.copytree(data / "vault", vault)
        out: dict = {}
        with Memory.open(vault) as mem:
            mem.refresh(semantic=True)
            for name in ("paraphrase", "exact"):
                qs = tomllib.loads((data / f"{name}.toml").read_text())["q"]
                groups = {"all": qs, "en": [q for q in qs if q.get("lang") == "en"],
                          "pt": [q for q in qs if q.get("lang") == "pt"]}
                for mode in ("lexical", "semantic", "hybrid"):
                    ranks = {}
                    for q in qs:
                        got = [h.path for h in mem.search(q["question"], 10, mode=mode, fusion=FUSION).results]
                        ranks[q["question"]] = next((i for i, p in enumerate(got, 1) if p in q["answers"]), None)
                    for g, items in groups.items():
                        if not items:
                            continue
                        r = [ranks[q["question"]] for q in items]
                        out[(name, g, mode)] = {"n": len(r), "r@1": sum(1 for x in r if x == 1) / len(r),
                                                "r@5": sum(1 for x in r if x and x <= 5) / len(r),
                                                "mrr": sum(1 / x for x in r if x) / len(r)}
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vaults", nargs="*", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mdmem", default=str(Path(sys.executable).parent / "mdmem"))
    ap.add_argument("--quality", action="store_true", help="also the labelled paraphrase/exact sets")
    args = ap.parse_args(argv)
    if args.quality:
        for (name, group, mode), v in quality().items():
            print(f"{name:<10} {group:<3} {mode:<8} n={v['n']:<3} recall@1 {v['r@1']:.2f}  recall@5 {v['r@5']:.2f}  "
                  f"MRR {v['mrr']:.2f}")
    for source in args.vaults:
        r = measure(args.mdmem, source, args.runs)
        print(f"{source}: {r['notes']:,} notes, {r['chunks']:,} chunks, vectors {r['vectors_mb']} MB")
        print(f"  lexical build (process) {r['lexical_build_s']} s; embedding step {r['semantic_step_s']} s "
              f"({r['notes_per_s']} notes/s, {r['chunks_per_s']} chunks/s; process {r['semantic_process_s']} s)")
        print(f"  one-note edit -> mdmem index with vectors: {r['edit_index_ms']:.0f} ms median")
        print("  whole search process ms (median): " + ", ".join(f"{k} {v:.0f}" for k, v in r["cold_ms"].items()))
        print("  warm query p50 / p95 ms: " + ", ".join(f"{k} {v}" for k, v in r["warm_p50_p95_ms"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""``save``'s one-note-per-fact look-up (:func:`mdmem.ops.repeats.repeated`), measured two ways (decision 062):

    python scripts/bench_repeats.py [--notes 1000,10000] [--runs 5] [--before REV] [--agree 3000] [--work DIR]

1. time: one ``mdmem save TEXT --json`` through the real CLI (``python -m mdmem``, a whole new process, a new
   memory that repeats nothing: every note is looked at) on a vault made by ``scripts/gen_vault.py``, with the
   code of ``REV`` (default: where this branch left main; its ``mdmem/`` exported by ``git archive``) and with
   this tree's, each on its own copy of the vault (their notes caches differ), runs alternating, medians;
2. agreement (``--agree N``, 0 to skip): every pair of ``eval/data/duplicates/candidates.jsonl`` placed in a
   generated vault of N notes (each pair's saved side ``a`` a feedback note), then for each pair's new side ``b``
   the bounded :func:`~mdmem.ops.repeats.repeated` against :func:`~mdmem.ops.repeats.exhaustive`: every
   difference is listed.

Lexical only: the generated vaults have no vectors (embedding 10k notes takes minutes; with vectors the nearest
notes by cosine join the candidates).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import gen_vault  # noqa: E402

PAIRS = ROOT / "eval" / "data" / "duplicates" / "candidates.jsonl"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def export(rev: str, dest: Path) -> str:
    """``rev``'s ``mdmem/`` package under ``dest`` (for PYTHONPATH); its commit."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], capture_output=True, text=True,
                            check=True).stdout.strip()
    data = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "mdmem"], capture_output=True,
                          check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return commit


def cli(code: Path, vault: Path, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    env = {**os.environ, "PYTHONPATH": str(code), "MDMEM_LOCK_TIMEOUT": "120"}
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mdmem", *args, "--vault", str(vault)], env=env, cwd=code,
                          capture_output=True, text=True, timeout=900)  # (cwd: ``-m`` puts it before PYTHONPATH)
    took = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"{args[:2]} failed ({done.returncode}): {done.stderr[-800:]}")
    return took, done


def sqlite_schema(vault: Path) -> str:
    import sqlite3

    with sqlite3.connect(vault / ".mdmem" / "notes.db") as db:
        return db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0]


def memory_text(i: int) -> str:
    """A new memory of the kind agents save, told apart by a number: it repeats no note of the vault."""
    return (f"Before a release of build {i}, run the migration dry run against the staging database and post "
            f"its summary in the release channel; skip it only when build {i} changes no schema.")


def measure_time(n: int, runs: int, work: Path, codes: dict[str, Path]) -> dict:
    base = work / f"vault-{n}"
    if not (base / gen_vault.MARKER).is_file():
        log(f"generating a {n:,}-note vault ...")
        gen_vault.generate(base, n, seed=42, size=3000, force=True)
    vaults = {}
    for name, code in codes.items():
        v = work / f"vault-{n}-{name}"
        shutil.rmtree(v, ignore_errors=True)
        shutil.copytree(base, v, ignore=shutil.ignore_patterns(".mdmem"))
        log(f"indexing {v.name} ...")
        cli(code, v, "index")
        vaults[name] = v
    times: dict[str, list[float]] = {name: [] for name in codes}
    for r in range(runs):
        for name, code in (codes.items() if r % 2 == 0 else reversed(codes.items())):
            took, done = cli(code, vaults[name], "save", memory_text(r), "--type", "feedback", "--name",
                             f"release dry run {r}", "--json")
            status = json.loads(done.stdout)["status"]
            if r == 0:  # which code ran: the cache's schema it left
                log(f"{name}: schema {sqlite_schema(vaults[name])}")
            if status != "created":
                raise SystemExit(f"{name}: save said {status}")
            times[name].append(took)
            log(f"{n:>6} notes run {r} {name}: {took:.2f} s")
    return {name: {"median_s": round(statistics.median(xs), 3), "min_s": round(min(xs), 3),
                   "max_s": round(max(xs), 3), "runs": [round(x, 3) for x in xs]} for name, xs in times.items()}


def measure_agreement(n: int, work: Path) -> dict:
    from mdmem.engine.memory import Memory
    from mdmem.ops.repeats import exhaustive, repeated

    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines() if line.strip()]
    v = work / f"agree-{n}"
    if not (v / gen_vault.MARKER).is_file():  # (a vault made by an earlier run is used again)
        log(f"generating a {n:,}-note vault for the agreement check ...")
        gen_vault.generate(v, n, seed=7, size=3000, force=True)
    for p in pairs:
        (v / "memory" / "feedback" / f"saved-{p['id']}.md").write_text(
            f"---\ntype: feedback\nname: saved {p['id']}\n---\n{p['a']}\n")
    rows, differ, found = [], [], 0
    t_bounded = t_all = 0.0
    with Memory(v) as mem:
        mem.refresh()
        for p in pairs:
            rel, title = f"memory/feedback/new-{p['id']}.md", f"new {p['id']}"
            t = time.perf_counter()
            got = repeated(mem, rel, title, p["b"], kind="feedback")
            t_bounded += time.perf_counter() - t
            t = time.perf_counter()
            want = exhaustive(mem, rel, title, p["b"], kind="feedback")
            t_all += time.perf_counter() - t
            found += want is not None
            rows.append({"id": p["id"], "split": p.get("split"), "bounded": got, "exhaustive": want})
            if got != want:
                differ.append(rows[-1])
                log(f"DIFFERENT {p['id']}: bounded {got} exhaustive {want}")
    return {"notes": n + len(pairs), "pairs": len(pairs), "exhaustive_found": found, "different": differ,
            "bounded_s_per_pair": round(t_bounded / len(pairs), 4), "exhaustive_s_per_pair": round(t_all / len(pairs), 4)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", default="1000,10000", help="vault sizes for the timing (comma-separated; empty: none)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--before", help="the code to compare with (default: git merge-base HEAD main)")
    ap.add_argument("--agree", type=int, default=3000, help="notes of the agreement vault (0: skip)")
    ap.add_argument("--work", type=Path, help="keep vaults here (default: a temp dir)")
    ap.add_argument("--out", type=Path, help="also write the figures as JSON here")
    args = ap.parse_args(argv)
    work = (args.work or Path(tempfile.mkdtemp(prefix="mdmem-repeats-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    report: dict = {"load": os.getloadavg()}
    sizes = [int(x) for x in args.notes.split(",") if x.strip()]
    if sizes:
        before = args.before or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"],
                                               capture_output=True, text=True, check=True).stdout.strip()
        old = work / "code-before"
        shutil.rmtree(old, ignore_errors=True)
        report["before"] = export(before, old)
        codes = {"before": old, "after": ROOT}
        report["time"] = {n: measure_time(n, args.runs, work, codes) for n in sizes}
    if args.agree:
        report["agreement"] = measure_agreement(args.agree, work)
    report["load_after"] = os.getloadavg()
    text = json.dumps(report, indent=1, default=str)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

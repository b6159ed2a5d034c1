#!/usr/bin/env python3
"""A/B of a new ``mdmem search`` process, old code against new, on one generated vault (not a test).

    python scripts/bench_search_ab.py VAULT --old SRC [--new SRC] [--pairs 15] [--work DIR]

``VAULT`` is a generated vault (``scripts/gen_vault.py``), indexed or not; it is copied twice under
``--work`` (never changed itself). ``--old`` / ``--new`` are source trees holding an ``mdmem`` package
(e.g. ``git archive <commit> mdmem | tar -x -C DIR``; ``--new`` defaults to this checkout), each run as the
``mdmem`` console script does (``mdmem.__main__.main``) with that tree first on ``PYTHONPATH``, with this
Python, bytecode caching on, and checked to be the code asked for.

Per pair, in alternating order (old first on even pairs, new first on odd ones):

- ``edit``: append a unique word to one note of each copy (the same note, a different one each pair; its
  mtime moved on by a second) and time one ``mdmem search WORD --json`` process end to end, which must
  find the note (as ``scripts/bench.py`` section 5 does);
- ``cold``: ``mdmem search quixotic --json`` with nothing changed;
- ``python -c pass``, the floor.

Prints medians [min-max] of wall ms, the CPU ms of each process (its rusage), and the per-pair ratios
new/old. The machine's load shows in every absolute figure; the paired ratio is what holds across loads.
Edited notes are put back byte for byte, with their old mtimes, at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench import Edits, pick_notes  # noqa: E402


def run(src: Path, vault: Path, word: str) -> tuple[float, float, list[str]]:
    """(wall ms, CPU ms, hit paths) of one ``mdmem search WORD --json`` process, run from the vault's
    parent folder (``python -m`` puts the current folder first on ``sys.path``: from a checkout, that
    checkout's ``mdmem`` would win over ``PYTHONPATH``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "MDMEM_VAULT")}
    env["PYTHONPATH"] = str(src)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    code = ("import sys, mdmem; sys.stderr.write(f'mdmem from {mdmem.__file__}\\n'); "
            "sys.argv = ['mdmem', *sys.argv[1:]]; from mdmem.__main__ import main; main()")
    cp = subprocess.run([sys.executable, "-c", code, "search", word, "--vault", str(vault), "--json"],
                        env=env, capture_output=True, text=True, timeout=600, cwd=vault.parent)
    wall = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cp.returncode != 0:
        sys.exit(f"mdmem search exited {cp.returncode} ({src}):\n{cp.stderr[-2000:]}")
    if cp.stderr.count("mdmem from ") != 1 or str(src) not in cp.stderr:
        sys.exit(f"not the code asked for ({src}): {cp.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, [h["path"] for h in json.loads(cp.stdout)["results"]]


def floor() -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - t) * 1000


def line(name: str, xs: list[float]) -> str:
    return f"{name} {statistics.median(xs):.0f} [{min(xs):.0f}-{max(xs):.0f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--old", type=Path, required=True, help="source tree of the old code (holds mdmem/)")
    ap.add_argument("--new", type=Path, default=HERE.parent, help="source tree of the new code (default: here)")
    ap.add_argument("--pairs", type=int, default=15)
    ap.add_argument("--work", type=Path, help="where the two copies go (default: a temp dir, removed after)")
    args = ap.parse_args()
    for src in (args.old, args.new):
        if not (src / "mdmem" / "__init__.py").is_file():
            sys.exit(f"{src} holds no mdmem package")
    import tempfile

    work = args.work or Path(tempfile.mkdtemp(prefix="mdmem-ab-"))
    copies = {}
    for side in ("old", "new"):
        copies[side] = work / f"vault-{side}"
        if not copies[side].exists():
            shutil.copytree(args.vault, copies[side], symlinks=True)
    srcs = {"old": args.old.resolve(), "new": args.new.resolve()}
    for side in srcs:  # index up to date, caches written (a first run may rebuild everything)
        run(srcs[side], copies[side], "warmup")
    paths = sorted(p.relative_to(copies["new"]).as_posix() for p in (copies["new"] / "memory").rglob("*.md"))
    edits = {side: Edits(copies[side]) for side in srcs}
    figures: dict[str, dict[str, list[float]]] = {k: {"old": [], "new": [], "old_cpu": [], "new_cpu": []}
                                                  for k in ("edit", "cold")}
    floors = []
    try:
        for i, rel in enumerate(pick_notes(paths, args.pairs, int(time.time()) % len(paths))):
            for side in (("old", "new") if i % 2 == 0 else ("new", "old")):
                word = edits[side].edit(rel, i)
                wall, cpu, found = run(srcs[side], copies[side], word)
                if rel not in found:
                    sys.exit(f"edit->search FAILED ({side}): appended {word!r} to {rel}; found {found}")
                figures["edit"][side].append(wall)
                figures["edit"][side + "_cpu"].append(cpu)
                wall, cpu, _ = run(srcs[side], copies[side], "quixotic")
                figures["cold"][side].append(wall)
                figures["cold"][side + "_cpu"].append(cpu)
            floors.append(floor())
    finally:
        for side in srcs:
            edits[side].restore()
            run(srcs[side], copies[side], "warmup")
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{args.pairs} pairs, load average {os.getloadavg()[0]:.2f}; python -c pass {statistics.median(floors):.0f} ms")
    for kind, f in figures.items():
        ratio = [n / o for n, o in zip(f["new"], f["old"])]
        ratio_cpu = [n / o for n, o in zip(f["new_cpu"], f["old_cpu"])]
        print(f"{kind:5s} wall ms: {line('new', f['new'])}  {line('old', f['old'])}  new/old "
              f"{statistics.median(ratio):.3f}")
        print(f"{kind:5s} CPU ms:  {line('new', f['new_cpu'])}  {line('old', f['old_cpu'])}  new/old "
              f"{statistics.median(ratio_cpu):.3f}")


if __name__ == "__main__":
    main()

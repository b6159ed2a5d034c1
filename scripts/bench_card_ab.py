#!/usr/bin/env python3
"""The SessionStart card made uncached and the prompt hook, this checkout against another git ref, in one run.

    python scripts/bench_card_ab.py VAULT [--ref main] [--runs 9]

VAULT must be indexed (``mdmem index``; ``scripts/gen_vault.py`` makes a 10k-note one). The other ref's
``mdmem/`` is exported (``git archive``) to a temp folder and put first on ``PYTHONPATH`` for its runs. Runs are
interleaved A B A B with ``python -c pass`` beside each, all started as installed (``python -P -c`` the entry
point). "Card uncached": ``.mdmem/hooks/context-card.json`` removed before each run, the notes unchanged (the
card made again from the notes cache: open, refresh that finds nothing to do, context). Prints medians (ms) and
the ratio to ``python -c pass``. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CODE = "from mdmem.__main__ import main; main()"


def _run(cmd: list[str], stdin: bytes, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, env=env, timeout=300)
    return (time.perf_counter() - t) * 1000, proc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--ref", default="main")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args(argv)
    vault = args.vault.resolve()
    base = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_") and k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as other:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.ref, "mdmem"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", other], input=archive.stdout, check=True)
        subprocess.run([sys.executable, "-m", "compileall", "-q", other, str(REPO / "mdmem")], check=True)
        envs = {args.ref: base | {"PYTHONPATH": other}, "this": base}
        hook = [sys.executable, "-P", "-c", CODE, "hook"]
        card_in = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": str(vault)}).encode()
        people = sorted((vault / "memory" / "people").rglob("*.md")) or sorted((vault / "memory").rglob("*.md"))
        name = people[len(people) // 2].stem.replace("-", " ")
        prompts = {"related": f"what did {name} say about the release?",
                   "unrelated": "please refactor this function so that it returns early"}
        times: dict[str, dict[str, list[float]]] = {k: {} for k in envs}
        cached = vault / ".mdmem" / "hooks" / "context-card.json"
        for env in envs.values():  # warm: bytecode, page cache
            _run(hook + ["session-start", "--vault", str(vault)], card_in, env)
        for i in range(args.runs):
            for label, env in envs.items():
                cached.unlink(missing_ok=True)
                ms, proc = _run(hook + ["session-start", "--vault", str(vault)], card_in, env)
                assert b"# Memory (" in proc.stdout, proc.stderr[-400:]
                times[label].setdefault("card uncached", []).append(ms)
                for case, text in prompts.items():
                    stdin = json.dumps({"session_id": f"ab-{label}-{case}-{i}-{time.time_ns()}", "cwd": str(vault),
                                        "hook_event_name": "UserPromptSubmit", "prompt": text}).encode()
                    ms, proc = _run(hook + ["prompt", "--vault", str(vault)], stdin, env)
                    assert proc.returncode == 0, proc.stderr[-400:]
                    times[label].setdefault(f"prompt {case}", []).append(ms)
                    times[label].setdefault(f"prompt {case} injected", []).append(float(bool(proc.stdout.strip())))
                bare, _ = _run([sys.executable, "-c", "pass"], b"", env)
                times[label].setdefault("python -c pass", []).append(bare)
        notes = sum(1 for _ in (vault / "memory").rglob("*.md"))
        print(f"{notes} notes, {args.runs} interleaved runs; medians in ms (x python -c pass)")
        for label, figures in times.items():
            floor = statistics.median(figures["python -c pass"])
            for what, values in figures.items():
                m = statistics.median(values)
                if what.endswith("injected"):
                    print(f"  {label:>6} {what}: {sum(values):.0f}/{len(values)}")
                else:
                    print(f"  {label:>6} {what}: {m:.0f} ({m / floor:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

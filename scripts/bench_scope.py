#!/usr/bin/env python3
"""The card and the prompt hook of two source trees in one run (not a test): this checkout against another
(``--base SRC``: e.g. ``git archive main | tar -x -C SRC``), each on its own copy of one indexed vault,
interleaved run by run (A B A B) with a bare ``python -c pass`` beside each, as the hooks are installed
(``python -P -c`` mdmem's entry point).

    python scripts/bench_scope.py --base SRC --base-vault V1 --vault V2 [--runs 9]

Per tree, medians [min-max] in ms and as a ratio to ``python -c pass``:
``hook session-start`` with its card kept (fresh) and right after a one-note edit (the card made again:
uncached), ``hook prompt`` with a related prompt (a new session each run) and an unrelated one.
Both vaults must be indexed already, each by its own tree.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HOOK = "from mdmem.__main__ import main; main()"
REPO = Path(__file__).resolve().parent.parent


def _run(cmd: list[str], stdin: bytes, env: dict) -> tuple[float, bytes]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, env=env, timeout=300)
    if proc.returncode:
        raise RuntimeError(proc.stderr.decode()[-400:])
    return (time.perf_counter() - t) * 1000, proc.stdout


def measure(trees: dict[str, tuple[str, Path]], runs: int) -> dict:
    out: dict = {name: {k: [] for k in ("bare", "fresh", "uncached", "related", "unrelated")} for name in trees}
    for i in range(runs):
        for name, (src, vault) in trees.items():
            env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {"PYTHONPATH": src}
            hook = [sys.executable, "-P", "-c", HOOK, "hook"]
            start = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": str(vault)}).encode()
            people = sorted((vault / "memory" / "people").rglob("*.md"))
            who = people[(len(people) // 2 + i) % len(people)].stem.replace("-", " ")

            def ask(text: str, name: str = name, vault: Path = vault) -> bytes:
                return json.dumps({"session_id": f"b-{name}-{time.time_ns()}", "cwd": str(vault),
                                   "hook_event_name": "UserPromptSubmit", "prompt": text}).encode()

            out[name]["bare"].append(_run([sys.executable, "-c", "pass"], b"", env)[0])
            _run(hook + ["session-start", "--vault", str(vault)], start, env)  # the card kept
            out[name]["fresh"].append(_run(hook + ["session-start", "--vault", str(vault)], start, env)[0])
            note = sorted((vault / "memory" / "feedback").rglob("*.md"))[i]
            old, st = note.read_bytes(), note.stat()
            try:
                note.write_bytes(old + b"\nbench edit\n")
                _run(hook + ["prompt", "--vault", str(vault)], ask("release notes"), env)  # the index caught up
                out[name]["uncached"].append(_run(hook + ["session-start", "--vault", str(vault)], start, env)[0])
            finally:
                note.write_bytes(old)
                os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
            _run(hook + ["prompt", "--vault", str(vault)], ask("release notes"), env)  # caught up, card kept
            _run(hook + ["session-start", "--vault", str(vault)], start, env)
            out[name]["related"].append(_run(hook + ["prompt", "--vault", str(vault)],
                                             ask(f"what did {who} say about the release?"), env)[0])
            out[name]["unrelated"].append(_run(hook + ["prompt", "--vault", str(vault)],
                                               ask("please refactor this function so that it returns early"),
                                               env)[0])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the other source tree (its mdmem/ inside)")
    ap.add_argument("--base-vault", type=Path, required=True)
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args(argv)
    trees = {"base": (args.base, args.base_vault), "this": (str(REPO), args.vault)}
    got = measure(trees, args.runs)
    print(f"load average {os.getloadavg()[0]:.1f}; medians [min-max] ms over {args.runs} runs; x python -c pass")
    for name, series in got.items():
        bare = statistics.median(series["bare"])
        for key, values in series.items():
            med = statistics.median(values)
            print(f"{name:5} {key:10} {med:7.0f} [{min(values):.0f}-{max(values):.0f}]  x{med / bare:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark ``mdmem import claude-code`` at scale: rate and peak memory on a generated corpus.

The corpus is made of real records: Claude Code transcripts of ``eval/data/checkpoint-real`` (public, cited
there), each repeated until a session file reaches ``--size`` bytes, with a fresh session id per file and its
timestamps moved to a day of its own (so sessions spread over days and daily notes as a real history does).
Then ``mdmem import claude-code`` runs as a separate process (``CLAUDE_CONFIG_DIR`` pointed at the corpus)
into a copy of sample-vault, twice: the first import, then a re-import (nothing to change). Peak memory is the
child's maximum resident set (``getrusage(RUSAGE_CHILDREN)``), so only the import process counts.

    python scripts/bench_import.py                 # 1,000 sessions of ~1 MB (about 1 GB)
    python scripts/bench_import.py --sessions 50   # a quick look
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "eval" / "data" / "checkpoint-real"
_TIME = re.compile(rb'"timestamp":"(\d{4}-\d{2}-\d{2})T')


def corpus(folder: Path, sessions: int, size: int) -> int:
    """Write ``sessions`` transcripts of about ``size`` bytes under ``folder/projects/<project>/``; bytes written."""
    sources = sorted(p for p in REAL.glob("*.jsonl") if p.stat().st_size > 20_000)
    total = 0
    start = dt.date(2025, 1, 1)
    for i in range(sessions):
        src = sources[i % len(sources)]
        data = src.read_bytes()
        old = json.loads(next(line for line in data.splitlines() if b'"sessionId"' in line)).get("sessionId", "")
        new = str(uuid.UUID(int=i + 1))
        day = (start + dt.timedelta(days=i % 700)).isoformat().encode()
        body = _TIME.sub(b'"timestamp":"' + day + b"T", data.replace(old.encode(), new.encode()))
        copies = max(1, size // max(1, len(body)))
        project = folder / "projects" / f"-work-project-{i % 12}"
        project.mkdir(parents=True, exist_ok=True)
        path = project / f"{new}.jsonl"
        with path.open("wb") as f:
            for _ in range(copies):
                f.write(body)
        total += len(body) * copies
    return total


def run(vault: Path, config: Path) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")}
    env |= {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(config.parent), "MDMEM_HOME": str(config.parent / "m")}
    began = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mdmem", "import", "claude-code", "--vault", str(vault)],
                          capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - began
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return seconds, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes of a session file (about)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        config = tmp / "home" / ".claude"
        t0 = time.perf_counter()
        size = corpus(config, args.sessions, args.size)
        made = time.perf_counter() - t0
        vault = tmp / "vault"
        shutil.copytree(ROOT / "sample-vault", vault, ignore=shutil.ignore_patterns(".mdmem"))
        first, summary = run(vault, config)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KB on Linux
        second, summary2 = run(vault, config)
        peak2 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        notes = len(list((vault / "sessions").glob("*.md")))
        print(f"corpus: {args.sessions} sessions, {size / 1e6:,.0f} MB of JSONL (made in {made:.1f} s)")
        print(f"import: {first:.1f} s = {args.sessions / first:.1f} sessions/s, {size / 1e6 / first:.1f} MB/s; "
              f"peak RSS {peak:.0f} MB; {notes} notes")
        print(f"        {summary}")
        print(f"re-import: {second:.1f} s = {args.sessions / second:.1f} sessions/s; peak RSS of both runs "
              f"{peak2:.0f} MB")
        print(f"        {summary2}")
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

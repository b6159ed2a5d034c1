"""Search and recall with 10,000 imported session notes beside a normal vault: are the query budgets kept?

The session notes are real ones multiplied: the Claude Code transcripts of ``eval/data/checkpoint-real`` (public,
cited there) are imported with ``mdmem import claude-code`` into a scratch vault, and each note is then copied
under new session ids, each copy dated one day later (name, ``session``, ``started``/``ended``/``created``), until
``--sessions`` notes sit in ``sessions/`` of a ``scripts/gen_vault.py`` vault of ``--notes`` notes. The index is
built once; then, in one process (warm, as ``watch`` or the MCP server run), every question of
``eval/data/session-recall/questions.json`` (real questions about those sessions, tune and held-out alike: only
latency is measured here) is asked ``--repeats`` times three ways: ``search`` (the notes; sessions are hidden),
``recall`` of a question about the past (sessions come first) and ``recall_sessions`` alone. p50 / p95 over all.
Then whole processes: ``mdmem recall QUESTION`` and ``mdmem hook prompt`` against ``python -c pass``.

    python scripts/bench_sessions.py                      # 10,000 session notes + 1,000 notes
    python scripts/bench_sessions.py --sessions 1000      # a quick look
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "eval" / "data" / "checkpoint-real"
QUESTIONS = ROOT / "eval" / "data" / "session-recall" / "questions.json"


def _env(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_") and k != "CLAUDECODE"}
    return env | {"HOME": str(tmp / "home"), "MDMEM_HOME": str(tmp / "home" / ".mdmem"),
                  "CLAUDE_CONFIG_DIR": str(tmp / "home" / ".claude")}


def real_notes(tmp: Path) -> list[tuple[str, str]]:
    """(file name, text) of the session notes the real transcripts make."""
    folder = tmp / "home" / ".claude" / "projects" / "real"
    folder.mkdir(parents=True)
    for f in REAL.glob("*.jsonl"):
        shutil.copy(f, folder / f.name)
    scratch = tmp / "scratch"
    shutil.copytree(ROOT / "sample-vault", scratch, ignore=shutil.ignore_patterns(".mdmem"))
    subprocess.run([sys.executable, "-m", "mdmem", "import", "claude-code", "--vault", str(scratch), "--quiet"],
                   check=True, env=_env(tmp))
    return sorted((p.name, p.read_text(encoding="utf-8")) for p in (scratch / "sessions").glob("*.md"))


_DATE = re.compile(r"\b(20\d\d-\d\d-\d\d)")


def copies(notes: list[tuple[str, str]], n: int, folder: Path) -> None:
    """``n`` session notes in ``folder``: the real ones, then copies under new ids, each one day later."""
    folder.mkdir(exist_ok=True)
    for i in range(n):
        name, text = notes[i % len(notes)]
        k = i // len(notes)
        if k:
            sid = re.search(r"^session: ?['\"]?([^'\"\n]+)", text, re.M).group(1)  # type: ignore[union-attr]
            new = f"{k:04x}{sid[4:]}"
            text = text.replace(sid, new).replace(sid[:8], new[:8])

            def later(m: re.Match, k: int = k) -> str:
                return (dt.date.fromisoformat(m.group(1)) + dt.timedelta(days=k)).isoformat()

            text = _DATE.sub(later, text)
            name = _DATE.sub(later, name, count=1).replace(sid[:8], new[:8])
        (folder / name).write_text(text, encoding="utf-8")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def warm(vaults: dict[str, Path], questions: list[str], repeats: int) -> dict[tuple[str, str], list[float]]:
    """Milliseconds of each way of asking, in each vault; the vaults take turns query by query (A/B under the same
    load)."""
    from mdmem.engine.memory import Memory
    from mdmem.ops.recall import recall
    from mdmem.ops.sessions import recall_sessions

    out: dict[tuple[str, str], list[float]] = {}
    mems = {label: Memory.open(v) for label, v in vaults.items()}
    ways = {"search": lambda m, q: m.search(q, limit=10),
            "recall (sessions first)": lambda m, q: recall(m, q, sessions=True, today="2026-12-01"),
            "recall_sessions": lambda m, q: recall_sessions(m, q, today="2026-12-01")}
    from mdmem.base.errors import MdmemError

    for name, run in ways.items():
        able = {}
        for label, mem in mems.items():
            try:
                run(mem, questions[0])  # warm-up
                able[label] = mem
            except MdmemError:  # recall_sessions in a vault without sessions
                pass
        for q in questions:
            for _ in range(repeats):
                for label, mem in able.items():
                    t = time.perf_counter()
                    run(mem, q)
                    out.setdefault((name, label), []).append((time.perf_counter() - t) * 1000)
    return out


def whole(argv: list[str], env: dict, runs: int, stdin: str | None = None) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, check=True)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--notes", type=int, default=1000, help="notes of the gen_vault.py vault beside them")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=int, default=7, help="whole-process runs (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sessions-") as folder:
        tmp = Path(folder)
        notes = real_notes(tmp)
        plain, vault = tmp / "plain", tmp / "vault"
        subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_vault.py"), str(plain), "--notes", str(args.notes)],
                       check=True, capture_output=True)
        shutil.copytree(plain, vault)
        copies(notes, args.sessions, vault / "sessions")
        env = _env(tmp)
        os.environ.update({k: env[k] for k in ("HOME", "MDMEM_HOME", "CLAUDE_CONFIG_DIR")})  # the index's key
        builds = {}
        for v in (plain, vault):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "mdmem", "index", "--rebuild", "--vault", str(v)], check=True,
                           capture_output=True, env=env)
            builds[v] = time.perf_counter() - t
        data = json.loads(QUESTIONS.read_text(encoding="utf-8"))
        questions = [q for part in ("tune", "heldout") for q, _ in data[part]]
        print(f"A: {args.notes} notes (index built in {builds[plain]:.0f} s); B: the same + {args.sessions} session "
              f"notes from {len(notes)} real ones (built in {builds[vault]:.0f} s); load {os.getloadavg()[0]:.1f}")
        got = warm({"A": plain, "B": vault}, questions, args.repeats)
        for name in dict.fromkeys(n for n, _ in got):
            a, b = got.get((name, "A")), got[(name, "B")]
            shown = f"A p50 {statistics.median(a):.1f} / p95 {pct(a, 0.95):.1f} ms; " if a else "A: no sessions; "
            ratio = f"; B/A p50 {statistics.median(b) / statistics.median(a):.2f}x" if a else ""
            print(f"warm {name}: {shown}B p50 {statistics.median(b):.1f} / p95 {pct(b, 0.95):.1f} ms{ratio} "
                  f"({len(b)} queries)")
        payload = json.dumps({"session_id": "b", "cwd": str(tmp), "prompt": questions[0],
                              "hook_event_name": "UserPromptSubmit"})
        base, rec, hook = [], {}, {}
        for _ in range(args.runs):  # interleaved: the same load for each
            base.append(whole([sys.executable, "-c", "pass"], env, 1))
            for label, v in (("A", plain), ("B", vault)):
                rec.setdefault(label, []).append(whole([sys.executable, "-m", "mdmem", "recall", questions[0],
                                                        "--vault", str(v)], env, 1))
                hook.setdefault(label, []).append(whole([sys.executable, "-m", "mdmem", "hook", "prompt", "--vault",
                                                         str(v)], env, 1, payload))
        b0 = statistics.median(base)
        print(f"whole process (median of {args.runs}): python -c pass {b0:.0f} ms; mdmem recall A "
              f"{statistics.median(rec['A']):.0f} / B {statistics.median(rec['B']):.0f} ms; hook prompt A "
              f"{statistics.median(hook['A']) / b0:.1f}x / B {statistics.median(hook['B']) / b0:.1f}x python -c pass")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark figures for mdmem (not a test): prints a table, optionally JSON.

    python scripts/bench.py [--notes 1000,10000] [--big 50000] [--runs 7] [--out bench.json]
                            [--work DIR] [--build-runs 3] [--build-budget 150] [--query-reps 10]

Standard library only (plus mdmem itself for the in-process parts). Vaults are
made by ``scripts/gen_vault.py`` under a temp dir, or under ``--work DIR``, where
a vault generated earlier (``DIR/vault-N`` with its ``DIR/vault-N.json``
sidecar) is reused when its note count, seed and size match. Per vault size,
as medians [min-max] over runs, and as the ratios DESIGN.md asks for:

1. full build: ``mdmem index --rebuild --json`` as a subprocess (the real
   multi-process writer): wall s, notes/s, per-stage s and notes/s from the JSON
   ``stages``; next to it the read+parse floor measured in this process (read
   all files; read + ``parse_note`` in one process, on an evenly spaced sample
   of at most ``--floor-sample`` notes);
2. ``grep -ril --exclude-dir=.mdmem WORD`` for a rare word (the reference a
   search must beat);
3. warm queries in one long-running process (``Memory.open``, ``refresh``, the
   generator's ``query_terms`` plus a few plain-language questions, each
   ``--query-reps`` times after a warm-up): p50 / p95 ms and grep / p50;
4. cold whole-process search, nothing changed: ``mdmem search WORD --json``;
5. edit -> search: append a unique word to one note (a different note each
   run), bump its mtime, time one ``mdmem search NEWWORD --json`` end to end and
   check the note is in the output (fails loudly if not); edited notes are
   restored byte for byte, with their old mtime, afterwards;
6. start-up: ``mdmem --help`` against a bare ``python -c pass``;
7. peak memory of each build: the build's ``rusage`` from ``os.wait4`` (the
   kernel's max RSS over the build process and every descendant it reaped, i.e.
   the largest single process; the same figure ``RUSAGE_CHILDREN`` /
   ``/usr/bin/time -f %M`` give, but per build rather than a lifetime maximum),
   plus the process tree's summed RSS and PSS sampled from ``/proc`` every 50 ms.
9. the budget audit: ``mdmem check --json`` as a whole new process, nothing
   changed (median ms and the number of issues it reports).
10. hooks and checkpoints (``scripts/bench_hooks.py``): per vault size ``mdmem hook
   session-start`` with its card fresh and right after an edit, ``mdmem hook prompt`` (a related prompt,
   an unrelated one, a greeting, each paired with ``python -c pass``; and right after an edit);
   ``mdmem hook stop`` not firing vs ``python -c pass`` (a terse prompt, one with signal words), firing on a 2.7 MB transcript with the scan prompt, and a
   growing session per stop. The real-session figures are ``scripts/eval_checkpoint.py``.

``--big N`` adds one N-note build (peak memory, notes/s), a grep and a few cold
searches, skipping the per-query parts. The load average and a pure-Python CPU
calibration loop are printed before and after: other work on the machine
shows up in every figure here.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import resource
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
pc = time.perf_counter

try:  # the in-process parts need mdmem; re-run under the project's venv if needed
    import mdmem
except ImportError:
    _venv_py = REPO / ".venv" / "bin" / "python"
    if _venv_py.is_file() and Path(sys.prefix).resolve() != _venv_py.parent.parent.resolve() and not os.environ.get(
        "MDMEM_BENCH_REEXEC"
    ):
        os.environ["MDMEM_BENCH_REEXEC"] = "1"
        os.execv(str(_venv_py), [str(_venv_py), str(Path(__file__).resolve()), *sys.argv[1:]])
    sys.exit("bench: cannot import mdmem; run with the project's venv python (.venv/bin/python)")

sys.path.insert(0, str(HERE))
import bench_hooks  # noqa: E402
import gen_vault  # noqa: E402

from mdmem.base import files as fs  # noqa: E402
from mdmem.base.layout import STATE_DIR  # noqa: E402
from mdmem.engine.memory import Memory  # noqa: E402
from mdmem.text.parse import parse_note  # noqa: E402

TARGETS = {  # DESIGN.md, "Performance targets" (at 10k notes unless said)
    "build_notes_per_s_min": 150,
    "edit_search_ms_max": 500,
    "warm_p50_ms_max": 20,
    "warm_p95_ms_max": 60,
    "big_peak_mb_max": 1024,
}


class BenchError(RuntimeError):
    pass


# --------------------------------------------------------------------------- helpers


def code_fingerprint() -> dict[str, str]:
    """A hash of each of mdmem's source files, to notice edits made while the bench runs."""
    import hashlib

    pkg = Path(mdmem.__file__).resolve().parent
    return {str(p.relative_to(pkg)): hashlib.sha256(p.read_bytes()).hexdigest()[:16]
            for p in sorted(pkg.rglob("*.py"))}


def log(msg: str) -> None:
    sys.stderr.write(f"[bench {dt.datetime.now():%H:%M:%S}] {msg}\n")
    sys.stderr.flush()


def pct(xs: list[float], p: float) -> float:
    """Percentile with linear interpolation (numpy's default)."""
    s = sorted(xs)
    if not s:
        return float("nan")
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(xs: list[float]) -> dict:
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)} if xs else {}


def loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def uptime_text() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "load average: " + ", ".join(map(str, loadavg()))


def cpu_calibration(reps: int = 5) -> float:
    """Median ms of a fixed pure-Python loop: compare before/after to see contention."""
    times = []
    for _ in range(reps):
        t = pc()
        acc = 0
        for i in range(300_000):
            acc += i * i % 7
        times.append((pc() - t) * 1000)
    return round(statistics.median(times), 1)


def subprocess_env() -> dict:
    env = dict(os.environ)
    env.pop("MDMEM_VAULT", None)
    env.pop("MDMEM_BENCH_REEXEC", None)
    return env


def run_timed(cmd: list[str], timeout: float = 600, check: bool = True) -> tuple[float, subprocess.CompletedProcess]:
    """Wall seconds of one subprocess, start to exit, with its output captured."""
    t = pc()
    cp = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=subprocess_env())
    wall = pc() - t
    if check and cp.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} exited {cp.returncode}:\n{cp.stderr.strip()[-2000:]}")
    return wall, cp


class TreeSampler(threading.Thread):
    """Sum RSS and PSS over a process and all its descendants, every ``interval`` s."""

    def __init__(self, root_pid: int, interval: float = 0.05):
        super().__init__(daemon=True)
        self.root_pid, self.interval = root_pid, interval
        self.stop_event = threading.Event()
        self.peak_rss_kb = self.peak_pss_kb = self.peak_procs = self.samples = 0
        self.page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
        self.available = Path("/proc/self/stat").exists()

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(name))
        out, todo = [], [self.root_pid]
        while todo:
            pid = todo.pop()
            out.append(pid)
            todo.extend(children.get(pid, ()))
        return out

    def sample(self) -> None:
        rss = pss = n = 0
        for pid in self._tree():
            try:
                with open(f"/proc/{pid}/statm", "rb") as f:
                    rss += int(f.read().split()[1]) * self.page_kb
                n += 1
                with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                    for line in f:
                        if line.startswith(b"Pss:"):
                            pss += int(line.split()[1])
                            break
            except (OSError, ValueError, IndexError):
                continue
        self.samples += 1
        self.peak_rss_kb = max(self.peak_rss_kb, rss)
        self.peak_pss_kb = max(self.peak_pss_kb, pss)
        self.peak_procs = max(self.peak_procs, n)

    def run(self) -> None:
        if not self.available:
            return
        while not self.stop_event.is_set():
            self.sample()
            self.stop_event.wait(self.interval)

    def stop(self) -> None:
        self.stop_event.set()
        self.join()


def run_tracked(cmd: list[str], timeout: float = 3600) -> dict:
    """Run ``cmd``; wall time, stdout, and its memory: ``os.wait4`` rusage
    (max RSS of the largest process among it and its reaped descendants) and the
    sampled peak of the whole tree's summed RSS / PSS."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = pc()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=subprocess_env())
        sampler = TreeSampler(proc.pid)
        sampler.start()
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        wall = pc() - t
        sampler.stop()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} exited {proc.returncode}:\n{stderr.strip()[-2000:]}")
    return {
        "wall": wall,
        "stdout": stdout,
        "maxrss_kb": usage.ru_maxrss,
        "user_s": usage.ru_utime,
        "sys_s": usage.ru_stime,
        "tree_rss_peak_kb": sampler.peak_rss_kb,
        "tree_pss_peak_kb": sampler.peak_pss_kb,
        "tree_procs_peak": sampler.peak_procs,
        "tree_samples": sampler.samples,
        "rusage_children_maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }


def letters(n: int, width: int = 4) -> str:
    out = ""
    for _ in range(width):
        n, r = divmod(n, 26)
        out += string.ascii_lowercase[r]
    return out


# --------------------------------------------------------------------------- vaults


def prepare_vault(work: Path, n: int, seed: int, size: int) -> tuple[Path, dict, bool]:
    """``work/vault-N`` (reused if generated earlier with the same arguments) and its info."""
    vdir, side = work / f"vault-{n}", work / f"vault-{n}.json"
    marker = vdir / gen_vault.MARKER
    if marker.is_file() and side.is_file():
        try:
            m, info = json.loads(marker.read_text()), json.loads(side.read_text())
        except (OSError, ValueError):
            m, info = {}, {}
        wanted = {"notes": n, "seed": seed, "size": size, "version": gen_vault.GENERATOR_VERSION}
        if all(m.get(k) == v for k, v in wanted.items()) and info.get("notes") == n:
            on_disk = fs.scan(vdir).notes
            if len(on_disk) == n + 1 and all(p in on_disk for p in info["paths"]):
                return vdir, info, True
            log(f"{vdir}: note count on disk ({len(on_disk) - 1}) does not match; regenerating")
    log(f"generating a {n:,}-note vault in {vdir} ...")
    info = gen_vault.generate(vdir, n, seed=seed, size=size, force=True)
    info = {k: info[k] for k in ("notes", "bytes", "seconds", "paths", "query_terms", "hubs")} | {
        "seed": seed, "size": size,
    }
    side.write_text(json.dumps(info) + "\n")
    return vdir, info, False


def rare_word(info: dict, seed: int) -> str:
    """The first single-word query term from the rare vocabulary (it occurs in 1-2 notes)."""
    rare = set(gen_vault.rare_words(seed))
    for t in info["query_terms"]:
        if " " not in t and t in rare:
            return t
    return gen_vault.rare_words(seed)[-1]


def questions(terms: list[str], seed: int) -> list[str]:
    rng = random.Random(f"mdmem-bench-questions:{seed}")
    templates = [
        "what did we decide about {a} and {b}?",
        "why did we choose {a} over {b}?",
        "how do we handle {a} in {b}?",
        "what do we know about {a}?",
        "o que decidimos sobre {a} e {b}?",
        "when did we last talk about {a} and {b}?",
        "who was involved with {a}?",
        "is there a note on {a} or {b}?",
    ]
    return [t.format(a=rng.choice(terms), b=rng.choice(terms)) for t in templates]


# --------------------------------------------------------------------------- measurements


def measure_floor(root: Path, runs: int, sample_max: int, budget: float) -> dict:
    paths = sorted(fs.scan(root).notes)
    total = len(paths)

    def read(rels):
        out = []
        for rel in rels:
            with open(root / rel, "rb") as f:
                data = f.read()
                st = os.fstat(f.fileno())
            out.append((rel, data, st.st_mtime_ns))
        return out

    read(paths)  # page cache
    read_s = []
    for _ in range(runs):
        t = pc()
        read(paths)
        read_s.append(pc() - t)
    sample = paths if total <= sample_max else [paths[i * total // sample_max] for i in range(sample_max)]
    for a in read(sample[:20]):  # imports, caches
        parse_note(*a)
    parse_s: list[float] = []
    started = pc()
    for _ in range(runs):
        t = pc()
        for rel in sample:
            with open(root / rel, "rb") as f:
                data = f.read()
                st = os.fstat(f.fileno())
            parse_note(rel, data, st.st_mtime_ns)
        parse_s.append(pc() - t)
        if pc() - started + parse_s[-1] > budget:
            break
    return {
        "notes": total,
        "read_s": summary(read_s),
        "read_notes_per_s": total / statistics.median(read_s),
        "parse_sample": len(sample),
        "read_parse_s": summary(parse_s),
        "read_parse_notes_per_s": len(sample) / statistics.median(parse_s),
    }


def measure_build(mdmem: str, root: Path, runs: int, budget: float) -> dict:
    cmd = [mdmem, "index", "--rebuild", "--json", "--vault", str(root)]
    recs = []
    started = pc()
    for i in range(runs):
        log(f"  build {i + 1}/{runs} ...")
        r = run_tracked(cmd)
        data = json.loads(r.pop("stdout"))
        if not data.get("rebuilt"):
            raise BenchError(f"{' '.join(cmd)} did not report a rebuild: {data}")
        r |= {"notes": data["notes"], "seconds": data["seconds"], "stages": data["stages"]}
        recs.append(r)
        log(f"    {r['wall']:.2f} s wall, {data['notes'] / r['wall']:.0f} notes/s, stages {data['stages']}")
        if pc() - started + r["wall"] > budget:
            break
    notes = recs[-1]["notes"]
    walls = [r["wall"] for r in recs]
    stages = {}
    for name in recs[-1]["stages"]:
        xs = [r["stages"][name] for r in recs if name in r["stages"]]
        stages[name] = summary(xs) | {"notes_per_s": notes / statistics.median(xs) if statistics.median(xs) else None}
    return {
        "notes": notes,
        "runs": recs,
        "wall_s": summary(walls),
        "notes_per_s": notes / statistics.median(walls),
        "internal_s": summary([r["seconds"] for r in recs]),
        "stages": stages,
        "maxrss_mb": summary([r["maxrss_kb"] / 1024 for r in recs]),
        "tree_rss_peak_mb": summary([r["tree_rss_peak_kb"] / 1024 for r in recs]),
        "tree_pss_peak_mb": summary([r["tree_pss_peak_kb"] / 1024 for r in recs]),
        "tree_procs_peak": max(r["tree_procs_peak"] for r in recs),
        "cpu_s": summary([r["user_s"] + r["sys_s"] for r in recs]),
    }


def measure_grep(root: Path, word: str, runs: int) -> dict:
    cmd = ["grep", "-ril", "--exclude-dir=" + STATE_DIR, word, str(root)]
    run_timed(cmd, check=False)  # page cache
    times, matches = [], 0
    for _ in range(runs):
        wall, cp = run_timed(cmd, check=False)
        if cp.returncode not in (0, 1):
            raise BenchError(f"grep failed: {cp.stderr}")
        times.append(wall)
        matches = len(cp.stdout.splitlines())
    return {"word": word, "cmd": " ".join(cmd[:-1]) + " VAULT", "s": summary(times), "files": matches}


def measure_warm(root: Path, terms: list[str], qs: list[str], reps: int) -> dict:
    t = pc()
    mem = Memory.open(root)
    opened = pc() - t
    try:
        t = pc()
        r = mem.refresh()
        refreshed = pc() - t
        if r.added or r.changed or r.removed or r.stale:
            log(f"  warning: in-process refresh was not a no-op: {r}")
        queries = [(q, "term") for q in terms] + [(q, "question") for q in qs]
        t = pc()
        mem.search(queries[0][0], 10)
        first = pc() - t
        hits = {}
        for q, _ in queries:  # warm-up
            hits[q] = len(mem.search(q, 10).results)
        times: dict[str, list[float]] = {q: [] for q, _ in queries}
        bare: list[float] = []  # diagnostic: the index alone, no snippets (no re-read of the hits)
        for _ in range(reps):
            for q, _ in queries:
                t = pc()
                mem.search(q, 10)
                times[q].append((pc() - t) * 1000)
            for q, _ in queries:
                t = pc()
                mem.index.search(q, 10)
                bare.append((pc() - t) * 1000)
    finally:
        mem.close()
    kinds = dict(queries)
    every = [x for xs in times.values() for x in xs]
    only = lambda kind: [x for q, xs in times.items() if kinds[q] == kind for x in xs]  # noqa: E731
    per_query = sorted(((statistics.median(xs), q) for q, xs in times.items()), reverse=True)
    return {
        "queries": len(queries),
        "reps": reps,
        "open_ms": opened * 1000,
        "refresh_noop_ms": refreshed * 1000,
        "first_query_ms": first * 1000,
        "p50_ms": pct(every, 50),
        "p95_ms": pct(every, 95),
        "max_ms": max(every),
        "no_snippets_p50_ms": pct(bare, 50),
        "no_snippets_p95_ms": pct(bare, 95),
        "terms_p50_ms": pct(only("term"), 50),
        "terms_p95_ms": pct(only("term"), 95),
        "questions_p50_ms": pct(only("question"), 50),
        "questions_p95_ms": pct(only("question"), 95),
        "slowest": [{"query": q, "median_ms": m} for m, q in per_query[:3]],
        "zero_hit_queries": [q for q, n in hits.items() if n == 0],
        "questions": qs,
    }


def search_cmd(mdmem: str, root: Path, word: str) -> list[str]:
    return [mdmem, "search", word, "--vault", str(root), "--json"]


def measure_cold(mdmem: str, root: Path, word: str, runs: int) -> dict:
    cmd = search_cmd(mdmem, root, word)
    run_timed(cmd)  # warm-up; also brings the index up to date if anything had changed
    times, n = [], 0
    for _ in range(runs):
        wall, cp = run_timed(cmd)
        times.append(wall * 1000)
        n = len(json.loads(cp.stdout)["results"])
    return {"word": word, "ms": summary(times), "hits": n}


class Edits:
    """Append unique words to notes, remembering how to put every file back exactly."""

    def __init__(self, root: Path):
        self.root = root
        self.saved: dict[str, tuple[bytes, int, int]] = {}
        self.tag = letters(int.from_bytes(os.urandom(4), "big"), 5)

    def edit(self, rel: str, i: int) -> str:
        word = f"zqx{self.tag}{letters(i, 3)}"
        path = self.root / rel
        st = os.stat(path)
        if rel not in self.saved:
            self.saved[rel] = (path.read_bytes(), st.st_atime_ns, st.st_mtime_ns)
        with open(path, "ab") as f:
            f.write(f"\n\nBench edit: {word}\n".encode())
        bumped = max(time.time_ns(), st.st_mtime_ns + 1_000_000_000)
        os.utime(path, ns=(st.st_atime_ns, bumped))
        return word

    def restore(self) -> None:
        for rel, (data, atime, mtime) in self.saved.items():
            path = self.root / rel
            path.write_bytes(data)
            os.utime(path, ns=(atime, mtime))
        self.saved.clear()


def pick_notes(paths: list[str], k: int, offset: int) -> list[str]:
    step = max(1, len(paths) // (k + 1))
    return [paths[(offset + (i + 1) * step) % len(paths)] for i in range(k)]


def measure_edit(mdmem: str, root: Path, paths: list[str], runs: int, index_runs: int) -> dict:
    edits = Edits(root)
    search_ms, index_recs = [], []
    try:
        run_timed(search_cmd(mdmem, root, "warmup"))  # index up to date before the first edit
        for i, rel in enumerate(pick_notes(paths, runs, 0)):
            word = edits.edit(rel, i)
            wall, cp = run_timed(search_cmd(mdmem, root, word))
            found = [h["path"] for h in json.loads(cp.stdout)["results"]]
            if rel not in found:
                raise BenchError(
                    f"edit->search FAILED: appended {word!r} to {rel}, but `mdmem search {word}` "
                    f"returned {found or 'no results'}\nstderr: {cp.stderr.strip()}"
                )
            search_ms.append(wall * 1000)
        # diagnostic: the same one-note update through `mdmem index --json`, for its stages
        for i, rel in enumerate(pick_notes(paths, index_runs, len(paths) // (2 * (runs + 1)) + 1)):
            edits.edit(rel, 1000 + i)
            wall, cp = run_timed([mdmem, "index", "--json", "--vault", str(root)])
            data = json.loads(cp.stdout)
            if data.get("changed", 0) + data.get("added", 0) < 1:
                raise BenchError(f"`mdmem index` after an edit of {rel} saw no change: {data}")
            index_recs.append({"wall_ms": wall * 1000, "seconds": data["seconds"], "stages": data["stages"]})
    finally:
        edits.restore()
        try:
            run_timed([mdmem, "index", "--json", "--vault", str(root)])  # back in step with the files
        except (BenchError, subprocess.SubprocessError) as e:
            log(f"warning: re-index after restoring edited notes failed: {e}")
    stages = {}
    for name in (index_recs[0]["stages"] if index_recs else {}):
        stages[name] = statistics.median([r["stages"].get(name, 0) for r in index_recs]) * 1000
    return {
        "search_ms": summary(search_ms),
        "index_wall_ms": summary([r["wall_ms"] for r in index_recs]),
        "index_internal_ms": summary([r["seconds"] * 1000 for r in index_recs]),
        "index_stages_ms": stages,
    }


def measure_graph(mdmem: str, root: Path, paths: list[str], runs: int) -> dict:
    """The link graph: a cold build and a cached load in process, warm
    ``neighbors --depth 2``, whole ``mdmem neighbors`` processes with nothing
    changed and after a one-note edit (refresh + incremental graph update)."""
    cache = root / ".mdmem" / "graph.json"
    cache.unlink(missing_ok=True)
    with Memory.open(root) as mem:
        mem.refresh()
        t = pc()
        graph = mem.graph()
        build_s = pc() - t
        nodes, edges = graph.g.number_of_nodes(), graph.g.number_of_edges()
    with Memory.open(root) as mem:
        mem.refresh()
        t = pc()
        graph = mem.graph()
        load_s = pc() - t
        sample = pick_notes(sorted(graph.notes()), 20, 3)
        graph.neighbors(sample[0], depth=2)
        near = []
        for _ in range(5):
            for note in sample:
                t = pc()
                graph.neighbors(note, depth=2)
                near.append((pc() - t) * 1000)
    target = pick_notes(paths, 1, 5)[0]
    cmd = [mdmem, "neighbors", target, "--depth", "2", "--json", "--vault", str(root)]
    run_timed(cmd)
    still = [run_timed(cmd)[0] * 1000 for _ in range(runs)]
    edits = Edits(root)
    after_edit = []
    try:
        for i, rel in enumerate(pick_notes(paths, runs, 7)):
            edits.edit(rel, 2000 + i)
            after_edit.append(run_timed(cmd)[0] * 1000)
    finally:
        edits.restore()
        run_timed([mdmem, "index", "--json", "--vault", str(root)])
    html = {}
    out = root.parent / f"{root.name}-graph.html"
    wall, cp = run_timed([mdmem, "graph", "html", "-o", str(out), "--vault", str(root)], check=False)
    if cp.returncode == 0 and out.exists():
        html = {"s": wall, "bytes": out.stat().st_size}
        out.unlink()
    return {
        "nodes": nodes, "edges": edges, "build_s": build_s, "load_s": load_s,
        "pickle_bytes": cache.stat().st_size if cache.exists() else 0,
        "neighbors_d2_warm_ms": {"p50": pct(near, 50), "p95": pct(near, 95)},
        "neighbors_process_ms": summary(still),
        "neighbors_after_edit_ms": summary(after_edit),
        "html": html,
    }


def measure_check(mdmem: str, root: Path, runs: int) -> dict:
    """The budget audit as a whole new process: ``mdmem check --json`` (read-only:
    no ``--update-budget``), after one warm-up run that also brings the cache up
    to date. Its exit code is 0 without ``--fail-on``, whatever it finds."""
    cmd = [mdmem, "check", "--json", "--vault", str(root)]
    run_timed(cmd)
    times, issues = [], 0
    for _ in range(runs):
        wall, cp = run_timed(cmd)
        times.append(wall * 1000)
        issues = len(json.loads(cp.stdout)["issues"])
    return {"ms": summary(times), "issues": issues}


def measure_startup(mdmem: str, runs: int) -> dict:
    out = {}
    py = sys.executable
    for name, cmd in (("mdmem_help", [mdmem, "--help"]), ("python_pass", [py, "-c", "pass"]),
                      ("import_cli", [py, "-c", "import mdmem.cli.app"]), ("import_core", [py, "-c", "import mdmem.engine.memory"])):
        run_timed(cmd)
        out[name] = summary([run_timed(cmd)[0] * 1000 for _ in range(runs)])
    out["ratio"] = out["mdmem_help"]["median"] / out["python_pass"]["median"]
    return out


# --------------------------------------------------------------------------- report


def f_med(s: dict, fmt: str = "{:.2f}") -> str:
    if not s:
        return "-"
    if s.get("n", 1) == 1:
        return fmt.format(s["median"]) + " (1 run)"
    return f"{fmt.format(s['median'])} [{fmt.format(s['min'])}-{fmt.format(s['max'])}]"


def _short(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def render(report: dict) -> str:
    sizes = report["sizes"]
    cols = [f"{s['notes']:,} notes" for s in sizes]
    rows: list[tuple[str, list[str]]] = []

    def row(label: str, fn) -> None:
        vals = []
        for s in sizes:
            try:
                vals.append(fn(s))
            except (KeyError, TypeError, ZeroDivisionError, ValueError):
                vals.append("-")
        rows.append((label, vals))

    def head(label: str) -> None:
        rows.append((label, [""] * len(sizes)))

    row("vault", lambda s: f"{s['vault']['bytes'] / 1e6:.1f} MB, {'reused' if s['vault']['reused'] else 'generated'}")
    head("1. full build: mdmem index --rebuild --json")
    row("   runs", lambda s: str(s["build"]["wall_s"]["n"]))
    row("   wall s  median [min-max]", lambda s: f_med(s["build"]["wall_s"]))
    row("   notes/s (median wall | best run)",
        lambda s: f"{s['build']['notes_per_s']:.0f} | {s['build']['notes'] / s['build']['wall_s']['min']:.0f}")
    row("   internal s (JSON seconds)", lambda s: f_med(s["build"]["internal_s"]))
    row("   CPU s (user+sys, all procs)", lambda s: f_med(s["build"]["cpu_s"], "{:.1f}"))
    row("   notes per CPU-second (load-proof)",
        lambda s: f"{s['build']['notes'] / s['build']['cpu_s']['median']:.0f}")
    names = list(dict.fromkeys(k for s in sizes for k in s["build"]["stages"]))  # as mdmem reports them
    sw = max(10, *(len(k) for k in names)) if names else 10
    for st in names:
        row(f"   stage {st:<{sw}} s | notes/s",
            lambda s, st=st: f"{s['build']['stages'][st]['median']:.2f} | {s['build']['stages'][st]['notes_per_s']:,.0f}")
    row("   floor: read all files notes/s", lambda s: f"{s['floor']['read_notes_per_s']:,.0f}")
    row("   floor: read+parse 1 proc notes/s",
        lambda s: f"{s['floor']['read_parse_notes_per_s']:,.0f}"
        + (f" (sample {s['floor']['parse_sample']:,})" if s['floor']['parse_sample'] < s['floor']['notes'] else ""))
    row("   build notes/s vs 1-proc floor",
        lambda s: f"{s['build']['notes_per_s'] / s['floor']['read_parse_notes_per_s']:.2f}x")
    if "read_parse" in names:
        row("   read_parse stage vs 1-proc floor",
            lambda s: f"{s['build']['stages']['read_parse']['notes_per_s'] / s['floor']['read_parse_notes_per_s']:.2f}x")
    head("2. grep -ril (rare word, .mdmem excluded)")
    row("   word (files matched)", lambda s: f"{s['grep']['word']} ({s['grep']['files']})")
    row("   wall s", lambda s: f_med(s["grep"]["s"], "{:.3f}"))
    head("3. warm query, one process (ms)")
    row("   queries x reps", lambda s: f"{s['warm']['queries']} x {s['warm']['reps']}")
    row("   open / no-op refresh / 1st query", lambda s: "{:.0f} / {:.0f} / {:.0f}".format(
        s["warm"]["open_ms"], s["warm"]["refresh_noop_ms"], s["warm"]["first_query_ms"]))
    row("   p50 / p95 (all)", lambda s: f"{s['warm']['p50_ms']:.1f} / {s['warm']['p95_ms']:.1f}")
    row("   p50 / p95 (query_terms)", lambda s: f"{s['warm']['terms_p50_ms']:.1f} / {s['warm']['terms_p95_ms']:.1f}")
    row("   p50 / p95 (questions)",
        lambda s: f"{s['warm']['questions_p50_ms']:.1f} / {s['warm']['questions_p95_ms']:.1f}")
    row("   max", lambda s: f"{s['warm']['max_ms']:.1f}")
    row("   diag: p50 / p95 index only, no snippets",
        lambda s: f"{s['warm']['no_snippets_p50_ms']:.1f} / {s['warm']['no_snippets_p95_ms']:.1f}")
    row("   slowest query (median)", lambda s: f"{s['warm']['slowest'][0]['median_ms']:.1f} {_short(s['warm']['slowest'][0]['query'])!r}")
    row("   queries with no hits", lambda s: str(len(s["warm"]["zero_hit_queries"])))
    row("   grep / p50", lambda s: f"{s['grep']['s']['median'] * 1000 / s['warm']['p50_ms']:.1f}x")
    head("4. cold search process, nothing changed")
    row("   wall ms", lambda s: f_med(s["cold"]["ms"], "{:.0f}"))
    row("   grep / cold search", lambda s: f"{s['grep']['s']['median'] * 1000 / s['cold']['ms']['median']:.2f}x")
    head("5. edit one note -> mdmem search NEWWORD")
    row("   wall ms (note found every run)", lambda s: f_med(s["edit"]["search_ms"], "{:.0f}"))
    row("   minus cold search ms", lambda s: f"{s['edit']['search_ms']['median'] - s['cold']['ms']['median']:.0f}")
    row("   diag: mdmem index after edit ms", lambda s: f_med(s["edit"]["index_wall_ms"], "{:.0f}"))
    row("   diag: its stages ms",
        lambda s: " ".join(f"{k.replace('read_', '')}={v:.0f}" for k, v in s["edit"]["index_stages_ms"].items()))
    head("8. link graph")
    row("   nodes / edges", lambda s: f"{s['graph']['nodes']:,} / {s['graph']['edges']:,}")
    row("   build s (in process) | cached load s",
        lambda s: f"{s['graph']['build_s']:.2f} | {s['graph']['load_s']:.2f}")
    row("   neighbors --depth 2 warm p50 / p95 ms",
        lambda s: f"{s['graph']['neighbors_d2_warm_ms']['p50']:.1f} / {s['graph']['neighbors_d2_warm_ms']['p95']:.1f}")
    row("   mdmem neighbors process ms, unchanged", lambda s: f_med(s["graph"]["neighbors_process_ms"], "{:.0f}"))
    row("   ... after a one-note edit ms", lambda s: f_med(s["graph"]["neighbors_after_edit_ms"], "{:.0f}"))
    row("   graph html s | MB",
        lambda s: f"{s['graph']['html']['s']:.1f} | {s['graph']['html']['bytes'] / 1e6:.1f}" if s["graph"]["html"] else "n/a")
    row("9. mdmem check --json process ms (issues)",
        lambda s: f_med(s["check"]["ms"], "{:.0f}") + f" ({s['check']['issues']:,})")
    row("10. hook session-start ms, card fresh (x python -c pass)",
        lambda s: f_med(s["session_start"]["fresh_ms"], "{:.0f}") + f" ({s['session_start']['ratio']['median']:.1f}x)"
        if s.get("session_start") else "n/a")
    row("    ... right after a one-note edit ms",
        lambda s: f_med(s["session_start"]["after_edit_ms"], "{:.0f}") if s.get("session_start") else "n/a")
    row("10. hook prompt ms, related / unrelated / greeting",
        lambda s: " / ".join(f_med(s["prompt"][c]["ms"], "{:.0f}") for c in ("related", "unrelated", "greeting"))
        if s.get("prompt") else "n/a")
    row("    ... x python -c pass (paired)",
        lambda s: " / ".join(f"{s['prompt'][c]['ratio']['median']:.1f}x" for c in ("related", "unrelated", "greeting"))
        if s.get("prompt") else "n/a")
    row("    ... right after a one-note edit ms",
        lambda s: f_med(s["prompt"]["after_edit_ms"], "{:.0f}") if s.get("prompt") else "n/a")
    head("7. peak memory of a full build (MB)")
    row("   largest process (wait4 ru_maxrss)", lambda s: f_med(s["build"]["maxrss_mb"], "{:.0f}"))
    row("   tree RSS sum (sampled)", lambda s: f_med(s["build"]["tree_rss_peak_mb"], "{:.0f}"))
    row("   tree PSS sum (sampled)", lambda s: f_med(s["build"]["tree_pss_peak_mb"], "{:.0f}"))
    row("   processes in tree (peak)", lambda s: str(s["build"]["tree_procs_peak"]))

    lw = max(len(label) for label, _ in rows) + 2
    cw = [max(len(c), *(len(v[i]) for _, v in rows)) + 2 for i, c in enumerate(cols)]
    lines = []
    m = report["machine"]
    lines.append(f"mdmem bench  {report['started']}  Python {m['python']}  {m['cpus']} CPUs  {m['platform']}")
    lines.append(f"load before: {report['load_before']['uptime']}")
    lines.append(f"load after:  {report['load_after']['uptime']}")
    lines.append(f"CPU calibration loop (median ms, lower is faster): before {report['load_before']['cpu_calib_ms']}, "
                 f"after {report['load_after']['cpu_calib_ms']}")
    lines.append(f"runs={report['args']['runs']}  build runs<={report['args']['build_runs']} "
                 f"(budget {report['args']['build_budget']:.0f} s)  query reps={report['args']['query_reps']}  "
                 f"figures: median [min-max]")
    lines.append("")
    before, after = report["code_before"], report["code_after"]
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    if changed:
        lines.append(f"WARNING: mdmem's source changed during this run ({', '.join(changed)}); figures may mix "
                     "versions, and the in-process parts ran the version imported at the start.")
    else:
        import hashlib

        digest = hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:12]
        lines.append(f"mdmem source fingerprint {digest} (unchanged during the run)")
    lines.append("")
    lines.append(" " * lw + "".join(c.rjust(w) for c, w in zip(cols, cw)))
    for label, vals in rows:
        lines.append(label.ljust(lw) + "".join(v.rjust(w) for v, w in zip(vals, cw)))
    st = report["startup"]
    lines.append("")
    lines.append("6. start-up: mdmem --help {} ms; python -c pass {} ms; ratio {:.1f}x".format(
        f_med(st["mdmem_help"], "{:.0f}"), f_med(st["python_pass"], "{:.0f}"), st["ratio"]))
    lines.append("   diag: python -c 'import mdmem.cli.app' {} ms; 'import mdmem.engine.memory' {} ms".format(
        f_med(st["import_cli"], "{:.0f}"), f_med(st["import_core"], "{:.0f}")))
    if report.get("big"):
        b = report["big"]
        bb = b["build"]
        lines.append("")
        lines.append(f"big vault {b['notes']:,} notes ({b['vault']['bytes'] / 1e6:.0f} MB): build "
                     f"{f_med(bb['wall_s'])} s, {bb['notes_per_s']:.0f} notes/s; stages "
                     + ", ".join(f"{k} {v['median']:.1f} s" for k, v in bb["stages"].items()))
        lines.append(f"   peak memory: largest process {f_med(bb['maxrss_mb'], '{:.0f}')} MB, tree RSS sum "
                     f"{f_med(bb['tree_rss_peak_mb'], '{:.0f}')} MB, tree PSS sum {f_med(bb['tree_pss_peak_mb'], '{:.0f}')} MB")
        lines.append(f"   grep {f_med(b['grep']['s'], '{:.3f}')} s; cold search {f_med(b['cold']['ms'], '{:.0f}')} ms")
    lines.append("")
    lines.append("memory: 'largest process' is the build's rusage from os.wait4 (kernel max RSS over the build "
                 "process and every descendant it reaped; same as RUSAGE_CHILDREN / `time -f %M`, per build); "
                 "the tree sums are /proc samples every 50 ms (RSS double-counts pages shared after fork; PSS does not).")
    if report.get("mcp"):
        lines.append("")
        for _key, m in report["mcp"].items():
            lines.append(f"MCP server, warm calls ({m['notes']:,} notes): search p50/p95 {m['search']['p50']:.1f} / "
                         f"{m['search']['p95']:.1f} ms, recall {m['recall']['p50']:.1f} / {m['recall']['p95']:.1f} ms "
                         f"(the same searches without the server {m['core_search']['p50']:.1f} / "
                         f"{m['core_search']['p95']:.1f} ms)")
    if report.get("hooks"):
        lines.append("")
        lines.append("10. " + "\n".join(bench_hooks.render(report["hooks"]["timing"])))
    lines.append("")
    lines.append("targets (DESIGN.md):")
    for verdict in report["verdicts"]:
        lines.append("  " + verdict)
    return "\n".join(lines)


def verdicts(report: dict) -> list[str]:
    out = []
    big_sizes = [s for s in report["sizes"] if s["notes"] >= 10000]
    ref = big_sizes[0] if big_sizes else (report["sizes"][-1] if report["sizes"] else None)
    if ref:
        at = f"at {ref['notes']:,} notes" + ("" if ref["notes"] >= 10000 else " (target is for 10k)")
        v = ref["build"]["notes_per_s"]
        out.append(f"{'OK    ' if v >= TARGETS['build_notes_per_s_min'] else 'MISSED'} full build >= 150 notes/s "
                   f"{at}: {v:.0f} notes/s")
        v = ref["edit"]["search_ms"]["median"]
        out.append(f"{'OK    ' if v < TARGETS['edit_search_ms_max'] else 'MISSED'} edit -> new search process "
                   f"< 500 ms {at}: {v:.0f} ms")
        p50, p95 = ref["warm"]["p50_ms"], ref["warm"]["p95_ms"]
        ok = p50 < TARGETS["warm_p50_ms_max"] and p95 < TARGETS["warm_p95_ms_max"]
        out.append(f"{'OK    ' if ok else 'MISSED'} warm query p50 < 20 ms, p95 < 60 ms {at}: "
                   f"{p50:.1f} / {p95:.1f} ms")
        if ref.get("prompt"):
            worst = max(ref["prompt"][c]["ratio"]["median"] for c in ("related", "unrelated", "greeting"))
            out.append(f"{'OK    ' if worst < 10 else 'MISSED'} mdmem hook prompt < 10x python -c pass {at}: "
                       f"{worst:.1f}x (the slowest case, related prompts; "
                       f"{ref['prompt']['after_edit_ms']['median']:.0f} ms right after an edit)")
        if ref.get("session_start"):
            v = ref["session_start"]["fresh_ms"]["median"]
            out.append(f"{'OK    ' if v < 300 else 'MISSED'} mdmem hook session-start < 300 ms {at}: {v:.0f} ms "
                       f"(card fresh; {ref['session_start']['after_edit_ms']['median']:.0f} ms right after an edit)")
    if report.get("big"):
        b = report["big"]["build"]
        peak = b["tree_pss_peak_mb"]["max"]
        out.append(f"{'OK    ' if peak < TARGETS['big_peak_mb_max'] else 'MISSED'} peak memory of a "
                   f"{report['big']['notes']:,}-note build < 1 GB: tree PSS {peak:.0f} MB "
                   f"(largest process {b['maxrss_mb']['max']:.0f} MB)")
    else:
        out.append("n/a    peak memory < 1 GB for a 50k build: not measured (use --big 50000)")
    out.append(f"info   mdmem --help is {report['startup']['ratio']:.1f}x python -c pass")
    hooks = report.get("hooks", {}).get("timing")
    if hooks:
        r, f = hooks["quiet_ratio"]["median"], hooks["fire_ms"]["median"]
        d = hooks["detecting"]["ratio"]["median"]
        out.append(f"{'OK    ' if r < 2 else 'MISSED'} mdmem hook stop not firing < 2x python -c pass: {r:.2f}x "
                   f"(a terse prompt; {d:.2f}x with signal words)")
        out.append(f"{'OK    ' if f < 150 else 'MISSED'} mdmem hook stop firing on a "
                   f"{hooks['fire_bytes'] / 1e6:.1f} MB transcript with the scan prompt < 150 ms: {f:.0f} ms")
    return out


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="mdmem benchmark figures (see the module docstring).")
    ap.add_argument("--notes", default="1000,10000", help="comma-separated vault sizes (default 1000,10000)")
    ap.add_argument("--big", type=int, default=0, help="also build a vault of this many notes (e.g. 50000)")
    ap.add_argument("--runs", type=int, default=7, help="runs per cheap measurement (default 7)")
    ap.add_argument("--build-runs", type=int, default=3, help="most full builds per size (default 3)")
    ap.add_argument("--build-budget", type=float, default=150.0,
                    help="no further build once the builds so far plus one more would pass this many s "
                         "(default 150; the first build always runs)")
    ap.add_argument("--query-reps", type=int, default=10, help="timed repetitions of each warm query (default 10)")
    ap.add_argument("--floor-sample", type=int, default=3000,
                    help="parse at most this many notes (evenly spaced) for the read+parse floor")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--size", type=int, default=3000, help="average note size in bytes (default 3000)")
    ap.add_argument("--work", type=Path, help="keep vaults here and reuse matching ones (default: a temp dir)")
    ap.add_argument("--mdmem", help="the mdmem executable (default: next to this Python, else on PATH)")
    ap.add_argument("--out", type=Path, help="also write the figures as JSON here")
    ap.add_argument("--no-hooks", action="store_true", help="skip section 10 (hooks and checkpoints)")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.notes.split(",") if x.strip()]
    if any(n < 10 for n in sizes) or args.runs < 1 or args.build_runs < 1 or args.query_reps < 1:
        ap.error("sizes must be >= 10 and runs >= 1")
    mdmem = args.mdmem or str(Path(sys.executable).parent / "mdmem")
    if not Path(mdmem).is_file():
        mdmem = shutil.which("mdmem") or ap.error("cannot find the mdmem executable; pass --mdmem")

    work = args.work.resolve() if args.work else Path(tempfile.mkdtemp(prefix="mdmem-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    report: dict = {
        "started": dt.datetime.now().isoformat(timespec="seconds"),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "platform": platform.platform(terse=True), "mdmem": mdmem},
        "work": str(work),
        "sizes": [],
    }
    report["code_before"] = code_fingerprint()
    log(f"work dir {work}; measuring start-up load ...")
    report["load_before"] = {"loadavg": loadavg(), "uptime": uptime_text(), "cpu_calib_ms": cpu_calibration()}
    log(report["load_before"]["uptime"])
    t_all = pc()
    try:
        report["startup"] = measure_startup(mdmem, args.runs)
        if not args.no_hooks:
            log("hooks ...")
            report["hooks"] = {"timing": bench_hooks.measure(mdmem, max(args.runs, 9))}
        for n in sizes:
            log(f"=== {n:,} notes")
            root, info, reused = prepare_vault(work, n, args.seed, args.size)
            s: dict = {"notes": n, "vault": {"path": str(root), "bytes": info["bytes"], "reused": reused,
                                             "gen_s": info["seconds"]}, "load": loadavg()}
            log("  read+parse floor ...")
            s["floor"] = measure_floor(root, args.runs, args.floor_sample, budget=30)
            log("  full builds ...")
            s["build"] = measure_build(mdmem, root, args.build_runs, args.build_budget)
            word = rare_word(info, args.seed)
            log(f"  grep -ril {word} ...")
            s["grep"] = measure_grep(root, word, args.runs)
            log(f"  warm queries ({len(info['query_terms'])} terms + questions) ...")
            s["warm"] = measure_warm(root, info["query_terms"], questions(info["query_terms"], args.seed),
                                     args.query_reps)
            log("  cold search processes ...")
            s["cold"] = measure_cold(mdmem, root, word, args.runs)
            log("  edit -> search ...")
            s["edit"] = measure_edit(mdmem, root, info["paths"], args.runs, min(3, args.runs))
            log("  link graph ...")
            s["graph"] = measure_graph(mdmem, root, info["paths"], min(5, args.runs))
            log("  budget audit (mdmem check) ...")
            s["check"] = measure_check(mdmem, root, min(5, args.runs))
            log("  hook session-start ...")
            s["session_start"] = bench_hooks.measure_session_start(mdmem, root, max(args.runs, 5))
            log("  hook prompt ...")
            s["prompt"] = bench_hooks.measure_prompt(mdmem, root, max(args.runs, 9))
            s["load_after"] = loadavg()
            report["sizes"].append(s)
            log(f"  warm p50 {s['warm']['p50_ms']:.1f} ms, cold search {s['cold']['ms']['median']:.0f} ms, "
                f"edit->search {s['edit']['search_ms']['median']:.0f} ms, load {s['load_after']}")
        if not args.no_hooks:
            log("MCP server: warm search and recall calls ...")
            tenk = [Path(s["vault"]["path"]) for s in report["sizes"] if s["notes"] >= 10000]
            report["mcp"] = bench_hooks.measure_mcp(30, big=tenk[0] if tenk else None)
        if args.big:
            log(f"=== big: {args.big:,} notes")
            root, info, reused = prepare_vault(work, args.big, args.seed, args.size)
            b: dict = {"notes": args.big, "vault": {"path": str(root), "bytes": info["bytes"], "reused": reused,
                                                    "gen_s": info["seconds"]}, "load": loadavg()}
            b["build"] = measure_build(mdmem, root, 1, 0)
            word = rare_word(info, args.seed)
            b["grep"] = measure_grep(root, word, min(3, args.runs))
            b["cold"] = measure_cold(mdmem, root, word, min(3, args.runs))
            b["load_after"] = loadavg()
            report["big"] = b
    except BenchError as e:
        log(f"FAILED: {e}")
        print(f"\nBENCH FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    report["seconds"] = round(pc() - t_all, 1)
    report["code_after"] = code_fingerprint()
    report["load_after"] = {"loadavg": loadavg(), "uptime": uptime_text(), "cpu_calib_ms": cpu_calibration()}
    report["verdicts"] = verdicts(report)
    print(render(report))
    print(f"\n(bench took {report['seconds']:.0f} s)")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        log(f"JSON written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

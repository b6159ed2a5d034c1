#!/usr/bin/env python3
"""Hook and checkpoint figures for mdmem (not a test); also a section of ``scripts/bench.py``.

    python scripts/bench_hooks.py [--runs 15] [--mb 2.7] [--out hooks.json] [--runner installed|console]
    python scripts/bench_hooks.py --agents [AGENT ...] [--runs 21]    (only 6. below)

Hooks are started as ``mdmem hook install`` writes them, through ``sh -c`` as an agent runs them (``python -P -c``
mdmem's entry point; ``--runner console``: through the console script, which imports ``re`` before mdmem runs).
``--base DIR``: the same figures, in the same run, for the mdmem package under ``DIR`` (an older tree: its hooks are
started with ``PYTHONPATH=DIR``), for a before/after.

1. ``mdmem hook stop`` when it does not fire (the default ``signals`` policy, one turn appended before each
   stop), against a bare ``python -c pass``, pair by pair (A B A B): a terse prompt, and one holding words a
   signal looks for ("ok, but ...");
2. ``mdmem hook stop`` firing on a generated 2.7 MB transcript with the scan prompt (a new session each run);
3. a session that grows by 3 turns between stops (only the appended bytes are read).

The real-session figures (the hook's firings on a replay of real sessions) are ``scripts/eval_checkpoint.py``.
4. ``mdmem hook prompt`` (UserPromptSubmit) on an indexed vault (``--prompt-vault DIR``, and per vault
   size in ``scripts/bench.py``): a related prompt, an unrelated one and a greeting, each paired with
   ``python -c pass``, and a related prompt right after a one-note edit.
6. ``--agents``: the quiet Stop of each agent (Claude Code, Codex, Gemini, Cursor, Copilot, Goose, OpenCode) as
   ``mdmem install AGENT`` wrote it, through ``sh -c`` with the agent's payload and its own transcript format,
   paired with ``sh -c 'python -c pass'``.

Whole processes, timed from here with ``perf_counter``; medians [min-max].
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))


# ----------------------------------------------------------------------------- timing


BASE: Path | None = None  # --base: an older tree whose mdmem is timed instead (PYTHONPATH)


def _env(**extra: str) -> dict:
    """The environment of the timed processes: no MDMEM_* from the caller, and bytecode caching on
    (a shell with PYTHONDONTWRITEBYTECODE=1 would make every run compile mdmem's sources again:
    measured 25-60 ms per hook, more than the hook's own work); ``PYTHONPATH`` the ``--base`` tree's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_") and k not in
           ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    return env | ({"PYTHONPATH": str(BASE)} if BASE else {}) | extra


def _compiled() -> None:
    """mdmem's bytecode written, as an installed package has it."""
    import compileall

    compileall.compile_dir(str((BASE or REPO) / "mdmem"), quiet=1)


RUNNER = "installed"  # how the hooks are started: as `mdmem hook install` writes them, or "console" (the script)


def hook_cmd(mdmem: str, *args: str) -> list[str]:
    """A hook's command line as an agent runs it, through ``sh -c``: as installed (this interpreter, ``-P -c``
    mdmem's entry point: the console script pip writes imports ``re`` first), or the console script ``mdmem``."""
    import shlex

    from mdmem.agents.launch import HOOK_CODE

    head = f"{shlex.quote(sys.executable)} -P -c {shlex.quote(HOOK_CODE)}" if RUNNER == "installed" else \
        shlex.quote(mdmem)
    return ["sh", "-c", f"{head} hook {shlex.join(args)}"]


def _time(cmd: list[str], stdin: bytes, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, env=env, timeout=120)
    return time.perf_counter() - t, proc


def _cpu(cmd: list[str], stdin: bytes, env: dict) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall seconds, CPU seconds of the child: user + system, the process)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, proc = _time(cmd, stdin, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc


def med(xs: list[float]) -> dict:
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def _turn(path: Path, n: int, user: str, reply: str, tools: int = 2) -> None:
    """Append one agent turn (a prompt, tool calls with their results, a reply) as Claude Code writes it."""
    recs = [{"type": "user", "message": {"role": "user", "content": user}}]
    for i in range(tools):
        recs.append({"type": "assistant", "message": {"id": f"b{n}", "role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{n}-{i}", "name": "Bash", "input": {"command": "pytest -q"}}]}})
        recs.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{n}-{i}", "content": "12 passed"}]}})
    recs.append({"type": "assistant", "message": {"id": f"b{n}", "role": "assistant",
                                                   "content": [{"type": "text", "text": reply}]}})
    with open(path, "a") as f:
        for r in recs:
            f.write(json.dumps({"sessionId": "bench", "timestamp": "2026-01-01T00:00:00Z", **r},
                               separators=(",", ":")) + "\n")


def measure(mdmem: str, runs: int = 15, mb: float = 2.7, work: Path | None = None) -> dict:
    """Whole ``mdmem hook stop`` processes under the default policy (``signals``), each paired with a
    bare ``python -c pass`` run right after it (A B A B: the ratio is taken pair by pair, so the
    machine's load weighs on both alike); wall time and the child's CPU time."""
    import gen_transcript

    _compiled()
    own = work is None
    work = Path(tempfile.mkdtemp(prefix="mdmem-hooks-")) if own else work
    try:
        vault = work / "vault"
        shutil.rmtree(vault, ignore_errors=True)
        shutil.copytree(REPO / "sample-vault", vault, ignore=shutil.ignore_patterns(".mdmem"))
        big = work / "big.jsonl"
        gen_transcript.generate(big, mb=mb, seed=11, lang="mix")
        # the trigger's budget keeps a session's first stops quiet unless the user asks: the big session ends with
        # that ask, so its first stop fires on the whole file
        _turn(big, 10_000, "please consolidate this session into memory", "Consolidating now.", tools=0)
        hook = hook_cmd(mdmem, "stop", "--vault", str(vault))
        bare = [sys.executable, "-c", "pass"]
        env = _env(MDMEM_NOW="1790000000")

        def payload(path: Path, session: str) -> bytes:
            return json.dumps({"session_id": session, "transcript_path": str(path), "cwd": str(work),
                               "hook_event_name": "Stop", "stop_hook_active": False}).encode()

        def paired(session: str, path: Path, grow) -> dict:
            """A quiet stop after each appended turn, paired with python -c pass."""
            quiet, qcpu, base, bcpu, ratios, cratios = [], [], [], [], [], []
            grow(0)
            _time(hook, payload(path, session), env)  # the session's first stop
            _time(bare, b"", env)
            for i in range(runs):
                grow(i + 1)
                a, ac, proc = _cpu(hook, payload(path, session), env)
                if proc.stdout or proc.returncode:
                    raise RuntimeError(f"the quiet hook printed or failed: {proc.stdout!r} {proc.stderr!r}")
                b, bc, _ = _cpu(bare, b"", env)
                quiet.append(a * 1000)
                qcpu.append(ac * 1000)
                base.append(b * 1000)
                bcpu.append(bc * 1000)
                ratios.append(a / b)
                cratios.append(ac / bc if bc else float("nan"))
            return {"ms": med(quiet), "cpu_ms": med(qcpu), "bare_ms": med(base), "bare_cpu_ms": med(bcpu),
                    "ratio": med(ratios), "cpu_ratio": med(cratios)}

        # 1b. the floor: the same hook exiting as soon as it has read its input (stop_hook_active); and what
        #     the console script pip writes costs before mdmem runs at all (it imports re, hence enum)
        floor, fratios, sratios = [], [], []
        for _ in range(runs):
            a, ac, _ = _cpu(hook, b'{"stop_hook_active": true}', env)
            b, bc, _ = _cpu(bare, b"", env)
            s, sc, _ = _cpu([sys.executable, "-c", "import re, sys"], b"", env)
            floor.append(a * 1000)
            fratios.append(a / b)
            sratios.append(s / b)
        # 2. not firing: a terse turn ("pushed", "rerun case 3"). Follow-ups are under five words: one of five or
        #    more steers the work and is a reason to fire (agents/stop.py), so its stop is not a quiet one
        plain = work / "plain.jsonl"
        plain.write_text("")
        quiet = paired("quiet", plain, lambda i: _turn(plain, i, f"rerun parse_args case {i}",
                                                       f"It returns an empty namespace for case {i}."))
        # 2b. not firing, but the prompt holds words a signal's patterns look for ("ok, but ..."): they are tried
        chatty = work / "chatty.jsonl"
        chatty.write_text("")
        detecting = paired("detecting", chatty, lambda i: _turn(
            chatty, i, f"ok, but check {i}", f"The logs of run {i} look fine."))
        # 3. firing on the whole big transcript (a new session each run: all of it is read)
        fire, fire_cpu, chars = [], [], 0
        for i in range(max(3, runs // 2) + 1):
            t, c, proc = _cpu(hook, payload(big, f"fire-{i}"), env)
            out = json.loads(proc.stdout or b"null")
            if not out or out.get("decision") != "block":
                raise RuntimeError(f"the hook did not fire on {big}: {proc.stdout!r} {proc.stderr!r}")
            chars = len(out["reason"])
            if i:
                fire.append(t * 1000)
                fire_cpu.append(c * 1000)
        # 4. a session that grows by 3 turns between stops (only the appended bytes are read)
        grow = work / "grow.jsonl"
        shutil.copy(big, grow)
        _time(hook, payload(grow, "grow"), env)  # first stop: the whole file
        step = []
        for i in range(runs):
            gen_transcript.append_turns(grow, turns=3, seed=100 + i, lang="mix")
            t, proc = _time(hook, payload(grow, "grow"), env)
            if proc.returncode:
                raise RuntimeError(proc.stderr)
            step.append(t * 1000)
        return {"runner": RUNNER, "floor_ms": med(floor), "floor_ratio": med(fratios), "script_ratio": med(sratios), "quiet": quiet, "detecting": detecting, "quiet_ms": quiet["ms"], "bare_ms": quiet["bare_ms"],
                "quiet_ratio": quiet["ratio"], "fire_ms": med(fire), "fire_cpu_ms": med(fire_cpu),
                "fire_bytes": big.stat().st_size, "prompt_chars": chars, "step_ms": med(step),
                "grown_bytes": grow.stat().st_size}
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def measure_session_start(mdmem: str, vault: Path, runs: int = 9) -> dict:
    """``mdmem hook session-start`` on ``vault``: with its card fresh (paired with ``python -c
    pass``), and right after a one-note edit (the card made again: refresh + context)."""
    env = _env()
    hook = hook_cmd(mdmem, "session-start", "--vault", str(vault))
    stdin = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": str(vault)}).encode()
    _time(hook, stdin, env)
    fresh, bare, ratios, stale = [], [], [], []
    for _ in range(runs):
        a, proc = _time(hook, stdin, env)
        if b"# Memory (" not in proc.stdout:
            raise RuntimeError(f"no card: {proc.stdout[:200]!r} {proc.stderr[:400]!r}")
        b, _ = _time([sys.executable, "-c", "pass"], b"", env)
        fresh.append(a * 1000)
        bare.append(b * 1000)
        ratios.append(a / b)
    notes = sorted((vault / "memory").rglob("*.md"))[:max(3, runs // 3)]
    for note in notes:
        old = note.read_bytes()
        st = note.stat()
        try:
            note.write_bytes(old + b"\nbench edit\n")
            t, _ = _time(hook, stdin, env)
            stale.append(t * 1000)
        finally:
            note.write_bytes(old)
            os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
    _time(hook, stdin, env)  # leave the card fresh again
    return {"notes": sum(1 for _ in (vault / "memory").rglob("*.md")), "fresh_ms": med(fresh), "bare_ms": med(bare),
            "ratio": med(ratios), "after_edit_ms": med(stale)}


def measure_prompt(mdmem: str, vault: Path, runs: int = 15) -> dict:
    """``mdmem hook prompt`` on an indexed ``vault`` (UserPromptSubmit), paired with ``python -c pass`` run by
    run (A B A B): a prompt that names a note (it injects; a new session each run, so once-per-session never
    silences it), one with words but nothing relevant, a greeting (no content words: the quickest exit), and
    a related prompt right after a one-note edit (the index brought up to date first). The vault must be
    indexed already (``mdmem index``)."""
    people = sorted((vault / "memory" / "people").rglob("*.md")) or sorted((vault / "memory").rglob("*.md"))
    name = people[len(people) // 2].stem.replace("-", " ")
    cases = {"related": f"what did {name} say about the release?",
             "unrelated": "please refactor this function so that it returns early",
             "greeting": "hi"}
    env = _env()
    hook = hook_cmd(mdmem, "prompt", "--vault", str(vault))

    def payload(text: str, session: str) -> bytes:
        return json.dumps({"session_id": session, "transcript_path": "/dev/null", "cwd": str(vault),
                           "hook_event_name": "UserPromptSubmit", "prompt": text}).encode()

    _time(hook, payload(cases["related"], "warm"), env)
    out = {"notes": sum(1 for _ in (vault / "memory").rglob("*.md")), "prompts": cases}
    for case, text in cases.items():
        ms, bare, ratios, hits = [], [], [], 0
        for i in range(runs):
            a, proc = _time(hook, payload(text, f"bench-{case}-{i}-{time.time_ns()}"), env)
            if proc.returncode:
                raise RuntimeError(f"hook prompt failed: {proc.stderr!r}")
            hits += bool(proc.stdout.strip())
            b, _ = _time([sys.executable, "-c", "pass"], b"", env)
            ms.append(a * 1000)
            bare.append(b * 1000)
            ratios.append(a / b)
        out[case] = {"ms": med(ms), "bare_ms": med(bare), "ratio": med(ratios), "injected": hits}
    note = people[len(people) // 2]
    old = note.read_bytes()
    st = note.stat()
    edits = []
    try:
        for i in range(max(3, runs // 3)):
            note.write_bytes(old + f"\nbench edit {i}\n".encode())
            t, proc = _time(hook, payload(cases["related"], f"bench-edit-{i}-{time.time_ns()}"), env)
            if proc.returncode or not proc.stdout.strip():
                raise RuntimeError(f"no answer after an edit: {proc.stdout!r} {proc.stderr!r}")
            edits.append(t * 1000)
    finally:
        note.write_bytes(old)
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
    _time(hook, payload(cases["related"], "settle"), env)  # the index back to the original bytes
    out["after_edit_ms"] = med(edits)
    return out


def measure_mcp(runs: int = 30, big: Path | None = None) -> dict:
    """Warm ``search`` and ``recall`` calls through ``mdmem mcp``'s server, in-process
    with the MCP SDK's in-memory client (JSON-RPC streams, as over stdio): p50/p95 ms
    after one warm-up call of each, on a copy of sample-vault and, when ``big`` is
    given, on that vault (a 10k-note one is generated there first when it holds no
    notes; indexed in place, so later runs reuse its index). Queries cycle through
    the vault's own note titles."""
    import anyio
    from mcp import Client

    from mdmem.engine.memory import Memory
    from mdmem.mcp_server import build_server

    def pct(xs: list[float]) -> dict:
        qs = statistics.quantiles(xs, n=20, method="inclusive")
        return {"p50": statistics.median(xs), "p95": qs[18], "n": len(xs)}

    async def calls(root: Path, queries: list[str]) -> dict:
        async with Client(build_server(root), mode="legacy") as client:
            out = {}
            for tool in ("search", "recall"):
                await client.call_tool(tool, {"query": queries[0]})  # warm-up
                ms = []
                for i in range(runs):
                    t = time.perf_counter()
                    result = await client.call_tool(tool, {"query": queries[i % len(queries)]})
                    ms.append((time.perf_counter() - t) * 1000)
                    if result.is_error:
                        raise RuntimeError(f"{tool}: {result.content[0].text}")
                out[tool] = pct(ms)
            return out

    def one(root: Path) -> dict:
        t = time.perf_counter()
        with Memory.open(root) as mem:
            notes = mem.refresh().notes
            titles = sorted(n.title.replace("-", " ") for n in mem.notes())
        build = time.perf_counter() - t
        queries = [" ".join(title.split()[:2]) for title in titles[:: max(1, len(titles) // 40)]]
        out = {"notes": notes, "index_s": build, **anyio.run(calls, root, queries)}
        with Memory.open(root) as mem:  # the same searches without the server: what MCP adds
            mem.refresh()
            mem.search(queries[0])
            ms = []
            for i in range(runs):
                t = time.perf_counter()
                mem.search(queries[i % len(queries)])
                ms.append((time.perf_counter() - t) * 1000)
        return out | {"core_search": pct(ms)}

    work = Path(tempfile.mkdtemp(prefix="mdmem-mcp-"))
    try:
        sample = work / "vault"
        shutil.copytree(REPO / "sample-vault", sample, ignore=shutil.ignore_patterns(".mdmem"))
        report = {"sample": one(sample)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if big is not None:
        if not big.is_dir() or not any(big.rglob("*.md")):
            import gen_vault

            gen_vault.generate(big, notes=10_000)
        report["big"] = one(big)
    return report


def _p(x) -> str:
    return "  -  " if x is None else f"{x:.2f}"


def render_prompt(prompt: dict | None) -> list[str]:
    lines = []
    for name, m in (prompt or {}).items():
        lines.append(f"mdmem hook prompt ({name}: {m['notes']} notes), ms median [min-max] and x python -c pass:")
        for case in ("related", "unrelated", "greeting"):
            c = m[case]
            lines.append(f"   {case:<9} {c['ms']['median']:.0f} [{c['ms']['min']:.0f}-{c['ms']['max']:.0f}]; python -c "
                         f"pass {c['bare_ms']['median']:.0f}; ratio {c['ratio']['median']:.2f}x "
                         f"[{c['ratio']['min']:.2f}-{c['ratio']['max']:.2f}] (target < 10x); "
                         f"injected {c['injected']}/{c['ms']['n']}")
        lines.append(f"   right after a one-note edit {m['after_edit_ms']['median']:.0f} ms "
                     f"[{m['after_edit_ms']['min']:.0f}-{m['after_edit_ms']['max']:.0f}] (the index refreshed first)")
    return lines


def render(timing: dict | None, mcp: dict | None = None, prompt: dict | None = None,
           title: str = "") -> list[str]:
    lines = []
    if timing:
        q = timing

        def span(m: dict) -> str:
            return f"{m['median']:.0f} [{m['min']:.0f}-{m['max']:.0f}]"

        lines.append(f"hooks{title} (whole processes, ms, median [min-max]; the ratio pair by pair against python -c "
                     f"pass; started through sh -c {'as installed: python -P -c' if q.get('runner', 'installed') == 'installed' else 'through the console script'})")
        lines.append(f"   hook stop, the floor (stop_hook_active: exits after reading stdin) {span(q['floor_ms'])}; "
                     f"ratio {q['floor_ratio']['median']:.2f}x"
                     + (f"; a console script's own `import re`: {q['script_ratio']['median']:.2f}x" if "script_ratio" in q
                        else ""))
        for key, what in (("quiet", "not firing, a terse prompt"), ("detecting", "not firing, signal words")):
            m = q[key]
            lines.append(f"   hook stop, {what:<30} {span(m['ms'])} (CPU {m['cpu_ms']['median']:.0f}); python -c pass "
                         f"{m['bare_ms']['median']:.0f} (CPU {m['bare_cpu_ms']['median']:.0f}); ratio "
                         f"{m['ratio']['median']:.2f}x (CPU {m['cpu_ratio']['median']:.2f}x) (target < 2x)")
        lines.append(f"   hook stop, firing on {q['fire_bytes'] / 1e6:.1f} MB with the scan prompt ({q['prompt_chars']} "
                     f"characters) {span(q['fire_ms'])} (CPU {q['fire_cpu_ms']['median']:.0f}) (target < 150)")
        lines.append(f"   3 new turns per stop ({q['grown_bytes'] / 1e6:.1f} MB file) {span(q['step_ms'])}")
    lines += render_prompt(prompt)
    for name, m in (mcp or {}).items():
        lines.append(f"mdmem mcp, warm calls in-process ({name}: {m['notes']} notes, indexed in {m['index_s']:.1f} s): "
                     + "; ".join(f"{t} p50 {m[t]['p50']:.1f} ms p95 {m[t]['p95']:.1f} ms" for t in ("search", "recall"))
                     + f" (target at 10k: p50 < 20, p95 < 60); the same searches without the server p50 "
                       f"{m['core_search']['p50']:.1f} ms p95 {m['core_search']['p95']:.1f} ms")
    return lines


# the agents whose `mdmem install AGENT` writes a Stop hook: (its config file, its event, its command field, flat)
AGENT_STOP = {"claude": (".claude/settings.local.json", "Stop", "command", False),  # the reference
              "codex": (".codex/hooks.json", "Stop", "command", False),
              "gemini": (".gemini/settings.json", "AfterAgent", "command", False),
              "cursor": (".cursor/hooks.json", "stop", "command", True),
              "copilot": (".github/hooks/mdmem.json", "agentStop", "bash", True),
              "goose": None,  # the card in AGENTS.md only: Goose's payloads carry no transcript (no Stop hook)
              "opencode": (".opencode/plugins/mdmem.js", "session.idle", "", True)}  # the plugin spawns it


def _installed_stop(project: Path, agent: str) -> str | None:
    """The exact Stop command ``mdmem install AGENT`` wrote into ``project`` (for OpenCode: the command its plugin
    spawns, as a shell line)."""
    import shlex

    where = AGENT_STOP[agent]
    if where is None:
        return None
    file, event, field, flat = where
    if agent == "opencode":
        text = (project / file).read_text("utf-8")
        value = {ln.split(" = ", 1)[0][6:]: json.loads(ln.split(" = ", 1)[1].split(" //")[0])
                 for ln in text.splitlines() if ln.startswith(("const COMMAND = ", "const VAULT = "))}
        return shlex.join([*value["COMMAND"], "hook", "stop", "--agent", "opencode", "--vault", value["VAULT"]])
    data = json.loads((project / file).read_text("utf-8"))
    entries = data["hooks"][event] if flat else [h for g in data["hooks"][event] for h in g["hooks"]]
    return [e[field] for e in entries if " hook stop " in e[field]][0]


def _agent_turn(agent: str, transcript: Path, n: int) -> None:
    """One more quiet turn (no word any detector needs) in the agent's own transcript format."""
    user, reply = f"rerun parse_args case {n}", f"It returns an empty namespace for case {n}."  # as measure()
    if agent == "codex":
        recs = [{"timestamp": "2025-11-22T22:30:00.000Z", "type": "event_msg",
                 "payload": {"type": "user_message", "message": user, "images": []}},
                {"timestamp": "2025-11-22T22:30:05.000Z", "type": "event_msg",
                 "payload": {"type": "agent_message", "message": reply}}]
        with transcript.open("a", encoding="utf-8") as f:
            f.write("".join(json.dumps(r) + "\n" for r in recs))
    elif agent == "gemini":
        rec = json.loads(transcript.read_text("utf-8"))
        rec["messages"] += [{"id": f"u{n}", "timestamp": "2026-01-10T02:10:00.000Z", "type": "user", "content": user},
                            {"id": f"g{n}", "timestamp": "2026-01-10T02:10:05.000Z", "type": "gemini",
                             "content": reply}]
        transcript.write_text(json.dumps(rec), "utf-8")
    elif agent == "opencode":
        rows = [{"info": {"id": f"msg_{n}u", "sessionID": "ses_bench", "role": "user"},
                 "parts": [{"type": "text", "text": user}]},
                {"info": {"id": f"msg_{n}a", "sessionID": "ses_bench", "role": "assistant"},
                 "parts": [{"type": "tool", "tool": "bash"}, {"type": "text", "text": reply}]}]
        with transcript.open("a", encoding="utf-8") as f:
            f.write("".join(json.dumps(r) + "\n" for r in rows))
    else:  # Claude Code; Cursor and Copilot: Claude Code's JSONL, as far as mdmem reads their transcripts
        _turn(transcript, n, user, reply)


def _agent_payload(agent: str, project: Path, transcript: Path) -> bytes:
    """A Stop payload shaped as the agent sends it (the fields its adapter reads, see mdmem/agents/<agent>/hooks.py
    and the sources cited there)."""
    p, t = str(project), str(transcript)
    payload = {
        "claude": {"session_id": "claude-bench", "transcript_path": t, "cwd": p, "hook_event_name": "Stop",
                   "stop_hook_active": False},
        "codex": {"cwd": p, "hook_event_name": "Stop", "last_assistant_message": "fixed", "model": "m",
                  "permission_mode": "default", "session_id": "019aad50-bench", "stop_hook_active": False,
                  "transcript_path": t, "turn_id": "t-1"},
        "gemini": {"session_id": "gemini-bench", "transcript_path": t, "cwd": p, "hook_event_name": "AfterAgent",
                   "timestamp": "2026-01-10T02:10:06Z", "prompt": "go on", "prompt_response": "fixed",
                   "stop_hook_active": False},
        "cursor": {"conversation_id": "cursor-bench", "generation_id": "g", "hook_event_name": "stop",
                   "status": "completed", "loop_count": 0, "workspace_roots": [p], "transcript_path": t},
        "copilot": {"timestamp": 1760000000, "cwd": p, "sessionId": "copilot-bench", "transcriptPath": t,
                    "stopHookActive": False},
        "opencode": {"hook_event_name": "session.idle", "event": {"type": "session.idle",
                     "properties": {"sessionID": "ses_bench"}}, "directory": p, "continuing": False,
                     "transcript": t},
    }[agent]
    return json.dumps(payload).encode()


def measure_agents(runs: int = 15, agents: tuple[str, ...] = tuple(AGENT_STOP)) -> dict:
    """The quiet Stop of each agent as ``mdmem install AGENT`` wrote it: its exact command through ``sh -c``, the
    payload as the agent sends it, a quiet turn appended to the agent's own transcript before each stop, paired
    with ``python -c pass`` (``sh -c`` too) run right after it; medians of the pair-by-pair ratios."""
    _compiled()
    work = Path(tempfile.mkdtemp(prefix="mdmem-agents-"))
    out: dict = {}
    try:
        vault = work / "vault"
        shutil.copytree(REPO / "sample-vault", vault, ignore=shutil.ignore_patterns(".mdmem"))
        env = _env(MDMEM_NOW="1790000000")
        bare = ["sh", "-c", f"{sys.executable} -c pass"]
        for agent in agents:
            project = work / agent
            (project / ".git").mkdir(parents=True)
            install = ["hook", "install", "--scope", "local"] if agent == "claude" else ["install", agent]
            subprocess.run([sys.executable, "-m", "mdmem", *install, "--vault", str(vault), "--project",
                            str(project)], check=True, capture_output=True, env=env)
            command = _installed_stop(project, agent)
            if command is None:
                out[agent] = {"command": None, "why": "no Stop hook: Goose's payloads carry no transcript"}
                continue
            transcript = work / f"{agent}.transcript"
            if agent == "codex":
                shutil.copy(next((REPO / "tests" / "data" / "codex").glob("rollout-*.jsonl")), transcript)
            elif agent == "gemini":
                shutil.copy(REPO / "tests" / "data" / "gemini" / "session-12-cbfeaa512b.json", transcript)
            else:
                transcript.write_text("", "utf-8")
            hook = ["sh", "-c", command]
            payload = _agent_payload(agent, project, transcript)
            _agent_turn(agent, transcript, 0)
            _time(hook, payload, env)  # the session's first stop
            quiet, base, ratios, printed = [], [], [], []
            for i in range(runs):
                _agent_turn(agent, transcript, i + 1)
                a, proc = _time(hook, payload, env)
                b, _ = _time(bare, b"", env)
                quiet.append(a * 1000)
                base.append(b * 1000)
                ratios.append(a / b)
                printed.append(proc.stdout.decode()[:80])
            out[agent] = {"command": command, "quiet_ms": med(quiet), "bare_ms": med(base), "ratio": med(ratios),
                          "silent": sum(1 for x in printed if not x.strip()), "runs": runs}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def render_agents(found: dict) -> list[str]:
    lines = ["quiet stop per agent, as installed (sh -c its command, its payload; ms median [min-max]; ratio pair by "
             "pair against sh -c 'python -c pass'):"]
    for agent, m in found.items():
        if m["command"] is None:
            lines.append(f"   {agent:9} -- ({m['why']})")
            continue
        q = m["quiet_ms"]
        lines.append(f"   {agent:9} {q['median']:.0f} [{q['min']:.0f}-{q['max']:.0f}]; pass {m['bare_ms']['median']:.0f}; ratio "
                     f"{m['ratio']['median']:.2f}x [{m['ratio']['min']:.2f}-{m['ratio']['max']:.2f}]; "
                     f"{m['silent']}/{m['runs']} silent")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--mb", type=float, default=2.7)
    ap.add_argument("--quality-only", action="store_true", help="no hook timing (with --prompt-vault or --mcp)")
    ap.add_argument("--base", type=Path, metavar="DIR", help="also time the mdmem package under DIR (an older tree), "
                    "first, in the same run")
    ap.add_argument("--mdmem", default=str(Path(sys.executable).parent / "mdmem"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--runner", choices=("installed", "console"), default="installed",
                    help="start the hooks as `mdmem hook install` writes them (default) or through the console script")
    ap.add_argument("--mcp", action="store_true", help="also time warm search/recall calls of the MCP server")
    ap.add_argument("--mcp-vault", type=Path, metavar="DIR",
                    help="with --mcp: this vault too (a 10k-note one is generated there when it holds no notes)")
    ap.add_argument("--prompt-vault", type=Path, metavar="DIR", action="append",
                    help="time `mdmem hook prompt` on this indexed vault (repeat); with --prompt-only nothing else")
    ap.add_argument("--prompt-only", action="store_true")
    ap.add_argument("--agents", nargs="*", metavar="AGENT", choices=tuple(AGENT_STOP),
                    help="only the quiet stop of each agent's installed hook (all when none is named)")
    args = ap.parse_args(argv)
    global RUNNER
    RUNNER = args.runner
    if args.agents is not None:
        found = measure_agents(args.runs, tuple(args.agents) or tuple(AGENT_STOP))
        print("\n".join(render_agents(found)))
        if args.out:
            args.out.write_text(json.dumps({"agents": found}, indent=2) + "\n")
        return 0
    prompt = {str(v): measure_prompt(args.mdmem, v, args.runs) for v in args.prompt_vault or ()}
    if args.prompt_only:
        print("\n".join(render_prompt(prompt)))
        if args.out:
            args.out.write_text(json.dumps({"prompt": prompt}, indent=2) + "\n")
        return 0
    timing = None
    if not args.quality_only:
        global BASE
        base = None
        if args.base:  # the older tree first, then this one, in the same run
            BASE = args.base.resolve()
            base = measure(args.mdmem, args.runs, args.mb)
            BASE = None
        timing = measure(args.mdmem, args.runs, args.mb)
        if base:
            print("\n".join(render(base, title=f" (--base {args.base})")))
    mcp = measure_mcp(max(args.runs, 20), args.mcp_vault) if args.mcp else None
    print("\n".join(render(timing, mcp=mcp, prompt=prompt)))
    if args.out:
        args.out.write_text(json.dumps({"base": base if timing else None, "timing": timing, "mcp": mcp,
                                        "prompt": prompt}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The SessionStart card made uncached and the prompt hook, as installed, against ``python -c pass`` in one run.

    python scripts/bench_card_ab.py VAULT [--runs 11] [--ref main] [--profile] [--out figures.json]

VAULT must be indexed (``mdmem index``); an empty or missing VAULT is made first (``scripts/gen_vault.py``, 10k
notes) and indexed. Each hook is started as ``mdmem install claude`` writes it (the command of
:func:`mdmem.agents.claude.settings.hook_command`, through ``sh -c``, the payload on stdin), and ``python -c pass``
is started the same way (``sh -c``) right after it: the ratio is taken pair by pair (A B A B), so the machine's load
weighs on both alike. "Card uncached": every kept card (``.mdmem/hooks/context-card*.json``) removed before each
run, the notes and their cache unchanged (the card made again: open, a refresh that finds nothing to do, the card).
"Card after a body edit": a line appended to a feedback note's body (a different note each run) just before the
run, the card kept from the run before (what a session meets after an edit; decision 100 keeps the card then);
"after a description edit": the same note's description changed (a head that moves: the card made again). Each
note is then put back and the card run once, untimed, so the prompt hook's rows see an unchanged vault. "Prompt
right after a body edit": another feedback note's body appended to, then the prompt hook (it refreshed the notes
cache, parsing the note; since decision 123 it answers from the cache as it stands and a background process
refreshes it: waited for, untimed, before the next run; "cache fresh" is the time from the hook's start until then).

``--ref REF`` also times another git ref, interleaved: its ``mdmem/`` is exported (``git archive``) to a temp
folder put first on ``PYTHONPATH`` for its runs (the before/after of a change in one run); ``--ref-vault DIR``: the
ref's runs on that copy of VAULT, indexed by the ref (a ref with another notes-cache schema would rebuild VAULT's). ``--profile`` then runs
the uncached card in this process under cProfile and prints where the time goes. Prints medians (ms; wall and CPU, user + system), the ratio to
``python -c pass`` and the load average before and after.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CARD_MS = 150  # the card's budget, uncached at 10k notes
PROMPT_X = 10  # the prompt hook's budget: times python -c pass


CPU: list[float] = [0.0]  # the last run's CPU time (user + system, ms): the machine's load weighs on it less


def _run(cmd: str, stdin: bytes, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(["sh", "-c", cmd], input=stdin, capture_output=True, env=env, timeout=300)
    ms = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[0] = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return ms, proc


def _uncache(vault: Path) -> None:
    for kept in glob.glob(str(vault / ".mdmem" / "hooks" / "context-card*.json")):
        os.unlink(kept)


def _ready(vault: Path) -> None:
    """A 10k-note vault made and indexed when ``vault`` holds no notes."""
    if vault.is_dir() and any((vault / "memory").rglob("*.md")):
        return
    sys.path.insert(0, str(REPO / "scripts"))
    import gen_vault

    gen_vault.generate(vault, notes=10_000)
    subprocess.run([sys.executable, "-m", "mdmem", "index", "--vault", str(vault)], check=True)


def commands(vault: Path) -> dict[str, str]:
    """The SessionStart and UserPromptSubmit commands ``mdmem install claude`` writes for ``vault``."""
    from mdmem.agents.claude.settings import HOOKS, hook_command

    return {event: hook_command(HOOKS[event][1], vault) for event in ("SessionStart", "UserPromptSubmit")}


def measure(vault: Path, runs: int, ref: str | None, ref_vault: Path | None = None) -> dict:
    base = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_") and k != "PYTHONDONTWRITEBYTECODE"}
    cmds = commands(vault)
    vaults = {"this": vault, ref: ref_vault or vault}
    own = {label: {event: cmd.replace(shlex.quote(str(vault)), shlex.quote(str(where)))
                   for event, cmd in cmds.items()} for label, where in vaults.items()}
    bare = f"{shlex.quote(sys.executable)} -c pass"
    card_in = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": str(vault),
                          "session_id": "bench-card"}).encode()
    people = sorted((vault / "memory" / "people").rglob("*.md")) or sorted((vault / "memory").rglob("*.md"))
    edited = {label: sorted((where / "memory" / "feedback").rglob("*.md")) for label, where in vaults.items()}
    name = people[len(people) // 2].stem.replace("-", " ")
    prompts = {"related": f"what did {name} say about the release?",
               "unrelated": "please refactor this function so that it returns early"}
    with tempfile.TemporaryDirectory() as other:
        envs = {"this": base}
        if ref:
            archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "mdmem"], capture_output=True,
                                     check=True)
            subprocess.run(["tar", "-x", "-C", other], input=archive.stdout, check=True)
            subprocess.run([sys.executable, "-m", "compileall", "-q", other], check=True)
            envs = {ref: base | {"PYTHONPATH": other}, "this": base}
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "mdmem")], check=True)
        for label, env in envs.items():  # warm: bytecode, page cache
            _uncache(vaults[label])
            _run(own[label]["SessionStart"], card_in, env)
        load = [os.getloadavg()]
        times: dict[str, dict[str, list[float]]] = {k: {} for k in envs}
        for i in range(runs):
            for label, env in envs.items():
                got, cmd = times[label], own[label]
                _uncache(vaults[label])
                ms, proc = _run(cmd["SessionStart"], card_in, env)
                assert b"# Memory (" in proc.stdout, proc.stderr[-600:]
                cpu = CPU[0]
                floor, _ = _run(bare, b"", env)
                got.setdefault("card uncached", []).append(ms)
                got.setdefault("card uncached cpu", []).append(cpu)
                got.setdefault("python -c pass cpu", []).append(CPU[0])
                got.setdefault("card uncached x", []).append(ms / floor)
                got.setdefault("python -c pass", []).append(floor)
                ms, proc = _run(cmd["SessionStart"], card_in, env)
                got.setdefault("card kept", []).append(ms)
                got.setdefault("card kept cpu", []).append(CPU[0])
                if edited[label]:
                    _edits(got, edited[label][(i * 37) % len(edited[label])], cmd["SessionStart"], card_in, env, bare, i)
                for case, text in prompts.items():
                    stdin = json.dumps({"session_id": f"bench-{label}-{case}-{i}-{time.time_ns()}", "cwd": str(vault),
                                        "transcript_path": "/dev/null", "hook_event_name": "UserPromptSubmit",
                                        "prompt": text}).encode()
                    ms, proc = _run(cmd["UserPromptSubmit"], stdin, env)
                    assert proc.returncode == 0, proc.stderr[-600:]
                    floor, _ = _run(bare, b"", env)
                    got.setdefault(f"prompt {case}", []).append(ms)
                    got.setdefault(f"prompt {case} x", []).append(ms / floor)
                    got.setdefault(f"prompt {case} injected", []).append(float(bool(proc.stdout.strip())))
                    got.setdefault("python -c pass", []).append(floor)
                if edited[label]:  # the prompt hook right after a body edit (it refreshes the notes cache: a parse)
                    _prompt_after_edit(got, edited[label][(i * 37 + 1) % len(edited[label])], cmd, card_in, env,
                                       bare, prompts["related"], str(vault), i, vaults[label])
        load.append(os.getloadavg())
    notes = sum(1 for _ in (vault / "memory").rglob("*.md"))
    return {"notes": notes, "runs": runs, "load": load, "commands": cmds,
            "median": {label: {k: statistics.median(v) for k, v in got.items()} for label, got in times.items()},
            "range": {label: {k: [min(v), max(v)] for k, v in got.items()} for label, got in times.items()}}


def _edits(got: dict, note: Path, cmd: str, card_in: bytes, env: dict, bare: str, i: int) -> None:
    """The card right after a body edit of ``note``, then after an edit of its description; the note put back."""
    data, st = note.read_bytes(), note.stat()
    text = data.decode("utf-8")
    try:
        for case, new in (("body edit", text + f"\nbench edit {i}\n"),
                          ("description edit", text.replace("description: ", f"description: (v{i}) ", 1))):
            note.write_text(new, "utf-8")
            ms, proc = _run(cmd, card_in, env)
            assert b"# Memory (" in proc.stdout, proc.stderr[-600:]
            cpu = CPU[0]
            floor, _ = _run(bare, b"", env)
            got.setdefault(f"card after a {case}", []).append(ms)
            got.setdefault(f"card after a {case} cpu", []).append(cpu)
            got.setdefault(f"card after a {case} x", []).append(ms / floor)
    finally:
        note.write_bytes(data)
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
        _run(cmd, card_in, env)  # the cache brought back in step (untimed): the prompt rows see no change


def _prompt_after_edit(got: dict, note: Path, cmd: dict, card_in: bytes, env: dict, bare: str, prompt: str,
                       cwd: str, i: int, where: Path) -> None:
    """The prompt hook right after a line was appended to ``note``'s body (in the vault ``where``); the note put back,
    the card run untimed. A refresh the hook hands to the background (decision 123) is waited for before anything else runs (the
    ``python -c pass`` it is paired with, the card): the time until then is the row "cache fresh"."""
    data, st = note.read_bytes(), note.stat()
    try:
        note.write_bytes(data + f"\nprompt bench {i}\n".encode())
        stdin = json.dumps({"session_id": f"bench-edit-{i}-{time.time_ns()}", "cwd": cwd, "prompt": prompt,
                            "transcript_path": "/dev/null", "hook_event_name": "UserPromptSubmit"}).encode()
        t = time.perf_counter()
        ms, proc = _run(cmd["UserPromptSubmit"], stdin, env)
        assert proc.returncode == 0, proc.stderr[-600:]
        if _settle(where):  # a refresh the hook left to the background: done
            got.setdefault("prompt after a body edit, cache fresh", []).append((time.perf_counter() - t) * 1000)
        floor, _ = _run(bare, b"", env)
        got.setdefault("prompt after a body edit", []).append(ms)
        got.setdefault("prompt after a body edit x", []).append(ms / floor)
    finally:
        note.write_bytes(data)
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
        _run(cmd["SessionStart"], card_in, env)


def _settle(vault: Path, bound: float = 120.0) -> bool:
    """Wait until every ``mdmem hook refresh`` started in the background on ``vault`` has ended: the hook log has a
    line for each start and each end, and the processes it names (``pid N``) are gone (an exiting interpreter still
    takes a core for a while); whether one was running."""
    import re

    log = vault / ".mdmem" / "hooks" / "hook.log"
    waited, deadline = False, time.monotonic() + bound
    while time.monotonic() < deadline:
        lines = log.read_text("utf-8", "replace").splitlines()[-200:] if log.exists() else []
        started = sum(1 for line in lines if line.split(" ", 1)[-1].startswith("hook refresh --vault "))
        ended = sum(1 for line in lines if line.split(" ", 1)[-1].startswith("hook refresh: "))
        pids = [int(m.group(1)) for line in lines if (m := re.search(r"in the background \(pid (\d+)\)", line))]
        if ended >= started and not any(_alive(pid) for pid in pids):
            return waited
        waited = True
        time.sleep(0.01)
    raise SystemExit(f"a background refresh of {vault} did not end in {bound:.0f} s")


def _alive(pid: int) -> bool:
    """Is process ``pid`` running (not gone, not a zombie waiting to be reaped)?"""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def render(figures: dict) -> list[str]:
    load = " -> ".join("/".join(f"{x:.1f}" for x in one) for one in figures["load"])
    lines = [f"{figures['notes']} notes, {figures['runs']} interleaved runs, load average {load}; medians in ms "
             "[min-max], ratios pair by pair against `sh -c 'python -c pass'`"]
    for label, m in figures["median"].items():
        r = figures["range"][label]

        def span(key: str, m: dict = m, r: dict = r) -> str:
            return f"{m[key]:.0f} [{r[key][0]:.0f}-{r[key][1]:.0f}]"

        lines.append(f"  {label}: card uncached {span('card uncached')} ({m['card uncached x']:.1f}x; target "
                     f"< {CARD_MS} ms); card kept {span('card kept')}; python -c pass {m['python -c pass']:.0f}")
        lines.append(f"  {label}: CPU (user + system): card uncached {span('card uncached cpu')}; card kept "
                     f"{span('card kept cpu')}; python -c pass {span('python -c pass cpu')}")
        for case in ("body edit", "description edit"):
            if f"card after a {case}" in m:
                lines.append(f"  {label}: card after a {case} {span(f'card after a {case}')} "
                             f"({m[f'card after a {case} x']:.1f}x; CPU {span(f'card after a {case} cpu')})")
        if "prompt after a body edit" in m:
            lines.append(f"  {label}: prompt right after a body edit {span('prompt after a body edit')} "
                         f"({m['prompt after a body edit x']:.2f}x; target < {PROMPT_X}x)"
                         + (f"; the cache fresh (refreshed in the background) {span('prompt after a body edit, cache fresh')}"
                            " after the hook's start" if "prompt after a body edit, cache fresh" in m else ""))
        for case in ("related", "unrelated"):
            hits = round(m[f"prompt {case} injected"] * 2) / 2
            lines.append(f"  {label}: prompt {case:<9} {span(f'prompt {case}')} ({m[f'prompt {case} x']:.2f}x; target "
                         f"< {PROMPT_X}x; injected: {'yes' if hits >= 1 else 'no' if hits == 0 else 'mixed'})")
    return lines


def profile(vault: Path, top: int = 30) -> None:
    """The uncached card made in this process under cProfile (after one warm run): the top functions."""
    import cProfile
    import pstats

    from mdmem.agents.hooks.session import session_start

    payload = {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(vault), "session_id": "bench-card"}
    _uncache(vault)
    session_start(str(vault), dict(payload), {})
    _uncache(vault)
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    session_start(str(vault), dict(payload), {})
    prof.disable()
    print(f"in-process, uncached, warm imports: {(time.perf_counter() - t) * 1000:.0f} ms (under cProfile)")
    pstats.Stats(prof).sort_stats("cumulative").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--ref", help="also time this git ref's mdmem/, interleaved (the before of a change)")
    ap.add_argument("--ref-vault", type=Path, help="with --ref: the ref's runs on this copy of VAULT")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--profile", action="store_true", help="then profile the uncached card in this process")
    ap.add_argument("--out", type=Path, help="write the figures as JSON")
    args = ap.parse_args(argv)
    vault = args.vault.resolve()
    _ready(vault)
    figures = measure(vault, args.runs, args.ref, args.ref_vault.resolve() if args.ref_vault else None)
    print("\n".join(render(figures)))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")
    if args.profile:
        profile(vault)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

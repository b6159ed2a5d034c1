"""Benchmark ``mdmem import claude-code`` at scale: rate and peak memory on a generated corpus.

The corpus is made of real records: Claude Code transcripts of ``eval/data/checkpoint-real`` (public, cited
there), each repeated until a session file reaches ``--size`` bytes, with a fresh session id per file and its
timestamps moved to a day of its own (so sessions spread over days and daily notes as a real history does).
Then ``mdmem import claude-code`` runs as a separate process (``CLAUDE_CONFIG_DIR`` pointed at the corpus)
into a copy of sample-vault, twice: the first import, then a re-import (nothing to change). Peak memory is the
child's maximum resident set (``getrusage(RUSAGE_CHILDREN)``), so only the import process counts.

    python scripts/bench_import.py                 # 1,000 sessions of ~1 MB (about 1 GB)
    python scripts/bench_import.py --sessions 50   # a quick look
    python scripts/bench_import.py --export chatgpt --sessions 5000   # a ChatGPT conversations.json

``--export chatgpt|claude-ai`` builds one export file instead, in that export's shape, from the same real
conversations (the user's and the assistant's texts of those transcripts, in order; every ChatGPT
conversation also carries an edited prompt as a second branch, so the kept-branch walk is exercised), and
measures ``mdmem import chatgpt FILE`` against the least memory loading it whole would take (a child that
only runs ``json.load`` on it).
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


def _turns(path: Path) -> list[tuple[str, str]]:
    """The (role, text) of a real Claude Code transcript: what the user typed and the assistant's text."""
    out = []
    for line in path.read_bytes().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        msg = rec.get("message") if isinstance(rec, dict) else None
        if not isinstance(msg, dict) or rec.get("isSidechain") or rec.get("isMeta"):
            continue
        content = msg.get("content")
        if rec.get("type") == "user" and isinstance(content, str) and content.strip():
            out.append(("user", content))
        elif rec.get("type") == "assistant" and isinstance(content, list):
            text = "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
            if text.strip():
                out.append(("assistant", text))
    return out


def _chatgpt(i: int, turns: list[tuple[str, str]], t0: float) -> dict:
    cid = str(uuid.UUID(int=(1 << 64) + i))
    mapping: dict = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent, t = "root", t0
    for k, (role, text) in enumerate(turns):
        node = f"{cid}-{k}"
        mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
            "id": node, "author": {"role": role, "metadata": {}}, "create_time": t, "content": {
                "content_type": "text", "parts": [text]}, "status": "finished_successfully", "weight": 1.0,
            "metadata": {}, "recipient": "all"}}
        mapping[parent]["children"].append(node)
        if k == 1 and role == "assistant":  # an edited first prompt: a branch the user left
            mapping[node + "-old"] = {"id": node + "-old", "parent": "root", "children": [], "message": {
                "id": node + "-old", "author": {"role": "user"}, "create_time": t0 - 1, "content": {
                    "content_type": "text", "parts": ["(the prompt before its edit)"]}, "recipient": "all"}}
            mapping["root"]["children"].append(node + "-old")
        parent, t = node, t + 30
    return {"title": f"conversation {i}", "create_time": t0, "update_time": t, "mapping": mapping,
            "moderation_results": [], "current_node": parent, "conversation_id": cid, "id": cid,
            "default_model_slug": "gpt-4o"}


def _claude_ai(i: int, turns: list[tuple[str, str]], t0: float) -> dict:
    cid = str(uuid.UUID(int=(2 << 64) + i))
    day = dt.datetime.fromtimestamp(t0, dt.UTC).isoformat().replace("+00:00", "Z")
    messages, parent = [], "00000000-0000-4000-8000-000000000000"
    for k, (role, text) in enumerate(turns):
        mid = f"{cid[:-6]}{k:06d}"
        messages.append({"uuid": mid, "sender": "human" if role == "user" else "assistant", "text": text,
                         "content": [{"type": "text", "text": text}], "created_at": day,
                         "parent_message_uuid": parent, "attachments": [], "files": []})
        parent = mid
    return {"uuid": cid, "name": f"conversation {i}", "created_at": day, "updated_at": day,
            "current_leaf_message_uuid": parent, "chat_messages": messages}


def export(path: Path, kind: str, conversations: int, size: int) -> int:
    """Write a ``conversations.json`` of ``conversations`` conversations of about ``size`` bytes (a real one's
    turns repeated) in ``kind``'s shape; bytes written."""
    sources = [t for t in (_turns(p) for p in sorted(REAL.glob("*.jsonl"))) if len(t) >= 2]
    sources = [t * max(1, size // max(1, sum(len(x) for _, x in t))) for t in sources]
    make = _chatgpt if kind == "chatgpt" else _claude_ai
    t0 = dt.datetime(2024, 1, 1, tzinfo=dt.UTC).timestamp()
    with path.open("w", encoding="utf-8") as f:
        f.write("[")
        for i in range(conversations):
            f.write(("," if i else "") + json.dumps(make(i, sources[i % len(sources)], t0 + i * 3600)))
        f.write("]")
    return path.stat().st_size


def child_peak(argv: list[str], env: dict | None = None) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one child process (measured by the child's own rusage through ``time``)."""
    code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
            "p=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
            "print(time.perf_counter()-t,resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024,p.returncode)")
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, check=True)
    seconds, peak, rc = out.stdout.split()
    if rc != "0":
        raise SystemExit(f"{argv} failed ({rc})")
    return float(seconds), float(peak)


def bench_export(kind: str, conversations: int, size: int, tmp: Path) -> None:
    path = tmp / "conversations.json"
    t0 = time.perf_counter()
    size = export(path, kind, conversations, size)
    print(f"export: {kind}, {conversations} conversations, {size / 1e6:,.0f} MB (made in {time.perf_counter() - t0:.1f} s)")
    vault = tmp / "vault"
    shutil.copytree(ROOT / "sample-vault", vault, ignore=shutil.ignore_patterns(".mdmem"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {"MDMEM_HOME": str(tmp / "m")}
    whole = child_peak([sys.executable, "-c", "import json,sys;json.load(open(sys.argv[1],'rb'))", str(path)], env)
    cmd = [sys.executable, "-m", "mdmem", "import", kind, str(path), "--vault", str(vault)]
    first = child_peak(cmd, env)
    again = child_peak(cmd, env)
    notes = len(list((vault / "sessions").glob("*.md")))
    print(f"json.load of the whole file (what loading it whole takes at least): {whole[0]:.1f} s, peak RSS {whole[1]:.0f} MB")
    print(f"import: {first[0]:.1f} s = {conversations / first[0]:.0f} conversations/s, {size / 1e6 / first[0]:.1f} MB/s; "
          f"peak RSS {first[1]:.0f} MB; {notes} notes")
    print(f"re-import: {again[0]:.1f} s; peak RSS {again[1]:.0f} MB")


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
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes of a session file, or of an export's conversation (about)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--export", choices=("chatgpt", "claude-ai"), help="bench one export of --sessions conversations")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        if args.export:
            bench_export(args.export, args.sessions, args.size, tmp)
            return
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

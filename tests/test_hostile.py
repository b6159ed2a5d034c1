"""Hostile vaults and inputs (part A of the hostile-vault review).

A vault arrives by git clone, sync or a shared drive, and what is typed at mdmem may be pasted from
anywhere. :func:`hostile_vault` builds one holding everything at once: file names and titles with terminal
escapes (an OSC that sets the window title, CSI, BEL, CR, DEL, C1), a name with a newline, NFC/NFD twins,
sync conflict copies, a note holding a secret, a README.md outside memory/, a FIFO, symlink loops, bad
YAML, a BOM, Latin-1 bytes, an empty note. Every CLI command and every MCP tool (the real server, through
the SDK's client) runs on it with a 30 s bound each, and must answer with exit code 0, 1, 2 or 3, without
a traceback, and without one raw control character in what it prints for a person. Then each item of the
issue has its own test: query length, the MCP call bound, a really full disk (a 2 MB tmpfs), secrets,
sync conflicts, twins, daily entries, dotted names, forget's boundary, save --file, temp files, exports.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unicodedata
import xml.dom.minidom
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner, Result

from mdmem.cli.app import app
from support import SESSION

ESC_NAME = "ana\x1b]0;evil\x07"  # an OSC sequence: sets the terminal's title, ended by BEL
ESC_PATH = f"memory/people/{ESC_NAME}.md"
NEWLINE_PATH = "memory/projects/two\nlines.md"
CR_PATH = "memory/projects/car\rriage.md"
C1_TITLE = "csi\x9b31m and del\x7f"  # U+009B: an 8-bit CSI to some terminals
C1_PATH = "memory/references/eight\x9bbit\x7f.md"
NFC = unicodedata.normalize("NFC", "memory/people/josé.md")
NFD = unicodedata.normalize("NFD", "memory/people/josé.md")
AWS_KEY = "AKIAQ3EGUWBZ5XJ2RM7T"  # the shape of an AWS access key ID, made up
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # what must never reach a terminal (\t and \n may)
VISIBLE_ESC = "ana\\x1b]0;evil\\x07"
SECONDS = 30  # the bound on every command and every tool call


def hostile_vault(root: Path) -> Path:
    """One vault with every kind of hostile content this issue names (see the module docstring)."""
    files: dict[str, str | bytes] = {
        "MEMORY.md": (
            "# Memory \x1b[2J index\n\n## People\n"
            f"- [ana](<{ESC_PATH}>) — evil \x1b]0;owned\x07 description\n"
            "- [[atlas]] — the project\n- [[deploy]] — how we deploy\n"
        ),
        ESC_PATH: (
            "---\ntype: person\ndescription: \"evil \\e[31mred\\a person\"\ntitle: \"\\e]0;title\\a\"\n"
            "tags: [evil]\n---\n# Ana \x1b[1mbold\x1b[0m\n\nEvil words \x1b]0;snippet\x07 here, carriage\rreturn, "
            "bell\x07, [[atlas]] and [[deploy]].\n"
        ),
        NEWLINE_PATH: "---\ntype: project\n---\n# Two lines\nevil project with a newline in its name\n",
        CR_PATH: "---\ntype: project\n---\n# Carriage\nevil project with a carriage return in its name\n",
        "memory/references/c1.md": f"---\ntype: reference\nname: \"{C1_TITLE}\"\n---\n# {C1_TITLE}\nevil c1 note\n",
        C1_PATH: "---\ntype: reference\n---\n# Eight bit\nevil eight-bit name\n",
        NFC: "---\ntype: person\n---\n# José (NFC)\nthe first josé\n",
        NFD: "---\ntype: person\n---\n# José (NFD)\nthe second josé\n",
        "memory/projects/atlas.md": "---\ntype: project\n---\n# Atlas\nAtlas billing evil migration plan.\n",
        "memory/projects/atlas (conflicted copy 2026-05-01).md":
            "---\ntype: project\n---\n# Atlas\nAtlas billing evil migration plan, edited elsewhere.\n",
        "memory/projects/atlas.sync-conflict-20260501-101500-ABCDEFG.md":
            "---\ntype: project\n---\n# Atlas\nAtlas billing evil migration plan, Syncthing's version.\n",
        "memory/projects/atlas 2.md": "---\ntype: project\n---\n# Atlas\nAtlas billing evil plan, iCloud's copy.\n",
        "memory/references/deploy.md": (
            "---\ntype: reference\n---\n# Deploy\nevil deploys use the CI role.\n"
            f"Old key, do not use: {AWS_KEY}\n"
        ),
        "memory/daily/2026-05-04.md": "---\ntype: daily\n---\n# 2026-05-04\n\n## 09:00\nevil \x1b[2J standup\n",
        "memory/badyaml.md": "---\ntitle: [unclosed\n---\nevil body of bad yaml\n",
        "memory/bom.md": b"\xef\xbb\xbf---\ntype: reference\n---\n# BOM\nevil bom\n",
        "memory/latin1.md": b"caf\xe9 evil latin\n",
        "memory/empty.md": b"",
        "README.md": "# A README\nnot a memory: evil readme\n",
    }
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    atlas = (root / "memory/projects/atlas.md").stat().st_mtime_ns
    os.utime(root / "memory/projects/atlas 2.md", ns=(atlas, atlas))  # iCloud: written at the same moment
    os.symlink("loop.md", root / "memory" / "loop.md")
    os.symlink("..", root / "memory" / "up")
    os.symlink("missing.md", root / "memory" / "dangling.md")
    os.mkfifo(root / "memory" / "pipe.md")
    return root


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return hostile_vault(tmp_path / "hostile")


def invoke(*args, input: str | None = None) -> Result:
    """The real CLI in this process, bounded by :data:`SECONDS` (SIGALRM raises inside the command)."""

    def late(*_):
        raise TimeoutError(f"mdmem {args!r} took more than {SECONDS} s")

    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(SECONDS)
    try:
        return CliRunner().invoke(app, [str(a) for a in args], input=input)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def assert_clean(r, args) -> None:
    """Exit code 0-3, no traceback or stray exception, no raw control character on stdout or stderr."""
    assert r.exit_code in (0, 1, 2, 3), (args, r.exit_code, r.stdout, r.stderr, r.exception)
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
    assert "Traceback" not in r.stderr, (args, r.stderr)
    for name, out in (("stdout", r.stdout), ("stderr", r.stderr)):
        bad = RAW_CONTROL.search(out)
        assert bad is None, (args, name, repr(out[max(0, bad.start() - 60):bad.end() + 60]))


def commands(v: Path, tmp: Path) -> list[tuple[tuple, int | None, str | None]]:
    """(arguments, expected exit code or None for "0 to 3", stdin) for every command of the CLI."""
    project = tmp / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    transcript = tmp / "talk.txt"
    transcript.write_text(SESSION.replace("Redis", "Redis \x1b]0;evil\x07") + "User: bell\x07 and \x9b2J\n")
    hook_in = json.dumps({"session_id": "s1", "transcript_path": str(transcript), "cwd": str(project),
                          "hook_event_name": "Stop"})
    export = tmp / "conversations.json"  # a chat export whose title and messages carry terminal escapes
    export.write_text(json.dumps([{"id": "c\x1b]0;id\x07", "title": "evil \x1b]0;title\x07", "current_node": "u",
                                   "mapping": {"u": {"parent": None, "message": {
                                       "author": {"role": "user"}, "create_time": 1767225600.0,
                                       "content": {"content_type": "text", "parts": ["bell\x07 \x9b2J [[x]] ```"]}}}}}]))
    V = ("--vault", v)
    out = [
        (("index", *V), 0, None), (("index", *V, "--json"), 0, None), (("index", "--rebuild", *V), 0, None),
        (("search", "evil", *V), 0, None), (("search", "evil", *V, "--json"), 0, None),
        (("search", "evil", "--explain", "-n", "50", *V), 0, None), (("search", "\x1b]0;evil\x07", *V), 0, None),
        (("search", "zzzznothing\x1b[2J", *V), 0, None), (("search", "x " * 600, *V), 2, None),
        (("show", ESC_NAME, *V), 0, None), (("show", ESC_PATH, *V, "--json"), 0, None),
        (("show", NEWLINE_PATH, *V), 0, None), (("show", "memory/references/c1.md", *V), 0, None),
        (("show", "no such \x1b]0;note\x07", *V), 1, None), (("show", "memory/pipe.md", *V), 1, None),
        (("links", ESC_PATH, *V), 0, None), (("links", "MEMORY.md", *V, "--json"), 0, None),
        (("backlinks", "atlas", "--unlinked", *V), 0, None), (("backlinks", ESC_PATH, *V, "--json"), 0, None),
        (("neighbors", "atlas", "--depth", "2", *V), 0, None), (("neighbors", ESC_PATH, *V, "--json"), 0, None),
        (("recall", "evil", *V), 0, None), (("recall", "evil atlas last week", *V, "--json"), 0, None),
        (("graph", "map", *V), 0, None), (("graph", "map", *V, "--json"), 0, None),
        (("graph", "orphans", *V), 0, None), (("graph", "deadends", *V), 0, None),
        (("graph", "isolated", *V), 0, None), (("graph", "dangling", *V), 0, None),
        (("graph", "dangling", *V, "--json"), 0, None), (("graph", "path", ESC_PATH, "deploy", *V), 0, None),
        *((("graph", "export", "-f", fmt, *V), 0, None) for fmt in ("json", "graphml", "gexf", "dot", "mermaid")),
        (("graph", "html", "-o", tmp / "graph.html", *V), 0, None),
        (("check", *V), 0, None), (("check", *V, "--json"), 0, None), (("check", "--fail-on", "error", *V), 3, None),
        (("check", "--update-budget", *V), 0, None),
        (("daily", "add", "evil \x1b]0;evil\x07 entry\n## 09:00\nsecond", "--at", "10:00", "--date", "2026-05-04",
          *V), 2, None),  # a control character in a text: refused (the write guard)
        (("daily", "add", "evil entry\n## 09:00\nsecond", "--at", "10:00", "--date", "2026-05-04", *V), 0, None),
        (("daily", "add", "-", "--at", "11:00", *V), 2, "from stdin \x1b[2J\r\n"),
        (("daily", "show", "2026-05-04", *V), 0, None), (("daily", "show", "week", "--today", "2026-05-05", *V,
                                                          "--json"), 0, None),
        (("save", "Evil \x1b]0;title\x07 memory\rwith CR and \x9b", "-t", "reference", "--name",
          "Evil \x1b name", *V), 2, None),  # control characters in a text and a name: refused (the write guard)
        (("save", "Evil memory with a title", "-t", "reference", "--name", "Evil name", *V), 0, None),
        (("remember", "Another evil one, Wait... what", "-t", "reference", "--name", "Wait... what", *V), 0, None),
        (("save", f"the key is {AWS_KEY}", "-t", "reference", "--name", "Key", *V), 1, None),
        (("save", "--file", "/dev/zero", "-t", "reference", *V), 2, None),
        (("forget", "README.md", *V), 2, None), (("forget", "atlas 2", "--dry-run", *V), 0, None),
        (("forget", ESC_PATH, "--dry-run", *V, "--json"), 0, None),
        (("forget", "memory/projects/atlas 2.md", *V), 0, None), (("restore", "atlas 2", *V), 0, None),
        (("timeline", "evil", "--when", "2026-05", *V), 0, None), (("timeline", *V, "--json"), 0, None),
        (("context", *V), 0, None), (("context", "--mode", "full", "-q", "evil", *V), 0, None),
        (("context", *V, "--json"), 0, None),
        (("checkpoint", transcript, *V), 0, None), (("checkpoint", transcript, *V, "--json"), 0, None),
        (("checkpoint", "accept", "all", *V), None, None), (("checkpoint", "skip", *V), None, None),
        (("digest", "--dry-run", "--today", "2026-06-15", *V), 0, None),
        (("digest", "--today", "2026-06-15", *V, "--json"), 0, None),
        (("hook", "stop", "--vault", str(v)), 0, hook_in), (("hook", "session-start", "--vault", str(v)), 0,
                                                             json.dumps({"cwd": str(project)})),
        (("hook", "install", "--dry-run", "--project", project, *V), 0, None),
        (("hook", "status", "--project", project), 0, None),
        (("hook", "uninstall", "--dry-run", "--project", project), 0, None),
        (("install", "claude", "--dry-run", "--project", project, *V), 0, None),
        (("init", tmp / "new \x1b]0;vault\x07"), 0, None),
        (("edit", ESC_PATH, "--append", "more \x1b]0;x\x07 text", *V), None, None),
        (("move", ESC_PATH, "memory/references/moved-evil.md", *V), None, None),
        (("confirm", "memory/references/moved-evil.md", *V), None, None),
        (("hook", "prompt", "--vault", str(v)), 0, json.dumps({"session_id": "s", "prompt": "evil entry",
                                                                "cwd": str(project)})),
        (("hook", "pre-compact", "--vault", str(v)), 0, hook_in),
        (("hook", "session-end", "--vault", str(v)), 0, hook_in),
        (("uninstall", "claude", "--dry-run", "--project", project), 0, None),
        (("import", "chatgpt", export, *V), 0, None), (("import", "chatgpt", export, *V, "--json"), 0, None),
        (("import", "claude-code", tmp / "talk.txt", *V), 0, None),
    ]
    return out


@pytest.mark.slow
def test_every_command_on_a_hostile_vault(hostile, tmp_path):
    seen = []
    for args, code, stdin in commands(hostile, tmp_path):
        r = invoke(*args, input=stdin)
        assert_clean(r, args)
        if code is not None:
            assert r.exit_code == code, (args, r.exit_code, r.stdout, r.stderr)
        seen.append(args[0] if args[0] not in ("graph", "hook", "daily", "install", "uninstall")
                    else " ".join(args[:2]))
    top = {c.name or c.callback.__name__ for c in app.registered_commands}
    groups = {g.name for g in app.registered_groups}
    assert top <= {s.split()[0] for s in seen} | {"mcp", "watch"}  # mcp and watch: their own tests below
    assert groups <= {s.split()[0] for s in seen}


@pytest.mark.slow
def test_watch_on_a_hostile_vault_shows_names_not_escapes(hostile, tmp_path):
    """`mdmem watch` (a separate process: it runs until Ctrl-C) reports batches of hostile names cleanly.
    It says "watching" once its observer runs: a hostile note written after that line is reported."""
    import queue
    import threading

    invoke("index", "--vault", hostile)
    proc = subprocess.Popen([sys.executable, "-m", "mdmem", "watch", "--vault", str(hostile), "--debounce", "0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                            # Ctrl-C must reach it even when this suite runs as a background job (SIGINT ignored)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines: queue.Queue = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(ln.decode()) for ln in proc.stderr], daemon=True)
    reader.start()
    said = []
    try:
        deadline = time.monotonic() + SECONDS
        while time.monotonic() < deadline and not any(ln.startswith("watching ") for ln in said):
            with contextlib.suppress(queue.Empty):
                said.append(lines.get(timeout=1))
        (hostile / "memory" / "new \x1b]0;x\x07.md").write_text("# New\nbell\x07\n")
        while time.monotonic() < deadline and not any(ln.startswith("1 added, ") for ln in said):
            with contextlib.suppress(queue.Empty):
                said.append(lines.get(timeout=1))
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=SECONDS)
        reader.join(timeout=SECONDS)  # every line the process wrote, before anything is asserted
        out = proc.stdout.read() if proc.stdout else b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    while not lines.empty():
        said.append(lines.get())
    text = "".join(said)
    assert said[0].startswith("watching ") and re.search(r"^1 added, 0 changed, 0 removed", text, re.M), text
    assert proc.returncode == 0 and "Traceback" not in text and text.endswith("stopped\n"), text
    assert not RAW_CONTROL.search(text + out.decode())


@pytest.mark.slow
def test_a_real_terminal_gets_no_escape_from_the_vault(hostile, tmp_path):
    """On a pseudo-terminal (so rich styles its output, proving it is one), a file name that would set the
    window title, a title with CSI and a snippet with BEL come out written, not obeyed."""
    import pty
    import select

    invoke("index", "--vault", hostile)
    for args in (("search", "evil"), ("backlinks", "atlas"), ("graph", "orphans"), ("check",), ("show", ESC_PATH)):
        master, slave = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "mdmem", *args, "--vault", str(hostile)], stdin=slave,
                                stdout=slave, stderr=slave, cwd=tmp_path, env={**os.environ, "COLUMNS": "400",
                                                                                "TERM": "xterm-256color"})
        os.close(slave)
        chunks, deadline = [], time.monotonic() + SECONDS
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                chunks.append(chunk)
        os.close(master)
        assert proc.wait(timeout=SECONDS) in (0, 3), args
        screen = b"".join(chunks)
        assert b"\x1b]" not in screen and b"\x07" not in screen and b"\xc2\x9b" not in screen, (args, screen[:2000])
        assert b"\r" not in screen.replace(b"\r\n", b""), args  # a pty turns \n into \r\n; nothing else
        if args[0] in ("search", "show", "check"):
            assert b"\x1b[1m" in screen, args  # rich's own bold: this really was a terminal
        if args[0] not in ("check", "graph"):
            assert VISIBLE_ESC.encode() in screen, (args, screen[:2000])
        if args[0] == "graph":
            assert b"memory/projects/two\\nlines.md\r\n" in screen, screen


@pytest.mark.slow
def test_json_keeps_names_exact_and_text_lists_one_name_a_line(hostile):
    invoke("index", "--vault", hostile)
    r = invoke("graph", "orphans", "--vault", hostile, "--json")
    orphans = json.loads(r.stdout)["orphans"]
    assert NEWLINE_PATH in orphans and CR_PATH in orphans  # the exact names, controls and all
    assert "\\u001b" in invoke("search", "evil", "--vault", hostile, "--json").stdout
    hits = json.loads(invoke("search", "evil", "--vault", hostile, "--json").stdout)["results"]
    assert hits[0]["path"] == ESC_PATH and "\x1b]0;snippet\x07" in hits[0]["snippet"]
    shown = json.loads(invoke("show", "memory/references/c1.md", "--vault", hostile, "--json").stdout)
    assert shown["path"] == "memory/references/c1.md"
    c1 = invoke("search", "c1", "--vault", hostile, "--json").stdout
    assert "\x9b" not in c1 and "\\u009b" in c1 and json.loads(c1)["results"][0]["snippet"].startswith(C1_TITLE)
    lines = invoke("graph", "orphans", "--vault", hostile).stdout.splitlines()
    assert len(lines) == len(orphans)  # one line per note, a newline in a name included
    assert "memory/projects/two\\nlines.md" in lines and "memory/projects/car\\rriage.md" in lines


# ----------------------------------------------------------------------------- every MCP tool


@pytest.fixture
def anyio_backend():
    return "asyncio"


def mcp_calls(v: Path) -> list[tuple[str, dict]]:
    return [
        ("search", {"query": "evil"}), ("search", {"query": "\x1b]0;evil\x07", "limit": 50}),
        ("search", {"query": "x " * 600}), ("search", {"query": "evil", "folder": "memory/projects"}),
        ("recall", {"query": "evil atlas"}), ("recall", {"query": "what happened last week"}),
        ("read_note", {"note": ESC_PATH}), ("read_note", {"note": NEWLINE_PATH}),
        ("read_note", {"note": "memory/pipe.md"}), ("read_note", {"note": "memory/loop.md"}),
        ("read_note", {"note": "no such \x1b]0;note"}),
        ("backlinks", {"note": "atlas", "unlinked": True}), ("backlinks", {"note": ESC_PATH}),
        ("neighbors", {"note": ESC_PATH, "depth": 2}), ("neighbors", {"note": "deploy", "direction": "in"}),
        ("timeline", {"query": "evil", "when": "2026-05"}), ("timeline", {}),
        ("save", {"text": "evil \x1b]0;t\x07 memory \r\x9b", "type": "reference", "name": "MCP evil \x07"}),
        ("save", {"text": f"the key {AWS_KEY}", "type": "reference", "name": "MCP key"}),
        ("save", {"text": "the key is in 1Password under Deploy", "name": "Wait... what", "type": "reference"}),
        ("daily_add", {"text": "evil \x1b[2J\n## 09:00\nsplit?", "at": "12:00"}),
        ("check", {}), ("checkpoint_accept", {"numbers": "1"}),
        ("checkpoint_propose", {"candidates": [{"type": "reference", "dimension": 7, "name": "evil \x1b]0;t\x07",
                                                "description": "a \x9b description", "body": "body \r\x07"}]}),
        ("edit_note", {"note": ESC_PATH, "version": "0:0", "append": "more \x1b]0;x\x07"}),
        ("move_note", {"note": NEWLINE_PATH, "new": "memory/references/moved.md"}),
        ("forget", {"note": ESC_PATH, "dry_run": True}), ("restore_note", {"note": ESC_PATH}),
    ]


@pytest.mark.slow
@pytest.mark.anyio
async def test_every_mcp_tool_on_a_hostile_vault(hostile):
    from mcp import Client

    from mdmem.mcp_server import build_server
    from mdmem.mcp_session import MAX_CHARS

    results = {}
    async with Client(build_server(hostile), mode="legacy") as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert tools == {name for name, _ in mcp_calls(hostile)}  # every tool is called below
        for name, args in mcp_calls(hostile):
            with anyio.fail_after(SECONDS):
                got = await client.call_tool(name, args)
            (block,) = got.content
            assert len(block.text) <= MAX_CHARS and "Traceback" not in block.text and "internal error" not in \
                block.text, (name, args, block.text)
            results.setdefault(name, []).append((got.is_error, block.text))
            if not got.is_error:
                json.loads(block.text)  # every answer is JSON
    ok = {name: [not err for err, _ in out] for name, out in results.items()}
    assert ok["search"] == [True, True, False, True] and ok["read_note"] == [True, True, False, False, False]
    assert ok["save"] == [False, False, True] and ok["daily_add"] == [False] and ok["check"] == [True]
    assert "control character" in results["save"][0][1] and "control character" in results["daily_add"][0][1]
    assert "String should have at most 1000 characters" in results["search"][2][1]
    assert "no note matches 'memory/pipe.md'" in results["read_note"][2][1] and "no pending checkpoint" in \
        results["checkpoint_accept"][0][1]
    assert "secret" in results["save"][1][1] and AWS_KEY not in results["save"][1][1]
    check = json.loads(results["check"][0][1])
    assert {i["kind"] for i in check["issues"]} >= {"SECRET", "NAME TWINS", "SYNC CONFLICT"}
    assert AWS_KEY not in results["check"][0][1]


# ----------------------------------------------------------------------------- huge queries


@pytest.mark.slow
@pytest.mark.parametrize("command", [("search",), ("recall",), ("timeline",), ("forget", "--dry-run"),
                                     ("context", "--mode", "full", "-q")])
def test_a_query_over_1000_characters_is_one_line_and_exit_2(vault, command):
    long = "billing " * 125 + "x"  # 1,001 characters
    r = invoke(*command, long, "--vault", vault)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == "mdmem: the query is 1,001 characters long; the most is 1,000: shorten it to the words " \
                       "that matter\n"
    if command[0] == "search":
        ok = invoke("search", long[:1000], "--vault", vault, "--json")
        assert ok.exit_code == 0 and json.loads(ok.stdout)["results"]  # 1,000 is fine


# ----------------------------------------------------------------------------- the MCP call bound


@pytest.mark.slow
@pytest.mark.anyio
async def test_an_mcp_call_that_runs_over_is_an_error_and_the_server_keeps_answering(vault, monkeypatch):
    """A save stuck behind another process's write lock: after the bound (1 s here) the call is a tool error
    saying it may still complete; tools/list is answered meanwhile; once the lock is free the save completes
    and the next call answers. Deterministic: the save cannot finish while this test holds the lock."""
    from mcp import Client

    from mdmem.base.state import write_lock
    from mdmem.mcp_server import build_server

    monkeypatch.setenv("MDMEM_LOCK_TIMEOUT", "120")  # the save waits for the lock far longer than the bound
    async with Client(build_server(vault, timeout=1.0), mode="legacy") as client:
        with anyio.fail_after(SECONDS):  # indexed, warm: on a loaded machine the first search may run over the
            while (await client.call_tool("search", {"query": "cents"})).is_error:  # bound and finish behind it
                await anyio.sleep(0.1)
        with write_lock(vault / ".mdmem", 5):
            with anyio.fail_after(SECONDS):
                late = await client.call_tool("save", {"text": "Quokkas prefer the night shift.", "type": "reference",
                                                       "name": "Quokka shifts"})
                assert late.is_error
                assert late.content[0].text == (
                    "Error executing tool save: save took longer than 1 s and goes on in the background; it may still complete: check (search "
                    "or read_note) before trying again")
                assert len((await client.list_tools()).tools) == 15  # the server answers meanwhile
                queued = await client.call_tool("read_note", {"note": "decision-integer-cents"})
                assert queued.is_error and queued.content[0].text.startswith("Error executing tool read_note: read_note waited 1 s behind an earlier "
                                                                             "call that is still running")
        with anyio.fail_after(SECONDS):  # the lock is free: the save completes, then the next call runs
            while True:
                got = await client.call_tool("read_note", {"note": "memory/references/Quokka shifts.md"})
                if not got.is_error:
                    break
                await anyio.sleep(0.1)
        assert "Quokkas prefer the night shift." in json.loads(got.content[0].text)["content"]


def test_mcp_timeout_setting_is_checked(vault, monkeypatch):
    from mdmem.base.errors import MdmemError
    from mdmem.mcp_session import Session

    for bad in ("0", "-1", "soon", "nan"):
        monkeypatch.setenv("MDMEM_MCP_TIMEOUT", bad)
        with pytest.raises(MdmemError, match="MDMEM_MCP_TIMEOUT wants a number of seconds above 0"):
            Session(vault)
    monkeypatch.setenv("MDMEM_MCP_TIMEOUT", "2.5")
    session = Session(vault)
    assert session.timeout == 2.5
    session.close()


# ----------------------------------------------------------------------------- a full disk, for real


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MB tmpfs (needs root, as CI and this machine run: no other way gives a real ENOSPC)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2M", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, keep_kb: int) -> None:
    """Fill the disk up to ``keep_kb`` KB of free space."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    with open(disk / "filler", "ab") as f:
        f.write(b"\0" * max(0, free - keep_kb * 1024))


STALE = "mdmem: the index could not be updated (is the disk full, or .mdmem/ not writable?); results may be behind " \
        "the files\n"


@pytest.mark.slow
@pytest.mark.parametrize("keep_kb", [0, 48])
def test_a_full_disk_fails_writes_in_one_line_and_reads_answer_stale(small_disk, keep_kb):
    """Writes: exit 1 and one line. Reads (search, check, show): exit 0 from the index there is, saying
    it could not be brought up to date (the notes cache opens read-only when it cannot make its WAL)."""
    from support import SAMPLE

    v = small_disk / "vault"
    shutil.copytree(SAMPLE, v, ignore=shutil.ignore_patterns(".mdmem"))
    assert invoke("index", "--vault", v).exit_code == 0
    fill(small_disk, keep_kb)
    (v / "memory" / "people" / "ana-souza.md").open("a").write("\nzebrafish\n")  # something to index
    failures = stale = 0
    for args in (("search", "zebrafish"), ("check",), ("index", "--rebuild"), ("show", "ana-souza", "--body"),
                 ("save", "Zebrafish are quiet.", "-t", "reference"), ("daily", "add", "zebrafish")):
        proc = subprocess.run([sys.executable, "-m", "mdmem", *args, "--vault", str(v)], capture_output=True,
                              text=True, timeout=SECONDS)
        assert proc.returncode in (0, 1), (args, proc.returncode, proc.stderr)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        if args[0] in ("search", "check", "show"):  # reads answer from the index there is, and say so
            assert proc.returncode == 0, (args, proc.stderr)
            warned = proc.stderr.startswith(STALE)
            stale += warned
            assert proc.stderr.count("\n") <= 1 + warned, (args, proc.stderr)
            if args[0] == "search" and warned:
                assert proc.stderr == STALE + "no notes match 'zebrafish'\n"  # the index from before the edit
            if args[0] == "show":
                assert "zebrafish" in proc.stdout  # the file itself, read as it is now
            continue
        assert proc.stderr.count("\n") <= 1, (args, proc.stderr)
        if proc.returncode == 1:
            failures += 1
            assert re.fullmatch(r"mdmem: (No space left on device.*|the notes cache \(\.mdmem/notes\.db\) failed: "
                                r"(database or disk is full|disk I/O error) \(is the disk full, or \.mdmem/ not "
                                r"writable\?\))\n", proc.stderr), (args, proc.stderr)
    assert failures >= 3 and stale >= 1  # the disk really was full


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_full_disk_is_a_tool_error_over_mcp(small_disk):
    """The server opened while there was room; the disk fills: every write is a one-line tool error and a
    read answers from the index there is; room again: the same server answers and writes (a failed
    commit once kept Whoosh's lock for good)."""
    from mcp import Client

    from mdmem.mcp_server import build_server
    from support import SAMPLE

    v = small_disk / "vault"
    shutil.copytree(SAMPLE, v, ignore=shutil.ignore_patterns(".mdmem"))
    async with Client(build_server(v), mode="legacy") as client:
        with anyio.fail_after(SECONDS):
            assert not (await client.call_tool("search", {"query": "cents"})).is_error
        fill(small_disk, 0)
        (v / "memory" / "people" / "ana-souza.md").open("a").write("\nzebrafish\n")
        with anyio.fail_after(SECONDS):
            got = await client.call_tool("read_note", {"note": "ana-souza"})
            assert not got.is_error and "zebrafish" in got.content[0].text
            got = await client.call_tool("search", {"query": "zebrafish"})
            assert not got.is_error and "ana-souza" not in got.content[0].text  # behind the files, not failing
        for name, args in (("save", {"text": "Zebrafish are quiet.", "type": "reference"}),
                           ("daily_add", {"text": "zebrafish"})):
            with anyio.fail_after(SECONDS):
                got = await client.call_tool(name, args)
            text = got.content[0].text
            assert got.is_error and "internal error" not in text and "\n" not in text, text
            assert "No space left on device" in text or "disk is full" in text or "disk I/O error" in text, text
        (small_disk / "filler").unlink()
        with anyio.fail_after(SECONDS):
            got = await client.call_tool("save", {"text": "Zebrafish are quiet.", "type": "reference"})
            assert not got.is_error, got.content[0].text
            assert "zebrafish" in (await client.call_tool("read_note", {"note": "ana-souza"})).content[0].text
            assert "ana-souza" in (await client.call_tool("search", {"query": "zebrafish"})).content[0].text


# ----------------------------------------------------------------------------- secrets

# Made-up values of each provider's documented shape (none of them is a real credential).
SECRETS = {
    "AWS access key ID": f"aws_access_key_id = {AWS_KEY}",
    "GitHub token": "export GH_TOKEN=ghp_R8fKq2Lm9Tz4Xw7Bn3Vc6Hd1Jy5Pa0Se8Ug2",
    "GitLab token": "glpat-Xq7Rz2Lm9Tk4Wb8Nc3Vd",
    "Slack token": "the bot uses xoxb-2817364509-1283746501923-Qm7Rz2Lk9Tw4Xb8Nc3Vd6Hf1",
    "Slack webhook": "alerts go to https://hooks.slack.com/services/T0A1B2C3D/B4E5F6G7H/Qm7Rz2Lk9Tw4Xb8N",
    "Stripe live key": "STRIPE_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "Google API key": "maps: AIzaSyD3f8Kq2Lm9Tz4Xw7Bn3Vc6Hd1Jy5Pa0Se",
    "OpenAI API key": "OPENAI_API_KEY=sk-proj-Qm7Rz2Lk9Tw4Xb8Nc3Vd6Hf1Jy5Pa0SeUg2Ri4",
    "Anthropic API key": "key sk-ant-api03-Qm7Rz2Lk9Tw4Xb8Nc3Vd6Hf1Jy5Pa0SeUg2Ri4To6Qm7Rz2Lk9Tw4X-AAAA",
    "JSON Web Token": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    "password in a URL": "DATABASE_URL=postgres://billing:Vq8#mZ2r!Lw5@db.internal:5432/billing",
    "password or key assignment": 'db_password = "Xk9#mQ2$vL7pR4wZ"',
}
NEAR_MISSES = [
    "The password is kept in 1Password; never write it down.",
    "We rotate the API key every quarter and the token expires after an hour.",
    "password: see the team vault",
    "api_key: ${STRIPE_API_KEY}",
    'token = "<your token here>"',
    "postgres://user:password@localhost:5432/dev is the local default",
    "secret: stored-in-vault-2024",
    "commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 fixed the build",
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "max tokens: 4096, token_limit = 8192, keyboard: 1234567890",
    "sk-learn-is-not-a-key and scikit-learn is a library",
    "The AKIA prefix marks AWS access keys; ghp_ marks GitHub tokens.",
    "author: Ana Souza, passwords: never in notes",
    "eyJhbGciOiJIUzI1NiJ9 is only a JWT header",
]


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_of_secret_is_found_on_its_line(kind):
    from mdmem.text.secrets import Secret, find

    text = f"# Deploy\n\nsome prose first\n{SECRETS[kind]}\nand after\n"
    assert find(text) == [Secret(4, kind)]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_are_not_secrets(text):
    from mdmem.text.secrets import find

    assert find(text) == []


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_of_secret_is_redacted_and_nothing_else(kind):
    from mdmem.text.secrets import find, redact

    text = f"# Deploy\n\nsome prose first\n{SECRETS[kind]}\nand after\n"
    out = redact(text)
    assert find(out) == [] and f"[{kind} redacted]" in out
    assert out.startswith("# Deploy\n\nsome prose first\n") and out.endswith("\nand after\n")


def test_redact_takes_a_private_key_whole_and_leaves_near_misses_alone():
    from mdmem.text.secrets import redact

    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----"
    assert redact(f"key:\n{key}\nthe end") == "key:\n[private key redacted]\nthe end"
    assert redact(f"cut: {key[:60]}") == "cut: [private key redacted]"
    for text in NEAR_MISSES:
        assert redact(text) is text


@pytest.mark.slow
def test_save_refuses_a_secret_and_writes_nothing(vault, tmp_path):
    def snapshot():
        return {p: p.read_bytes() for p in vault.rglob("*") if p.is_file() and ".mdmem" not in p.parts}

    before = snapshot()
    for kind, line in SECRETS.items():
        r = invoke("save", f"How we deploy billing.\n{line}\n", "-t", "reference", "--name", "Billing deploy",
                   "--vault", vault)
        assert r.exit_code == 1 and r.stdout == "", (kind, r.stderr)
        assert r.stderr == (
            f"mdmem: refusing to write: the text holds what looks like a secret (line 2: "
            f"{'an' if kind[0] in 'AEIOU' else 'a'} {kind}); nothing was written. Keep secrets in a password "
            "manager and save where to find them; if it is not a secret, the user can pass --allow-secret on the "
            "command line\n"), kind
        assert line.split()[-1] not in r.stderr  # never the secret itself
    r = invoke("save", "Billing deploy notes", "-t", "reference", "--description", f"key {AWS_KEY}", "--vault", vault)
    assert r.exit_code == 1 and "(the description: an AWS access key ID)" in r.stderr
    r = invoke("daily", "add", f"rotated {AWS_KEY} today", "--vault", vault)
    assert r.exit_code == 1 and "the entry holds what looks like a secret (line 1: an AWS access key ID)" in r.stderr
    assert snapshot() == before  # nothing written anywhere
    ok = invoke("save", f"The demo key {AWS_KEY} is a placeholder from the docs.", "-t", "reference", "--name",
                "Demo key", "--allow-secret", "--vault", vault)
    assert ok.exit_code == 0 and AWS_KEY in (vault / "memory/references/Demo key.md").read_text()


@pytest.mark.slow
def test_checkpoint_accept_never_writes_a_secret_an_offline_suggestion_quoted(vault, tmp_path):
    """The offline suggestion quotes the user with the key redacted (a suggestion a model proposes with a
    secret is marked and refused instead: test_checkpoint_trial)."""
    talk = tmp_path / "talk.txt"
    talk.write_text(SESSION + f"User: From now on, always deploy with the key {AWS_KEY}, never a fresh one.\n")
    assert invoke("checkpoint", talk, "--vault", vault).exit_code == 0
    r = invoke("checkpoint", "accept", "all", "--vault", vault, "--json")
    accepted = json.loads(r.stdout)["accepted"]
    assert r.exit_code == 0 and {a["status"] for a in accepted} == {"proposed"}  # CLAUDE.md lines, for the user
    assert "always deploy with the key [AWS access key ID redacted], never a fresh one" in accepted[0]["line"]
    assert not any(AWS_KEY in p.read_text() for p in vault.rglob("*") if p.is_file() and ".mdmem" not in p.parts
                   or p.parent.name == "checkpoints")


@pytest.mark.anyio
async def test_mcp_save_refuses_a_secret_and_an_agent_cannot_waive_it(vault):
    from mcp import Client

    from mdmem.mcp_server import build_server

    async with Client(build_server(vault), mode="legacy") as client:
        text = f"Deploys use the CI role.\n{SECRETS['GitHub token']}\n"
        got = await client.call_tool("save", {"text": text, "type": "reference", "name": "CI deploys"})
        assert got.is_error and "line 2: a GitHub token" in got.content[0].text
        assert not (vault / "memory/references/CI deploys.md").exists()
        got = await client.call_tool("daily_add", {"text": text})
        assert got.is_error and "the entry holds what looks like a secret" in got.content[0].text
        got = await client.call_tool("save", {"text": text, "type": "reference", "name": "CI deploys",
                                              "allow_secret": True})  # only the user, on the command line
        assert got.is_error and not (vault / "memory/references/CI deploys.md").exists()


@pytest.mark.slow
def test_check_reports_secrets_by_line_and_kind_never_the_value(vault):
    note = vault / "memory" / "references" / "deploy-keys.md"
    note.write_text("---\ntype: reference\n---\n# Deploy keys\n\nfine prose\n" + "\n".join(SECRETS.values()) + "\n")
    (vault / "memory" / "references" / "innocent.md").write_text("# Innocent\n" + "\n".join(NEAR_MISSES) + "\n")
    r = invoke("check", "--vault", vault, "--json")
    secrets = [i for i in json.loads(r.stdout)["issues"] if i["kind"] == "SECRET"]
    assert [(i["path"], i["line"], i["severity"]) for i in secrets] == [
        ("memory/references/deploy-keys.md", line, "error") for line in
        [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 20, 21]]
    assert secrets[0]["detail"] == "line 7: what looks like an AWS access key ID (not shown here)"
    text = invoke("check", "--vault", vault).stdout
    for line in SECRETS.values():
        assert line.split()[-1][-12:] not in r.stdout + text  # not in --json, not in the text report
    assert "SECRET  memory/references/deploy-keys.md:7  line 7: what looks like an AWS access key ID" in text


# ----------------------------------------------------------------------------- sync conflicts


@pytest.mark.slow
def test_sync_conflict_copies_are_reported_and_kept_out_of_answers(hostile):
    invoke("index", "--vault", hostile)
    issues = json.loads(invoke("check", "--vault", hostile, "--json").stdout)["issues"]
    conflicts = {i["path"]: i for i in issues if i["kind"] == "SYNC CONFLICT"}
    assert sorted(conflicts) == ["memory/projects/atlas (conflicted copy 2026-05-01).md", "memory/projects/atlas 2.md",
                                 "memory/projects/atlas.sync-conflict-20260501-101500-ABCDEFG.md"]
    dropbox = conflicts["memory/projects/atlas (conflicted copy 2026-05-01).md"]
    assert dropbox["severity"] == "warning" and dropbox["detail"] == (
        "a conflict copy of memory/projects/atlas.md, left by Dropbox, Google Drive or Obsidian Sync; it stays out "
        "of search, recall and context until resolved")
    assert dropbox["action"] == ("compare it with memory/projects/atlas.md, merge what differs into "
                                 "memory/projects/atlas.md, then archive the copy: mdmem forget "
                                 "\"memory/projects/atlas (conflicted copy 2026-05-01).md\"")
    assert "left by Syncthing" in conflicts["memory/projects/atlas.sync-conflict-20260501-101500-ABCDEFG.md"]["detail"]
    assert "left by iCloud or Obsidian" in conflicts["memory/projects/atlas 2.md"]["detail"]
    others = {(i["kind"], i["path"]) for i in issues if i["path"] in conflicts and i["kind"] != "SYNC CONFLICT"}
    assert not {k for k, _ in others} & {"ORPHAN", "DUPLICATE"}  # not also reported as the copies they are

    hits = [h["path"] for h in json.loads(invoke("search", "atlas billing", "-n", "50", "--vault", hostile,
                                                 "--json").stdout)["results"]]
    assert "memory/projects/atlas.md" in hits and not set(hits) & set(conflicts)
    recall = json.loads(invoke("recall", "atlas billing", "--vault", hostile, "--json").stdout)
    assert not any(path in recall["markdown"] for path in conflicts)
    context = invoke("context", "--mode", "full", "-q", "atlas", "--vault", hostile, "--budget", "16000").stdout
    assert "atlas.md" in context and not any(path.rsplit("/", 1)[1][:-3] in context for path in conflicts)
    timeline = invoke("timeline", "atlas", "--vault", hostile, "--json").stdout
    assert not any(json.dumps(path)[1:-1] in timeline for path in conflicts)
    # resolving: the copy is archived; then nothing is reported
    for copy in conflicts:
        assert invoke("forget", copy, "--vault", hostile).exit_code == 0
    issues = json.loads(invoke("check", "--vault", hostile, "--json").stdout)["issues"]
    assert not [i for i in issues if i["kind"] == "SYNC CONFLICT"]


def test_a_numbered_note_is_a_conflict_copy_only_beside_its_twin_and_close_in_time(vault):
    from mdmem.base.layout import sync_conflicts

    hour = 3600 * 10**9
    notes = {"memory/a.md": (10 * hour, 1), "memory/a 2.md": (10 * hour + 60 * 10**9, 1),  # a minute apart
             "memory/b.md": (10 * hour, 1), "memory/b 2.md": (12 * hour, 1),  # two hours apart: a real note
             "memory/Q3 2.md": (0, 1), "memory/c 2.md": (0, 1),  # nothing beside them
             "memory/d (Ana's conflicted copy 2026-05-01 (1)).md": (0, 1)}  # the original may be gone
    assert sync_conflicts(notes) == {
        "memory/a 2.md": ("memory/a.md", "iCloud or Obsidian"),
        "memory/d (Ana's conflicted copy 2026-05-01 (1)).md": ("memory/d.md", "Dropbox, Google Drive or Obsidian Sync"),
    }


# ----------------------------------------------------------------------------- the smaller items


def test_nfc_and_nfd_twins_are_reported(hostile):
    invoke("index", "--vault", hostile)
    twins = [i for i in json.loads(invoke("check", "--vault", hostile, "--json").stdout)["issues"]
             if i["kind"] == "NAME TWINS"]
    assert twins == [{
        "kind": "NAME TWINS", "path": NFC, "severity": "error", "line": None,
        "detail": "2 files here have this name written in different Unicode forms (NFC, NFD): one name to "
                  "Obsidian on macOS and Windows, and every link or name reaches only the NFC-named one",
        "action": "rename one of them, or merge them into one and archive the other"}]


@pytest.mark.slow
def test_dots_in_a_name_are_not_a_path(vault):
    r = invoke("save", "Wait... what? The build cache was stale.", "-t", "reference", "--name", "Wait... what",
               "--vault", vault, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["path"] == "memory/references/wait-what.md"
    for name in ("..", "../up", "a/b", "~root"):
        r = invoke("save", "x", "-t", "reference", "--name", name, "--vault", vault)
        assert r.exit_code == 2 and "a note name cannot contain a path" in r.stderr


@pytest.mark.slow
def test_a_daily_entry_cannot_make_two(vault):
    from mdmem.text.daily import entries
    from mdmem.text.parse import split_frontmatter

    text = "standup notes\n## 09:00\nforged entry\n# Title\nNot a heading\n---\n  ## 10:00 indented"
    r = invoke("daily", "add", text, "--at", "08:30", "--date", "2026-05-04", "--vault", vault, "--json")
    assert r.exit_code == 0, r.stderr
    day = vault / json.loads(r.stdout)["path"]
    found = entries(split_frontmatter(day.read_text())[1])
    assert [(e.time, e.first) for e in found] == [("08:30", "standup notes")]
    assert found[0].text == ("standup notes\n\\## 09:00\nforged entry\n\\# Title\nNot a heading\n\\---\n"
                             "  \\## 10:00 indented")
    shown = invoke("timeline", "--when", "2026-05-04", "--vault", vault, "--json").stdout
    assert [e["time"] for e in json.loads(shown)["entries"] if e["kind"] == "daily"] == ["08:30"]


@pytest.mark.slow
def test_graphml_and_gexf_stay_valid_xml_with_control_characters(hostile, tmp_path):
    invoke("index", "--vault", hostile)
    for fmt in ("graphml", "gexf"):
        out = tmp_path / f"g.{fmt}"
        r = invoke("graph", "export", "-f", fmt, "-o", out, "--vault", hostile)
        assert r.exit_code == 0, r.stderr
        doc = xml.dom.minidom.parse(str(out))  # raises on a character XML 1.0 forbids
        ids = {n.getAttribute("id") for n in doc.getElementsByTagName("node")}
        assert "memory/people/ana\\x1b]0;evil\\x07.md" in ids and "memory/projects/two\nlines.md" in ids
    exact = json.loads(invoke("graph", "export", "-f", "json", "--vault", hostile).stdout)
    ids = {n["id"] for n in exact["nodes"]}
    assert ESC_PATH in ids and C1_PATH in ids  # JSON keeps names exact (C1 and DEL escaped as \u009b, \u007f)


def test_forget_only_archives_memory_notes(hostile):
    invoke("index", "--vault", hostile)
    r = invoke("forget", "README.md", "--vault", hostile)
    assert r.exit_code == 2 and r.stderr == ("mdmem: refusing to forget README.md: only memory notes (under memory/) "
                                             "can be archived; move or delete other files yourself\n")
    assert (hostile / "README.md").is_file() and not (hostile / "memory" / ".archive").exists()
    r = invoke("forget", "memory/projects/atlas 2.md", "--vault", hostile, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["notes"][0]["archived_to"] == "memory/.archive/projects/atlas 2.md"


def test_forget_in_a_flat_memory_folder_still_works(tmp_path):
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "MEMORY.md").write_text("# Memory\n- [a](a.md) — a\n")
    (flat / "a.md").write_text("# A\nalpha\n")
    r = invoke("forget", "a.md", "--vault", flat, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["notes"][0]["path"] == "a.md"


@pytest.mark.slow
def test_save_file_is_bounded_and_regular(vault, tmp_path):
    for source, why in (("/dev/zero", "not a regular file"), ("/dev/null", "not a regular file")):
        r = invoke("save", "--file", source, "-t", "reference", "--vault", vault)
        assert r.exit_code == 2 and r.stderr == f"mdmem: cannot read {source}: {why}\n"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = invoke("save", "--file", fifo, "-t", "reference", "--vault", vault)  # no writer: a blocking open would hang
    assert r.exit_code == 2 and "not a regular file" in r.stderr
    big = tmp_path / "big.md"
    big.write_text("word " * 300_000)  # 1.5 MB
    r = invoke("save", "--file", big, "-t", "reference", "--vault", vault)
    assert r.exit_code == 2 and r.stderr == f"mdmem: {big} is longer than 1,048,576 characters, the most a memory may be\n"
    r = invoke("save", "-", "-t", "reference", "--vault", vault, input="word " * 300_000)
    assert r.exit_code == 2 and "the text on stdin is longer than 1,048,576 characters" in r.stderr
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"caf\xe9\n")
    r = invoke("save", "--file", latin, "-t", "reference", "--vault", vault)
    assert r.exit_code == 2 and "is not UTF-8 text" in r.stderr
    ok = tmp_path / "ok.md"
    ok.write_text("Quokka shifts start at 22:00.\n")
    assert invoke("save", "--file", ok, "-t", "reference", "--vault", vault).exit_code == 0


@pytest.mark.slow
def test_a_killed_writers_temp_files_are_cleaned_when_mdmem_writes_there(vault):
    folder = vault / "memory" / "references"
    old = folder / ".quokka.md.4242.deadbeef.tmp"
    fresh = folder / ".quokka.md.4243.cafef00d.tmp"
    root_old = vault / ".MEMORY.md.4244.0badf00d.tmp"
    for f in (old, fresh, root_old):
        f.write_text("half a note")
    hours_ago = time.time() - 2 * 3600
    os.utime(old, (hours_ago, hours_ago))
    os.utime(root_old, (hours_ago, hours_ago))
    r = invoke("save", "Quokkas sleep by day.", "-t", "reference", "--name", "Quokka", "--vault", vault)
    assert r.exit_code == 0, r.stderr
    assert not old.exists() and not root_old.exists() and fresh.exists()  # only what is over an hour old


def test_human_output_leaves_only_through_the_sanitising_functions():
    """The guard that keeps the rule from being forgotten: in cli/ and the MCP server, text reaches stdout or
    stderr only inside the few functions that pass it through ``visible`` (or write JSON through
    ``json_safe``); a new ``print``, ``typer.echo``, ``sys.stdout.write`` or ``Console(`` elsewhere fails here."""
    import ast

    from support import ROOT

    allowed = {
        ("render.py", "emit_json"), ("render.py", "message"), ("render.py", "text"), ("render.py", "check_json"),
        ("render.py", "console"), ("render.py", "print"), ("render.py", "ask"),  # SafeConsole.print, a y/N
        ("hook.py", "run"), ("hook.py", "usage"), ("common.py", "_version"),  # the version string, a hook's usage
    }
    writers = {"print", "echo", "secho", "write", "Console", "writelines"}
    found = []
    for path in [*sorted((ROOT / "mdmem" / "cli").glob("*.py")), ROOT / "mdmem" / "mcp_server.py", ROOT / "mdmem" / "mcp_session.py"]:
        tree = ast.parse(path.read_text())
        for func in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
            for call in [n for n in ast.walk(func) if isinstance(n, ast.Call)]:
                name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
                target = ast.unparse(call.func)
                if name in writers and not target.startswith(("out.", "super()", "f.", "self.")) and \
                        (name != "write" or "std" in target) and (name != "print" or target == "print"):
                    found.append((path.name, func.name, target))
    assert {(f, fn) for f, fn, _ in found} <= allowed, sorted(set(found))
    assert ("render.py", "message", "sys.stderr.write") in found  # the guard sees what it guards


def test_bidi_controls_are_shown_not_obeyed(tmp_path):
    """A right-to-left override in a name or a text ("Trojan Source") is written out as ``\\u202e`` for a
    person and escaped in JSON, so what the terminal shows is what the file holds."""
    vault = tmp_path / "v"
    (vault / "memory" / "references").mkdir(parents=True)
    (vault / "MEMORY.md").write_text("# Memory\n")
    (vault / "memory" / "references" / "pay\u202etxt.md").write_text(
        "# Invoice \u2066rtl\u2069\n\nThe vendor \u202ebank account\u202c changed.\n")
    r = invoke("search", "vendor", "--vault", vault)
    assert_clean(r, "search")
    assert "pay\\u202etxt" in r.stdout and "\\u202ebank account\\u202c" in r.stdout, r.stdout
    assert not any(c in r.stdout for c in "\u202e\u202c\u2066\u2069")
    j = invoke("search", "vendor", "--vault", vault, "--json").stdout
    assert "\u202e" not in j and "\\u202e" in j
    assert json.loads(j)["results"][0]["path"] == "memory/references/pay\u202etxt.md"  # the exact name


def test_nfc_nfd_twins_are_two_notes_read_by_their_own_names(hostile):
    """Each twin is a note under its name as on disk, read from its own file, and neither is indexed again on
    the next refresh; a NOTE argument, in either form, reaches the NFC-named one (the resolver's rule)."""
    from mdmem.engine.memory import Memory

    with Memory.open(hostile) as mem:
        assert mem.refresh().added == 21  # the hostile vault's 21 notes (its FIFO pipe.md is none)
        again = mem.refresh()
        assert (again.added, again.changed, again.removed) == (0, 0, 0)
        assert "the first josé" in mem.text_of(NFC) and "the second josé" in mem.text_of(NFD)
        assert mem.resolve_note(NFD) == mem.resolve_note(NFC) == mem.resolve_note("josé") == NFC
        assert [hit.path for hit in mem.search("second", 5).results] == [NFD]

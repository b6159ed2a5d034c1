"""What a `mdmem search` process does not do, so that a new process answers fast:
checked by what it imports and how it runs, never by timing.

- With the index up to date it imports no parser (markdown-it, PyYAML), no graph (networkx), no
  terminal library (rich), no model, nothing Whoosh imports for features mdmem never uses
  (``urllib.request``, asyncio, ``whoosh.lang.morph_en``) and no TOML reader without a config file.
- Right after a one-note edit it parses that note with markdown-it, but a note with the common
  frontmatter does not need PyYAML.
- It runs without the cyclic garbage collector and freezes what is left before Python shuts down.
- Whoosh reads a segment's sub-files in place (no ``io.BytesIO`` copy of the mmap), the same bytes.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mdmem.engine.whoosh_load import _View

NEVER = {"networkx", "rich", "numpy", "onnxruntime", "frontmatter", "asyncio", "http.client", "email",
         "urllib.request", "whoosh.lang.morph_en", "cached_property"}


def imported(*args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run ``python -X importtime -m mdmem ARGS``; the names of every module it imported."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "mdmem", *args], capture_output=True,
                          text=True, timeout=120, env=env)
    names = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc, names


@pytest.mark.slow
def test_a_search_with_the_index_up_to_date_imports_no_parser(cli, vault: Path):
    cli("index", "--vault", vault)
    proc, names = imported("search", "adyen webhooks", "--vault", str(vault), "--json")
    assert json.loads(proc.stdout)["results"][0]["path"] == "memory/references/adyen-webhooks.md"
    assert {"whoosh.index", "sqlite3", "typer"} <= names  # what it does need (the check can fail)
    assert not names & (NEVER | {"markdown_it", "yaml", "tomllib"})


@pytest.mark.slow
def test_after_an_edit_only_the_parsers_are_added(cli, vault: Path):
    cli("index", "--vault", vault)
    note = vault / "memory" / "references" / "adyen-webhooks.md"
    note.write_text(note.read_text() + "\nA new word: quokkawebhook.\n")
    proc, names = imported("search", "quokkawebhook", "--vault", str(vault), "--json")
    assert [h["path"] for h in json.loads(proc.stdout)["results"]] == ["memory/references/adyen-webhooks.md"]
    assert {"markdown_it", "yaml"} <= names  # the edited note was parsed (PyYAML reads its frontmatter)
    assert not names & (NEVER | {"tomllib"})
    (vault / ".mdmem" / "config.toml").write_text("[search]\nrecency_weight = 0.25\n")
    proc, names = imported("search", "quokkawebhook", "--vault", str(vault), "--json")
    assert json.loads(proc.stdout)["results"][0]["path"] == "memory/references/adyen-webhooks.md"
    assert "tomllib" in names  # a config is read


@pytest.mark.slow
def test_a_command_runs_without_the_cyclic_collector_and_freezes_before_exit(vault: Path):
    code = ("import gc, sys\nsys.argv = ['mdmem', 'search', 'adyen', '--vault', sys.argv[1], '--json']\n"
            "from mdmem.__main__ import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('GC', gc.isenabled(), gc.get_freeze_count() > 1000)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(vault)], capture_output=True, text=True, timeout=120)
    assert proc.stdout.splitlines()[-1] == "GC False True", proc.stdout + proc.stderr


def test_the_in_place_reader_reads_as_bytesio_does():
    data = pickle.dumps({"a": [1, 2, 3], "b": "x" * 300}) + b"line one\nline two\n" + bytes(range(256)) * 4
    rng = random.Random(7)
    for _ in range(300):
        view, ref = _View(memoryview(data)), io.BytesIO(data)
        for _ in range(12):
            op = rng.choice(["read", "read", "readline", "seek", "seek_end", "seek_cur", "tell", "readinto"])
            if op == "read":
                n = rng.choice([-1, None, 0, 1, 4, 100, 5000])
                assert view.read(n) == ref.read(n)
            elif op == "readline":
                n = rng.choice([-1, 3, 50, 5000])
                assert view.readline(n) == ref.readline(n)
            elif op == "readinto":
                a = bytearray(rng.randint(0, 40))
                b = bytearray(len(a))
                assert view.readinto(a) == ref.readinto(b) and a == b
            elif op == "seek":
                pos = rng.randint(0, len(data) + 10)
                assert view.seek(pos) == ref.seek(pos)
            elif op == "seek_end":
                back = -rng.randint(0, 50)
                assert view.seek(back, 2) == ref.seek(back, 2)
            elif op == "seek_cur":
                step = rng.randint(0, 20)
                assert view.seek(step, 1) == ref.seek(step, 1)
            assert view.tell() == ref.tell()
    long_line = b"y" * 10_000 + b"\n" + b"z" * 9_000
    view, ref = _View(memoryview(long_line)), io.BytesIO(long_line)
    assert [view.readline(), view.readline(), view.readline()] == [ref.readline(), ref.readline(), ref.readline()]
    for bad in (-1, -len(data) - 1):
        try:
            _View(memoryview(data)).seek(bad, 0 if bad == -1 else 2)
        except ValueError:
            pass
        else:
            raise AssertionError(f"seek to {bad} was allowed")
    view = _View(memoryview(data))
    assert view.peek(1)[:3] == data[:3] and view.tell() == 0  # a window, not a move
    assert pickle.load(view) == {"a": [1, 2, 3], "b": "x" * 300}
    assert view.tell() == len(pickle.dumps({"a": [1, 2, 3], "b": "x" * 300}))  # exactly past the pickle
    assert list(view)[:2] == [b"line one\n", b"line two\n"]


@pytest.mark.slow
def test_whoosh_segments_are_read_in_place(cli, vault: Path):
    from whoosh.filedb.structfile import BufferFile

    assert isinstance(BufferFile(memoryview(b"abc")).file, _View)
    cli("index", "--vault", vault)
    hits = cli.json("search", "adyen webhooks", "--vault", vault)["results"]
    assert hits[0]["path"] == "memory/references/adyen-webhooks.md"

"""The vault is a boundary: nothing outside its root is read or served, whatever the symlinks; only
regular files are opened; mdmem's caches hold data, never code; parsing is linear; a write never lands on
a file changed since it was read. Each test reproduces a defect measured on d10a61c (the hostile-vault
review; docs/decisions/058-hostile-vault-boundary.md)."""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mdmem.base import files
from mdmem.base.errors import WriteConflict
from support import run_process

SECRET = "TOPSECRET-7f3a9c outside the vault"
GUARD = 30  # seconds: a hang guard, not a timing assertion


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the vault holding a note-like file with a marker line."""
    folder = tmp_path / "elsewhere"
    (folder / "deep").mkdir(parents=True)
    (folder / "passwd.md").write_text(f"# passwd\n\n{SECRET}\n")
    (folder / "deep" / "shadow.md").write_text(f"# shadow\n\n{SECRET} too\n")
    return folder


@pytest.fixture
def hostile(vault: Path, outside: Path) -> Path:
    """sample-vault/ with a file symlink and a folder symlink leading outside, and one leading inside."""
    (vault / "memory" / "passwd.md").symlink_to(outside / "passwd.md")
    (vault / "memory" / "root").symlink_to(outside)
    (vault / "memory" / "inside-link.md").symlink_to(vault / "memory" / "people" / "ana-souza.md")
    return vault


def run(*args, **kw) -> subprocess.CompletedProcess:
    proc = run_process(*args, timeout=GUARD, **kw)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.mark.slow
def test_symlinks_outside_the_vault_are_never_indexed_or_served(hostile: Path) -> None:
    found = run("search", "TOPSECRET", "--vault", hostile, "--json")
    assert found.returncode == 0 and json.loads(found.stdout)["results"] == []
    for ref in ("passwd", "memory/passwd.md", "memory/root/passwd.md", "shadow"):
        shown = run("show", ref, "--vault", hostile, "--json")
        assert SECRET not in shown.stdout and shown.returncode in (0, 1), (ref, shown)
    page = hostile / "graph.html"
    assert run("graph", "html", "--vault", hostile, "--output", page).returncode == 0
    assert "TOPSECRET" not in page.read_text()
    # a link that stays inside the vault is followed
    inside = json.loads(run("search", "ana", "--vault", hostile, "--json").stdout)["results"]
    assert "memory/inside-link.md" in {h["path"] for h in inside}


@pytest.mark.slow
def test_check_reports_links_leading_outside(hostile: Path) -> None:
    report = json.loads(run("check", "--vault", hostile, "--json").stdout)
    outside = sorted(i["path"] for i in report["issues"] if "outside the vault" in i["detail"])
    assert outside == ["memory/passwd.md", "memory/root"]
    assert all(i["severity"] == "error" for i in report["issues"] if "outside the vault" in i["detail"])


def test_reads_refuse_paths_that_leave_the_vault(hostile: Path, outside: Path) -> None:
    for rel in ("memory/passwd.md", "memory/root/passwd.md", "../elsewhere/passwd.md", str(outside / "passwd.md")):
        with pytest.raises(files.OutsideVault):
            files.read_bytes(hostile, rel)
    assert files.read_bytes(hostile, "memory/inside-link.md").startswith(b"---")


@pytest.mark.slow
@pytest.mark.parametrize("where", ["/", "HOME"])
def test_a_vault_of_the_whole_disk_or_home_is_refused(where: str, isolated: Path) -> None:
    target = isolated if where == "HOME" else Path("/")
    proc = run("search", "x", "--vault", target)
    assert proc.returncode == 2  # a --vault that cannot be used: usage, as every other one
    assert proc.stderr.startswith(f"mdmem: refusing {target.resolve()} (--vault) as a vault: it is ")
    assert proc.stderr.count("\n") == 1


@pytest.mark.slow
def test_fifos_and_devices_named_like_notes_never_hang(vault: Path) -> None:
    os.mkfifo(vault / "memory" / "fifo.md")
    (vault / "memory" / "zero.md").symlink_to("/dev/zero")  # outside the vault as well as not regular
    for args in (("check", "--json"), ("show", "fifo"), ("search", "fifo"), ("graph", "map")):
        proc = run(*args, "--vault", vault)
        assert proc.returncode in (0, 1, 3), (args, proc.stderr)
    page = vault / "g.html"
    assert run("graph", "html", "--vault", vault, "--output", page).returncode == 0
    report = json.loads(run("check", "--vault", vault, "--json").stdout)
    assert {"memory/fifo.md", "memory/zero.md"} <= {i["path"] for i in report["issues"]}


@pytest.mark.slow
@pytest.mark.anyio
async def test_mcp_read_note_refuses_outside_and_fifo(hostile: Path, outside: Path) -> None:
    from mcp import Client

    from mdmem.mcp_server import build_server

    (outside / "environ.md").write_text(f"API_KEY={SECRET}\n")
    (hostile / "memory" / "environ.md").symlink_to(outside / "environ.md")
    os.mkfifo(hostile / "memory" / "pipe.md")
    async with Client(build_server(hostile), mode="legacy") as client:
        for name in ("environ", "memory/environ.md", "passwd", "pipe", "memory/root/passwd.md"):
            result = await client.call_tool("read_note", {"note": name})
            text = result.content[0].text
            assert SECRET not in text, name
        hits = await client.call_tool("search", {"query": "TOPSECRET"})
        assert SECRET not in hits.content[0].text


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Payload:
    """A pickle payload: unpickling it creates a marker file (what an attacker's os.system would do)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.slow
def test_caches_hold_data_never_code(vault: Path, tmp_path: Path) -> None:
    assert run("index", "--vault", vault).returncode == 0
    state = vault / ".mdmem"
    assert (state / ".gitignore").read_text() == "*\n"
    marker = tmp_path / "pwned"
    db = sqlite3.connect(state / "notes.db")
    db.execute("UPDATE notes SET note = ? WHERE path = 'memory/people/ana-souza.md'",
               (pickle.dumps(Payload(marker)),))
    db.commit()
    db.close()
    (state / "graph.json").write_bytes(pickle.dumps(Payload(marker)))
    for args in (("show", "ana-souza"), ("graph", "map"), ("backlinks", "ana-souza"), ("recall", "ana")):
        proc = run(*args, "--vault", vault)
        assert proc.returncode in (0, 1), (args, proc.stderr)
    assert not marker.exists()
    assert not list(state.glob("*.pickle"))


@pytest.mark.slow
def test_link_parsing_is_linear_enough_for_a_hostile_note(vault: Path) -> None:
    """A 1.1 MB note of unclosed ``[[a `` kept ``index`` busy past 120 s; markdown links too."""
    (vault / "memory" / "links.md").write_text("[[a " * 280_000)
    (vault / "memory" / "brackets.md").write_text("[a " * 200_000 + "]\n" + "[[a]] " * 100_000)
    proc = run("index", "--vault", vault)
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(run("links", "brackets", "--vault", vault, "--json").stdout)
    assert len(shown["links"]) == 100_000


def test_daily_add_refuses_a_daily_folder_leading_outside(vault: Path, outside: Path) -> None:
    daily = vault / "memory" / "daily"
    for p in daily.iterdir():
        p.unlink()
    daily.rmdir()
    daily.symlink_to(outside)
    before = sorted(p.name for p in outside.iterdir())
    proc = run("daily", "add", "an entry", "--vault", vault)
    assert proc.returncode == 2 and "outside" in proc.stderr
    assert sorted(p.name for p in outside.iterdir()) == before


def test_an_edit_made_while_the_temp_file_is_written_is_not_overwritten(tmp_path: Path, monkeypatch) -> None:
    """The window measured on d10a61c: the stat was compared before the temp file was written and
    synced, so an edit landing then was lost 5 times of 5. Reproduced exactly: the edit happens
    during the temp file's fsync."""
    target = tmp_path / "MEMORY.md"
    target.write_text("# Memory\n")
    st = target.stat()
    seen = (st.st_mtime_ns, st.st_size)
    real_fsync, done = os.fsync, threading.Event()

    def fsync_with_a_concurrent_edit(fd: int) -> None:
        real_fsync(fd)
        if not done.is_set():
            done.set()
            target.write_text("# Memory\n- a line the user just typed\n")

    monkeypatch.setattr(os, "fsync", fsync_with_a_concurrent_edit)
    with pytest.raises(WriteConflict):
        files.write_atomic(target, b"# Memory\n- mdmem's line\n", expected=seen)
    assert target.read_text() == "# Memory\n- a line the user just typed\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MEMORY.md"]  # no temp file left behind


@pytest.mark.slow
def test_hook_walker_finishes_on_symlinks_to_parent_folders(vault: Path) -> None:
    """hooks.fingerprint had its own walker that never finished on two symlinks to a parent folder."""
    (vault / "memory" / "up").symlink_to(vault)
    (vault / "memory" / "people" / "up2").symlink_to(vault / "memory")
    payload = json.dumps({"session_id": "s", "cwd": str(vault), "source": "startup"})
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "session-start", "--vault", str(vault)],
                          input=payload, capture_output=True, text=True, timeout=GUARD)
    assert proc.returncode == 0 and proc.stdout.strip()


@pytest.mark.slow
def test_a_fifo_and_a_binary_file_named_md_are_no_notes(vault: Path) -> None:
    """A new user's trial: 200 KB of random bytes as binary.md was decoded as cp1252 into made-up tags and ~62,500
    tokens, and check asked for binary.md and fifo.md to be added to MEMORY.md. A FIFO is never a note; a file with
    a NUL in its first KB is reported once (NOT TEXT), never indexed nor counted."""
    refs = vault / "memory" / "references"
    refs.mkdir(parents=True, exist_ok=True)
    data = bytes(range(256)) * 800  # 204,800 bytes; the NUL is the first
    (refs / "binary.md").write_bytes(data)
    os.mkfifo(refs / "fifo.md")
    report = json.loads(run("check", "--json", "--vault", vault).stdout)
    mine = [(i["kind"], i["path"], i["severity"], i["detail"]) for i in report["issues"] if "references/" in i["path"]
            and i["path"].rsplit("/", 1)[-1] in ("binary.md", "fifo.md")]
    assert mine == [
        ("PARSE PROBLEM", "memory/references/fifo.md", "warning",
         "not_regular: not a regular file (a FIFO, device or socket named .md); not a note"),
        ("NOT TEXT", "memory/references/binary.md", "warning",
         "not_text: NUL bytes in its first 1024 bytes: a binary file, not a note")]
    regular = [p for p in (vault / "memory").rglob("*.md") if p.is_file() and p.name != "binary.md"
               and not any(part.startswith(".") for part in p.relative_to(vault).parts)]
    assert report["budget"]["files"] == len(regular)
    assert "binary.md" not in json.dumps({k: v for k, v in report.items() if k != "issues"})
    assert json.loads(run("search", "binary", "--json", "--vault", vault).stdout)["results"] == []
    shown = json.loads(run("show", "memory/references/binary.md", "--json", "--vault", vault).stdout)
    assert (shown["tokens"], shown["tags"]) == (0, [])
    assert run("show", "memory/references/fifo.md", "--vault", vault).returncode == 1

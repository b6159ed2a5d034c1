"""`mdmem watch`: debounced batches, editors that save by rename, failures, clean stop."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

from mdmem.base.state import write_lock
from mdmem.engine.memory import Memory
from mdmem.ops.watch import relevant, watch


@pytest.fixture
def watching(vault):
    """Run watch() in a thread; yields (vault, batches queue); stops it after."""
    mem = Memory.open(vault, lock_timeout=0.5)
    mem.refresh()
    batches: queue.Queue = queue.Queue()
    stop, ready = threading.Event(), threading.Event()
    thread = threading.Thread(target=watch, args=(mem,), kwargs={
        "debounce": 0.15, "on_batch": batches.put, "stop": stop, "on_ready": ready.set,
    })
    thread.start()
    assert ready.wait(30), "the observer never started"
    yield vault, batches
    stop.set()
    thread.join(timeout=10)
    assert not thread.is_alive(), "watch did not stop"
    mem.close()


def next_batch(batches: queue.Queue, timeout: float = 10.0):
    return batches.get(timeout=timeout)


def search_paths(vault, words: str) -> list[str]:
    with Memory.open(vault) as mem:
        return [hit.path for hit in mem.search(words, limit=5).results]


def test_atomic_save_is_indexed(watching):
    vault, batches = watching
    tmp = vault / "memory" / ".new-note.md.tmp"
    tmp.write_text("---\ntype: reference\n---\nThe quokka protocol.\n")
    os.replace(tmp, vault / "memory" / "new-note.md")
    batch = next_batch(batches)
    assert batch.error is None and batch.result.added == 1
    assert "memory/new-note.md" in batch.paths
    assert search_paths(vault, "quokka") == ["memory/new-note.md"]


def test_vim_style_backup_rename_save(watching):
    vault, batches = watching
    note = vault / "memory" / "people" / "lucas-pereira.md"
    backup = note.with_name("lucas-pereira.md~")
    original = note.read_text()
    os.rename(note, backup)
    note.write_text(original + "\nLearning the axolotl pattern.\n")
    backup.unlink()
    batch = next_batch(batches)
    assert batch.error is None and batch.result.changed == 1 and batch.result.added == 0
    assert search_paths(vault, "axolotl") == ["memory/people/lucas-pereira.md"]


@pytest.mark.slow
def test_burst_of_edits_is_one_batch_and_idle_is_silent(watching):
    vault, batches = watching
    for i in range(5):
        (vault / "memory" / f"burst-{i}.md").write_text(f"burst note {i}\n")
    batch = next_batch(batches)
    assert batch.result.added == 5
    with pytest.raises(queue.Empty):  # mdmem's own writes in .mdmem/ do not trigger work
        batches.get(timeout=1.0)


@pytest.mark.slow
def test_a_failing_batch_is_reported_and_watch_goes_on(watching):
    vault, batches = watching
    with write_lock(vault / ".mdmem", 5):
        (vault / "memory" / "locked.md").write_text("written while another writer holds the lock\n")
        batch = next_batch(batches)
    assert batch.result is None and "LockTimeout" in batch.error
    (vault / "memory" / "after.md").write_text("the pangolin came later\n")
    batch = next_batch(batches)
    assert batch.error is None and batch.result.added == 2  # the one that failed, and the new one
    assert search_paths(vault, "pangolin") == ["memory/after.md"]


def test_bad_note_does_not_stop_watch(watching):
    vault, batches = watching
    (vault / "memory" / "broken.md").write_bytes(b"---\ntitle: 'unclosed\n---\nbody about narwhals \xff\n")
    batch = next_batch(batches)
    assert batch.error is None and batch.result.added == 1
    assert search_paths(vault, "narwhals") == ["memory/broken.md"]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("memory/a.md", True),
        ("memory/sub", True),  # a folder (renames of folders matter)
        (".mdmem/index/MAIN_1.toc", False),
        ("memory/.a.md.swp", False),
        ("memory/a.md~", False),
        ("memory/4913", True),  # vim's probe file: no extension, looks like a folder; harmless
        ("memory/image.png", False),
        ("../outside.md", False),
    ],
)
def test_relevant_paths(tmp_path, path, expected):
    assert relevant(str(tmp_path), str(tmp_path / path)) is expected


@pytest.mark.slow
def test_cli_watch_stops_cleanly_on_ctrl_c(vault):
    proc = subprocess.Popen(
        [sys.executable, "-m", "mdmem", "watch", "--vault", str(vault), "--debounce", "0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # Ctrl-C must reach it even when the suite runs as a background job (SIGINT ignored there)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 30
        line = ""
        while "watching" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
        assert "watching" in line  # said once the observer runs: the next edit is seen
        (vault / "memory" / "from-cli.md").write_text("hello from the watcher test\n")
        deadline = time.monotonic() + 15
        while "1 added" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
        assert "1 added" in line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "stopped" in err and "Traceback" not in err


@pytest.mark.slow
def test_an_edit_made_before_the_observer_runs_is_indexed_at_start(vault):
    mem = Memory.open(vault, lock_timeout=0.5)
    mem.refresh()
    (vault / "memory" / "early.md").write_text("The okapi arrived before the watcher.\n")
    batches: queue.Queue = queue.Queue()
    stop, ready = threading.Event(), threading.Event()
    thread = threading.Thread(target=watch, args=(mem,), kwargs={
        "debounce": 0.15, "on_batch": batches.put, "stop": stop, "on_ready": ready.set})
    thread.start()
    try:
        assert ready.wait(30)
        batch = batches.get_nowait()  # reported before "ready": nothing to wait for
        assert batch.error is None and batch.result.added == 1 and batch.paths == ()
        assert search_paths(vault, "okapi") == ["memory/early.md"]
    finally:
        stop.set()
        thread.join(timeout=10)
        mem.close()

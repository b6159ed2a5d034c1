"""``mdmem watch``: keep the index current while files change, with watchdog.

Events are filtered (hidden paths such as ``.mdmem/`` and editors' temp files,
non-Markdown files, ``opened``/``closed_no_write``), collected until the vault
has been quiet for ``debounce`` seconds, then one stat-based refresh indexes
the batch. Atomic saves (a rename onto the note) and vim's backup-rename
saves arrive as moves whose destination is the note, which pass the filter.
A failing batch is reported and the watch goes on; Ctrl-C stops it cleanly.

``on_ready`` is called once the observer runs and a catch-up refresh has indexed what changed before it
did: from then on no edit is missed, which is when ``mdmem watch`` says "watching" (it said so before the
observer started, and an edit made at once after that line could go unseen until the next one).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from mdmem.engine.memory import Memory
from mdmem.engine.refresh import RefreshResult

_IGNORED_EVENTS = {"opened", "closed_no_write"}


@dataclass(frozen=True)
class Batch:
    paths: tuple[str, ...]
    result: RefreshResult | None
    error: str | None = None


def relevant(root: str, path: str) -> bool:
    """A vault note (or a folder holding notes) outside any hidden folder."""
    if not path:
        return False
    rel = os.path.relpath(path, root)
    if rel.startswith("..") or any(part.startswith(".") for part in rel.split(os.sep)):
        return False
    name = os.path.basename(path)
    return name.lower().endswith(".md") or "." not in name


def watch(
    mem: Memory,
    debounce: float = 0.3,
    on_batch: Callable[[Batch], None] | None = None,
    stop: threading.Event | None = None,
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Run until ``stop`` is set or Ctrl-C; call ``on_ready`` once every change is seen, ``on_batch``
    after each refresh that changed something."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    root = str(mem.root)
    pending: set[str] = set()
    lock, wake = threading.Lock(), threading.Event()
    stop = stop or threading.Event()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event) -> None:
            if event.event_type in _IGNORED_EVENTS:
                return
            paths = [p for p in (event.src_path, getattr(event, "dest_path", "")) if relevant(root, p)]
            if paths:
                with lock:
                    pending.update(os.path.relpath(p, root) for p in paths)
                wake.set()

    observer = Observer()
    observer.schedule(Handler(), root, recursive=True)
    observer.start()

    def index(batch: tuple[str, ...]) -> None:
        try:
            result = mem.refresh()
            if on_batch and (result.added or result.changed or result.removed):
                on_batch(Batch(batch, result))
        except Exception as e:  # one bad batch never stops the watch
            if on_batch:
                on_batch(Batch(batch, None, f"{type(e).__name__}: {e}"))

    try:
        index(())  # what changed before the observer ran
        if on_ready:
            on_ready()
        while not stop.is_set():
            if not wake.wait(0.2):
                continue
            # debounce: wait until no event arrived for `debounce` seconds
            while wake.is_set() and not stop.is_set():
                wake.clear()
                time.sleep(debounce)
            with lock:
                batch = tuple(sorted(pending))
                pending.clear()
            index(batch)
    except KeyboardInterrupt:
        pass
    finally:
        observer.stop()
        observer.join(timeout=5)

"""When each memory was used: injected by the prompt hook or named by the SessionStart card, returned by ``recall``,
read by ``show`` or MCP ``read_note``. Derived state in ``.mdmem/usage.jsonl`` (never in the note, so using a memory never changes it):
one appended line per use, ``{"t": epoch seconds, "how": "...", "paths": [...]}``, folded into counts when read.
Appending a short line is one ``write`` with ``O_APPEND``: hooks running at once never lose each other's
lines, and nothing is locked on the hook path. Standard library only.

What it is for: the card ranks its lists by :func:`weight`, ChatCLI's (1 + ln(uses)) x exp(-days x ln2 /
half-life), and ``check`` lists memories unused for a long time as candidates to archive (never archiving).
"""

from __future__ import annotations

import math
import os
import time

from mdmem.base.fastjson import dumps, loads

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import BinaryIO

FILE = "usage.jsonl"
MAX_BYTES = 4 << 20   # a log this big is folded into one line per note when next read
HALF_LIFE_DAYS = 30.0


def _path(state_dir: str | os.PathLike[str]) -> str:
    return os.path.join(str(state_dir), FILE)


def record(state_dir: str | os.PathLike[str], paths: Iterable[object], how: str, when: float | None = None) -> None:
    """Note that the memories at ``paths`` (vault paths) were used (``how``: prompt, recall, read). Fails
    silently: a use that could not be recorded never costs the caller its answer."""
    paths = [p for p in dict.fromkeys(paths) if isinstance(p, str)]
    if not paths:
        return
    line = dumps({"t": round(when if when is not None else time.time()), "how": how, "paths": paths}) + "\n"
    from mdmem.base.state import open_log

    try:
        fd = open_log(_path(state_dir))  # (never through a link, never blocked by a FIFO planted there)
    except OSError:
        return
    try:
        os.write(fd, line.encode("utf-8"))
    except OSError:
        pass
    finally:
        os.close(fd)


CARD = "card"  # a use by the SessionStart card: counts for ``check``, not for the card's own ranking


def read(state_dir: str | os.PathLike[str], ignore: tuple[str, ...] = ()) -> dict[str, tuple[int, float]]:
    """vault path -> (uses, last use as epoch seconds); {} when nothing was recorded. ``ignore``: the kinds of use
    left out (the card ranks by what it did not cause itself: ``ignore=(CARD,)``). A log past :data:`MAX_BYTES` is
    folded into one line per note and kind of use (the counts kept).

    The log is read from where a reader left off: the counts up to there are kept beside it (:data:`SUMMARY`, with
    the log's inode, that offset and the bytes just before it, so a log folded, cut or rewritten is read whole
    again), and only the lines appended since are parsed. A months-old log of 4 MB took the card 140 ms to parse at
    every session start (decision 128)."""
    from mdmem.base.files import open_regular

    path = _path(state_dir)
    try:
        fd = open_regular(path, follow=False)  # derived state: never through a link, a FIFO never waited on
    except OSError:
        return {}
    with open(fd, "rb") as f:
        st = os.fstat(f.fileno())
        kinds, start = _summary(state_dir, st, f)
        f.seek(start)
        data = f.read(MAX_BYTES * 2)
    end = data.rfind(b"\n") + 1  # a line still being written is read next time
    fold = start + len(data) > MAX_BYTES
    keep = not fold and end >= SUMMARY_EVERY  # enough new lines: all parsed, and the counts kept
    # else a line of a kind left out, as mdmem writes it (``"how":"card"``: quotes inside a JSON string are escaped),
    # is not parsed: the card's own line at each session start is most of a log
    skip = tuple(f'"how":{dumps(k)}'.encode() for k in ignore) if not (fold or keep) else ()
    for raw in data[:end].splitlines():
        if skip and any(s in raw for s in skip):
            continue
        try:
            item = loads(raw)
            t, paths, n, how = float(item["t"]), item["paths"], int(item.get("n", 1)), str(item.get("how", ""))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a torn or foreign line: derived state, skipped
        if not isinstance(paths, list):
            continue
        each = kinds.setdefault(how, {})
        for p in paths:
            if isinstance(p, str):
                uses, last = each.get(p, (0, 0.0))
                each[p] = (uses + n, max(last, t))
    if fold:
        _fold(path, kinds)
    elif keep:
        _keep(state_dir, st, start + end, data[end - _TAIL:end], kinds)
    out: dict[str, tuple[int, float]] = {}
    for how, each in kinds.items():
        if how not in ignore:
            for p, (n, t) in each.items():
                uses, last = out.get(p, (0, 0.0))
                out[p] = (uses + n, max(last, t))
    return out


SUMMARY = "usage.sum.json"  # the log's counts up to an offset (derived from the log, made again from it when it is not)
SUMMARY_EVERY = 64 * 1024  # bytes of new lines from which a reader keeps the counts again
_TAIL = 64  # bytes before the offset kept with the counts: a log rewritten in place is read whole again


def _summary(state_dir: str | os.PathLike[str], st: os.stat_result, f: BinaryIO) -> tuple[dict, int]:
    """(kind -> path -> (uses, last), the offset of the log they stand for) as :data:`SUMMARY` keeps them when they
    were made from this very log, else ({}, 0). Read through ``f``, the log."""
    from mdmem.base.state import read_state

    kept = read_state(os.path.join(str(state_dir), SUMMARY), MAX_BYTES * 2)
    try:
        at, kinds = int(kept["offset"]), kept["each"]
        if kept["inode"] != st.st_ino or not _TAIL <= at <= st.st_size or not isinstance(kinds, dict):
            return {}, 0
        f.seek(at - _TAIL)
        if f.read(_TAIL).hex() != kept["tail"]:
            return {}, 0
        for each in kinds.values():  # the values as the reader adds to them: (int, float) pairs
            for n, t in each.values():
                if type(n) is not int or not isinstance(t, (int, float)):
                    return {}, 0
    except (KeyError, TypeError, ValueError, AttributeError, OSError):
        return {}, 0
    return kinds, at


def _keep(state_dir: str | os.PathLike[str], st: os.stat_result, offset: int, tail: bytes, kinds: dict) -> None:
    """Keep ``kinds`` as the counts of the log up to ``offset`` (never fails the reader)."""
    from mdmem.base.files import write_atomic

    data = dumps({"inode": st.st_ino, "offset": offset, "tail": tail.hex(), "each": kinds})
    try:
        write_atomic(os.path.join(str(state_dir), SUMMARY), data.encode("utf-8"), durable=False)
    except OSError:
        pass


def _fold(path: str, kinds: dict) -> None:
    lines = "".join(dumps({"t": round(last), "how": how, "paths": [p], "n": uses}) + "\n"
                    for how in sorted(kinds) for p, (uses, last) in sorted(kinds[how].items()))
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(lines)
        os.replace(tmp, path)
    except OSError:
        pass


def weight(uses: int, days: float, half_life: float = HALF_LIFE_DAYS) -> float:
    """(1 + ln(uses)) x exp(-days x ln2 / half_life): a memory used often and lately first; one never used counts
    as used once, ``days`` then being its age."""
    return (1.0 + math.log(max(uses, 1))) * math.exp(-max(days, 0.0) * math.log(2) / half_life)

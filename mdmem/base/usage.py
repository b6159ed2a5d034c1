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
    try:
        fd = os.open(_path(state_dir), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
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
    folded into one line per note and kind of use (the counts kept)."""
    path = _path(state_dir)
    each: dict[tuple[str, str], tuple[int, float]] = {}
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES * 2)
    except OSError:
        return {}
    # a line of a kind left out, as mdmem writes it (``"how":"card"``: quotes inside a JSON string are escaped), is
    # not parsed: the card's own line at each session start is most of a months-old log (unless it is folded now)
    skip = tuple(f'"how":{dumps(k)}'.encode() for k in ignore) if len(data) <= MAX_BYTES else ()
    for raw in data.splitlines():
        if skip and any(s in raw for s in skip):
            continue
        try:
            item = loads(raw)
            t, paths, n, how = float(item["t"]), item["paths"], int(item.get("n", 1)), str(item.get("how", ""))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a torn or foreign line: derived state, skipped
        if not isinstance(paths, list):
            continue
        for p in paths:
            if isinstance(p, str):
                uses, last = each.get((p, how), (0, 0.0))
                each[(p, how)] = (uses + n, max(last, t))
    if len(data) > MAX_BYTES:
        _fold(path, each)
    out: dict[str, tuple[int, float]] = {}
    for (p, how), (n, t) in each.items():
        if how not in ignore:
            uses, last = out.get(p, (0, 0.0))
            out[p] = (uses + n, max(last, t))
    return out


def _fold(path: str, counts: dict[tuple[str, str], tuple[int, float]]) -> None:
    lines = "".join(dumps({"t": round(last), "how": how, "paths": [p], "n": uses}) + "\n" for (p, how), (uses, last) in sorted(counts.items()))
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

"""MEMORY.md's token budget as text: its index lines (``- [file.md](path) — description `~NNNtk```), its
budget comment (``<!-- budget: ~NNNNtk / 40000tk (NN%) | updated: YYYY-MM-DD -->``, the first line,
refreshed only by the audit: :func:`update_budget`). The audit itself is :mod:`mdmem.ops.check`.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from mdmem.base.layout import INDEX_NAME, MEMORY_DIR
from mdmem.base.models import Note
from mdmem.text.parse import tokens_for

if TYPE_CHECKING:
    from pathlib import Path

    from mdmem.engine.memory import Memory
    from mdmem.ops.check import CheckReport

_COMMENT = re.compile(r"^\s*<!--\s*budget:.*?-->\s*$")


def percent_of(tokens: int, cap: int) -> int:
    """Whole percent, rounded half up, in integer arithmetic."""
    return (tokens * 200 + cap) // (2 * cap)


def budget_comment(tokens: int, cap: int, day: dt.date) -> str:
    return f"<!-- budget: ~{tokens}tk / {cap}tk ({percent_of(tokens, cap)}%) | updated: {day.isoformat()} -->"


def with_budget_comment(data: bytes, comment: str) -> bytes:
    """MEMORY.md's bytes with ``comment`` as the first line: an existing budget
    comment there is replaced, else the comment is inserted. Every other byte
    (a BOM, the line ending, the rest of the file) stays as it was."""
    bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
    rest = data[len(bom):]
    end = rest.find(b"\n")
    first, tail = (rest, b"") if end < 0 else (rest[:end], rest[end:])
    new = comment.encode("utf-8")
    if _COMMENT.match(first.decode("utf-8", "replace")):
        if first.endswith(b"\r"):
            new += b"\r"
        return bom + new + tail
    newline = b"\r\n" if first.endswith(b"\r") else b"\n"
    return bom + new + newline + rest


def _url(path: str) -> str:
    return path.replace("%", "%25").replace(" ", "%20").replace("(", "%28").replace(")", "%29") \
        .replace("<", "%3C").replace(">", "%3E")


def index_line(note: Note) -> str:
    """The MEMORY.md line for a note: ``- [file.md](path) — description `~NNNtk```."""
    name = posixpath.basename(note.path)
    desc = note.frontmatter.get("description")
    desc = " ".join(desc.split()) if isinstance(desc, str) and desc.strip() else note.title
    return f"- [{name}]({_url(note.path)}) — {desc} `~{note.tokens}tk`"


def update_budget(mem: Memory, report: CheckReport, today: dt.date) -> tuple[str, CheckReport]:
    """Rewrite MEMORY.md's budget comment (the audit's only write): atomically,
    under the vault's write lock, and never over a file that changed since it
    was read (:class:`~mdmem.base.errors.WriteConflict`). Returns ``"updated"``,
    ``"unchanged"`` or ``"missing"`` (no MEMORY.md: nothing is created) and the
    report with MEMORY.md's new token count."""

    from mdmem.base import files as fs
    from mdmem.base.state import write_lock

    path = mem.root / INDEX_NAME
    comment = budget_comment(report.budget.tokens, report.budget.cap, today)
    with write_lock(mem.state_dir, mem.lock_timeout):
        data, seen = fs.read_stat(mem.root, INDEX_NAME)
        if data is None:
            return "missing", report
        new = with_budget_comment(data, comment)
        if new != data:
            fs.write_atomic(path, new, expected=seen)
    budget = replace(report.budget, index_tokens=tokens_for(len(new)))
    return ("updated" if new != data else "unchanged"), replace(report, budget=budget)


def stamp_new_index(root: Path, today: dt.date, timeout: float = 10.0) -> str:
    """``mdmem init``: the MEMORY.md it has just copied from the skeleton gets the budget comment the
    audit would write today (the skeleton's own says ``~0tk`` and the day it was made). The figure is
    the audit's total, from the walk alone (no note is parsed): the notes under ``memory/`` (init
    always makes that folder), summed in bytes, ``floor(bytes / 3.2)``, against the vault's cap. Written
    like :func:`update_budget`: under the lock, atomically, never over a changed file. Returns the
    comment."""
    import os
    from pathlib import Path

    from mdmem.base import files as fs
    from mdmem.base.settings import Settings
    from mdmem.base.state import state_folder, write_lock

    scan = fs.scan(root)
    prefix = MEMORY_DIR + "/"
    total = tokens_for(sum(st[1] for path, st in scan.notes.items() if path.startswith(prefix)))
    comment = budget_comment(total, Settings.load(root).check.cap, today)
    with write_lock(Path(state_folder(root)), float(os.environ.get("MDMEM_LOCK_TIMEOUT", timeout))):
        data, seen = fs.read_stat(root, INDEX_NAME)
        if data is not None:
            new = with_budget_comment(data, comment)
            if new != data:
                fs.write_atomic(root / INDEX_NAME, new, expected=seen)
    return comment

"""The usage log read from where a reader left off (decision 128): the counts up to an offset kept beside the log, the
lines appended since parsed, the whole log read again when it was folded, cut or rewritten, and a summary that is
not mdmem's ignored."""

from __future__ import annotations

import json
import os

from mdmem.base import usage

PATHS = [f"memory/feedback/rule-{i:03}.md" for i in range(200)]


def _fill(state, lines: int = 2000, start: float = 1.7e9) -> None:
    """A log of ``lines`` uses (a card line every tenth, as a months-old log holds them)."""
    for i in range(lines):
        how = usage.CARD if i % 10 == 0 else "prompt"
        usage.record(state, [PATHS[(i * 7 + k) % len(PATHS)] for k in range(30 if how == usage.CARD else 3)], how,
                     start + 60 * i)


def _whole(state, ignore=()) -> dict:
    """What a reader makes of the whole log, no summary kept."""
    summary = state / usage.SUMMARY
    kept = summary.read_bytes() if summary.exists() else None
    if kept is not None:
        summary.unlink()
    got = usage.read(state, ignore)
    (summary.write_bytes(kept) if kept is not None else summary.unlink(missing_ok=True))
    return got


def test_the_counts_are_kept_and_only_new_lines_read(tmp_path):
    _fill(tmp_path)
    assert (tmp_path / usage.FILE).stat().st_size > usage.SUMMARY_EVERY
    first = usage.read(tmp_path, ignore=(usage.CARD,))
    kept = json.loads((tmp_path / usage.SUMMARY).read_text("utf-8"))
    assert kept["offset"] == (tmp_path / usage.FILE).stat().st_size
    assert first == _whole(tmp_path, (usage.CARD,)) and usage.read(tmp_path) == _whole(tmp_path)
    usage.record(tmp_path, [PATHS[0], "memory/new.md"], "recall", 1.8e9)
    after = usage.read(tmp_path, ignore=(usage.CARD,))
    assert after["memory/new.md"] == (1, 1.8e9) and after[PATHS[0]] == (first[PATHS[0]][0] + 1, 1.8e9)
    assert after == _whole(tmp_path, (usage.CARD,))
    # the kept counts are what is read: the log's early lines made unreadable in place (its last bytes as they
    # were) are not parsed again
    log = tmp_path / usage.FILE
    data = bytearray(log.read_bytes())
    data[:1000] = b" " * 1000
    with open(log, "r+b") as f:
        f.write(bytes(data))
    assert usage.read(tmp_path, ignore=(usage.CARD,)) == after


def test_a_log_folded_cut_or_rewritten_is_read_whole_again(tmp_path):
    _fill(tmp_path)
    usage.read(tmp_path)
    log = tmp_path / usage.FILE
    lines = log.read_bytes().splitlines(keepends=True)
    os.replace(log, tmp_path / "old.jsonl")
    log.write_bytes(b"".join(lines[:50]))  # another file (a fold, a restore): its own counts
    assert usage.read(tmp_path) == _whole(tmp_path)
    usage.read(tmp_path)
    with open(log, "r+b") as f:  # rewritten in place, the same size: its last bytes differ
        f.write(b"".join(lines[50:100])[:log.stat().st_size].ljust(log.stat().st_size, b"\n"))
    assert usage.read(tmp_path) == _whole(tmp_path)
    log.write_bytes(b"".join(lines[:3]))  # cut
    assert usage.read(tmp_path) == _whole(tmp_path) and len(usage.read(tmp_path)) == 30


def test_a_summary_that_is_not_mdmems_is_ignored(tmp_path):
    _fill(tmp_path)
    right = _whole(tmp_path)
    summary = tmp_path / usage.SUMMARY
    usage.read(tmp_path)
    kept = json.loads(summary.read_text("utf-8"))
    for bad in ({**kept, "each": {"prompt": {PATHS[0]: ["9", 1]}}}, {**kept, "each": {"prompt": {PATHS[0]: [1]}}},
                {**kept, "each": []}, {**kept, "offset": "x"}, {**kept, "tail": 7}, [1, 2], "not json"):
        summary.write_text(bad if isinstance(bad, str) else json.dumps(bad), "utf-8")
        assert usage.read(tmp_path) == right
    summary.unlink()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({**kept, "each": {"prompt": {PATHS[0]: [999, 1.0]}}}), "utf-8")
    summary.symlink_to(elsewhere)  # never read through a link
    assert usage.read(tmp_path) == right

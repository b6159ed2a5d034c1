"""Session recall on real sessions: the 105 Claude Code transcripts of eval/data/checkpoint-real imported into
sample-vault, then the hand-written questions of eval/data/session-recall/questions.json ("when did we set up
X?") asked through `mdmem recall` (a question about past conversations: sessions come by themselves). Hit@1:
the question's session is the first past session shown. Tune and held-out parts are reported apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support import ROOT

REAL = ROOT / "eval" / "data" / "checkpoint-real"
QUESTIONS = json.loads((ROOT / "eval" / "data" / "session-recall" / "questions.json").read_text(encoding="utf-8"))


def _session_id(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if '"sessionId":"' in line:
            return line.split('"sessionId":"', 1)[1].split('"', 1)[0]
    raise AssertionError(path)


def test_session_recall_hit_at_1(cli, vault: Path, isolated: Path, capsys):
    folder = isolated / ".claude" / "projects" / "real"
    folder.mkdir(parents=True)
    for f in REAL.glob("*.jsonl"):
        shutil.copy(f, folder / f.name)
    report = cli.json("import", "claude-code", "--vault", vault)
    assert len(report["items"]) >= 100
    hits: dict[str, list[bool]] = {}
    misses = []
    for part in ("tune", "heldout"):
        for question, name in QUESTIONS[part]:
            want = _session_id(REAL / name)[:8]
            out = cli.json("recall", question, "--vault", vault, "--today", "2026-12-01")
            first = out["sessions"][0]["path"] if out["sessions"] else ""
            hits.setdefault(part, []).append(want in first)
            if want not in first:
                misses.append((part, question, name, first))
    with capsys.disabled():
        for part, got in hits.items():
            print(f"\nsession recall Hit@1 {part}: {sum(got)}/{len(got)} = {sum(got) / len(got):.2f}")
        for miss in misses:
            print("miss:", *miss)
    assert sum(hits["tune"]) / len(hits["tune"]) >= 0.6
    assert sum(hits["heldout"]) / len(hits["heldout"]) >= 0.5

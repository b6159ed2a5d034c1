"""A model standing in for the checkpoint's model, second round (eval/data/checkpoint-standin/v2): one helper
answered, from only what `mdmem checkpoint --model` hands a model, the 31 real sessions of holdout8-11 (a second
one the 15 of holdout8-9); each
answer goes through the real `checkpoint propose` here, and what it keeps must be what a fresh judge judged
(v2/judgement.json). The figures the README reports are computed from that judgement, not written in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data" / "checkpoint-standin" / "v2"


def _kept(answer: Path, tmp: Path) -> list[dict]:
    vault = tmp / answer.stem
    (vault / "memory").mkdir(parents=True)
    (vault / "MEMORY.md").write_text("# Memory\n", "utf-8")
    done = subprocess.run([sys.executable, "-m", "mdmem", "checkpoint", "propose", "--session", answer.stem,
                           "--vault", str(vault), "--json"], input=answer.read_text("utf-8"),
                          capture_output=True, text=True, timeout=120, cwd=vault)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["dropped"] == [], answer.name
    return out["candidates"]


def _tally(answers: str, judgement: str, tmp: Path) -> dict[str, dict[str, int]]:
    """Per split: what propose kept of each answer, checked against the judge's list, and the judge's verdicts."""
    judged = json.loads((DATA / judgement).read_text("utf-8"))
    tally: dict[str, dict[str, int]] = {}
    for answer in sorted((DATA / answers).glob("*/*.json")):
        split, name = answer.parent.name, answer.stem
        names = [c["name"] for c in _kept(answer, tmp)]
        verdict = judged[name]
        assert verdict["split"] == split
        assert names == [c["name"] for c in verdict["candidates"]], name
        t = tally.setdefault(split, {"kept": 0, "right": 0, "borderline": 0, "wrong": 0, "found": 0, "firm": 0})
        t["kept"] += len(names)
        for c in verdict["candidates"]:
            t[c["verdict"]] += 1
        t["firm"] += len(verdict["firm"])
        t["found"] += sum(1 for f in verdict["firm"] if f["found"])
    assert sum(t["kept"] for t in tally.values()) == sum(len(v["candidates"]) for v in judged.values())
    return tally


def test_propose_keeps_what_the_judge_judged_and_the_figures_hold(tmp_path):
    tally = _tally("answers", "judgement.json", tmp_path)
    assert sorted(tally) == ["holdout10", "holdout11", "holdout8", "holdout9"]
    held = {k: tally["holdout8"][k] + tally["holdout9"][k] for k in tally["holdout8"]}
    tuned = {k: tally["holdout10"][k] + tally["holdout11"][k] for k in tally["holdout10"]}
    # never used to write the prompt (holdout8, holdout9): 9 kept, 8 right / 1 borderline / 0 wrong, firm 10/11
    assert held == {"kept": 9, "right": 8, "borderline": 1, "wrong": 0, "found": 10, "firm": 11}
    # the prompt's change was written from the first round's misses here (holdout10, holdout11): firm 9/9
    assert tuned == {"kept": 16, "right": 9, "borderline": 7, "wrong": 0, "found": 9, "firm": 9}


def test_a_second_stand_in_on_the_held_out_sessions(tmp_path):
    """Another fresh helper answered holdout8 and holdout9 alone, judged by another fresh judge: 16 kept,
    9 right / 7 borderline / 0 wrong, firm 11/11."""
    tally = _tally("answers-b", "judgement-b.json", tmp_path)
    held = {k: tally["holdout8"][k] + tally["holdout9"][k] for k in tally["holdout8"]}
    assert held == {"kept": 16, "right": 9, "borderline": 7, "wrong": 0, "found": 11, "firm": 11}

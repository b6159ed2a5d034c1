"""The checkpoint's model path on real answers: what a model (a Claude subagent standing in for the model in
the session) answered for the 42 real sessions of tests/data/checkpoint-real goes through the real CLI's
`checkpoint --model` and `propose`, and is scored against the hand judgements (scripts/eval_model_path.py).
A change to propose that drops, renames or reorders what the model wrote shows here."""

from __future__ import annotations

import tempfile
from pathlib import Path

from support import script


def test_real_model_answers_through_propose_keep_their_figures():
    ev = script("eval_model_path")
    judged = ev.json.loads(ev.JUDGEMENTS.read_text("utf-8"))
    rows: dict[str, list] = {"dev": [], "holdout3": []}
    with tempfile.TemporaryDirectory() as work:
        vault = Path(work) / "vault"
        assert ev.mdmem("init", str(vault)).returncode == 0
        for path, labels in ev.sessions():
            rows["holdout3" if labels["split"] == "holdout3" else "dev"].append(
                (path.stem, labels, ev.kept(path, vault)))
    dev, held = (ev.score(split, got, judged) for split, got in rows.items())
    # every candidate propose keeps was judged: nothing renamed, nothing new
    assert dev["unjudged"] == held["unjudged"] == []
    # the figures when the answers were judged (2026-12-01): dev 39 kept, 30 right / 2 wrong, recall 30/37,
    # 35 accepted as written, fire/silent 30/34; holdout3 7 kept, 6 right / 0 wrong, recall 6/6, 8/8
    assert (dev["candidates"], dev["right"], dev["wrong"], dev["found"], dev["reachable"]) == (39, 30, 2, 30, 37)
    assert (dev["accepted"], dev["fire_right"]) == (35, 30)
    assert (held["candidates"], held["right"], held["wrong"], held["found"], held["reachable"]) == (7, 6, 0, 6, 6)
    assert held["fire_right"] == held["sessions"] == 8

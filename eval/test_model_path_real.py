"""The checkpoint's model path on real answers: what a model (a Claude subagent standing in for the model in
the session) answered for 105 of the real sessions of eval/data/checkpoint-real goes through the real CLI's
`checkpoint --model` and `propose`, and is scored against the hand judgements (scripts/eval_model_path.py).
A change to propose that drops, renames or reorders what the model wrote shows here."""

from __future__ import annotations

from support import script


def test_real_model_answers_through_propose_keep_their_figures():
    ev = script("eval_model_path")
    judged = ev.json.loads(ev.JUDGEMENTS.read_text("utf-8"))
    scores = {split: ev.score(split, got, judged) for split, got in ev.run_all().items()}
    dev, h3, h4, h5 = scores["dev"], scores["holdout3"], scores["holdout4"], scores["holdout5"]
    # every candidate propose keeps was judged: nothing renamed, nothing new
    assert [s["unjudged"] for s in scores.values()] == [[]] * len(scores)
    # the figures when the answers were judged (2026-12-01): dev 39 kept, 30 right / 2 wrong, recall 30/37,
    # 35 accepted as written, fire/silent 30/34; holdout3 7 kept, 6 right / 0 wrong, recall 6/6, 8/8;
    # holdout4 14 kept (15 since the git-history check reads the claim), 4 right / 3 wrong, recall 4/4, 5/8;
    # holdout5 12 kept, 5 right / 4 wrong, recall 5/6, 9 accepted, 5/8
    assert (dev["candidates"], dev["right"], dev["wrong"], dev["found"], dev["reachable"]) == (39, 30, 2, 30, 37)
    assert (dev["accepted"], dev["fire_right"]) == (35, 30)
    assert (h3["candidates"], h3["right"], h3["wrong"], h3["found"], h3["reachable"]) == (7, 6, 0, 6, 6)
    assert h3["fire_right"] == h3["sessions"] == 8
    assert (h4["candidates"], h4["right"], h4["wrong"], h4["borderline"], h4["found"], h4["reachable"]) == (
        15, 4, 3, 8, 4, 4)
    assert (h4["accepted"], h4["fire_right"]) == (10, 5)
    assert (h5["candidates"], h5["right"], h5["wrong"], h5["found"], h5["reachable"]) == (12, 5, 4, 5, 6)
    assert (h5["accepted"], h5["fire_right"]) == (9, 5)
    # holdout6 and holdout7 (blind, answered with the scan prompt of commit e889801): 3 kept, 1 right / 1 wrong /
    # 1 borderline, recall 1/4, 3 accepted, 6/8; 10 kept, 5 right / 2 wrong / 3 borderline, recall 5/6, 9 accepted, 7/8
    h6, h7 = scores["holdout6"], scores["holdout7"]
    assert (h6["candidates"], h6["right"], h6["wrong"], h6["found"], h6["reachable"]) == (3, 1, 1, 1, 4)
    assert (h6["accepted"], h6["fire_right"]) == (3, 6)
    assert (h7["candidates"], h7["right"], h7["wrong"], h7["found"], h7["reachable"]) == (10, 5, 2, 5, 6)
    assert (h7["accepted"], h7["fire_right"]) == (9, 7)
    # holdout8 and holdout9 (blind, answered with the scan prompt of c989556, the rules of fdd0589 and no ① hints):
    # 5 kept, 3 right / 1 wrong / 1 borderline, recall 3/4, 5 accepted, 7/8; 8 kept, 5 right / 0 wrong / 3
    # borderline, recall 5/6, 6 accepted, 6/7
    h8, h9 = scores["holdout8"], scores["holdout9"]
    assert (h8["candidates"], h8["right"], h8["wrong"], h8["found"], h8["reachable"]) == (5, 3, 1, 3, 4)
    assert (h8["accepted"], h8["fire_right"]) == (5, 7)
    assert (h9["candidates"], h9["right"], h9["wrong"], h9["found"], h9["reachable"]) == (8, 5, 0, 5, 6)
    assert (h9["accepted"], h9["fire_right"]) == (6, 6)
    # holdout10 and holdout11 (blind, answered with the scan prompt of cef2969, the state at the end of 2026-12-01):
    # 8 kept, 3 right / 0 wrong / 5 borderline, recall 3/4, 8 accepted, 5/8; 5 kept, 4 right / 0 wrong / 1
    # borderline, recall 4/5, 5 accepted, 7/8
    h10, h11 = scores["holdout10"], scores["holdout11"]
    assert (h10["candidates"], h10["right"], h10["wrong"], h10["found"], h10["reachable"]) == (8, 3, 0, 3, 4)
    assert (h10["accepted"], h10["fire_right"]) == (8, 5)
    assert (h11["candidates"], h11["right"], h11["wrong"], h11["found"], h11["reachable"]) == (5, 4, 0, 4, 5)
    assert (h11["accepted"], h11["fire_right"]) == (5, 7)


def test_answers_after_the_rules_change_keep_their_figures():
    """holdout6 and holdout7 answered again after fdd0589's rules (a rule or correction the user stated is worth
    proposing alone; what the session wrote into the repository's docs is saved), by fresh subagents, judged by
    a fresh judge: 5 kept, 2 right / 0 wrong / 3 borderline, recall 2/4, 5 accepted, 7/8; 8 kept, 5 right /
    1 wrong / 2 borderline, recall 5/6, 8 accepted, 8/8 (nothing proposed in the 8 sessions without a firm item)."""
    ev = script("eval_model_path")
    judged = ev.json.loads((ev.HERE / "model_path" / "judgements-fdd0589.json").read_text("utf-8"))
    got_all = ev.run_all(ev.HERE / "model_path" / "answers-fdd0589")
    scores = {split: ev.score(split, got, judged) for split, got in got_all.items()}
    h6, h7 = scores["holdout6"], scores["holdout7"]
    assert h6["unjudged"] == h7["unjudged"] == []
    assert (h6["candidates"], h6["right"], h6["wrong"], h6["found"], h6["reachable"]) == (5, 2, 0, 2, 4)
    assert (h6["accepted"], h6["fire_right"]) == (5, 7)
    assert (h7["candidates"], h7["right"], h7["wrong"], h7["found"], h7["reachable"]) == (8, 5, 1, 5, 6)
    assert (h7["accepted"], h7["fire_right"]) == (8, 8)

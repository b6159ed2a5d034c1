"""``check``'s guessed duplicates put to the user's judge (decision 127), on the labelled real pairs
(eval/data/duplicates: README.md) with the recorded stand-in answers (judge-answers.jsonl): the figures decision 127
reports, computed again by scripts/judge_check.py; a change to the asking, the prompt or the guess that moves one
fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "judge_check", Path(__file__).resolve().parents[1] / "scripts" / "judge_check.py")
assert _spec and _spec.loader
judge_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(judge_check)


def test_on_the_held_back_set_the_judge_clears_the_wrong_guesses_check_makes():
    r = judge_check.measure("fresh4")
    before, left = r["guessed (no judge)"], r["left after the judge"]
    assert (before["pairs"], before["same"], before["different"]) == (51, 31, 3)
    assert (r["cleared by the judge"]["pairs"], r["cleared by the judge"]["different"]) == (6, 3)
    assert (left["same"], left["different"], left["precision"]) == (29, 0, 1.0)
    assert r["calls, first run"] == 51
    assert r["calls, second run (no note changed)"] == r["no usable answer (no recorded answer)"]["pairs"] == 10

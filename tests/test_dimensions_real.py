"""The detectors on what real people write (the misses and false alarms issue 13 lists, paraphrased),
and the offline path and the hook on the tune split of tests/data/checkpoint-real (the holdout split
is reported by scripts/eval_checkpoint.py, never asserted on here: it is not tuned on)."""

from __future__ import annotations

import pytest

from mdmem.agents import dimensions
from mdmem.agents.transcript import parse
from support import script


def found(text: str) -> dict[int, float]:
    out: dict[int, float] = {}
    for e in dimensions.detect(parse(text.encode()).messages):
        out[e.dimension] = max(out.get(e.dimension, 0), round(e.strength, 2))
    return out


@pytest.mark.parametrize("text, expected", [
    # misses: preferences, decisions and corrections said without the trigger words
    ("User: build the sheets. and whenever you build those sheets, put the region and the season on top",
     {2: 0.85}),
    ("User: Let's drop the dashboard and just render images.", {4: 0.8}),
    ("User: The runtime is new enough, so no build step.", {4: 0.8}),
    ("User: we could build that later but for now I think that just adds complexity", {4: 0.8}),
    ("User: htmx over Datastar: more mature, better documented.", {4: 0.9}),
    ("User: When the two disagree, trust the printed forms.", {2: 0.8}),
    ("User: There is already a repo, no need to create one; commit messages follow the conventional style.",
     {6: 0.85}),
    ("User: Hold off on applying those - could you trim the list first?", {6: 0.85}),
    ("Assistant: I edited the local .gitignore.\nUser: Sure, but the CLI should handle that for every user, "
     "not you editing this repo.", {6: 0.85}),
    ("User: I only want one install of you, preferably brew", {3: 0.8}),
    ("User: imports go at the top of modules, not inside of methods.", {3: 0.8}),
    ("User: Do not use it with any repositories other than acme/widgets", {3: 0.8, 6: 0.85}),
    ("User: let's make sure we're using US English everywhere please", {3: 0.8}),
    ("User: also please remember always UK english not US english.", {2: 0.85}),
    # a standing safeguard, a spelling convention (③: about the project's text)
    ("User: fix the scroll bug. make sure you do not lose my data in the database", {3: 0.8}),
    ("User: make sure you never push straight to main", {2: 0.8}),  # no tool named: a rule of behaviour
    ("User: make sure the tests pass before you commit", {}),  # a task step, not a safeguard
    ("User: please use the british spelling in the docs :)", {3: 0.8}),
    ("User: the british spelling of colour differs", {}),
    # hard-wrapped text is one sentence, not fragments
    ("User: I wrote this in my editor and it wraps\nat seventy columns, so please always run\nthe linter before "
     "you commit anything.", {3: 0.7}),
    # false alarms: trees, tables, plans, somebody else's release notes, an unapproved suggestion
    ("User: add the page\nAssistant: ok\n[tool: Write] a\nAssistant: Here is the layout:\n├── src/ ✅ done\n"
     "| step | status |\n| build | ✅ complete |", {}),
    ("Assistant: From the changelog: a new version 3.2 of requests was released last week.", {}),
    ("Assistant: Sometimes a new version is released but the Homebrew formula has not been updated yet.", {}),
    ("Assistant: Plan:\n1. Use a queue rather than polling because it scales.\n2. Ship it.", {}),
    ("Assistant: I would use a queue rather than polling because it scales.", {}),
    ("Assistant: I would use a queue rather than polling because it scales.\nUser: ok, go ahead", {4: 0.7}),
    ("User: fix it\nAssistant: x\n[tool: Bash] make\nAssistant: This runs only when creating a new session.", {}),
    ("User: fix it\nAssistant: x\n[tool: Bash] make\nAssistant: Fixed, all tests pass. Want me to commit?", {}),
    ("User: resume last session", {}),
])
def test_what_real_people_write(text: str, expected: dict[int, float]):
    assert found(text) == expected


def _eval():
    return script("eval_checkpoint")


def test_tune_split_offline_and_replay():
    """Floors a little under the figures measured when this was written (tune split, 24 sessions after
    21-34 were added: precision 0.90, recall 0.36, the replay right in 16 of 24): a change that loses
    more is a regression. Names are at most 60 characters, with no tags or ellipses."""
    report = _eval().run("tune")
    offline = report["offline"]
    assert offline["precision"] >= 0.85 and offline["recall"] >= 0.33, offline
    assert report["sessions"] == 24
    assert report["fire_right"] >= 16, [(p["file"], p["fired"]) for p in report["replay"]]
    for row in report["rows"]:
        for c in row["candidates"]:
            assert len(c["name"]) <= 60 and "…" not in c["name"] and "<" not in c["name"], c["name"]
            assert not c["name"].endswith((" the", " and", " of", " to", ",")), c["name"]
    for play in report["replay"]:
        for f in play["fired"]:
            assert f["reason_chars"] <= 6000

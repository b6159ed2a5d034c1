"""Patterns real sessions showed the detectors missing: a pick among the options the assistant offered (an interview:
④ said as "A."), and a lesson learnt twice in one session (the same failure fixed, then back).
The Stop hook in such an interview: tests/test_hook_signals.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem.agents.checkpoint import dimensions
from mdmem.agents.claude.transcript import parse

OFFER = ("Assistant: There are three ways to time the summaries:\n\n"
         "| Option | Trade-off |\n|---|---|\n"
         "| **A. At commit time** | Only committed work is summarised. |\n"
         "| **B. At every checkpoint** | More expensive, available earlier. |\n"
         "| **C. On demand** | Generated when viewing a checkpoint. |\n\n"
         "I recommend A. Which timing model do you want?\n")
LISTED = ("Assistant: The design doc is written. Would you like me to:\n"
          "1. **Keep it local** (useful as a working reference)\n"
          "2. **Move it** to a folder that is not ignored\n"
          "3. **Force-add it** despite the ignore rule\n")


def evidence(text: str, dimension: int) -> list:
    return [e for e in dimensions.detect(parse(text.encode()).messages) if e.dimension == dimension]


@pytest.mark.parametrize("answer, chosen, rejected", [
    ("A.", "At commit time", ["At every checkpoint", "On demand"]),
    ("I think B, it leaves room to customise later.", "At every checkpoint", ["At commit time", "On demand"]),
    ("option c", "On demand", ["At commit time", "At every checkpoint"]),
])
def test_a_pick_among_offered_options_is_a_decision(answer: str, chosen: str, rejected: list[str]):
    [e] = evidence(OFFER + "User: " + answer + "\n", 4)
    assert (e.index, e.speaker, e.strength) == (1, "user", 0.8)
    assert e.signal.startswith("picked option ") and e.signal.endswith(" of 3")
    assert e.detail["chosen"] == chosen and e.detail["rejected"] == rejected


def test_an_answer_in_the_options_own_words_and_the_near_misses():
    [e] = evidence(LISTED + "User: intentional - keep it local! let's go on\n", 4)
    assert e.detail["chosen"] == "Keep it local" and e.detail["rejected"] == ["Move it", "Force-add it"]
    # not an offer: a numbered report with no question
    report = LISTED.replace("Would you like me to:", "I did three things:")
    assert evidence(report + "User: A.\n", 4) == [] and evidence(report + "User: 1\n", 4) == []
    # an answer that is no label of the offer, or a new topic
    assert evidence(OFFER + "User: D.\n", 4) == []
    assert evidence(OFFER + "User: a quick question first: what does the checkpoint hold?\n", 4) == []
    # an objection to an option is no pick of it (real session 122: "Option 1 doesn't work since the commit hash
    # can change"); a pick that names what it rejects still is
    offer = LISTED.replace("Would you like me to:", "Which one would you like?")
    assert evidence(offer + "User: Option 1 doesn't work since the design doc is needed by others.\n", 4) == []
    assert evidence(OFFER + "User: B is wrong for us, it costs too much.\n", 4) == []
    [e] = evidence(OFFER + "User: I think B, not A: we need them early.\n", 4)
    assert e.detail["chosen"] == "At every checkpoint"
    # the offer is answered once: the next message is not a pick
    assert [e.index for e in evidence(OFFER + "User: A.\nUser: B.\n", 4)] == [1]


TWICE = ("User: add the orders table\nAssistant: Creating the migration.\n[tool: Bash] alembic upgrade head\n"
         "Assistant: The generated migration failed: the database could not run the ALTER on sqlite.\n"
         "[tool: Edit] migration.py\nAssistant: Fixed the migration; it applies now.\n"
         "User: now add the customers table\nAssistant: Adding it.\n[tool: Bash] alembic upgrade head\n"
         "Assistant: The generated migration failed again: sqlite cannot run the ALTER in the database.\n")


def test_a_lesson_learnt_twice_in_one_session():
    [e] = evidence(TWICE, 3)  # names a tool (sqlite): a protocol
    assert (e.speaker, e.strength, e.signal) == ("assistant", 0.7, "the same failure twice in the session")
    assert e.quote == "The generated migration failed again: sqlite cannot run the ALTER in the database."
    assert e.detail["practice"] == "The generated migration failed: the database could not run the ALTER on sqlite."
    # once is no lesson; twice in one turn is one debugging loop; the same words without "again" are not said
    first = TWICE[:TWICE.index("User: now add")]
    assert evidence(first, 3) == [] and evidence(first, 6) == []
    one_turn = TWICE.replace("User: now add the customers table\n", "")
    assert evidence(one_turn, 3) == []
    assert evidence(TWICE.replace("failed again", "failed"), 3) == []


def test_the_lesson_becomes_a_candidate_named_after_it(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "talk.md"
    source.write_text(TWICE + "User: Always answer with the conclusion first.\nAssistant: Will do.\n")
    data = cli.json("checkpoint", source, "--vault", vault)
    lesson = next(c for c in data["candidates"] if c["dimension"] == 3)
    assert lesson["type"] == "protocol"
    assert lesson["name"] == "Lesson: The generated migration failed again"
    assert lesson["description"].startswith("Failed twice in one session: The generated migration failed again")
    assert lesson["body"].startswith("First: The generated migration failed: the database could not run the ALTER "
                                     "on sqlite.\n\nAgain: The generated migration failed again")


def test_keeping_it_simple_is_no_take_up_of_an_analysis():
    """⑦ needs the user to take the analysis up; "let's keep it simple" after it is a decision (④)
    about the work, not the user adopting the framework."""
    framework = ("Assistant: Here is a framework for deciding what to cache:\n"
                 + "".join(f"{i}. Principle {i}: measure the hit rate of layer {i} before adding more cache "
                           f"and write down the trade-off for the team.\n" for i in range(1, 6)))
    assert {e.dimension for e in evidence(framework + "User: let's keep it simple for now\n", 7)} == set()
    assert [e.dimension for e in evidence(framework + "User: let's use this framework for the API\n", 7)] == [7]


def test_a_subagent_prompt_is_never_the_user_confirming(tmp_path: Path):
    """A false alarm found in a real session: Claude's own prompt to a subagent ("Exactly, keep doing that: ...")
    read as the user confirming a practice (⑥) or picking an option (④). With subagents read, it is
    assistant text (kind "prompt"); the same words typed by the user do count."""
    import json

    from mdmem.agents.claude import transcript

    def record(kind: str, text: str, **extra) -> str:
        return json.dumps({"type": kind, "message": {"role": kind, "content": text if kind == "user" else
                                                     [{"type": "text", "text": text}], "id": extra.pop("id", None)},
                           "sessionId": "s", **extra})

    offer = OFFER.removeprefix("Assistant: ")
    lines = [record("user", "compare the summary timings"), record("assistant", offer, id="a1"),
             record("user", "A. Exactly, keep doing that: one table per question.", isSidechain=True),
             record("assistant", "Noted.", id="s1", isSidechain=True)]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    messages = transcript.read(path, subagents=True).messages
    assert [m.kind for m in messages if m.text.startswith("A. Exactly")] == ["prompt"]
    assert {e.dimension for e in dimensions.detect(messages)} & {4, 6} == set()
    typed = path.read_text().replace(', "isSidechain": true', "", 1)
    path.write_text(typed)
    assert {e.dimension for e in dimensions.detect(transcript.read(path).messages)} & {4, 6} == {4, 6}

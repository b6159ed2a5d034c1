"""`mdmem checkpoint`: the offline path (a rule the user stated, nothing else), candidates, accept and skip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mdmem.agents.checkpoint import signals
from support import FIXTURES, SESSION

PT_SESSION = """User: Precisamos escolher o banco. Por que não usamos MongoDB?
Assistant: Optamos por Postgres em vez de MongoDB porque precisamos de transações entre tabelas.
User: Isso mesmo, continue explicando o trade-off antes do código.
User: A partir de agora, responda sempre em português.
"""


@pytest.mark.parametrize("text, rule", [
    # a standing rule addressed to the assistant, said so: the one thing the offline path suggests
    ("Always answer with the conclusion first.", True),
    ("Remember that you are using vscode in windows", True),
    ("from now on, always write Conventional Commits", True),
    ("ok, and never push to main without a review", True),
    ("In the future, ask before pushing.", True),
    ("also please remember always UK english not US english.", True),
    ("yeah let's update CLAUDE.md but make sure that claude should ask before running the e2e tests", True),
    ("Sempre responda em português.", True),
    ("a partir de agora, rode o pytest antes de cada commit.", True),
    ("Recuerda que el servidor corre en Windows.", True),
    # near misses: a question, a remark, a fact, a rule pasted in a code block, an aside
    ("Do you remember that bug?", False),
    ("Always run the tests?", False),
    ("never mind, it was my mistake.", False),
    ("as always, the build is slow.", False),
    ("The tests always fail on CI.", False),
    ("It never works on the first try.", False),
    ("nunca mais vou usar esse editor.", False),
    ("We chose Postgres over MySQL because we need JSONB.", False),
    ("make sure the tests pass before you push", False),
    ("you should see the output now", False),
    ("look at this:\n```\nalways use tabs\n```", False),
])
def test_only_a_rule_said_in_so_many_words_is_certain(text, rule):
    assert bool(list(signals.rules(text))) is rule


def test_checkpoint_suggests_the_rules_the_user_stated_and_nothing_else(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "talk.md"
    source.write_text(SESSION)
    out = cli("checkpoint", source, "--vault", vault).stdout
    lines = out.splitlines()
    assert lines[0] == "[Checkpoint] This conversation hit 1/7 dimensions (②). Suggested memories:"
    assert lines[-1] == 'Save which? Reply with numbers (e.g. 1,2) or "skip".'
    data = cli.json("checkpoint", source, "--vault", vault, "--session", "again")
    # the decision (SQS over Redis) and the correction are the model's to judge (--model), not guessed offline
    assert data["fired"] and data["dimensions"] == [2]
    assert [(c["type"], c["name"]) for c in data["candidates"]] == [
        ("claude-md", "Never edit files under migrations by hand"),
        ("claude-md", "From now on, keep your replies under ten lines")]
    for c in data["candidates"]:
        e = c["evidence"][0]
        assert len(e["quote"]) < 200 and e["speaker"] == "user" and e["signal"] == "stated as a standing rule"


def test_portuguese_follows_the_transcript_unless_lang_is_given(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "conversa.md"
    source.write_text(PT_SESSION)
    out = cli("checkpoint", source, "--vault", vault).stdout
    assert out.startswith("[Checkpoint de Sedimentação] Esta conversa acertou 1/7 dimensões (②), "
                          "sugestão de sedimentação:\n1. [claude-md] ② A partir de agora, responda sempre em português")
    assert out.rstrip().endswith('Salvar quais? Responda com os números (ex.: 1,2), ou "pular".')
    english = cli("checkpoint", source, "--vault", vault, "--lang", "en", "--session", "x").stdout
    assert english.startswith("[Checkpoint] This conversation hit 1/7 dimensions (②).")
    cli("checkpoint", source, "--vault", vault, "--lang", "fr", code=2)


@pytest.mark.slow
def test_silent_without_a_rule_and_nothing_stored(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "t.md"
    source.write_text("User: What time is it in Lisbon?\nAssistant: It is 14:05 there.\n")
    assert cli("checkpoint", source, "--vault", vault).stdout == \
        "[Checkpoint] This conversation hit 0/7 dimensions: nothing to suggest.\n"
    source.write_text("User: How should the worker get jobs?\nAssistant: I would use a queue rather than polling "
                      "because it scales.\nUser: ok, go ahead\n")
    data = cli.json("checkpoint", source, "--vault", vault)
    assert (data["dimensions"], data["candidates"]) == ([], [])
    assert not (vault / ".mdmem" / "checkpoints").exists()
    cli("checkpoint", "accept", "1", "--vault", vault, code=1)


def test_one_rule_alone_is_suggested(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "t.md"
    source.write_text("User: Always answer with the conclusion first.\nAssistant: Will do.\n")
    data = cli.json("checkpoint", source, "--vault", vault)
    assert data["dimensions"] == [2]
    assert [(c["type"], c["name"]) for c in data["candidates"]] == [("claude-md", "Always answer with the conclusion first")]


@pytest.mark.slow
def test_accept_and_skip(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "talk.md"
    source.write_text(SESSION)
    cli("checkpoint", source, "--vault", vault)
    result = cli.json("checkpoint", "accept", "1", "--vault", vault)
    assert result["session"] == "talk" and result["skipped"] == [2]
    assert result["accepted"][0]["status"] == "proposed" and result["accepted"][0]["path"] is None  # a CLAUDE.md line
    cli("checkpoint", "accept", "1", "--vault", vault, code=1)  # nothing pending any more
    again = cli.json("checkpoint", "accept", "1", "--vault", vault, "--session", "talk")
    assert again["accepted"][0]["message"].startswith("already saved by an earlier accept")
    data = cli.json("checkpoint", source, "--vault", vault)  # what was proposed is not proposed again
    assert data["candidates"] == [] and {d["reason"] for d in data["dropped"]} == {"already proposed in this session"}
    cli("checkpoint", "skip", "--vault", vault, code=1)  # nothing pending
    cli("checkpoint", source, "--vault", vault, "--session", "other")
    assert cli.json("checkpoint", "skip", "--vault", vault) == {"session": "other", "discarded": 2}


@pytest.mark.slow
def test_accept_runs_the_repeat_check_once_a_suggestion(cli, vault: Path):
    """``accept`` asks whether a suggestion repeats a note saved since the list was made, and ``save`` takes that
    answer as its own: the look-up (~60 ms at 10k notes) runs once a suggestion, not twice. Counted through
    Python's own profiling hook (``sys.setprofile``), nothing of mdmem's replaced."""
    import sys

    from mdmem.ops import repeats

    proposal = {"candidates": [
        {"type": "feedback", "dimension": 6, "name": "Lint before pushing",
         "description": "Run the linter before every push", "body": "Run the linter before every push."},
        {"type": "project", "dimension": 4, "name": "Atlas freeze",
         "description": "Atlas has a deploy freeze from December 20",
         "body": "Atlas has a deploy freeze from December 20 to January 3."}]}
    cli.runner.invoke(__import__("mdmem.cli.app").cli.app.app, ["checkpoint", "propose", "--vault", str(vault),
                                                               "--session", "s1"], input=json.dumps(proposal))
    calls = []

    def count(frame, event, arg):
        if event == "call" and frame.f_code is repeats._repeated.__code__:
            calls.append(frame.f_locals["body"])

    sys.setprofile(count)
    try:
        result = cli.json("checkpoint", "accept", "1,2", "--session", "s1", "--vault", vault)
    finally:
        sys.setprofile(None)
    assert [a["status"] for a in result["accepted"]] == ["created", "created"]
    assert len(calls) == 2, calls


def test_existing_rules_are_not_proposed(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "talk.md"
    source.write_text(SESSION)
    (vault / "CLAUDE.md").write_text("# Rules\n- From now on, keep your replies under ten lines.\n")
    data = cli.json("checkpoint", source, "--vault", vault, "--session", "second")
    assert {"name": "From now on, keep your replies under ten lines", "dimension": 2,
            "reason": "MEMORY.md or CLAUDE.md already says this"} in data["dropped"]


@pytest.mark.slow
def test_claude_md_rule_is_proposed_not_written(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "rules.md"
    source.write_text("User: From now on, keep your replies under ten lines.\nAssistant: Sure, I wrote that.\n"
                      "User: exactly, keep doing that.\n")
    data = cli.json("checkpoint", source, "--vault", vault)
    kinds = {c["type"]: c for c in data["candidates"]}
    assert kinds["claude-md"]["line"] == "- From now on, keep your replies under ten lines."
    n = kinds["claude-md"]["number"]
    result = cli.json("checkpoint", "accept", str(n), "--vault", vault)
    assert result["accepted"][0]["status"] == "proposed" and result["accepted"][0]["path"] is None
    assert not (vault / "CLAUDE.md").exists()


@pytest.mark.slow
def test_bad_numbers_and_inputs(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "talk.md"
    source.write_text(SESSION)
    cli("checkpoint", source, "--vault", vault)
    assert "not a candidate number (1-2)" in cli("checkpoint", "accept", "4", "--vault", vault, code=2).stderr
    cli("checkpoint", "accept", "--vault", vault, code=2)
    cli("checkpoint", "accept", "x", "--vault", vault, code=2)
    assert "transcript not found" in cli("checkpoint", tmp_path / "nope.jsonl", "--vault", vault, code=1).stderr
    (tmp_path / "notes.txt").write_text("no speakers here\n")
    assert "not a conversation" in cli("checkpoint", tmp_path / "notes.txt", "--vault", vault, code=1).stderr
    # the pending proposal is still there after all those errors
    assert json.loads((vault / ".mdmem" / "checkpoints" / "talk.json").read_text())["status"] == "pending"


def test_stdin_and_real_transcripts(cli, vault: Path):
    paths = sorted((FIXTURES / "transcripts").glob("*.jsonl"))
    assert len(paths) == 3  # the loop below must not pass over nothing
    for path in paths:
        data = cli.json("checkpoint", path, "--vault", vault)
        assert data["messages"] > 0 and data["malformed"] == 0
        assert data["dimensions"] == [] and data["candidates"] == []  # short technical sessions: silent
    result = cli.runner.invoke(__import__("mdmem.cli.app").cli.app.app, ["checkpoint", "-", "--vault", str(vault)],
                               input=SESSION)
    assert result.exit_code == 0 and result.stdout.startswith("[Checkpoint] This conversation hit 1/7")

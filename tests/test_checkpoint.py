"""`mdmem checkpoint`: the seven dimensions on small conversations, candidates, accept and skip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mdmem.agents.checkpoint import dimensions
from mdmem.agents.claude.transcript import parse
from support import FIXTURES, SESSION

PT_SESSION = """User: Precisamos escolher o banco. Por que não usamos MongoDB?
Assistant: Optamos por Postgres em vez de MongoDB porque precisamos de transações entre tabelas.
User: Isso mesmo, continue explicando o trade-off antes do código.
User: A partir de agora, responda sempre em português.
"""


def dims(text: str) -> dict[int, list]:
    return dimensions.hits(dimensions.detect(parse(text.encode()).messages))


@pytest.mark.parametrize("text, expected", [
    # ① closure needs tool work and proof; a question or a failure is not one
    ("User: fix the login bug\nAssistant: On it.\n[tool: Edit] a.py\n[tool: Bash] pytest\n"
     "Assistant: Fixed: all 12 tests pass now.", {1}),
    ("User: fix the login bug\nAssistant: Fixed, all tests pass.", set()),  # no tool work
    ("User: fix the login bug\nAssistant: x\n[tool: Bash] pytest\nAssistant: Done, but 2 tests still fail.", set()),
    ("User: conserte o login\nAssistant: Vou ver.\n[tool: Bash] pytest\nAssistant: Pronto, todos os testes passando.",
     {1}),
    # ② a general rule; ③ a rule with a tool, file type or path; near misses are neither
    ("User: Always answer with the conclusion first.", {2}),
    ("User: never mind, it was my mistake.", set()),
    ("User: as always, the build is slow.", set()),
    ("User: Sempre responda em português.", {2}),
    ("User: nunca mais vou usar esse editor.", set()),
    ("User: Always run ruff before committing .py files.", {3}),
    ("User: a partir de agora, rode o pytest antes de cada commit.", {3}),
    # ④ a choice with its reason or alternative; a question about a decision is not one
    ("Assistant: We chose Postgres over MySQL because we need JSONB.", {4}),
    ("User: Why did we choose Postgres over MySQL?", set()),
    ("User: Should we use SQLite instead of Postgres?", set()),
    ("Assistant: Decidimos usar SQLite em vez de Postgres porque o app é local.", {4}),
    # ⑤ a milestone reached; a plan is not one
    ("Assistant: Released v2.3.0 to PyPI.", {5}),
    ("User: We will release v2.3.0 next week.", set()),
    ("User: Subiu para produção a versão 1.4 hoje.", {5}),
    ("User: vamos lançar na semana que vem.", set()),
    # ⑥ a correction or a confirmation of a practice; small talk is not one
    ("Assistant: I added comments everywhere.\nUser: Stop adding comments to every line.", {6}),
    ("Assistant: Here is the short version.\nUser: exactly, keep doing that.", {6}),
    ("Assistant: Sorry for the delay.\nUser: no problem, don't worry about it.", set()),
    ("Assistant: Fiz o commit.\nUser: não faça commit sem me perguntar.", {6}),
])
def test_each_dimension_and_its_near_misses(text, expected):
    assert set(dims(text)) == expected


def test_analysis_needs_structure_and_the_user_taking_it_up():
    framework = ("Assistant: Here is a framework for deciding what to cache:\n"
                 + "".join(f"{i}. Principle {i}: measure the hit rate of layer {i} before adding more cache "
                           f"and write down the trade-off for the team.\n" for i in range(1, 6)))
    assert set(dims(framework + "User: This is great, let's use this framework for the API too.")) == {7}
    assert set(dims(framework + "User: not useful, thanks.")) == set()
    assert set(dims(framework)) == set()


def test_checkpoint_suggests_strongest_first_at_most_three(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "talk.md"
    source.write_text(SESSION)
    out = cli("checkpoint", source, "--vault", vault).stdout
    lines = out.splitlines()
    assert lines[0] == "[Checkpoint] This conversation hit 4/7 dimensions (②③④⑥). Suggested memories:"
    assert lines[1].startswith("1. [decision] ④ Chose SQS over Redis — SQS over Redis: it is managed")
    assert lines[-1] == 'Save which? Reply with numbers (e.g. 1,2) or "skip".'
    numbered = [ln for ln in lines if ln[:2] in ("1.", "2.", "3.", "4.")]
    assert [ln.split("]")[0] for ln in numbered] == ["1. [decision", "2. [feedback", "3. [protocol"]
    data = cli.json("checkpoint", source, "--vault", vault, "--session", "again")
    assert data["fired"] and data["dimensions"] == [2, 3, 4, 6] and len(data["candidates"]) == 3
    assert data["dropped"] == [{"name": "From now on, keep your replies under ten lines", "dimension": 2,
                                "reason": "only 3 candidates at a time"}]
    protocol = data["candidates"][2]
    assert protocol["paths"] == ["migrations/**"] and protocol["dimension"] == 3
    for c in data["candidates"]:
        e = c["evidence"][0]
        assert len(e["quote"]) < 200 and e["speaker"] in ("user", "assistant") and e["signal"]


def test_portuguese_follows_the_transcript_unless_lang_is_given(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "conversa.md"
    source.write_text(PT_SESSION)
    out = cli("checkpoint", source, "--vault", vault).stdout
    assert out.startswith("[Checkpoint de Sedimentação] Esta conversa acertou 3/7 dimensões (②④⑥), "
                          "sugestão de sedimentação:\n1. [decision] ④ Escolhemos Postgres em vez de MongoDB")
    assert out.rstrip().endswith('Salvar quais? Responda com os números (ex.: 1,2), ou "pular".')
    english = cli("checkpoint", source, "--vault", vault, "--lang", "en", "--session", "x").stdout
    assert english.startswith("[Checkpoint] This conversation hit 3/7 dimensions (②④⑥).")
    cli("checkpoint", source, "--vault", vault, "--lang", "fr", code=2)


@pytest.mark.slow
def test_silent_below_two_dimensions_and_nothing_stored(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "t.md"
    source.write_text("User: What time is it in Lisbon?\nAssistant: It is 14:05 there.\n")
    assert cli("checkpoint", source, "--vault", vault).stdout == \
        "[Checkpoint] This conversation hit 0/7 dimensions: nothing to suggest.\n"
    # one dimension, hit by a weak piece only (an assistant's suggestion the user let through: 0.7)
    source.write_text("User: How should the worker get jobs?\nAssistant: I would use a queue rather than polling "
                      "because it scales.\nUser: ok, go ahead\n")
    data = cli.json("checkpoint", source, "--vault", vault)
    assert (data["dimensions"], data["candidates"]) == ([4], [])
    assert not (vault / ".mdmem" / "checkpoints").exists()
    cli("checkpoint", "accept", "1", "--vault", vault, code=1)


def test_one_strong_rule_alone_is_suggested(cli, vault: Path, tmp_path: Path):
    """A rule, decision or correction at 0.8 or more is a suggestion on its own (candidates.ALONE)."""
    source = tmp_path / "t.md"
    source.write_text("User: Always answer with the conclusion first.\nAssistant: Will do.\n")
    data = cli.json("checkpoint", source, "--vault", vault)
    assert data["dimensions"] == [2]
    assert [(c["type"], c["name"]) for c in data["candidates"]] == [("claude-md", "Always answer with the conclusion first")]


@pytest.mark.slow
def test_accept_saves_through_save_and_skip_discards(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "talk.md"
    source.write_text(SESSION)
    cli("checkpoint", source, "--vault", vault)
    before = (vault / "MEMORY.md").read_text()
    result = cli.json("checkpoint", "accept", "1,3", "--vault", vault)
    assert result["session"] == "talk" and result["skipped"] == [2]
    (decision, protocol) = result["accepted"]
    assert decision["status"] == "created" and decision["path"] == "memory/decisions/decision-chose-sqs-over-redis.md"
    assert protocol["status"] == "created" and protocol["path"].startswith("memory/protocols/")
    note = cli.json("show", decision["path"], "--vault", vault)
    assert note["frontmatter"]["chosen"] == "SQS" and note["frontmatter"]["rejected"] == ["Redis"]
    assert note["frontmatter"]["type"] == "decision" and "checkpoint" in note["frontmatter"]["tags"]
    assert cli.json("show", protocol["path"], "--vault", vault)["frontmatter"]["paths"] == ["migrations/**"]
    after = (vault / "MEMORY.md").read_text()
    assert decision["path"] in after and protocol["path"] in after and after.startswith(before.splitlines()[0])
    # nothing pending any more; the same session again: save's own dedupe says "unchanged"
    cli("checkpoint", "accept", "1", "--vault", vault, code=1)
    again = cli.json("checkpoint", "accept", "1", "--vault", vault, "--session", "talk")
    assert again["accepted"][0]["status"] == "unchanged"
    # a new checkpoint of the same talk: what was saved is not proposed again
    data = cli.json("checkpoint", source, "--vault", vault)
    assert "Chose SQS over Redis" not in [c["name"] for c in data["candidates"]]
    assert {"name": "Chose SQS over Redis", "dimension": 4, "reason": "already proposed in this session"} \
        in data["dropped"]
    skipped = cli.json("checkpoint", "skip", "--vault", vault)
    assert skipped == {"session": "talk", "discarded": len(data["candidates"])}
    cli("checkpoint", "skip", "--vault", vault, code=1)


def test_existing_notes_and_index_lines_are_not_proposed(cli, vault: Path, tmp_path: Path):
    source = tmp_path / "talk.md"
    source.write_text(SESSION)
    (vault / "MEMORY.md").write_text((vault / "MEMORY.md").read_text()
                                     + "- [q.md](memory/decisions/q.md) — SQS over Redis: managed, no ops team\n")
    data = cli.json("checkpoint", source, "--vault", vault)
    assert {"name": "Chose SQS over Redis", "dimension": 4, "reason": "MEMORY.md or CLAUDE.md already says this"} \
        in data["dropped"]
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
    assert "not a candidate number (1-3)" in cli("checkpoint", "accept", "4", "--vault", vault, code=2).stderr
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
        assert len(data["dimensions"]) <= 1 and data["candidates"] == []  # short technical sessions: silent
    result = cli.runner.invoke(__import__("mdmem.cli.app").cli.app.app, ["checkpoint", "-", "--vault", str(vault)],
                               input=SESSION)
    assert result.exit_code == 0 and result.stdout.startswith("[Checkpoint] This conversation hit 4/7")

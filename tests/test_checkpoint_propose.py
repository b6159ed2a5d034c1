"""The model's side of the checkpoint: `checkpoint propose` (JSON candidates on stdin), the MCP tool
`checkpoint_propose`, `checkpoint --model CMD` with a stand-in model, the scan prompt and the memory
protocol."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from mdmem.agents.checkpoint import consolidate as cp
from support import SESSION

GOOD = {"dimensions": [3, 4, 6], "candidates": [
    {"type": "protocol", "dimension": 3, "name": "Python imports at the top of modules",
     "description": "No imports inside functions, not even for CLI subcommands",
     "body": "Imports go at the top of modules, never inside methods.\nWhy: the user asked, twice.",
     "paths": ["**/*.py"]},
    {"type": "decision", "dimension": 4, "name": "Review tool stack: htmx over Datastar",
     "description": "Server-rendered Jinja2 + htmx; Datastar rejected",
     "body": "htmx is more mature and better documented; partial swaps fit the two-panel UI.",
     "chosen": "htmx", "rejected": ["Datastar,"]},
    {"type": "feedback", "dimension": 6, "name": "Fix ignore rules in the CLI, not in the local repo",
     "description": "Runtime files get ignored by the CLI for every user",
     "body": "When the tool's own files need ignoring, change the CLI so every user gets it."},
]}


def propose(cli, vault: Path, data, *args: str, code: int = 0):
    raw = data if isinstance(data, str) else json.dumps(data)
    result = cli.runner.invoke(__import__("mdmem.cli.app").cli.app.app,
                               ["checkpoint", "propose", "--vault", str(vault), *args], input=raw)
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    return result


@pytest.mark.slow
def test_propose_prints_the_numbered_list_and_accept_saves(cli, vault: Path):
    out = propose(cli, vault, GOOD, "--session", "s1").stdout
    assert out == (
        "[Checkpoint] This conversation hit 3/7 dimensions (③④⑥). Suggested memories:\n"
        "1. [protocol] ③ Python imports at the top of modules — No imports inside functions, not even for CLI "
        "subcommands\n"
        "   paths: **/*.py\n"
        "2. [decision] ④ Review tool stack: htmx over Datastar — Server-rendered Jinja2 + htmx; Datastar rejected\n"
        "   chosen: htmx; rejected: Datastar\n"
        "3. [feedback] ⑥ Fix ignore rules in the CLI, not in the local repo — Runtime files get ignored by the CLI "
        "for every user\n"
        "Save which? Reply with numbers (e.g. 1,2) or \"skip\".\n")
    stored = json.loads((vault / ".mdmem" / "checkpoints" / "s1.json").read_text())
    assert stored["status"] == "pending" and stored["source"] == "model"
    result = cli.json("checkpoint", "accept", "1,2", "--vault", vault, "--session", "s1")
    protocol, decision = result["accepted"]
    assert protocol["status"] == "created" and protocol["path"].startswith("memory/protocols/")
    assert cli.json("show", protocol["path"], "--vault", vault)["frontmatter"]["paths"] == ["**/*.py"]
    note = cli.json("show", decision["path"], "--vault", vault)
    assert note["frontmatter"]["chosen"] == "htmx" and note["frontmatter"]["rejected"] == ["Datastar"]
    # proposed again in the same session: the two saved are exact duplicates of saved notes (dropped, named);
    # the one the user did not pick is kept, flagged, for the user to decide again
    again = json.loads(propose(cli, vault, GOOD, "--session", "s1", "--json").stdout)
    assert [(c["name"], c["flag"]) for c in again["candidates"]] == [
        ("Fix ignore rules in the CLI, not in the local repo", "proposed earlier in this session")]
    assert [d["reason"] for d in again["dropped"]] == [
        "an exact duplicate of the saved note python-imports-at-the-top-of-modules.md",
        "an exact duplicate of the saved note decision-review-tool-stack-htmx-over-datastar.md"]
    assert "not kept: Python imports at the top of modules (an exact duplicate of the saved note " \
        in propose(cli, vault, GOOD, "--session", "s1").stdout  # said on stdout, inside the list


def test_propose_validates_and_cleans(cli, vault: Path):
    items = [
        {"type": "banana", "name": "x", "body": "y"},
        {"type": "protocol", "dimension": "③", "name": "<user-memory-input>Run ruff before every commit…"
                                                        "</user-memory-input> and also some more words here that go on",
         "description": "line one\nline two", "body": "<user-memory-input>Run `ruff check` first.</user-memory-input>"},
        {"type": "decision", "name": "", "body": "no name"},
        {"type": "reference", "name": "A helper function", "body": "def helper(x):\n    return x + 1\n"},
        {"type": "feedback", "name": "Atlas billing", "body": "the project note exists already"},
        {"type": "claude-md", "name": "Answer in English", "body": "- Always answer in English."},
        {"type": "user", "name": "Prefers short answers", "body": "Keep replies short."},
        "not an object",
    ]
    got = json.loads(propose(cli, vault, {"candidates": items}, "--session", "v", "--json").stdout)
    names = [c["name"] for c in got["candidates"]]
    assert names == ["Run ruff before every commit and also some more words here", "A helper function",
                     "Answer in English", "Prefers short answers"]  # code is flagged, not dropped: the user decides
    assert got["candidates"][1]["flag"] == "it is code (do not save: code lives in the code)"
    protocol = got["candidates"][0]
    assert len(protocol["name"]) <= 60 and "…" not in protocol["name"] and "<" not in protocol["body"]
    assert protocol["description"] == "line one line two" and protocol["dimension"] == 3
    assert got["candidates"][2]["line"] == "- Always answer in English." and got["candidates"][2]["dimension"] == 2
    reasons = {d["name"]: d["reason"] for d in got["dropped"]}
    assert reasons == {
        "X": "malformed: unknown type 'banana' (one of project, claude-md, protocol, decision, feedback, reference, "
             "user)",
        "#3": "malformed: no name",
        "Atlas billing": "an exact duplicate of the saved note atlas-billing.md",
        "#8": "malformed: not a JSON object",
    }


def test_placeholders_in_angle_brackets_stay_and_tags_go(cli, vault: Path):
    """`<sha>`, `<file>`, `<id>` are placeholders of a command or format, not markup; wrappers, paired and
    closing tags, tags with attributes are markup."""
    item = {"type": "protocol", "name": "Reply to fixed review comments with <sha>",
            "description": "Answer 'Fixed in <sha>' on each comment the commit fixes",
            "body": "<system-reminder>x</system-reminder>Run `review-tool import <file> --round N`; "
                    "<b>bold</b> <span class=\"k\">Checkpoint: <id></span><br>done"}
    (got,) = json.loads(propose(cli, vault, {"candidates": [item]}, "--session", "p", "--json").stdout)["candidates"]
    assert got["name"] == "Reply to fixed review comments with <sha>"
    assert got["description"] == "Answer 'Fixed in <sha>' on each comment the commit fixes"
    assert got["body"].split("\n\n")[0] == "xRun `review-tool import <file> --round N`; bold Checkpoint: <id>done"


def test_task_state_is_read_in_the_claim_not_in_the_reasons(cli, vault: Path):
    """A model's body says why a rule matters ("… in this session") and how to apply it ("git log --all"):
    no task state, no git history; a name or description that is ("fixing … right now", a commit) is."""
    items = [{"type": "protocol", "name": "Pack rocks with --destructive-mode on CI runners",
              "description": "LXD is not usable on hosted runners",
              "body": "Use sudo --destructive-mode.\nWhy: each of these cost a failed CI round trip in this session."},
             {"type": "feedback", "name": "Fixing the flaky test right now", "body": "Rerun it."},
             {"type": "feedback", "name": "The flaky login test", "description": "half done: rerun it next",
              "body": "Rerun it."},
             {"type": "feedback", "name": "Look for an existing fix before fixing a bug",
              "description": "Another branch may already fix it: link the issues instead",
              "body": "How to apply: search recent branches and PRs for the same fix (git log --all)."},
             {"type": "reference", "name": "Fixed in 5457fb4e", "body": "The merge."}]
    got = json.loads(propose(cli, vault, {"candidates": items}, "--session", "t", "--json").stdout)
    assert got["dropped"] == []  # the model judges; mdmem flags what it doubts and the user decides
    assert {c["name"]: c["flag"] for c in got["candidates"]} == {
        "Pack rocks with --destructive-mode on CI runners": None,
        "Fixing the flaky test right now": "it is task state (do not save: stale by the next session)",
        "The flaky login test": "it is task state (do not save: stale by the next session)",
        "Look for an existing fix before fixing a bug": None,
        "Fixed in 5457fb4e": "it is git history (do not save: `git log` keeps it)"}


@pytest.mark.slow
def test_propose_reads_json_inside_prose_and_refuses_garbage(cli, vault: Path):
    wrapped = "Here are my candidates:\n```json\n" + json.dumps(GOOD) + "\n```\nLet me know."
    assert len(json.loads(propose(cli, vault, wrapped, "--json").stdout)["candidates"]) == 3
    assert "no JSON candidates found" in propose(cli, vault, "nothing here", code=2).stderr
    assert "no candidates" in propose(cli, vault, "", code=2).stderr
    # nothing left after the checks: nothing stored, a quiet line
    quiet = propose(cli, vault, {"dimensions": [], "candidates": []}, "--session", "q").stdout
    assert quiet == "[Checkpoint] This conversation hit 0/7 dimensions: nothing to suggest.\n"
    assert not (vault / ".mdmem" / "checkpoints" / "q.json").exists()


def test_propose_in_portuguese(cli, vault: Path):
    out = propose(cli, vault, GOOD, "--session", "pt", "--lang", "pt").stdout
    assert out.startswith("[Checkpoint de Sedimentação] Esta conversa acertou 3/7 dimensões (③④⑥), "
                          "sugestão de sedimentação:\n1. [protocol] ③ Python imports at the top of modules")
    assert "   escolha: htmx; rejeitado: Datastar\n" in out
    assert out.endswith('Salvar quais? Responda com os números (ex.: 1,2), ou "pular".\n')


@pytest.mark.slow
def test_model_command_answers_through_propose(cli, vault: Path, tmp_path: Path):
    """A stand-in for `claude -p` / `llm`: it checks what it was given and answers JSON."""
    model = tmp_path / "model.py"
    seen = tmp_path / "seen.txt"
    model.write_text(textwrap.dedent(f"""\
        import json, sys
        text = sys.stdin.read()
        open({str(seen)!r}, "w").write(text)
        assert text.startswith("[mdmem checkpoint] Before you stop")
        assert "Answer with JSON only" in text and "checkpoint propose" not in text
        # the answer line says what "say nothing" is and what each field holds
        assert 'means answering {{"dimensions": [], "candidates": []}}' in text
        assert "name: the subject in at most 60 characters" in text and "chosen, rejected (decision only)" in text
        assert "[msg 5 · user]" in text and "don't paste the whole diff" in text
        print("Sure! " + json.dumps({{"dimensions": [4, 6], "candidates": [
            {{"type": "decision", "dimension": 4, "name": "Sync queue: SQS over Redis",
              "description": "Managed, and nobody runs Redis here", "body": "SQS: managed, no ops team.",
              "chosen": "SQS", "rejected": ["Redis"]}},
            {{"type": "feedback", "dimension": 6, "name": "Say which files changed, not the diff",
              "description": "No whole diffs pasted back", "body": "List the changed files."}}]}}))
        """))
    talk = tmp_path / "talk.md"
    talk.write_text(SESSION)
    out = cli("checkpoint", talk, "--vault", vault, "--model", f"{sys.executable} {model}").stdout
    assert out.splitlines()[:2] == ["[Checkpoint] This conversation hit 2/7 dimensions (④⑥). Suggested memories:",
                                    "1. [decision] ④ Sync queue: SQS over Redis — Managed, and nobody runs Redis here"]
    prompt = seen.read_text()
    assert "mdmem's hints" in prompt and "- ② msg 2 (user)" in prompt and len(prompt) < 20_000  # the rules stated
    stored = json.loads((vault / ".mdmem" / "checkpoints" / "talk.json").read_text())
    assert stored["source"] == "model" and len(stored["candidates"]) == 2
    # a command that fails, or is not there: one line, exit 1
    bad = tmp_path / "bad.py"
    bad.write_text("import sys; sys.stderr.write('quota exceeded\\n'); sys.exit(3)\n")
    err = cli("checkpoint", talk, "--vault", vault, "--model", f"{sys.executable} {bad}", code=1).stderr
    assert err.strip().endswith("exited with 3: quota exceeded") and err.count("\n") == 1
    assert "command not found: no-such-model-cli" in cli("checkpoint", talk, "--vault", vault, "--model",
                                                         "no-such-model-cli -p", code=1).stderr


@pytest.mark.slow
def test_mcp_checkpoint_propose(vault: Path):
    import anyio
    from mcp import Client

    from mdmem.mcp_server import build_server

    async def go():
        async with Client(build_server(vault), mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            schema = tools["checkpoint_propose"].input_schema
            assert schema["required"] == ["candidates"] and tools["checkpoint_propose"].annotations.read_only_hint \
                is False
            result = await client.call_tool("checkpoint_propose", {"candidates": GOOD["candidates"][:2],
                                                                   "dimensions": [3, 4], "session": "m1"})
            assert not result.is_error, result.content[0].text
            got = json.loads(result.content[0].text)
            assert got["fired"] and [c["number"] for c in got["candidates"]] == [1, 2]
            assert got["text"].startswith("[Checkpoint] This conversation hit 2/7 dimensions (③④).")
            accepted = json.loads((await client.call_tool("checkpoint_accept", {"numbers": "2", "session": "m1"}))
                                  .content[0].text)
            assert accepted["accepted"][0]["status"] == "created"

    anyio.run(go)


def test_scan_prompt_is_bounded_and_names_what_exists(vault: Path):
    from mdmem.agents.checkpoint.evidence import Evidence

    known = cp.Known.read(vault)
    evidence = [Evidence(3, 7, "user", "x" * 400, "always/never + tool 'ruff'", 0.85)] * 40
    prompt = cp.scan_prompt("sess", vault, known=known, evidence=evidence, topic=["integer cents money"],
                            run="mdmem")
    assert len(prompt) <= cp.PROMPT_MAX
    memory = prompt[prompt.index("Existing memory"):prompt.index("mdmem's hints (")]
    assert memory.splitlines()[1] == "- money-handling.md — integer cents, half-even, never float (Atlas code)"
    assert "(and " in memory  # the rest counted, not listed
    assert prompt.count("③ msg 7") == 1  # one hint per message and dimension
    assert "mdmem checkpoint propose --session sess --vault " in prompt


def test_task_closure_is_no_hint_for_the_model(vault: Path):
    """The prompt says finishing the task is not enough by itself: a ① "Done" is no hint; a ③ rule is."""
    from mdmem.agents.checkpoint.evidence import Evidence

    evidence = [Evidence(1, 9, "assistant", "Done: all 48 tests pass.", "closing report", 0.9),
                Evidence(3, 4, "user", "never run the migrations against the shared database", "never + scope", 0.85)]
    lines = cp.hint_lines(evidence)
    assert lines == ['- ③ msg 4 (user): "never run the migrations against the shared database" [never + scope]']
    assert cp.hint_lines(evidence[:1]) == []


def test_memory_protocol_is_short_and_byte_stable():
    en = cp.memory_protocol()
    assert en == cp.memory_protocol() and len(en) < 1200 and en.startswith("## Memory protocol (mdmem)\n")
    assert "`mdmem checkpoint propose`" in en and "more than 15 tool calls" in en and "consolidate" in en
    pt = cp.memory_protocol("pt", run="/opt/bin/mdmem")
    assert pt.startswith("## Protocolo de memória (mdmem)\n") and "`/opt/bin/mdmem checkpoint propose --lang pt`" in pt
    assert len(pt) < 1200 and cp.memory_protocol("fr") == en


@pytest.mark.parametrize("text, name", [
    ("ok, also please remember always UK english not US english.", "Always UK english not US english"),
    ("Delivered: <user-memory-input>This is a great discussion about how we should structure the "
     "whole billing migration…</user-memory-input>", "Delivered: This is a great discussion about how we should"),
    ("based on feedback we are changing the spelling from summarise to summarize - let's make sure we're using "
     "US English everywhere please", "Based on feedback we are changing the spelling"),
    ("**htmx** over Datastar: more mature, better documented", "Htmx over Datastar: more mature, better documented"),
    # no cut clause left dangling: a conjunction, or a modal after "and"
    ("The strict mode option makes the wrapper script fail if the env file mentions an undefined variable",
     "The strict mode option makes the wrapper script fail"),
    ("The validation package is critical for security and should have its own unit tests for each of the edge "
     "cases", "The validation package is critical for security"),
])
def test_titles_say_the_subject_in_whole_words(text: str, name: str):
    got = cp.title(text)
    assert got == name and len(got) <= 60 and "…" not in got and "<" not in got


def test_scan_prompt_in_portuguese_is_bounded_and_byte_stable(vault: Path):
    from mdmem.agents.checkpoint.evidence import Evidence

    known = cp.Known.read(vault)
    evidence = [Evidence(3, 7, "user", "x" * 400, "always/never + tool 'ruff'", 0.85)] * 40
    args = dict(known=known, evidence=evidence, topic=["centavos inteiros dinheiro"], run="mdmem",
                why="a rule, decision or correction was said, 16 tool calls since the last checkpoint")
    pt = cp.scan_prompt("sess", vault, lang="pt", **args)
    assert pt == cp.scan_prompt("sess", vault, lang="pt", **(args | {"known": cp.Known.read(vault)}))  # same bytes
    assert len(pt) <= cp.PROMPT_MAX
    assert pt.startswith("[mdmem checkpoint] Antes de parar, revise esta conversa pelas sete dimensões abaixo")
    assert "| 4 | Decisão de arquitetura | uma escolha não óbvia" in pt and "Não salve: padrões de código" in pt
    assert "Regras: 0-1 dimensão atingida → não faça nada e não diga nada (apenas pare), exceto uma regra ou correção" in pt
    assert "terminar esta tarefa (1) não basta por si" in pt
    assert "Memória existente (não duplique; as mais relacionadas primeiro):\n- " in pt and "\n(e mais " in pt
    assert "Pistas do mdmem (msg = a contagem de mensagens da sessão feita pelo mdmem):\n- ③ msg 7 (user)" in pt
    assert "Por que agora: foi dita uma regra, decisão ou correção, 16 chamadas de ferramenta desde o último " \
           "checkpoint." in pt
    assert "mdmem checkpoint propose --session sess --vault " in pt and " --lang pt <<'JSON'" in pt
    assert "`mdmem checkpoint skip --session sess --vault " in pt
    for english in ("Before you stop", "Existing memory", "mdmem's hints", "Why now", "Do not save"):
        assert english not in pt
    # the English prompt is unchanged by the option, and the answer part can be left out (for --model)
    en = cp.scan_prompt("sess", vault, **args)
    assert en.startswith("[mdmem checkpoint] Before you stop") and "Why now: a rule, decision or correction" in en
    bare = cp.scan_prompt("sess", vault, lang="pt", answer=False, **args)
    assert "checkpoint propose" not in bare and pt.startswith(bare)


def test_the_model_command_speaks_portuguese(cli, vault: Path, tmp_path: Path):
    """A Portuguese conversation: `checkpoint --model` hands the command the Portuguese scan prompt
    (the Stop hook's: tests/test_hook_signals.py)."""
    model = tmp_path / "model.py"
    seen = tmp_path / "seen.txt"
    model.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(sys.stdin.read())\n"
                     "print('{\"dimensions\": [], \"candidates\": []}')\n")
    talk = tmp_path / "conversa.md"
    talk.write_text("User: A partir de agora, rode o pytest antes de cada commit.\n"
                    "Assistant: Optamos por Postgres em vez de MongoDB porque precisamos de transações.\n")
    cli("checkpoint", talk, "--vault", vault, "--model", f"{sys.executable} {model}")
    prompt = seen.read_text()
    assert prompt.startswith("[mdmem checkpoint] Antes de parar") and "checkpoint propose" not in prompt
    assert "Responda só com JSON, sem texto. \"Não faça nada" in prompt and "\n\n--- A conversa ---\n\n[msg 0 · " in prompt


KEY = "AKIA" + "QM7RZ2LK9TW4XB8N"  # a made-up value of the AWS access key ID's documented shape
WITH_KEY = {"dimensions": [3, 6], "candidates": [
    {"type": "reference", "dimension": 3, "name": "Staging deploy key", "description": "The key the staging deploy uses",
     "body": f"The staging deploy signs in with {KEY} (a throwaway sandbox key)."},
    {"type": "feedback", "dimension": 6, "name": "Say which files changed, not the diff",
     "description": "No whole diffs pasted back", "body": "List the changed files."}]}



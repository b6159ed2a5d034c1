"""``check`` asks the user's judge about its duplicates guessed by meaning (decision 127), through the real CLI and
MCP server on a copy of sample-vault. The judge is a real program (a Python script) that counts its calls and
answers by a word of the prompt, from a file the test writes; mdmem's own parts are not replaced."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

PAIRS = {  # a word of the pair -> (the older note, the newer one): each pair a duplicate guessed by meaning
    "linter": ("Run the linter before every commit to the main branch",
               "Always run the linter before committing to the main branch"),
    "pnpm": ("Use pnpm for installing packages in the web app", "Install the web app's packages with pnpm"),
    "migrations": ("Keep database migrations backwards compatible for one release",
                   "Database migrations stay backwards compatible for one release"),
    "imperative": ("Write commit messages in the imperative mood", "Commit messages are written in the imperative mood"),
}


def notes(vault: Path, *words: str) -> dict[str, tuple[str, str]]:
    """The pairs of ``words`` written as feedback notes (the first of each older): word -> (old path, new path)."""
    out = {}
    for word in words:
        paths = []
        for i, text in enumerate(PAIRS[word]):
            rel = f"memory/feedback/{word}-{i}.md"
            (vault / rel).write_text(f"---\ntype: feedback\ncreated: 2026-0{i + 1}-01\n---\n{text}\n", encoding="utf-8")
            paths.append(rel)
        out[word] = (paths[0], paths[1])
    return out


def judge(tmp_path: Path, **answers: str | tuple[str, int]) -> tuple[str, Path]:
    """A judge command answering by the first word of ``answers`` its prompt holds (a text, or (text, exit code)),
    and the file it adds a line to per call."""
    calls, table, script = tmp_path / "calls.txt", tmp_path / "answers.json", tmp_path / "judge.py"
    table.write_text(json.dumps({w: a if isinstance(a, tuple) else (a, 0) for w, a in answers.items()}), "utf-8")
    script.write_text(
        "import json, sys\n"
        f"text = sys.stdin.read()\nopen({str(calls)!r}, 'a', encoding='utf-8').write('call\\n')\n"
        f"for word, (answer, code) in json.load(open({str(table)!r}, encoding='utf-8')).items():\n"
        "    if word in text:\n        print(answer)\n        sys.exit(code)\n"
        "sys.exit(5)\n", encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}", calls


def called(calls: Path) -> int:
    return calls.read_text("utf-8").count("call\n") if calls.exists() else 0


def duplicates(report: dict) -> dict[str, str]:
    return {i["path"]: i["detail"] for i in report["issues"] if i["kind"] == "DUPLICATE"}


@pytest.mark.slow
def test_the_judge_confirms_clears_or_leaves_each_guessed_duplicate(cli, vault, tmp_path):
    pairs = notes(vault, "linter", "pnpm", "migrations")
    command, calls = judge(tmp_path, linter='{"same": 1}', pnpm='Another rule.\n{"same": null}',
                           migrations=("model overloaded", 3))
    report = cli.json("check", "--vault", vault, "--judge", command)
    found = duplicates(report)
    linter, pnpm, migrations = (min(pairs[w]) for w in ("linter", "pnpm", "migrations"))
    assert found[linter] == f"near-duplicate of {max(pairs['linter'])}: the same meaning (the judge agrees)"
    assert pnpm not in found and not any(max(pairs["pnpm"]) in d for d in found.values())
    assert "the same meaning; the judge (--judge) gave no usable answer" in found[migrations]
    assert "exited with 3" in found[migrations]
    assert [i["detail"] for i in report["issues"] if i["kind"] == "SUPERSEDE?"] == [
        f"may supersede {pairs[w][0]} (2026-01-01; this note 2026-02-01): near-duplicates, {why}"
        for w, why in (("linter", "the same meaning (the judge agrees)"), ("migrations", found[migrations].split(": ", 1)[1]))]
    j = report["judge"]
    assert (j["calls"], j["same"], j["cleared"], j["failed"], j["unasked"]) == (3, 1, 1, 1, 0), j
    verdicts = {(p["old"], p["new"]): p["verdict"] for p in j["pairs"]}
    assert verdicts == {pairs["linter"]: "same", pairs["pnpm"]: "not the same", pairs["migrations"]: "no answer"}
    assert called(calls) == 3
    text = cli("check", "--vault", vault, "--judge", command).stdout
    assert "cleared by the judge: 1" in text and "1 the same (the judge agrees)" in text, text
    assert "2 answers kept from an earlier check" in text and called(calls) == 4  # the failed one asked again


@pytest.mark.slow
def test_a_second_check_asks_nothing_until_a_note_changes(cli, vault, tmp_path):
    pairs = notes(vault, "linter", "pnpm")
    command, calls = judge(tmp_path, linter='{"same": 1}', pnpm='{"same": null}')
    first = cli.json("check", "--vault", vault, "--judge", command)["judge"]
    assert (first["calls"], first["kept"], called(calls)) == (2, 0, 2)
    second = cli.json("check", "--vault", vault, "--judge", command)["judge"]
    assert (second["calls"], second["kept"], second["same"], second["cleared"]) == (0, 2, 1, 1)
    assert called(calls) == 2
    new = vault / pairs["pnpm"][1]
    new.write_text(new.read_text("utf-8").replace("with pnpm", "with pnpm only"), encoding="utf-8")
    third = cli.json("check", "--vault", vault, "--judge", command)["judge"]
    assert (third["calls"], third["kept"], called(calls)) == (1, 1, 3)
    other, _ = judge(tmp_path / "..", linter='{"same": 1}', pnpm='{"same": null}')  # another command: asked anew
    assert cli.json("check", "--vault", vault, "--judge", other)["judge"]["calls"] == 2


@pytest.mark.slow
def test_the_most_alike_are_asked_first_and_the_rest_wait_for_the_next_check(cli, vault, tmp_path, monkeypatch):
    from mdmem.ops import check_judge

    monkeypatch.setattr(check_judge, "ASKED_MAX", 2)
    notes(vault, "linter", "pnpm", "migrations")
    command, calls = judge(tmp_path, linter='{"same": null}', pnpm='{"same": null}', migrations='{"same": null}')
    first = cli.json("check", "--vault", vault, "--judge", command)
    j = first["judge"]
    assert (j["calls"], j["cleared"], j["unasked"]) == (2, 2, 1), j
    left = [p for p in j["pairs"] if p["verdict"] == "not asked"]
    assert [p["old"] for p in left] == [p["old"] for p in j["pairs"][2:]]  # asked in order, most alike first
    assert "at most 2 questions a run" in duplicates(first)[min(left[0]["old"], left[0]["new"])]
    second = cli("check", "--vault", vault, "--judge", command).stdout  # the 2 answers kept, the one left asked
    assert "cleared by the judge: 3" in second and "(1 model call, 2 answers kept" in second, second
    assert "DUPLICATE" not in cli("check", "--vault", vault, "--judge", command).stdout and called(calls) == 3


def test_a_judge_that_keeps_failing_is_asked_three_times_a_run(cli, vault, tmp_path):
    notes(vault, *PAIRS)
    command, calls = judge(tmp_path)  # answers nothing: exits 5
    j = cli.json("check", "--vault", vault, "--judge", command)["judge"]
    assert (j["calls"], j["failed"], j["unasked"], called(calls)) == (3, 3, 1, 3), j
    assert "no usable answer 3 times in this run" in next(p["why"] for p in j["pairs"] if p["verdict"] == "not asked")


@pytest.mark.slow
def test_without_a_judge_check_says_what_it_said(cli, vault, tmp_path, monkeypatch):
    pairs = notes(vault, "linter", "pnpm")
    plain = cli("check", "--vault", vault).stdout
    assert cli("check", "--vault", vault, "--judge", "").stdout == plain
    assert f"near-duplicate of {pairs['pnpm'][1]}: the same meaning\n" in plain and "judge" not in plain
    report = cli.json("check", "--vault", vault, "--judge", "")
    assert "judge" not in report and len(duplicates(report)) == 2
    assert not (vault / ".mdmem" / "judged.json").exists()
    command, calls = judge(tmp_path, linter='{"same": null}', pnpm='{"same": null}')
    monkeypatch.setenv("MDMEM_JUDGE", command)  # the user's setting, as save reads it
    assert "cleared by the judge: 2" in cli("check", "--vault", vault).stdout and called(calls) == 2
    assert cli("check", "--vault", vault, "--judge", "").stdout == plain


@pytest.mark.slow
def test_the_mcp_check_uses_the_answers_check_got_from_the_users_judge(cli, tmp_path, vault, monkeypatch):
    """A read over MCP never runs the model (minutes of calls the agent did not ask for): it uses the answers the
    user's own ``mdmem check`` got, and says the others are the CLI's to ask."""
    import anyio
    from mcp import Client

    from mdmem.mcp_server import build_server

    pairs = notes(vault, "linter", "pnpm")

    async def go() -> dict:
        async with Client(build_server(vault), mode="legacy") as client:
            return json.loads((await client.call_tool("check", {})).content[0].text)

    before = anyio.run(go)
    assert "judge" not in before and len([i for i in before["issues"] if i["kind"] == "DUPLICATE"]) == 2
    command, calls = judge(tmp_path, linter='{"same": 1}', pnpm='{"same": null}')
    monkeypatch.setenv("MDMEM_JUDGE", command)
    unasked = anyio.run(go)
    assert called(calls) == 0 and len([i for i in unasked["issues"] if i["kind"] == "DUPLICATE"]) == 2
    assert all("not over MCP" in p["why"] for p in unasked["judge"]["pairs"]), unasked["judge"]
    cli("check", "--vault", vault)  # the user's check asks the judge, and keeps its answers
    assert called(calls) == 2
    after = anyio.run(go)
    assert [i["path"] for i in after["issues"] if i["kind"] == "DUPLICATE"] == [min(pairs["linter"])]
    assert after["judge"]["cleared"] == 1 and called(calls) == 2


def test_a_token_in_a_guessed_notes_file_name_is_not_in_the_judges_verdicts(cli, vault, tmp_path):
    pairs = notes(vault, "linter")
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    named = f"memory/feedback/linter-{token}.md"
    (vault / pairs["linter"][1]).rename(vault / named)
    command, _ = judge(tmp_path, linter='{"same": null}')
    out = cli("check", "--vault", vault, "--judge", command, "--json").stdout
    assert json.loads(out)["judge"]["cleared"] == 1 and "[redacted]" in out and token not in out

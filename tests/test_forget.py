"""Forget and restore, and a NOTE argument by alias (defects a new-user trial found): `forget` acts at once
only on a note named exactly; search matches need a confirmation on a terminal or --yes; it says how many
links now point at an archived note; `restore` brings the note back with its MEMORY.md line, never over a
note that exists there. Real files in tmp_path, the real CLI (CliRunner, or `python -m mdmem` on a
pseudo-terminal where the terminal is the point) and the real MCP server."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from support import Cli, drain

ANA = "memory/people/Ana Souza-Lima.md"
ANA_ARCHIVED = "memory/.archive/people/Ana Souza-Lima.md"
ANA_LINE = "- [Ana Souza-Lima.md](memory/people/Ana%20Souza-Lima.md) — payments lead at the client `~60tk`"
ANA_NOTE = """---
name: Ana Souza-Lima
description: payments lead at the client
type: person
aliases: [Ana, "A. Souza"]
created: 2026-11-20
---
# Ana Souza-Lima

Works on the Adyen integration.
"""


@pytest.fixture
def trial(tmp_path: Path, cli: Cli) -> Path:
    """A vault made by `mdmem init`, with a person note (two aliases), its MEMORY.md line, and a project
    note linking to it twice."""
    root = tmp_path / "v"
    cli("init", root)
    (root / ANA).write_text(ANA_NOTE, encoding="utf-8")
    (root / "memory/projects/checkout.md").write_text(
        "---\ndescription: the checkout rewrite\n---\n# checkout\n\nOwner: [[Ana Souza-Lima]], see "
        "[[Ana Souza-Lima#Role]].\n", encoding="utf-8")
    index = root / "MEMORY.md"
    index.write_text(index.read_text().replace("## People\n", f"## People\n{ANA_LINE}\n"), encoding="utf-8")
    return root


def on_terminal(args: list[str], typed: str, cwd: Path) -> tuple[int, str, str]:
    """`python -m mdmem ARGS` with stdin and stderr on a pseudo-terminal where ``typed`` was typed; returns
    (exit code, stdout, what the terminal showed)."""
    master, slave = pty.openpty()
    os.write(master, typed.encode())
    proc = subprocess.Popen([sys.executable, "-m", "mdmem", *args], cwd=cwd, stdin=slave, stderr=slave,
                            stdout=subprocess.PIPE)
    os.close(slave)
    shown = drain(master, proc)
    out, _ = proc.communicate(timeout=30)
    return proc.returncode, out.decode(), shown


# ------------------------------------------------------------------------------ forget: named, or confirmed


def test_forget_by_a_search_word_moves_nothing_without_a_terminal_or_yes(trial, cli):
    before = {p: p.read_bytes() for p in trial.rglob("*.md")}
    r = cli("forget", "Adyen", "--vault", trial, code=2)
    assert r.stderr == (f"mdmem: 'Adyen' names no note (a path, file name, title or alias); search finds {ANA}: "
                        "name the note to forget, or pass --yes to forget it; nothing was moved\n")
    assert {p: p.read_bytes() for p in trial.rglob("*.md")} == before
    assert not (trial / "memory/.archive").exists()
    dry = cli.json("forget", "Adyen", "--dry-run", "--vault", trial)  # a dry run shows the matches, moves nothing
    assert (dry["by_search"], [n["path"] for n in dry["notes"]]) == (True, [ANA])
    assert {p: p.read_bytes() for p in trial.rglob("*.md")} == before
    out = cli.json("forget", "Adyen", "--yes", "--vault", trial)
    assert out == {"query": "Adyen", "dry_run": False, "by_search": True, "notes": [
        {"path": ANA, "archived_to": ANA_ARCHIVED, "index_lines": [ANA_LINE], "links": 2,
         "linked_from": ["memory/projects/checkout.md"]}]}
    assert (trial / ANA_ARCHIVED).read_bytes() == before[trial / ANA]


@pytest.mark.slow
def test_forget_asks_on_a_terminal_and_takes_no_for_an_answer(trial):
    code, out, shown = on_terminal(["forget", "Adyen", "--vault", str(trial)], "n\n", trial)
    assert (code, out) == (1, "")
    assert f"'Adyen' names no note; search finds this one:\n  {ANA}\nArchive it? [y/N]: " in shown
    assert shown.endswith("mdmem: nothing was forgotten\n")
    assert (trial / ANA).is_file() and not (trial / "memory/.archive").exists()
    code, out, shown = on_terminal(["forget", "Adyen", "--vault", str(trial)], "y\n", trial)
    assert (code, out) == (0, "")
    assert shown.endswith(f"Archive it? [y/N]: moved {ANA} → {ANA_ARCHIVED}\n"
                          f"  removed from MEMORY.md: {ANA_LINE}\n"
                          "  2 links in memory/projects/checkout.md now point at an archived note\n"
                          f"bring it back with: mdmem restore '{ANA_ARCHIVED}'\n")
    assert not (trial / ANA).exists() and (trial / ANA_ARCHIVED).is_file()


@pytest.mark.parametrize("name", ["Ana", "a. souza", "Ana Souza-Lima", ANA, "Ana Souza-Lima.md"])
def test_a_note_named_exactly_or_by_alias_is_forgotten_at_once(trial, cli, name):
    r = cli("forget", name, "--vault", trial)
    assert r.stderr == (f"moved {ANA} → {ANA_ARCHIVED}\n  removed from MEMORY.md: {ANA_LINE}\n"
                        "  2 links in memory/projects/checkout.md now point at an archived note\n"
                        f"bring it back with: mdmem restore '{ANA_ARCHIVED}'\n")
    assert ANA_LINE not in (trial / "MEMORY.md").read_text()
    links = cli.json("links", "checkout", "--vault", trial)["links"]
    assert [(link["raw"], link["target"]) for link in links] == [("[[Ana Souza-Lima]]", None),
                                                                 ("[[Ana Souza-Lima#Role]]", None)]


# ------------------------------------------------------------------------------ restore


@pytest.mark.slow
def test_restore_brings_the_note_back_with_its_index_line(trial, cli):
    index = trial / "MEMORY.md"
    before = (index.read_bytes(), (trial / ANA).read_bytes())
    cli("forget", "Ana", "--vault", trial)
    r = cli("move", ANA_ARCHIVED, "memory/people/", "--vault", trial, code=1)  # the archive is no note to move
    assert r.stderr == (f"mdmem: {ANA_ARCHIVED} is an archived (forgotten) note; bring it back with "
                        f"`mdmem restore '{ANA_ARCHIVED}'`\n")
    log = [json.loads(line) for line in (trial / "memory/.archive/forgotten.jsonl").read_text().splitlines()]
    assert log == [{"archived": ANA_ARCHIVED, "from": ANA, "date": log[0]["date"],
                    "index_lines": [{"line": ANA_LINE, "section": "## People"}]}]
    dry = cli("restore", "Ana", "--dry-run", "--vault", trial)
    assert dry.stderr == (f"would restore {ANA_ARCHIVED} → {ANA}\n  would add to MEMORY.md again: {ANA_LINE}\n"
                          "dry run: nothing changed\n")
    assert not (trial / ANA).exists()
    out = cli.json("restore", ANA_ARCHIVED, "--vault", trial)
    assert out == {"archived": ANA_ARCHIVED, "path": ANA, "dry_run": False, "index_lines": [ANA_LINE], "links": 2,
                   "linked_from": ["memory/projects/checkout.md"], "logged": True}
    assert (index.read_bytes(), (trial / ANA).read_bytes()) == before  # byte for byte as it was
    assert not (trial / ANA_ARCHIVED).exists()
    links = cli.json("links", "checkout", "--vault", trial)["links"]
    assert [link["target"] for link in links] == [ANA, ANA]
    assert cli.json("show", "A. Souza", "--vault", trial)["path"] == ANA
    r = cli("restore", "Ana", "--vault", trial, code=1)
    assert r.stderr == f"mdmem: {ANA} is not archived: it is in the vault\n"


@pytest.mark.slow
def test_restore_by_the_old_path_or_name_and_never_over_a_new_note(trial, cli):
    cli("forget", ANA, "--vault", trial)
    (trial / ANA).write_text("# Ana Souza-Lima\n\nA new note in her place.\n")
    r = cli("restore", ANA, "--vault", trial, code=1)
    assert r.stderr == (f"mdmem: {ANA} exists: a note is there now, so {ANA_ARCHIVED} was not restored over it; "
                        "move that note away (mdmem move), then restore again\n")
    assert (trial / ANA).read_text() == "# Ana Souza-Lima\n\nA new note in her place.\n"
    assert (trial / ANA_ARCHIVED).read_text() == ANA_NOTE
    cli("forget", ANA, "--vault", trial)  # the new one goes to the archive too, under another name
    assert (trial / "memory/.archive/people/Ana Souza-Lima-2.md").is_file()
    r = cli("restore", "Ana Souza-Lima", "--vault", trial, code=2)  # both were that note: say which are
    assert r.stderr == (f"mdmem: 'Ana Souza-Lima' names 2 archived notes: memory/.archive/people/Ana Souza-Lima-2.md, "
                        f"{ANA_ARCHIVED}; give its path\n")
    out = cli.json("restore", "memory/.archive/people/Ana Souza-Lima-2.md", "--vault", trial)
    assert (out["path"], out["index_lines"], out["logged"]) == (ANA, [], True)  # it had no MEMORY.md line
    assert (trial / ANA).read_text() == "# Ana Souza-Lima\n\nA new note in her place.\n"
    r = cli("restore", "zzqqxx", "--vault", trial, code=1)
    assert r.stderr == f"mdmem: no archived note matches 'zzqqxx' (archived: {ANA_ARCHIVED})\n"


def test_restore_without_a_log_line_goes_back_to_the_mirrored_path(trial, cli):
    """A note archived by hand (or before the log): back to the path under memory/ its archive path mirrors."""
    (trial / "memory/.archive/projects").mkdir(parents=True)
    (trial / "memory/.archive/projects/old.md").write_text("---\ntitle: Old plan\n---\nThe old plan.\n")
    out = cli.json("restore", "Old plan", "--vault", trial)
    assert (out["path"], out["index_lines"], out["logged"]) == ("memory/projects/old.md", [], False)
    assert (trial / "memory/projects/old.md").read_text() == "---\ntitle: Old plan\n---\nThe old plan.\n"


def test_restore_puts_a_line_back_under_its_heading_even_when_the_index_changed(trial, cli):
    cli("forget", "Ana", "--vault", trial)
    index = trial / "MEMORY.md"
    other = "- [bruno.md](memory/people/bruno.md) — the designer `~40tk`"
    index.write_text(index.read_text().replace("## People\n", f"## People\n{other}\n"))
    cli("restore", "Ana", "--vault", trial)
    assert f"## People\n{other}\n{ANA_LINE}\n\n## Projects\n" in index.read_text()


# ------------------------------------------------------------------------------ a NOTE argument by alias


@pytest.mark.slow
def test_show_edit_and_move_take_a_unique_alias_and_list_an_ambiguous_one(trial, cli):
    assert cli.json("show", "Ana", "--vault", trial)["path"] == ANA
    assert cli.json("show", "a. souza", "--vault", trial)["path"] == ANA
    cli("edit", "Ana", "--append", "Met in Lisbon.", "--vault", trial)
    assert (trial / ANA).read_text().endswith("Works on the Adyen integration.\n\nMet in Lisbon.\n")
    (trial / "memory/people/Ana Lima.md").write_text("---\naliases: [Ana]\n---\n# Ana Lima\n")
    r = cli("show", "Ana", "--vault", trial, code=2)
    assert r.stderr == (f"mdmem: 'Ana' names 2 notes: memory/people/Ana Lima.md (alias), {ANA} (alias); "
                        "give its path\n")
    r = cli("forget", "Ana", "--vault", trial, code=2)  # ambiguous is never a search for the word
    assert r.stderr.startswith("mdmem: 'Ana' names 2 notes: ") and (trial / ANA).is_file()
    out = cli.json("move", "A. Souza", "memory/people/Ana S.md", "--vault", trial)
    assert out["target"] == "memory/people/Ana S.md"
    assert (trial / "memory/projects/checkout.md").read_text().endswith("Owner: [[Ana S]], see [[Ana S#Role]].\n")


def test_an_alias_never_resolves_a_link(trial, cli):
    (trial / "memory/projects/billing.md").write_text("# billing\n\nAsk [[Ana]].\n")
    links = cli.json("links", "billing", "--vault", trial)["links"]
    assert [(link["raw"], link["target"]) for link in links] == [("[[Ana]]", None)]


# ------------------------------------------------------------------------------ the MCP server


async def test_mcp_forget_takes_a_named_note_only_and_restore_note_brings_it_back(trial):
    pytest.importorskip("mcp")
    from mcp import Client

    from mdmem.mcp_server import build_server

    async with Client(build_server(trial), mode="legacy") as client:
        refused = await client.call_tool("forget", {"note": "Adyen"})
        assert refused.is_error and refused.content[0].text == f"Error executing tool forget: no note matches 'Adyen' in {trial}"
        assert (trial / ANA).is_file()
        got = await client.call_tool("forget", {"note": "Ana"})
        assert not got.is_error
        assert json.loads(got.content[0].text)["notes"] == [
            {"path": ANA, "archived_to": ANA_ARCHIVED, "index_lines": [ANA_LINE], "links": 2,
             "linked_from": ["memory/projects/checkout.md"]}]
        back = await client.call_tool("restore_note", {"note": "Ana"})
        assert not back.is_error and json.loads(back.content[0].text)["path"] == ANA
    assert ANA_LINE in (trial / "MEMORY.md").read_text()


@pytest.fixture
def anyio_backend():
    return "asyncio"


pytestmark = pytest.mark.anyio

"""A new user's first hour: an Obsidian vault found as it is, `init` that adds only what is
missing, saving without surprises, answers without noise, `check` on a plain vault, a Claude Code set-up
that a project can commit, and finding things by a mistyped name; then the whole hour end to end on a copy
of a real Obsidian vault. Real files, the real CLI (CliRunner, or `python -m mdmem` in a subprocess, on a
pseudo-terminal where a terminal is the point)."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import FIXTURES, drain

OBSIDIAN_DOCS = FIXTURES / "vaults" / "obsidian-tasks-docs" / "docs"  # a real vault, with its .obsidian/


def mdmem(*args, cwd: Path, env: dict | None = None, stdin: str = "", code: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "mdmem", *map(str, args)], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def on_terminal(*args, cwd: Path, stdin_terminal: str | None = None, timeout: float = 30) -> tuple[int, str, str]:
    """`python -m mdmem ARGS` with stderr on a pseudo-terminal (or, with ``stdin_terminal``, stdin: that text is
    typed, then Ctrl-D). Returns (exit code, stdout, what the terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "mdmem", *map(str, args)], cwd=cwd,
                            stdin=slave if stdin_terminal is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE if stdin_terminal is not None else slave)
    os.close(slave)
    if stdin_terminal is not None:
        os.write(master, stdin_terminal.encode() + b"\n\x04")  # a line, then Ctrl-D on a line of its own
    text = drain(master, proc, stop_at_exit=stdin_terminal is not None, timeout=timeout)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out.decode(), (err.decode() if stdin_terminal is not None else text)


def obsidian_vault(tmp_path: Path, notes: dict[str, str]) -> Path:
    root = tmp_path / "Obsidian Vault"
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "app.json").write_text("{}")
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


# --- 1. an Obsidian vault is found as it is -------------------------------------------------------------


@pytest.mark.slow
def test_a_folder_with_dot_obsidian_is_found_and_named_on_a_terminal(tmp_path):
    root = obsidian_vault(tmp_path, {"Canvas ideas.md": "# Canvas ideas\n\nSketch the canvas layout.\n",
                                     "Projects/Garden.md": "Tomatoes and basil.\n"})
    sub = root / "Projects"
    found = mdmem("search", "canvas", "--json", cwd=sub)
    assert [h["path"] for h in json.loads(found.stdout)["results"]] == ["Canvas ideas.md"]
    assert found.stderr == ""  # not a terminal: nothing said
    code, out, shown = on_terminal("search", "canvas", cwd=sub)
    assert code == 0 and shown == f"vault: {root}\n" and "Canvas ideas" in out
    code, out, shown = on_terminal("search", "canvas", "--json", cwd=sub)  # JSON: never
    assert code == 0 and shown == "" and json.loads(out)["results"][0]["path"] == "Canvas ideas.md"
    code, out, shown = on_terminal("search", "canvas", "--vault", root, cwd=tmp_path)  # given: not said
    assert code == 0 and shown == ""
    # an mdmem vault above an Obsidian one wins: it is the first rule
    outer = tmp_path / "project"
    (outer / "memory").mkdir(parents=True)
    (outer / "MEMORY.md").write_text("# Memory index\n")
    (outer / "docs" / ".obsidian").mkdir(parents=True)
    code, _, shown = on_terminal("check", cwd=outer / "docs")
    assert code == 0 and shown.startswith(f"vault: {outer}\n") and not (outer / "docs" / ".mdmem").exists()


# --- 3. saving without surprises --------------------------------------------------------------------------


@pytest.mark.slow
def test_a_protocol_is_not_said_to_repeat_itself(vault, cli):
    text = "Before every deploy of the billing service: run the smoke tests against staging first."
    out = cli.json("save", text, "-t", "protocol", "--name", "billing-deploy", "--vault", vault)
    assert out["status"] == "created" and out["warnings"] == []
    again = cli.json("save", text, "-t", "feedback", "--name", "deploy-rule", "--new", "--vault", vault)
    assert again["warnings"] == []  # the same content: already saved there, nothing written
    assert again["status"] == "unchanged" and again["path"] == "memory/protocols/billing-deploy.md"
    other = cli.json("save", "Reminder: run the smoke tests against staging first.\nAnd tell Tom.", "-t", "feedback",
                     "--name", "smoke-reminder", "--vault", vault)
    assert other["warnings"] == []  # a line of 30+ characters must repeat, not a fragment
    line = cli.json("save", "before every deploy of the billing service: run the smoke tests against staging "
                    "first.\nTom agrees.", "-t", "feedback", "--name", "smoke-again", "--new", "--vault", vault)
    assert line["warnings"] == ["memory/protocols/billing-deploy.md already says this (a protocol)"]


@pytest.mark.slow
def test_a_given_name_is_the_file_name_so_links_to_it_resolve(vault, cli):
    out = cli.json("save", "Beatriz runs the data platform team.", "-t", "person", "--name", "Beatriz Lima",
                   "--vault", vault)
    assert out["path"] == "memory/people/Beatriz Lima.md" and out["name"] == "Beatriz Lima"
    assert out["index_line"].startswith("- [Beatriz Lima.md](memory/people/Beatriz%20Lima.md) — Beatriz runs the")
    note = cli.json("save", "Talked to [[Beatriz Lima]] about the ledger migration plan.", "-t", "project",
                    "--name", "ledger-talk", "--vault", vault)
    links = cli.json("links", note["path"], "--vault", vault)["links"]
    assert [(link["raw"], link["target"]) for link in links] == [("[[Beatriz Lima]]", "memory/people/Beatriz Lima.md")]
    report = cli.json("check", "--vault", vault, "--today", "2026-11-25")
    mine = [i for i in report["issues"] if "Beatriz" in i["path"] + i["detail"] or "ledger-talk" in i["path"]]
    assert mine == []
    # a name that is not a safe file name becomes a kebab-case one, and stays the note's name
    odd = cli.json("save", "Rui answers within a day.", "-t", "person", "--name", "Rui: Adyen #1", "--vault", vault)
    assert (odd["path"], odd["name"]) == ("memory/people/rui-adyen-1.md", "Rui: Adyen #1")
    long = "A" + "b" * 60  # 61 characters: too long to keep
    assert cli.json("save", "x y z", "-t", "reference", "--name", long, "--vault", vault)["path"] == \
        f"memory/references/{long.lower()}.md"


@pytest.mark.slow
def test_descriptions_never_cut_a_link_and_memory_md_links_only_the_note(vault, cli):
    text = ("Met " + "[[ana-souza|Ana]] and [[tom-okafor]] about the reconciliation of refunds, "
            "then with [[ines-carvalho]] about the invoices of the new month in Portugal")
    out = cli.json("save", text, "-t", "project", "--vault", vault)
    assert out["description"] == ("Met Ana and tom-okafor about the reconciliation of refunds, then with "
                                  "ines-carvalho about the…")
    assert len(out["description"]) <= 100 and "[[" not in out["index_line"]
    assert out["path"] == "memory/projects/met-ana-and-tom-okafor.md"  # six words at most, not ending on "about"
    given = cli.json("save", "The ledger export runs nightly.", "-t", "reference", "--name", "ledger-export",
                     "-d", "nightly export, see [[atlas-billing]]", "--vault", vault)
    assert given["description"] == "nightly export, see atlas-billing"
    index = (vault / "MEMORY.md").read_text()
    line = next(ln for ln in index.splitlines() if "ledger-export.md" in ln)
    assert line.startswith("- [ledger-export.md](memory/references/ledger-export.md) — nightly export, see atlas-billing")


@pytest.mark.slow
@pytest.mark.parametrize("text", [
    "I live in Lisbon and work from home on Fridays.",
    "Meu editor preferido é o Neovim.",
    "Moro em Lisboa desde 2021.",
    "My timezone is Europe/Lisbon.",
])
def test_first_person_facts_are_the_user(vault, cli, text):
    out = cli.json("save", text, "--vault", vault)
    assert out["type"] == "user" and out["section"] == "User"
    assert out["path"].startswith("memory/people/") and "in the first person" in out["type_reason"]


@pytest.mark.slow
def test_file_names_are_the_subject(vault, cli):
    out = cli.json("save", "Deploy freeze: no production deploys from December 20 to January 3, agreed with "
                   "Marta and Tom in the Friday meeting", "-t", "project", "--vault", vault)
    assert out["path"] == "memory/projects/deploy-freeze.md" and out["name"] == "Deploy freeze"
    out = cli.json("save", "The staging database is refreshed from a masked production snapshot every Sunday "
                   "night at two", "-t", "reference", "--vault", vault)
    assert out["path"] == "memory/references/the-staging-database-is-refreshed.md"  # short: tests/test_naming.py


@pytest.mark.slow
def test_save_on_a_terminal_says_what_it_waits_for(vault):
    code, out, err = on_terminal("save", "-t", "reference", "--name", "typed-note", "--vault", vault,
                                 cwd=vault, stdin_terminal="The VPN moved to vpn2.example.org.")
    assert code == 0, err
    assert err.startswith("mdmem: reading the text from the terminal; end it with Ctrl-D on a line of its own")
    assert "saved memory/references/typed-note.md" in err
    assert "The VPN moved to vpn2.example.org." in (vault / "memory/references/typed-note.md").read_text()
    code, out, err = on_terminal("daily", "add", "--at", "09:00", "--date", "2026-11-26", "--vault", vault,
                                 cwd=vault, stdin_terminal="Standup moved to 9:30.")
    assert code == 0 and err.startswith("mdmem: reading the text from the terminal")
    assert (vault / "memory/daily/2026-11-26.md").read_text().endswith("## 09:00\nStandup moved to 9:30.\n")


# --- 4. answers without noise ---------------------------------------------------------------------------------


def test_search_snippets_show_no_html(tmp_path, cli):
    root = obsidian_vault(tmp_path, {"Video.md": (
        '# Video\n\n<span class="caption">Hover over a date in Read mode</span>\n\n'
        '<iframe width="560" src="https://www.youtube.com/embed/x" allowfullscreen></iframe>\n\n'
        "Press `<enter>` to confirm the date; a < b > c stays.\n")})
    hit = cli.json("search", "hover date", "--vault", root)["results"][0]
    assert hit["snippet"] == ("Video **Hover** over a **date** in Read mode Press <enter> to confirm the **date**; "
                              "a < b > c stays.")


def test_unlinked_mentions_skip_frontmatter(tmp_path, cli):
    root = obsidian_vault(tmp_path, {
        "Atlas.md": "# Atlas\n",
        "a.md": "---\ntitle: About Atlas\nrelated: Atlas\n---\nNothing here.\n",
        "b.md": "---\ntags: [x]\n---\nWe shipped Atlas today.\n",
    })
    got = cli.json("backlinks", "Atlas", "--unlinked", "--vault", root)
    assert [(u["source"], u["line"], u["context"]) for u in got["unlinked"]] == [("b.md", 4, "We shipped Atlas today.")]


def test_a_tag_in_one_daily_entry_selects_that_entry(tmp_path, cli):
    root = tmp_path / "v"
    (root / "memory/daily").mkdir(parents=True)
    (root / "memory/daily/2026-11-24.md").write_text(
        "---\ntype: daily\ntags: [daily]\n---\n# 2026-11-24\n\n## 09:00\nStandup, nothing new.\n\n"
        "## 11:00\nKafka retention discussion. #kafka\n\n## 15:00\nReviewed the invoices.\n")
    got = cli.json("timeline", "#kafka", "--when", "last 7 days", "--today", "2026-11-25", "--vault", root)
    assert [(e["date"], e["time"], e["text"]) for e in got["entries"]] == [
        ("2026-11-24", "11:00", "Kafka retention discussion. #kafka")]
    (root / "memory/daily/2026-11-23.md").write_text(
        "---\ntype: daily\ntags: [daily, kafka]\n---\n## 10:00\nA day tagged as a whole.\n")
    got = cli.json("timeline", "kafka", "--when", "last 7 days", "--today", "2026-11-25", "--vault", root)
    assert [(e["date"], e["time"]) for e in got["entries"]] == [("2026-11-24", "11:00"), ("2026-11-23", "10:00")]


@pytest.mark.slow
def test_recall_of_an_empty_window_says_so(vault, cli, tmp_path):
    out = cli("recall", "semana passada", "--today", "2026-12-20", "--vault", vault).stdout
    assert out == ("## Memory recall: semana passada\n\n### semana passada (2026-12-07 – 2026-12-13)\n"
                   "Nothing is dated in this window; 59 notes are dated, the nearest on 2026-11-25.\n")
    with_entries = cli("recall", "semana passada", "--today", "2026-11-25", "--vault", vault).stdout
    assert "2026-11-20 11:00 2026-11-20: 1:1 with [[marta-ferreira]]" in with_entries
    bare = obsidian_vault(tmp_path, {"Plain.md": "Nothing dated.\n"})
    assert cli("recall", "last week", "--vault", bare).stdout.endswith(
        "Nothing is dated in this window; nothing in this vault is dated (daily notes, created: or updated: dates).\n")
    # Obsidian's daily notes (YYYY-MM-DD.md in any folder) are dated entries too
    (bare / "Daily").mkdir()
    (bare / "Journal").mkdir()
    (bare / "Journal" / "2026-11-20.md").write_text("Planted garlic.\n")
    got = cli.json("recall", "last week", "--today", "2026-11-25", "--vault", bare)
    assert [(e["date"], e["path"], e["text"]) for e in got["entries"]] == [
        ("2026-11-20", "Journal/2026-11-20.md", "Planted garlic.")]


def test_a_monthly_digest_links_only_weekly_digests_that_exist(tmp_path, cli):
    root = tmp_path / "v"
    (root / "memory/daily").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory index\n")
    for day in ("2026-09-28", "2026-09-30"):  # 2026-W40 runs Mon 09-28 .. Sun 10-04
        (root / f"memory/daily/{day}.md").write_text(f"---\ntype: daily\n---\n## 10:00\nWork on {day}.\n")
    cli.json("digest", "--today", "2026-10-01", "--vault", root)  # September is over, W40 is not
    month = (root / "memory/digests/monthly/2026-09.md").read_text()
    assert "\n- 2026-W40: 2 entries over 2 days (2026-09-28, 2026-09-30)\n" in month
    assert not (root / "memory/digests/weekly/2026-W40.md").exists()
    got = cli.json("digest", "--today", "2026-10-05", "--vault", root)  # now W40 is over: the month links it
    assert {i["period"]: i["status"] for i in got["items"]} == {"2026-W40": "created", "2026-09": "updated"}
    month = (root / "memory/digests/monthly/2026-09.md").read_text()
    assert "\n- [[2026-W40]]: 2 entries over 2 days (2026-09-28, 2026-09-30)\n" in month
    report = cli.json("check", "--vault", root, "--today", "2026-10-05")
    assert [i for i in report["issues"] if i["kind"] == "DANGLING"] == []


# --- 5. check on a plain Obsidian vault ----------------------------------------------------------------------


@pytest.mark.slow
def test_check_on_a_plain_obsidian_vault_says_so_once(tmp_path, cli):
    root = tmp_path / "docs"
    shutil.copytree(OBSIDIAN_DOCS, root)
    report = cli.json("check", "--vault", root, "--today", "2026-11-25")
    assert report["layout"] == "none" and report["budget"]["files"] == 0
    assert [(i["kind"], i["severity"]) for i in report["issues"]] == [("NO MEMORY LAYOUT", "warning")]
    assert report["issues"][0]["detail"] == ("no MEMORY.md and no memory/ folder: an agent loads nothing from this "
                                             "vault, so its 118 notes are not audited as memory")
    assert f"`mdmem init {root}`" in report["issues"][0]["action"]
    text = cli("check", "--vault", root, "--today", "2026-11-25").stdout
    assert text.count("\n") == 2 and text.startswith("warning  NO MEMORY LAYOUT  no MEMORY.md")
    everything = cli.json("check", "--all", "--vault", root, "--today", "2026-11-25")
    assert everything["layout"] == "flat" and everything["budget"]["files"] == 118
    assert everything["budget"]["percent"] > 100 and len(everything["issues"]) > 100


# --- 7. finding things ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_mistyped_name_gets_the_closest_names(vault, cli):
    r = cli("show", "atlsa", "--vault", vault, code=1)
    assert r.stderr == f"mdmem: no note matches 'atlsa' in {vault.resolve()}; did you mean atlas-billing, " \
                       "atlas-dashboards?\n"
    r = cli("backlinks", "ana-suza", "--vault", vault, code=1)
    assert r.stderr.endswith("; did you mean ana-souza?\n")
    assert cli("show", "qqqzzzxx", "--vault", vault, code=1).stderr == \
        f"mdmem: no note matches 'qqqzzzxx' in {vault.resolve()}\n"


@pytest.mark.slow
def test_show_body_prints_the_text(vault, cli):
    out = cli("show", "tom-okafor", "--body", "--vault", vault).stdout
    body = (vault / "memory/people/tom-okafor.md").read_text().split("---\n", 2)[2]
    assert out.endswith("\n\n" + body.strip("\n") + "\n") and out.startswith("tom-okafor  memory/people/tom-okafor.md")
    got = cli.json("show", "tom-okafor", "--body", "--vault", vault)
    assert got["body"] == body and got["path"] == "memory/people/tom-okafor.md"
    assert "body" not in cli.json("show", "tom-okafor", "--vault", vault)
    (vault / "memory/people/evil.md").write_bytes(b"# Evil\n\nclear \x1b[2J screen \x07 bell\n")
    assert cli("show", "evil", "--body", "--vault", vault).stdout.endswith("clear \ufffd[2J screen \ufffd bell\n")


def test_graph_map_is_a_few_tables(vault, cli):
    lines = [line.rstrip() for line in cli("graph", "map", "--vault", vault).stdout.splitlines()]
    titles = ["the graph", "notes by type", "notes by folder", "hubs by links (in and out)", "hubs by PageRank"]
    assert [line for line in lines if line in titles] == titles
    assert lines[:9] == ["the graph", "                         count   occurrences", "─" * 44,
                         "notes                       61", "links between notes        260           271",
                         "dangling targets             2             2", "components                   2",
                         "orphans (no backlinks)       2", "isolated (no links)          1"]
    at = lines.index("hubs by links (in and out)")
    assert lines[at + 3:at + 5] == ["MEMORY.md                                  39",
                                    "memory/projects/atlas-billing.md           32"]
    assert max(map(len, lines)) <= 80  # readable in a plain 80-column terminal


def test_graph_page_links_each_note_to_obsidian(vault, cli):
    from mdmem.engine.memory import Memory
    from mdmem.ops import browse

    page = vault / "graph.html"
    cli("graph", "html", "--vault", vault, "-o", page)
    text = page.read_text()
    data = json.loads(re.search(r'<script type="application/json" id="mdmem-data">(.*?)</script>', text,
                                re.S).group(1))
    assert data["vault"] == "vault" and '<a id="panel-open" hidden>Open in Obsidian</a>' in text
    assert 'obsidian://open?vault=" + encodeURIComponent(obsidianVault) + "&file=" + encodeURIComponent(file)' in text
    with Memory.open(vault) as mem:
        mem.refresh()
        assert browse.graph_data(mem)["vault"] == vault.name


# --- the whole first hour, on a copy of a real Obsidian vault ------------------------------------------------------


def digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".mdmem" not in p.relative_to(root).parts}


@pytest.mark.slow
def test_the_first_hour_end_to_end(tmp_path):
    """discover, init, save, search, check, install claude into a project, the SessionStart card."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    notes = project / "docs"
    shutil.copytree(OBSIDIAN_DOCS, notes)
    git = shutil.which("git")
    assert git, "git is needed for this test"
    subprocess.run([git, "init", "-q", str(project)], check=True, timeout=60)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "mdmem").write_text(f"#!{sys.executable}\nfrom mdmem.__main__ import main\nmain()\n")
    (bindir / "mdmem").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MDMEM_", "CLAUDE_"))}
    env.update(HOME=str(home), PATH=f"{bindir}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}")
    originals = digests(notes)
    queries = notes / "Queries"

    # discover: the Obsidian vault is found from inside it, as it is
    found = json.loads(mdmem("search", "canvas", "--json", cwd=queries, env=env).stdout)
    assert found["results"][0]["path"] == "Queries/Query File Defaults.md"
    check = json.loads(mdmem("check", "--json", cwd=queries, env=env).stdout)
    assert [i["kind"] for i in check["issues"]] == ["NO MEMORY LAYOUT"]

    # init: only what is missing, no existing file changed
    init = json.loads(mdmem("init", ".", "--json", cwd=notes, env=env).stdout)
    assert init == {"vault": str(notes), "new": False, "kept": [".mdmem/"],
                    "added": ["MEMORY.md", "memory/daily/", "memory/people/", "memory/projects/", "memory/protocols/"],
                    "daily": "memory/daily/YYYY-MM-DD.md (mdmem's default)", "state": str(notes / ".mdmem")}
    after = digests(notes)
    assert {k: after[k] for k in originals} == originals
    assert sorted(set(after) - set(originals)) == ["MEMORY.md", "memory/daily/.gitkeep", "memory/people/.gitkeep",
                                                   "memory/projects/.gitkeep", "memory/protocols/.gitkeep"]

    # save: a first-person fact, a person by name, a note linking to her
    me = json.loads(mdmem("save", "I live in Lisbon and write these docs in Neovim", "--json", cwd=queries,
                          env=env).stdout)
    assert (me["type"], me["path"]) == ("user", "memory/people/i-live-in-lisbon-and-write.md")
    ana = json.loads(mdmem("save", "Ana reviews every change to the query syntax.", "-t", "person", "--name",
                           "Ana Souza", "--json", cwd=notes, env=env).stdout)
    assert ana["path"] == "memory/people/Ana Souza.md" and ana["warnings"] == []
    plan = json.loads(mdmem("save", "Asked [[Ana Souza]] to review the new grouping docs before the release",
                            "-t", "project", "--json", cwd=notes, env=env).stdout)
    assert plan["path"] == "memory/projects/asked-ana-souza-to-review.md"
    index = (notes / "MEMORY.md").read_text()
    assert "[[" not in index and "(memory/people/Ana%20Souza.md)" in index

    # search: the memory and the vault's own notes
    hits = json.loads(mdmem("search", "grouping docs review", "--json", cwd=notes, env=env).stdout)["results"]
    assert hits[0]["path"] == plan["path"]
    assert "Queries/Grouping.md" in [h["path"] for h in hits]

    # check: the memory layout now, and nothing broken that mdmem wrote
    report = json.loads(mdmem("check", "--json", "--today", "2026-12-01", cwd=notes, env=env).stdout)
    assert report["layout"] == "vault" and report["budget"]["files"] == 3
    assert [(i["kind"], i["path"]) for i in report["issues"]] == [("NO ENTRIES", ".")] * 3

    # install claude into the project: a .mcp.json with nothing of this machine, hooks in the local file
    install = json.loads(mdmem("install", "claude", "--vault", "docs", "--json", cwd=project, env=env).stdout)
    assert install["mcp"]["path"] == str(project / ".mcp.json") and install["mcp"]["note"] is None
    assert json.loads((project / ".mcp.json").read_text()) == {
        "mcpServers": {"mdmem": {"command": "mdmem", "args": ["mcp", "--vault", "docs"]}}}
    assert not (home / ".claude.json").exists()
    status = subprocess.run([git, "status", "--porcelain", "--untracked-files=all"], cwd=project, check=True,
                            capture_output=True, text=True, timeout=60).stdout.splitlines()
    assert "?? .mcp.json" in status and "?? .claude/.gitignore" in status
    assert not [line for line in status if "settings.local.json" in line or ".mdmem" in line or "backup" in line]
    assert (notes / ".mdmem" / ".gitignore").read_text() == "*\n"

    # the SessionStart card, as Claude Code runs the hook: the command from settings.local.json, JSON on stdin
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    (group,) = settings["hooks"]["SessionStart"]
    command = shlex.split(group["hooks"][0]["command"])
    assert command[-4:] == ["hook", "session-start", "--vault", str(notes)]
    payload = {"session_id": "first-hour", "cwd": str(project), "hook_event_name": "SessionStart",
               "source": "startup", "transcript_path": str(tmp_path / "none.jsonl")}
    card = subprocess.run(command, input=json.dumps(payload), cwd=project, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert card.returncode == 0 and card.stderr == ""
    assert card.stdout.startswith("# Memory (docs: 121 notes")
    assert "User: I live in Lisbon and write these docs in Neovim" in card.stdout
    assert "People: Ana Souza" in card.stdout
    # and `python -m mdmem hook session-start` with the same payload gives the same card (cached now)
    again = subprocess.run([sys.executable, "-m", "mdmem", "hook", "session-start", "--vault", str(notes)],
                           input=json.dumps(payload), cwd=project, env=env, capture_output=True, text=True,
                           timeout=60, check=False)
    assert again.returncode == 0 and again.stdout == card.stdout

    # and it all comes off again
    mdmem("uninstall", "claude", cwd=project, env=env)
    assert not (project / ".mcp.json").exists() and not (project / ".claude").exists()

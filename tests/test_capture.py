"""Capture: daily add/show, save (with its MEMORY.md line), forget (archive)."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import time

import pytest

from mdmem.cli.app import app
from support import run_process

# ------------------------------------------------------------------------------ daily


@pytest.mark.slow
def test_daily_add_creates_the_day_with_frontmatter(vault, cli):
    r = cli("daily", "add", "Paired with Ana on the ledger", "--vault", vault, "--at", "09:15",
            "--date", "2026-12-01")
    assert r.stderr == "created memory/daily/2026-12-01.md (## 09:15)\n"
    assert (vault / "memory/daily/2026-12-01.md").read_text() == (
        "---\n"
        "name: '2026-12-01'\n"
        "description: Daily log 2026-12-01\n"
        "type: daily\n"
        "tags:\n- daily\n"
        "created: 2026-12-01\n"
        "updated: 2026-12-01\n"
        "---\n"
        "\n"
        "# 2026-12-01 (Tuesday)\n"
        "\n"
        "## 09:15\n"
        "Paired with Ana on the ledger\n"
    )
    shown = cli.json("show", "memory/daily/2026-12-01.md", "--vault", vault)
    assert shown["type"] == "daily"


@pytest.mark.slow
def test_daily_add_appends_and_never_rewrites(vault, cli):
    path = vault / "memory/daily/2026-11-25.md"
    before = path.read_bytes()
    out = cli.json("daily", "add", "Kafka retention decided: 7 days", "--vault", vault, "--at", "17:45",
                   "--date", "2026-11-25")
    assert out == {"path": "memory/daily/2026-11-25.md", "date": "2026-11-25", "time": "17:45",
                   "text": "Kafka retention decided: 7 days", "created": False}
    after = path.read_bytes()
    assert after == before + b"\n## 17:45\nKafka retention decided: 7 days\n"
    hits = cli.json("search", "Kafka retention decided", "--vault", vault)["results"]
    assert hits[0]["path"] == "memory/daily/2026-11-25.md"


@pytest.mark.slow
def test_daily_add_reads_stdin_and_file(vault, cli, tmp_path):
    r = cli.runner.invoke(app,
                          ["daily", "add", "-", "--vault", str(vault), "--at", "08:00", "--date", "2026-12-02"],
                          input="from stdin\n")
    assert r.exit_code == 0, r.stderr
    text = tmp_path / "entry.txt"
    text.write_text("from a file\n")
    cli("daily", "add", "--file", text, "--vault", vault, "--at", "08:30", "--date", "2026-12-02")
    body = (vault / "memory/daily/2026-12-02.md").read_text()
    assert body.endswith("## 08:00\nfrom stdin\n\n## 08:30\nfrom a file\n")


def test_daily_add_bad_time_is_a_usage_error(vault, cli):
    r = cli("daily", "add", "x", "--vault", vault, "--at", "25:00", code=2)
    assert r.stderr == "mdmem: wants a time as HH:MM, not '25:00'\n"
    assert not (vault / f"memory/daily/{dt.date.today().isoformat()}.md").exists()


@pytest.mark.slow
def test_daily_show_day_yesterday_week(vault, cli):
    one = cli.json("daily", "show", "2026-11-25", "--vault", vault)
    assert one["start"] == one["end"] == "2026-11-25"
    assert [d["date"] for d in one["days"]] == ["2026-11-25"]
    assert one["days"][0]["body"].startswith("# 2026-11-25 (Wednesday)\n\nPrevious: [[2026-11-24]]\n")
    assert one["days"][0]["body"].endswith("Parked until she writes it up.\n")
    y = cli.json("daily", "show", "yesterday", "--today", "2026-11-26", "--vault", vault)
    assert [d["date"] for d in y["days"]] == ["2026-11-25"]
    week = cli.json("daily", "show", "week", "--today", "2026-11-25", "--vault", vault)
    assert (week["start"], week["end"]) == ("2026-11-19", "2026-11-25")
    assert [d["date"] for d in week["days"]] == ["2026-11-20", "2026-11-24", "2026-11-25"]
    text = cli("daily", "show", "2026-11-25", "--vault", vault).stdout
    assert text.startswith("# 2026-11-25 (Wednesday)\n")
    empty = cli("daily", "show", "2026-01-01", "--vault", vault)
    assert (empty.stdout, empty.stderr) == ("", "no daily notes for 2026-01-01\n")
    cli("daily", "show", "someday", "--vault", vault, code=2)


@pytest.mark.slow
def test_daily_today_round_trip(vault, cli):
    cli("daily", "add", "today's entry", "--vault", vault, "--at", "10:00")
    today = cli.json("daily", "show", "--vault", vault)
    assert today["start"] == dt.date.today().isoformat()
    assert today["days"][0]["body"].endswith("## 10:00\ntoday's entry\n")


# ------------------------------------------------------------------------------ save

PRIYA = "- [Priya review style.md](memory/people/Priya%20review%20style.md) — prefers async reviews `~{}tk`"


def _sections(memory_md: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in memory_md.splitlines():
        if line.startswith("## "):
            current = line[3:]
            out[current] = []
        elif current and line.strip():
            out[current].append(line)
    return out


@pytest.mark.slow
def test_save_writes_the_note_and_its_line(vault, cli):
    before = (vault / "MEMORY.md").read_text()
    out = cli.json("save", "Priya prefers async reviews over calls.\n\nShe reads PRs in the morning.",
                   "--type", "person", "--name", "Priya review style", "--description", "prefers async reviews",
                   "--tags", "people,Reviews", "--vault", vault)
    today = dt.date.today().isoformat()
    note = vault / "memory/people/Priya review style.md"  # a safe --name is the file name as written
    assert note.read_text() == (
        "---\nname: Priya review style\ndescription: prefers async reviews\ntype: person\n"
        f"tags:\n- people\n- reviews\nsource: user\ncreated: {today}\nupdated: {today}\n---\n\n"
        "Priya prefers async reviews over calls.\n\nShe reads PRs in the morning.\n"
    )
    tokens = note.stat().st_size * 5 // 16
    line = PRIYA.format(tokens)
    assert out == {"status": "created", "path": "memory/people/Priya review style.md", "type": "person",
                   "name": "Priya review style", "description": "prefers async reviews", "tokens": tokens,
                   "section": "People", "index_line": line, "index_changed": True, "warnings": [],
                   "type_reason": "given", "supersedes": [], "index_marked": [], "source": "user", "confirm": None,
                   "similar": None}
    after = (vault / "MEMORY.md").read_text()
    assert after.splitlines()[0] == before.splitlines()[0]  # the budget comment is untouched
    assert _sections(after)["People"] == _sections(before)["People"] + [line]
    assert after.replace(line + "\n", "", 1) == before  # nothing else changed
    hits = cli.json("search", "async reviews", "--vault", vault)["results"]
    assert hits[0]["path"] == "memory/people/Priya review style.md"
    assert cli.json("show", "Priya review style", "--vault", vault)["type"] == "person"


@pytest.mark.slow
def test_save_text_mode_and_remember_alias(vault, cli, tmp_path):
    body = tmp_path / "body.md"
    body.write_text("Always run the linters before pushing\n")
    r = cli("remember", "--file", body, "-t", "feedback", "--vault", vault)
    rel = "memory/feedback/always-run-the-linters-before-pushing.md"
    assert (vault / rel).is_file()
    assert r.stderr.startswith(f"saved {rel} (feedback, ~")
    assert f"MEMORY.md ## Feedback: - [always-run-the-linters-before-pushing.md]({rel}) — Always run" in r.stderr
    r = cli.runner.invoke(app, ["save", "-", "-t", "decision", "--name", "Ship Fridays: never",
                                "--vault", str(vault), "--json"], input="No deploys on Fridays.\n")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["path"] == "memory/decisions/decision-ship-fridays-never.md"
    assert _sections((vault / "MEMORY.md").read_text())["Decisions"][-1].startswith(
        "- [decision-ship-fridays-never.md](memory/decisions/decision-ship-fridays-never.md) — No deploys on Fridays.")


@pytest.mark.slow
def test_save_creates_a_missing_section_and_a_missing_index(vault, cli, tmp_path):
    text = (vault / "MEMORY.md").read_text()
    (vault / "MEMORY.md").write_text(text.split("## References")[0].rstrip("\n") + "\n")
    out = cli.json("save", "Whoosh docs live at whoosh.rtfd.io", "-t", "reference", "--name", "whoosh docs",
                   "--vault", vault)
    after = (vault / "MEMORY.md").read_text()
    assert after.endswith(f"\n\n## References\n{out['index_line']}\n")
    assert after.startswith("<!-- budget: ~16796tk / 40000tk (42%) | updated: 2026-11-25 -->\n")
    bare = tmp_path / "bare"  # a vault with notes but no MEMORY.md
    (bare / "memory/projects").mkdir(parents=True)
    (bare / "memory/projects/atlas.md").write_text("# Atlas\n")
    out = cli.json("save", "Diego likes short answers", "-t", "user", "--vault", bare)
    assert (bare / "MEMORY.md").read_text() == f"# Memory index\n\n## User\n{out['index_line']}\n"
    assert out["path"] == "memory/people/diego-likes-short-answers.md"


def test_save_into_an_empty_indexed_vault(tmp_path, cli):
    empty = tmp_path / "empty"
    (empty / "memory").mkdir(parents=True)
    cli("index", "--vault", empty)
    out = cli.json("save", "Diego likes short answers", "-t", "user", "--vault", empty)
    assert out["status"] == "created"


@pytest.mark.slow
def test_save_same_content_changes_nothing(vault, cli):
    args = ("save", "Prefers tea", "-t", "person", "--name", "tea", "--vault", vault)
    cli(*args)
    note, index = vault / "memory/people/tea.md", vault / "MEMORY.md"
    snapshot = (note.read_bytes(), note.stat().st_mtime_ns, index.read_bytes(), index.stat().st_mtime_ns)
    out = cli.json(*args)
    assert (out["status"], out["index_changed"]) == ("unchanged", False)
    assert (note.read_bytes(), note.stat().st_mtime_ns, index.read_bytes(), index.stat().st_mtime_ns) == snapshot
    assert cli(*args).stderr == "already saved: memory/people/tea.md has the same content; nothing changed\n"
    assert index.read_text().count("(memory/people/tea.md)") == 1
    r = cli("save", "Prefers coffee", "-t", "person", "--name", "tea", "--vault", vault, code=1)
    assert r.stderr == ("mdmem: memory/people/tea.md already holds another text under this name ('tea'); add this "
                        "to it (--update memory/people/tea.md), pass --supersedes memory/people/tea.md if this one "
                        "replaces it, or --new to save a second note (under a free name); or choose another --name\n")
    assert note.read_bytes() == snapshot[0]


@pytest.mark.slow
def test_save_refuses_names_that_escape_the_vault(vault, cli, tmp_path):
    before = sorted(p for p in tmp_path.rglob("*") if ".mdmem" not in p.parts)
    for name in ("../../escape", "/tmp/abs", "people/../../x", "..", "a\\b"):
        r = cli("save", "x", "-t", "person", "--name", name, "--vault", vault, code=2)
        assert r.stderr == f"mdmem: refusing the name {name!r}: a note name cannot contain a path (/, \\, ..)\n"
    after = sorted(p for p in tmp_path.rglob("*") if ".mdmem" not in p.parts)
    assert after == before
    r = cli("save", "x", "-t", "nonsense", "--vault", vault, code=2)
    assert r.stderr.startswith("mdmem: unknown type 'nonsense': choose one of decision, ")


@pytest.mark.slow
def test_save_name_is_safe_kebab_case(vault, cli):
    out = cli.json("save", "x", "-t", "project", "--name", "  Café  Déjà_vu: Plan (v2)!  ", "--vault", vault)
    assert out["path"] == "memory/projects/café-déjà-vu-plan-v2.md"
    assert (vault / out["path"]).is_file()


@pytest.mark.slow
def test_two_save_processes_at_once_both_land(vault):
    import subprocess
    import sys

    procs = [subprocess.Popen([sys.executable, "-m", "mdmem", "save", f"Concurrent memory number {i}",
                               "-t", "reference", "--name", f"concurrent-{i}", "--vault", str(vault)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in (1, 2)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    text = (vault / "MEMORY.md").read_text()
    refs = _sections(text)["References"]
    assert [r.split("]")[0] for r in refs[-2:]] in (["- [concurrent-1.md", "- [concurrent-2.md"],
                                                    ["- [concurrent-2.md", "- [concurrent-1.md"])
    assert text.startswith("<!-- budget: ~16796tk / 40000tk (42%) | updated: 2026-11-25 -->\n")
    for i in (1, 2):
        assert (vault / f"memory/references/concurrent-{i}.md").is_file()
    check = run_process("check", "--json", "--vault", vault)
    issues = json.loads(check.stdout)["issues"]
    assert not [i for i in issues if "concurrent" in i["path"] and i["kind"] in ("ORPHAN", "BROKEN LINK")]


def test_save_never_overwrites_an_index_changed_since_read(vault, cli, monkeypatch):
    import frontmatter

    index = vault / "MEMORY.md"
    real = frontmatter.dumps

    def editor_saves_meanwhile(*args, **kwargs):  # a person saves MEMORY.md while mdmem works
        index.write_text(index.read_text() + "- a line typed by hand\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(frontmatter, "dumps", editor_saves_meanwhile)
    r = cli("save", "Racing memory", "-t", "reference", "--name", "racing", "--vault", vault, code=1)
    assert r.stderr == f"mdmem: {vault.resolve() / 'MEMORY.md'} changed on disk since it was read; nothing was written\n"
    assert index.read_text().endswith("- a line typed by hand\n")
    assert not (vault / "memory/references/racing.md").exists()


def test_index_write_refuses_a_stale_snapshot(vault):
    from mdmem.base.errors import WriteConflict
    from mdmem.engine.memory import Memory
    from mdmem.ops import index_lines

    index = vault / "MEMORY.md"
    with Memory.open(vault) as mem:
        from mdmem.base import files

        snapshot = files.read_stat(vault, "MEMORY.md")
        time.sleep(0.01)
        index.write_text(index.read_text() + "- edited\n")
        try:
            index_lines.add_line(mem, "memory/people/x.md", "- [x.md](memory/people/x.md) — x `~1tk`",
                                 "People", snapshot)
        except WriteConflict as e:
            assert "changed on disk since it was read" in str(e)
        else:
            raise AssertionError("a stale snapshot was written over")
    assert index.read_text().endswith("- edited\n")


# ------------------------------------------------------------------------------ forget

NET = "memory/references/home-lab-network.md"
NET_LINE = ("- [home-lab-network.md](memory/references/home-lab-network.md) — home lab IPs, VLANs, WireGuard (July) "
            "`~244tk`")


@pytest.mark.slow
def test_forget_archives_the_note_and_removes_its_line(vault, cli):
    data = (vault / NET).read_bytes()
    index = vault / "MEMORY.md"
    before = index.read_text()
    assert cli.json("search", "VLANs", "--vault", vault)["results"][0]["path"] == NET
    out = cli.json("forget", "home-lab-network", "--vault", vault)
    assert out == {"query": "home-lab-network", "dry_run": False, "by_search": False, "notes": [
        {"path": NET, "archived_to": "memory/.archive/references/home-lab-network.md", "index_lines": [NET_LINE],
         "links": 2, "linked_from": ["memory/projects/home-lab.md"]}]}
    assert not (vault / NET).exists()
    assert (vault / "memory/.archive/references/home-lab-network.md").read_bytes() == data  # moved, not deleted
    assert index.read_text() == before.replace(NET_LINE + "\n", "")
    assert NET not in [h["path"] for h in cli.json("search", "VLANs", "--vault", vault)["results"]]
    cli("show", "home-lab-network", "--vault", vault, code=1)


@pytest.mark.slow
def test_forget_dry_run_changes_nothing(vault, cli):
    index = vault / "MEMORY.md"
    before = (index.read_bytes(), (vault / NET).read_bytes())
    r = cli("forget", NET, "--dry-run", "--vault", vault)
    assert r.stderr == (f"would move {NET} → memory/.archive/references/home-lab-network.md\n"
                        f"  would remove from MEMORY.md: {NET_LINE}\n"
                        "  2 links in memory/projects/home-lab.md would point at an "
                        "archived note\n"
                        "dry run: nothing changed\n")
    assert (index.read_bytes(), (vault / NET).read_bytes()) == before
    assert not (vault / "memory/.archive").exists()


@pytest.mark.slow
def test_forget_removes_lines_by_parsed_links_not_substrings(vault, cli):
    index = vault / "MEMORY.md"
    text = index.read_text()
    extra = ["- see [[home-lab-network]] too", "- mentions home-lab-network.md in words only",
             "- `[x](memory/references/home-lab-network.md)` in code is not a link"]
    index.write_text(text + "\n".join(extra) + "\n")
    out = cli.json("forget", "memory/references/home-lab-network.md", "--vault", vault)
    assert out["notes"][0]["index_lines"] == [NET_LINE, extra[0]]
    assert index.read_text() == text.replace(NET_LINE + "\n", "") + "\n".join(extra[1:]) + "\n"


@pytest.mark.slow
def test_forget_by_search_refuses_several_without_yes(vault, cli):
    cli.json("save", "Greenhouse watering schedule is every Tuesday", "-t", "reference", "--name", "greenhouse-a",
             "--vault", vault)
    cli.json("save", "Greenhouse heater runs at night", "-t", "reference", "--name", "greenhouse-b",
             "--vault", vault)
    refused = cli("forget", "Greenhouse", "--vault", vault, code=2)
    assert refused.stderr in (
        f"mdmem: 'Greenhouse' names no note (a path, file name, title or alias); search finds {a}, {b}: name the "
        "note to forget, or pass --yes to forget all 2; nothing was moved\n"
        for a, b in itertools.permutations(["memory/references/greenhouse-a.md", "memory/references/greenhouse-b.md"]))
    assert not (vault / "memory/.archive").exists()
    out = cli.json("forget", "Greenhouse", "--yes", "--vault", vault)
    assert sorted(n["path"] for n in out["notes"]) == ["memory/references/greenhouse-a.md",
                                                      "memory/references/greenhouse-b.md"]
    assert "greenhouse" not in (vault / "MEMORY.md").read_text()
    assert sorted(p.name for p in (vault / "memory/.archive/references").iterdir()) == ["greenhouse-a.md",
                                                                                         "greenhouse-b.md"]
    r = cli("forget", "zzqqxx", "--vault", vault, code=1)
    assert r.stderr == f"mdmem: no note matches 'zzqqxx' in {vault.resolve()}\n"


@pytest.mark.slow
def test_forget_a_single_search_match_and_archive_name_clash(vault, cli):
    cli("save", "Greenhouse heater runs at night", "-t", "reference", "--name", "greenhouse", "--vault", vault)
    cli("forget", "heater", "--vault", vault, code=2)  # a search match only: not without --yes
    cli("forget", "heater", "--yes", "--vault", vault)
    cli("save", "Greenhouse heater runs at night", "-t", "reference", "--name", "greenhouse", "--vault", vault)
    out = cli.json("forget", "greenhouse", "--vault", vault)
    assert out["notes"][0]["archived_to"] == "memory/.archive/references/greenhouse-2.md"
    assert sorted(p.name for p in (vault / "memory/.archive/references").iterdir()) == ["greenhouse-2.md",
                                                                                         "greenhouse.md"]


# ------------------------------------------------------------------------------ dedupe and warnings


@pytest.mark.slow
def test_save_the_same_content_under_another_name_changes_nothing(vault, cli):
    note = vault / "memory/feedback/answer-first.md"
    body = note.read_text().split("---\n", 2)[2]
    index = vault / "MEMORY.md"
    before = index.read_bytes()
    out = cli.json("save", body, "-t", "reference", "--name", "brevity", "--vault", vault)
    assert (out["status"], out["path"], out["type"], out["index_changed"]) == (
        "unchanged", "memory/feedback/answer-first.md", "feedback", False)
    assert out["description"] == ("Lead with the answer or the recommendation; no preamble, no restating the "
                                  "question")
    assert index.read_bytes() == before
    assert not (vault / "memory/references/brevity.md").exists()
    r = cli("save", body, "-t", "reference", "--name", "brevity", "--vault", vault)
    assert r.stderr == "already saved: memory/feedback/answer-first.md has the same content; nothing changed\n"


@pytest.mark.slow
def test_save_refuses_a_near_duplicate_unless_new(vault, cli):
    r = cli("save", "Lead with the answer", "-t", "user", "--name", "Answer first!", "--vault", vault, code=1)
    assert r.stderr == ("mdmem: memory/people/answer-first.md would be a near-duplicate of "
                        "memory/feedback/answer-first.md (the same name); update that note (--update "
                        "memory/feedback/answer-first.md), pass --supersedes "
                        "memory/feedback/answer-first.md if this one replaces it, or --new to save a second one\n")
    assert not (vault / "memory/people/answer-first.md").exists()
    body = (vault / "memory/feedback/answer-first.md").read_text().split("---\n", 2)[2]
    reworded = body.replace("Long explanations are fine", "Longer explanations are welcome")
    r = cli("save", reworded, "-t", "feedback", "--name", "be brief with Diego", "--vault", vault, code=1)
    assert r.stderr.startswith("mdmem: memory/feedback/be brief with Diego.md would be a near-duplicate of "
                               "memory/feedback/answer-first.md (")
    assert "% the same wording)" in r.stderr
    out = cli.json("save", reworded, "-t", "feedback", "--name", "be brief with Diego", "--new", "--vault", vault)
    assert out["status"] == "created"
    assert (vault / "memory/feedback/be brief with Diego.md").is_file()


@pytest.mark.slow
def test_save_warns_on_what_should_not_be_saved(vault, cli):
    cases = {
        "Parser fix:\n```python\ndef f(x):\n    return x\n```": "it contains code",
        "The ledger config is in atlas/config/ledger.toml": "it names file paths",
        "Fixed in commit 3f9a2c1b after the rebase": "it reads like git history",
        "Right now I'm halfway through the refactor; TODO the tests": "it reads like ephemeral task state",
    }
    for i, (text, warning) in enumerate(cases.items()):
        out = cli.json("save", text, "-t", "reference", "--name", f"warned {i}", "--vault", vault)
        assert out["status"] == "created"  # a warning, not a refusal
        assert [w.split(":")[0] for w in out["warnings"]] == [warning], text
    r = cli("save", "Shipped as 9e8d7c6b, see git log for details", "-t", "reference", "--name", "warned again",
            "--vault", vault)
    assert "warning: it reads like git history: `git log` already keeps that\n" in r.stderr
    clean = cli.json("save", "Marta prefers written risk notes before the Friday 1:1", "-t", "person",
                     "--name", "marta risk notes", "--vault", vault)
    assert clean["warnings"] == []


@pytest.mark.slow
def test_save_warns_when_claude_md_or_a_protocol_already_says_it(vault, cli):
    (vault / "CLAUDE.md").write_text("# Rules\n\nAlways reply in the language the user writes in.\n")
    out = cli.json("save", "Always reply in the language the user writes in.", "-t", "feedback",
                   "--name", "language rule", "--vault", vault)
    assert out["warnings"] == ["CLAUDE.md already says this"]
    out = cli.json("save", "Never compare amounts in different currencies; raise.", "-t", "feedback",
                   "--name", "currency compare", "--vault", vault)
    assert out["warnings"] == ["memory/protocols/money-handling.md already says this (a protocol)"]


# --- classification and decisions ------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("text", "kind", "signal"), [
    ("We chose Postgres over MySQL because of JSONB.", "decision", "We chose"),
    ("Optamos por Adyen em vez de Stripe porque suporta MB Way.", "decision", "Optamos"),
    ("Never summarise diffs back to me after an edit.", "feedback", "Never"),
    ("Não faça commits sem rodar os testes.", "feedback", "Não faça"),
    ("1. run the migration on staging\n2. check lock_timeout", "protocol", "1."),
    ("I prefer short answers with the command first.", "user", "I prefer"),
    ("The Atlas project deadline moved to March.", "project", "project"),
    ("Sofia is a tech lead; she works on payments.", "person", "she works"),  # (Ana has a note already)
    ("The office VPN is vpn.example.org, port 1194.", "reference", None),
])
def test_save_without_type_infers_it_and_says_why(vault, cli, text, kind, signal):
    from mdmem.ops.capture import FOLDERS

    out = cli.json("save", text, "--vault", vault)
    assert out["type"] == kind and out["path"].startswith(f"memory/{FOLDERS[kind]}/")
    if signal:
        assert f"'{signal}'" in out["type_reason"]
    else:
        assert out["type_reason"].startswith("nothing more specific matched")
    given = cli.json("save", "The printer sits on floor 3, by the window.", "--type", "reference",
                     "--vault", vault)
    assert given["type_reason"] == "given"


@pytest.mark.slow
def test_decision_gets_chosen_rejected_and_its_sections(vault, cli):
    out = cli.json("save", "We chose Hetzner over AWS because egress costs dominate.", "--vault", vault)
    assert out["type"] == "decision" and out["path"].startswith("memory/decisions/decision-")
    text = (vault / out["path"]).read_text()
    assert "\nchosen: Hetzner\n" in text and "\nrejected:\n- AWS\n" in text
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections == ["## Context", "## Options considered", "## Decision"]  # no placeholder to fill
    assert len(text.splitlines()) < 30
    explicit = cli.json("save", "Picked the queue for the retries.", "-t", "decision", "--chosen", "SQS",
                        "--rejected", "Kafka", "--rejected", "cron", "--vault", vault)
    text = (vault / explicit["path"]).read_text()
    assert "\nchosen: SQS\n" in text and "\nrejected:\n- Kafka\n- cron\n" in text
    assert "- SQS (chosen)\n- Kafka\n- cron\n" in text
    # the audit reads it as a well-formed decision: no issue about it
    report = cli.json("check", "--vault", vault, "--today", "2026-11-25")
    assert not [i for i in report["issues"] if i["path"] in (out["path"], explicit["path"])]


# --- a save interrupted or racing a watcher ---------------------------------------------


@pytest.mark.slow
def test_kill9_during_save_leaves_old_or_new_never_torn(vault):
    import signal
    import subprocess
    import sys
    import time

    index = vault / "MEMORY.md"
    for delay in (0.05, 0.15, 0.3, 0.6):
        source = vault.parent / f"body-{delay}.txt"  # ~200 KB: a write that takes a moment
        source.write_text(f"Runbook {delay}: the billing runbook, step by step. " * 4000 + str(delay))
        before = index.read_bytes()
        proc = subprocess.Popen([sys.executable, "-m", "mdmem", "save", "--file", str(source), "-t", "reference",
                                 "--name", f"runbook {delay}", "--new", "--vault", str(vault)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        note = vault / "memory" / "references" / f"runbook-{str(delay).replace('.', '')}.md"
        after = index.read_bytes()
        assert after == before or after.count(b"\n") == before.count(b"\n") + 1  # old, or old + one line
        if note.exists():  # never a torn note: complete frontmatter and the whole body
            text = note.read_text()
            assert text.startswith("---\n") and text.rstrip().endswith(str(delay))
        leftovers = [p.name for p in note.parent.glob(".*.tmp")] + [p.name for p in vault.glob(".*.tmp")]
        assert leftovers == [] or all(p.startswith(".") for p in leftovers)  # hidden temp files are never notes
    # and the vault still works: the next command recovers on its own
    out = subprocess.run([sys.executable, "-m", "mdmem", "check", "--vault", str(vault), "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


@pytest.mark.slow
def test_save_during_watch_loses_nothing(vault, cli):
    import queue
    import threading
    import time

    from mdmem.engine.memory import Memory
    from mdmem.ops.watch import watch

    mem = Memory.open(vault)
    mem.refresh()
    batches: queue.Queue = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=watch, args=(mem,), kwargs={"debounce": 0.1, "on_batch": batches.put,
                                                                 "stop": stop})
    thread.start()
    try:
        time.sleep(0.3)
        saved = [cli.json("save", f"Watch-time memory number {i} about quokkas{i}.", "-t", "reference",
                          "--vault", vault)["path"] for i in range(3)]
        time.sleep(1.0)
    finally:
        stop.set()
        thread.join(timeout=10)
        mem.close()
    while not batches.empty():
        assert batches.get().error is None
    index = (vault / "MEMORY.md").read_text()
    for i, path in enumerate(saved):
        assert (vault / path).exists() and f"]({path})" in index
        assert cli.json("search", f"quokkas{i}", "--vault", vault)["results"][0]["path"] == path

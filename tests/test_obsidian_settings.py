"""The vault's Obsidian settings, honoured through the real CLI, on real published vaults with their real
``.obsidian/`` (tests/data/fixtures/SOURCES.md):

- obsidian-tasks-group/obsidian-tasks @ cc0fce3 ``docs/`` (MIT): ``app.json`` with ``useMarkdownLinks`` and
  ``attachmentFolderPath``; its ``graph.json`` hides ``-path:_meta`` (its templates), which the tests below
  write into ``userIgnoreFilters`` as Obsidian writes that list (Settings > Files and links > Excluded files:
  ``"userIgnoreFilters": ["_meta/"]``, a plain entry a path prefix, ``/.../`` a regular expression);
- kepano/kepano-obsidian @ 4736973 (MIT): ``templates.json`` (``{"folder": "Templates"}``), ``daily-notes.json``
  (``{"folder": "Daily", "template": ...}``: no ``format``, so Obsidian's ``YYYY-MM-DD``), ``types.json``
  (``{"types": {...}}``, two-space JSON, no final newline).

Settings written here keep exactly those shapes (key names and JSON layout of the files above).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from support import FIXTURES

pytestmark = pytest.mark.slow  # the whole module is in the slow lane (.ci/run)

TASKS = FIXTURES / "vaults" / "obsidian-tasks-docs" / "docs"
KEPANO = FIXTURES / "vaults" / "kepano-obsidian"


def _copy(source: Path, dest: Path, obsidian: bool = True) -> Path:
    shutil.copytree(source, dest, ignore=None if obsidian else shutil.ignore_patterns(".obsidian"))
    return dest


def _app(vault: Path, **changes) -> None:
    """``.obsidian/app.json`` with ``changes`` set, written as Obsidian writes it (two-space JSON, no newline)."""
    path = vault / ".obsidian" / "app.json"
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data, indent=2))


def test_excluded_files_leave_search_the_graph_and_the_audit(cli, tmp_path):
    vault = _copy(TASKS, tmp_path / "tasks")
    before = cli.json("graph", "orphans", "--vault", vault)["orphans"]
    assert "_meta/templates/image embed.md" in before and "README.md" in before  # what Obsidian's graph hides
    _app(vault, userIgnoreFilters=["_meta/", "/^READ.E\\.md$/", "introduction"])
    orphans = cli.json("graph", "orphans", "--vault", vault)["orphans"]
    assert orphans == [p for p in before if not p.startswith("_meta/") and p != "README.md"]
    assert "Introduction.md" in orphans  # a plain entry is a case-sensitive prefix: "introduction" matches nothing
    dangling = cli.json("graph", "dangling", "--vault", vault)["dangling"]
    assert not [d for d in dangling if any(s.startswith("_meta/") for s in d["sources"])]
    assert "../images/insert-filename-here.png" not in [d["target"] for d in dangling]  # only _meta/ linked it
    hits = cli.json("search", "Released callout whole feature", "--vault", vault)["results"]
    assert hits and not [h for h in hits if h["path"].startswith("_meta/") or h["path"] == "README.md"]
    # still read by path, and counted apart by the audit
    shown = cli.json("show", "_meta/templates/image embed.md", "--vault", vault)
    assert shown["path"] == "_meta/templates/image embed.md"
    report = cli.json("check", "--all", "--vault", vault)
    assert report["left_out"] == {"excluded": 12}
    assert not [i for i in report["issues"] if i["path"].startswith("_meta/") or i["path"] == "README.md"]
    assert "left out as Obsidian leaves them out" in cli("check", "--all", "--vault", vault).stdout


def test_a_link_to_an_excluded_note_still_resolves(cli, tmp_path):
    vault = _copy(TASKS, tmp_path / "tasks")
    (vault / "Linking.md").write_text("See [[new documentation file]] and [[Archive/Old plan]].\n")
    (vault / "Archive").mkdir()
    (vault / "Archive" / "Old plan.md").write_text("# Old plan\n\nthe zeppelin rollout we dropped\n")
    _app(vault, userIgnoreFilters=["_meta/", "Archive/"])
    links = cli.json("links", "Linking.md", "--vault", vault)["links"]
    assert [link["target"] for link in links] == ["_meta/templates/new documentation file.md", "Archive/Old plan.md"]
    assert "Archive/Old plan" not in [d["target"] for d in cli.json("graph", "dangling", "--vault", vault)["dangling"]]
    assert cli.json("search", "zeppelin rollout", "--vault", vault)["results"] == []
    recalled = cli.json("recall", "zeppelin rollout", "--vault", vault)
    assert recalled["ranked"] == [] and recalled["related"] == []


def test_the_templates_folder_is_not_notes_and_its_placeholders_are_no_links(cli, tmp_path):
    vault = _copy(KEPANO, tmp_path / "kepano")
    (vault / "Templates" / "Meeting.md").write_text("---\ncategories: \"[[Meetings]]\"\n---\n[[{{title}} index]]\n")
    dangling = cli.json("graph", "dangling", "--vault", vault)["dangling"]
    assert dangling and not [d for d in dangling if any(s.startswith("Templates/") for s in d["sources"])]
    assert "{{title}} index" not in [d["target"] for d in dangling]
    assert [d["sources"] for d in dangling if d["target"] == "Apps"] == [["References/Obsidian.md"]]  # not the template
    assert not [p for p in cli.json("graph", "orphans", "--vault", vault)["orphans"] if p.startswith("Templates/")]
    hits = cli.json("search", "template", "--vault", vault, "--limit", "50")["results"]
    assert not [h for h in hits if h["path"].startswith("Templates/")]
    links = cli.json("links", "Templates/Meeting.md", "--vault", vault)["links"]
    assert [link["raw"] for link in links] == ["[[Meetings]]"]
    assert cli.json("check", "--all", "--vault", vault)["left_out"] == {"template": 53}


def test_daily_add_appends_to_obsidians_daily_note(cli, tmp_path):
    vault = _copy(KEPANO, tmp_path / "kepano")
    today = dt.date.today()
    out = cli("init", vault).stdout
    assert "daily log: Daily/YYYY-MM-DD.md (Obsidian's Daily notes settings" in out
    entry = cli.json("daily", "add", "met Ana about billing", "--at", "09:30", "--vault", vault)
    assert entry["path"] == f"Daily/{today.isoformat()}.md"
    assert "met Ana about billing" in (vault / "Daily" / f"{today.isoformat()}.md").read_text()
    assert not (vault / "memory" / "daily" / f"{today.isoformat()}.md").exists()
    assert cli.json("daily", "show", "--vault", vault)["days"][0]["path"] == f"Daily/{today.isoformat()}.md"
    # a format with folders, names and escaped text, as Obsidian's moment.js writes it
    (vault / ".obsidian" / "daily-notes.json").write_text(json.dumps(
        {"folder": "Journal", "format": "YYYY/MM-MMMM/[Day] DD dddd", "template": "Templates/Daily Note Template"},
        indent=2))
    entry = cli.json("daily", "add", "second entry", "--at", "10:00", "--vault", vault)
    assert entry["path"] == f"Journal/{today:%Y}/{today:%m-%B}/Day {today:%d %A}.md"
    # the plugin turned off in core-plugins.json: mdmem's own daily log
    core = vault / ".obsidian" / "core-plugins.json"
    core.write_text(json.dumps({**json.loads(core.read_text()), "daily-notes": False}, indent=2))
    assert cli.json("daily", "add", "third", "--vault", vault)["path"] == f"memory/daily/{today.isoformat()}.md"
    # config.toml chooses otherwise, and init says so
    core.write_text(json.dumps({**json.loads(core.read_text()), "daily-notes": True}, indent=2))
    (vault / ".mdmem" / "config.toml").write_text('[daily]\nfolder = "Log"\nformat = "DD.MM.YYYY"\n')
    assert cli.json("daily", "add", "fourth", "--vault", vault)["path"] == f"Log/{today:%d.%m.%Y}.md"
    assert cli.json("init", vault)["daily"] == "Log/DD.MM.YYYY.md ([daily] in .mdmem/config.toml)"
    # a token mdmem does not write: a clear usage error, nothing written
    (vault / ".mdmem" / "config.toml").write_text('[daily]\nformat = "YYYY-MM-DD HH:mm"\n')
    r = cli("daily", "add", "fifth", "--vault", vault, code=2)
    assert "the daily notes format 'YYYY-MM-DD HH:mm' uses 'HH', which mdmem does not write" in r.stderr


def test_types_json_gains_mdmems_fields_and_keeps_the_users(cli, tmp_path):
    vault = _copy(KEPANO, tmp_path / "kepano")
    path = vault / ".obsidian" / "types.json"
    theirs = json.loads(path.read_text())["types"]
    theirs["description"] = "multitext"  # the user's own choice for a field mdmem writes too
    path.write_text(json.dumps({"types": theirs}, indent=2))
    cli("init", vault)
    cli("save", "We chose Postgres over MySQL for billing", "-t", "decision", "--vault", vault)
    after = json.loads(path.read_text())["types"]
    assert {k: after[k] for k in theirs} == theirs  # nothing changed, nothing lost
    assert {k: v for k, v in after.items() if k not in theirs} == {
        "name": "text", "type": "text", "updated": "date", "chosen": "text", "rejected": "multitext"}
    assert path.read_text() == json.dumps({"types": after}, indent=2)  # as Obsidian writes it: no final newline
    # a types.json mdmem cannot read is left as it is
    path.write_text('{"types": {"created": "date",}')
    cli("save", "Ana Souza runs billing at Acme", "-t", "person", "--name", "Ana Souza", "--vault", vault)
    assert path.read_text() == '{"types": {"created": "date",}'
    # a vault without .obsidian/ gets none
    plain = tmp_path / "plain"
    cli("init", plain)
    cli("save", "We chose SQS over Redis", "-t", "decision", "--vault", plain)
    assert not (plain / ".obsidian").exists()


def test_links_mdmem_writes_follow_the_new_link_format(cli, tmp_path):
    vault = _copy(TASKS, tmp_path / "tasks")
    cli("init", vault)
    cli("save", "We chose SQS over Redis for the sync queue", "-t", "decision", "--name", "queue choice",
        "--vault", vault)
    forms = {"shortest": '"[[queue choice]]"', "relative": '"[[queue choice]]"',
             "absolute": '"[[memory/decisions/queue choice]]"'}
    for n, (form, link) in enumerate(forms.items()):
        _app(vault, newLinkFormat=form, useMarkdownLinks=True)  # a property's link stays a wikilink, as in Obsidian
        saved = cli.json("save", f"We chose SNS fan-out number {n} for the sync queue", "-t", "decision",
                         "--name", f"fan out {n}", "--supersedes", "memory/decisions/queue choice.md",
                         "--vault", vault)
        assert f"supersedes: {link}\n" in (vault / saved["path"]).read_text(), form
    _app(vault, newLinkFormat="relative")
    saved = cli.json("save", "Ana Souza runs billing at Acme", "-t", "person", "--name", "Ana Souza",
                     "--supersedes", "memory/decisions/queue choice.md", "--vault", vault)
    assert 'supersedes: "[[../decisions/queue choice]]"\n' in (vault / saved["path"]).read_text()


def test_a_move_keeps_each_links_own_style(cli, tmp_path):
    vault = _copy(TASKS, tmp_path / "tasks")
    cli("init", vault)
    (vault / "How To" / "Links.md").write_text(
        "[absolute](Queries/Filters.md), [relative](../Queries/Filters.md), [[Filters]], [[Queries/Filters|f]]\n")
    cli("move", "Queries/Filters.md", "Reference/Filters.md", "--vault", vault)
    assert (vault / "How To" / "Links.md").read_text() == (
        "[absolute](Reference/Filters.md), [relative](../Reference/Filters.md), [[Filters]], [[Reference/Filters|f]]\n")


def test_a_git_copy_without_obsidian_answers_reads_and_asks_init_for_writes(cli, tmp_path):
    vault = _copy(KEPANO, tmp_path / "copy", obsidian=False)  # as the Obsidian help vault is published
    r = cli("search", "evergreen notes", "--vault", vault)
    assert r.stdout.startswith("1. ") and "Evergreen" in r.stdout
    assert r.stderr == (f"mdmem: {vault} has no vault markers (MEMORY.md, memory/, .obsidian/, .mdmem/): read as a "
                        f"folder of notes; `mdmem init {vault}` before writing to it\n")
    assert cli.json("show", "Notes/Minimal Theme.md", "--vault", vault)["path"] == "Notes/Minimal Theme.md"
    r = cli("save", "I like tea", "--vault", vault, code=2)
    assert "is a folder of notes, not a vault yet: make it one with `mdmem init" in r.stderr
    assert not (vault / "memory").exists() and not (vault / "MEMORY.md").exists()
    assert "does not exist" in cli("search", "x", "--vault", tmp_path / "missing", code=2).stderr
    (tmp_path / "empty").mkdir()
    assert "and no note" in cli("search", "x", "--vault", tmp_path / "empty", code=2).stderr
    cli("init", vault)
    assert cli.json("save", "I like tea", "--vault", vault)["status"] == "created"


def test_a_broken_settings_file_is_obsidians_defaults_and_one_line(cli, tmp_path):
    vault = _copy(KEPANO, tmp_path / "kepano")
    (vault / ".obsidian" / "templates.json").write_text('{"folder": "Templates"')  # cut short by a sync
    r = cli("search", "evergreen", "--vault", vault)
    assert r.stderr.splitlines() == [
        "mdmem: .obsidian/templates.json: not valid JSON (Expecting ',' delimiter: line 1 column 23 (char 22)); "
        "Obsidian's defaults used"]
    assert "Templates/Evergreen Template.md" in r.stdout  # no templates folder known: its notes are notes
    (vault / ".obsidian" / "templates.json").write_text('["Templates"]')
    assert "not a JSON object" in cli("search", "evergreen", "--vault", vault).stderr


def test_the_session_start_card_reads_obsidians_settings_without_the_settings_module(cli, tmp_path):
    """Almost every vault a person keeps has ``.obsidian/``, and the walker reads it on every hook: the card's hook
    reads it as the light module it is (``mdmem.base.settings`` and ``dataclasses`` cost 20-25 ms of each card at
    10k notes, decision 125), and still honours it (an excluded note is not on the card)."""
    import os
    import subprocess
    import sys

    vault = _copy(TASKS, tmp_path / "tasks")
    _app(vault, userIgnoreFilters=["_meta/", "/^READ.E\\.md$/"])
    (vault / "memory" / "feedback").mkdir(parents=True)
    (vault / "memory" / "feedback" / "short answers.md").write_text(
        "---\ntype: feedback\ndescription: Short answers, the conclusion first\n---\nKeep answers short.\n")
    (vault / "_meta" / "left out.md").write_text(
        "---\ntype: feedback\ndescription: Excluded by the user's filter\n---\nNever on the card.\n")
    cli("index", "--vault", vault)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")}
    env.update({"HOME": str(tmp_path / "home"), "MDMEM_HOME": str(tmp_path / "home" / "mdmem")})
    payload = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": str(vault),
                          "session_id": "s1"})
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "mdmem", "hook", "session-start", "--vault",
                           str(vault)], input=payload, capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    card = proc.stdout
    assert "Short answers, the conclusion first" in card and "Excluded by the user's filter" not in card
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "mdmem.base.obsidian" in imported  # the vault's settings were read
    assert not imported & {"mdmem.base.settings", "dataclasses", "typing", "json"}, imported & {
        "mdmem.base.settings", "dataclasses", "typing", "json"}

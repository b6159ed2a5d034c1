"""The CLI contract on sample-vault/: commands, JSON shapes, exit codes."""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path

import pytest

from support import ROOT, run_process


def paths(result: dict) -> list[str]:
    return [hit["path"] for hit in result["results"]]


# --- init -------------------------------------------------------------------

def test_init_lays_down_the_skeleton(cli, tmp_path):
    target = tmp_path / "new"
    out = cli("init", target).stdout
    assert out == (f"created vault at {target}: MEMORY.md, README.md, memory/daily/, memory/people/, "
                   "memory/projects/, memory/protocols/, .mdmem/\n")
    assert (target / "MEMORY.md").read_text().startswith("<!-- budget: ~0tk / 40000tk (0%)")
    for folder in ("people", "projects", "protocols", "daily"):
        assert (target / "memory" / folder).is_dir()
    assert (target / ".mdmem").is_dir()
    # the new vault is found from inside it, with no --vault
    assert cli.json("index", "--vault", target)["notes"] == 2  # MEMORY.md + README.md


def test_init_on_an_existing_folder_adds_only_what_is_missing(cli, tmp_path):
    target = tmp_path / "v"
    (target / "memory" / "people").mkdir(parents=True)
    (target / "MEMORY.md").write_text("mine\n")
    (target / "README.md").write_text("my readme\n")
    (target / "memory" / "people" / "me.md").write_text("me\n")
    before = {p: p.read_bytes() for p in target.rglob("*") if p.is_file()}
    out = cli.json("init", target)
    assert out == {"vault": str(target), "new": False,
                   "added": ["memory/daily/", "memory/projects/", "memory/protocols/", ".mdmem/"],
                   "kept": ["MEMORY.md", "memory/people/"], "daily": "memory/daily/YYYY-MM-DD.md (mdmem's default)",
                   "state": str(target / ".mdmem")}
    assert {p: p.read_bytes() for p in before} == before  # no existing file changed
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()) == [
        ".mdmem/.gitignore", "MEMORY.md", "README.md", "memory/daily/.gitkeep", "memory/people/me.md",
        "memory/projects/.gitkeep", "memory/protocols/.gitkeep"]
    assert (target / ".mdmem" / ".gitignore").read_text() == "*\n"
    assert cli("init", target).stdout == (f"nothing to add: {target} already has MEMORY.md, memory/daily/, "
                                          "memory/people/, memory/projects/, memory/protocols/, .mdmem/\n")
    (target / "file").write_text("x")
    assert "it is a file, not a folder" in cli("init", target / "file", code=1).stderr


def test_init_default_vault_goes_to_mdmem_home(cli, tmp_path):
    home = tmp_path / "home"
    cli("init", env={"MDMEM_HOME": str(home)})
    assert (home / "vault" / "MEMORY.md").is_file()
    # and it is the vault of last resort
    out = cli.json("index", env={"MDMEM_HOME": str(home), "MDMEM_VAULT": ""})
    assert out["notes"] == 2


# --- index ------------------------------------------------------------------

@pytest.mark.slow
def test_index_counts_then_nothing_to_do(cli, vault):
    first = cli.json("index", "--vault", vault)
    assert {k: first[k] for k in ("notes", "added", "changed", "removed")} == {
        "notes": 61, "added": 61, "changed": 0, "removed": 0,
    }
    again = cli.json("index", "--vault", vault)
    assert {k: again[k] for k in ("notes", "added", "changed", "removed")} == {
        "notes": 61, "added": 0, "changed": 0, "removed": 0,
    }
    assert set(first) >= {"notes", "added", "changed", "removed", "seconds"}


@pytest.mark.slow
def test_index_rebuild(cli, vault):
    cli.json("index", "--vault", vault)
    out = cli.json("index", "--vault", vault, "--rebuild")
    assert out["added"] == 61 and out["rebuilt"] is True


@pytest.mark.slow
def test_vault_found_from_a_subfolder_and_env(cli, vault, monkeypatch):
    monkeypatch.chdir(vault / "memory" / "people")
    monkeypatch.delenv("MDMEM_VAULT", raising=False)
    assert cli.json("index")["notes"] == 61
    monkeypatch.chdir(vault.parent)
    assert cli.json("index", env={"MDMEM_VAULT": str(vault)})["notes"] == 61


# --- search -----------------------------------------------------------------

def test_search_natural_question(cli, vault):
    out = cli.json("search", "why did we choose integer cents?", "--vault", vault, "--no-recency")
    assert out["query"] == "why did we choose integer cents?"
    assert paths(out)[0] == "memory/decisions/decision-integer-cents.md"
    top = out["results"][0]
    assert set(top) >= {"path", "title", "score", "snippet"}
    assert top["title"] == "decision-integer-cents"
    assert "**" in top["snippet"]  # matched terms are marked
    scores = [hit["score"] for hit in out["results"]]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0


@pytest.mark.slow
def test_search_title_is_boosted(cli, vault):
    out = cli.json("search", "ledger", "--vault", vault, "--no-recency", "--limit", "3")
    assert paths(out)[0] == "memory/decisions/decision-ledger-double-entry.md"
    assert len(out["results"]) == 3


@pytest.mark.slow
def test_search_folds_accents_and_portuguese_plurals(cli, vault):
    plain = paths(cli.json("search", "migracao", "--vault", vault, "--no-recency", "--limit", "50"))
    accented = paths(cli.json("search", "migração", "--vault", vault, "--no-recency", "--limit", "50"))
    plural = paths(cli.json("search", "migrações", "--vault", vault, "--no-recency", "--limit", "50"))
    assert plain == accented == plural
    assert "memory/people/ana-souza.md" in plain  # says "migrações"
    assert "memory/daily/2026-11-17.md" in plain  # says "Migração"


@pytest.mark.slow
def test_search_stems_english(cli, vault):
    a = set(paths(cli.json("search", "migrations", "--vault", vault, "--no-recency", "--limit", "50")))
    b = set(paths(cli.json("search", "migration", "--vault", vault, "--no-recency", "--limit", "50")))
    assert a == b and "memory/protocols/sql-migrations.md" in a


@pytest.mark.slow
def test_search_phrase_and_boolean_and_fields(cli, vault):
    phrase = cli.json("search", '"integer minor units"', "--vault", vault, "--no-recency")
    assert "memory/decisions/decision-integer-cents.md" in paths(phrase)
    both = set(paths(cli.json("search", "ledger AND adyen", "--vault", vault, "--limit", "50")))
    ledger = set(paths(cli.json("search", "ledger", "--vault", vault, "--limit", "50")))
    without = set(paths(cli.json("search", "ledger NOT adyen", "--vault", vault, "--limit", "50")))
    assert both and both < ledger and without < ledger and not (both & without)
    assert both | without == ledger
    typed = cli.json("search", "type:feedback diffs", "--vault", vault, "--limit", "50")
    assert paths(typed)[0] == "memory/feedback/no-diff-summaries.md"


@pytest.mark.slow
def test_search_filters(cli, vault):
    only = lambda *a: set(paths(cli.json("search", *a, "--vault", vault, "--limit", "100")))  # noqa: E731
    assert only("atlas", "--type", "decision") == {
        p for p in only("atlas") if p.startswith("memory/decisions/")
    }
    assert only("atlas", "--folder", "memory/daily") == {p for p in only("atlas") if p.startswith("memory/daily/")}
    assert only("atlas", "--folder", "memory") == {p for p in only("atlas") if p.startswith("memory/")}
    # tags carry their ancestors: a nested tag matches its parent
    tagged = only("atlas", "--tag", "protocol")
    assert tagged and all("/protocols/" in p for p in tagged)
    # dates are inclusive; daily notes without a date field use their name
    november = only("atlas", "--type", "daily", "--after", "2026-11-01", "--before", "2026-11-17")
    assert november and all("2026-11-01" <= Path(p).stem <= "2026-11-17" for p in november)
    assert "memory/daily/2026-11-17.md" in november
    month = only("atlas", "--type", "daily", "--after", "2026-10", "--before", "2026-10")
    assert month and all(Path(p).stem.startswith("2026-10") for p in month)


@pytest.mark.slow
def test_search_with_only_filters_lists_them(cli, vault):
    out = cli.json("search", "", "--vault", vault, "--type", "feedback", "--limit", "100")
    assert len(out["results"]) == 6


def test_search_no_match_is_empty_not_an_error(cli, vault):
    out = cli.json("search", "zebrafishxyz", "--vault", vault)
    assert out["results"] == []
    text = cli("search", "zebrafishxyz", "--vault", vault)
    assert "no notes match" in text.stderr


@pytest.mark.slow
def test_search_text_output(cli, vault):
    out = cli("search", "integer cents", "--vault", vault, "--limit", "2").stdout
    assert "decision-integer-cents" in out and "memory/decisions/decision-integer-cents.md" in out


def test_recency_lifts_recent_notes(cli, tmp_path):
    v = tmp_path / "v"
    (v / "memory").mkdir(parents=True)
    (v / "MEMORY.md").write_text("# index\n")
    today = dt.date.today()
    old = (today - dt.timedelta(days=400)).isoformat()
    for name, date in (("old.md", old), ("new.md", today.isoformat())):
        (v / "memory" / name).write_text(f"---\nupdated: {date}\n---\nkeyword about caching layers\n")
    on = paths(cli.json("search", "caching", "--vault", v))
    off = cli.json("search", "caching", "--vault", v, "--no-recency")
    assert on == ["memory/new.md", "memory/old.md"]
    assert off["results"][0]["score"] == off["results"][1]["score"]
    (v / ".mdmem" / "config.toml").write_text("[search]\nrecency_half_life_days = 0\n")
    cfg = cli.json("search", "caching", "--vault", v)
    assert [h["score"] for h in cfg["results"]] == [h["score"] for h in off["results"]]


@pytest.mark.slow
def test_bad_config_is_a_clear_error(cli, vault):
    cli("index", "--vault", vault)
    (vault / ".mdmem" / "config.toml").write_text("[search\n")
    result = cli("search", "ledger", "--vault", vault, code=1)
    assert "config.toml" in result.stderr


# --- show / links -------------------------------------------------------------

@pytest.mark.slow
def test_show_json(cli, vault):
    out = cli.json("show", "decision-integer-cents", "--vault", vault)
    assert out["path"] == "memory/decisions/decision-integer-cents.md"
    assert out["type"] == "decision" and out["problems"] == []
    assert set(out) >= {"path", "title", "type", "tags", "aliases", "frontmatter", "tokens", "problems"}
    size = (vault / out["path"]).stat().st_size
    assert out["tokens"] == size * 10 // 32


@pytest.mark.slow
def test_show_accepts_path_file_name_and_title(cli, vault):
    for ref in ("memory/people/ana-souza.md", "ana-souza.md", "ana-souza", "Ana-Souza", "people/ana-souza"):
        assert cli.json("show", ref, "--vault", vault)["path"] == "memory/people/ana-souza.md"


@pytest.mark.slow
def test_show_invalid_yaml_note_is_a_problem_not_a_crash(cli, vault):
    out = cli.json("show", "incident-response", "--vault", vault)
    assert out["type"] == "protocol"  # inferred from the folder
    assert [p["code"] for p in out["problems"]] == ["invalid_yaml"]


@pytest.mark.slow
def test_show_missing_note(cli, vault):
    result = cli("show", "no-such-note", "--vault", vault, code=1)
    assert "no note matches 'no-such-note'" in result.stderr
    assert result.stdout == ""


@pytest.mark.slow
def test_links_json(cli, vault):
    out = cli.json("links", "priya-raman", "--vault", vault)
    assert out["note"] == "memory/people/priya-raman.md"
    for link in out["links"]:
        assert set(link) == {"raw", "target", "subpath", "display", "embed", "kind", "line"}
    dangling = [link for link in out["links"] if link["target"] is None]
    assert [(d["raw"], d["line"], d["kind"]) for d in dangling] == [("[[kafka-retention-policy]]", 18, "wikilink")]


@pytest.mark.slow
def test_links_kinds_and_resolution(cli, vault):
    out = cli.json("links", "atlas-billing", "--vault", vault)
    kinds = {link["kind"] for link in out["links"]}
    assert {"wikilink", "frontmatter"} <= kinds
    resolved = [link for link in out["links"] if link["target"]]
    assert all((vault / link["target"]).exists() for link in resolved)
    table = [link for link in out["links"] if link["display"] == "Ana"]
    assert table and table[0]["target"] == "memory/people/ana-souza.md"


def test_every_link_in_sample_vault_resolves_but_the_deliberate_ones(cli, vault):
    """tests/data/sample-vault-flaws.md: one broken index line, one dangling wikilink."""
    from mdmem.engine.memory import Memory

    with Memory.open(vault) as mem:
        mem.refresh()
        missing = sorted(
            (note.path, link.target)
            for note in mem.notes()
            for link, target in mem.resolved_links(note)
            if target is None
        )
    assert missing == [
        ("MEMORY.md", "memory/references/old-vpn-guide.md"),
        ("memory/people/priya-raman.md", "kafka-retention-policy"),
    ]


# --- errors and entry points -------------------------------------------------

def test_missing_vault_is_exit_2_with_a_message(cli, tmp_path):
    result = cli("search", "x", "--vault", tmp_path / "nope", code=2)  # a --vault that cannot be used: usage
    assert result.stderr.startswith("mdmem: vault not found") and "Traceback" not in result.stderr


def test_no_vault_anywhere(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("index", code=1, env={"MDMEM_HOME": str(tmp_path / "h"), "MDMEM_VAULT": ""})
    assert "no vault found" in result.stderr


def test_usage_errors_exit_2(cli, vault):
    assert cli("search", "x", "--vault", vault, "--after", "yesterday", code=2)
    assert cli("search", "x", "--vault", vault, "--limit", "0", code=2)
    assert cli("frobnicate", code=2)


@pytest.mark.slow
def test_python_dash_m_and_console_script(vault):
    out = run_process("search", "ledger", "--vault", vault, "--json")
    assert out.returncode == 0, out.stderr
    assert '"decision-ledger-double-entry"' in out.stdout
    version = run_process("--version")
    assert version.returncode == 0 and version.stdout.startswith("mdmem ")
    script = Path(sys.executable).parent / "mdmem"
    if script.exists():
        import subprocess

        help_ = subprocess.run([script, "--help"], capture_output=True, text=True)
        assert help_.returncode == 0 and "search" in help_.stdout


def test_help_does_not_import_heavy_modules():
    code = (
        "import sys; sys.argv=['mdmem','--help']\n"
        "from mdmem.__main__ import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy=[m for m in ('whoosh','networkx','markdown_it','watchdog') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "COLUMNS": "100"})
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr


def test_note_argument_falls_back_to_a_frontmatter_title(cli, tmp_path):
    v = tmp_path / "v"
    (v / "memory").mkdir(parents=True)
    (v / "MEMORY.md").write_text("# index\n")
    (v / "memory" / "2026-x1.md").write_text("---\ntitle: Weekly Planning\n---\nbody\n")
    (v / "memory" / "a.md").write_text("---\nname: Twin\n---\none\n")
    (v / "memory" / "b.md").write_text("---\nname: twin\n---\ntwo\n")
    assert cli.json("show", "weekly planning", "--vault", v)["path"] == "memory/2026-x1.md"
    result = cli("show", "Twin", "--vault", v, code=2)
    assert result.stderr == "mdmem: 'Twin' names 2 notes: memory/a.md (name), memory/b.md (name); give its path\n"


def test_written_files_get_normal_permissions(tmp_path):
    from mdmem.base.files import write_atomic

    fresh = tmp_path / "fresh.md"
    write_atomic(fresh, b"x")
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~_umask()
    kept = tmp_path / "kept.md"
    kept.write_text("y")
    kept.chmod(0o640)
    write_atomic(kept, b"z")
    assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_bytes() == b"z"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.slow
def test_note_argument_may_be_an_absolute_path_inside_the_vault(cli, vault):
    absolute = vault / "memory" / "people" / "ana-souza.md"
    assert cli.json("show", str(absolute), "--vault", vault)["path"] == "memory/people/ana-souza.md"
    cli("show", str(vault.parent / "elsewhere.md"), "--vault", vault, code=1)


@pytest.mark.slow
def test_search_refuses_an_unknown_type_as_save_does(cli, vault):
    """`--type decisions` (a typo) answered "no notes match", as if the vault held no decision."""
    r = cli("search", "cents", "--type", "decisions", "--vault", vault, code=2)
    assert r.stdout == "" and r.stderr == ("mdmem: unknown type 'decisions': choose one of daily, decision, digest, "
                                           "feedback, note, person, project, protocol, reference, user\n")
    assert cli.json("search", "cents", "--type", "decision", "--vault", vault)["results"]


@pytest.mark.slow
def test_an_edit_that_keeps_size_and_mtime_is_seen(cli, vault):
    """cp -p, touch -r, an rsync restoring mtimes: the same size and mtime, other text. The card and search kept
    the old text; the change fingerprint now holds st_ctime_ns, which no user call can set."""
    import os

    path = vault / "memory" / "decisions" / "decision-integer-cents.md"
    cli("index", "--vault", vault)
    assert cli.json("search", "zorblat", "--vault", vault)["results"] == []
    before = os.stat(path)
    text = path.read_text()
    head, body = text.split("\n---\n", 1)  # a word of the body, which search reads (not the frontmatter)
    word = next(w for w in body.split() if w.isalpha() and len(w) == 7)
    path.write_text(head + "\n---\n" + body.replace(word, "zorblat", 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # touch -r: the old mtime back
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    hits = cli.json("search", "zorblat", "--vault", vault)["results"]
    assert [h["path"] for h in hits] == ["memory/decisions/decision-integer-cents.md"]

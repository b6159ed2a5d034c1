"""`mdmem context`, `mdmem timeline`, time-aware `recall`, sensitive notes, and the SessionStart hook."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, unfenced

TODAY = "2026-11-25"


def _env(tmp_path: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")}
    return env | {"MDMEM_HOME": str(tmp_path / "home-mdmem"), "HOME": str(tmp_path / "home")} | extra


@pytest.mark.slow
def test_index_card_is_stable_and_within_budget(cli, vault: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MDMEM_HOME", str(tmp_path / "nohome"))
    first = cli("context", "--vault", vault).stdout
    assert first.startswith("# Memory (vault: 60 notes — daily 21, decision 8, person 8, reference 7, feedback 6, "
                            "protocol 5, project 4, user 1)\n")
    assert "Active projects:\n- atlas-billing — Move Quintal's billing" in first and "- home-lab —" not in first
    assert "User: diego-almeida — Diego himself" in first and "Last daily notes: 2026-11-25, 2026-11-24, 2026-11-20" in first
    shutil.rmtree(vault / ".mdmem")  # derived state gone: the same card, byte for byte
    assert cli("context", "--vault", vault).stdout == first
    # the smallest card: the first line and how to pull detail (its command carries this install's runner and the
    # vault's absolute path, ~120 bytes here), nothing cut in the middle
    data = cli.json("context", "--vault", vault, "--budget", "450")
    assert data["bytes"] <= 450 and len(data["text"].encode()) == data["bytes"] and data["omitted"] == []
    lines = data["text"].splitlines()
    assert lines[0].startswith("# Memory (vault: 60 notes") and lines[-1].startswith("Pull detail: ")
    assert "## Memory protocol" not in data["text"] and all(len(ln) < 240 for ln in lines[1:-1])
    assert cli("context", "--vault", vault, "--mode", "off").stdout == ""
    cli("context", "--vault", vault, "--mode", "bogus", code=2)


@pytest.mark.slow
@pytest.mark.parametrize("budget", [200, 350, 800, 1500, 4000, 12000])
@pytest.mark.parametrize("mode", ["index", "full"])
def test_budget_is_never_exceeded(cli, vault: Path, tmp_path: Path, monkeypatch, budget: int, mode: str):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("# Agents\n" + "Be careful with money. " * 80)
    data = cli.json("context", "--vault", vault, "--mode", mode, "--budget", str(budget), "--query", "adyen webhooks",
                    "--paths", "db/migrate/001.sql", "--today", TODAY)
    assert len(data["text"].encode()) <= budget and data["chars"] == len(data["text"])
    assert sum(s["chars"] for s in data["sections"]) == data["chars"]
    assert sum(s["bytes"] for s in data["sections"]) == data["bytes"] == len(data["text"].encode())


@pytest.mark.slow
def test_full_mode_sections_in_priority_order(cli, vault: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MDMEM_HOME", str(tmp_path / "nohome"))
    data = cli.json("context", "--vault", vault, "--mode", "full", "--budget", "20000", "--query",
                    "adyen webhooks", "--today", TODAY)
    names = [s["name"] for s in data["sections"]]
    assert names[names.index("user profile"):] == ["user profile", "feedback", "memory protocol", "active projects",
                                                   "relevant notes", "decisions", "daily", "related"]
    text = unfenced(data["text"])
    assert "## About the user: diego-almeida" in text and "## Memory recall: adyen webhooks" in text
    assert "## Last 3 days\n- 2026-11-25" in text and "2026-11-22" not in text.split("## Last 3 days")[1][:200]


def test_bootstrap_files_workspace_over_global(cli, vault: Path, tmp_path: Path, monkeypatch):
    ws = tmp_path / "project"
    (ws / ".git").mkdir(parents=True)
    (ws / "sub").mkdir()
    glob = tmp_path / "global"
    glob.mkdir()
    (glob / "AGENTS.md").write_text("global agents\n")
    (glob / "SOUL.md").write_text("global soul\n")
    (ws / "AGENTS.md").write_text("workspace agents\n")
    (ws / "RULES.md").write_text("workspace rules\n")
    monkeypatch.setenv("MDMEM_BOOTSTRAP_DIR", str(glob))
    monkeypatch.chdir(ws / "sub")
    data = cli.json("context", "--vault", vault)
    assert [s["name"] for s in data["sections"][:3]] == ["bootstrap AGENTS.md", "bootstrap SOUL.md",
                                                          "bootstrap RULES.md"]
    assert data["text"].startswith("## AGENTS.md\n\nworkspace agents\n\n## SOUL.md\n\nglobal soul\n\n## RULES.md\n\n"
                                   "workspace rules\n")


def test_a_bootstrap_file_linked_outside_its_folder_is_not_read(cli, vault: Path, tmp_path: Path, monkeypatch):
    """A cloned project's ``USER.md`` linked to a file of the user's would go into the agent's context: a link
    out of the workspace is no bootstrap file; one within it (``AGENTS.md`` -> ``CLAUDE.md``) is."""
    ws = tmp_path / "project"
    (ws / ".git").mkdir(parents=True)
    secret = tmp_path / "home" / ".fake_aws_credentials"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text("AKIAFAKE / secret-key-do-not-share\n")
    (ws / "USER.md").symlink_to(secret)
    (ws / "CLAUDE.md").write_text("the project's own rules\n")
    (ws / "AGENTS.md").symlink_to(ws / "CLAUDE.md")
    monkeypatch.setenv("MDMEM_BOOTSTRAP_DIR", str(tmp_path / "no-global"))
    monkeypatch.chdir(ws)
    text = cli.json("context", "--vault", vault)["text"]
    assert "secret-key" not in text and "## AGENTS.md\n\nthe project's own rules" in text


@pytest.mark.slow
def test_protocols_follow_paths_globs(cli, vault: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    proto = vault / "memory" / "protocols" / "sql-migrations.md"
    globs = [g for g in cli.json("show", proto, "--vault", vault)["frontmatter"].get("paths", [])]
    assert globs, "the sample's sql-migrations protocol carries paths:"
    without = cli("context", "--vault", vault, "--budget", "10000").stdout
    assert "## Protocol: sql-migrations" not in without
    target = globs[0].replace("**/", "").replace("*", "x")
    with_path = cli("context", "--vault", vault, "--budget", "10000", "--paths", target).stdout
    assert "## Protocol: sql-migrations (for " in with_path


def _sensitive(vault: Path) -> None:
    (vault / "memory" / "people" / "secret-health.md").write_text(
        "---\nname: secret-health\ndescription: zebracorn medical leave details\ntype: person\nsensitive: true\n"
        "created: 2026-11-24\n---\nzebracorn leave until January.\n")
    (vault / "memory" / "references" / "door-codes.md").write_text(
        "---\ndescription: zebracorn door codes\ntags: [sensitive]\ntype: reference\nupdated: 2026-11-24\n---\n"
        "The zebracorn code is 1234.\n")


@pytest.mark.slow
def test_sensitive_notes_never_appear_unless_asked(cli, vault: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _sensitive(vault)
    for args in (("recall", "zebracorn"), ("context", "--mode", "full", "--query", "zebracorn", "--budget", "20000"),
                 ("context",), ("timeline", "--when", "this week")):
        out = cli(*args, "--vault", vault, "--today", TODAY).stdout
        assert "medical" not in out and "secret-health" not in out and "door" not in out, args
    assert "secret-health" in cli("recall", "zebracorn", "--vault", vault, "--include-sensitive").stdout
    assert "door-codes" in cli("timeline", "--when", "this week", "--vault", vault, "--today", TODAY,
                               "--include-sensitive").stdout
    # search is the person's own tool: it still finds them
    assert any(h["path"].endswith("secret-health.md") for h in cli.json("search", "zebracorn", "--vault", vault)["results"])


@pytest.mark.slow
def test_timeline_window_and_words(cli, vault: Path):
    data = cli.json("timeline", "--vault", vault, "--when", "2026-11-24", "--today", TODAY)
    assert data["start"] == data["end"] == "2026-11-24" and data["entries"]
    daily = [e for e in data["entries"] if e["kind"] == "daily"]
    assert daily and all(e["path"] == "memory/daily/2026-11-24.md" and e["time"] for e in daily)
    times = [e["time"] for e in daily]
    assert times == sorted(times, reverse=True)  # newest first
    assert {e["kind"] for e in data["entries"]} >= {"daily", "updated"}
    narrow = cli.json("timeline", "adyen last month", "--vault", vault, "--today", TODAY)
    assert narrow["phrase"] == "last month" and narrow["start"] == "2026-10-01" and narrow["end"] == "2026-10-31"
    assert narrow["words"] == "adyen"
    assert [(e["date"], e["time"], e["kind"], e["path"]) for e in narrow["entries"]] == [
        ("2026-10-16", None, "created", "memory/references/adyen-webhooks.md"),
        ("2026-10-16", "14:00", "daily", "memory/daily/2026-10-16.md"),  # Adyen further down the entry
        ("2026-10-16", "09:30", "daily", "memory/daily/2026-10-16.md")]
    assert cli.json("timeline", "--vault", vault, "--today", TODAY)["start"] == "2026-10-27"  # last 30 days
    cli("timeline", "--when", "sometime", "--vault", vault, code=2)
    text = cli("timeline", "--when", "2026-11-24", "--vault", vault, "--today", TODAY).stdout
    assert text.startswith("# 2026-11-24 – 2026-11-24 (2026-11-24)\n2026-11-24 ")


@pytest.mark.slow
def test_recall_with_a_time_phrase(cli, vault: Path):
    data = cli.json("recall", "what happened yesterday", "--vault", vault, "--today", TODAY)
    assert data["window"] == {"phrase": "yesterday", "start": "2026-11-24", "end": "2026-11-24"}
    assert data["entries"] and data["markdown"].startswith("## Memory recall: what happened yesterday\n\n### yesterday "
                                                           "(2026-11-24 – 2026-11-24)\n- 2026-11-24")
    # words that match nothing in the window: the window's entries are the answer
    none = cli.json("recall", "xylophonic quasar last week", "--vault", vault, "--today", TODAY)
    assert none["entries"] and none["ranked"] == []
    assert len(none["markdown"]) <= 4000
    plain = cli.json("recall", "adyen webhooks", "--vault", vault)
    assert plain["window"] is None and plain["entries"] == []


# ----------------------------------------------------------------------------- the SessionStart hook


def hook(vault: Path, tmp_path: Path, payload: dict | str, *args: str, **env: str) -> subprocess.CompletedProcess:
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "session-start", "--vault", str(vault), *args],
                          input=raw, capture_output=True, text=True, env=_env(tmp_path, **env), timeout=120,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.slow
def test_session_start_prints_the_card_and_keeps_it(vault: Path, tmp_path: Path, cli, monkeypatch):
    payload = {"session_id": "s", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(tmp_path)}
    first = hook(vault, tmp_path, payload)
    assert first.stdout.startswith("# Memory (vault: 60 notes") and "## Memory protocol (mdmem)\n" in first.stdout
    assert len(first.stdout.encode()) <= 10_000 and first.stderr == ""
    (kept,) = (vault / ".mdmem" / "hooks").glob("context-card*.json")  # one per project (here the folder's)
    card = json.loads(kept.read_text())
    assert card["text"] + "\n" == first.stdout or card["text"] == first.stdout
    again = hook(vault, tmp_path, payload | {"source": "compact"})
    assert again.stdout == first.stdout
    # an edit in the vault: the card is made again
    note = vault / "memory" / "projects" / "home-lab.md"
    note.write_text(note.read_text().replace("status: paused", "status: active"))
    changed = hook(vault, tmp_path, payload | {"source": "resume"})
    assert "- home-lab — Proxmox box" in changed.stdout
    # the same text as `mdmem context` in the same place
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MDMEM_HOME", str(tmp_path / "home-mdmem"))
    assert cli("context", "--vault", vault).stdout == changed.stdout


@pytest.mark.slow
def test_session_start_fails_open_and_caps_output(vault: Path, tmp_path: Path):
    proc = hook(vault, tmp_path, "not json")
    assert proc.stdout == "" and "mdmem hook session-start: stdin is not JSON" in proc.stderr
    big = tmp_path / "ws"
    (big / ".git").mkdir(parents=True)
    (big / "AGENTS.md").write_text("x" * 50_000)
    out = hook(vault, tmp_path, {"cwd": str(big)}, "--budget", "10000").stdout
    assert len(out.encode()) <= 10_001 and "# Memory (vault" in out  # the huge file does not fit: left out, card kept
    assert hook(vault, tmp_path, {"cwd": str(big)}, "--budget", "99999").stdout == ""


@pytest.mark.slow
def test_session_start_imports_no_heavy_module_when_the_card_is_fresh(vault: Path, tmp_path: Path):
    payload = {"cwd": str(tmp_path)}
    hook(vault, tmp_path, payload)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "mdmem", "hook", "session-start", "--vault",
                           str(vault)], input=json.dumps(payload), capture_output=True, text=True,
                          env=_env(tmp_path), timeout=60, cwd=tmp_path)
    assert "# Memory (vault" in proc.stdout
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert not imported & {"whoosh", "networkx", "rich", "typer", "yaml", "markdown_it", "sqlite3"}


@pytest.mark.slow
@pytest.mark.parametrize("notes", [12, 150, 600])
def test_budget_holds_on_generated_vaults(cli, tmp_path: Path, monkeypatch, notes: int):
    """Many vault sizes: a card or full block never exceeds its budget, and the card is stable."""
    out = tmp_path / f"v{notes}"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_vault.py"), str(out), "--notes", str(notes),
                    "--size", "800"], check=True, capture_output=True, timeout=120)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MDMEM_HOME", str(tmp_path / "nohome"))
    for budget in (200, 1000, 4000):
        for mode in ("index", "full"):
            data = cli.json("context", "--vault", out, "--mode", mode, "--budget", str(budget), "--query", "stripe")
            assert len(data["text"].encode()) <= budget, (notes, mode, budget)
    card = cli("context", "--vault", out).stdout
    assert card == cli("context", "--vault", out).stdout and f"{notes} notes" in card.split("\n", 3)[-1] + card

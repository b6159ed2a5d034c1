"""The SessionStart card carries what matters within 10,000 bytes; PreCompact and SessionEnd record what no scan
covered (the card names it in one line); a pending
checkpoint that the next card shows; `hook status` tells the session's state; `install claude` installs the
skills and `uninstall claude` takes everything away; MEMORY.md is an index, not a note that relates others."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, SESSION, unfenced

CARD_MAX = 10_000


def _env(tmp_path: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")}
    return env | {"MDMEM_HOME": str(tmp_path / "home-mdmem"), "HOME": str(tmp_path / "home")} | extra


def hook(name: str, vault: Path, tmp_path: Path, payload: dict, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", name, "--vault", str(vault), *args],
                          input=json.dumps(payload), capture_output=True, text=True, env=_env(tmp_path),
                          timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc


def start(vault: Path, tmp_path: Path, source: str = "startup", session: str = "s1") -> str:
    out = hook("session-start", vault, tmp_path, {"session_id": session, "hook_event_name": "SessionStart",
                                                  "source": source, "cwd": str(tmp_path)}).stdout
    assert len(out.encode()) <= CARD_MAX
    return out


# ----------------------------------------------------------------------------- the card


@pytest.mark.slow
def test_the_card_carries_profile_feedback_protocols_decisions_and_the_protocol(vault: Path, tmp_path: Path, cli,
                                                                               monkeypatch):
    card = start(vault, tmp_path)
    lines = card.splitlines()
    assert lines[0] == ("# Memory (vault: 60 notes — daily 21, decision 8, person 8, reference 7, feedback 6, "
                        "protocol 5, project 4, user 1)")
    assert "Profile:\n- Senior backend/platform engineer at Quintal (restaurant-ops SaaS, ~120 people), payments " \
           "squad. Born in Belo Horizonte" in card
    feedback = card.split("## Feedback (how the user wants you to work)\n")[1].split("\n## ")[0].splitlines()
    assert feedback == [
        "- answer-first — Lead with the answer or the recommendation; no preamble, no restating the question",
        "- ask-before-new-dependencies — Ask before adding any new Python package to Atlas; prefer the standard "
        "library or what's already there",
        "- failing-test-first-for-money — For bugs in money code, write the failing test first and show it failing "
        "before fixing",
        "- never-run-migrations — Never run migrations, backfills or destructive commands against shared databases; "
        "print the command instead",
        "- no-diff-summaries — Don't summarise diffs back to Diego after editing; he reads the diff himself",
        "- reply-in-his-language — Responder na língua em que o Diego escreve (PT-BR ou EN); código, commits e "
        "comentários sempre em inglês"]
    protocols = card.split("## Protocols (always)\n")[1].split("\n## ")[0].splitlines()
    assert [p.split(" — ")[0] for p in protocols] == ["- deploy-checklist", "- incident-response"]  # no paths:
    decisions = card.split("## Recent decisions\n")[1].split("\n")
    assert decisions[0].startswith("- 2026-11-24 decision-adyen-over-stripe — Chose Adyen")
    assert decisions[5].startswith("- … and 3 older: `") and \
        decisions[5].endswith(f" search type:decision --vault {vault.absolute()}`")
    assert "\n## Memory protocol (mdmem)\nBefore answering about past work" in card
    assert lines[-1].startswith("Pull detail: ")
    # byte-stable: again, and after the derived state is gone, the same bytes; `context` prints the same
    assert start(vault, tmp_path, "resume") == card
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MDMEM_HOME", str(tmp_path / "home-mdmem"))
    assert cli("context", "--vault", vault).stdout == card
    full = unfenced(cli("context", "--vault", vault, "--mode", "full", "--budget", "30000").stdout)
    assert "## Feedback (how the user wants you to work)\n- answer-first" in full
    assert "## Recent decisions\n- 2026-11-24 decision-adyen-over-stripe" in full and "## Memory protocol" in full


@pytest.mark.slow
def test_a_new_memory_protocol_makes_the_card_again(vault: Path, tmp_path: Path, monkeypatch):
    """The card is kept while nothing it depends on changed; an upgrade whose memory protocol differs (this
    session's rule: a user's rule or correction stands alone) is such a change, not only the notes."""
    from mdmem.agents.hooks import session as hooks
    from mdmem.text import protocol

    card = start(vault, tmp_path)
    assert "say nothing, unless the user stated a rule or corrected you" in card
    before = hooks.fingerprint(str(vault), str(tmp_path))
    assert hooks.fingerprint(str(vault), str(tmp_path)) == before
    monkeypatch.setitem(protocol._PROTOCOL, "en", "## Memory protocol (mdmem)\nRecall first with `{run} recall`.\n")
    assert hooks.fingerprint(str(vault), str(tmp_path)) != before


@pytest.mark.slow
def test_a_note_saved_without_a_description_is_not_said_twice(tmp_path: Path, cli):
    """`save` without `--description` gives a note whose name and description are the same words: the card
    printed "- X — X" (and a user note's fact a third time in its profile) in every session. Said once."""
    vault = tmp_path / "notes"
    cli("init", vault)
    cli("save", "I prefer short answers, conclusion first", "-t", "feedback", "--vault", vault)
    cli("save", "Diego, backend engineer at Quintal", "-t", "user", "--name", "Diego", "--vault", vault)
    card = start(vault, tmp_path)
    [line] = [ln for ln in card.splitlines() if "short answers" in ln.lower()]
    assert line.lower().count("short answers") == 1, line
    assert card.count("backend engineer at Quintal") == 1, card


@pytest.mark.slow
def test_the_cards_commands_work_from_the_project_folder(vault: Path, tmp_path: Path):
    """The agent's shell runs in the project, not the vault: a new user's trial ran the card's bare `mdmem recall`
    there and got "no vault found" (or, with a default vault, `checkpoint accept` saved into that other vault).
    The card's commands carry this install's runner and `--vault` with the vault's absolute path; run as the
    card writes them, from a project folder elsewhere, they reach this vault."""
    import re
    import shlex

    project = tmp_path / "code" / "my project"
    project.mkdir(parents=True)
    card = start(vault, tmp_path)
    commands = re.findall(r"`([^`]+ --vault [^`]+)`", card)
    [recall, again] = [c for c in commands if ' recall "<question>" --vault ' in c]  # the protocol's, "Pull detail"'s
    assert recall == again
    assert all(c.startswith(recall.split(" recall ")[0] + " ") and c.endswith(" --vault " + shlex.quote(str(
        vault.absolute()))) for c in commands), commands
    assert " checkpoint accept 1,3 --vault " in card and " checkpoint skip --vault " in card
    assert not re.search(r"`mdmem ", card)  # no bare command left
    command = recall.replace('"<question>"', shlex.quote("why did we choose integer cents"))
    proc = subprocess.run(command, shell=True, cwd=project, capture_output=True, text=True, env=_env(tmp_path),
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "## Memory recall: why did we choose integer cents" in proc.stdout and "cents" in proc.stdout.lower()


@pytest.mark.slow
def test_an_upgrade_of_the_cards_code_makes_the_card_again(vault: Path, tmp_path: Path, monkeypatch):
    """The card's layout lives in code (:data:`hooks.CARD_CODE`); a kept card waited for a note to change
    before an upgrade's new layout showed. Every file of it keys the card: one rewritten changes the key."""
    from mdmem.agents.hooks import session as hooks

    assert all((ROOT / "mdmem" / rel).is_file() for rel in hooks.CARD_CODE)  # the names are the package's files
    code = tmp_path / "context.py"
    code.write_text("# layout 1\n", "utf-8")
    monkeypatch.setattr(hooks, "CARD_CODE", hooks.CARD_CODE + (str(code),))  # an absolute path joins as itself
    start(vault, tmp_path)
    before = hooks.fingerprint(str(vault), str(tmp_path))
    assert hooks.fingerprint(str(vault), str(tmp_path)) == before
    code.write_text("# layout 2, longer\n", "utf-8")
    assert hooks.fingerprint(str(vault), str(tmp_path)) != before


@pytest.mark.slow
@pytest.mark.parametrize("notes", [40, 400, 2500])
def test_the_card_stays_within_its_bytes_and_says_what_it_left_out(cli, tmp_path: Path, notes: int):
    """Generated vaults of three sizes, plus 300 feedback notes with multi-byte descriptions: the card never
    passes 8,000 bytes (the hook's output never 10,000), is the same bytes twice, and names what is left out."""
    out = tmp_path / f"v{notes}"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_vault.py"), str(out), "--notes", str(notes),
                    "--size", "400"], check=True, capture_output=True, timeout=300)
    folder = out / "memory" / "feedback" / "many"
    folder.mkdir(parents=True)
    for i in range(300):
        (folder / f"rule-{i:03d}.md").write_text(
            f"---\ndescription: Não faça isso de novo — regra nº {i} com acentuação çãõé 🙂\ntype: feedback\n"
            f"updated: 2026-10-{1 + i % 28:02d}\n---\nRegra {i}.\n")
    card = start(out, tmp_path)
    again = start(out, tmp_path, "clear")
    assert card == again and len(card.encode()) <= 8000 and len(card.encode()) > 6000  # the room is used
    feedback = card.split("## Feedback (how the user wants you to work)\n")[1].split("\n## ")[0].splitlines()
    total = cli.json("graph", "map", "--vault", out)["by_type"]["feedback"]
    assert total >= 300
    listed = [f for f in feedback if not f.startswith("- … and ")]
    assert feedback[-1].startswith(f"- … and {total - len(listed)} more: `") and \
        feedback[-1].endswith(f" search type:feedback --vault {out.absolute()}`")
    assert len(listed) >= 5 and all(len(line.encode()) <= 240 for line in listed)
    assert "## Memory protocol (mdmem)\n" in card and card.splitlines()[-1].startswith("Pull detail: ")


# ----------------------------------------------------------------------------- pending checkpoints


@pytest.fixture
def talk(tmp_path: Path) -> Path:
    path = tmp_path / "talk.txt"
    path.write_text(SESSION)
    return path


@pytest.mark.slow
def test_pre_compact_records_what_no_scan_covered_and_the_card_after_compaction_names_it(vault: Path, tmp_path: Path,
                                                                                           talk: Path, cli):
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    card = start(vault, tmp_path)
    payload = {"session_id": "s1", "transcript_path": str(talk), "cwd": str(tmp_path),
               "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""}
    out = hook("pre-compact", vault, tmp_path, payload)
    assert json.loads(out.stdout) == {"systemMessage": "mdmem: the turns no memory checkpoint scanned are kept for "
                                                       "review after the compaction."}
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before  # nothing written to memory
    after = start(vault, tmp_path, "compact")
    assert after.startswith(card.rstrip("\n") + "\n\nmdmem: not scanned: 4 user message(s) of session s1 were never "
                                                 "checked for memories: run `")
    assert "checkpoint review --session s1 --vault" in after.splitlines()[-1]
    # a new session of the same project is told too; after a compaction only the session's own counts
    assert "not scanned: 4 user message(s) of session s1" in start(vault, tmp_path, "startup", "s2")
    assert "not scanned" not in start(vault, tmp_path, "compact", "s2")
    review = cli("checkpoint", "review", "--session", "s1", "--vault", vault).stdout
    assert "never edit files under migrations/ by hand" in review and "checkpoint propose --session s1" in review
    assert "not scanned" not in start(vault, tmp_path, "compact")  # handed to a model: the card stops naming it


@pytest.mark.slow
def test_session_end_records_it_for_the_next_start(vault: Path, tmp_path: Path, talk: Path, cli):
    payload = {"session_id": "s7", "transcript_path": str(talk), "cwd": str(tmp_path),
               "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
    assert hook("session-end", vault, tmp_path, payload).stdout == ""
    card = start(vault, tmp_path, "startup", "s8")
    assert "mdmem: not scanned: 4 user message(s) of session s7" in card
    gone = hook("pre-compact", vault, tmp_path, payload | {"transcript_path": str(tmp_path / "missing.jsonl")})
    assert gone.stdout == "" and "no transcript to read" in gone.stderr  # fails open


@pytest.mark.slow
def test_hook_status_shows_the_session(vault: Path, tmp_path: Path, talk: Path, cli, monkeypatch):
    """The cadence policy (the signals policy would fire on this conversation: tests/test_hook_signals.py)."""
    monkeypatch.chdir(tmp_path)
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem" / "config.toml").write_text('[hook]\npolicy = "cadence"\n')
    env = {"MDMEM_NOW": "1790000000"}
    stop = {"session_id": "s1", "transcript_path": str(talk), "cwd": str(tmp_path), "hook_event_name": "Stop"}
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "stop", "--vault", str(vault)],
                              input=json.dumps(stop), capture_output=True, text=True,
                              env=_env(tmp_path, **env), timeout=120, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stdout == ""
    hook("pre-compact", vault, tmp_path, stop | {"hook_event_name": "PreCompact"})
    got = cli.json("hook", "status", "--vault", vault)["session"]
    assert got["session"] == "s1" and got["stops"] == 3 and got["next"]["stops_left"] == 17
    assert got["next"]["policy"] == "cadence" and got["next"]["not_before"].startswith("2026-09-21T")
    assert got["pending"] is None and got["review"] == {"event": "PreCompact", "typed": 4, "status": "pending"}
    text = cli("hook", "status", "--vault", vault).stdout
    assert f"session s1 (vault {vault}): 3 stop(s), 0 checkpoint(s), 0 note(s) recalled at prompts" in text
    assert "  next checkpoint (cadence): after 17 more stop(s), not before 2026-09-21T" in text
    assert "  not scanned: 4 user message(s), recorded by PreCompact: `mdmem checkpoint review --session s1`" in text


# ----------------------------------------------------------------------------- skills


@pytest.mark.slow
def test_install_claude_installs_the_skills_and_uninstall_takes_everything_away(cli, vault: Path, tmp_path: Path,
                                                                                 monkeypatch):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    skills = project / ".claude" / "skills"
    mine = skills / "consolidate" / "notes.md"  # a file of the user's beside a skill: kept
    out = cli.json("install", "claude", "--vault", vault, "--project", project)
    assert [(s["name"], s["action"]) for s in out["skills"]["skills"]] == [
        ("memory-check", "added"), ("consolidate", "added"), ("mdmem-memory", "added")]
    check = (skills / "memory-check" / "SKILL.md").read_text()
    assert check.startswith("---\nname: memory-check\ndescription: Audit the user's mdmem memory vault")
    assert "\ndisable-model-invocation: true\n---\n<!-- mdmem: written by `mdmem install claude`" in check
    assert f"check --json --vault {vault}`" in check and f"check --update-budget --vault {vault}`" in check
    consolidate = (skills / "consolidate" / "SKILL.md").read_text()
    assert consolidate.startswith("---\nname: consolidate\n") and "disable-model-invocation: true" in consolidate
    assert "Scan this conversation for memories worth keeping when more than 15 tool calls" in consolidate
    memory = (skills / "mdmem-memory" / "SKILL.md").read_text()
    assert memory.startswith("---\nname: mdmem-memory\n") and "\nuser-invocable: false\n---\n" in memory
    for heading in ("## Recall before answering", "## What to save, under which type", "## Never save",
                    "## Propose a checkpoint"):
        assert heading in memory
    assert not (skills / "checkpoint").exists()
    stamps = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in skills.rglob("SKILL.md")}
    again = cli.json("install", "claude", "--vault", vault, "--project", project)
    assert {s["action"] for s in again["skills"]["skills"]} == {"unchanged"}
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in skills.rglob("SKILL.md")} == stamps
    status = cli.json("hook", "status", "--project", project)["skills"]
    assert [(s["name"], s["action"]) for s in status if s["action"] != "absent"] == [
        ("memory-check", "installed"), ("consolidate", "installed"), ("mdmem-memory", "installed")]
    # a skill of the user's with one of the names is never touched
    (skills / "memory-check" / "SKILL.md").write_text("---\nname: memory-check\n---\nmy own\n")
    mine.write_text("mine\n")
    kept = cli("install", "claude", "--vault", vault, "--project", project)
    assert "skill /memory-check: kept" in kept.stdout and "is not mdmem's: left as it is" in kept.stderr
    gone = cli.json("uninstall", "claude", "--project", project)
    # the vault is outside the project, so the server was in the local scope, not in .mcp.json
    assert [r["actions"] for r in gone["results"][:2]] == [{"mcpServers.mdmem": "absent"},
                                                          {"mcpServers.mdmem": "removed"}]
    assert set(gone["results"][2]["actions"].values()) == {"removed"}
    assert [(s["name"], s["action"]) for s in gone["skills"]["skills"]] == [
        ("memory-check", "kept"), ("consolidate", "removed"), ("mdmem-memory", "removed")]
    assert not (project / ".mcp.json").exists()
    assert not (project / ".claude" / "settings.local.json").exists()  # it held only mdmem's hooks
    assert sorted(str(p.relative_to(skills)) for p in skills.rglob("*") if p.is_file()) == [
        "consolidate/notes.md", "memory-check/SKILL.md"]
    assert not (skills / "mdmem-memory").exists()
    again = cli.json("uninstall", "claude", "--project", project)
    assert [r["actions"] for r in again["results"][:2]] == [{"mcpServers.mdmem": "absent"}] * 2


# ----------------------------------------------------------------------------- MEMORY.md is an index


@pytest.mark.slow
def test_recall_and_neighbors_have_no_memory_md_hub(cli, vault: Path):
    """sample-vault's MEMORY.md links every memory: it must neither come back as a hit nor relate notes."""
    hits = cli.json("search", "memory index pointers", "--vault", vault, "--limit", "50")["results"]
    assert "MEMORY.md" not in [h["path"] for h in hits]
    with_index = cli.json("search", "memory index pointers", "--vault", vault, "--include-index")["results"]
    assert with_index[0]["path"] == "MEMORY.md"
    got = cli.json("recall", "why did we choose adyen", "--vault", vault)
    reasons = [r["reason"] for r in got["related"]]
    assert "memory/decisions/decision-adyen-over-stripe.md" in [r["path"] for r in got["ranked"]]
    assert reasons and not any("MEMORY" in r for r in reasons)
    assert all(r["path"] != "MEMORY.md" for r in got["ranked"] + got["related"])
    # each related note is really linked with a ranked one, not through the index
    ranked = {r["path"] for r in got["ranked"]}
    for r in got["related"]:
        linked = {x["target"] for x in cli.json("links", r["path"], "--vault", vault)["links"]} | {
            b["source"] for b in cli.json("backlinks", r["path"], "--vault", vault)["backlinks"]}
        assert linked & ranked, r
    two = cli.json("neighbors", "lisbon-coworking-spots", "--vault", vault, "--depth", "2")["neighbors"]
    notes = sum(cli.json("graph", "map", "--vault", vault)["by_type"].values())
    assert len(two) < notes // 2 and "MEMORY.md" not in [n["path"] for n in two]
    # MEMORY.md still lists its links and backlinks still show it
    assert any(b["source"] == "MEMORY.md" for b in cli.json("backlinks", "atlas-billing", "--vault", vault)["backlinks"])

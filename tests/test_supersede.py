"""Facts that supersede: frontmatter ``supersedes: "[[old]]"`` and ``valid_until: YYYY-MM-DD``.
``save --supersedes`` writes the first; recall, context (the card and ``--query``) and the prompt hook leave
superseded and expired notes out; search keeps them, marked; check reports what is wrong or likely."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the whole module is in the slow lane (.ci/run)

TODAY = "2026-11-25"
OLD = "memory/references/zanzibar-hours.md"
NEW = "memory/references/Zanzibar hours.md"
OLD_TEXT = ("---\ntype: reference\ndescription: when the Zanzibar coworking opens\ncreated: 2026-10-01\n---\n"
            "# Zanzibar coworking\nThe Zanzibar coworking opens at 08:00 on weekdays and closes at 18:00.\n")
NEW_BODY = "The Zanzibar coworking now opens at 07:30 on weekdays and closes at 20:00."


def write(vault: Path, rel: str, text: str) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def note(kind: str, body: str, **fm: str) -> str:
    lines = "".join(f"{k}: {v}\n" for k, v in fm.items())
    return f"---\ntype: {kind}\n{lines}---\n{body}\n"


def ranked(cli, vault: Path, query: str, today: str = TODAY) -> list[str]:
    out = cli.json("recall", query, "--vault", vault, "--today", today)
    return [i["path"] for i in out["ranked"]] + [i["path"] for i in out["related"]]


def hits(cli, vault: Path, query: str, today: str = TODAY) -> dict[str, dict]:
    out = cli.json("search", query, "--vault", vault, "--today", today)
    return {h["path"]: h for h in out["results"]}


def _env(tmp_path: Path, today: str = TODAY) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")}
    return env | {"MDMEM_HOME": str(tmp_path / "home-mdmem"), "HOME": str(tmp_path / "home"), "MDMEM_TODAY": today}


def hook(name: str, vault: Path, tmp_path: Path, payload: dict, today: str = TODAY) -> str:
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", name, "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, env=_env(tmp_path, today),
                          timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def injected(vault: Path, tmp_path: Path, prompt: str, session: str, today: str = TODAY) -> list[str]:
    out = hook("prompt", vault, tmp_path, {"session_id": session, "prompt": prompt, "cwd": str(tmp_path),
                                           "hook_event_name": "UserPromptSubmit"}, today)
    if not out.strip():
        return []
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return [line.split(" (", 1)[1].split(")", 1)[0] for line in text.splitlines() if line.startswith("- ")]


def card(vault: Path, tmp_path: Path, today: str = TODAY) -> str:
    return hook("session-start", vault, tmp_path, {"session_id": "s", "hook_event_name": "SessionStart",
                                                   "source": "startup", "cwd": str(tmp_path)}, today)


# ----------------------------------------------------------------------------- save --supersedes


def test_save_supersedes_writes_the_link_and_never_touches_the_old_note(vault: Path, cli):
    old = write(vault, OLD, OLD_TEXT)
    cli("index", "--vault", vault)
    before = old.read_bytes(), old.stat().st_mtime_ns
    # the same name as the old note ("the same name" near-duplicate): allowed, since it replaces it
    out = cli.json("save", NEW_BODY, "--type", "reference", "--name", "Zanzibar hours", "--supersedes",
                   "zanzibar-hours", "--vault", vault)
    today = dt.date.today().isoformat()
    assert out["status"] == "created" and out["path"] == NEW and out["supersedes"] == [OLD]
    assert (vault / NEW).read_text() == (
        "---\nname: Zanzibar hours\ndescription: The Zanzibar coworking now opens at 07:30 on weekdays and closes "
        f"at 20:00.\ntype: reference\ntags: []\nsource: user\nsupersedes: \"[[zanzibar-hours]]\"\ncreated: {today}\n"
        f"updated: {today}\n---\n\n{NEW_BODY}\n")
    assert (old.read_bytes(), old.stat().st_mtime_ns) == before
    human = cli("save", "Desks at Zanzibar are first come, first served.", "--type", "reference", "--name",
                "Zanzibar desks", "--supersedes", "[[Zanzibar hours]]", "--vault", vault)
    assert human.stderr.splitlines()[1] == ("supersedes memory/references/Zanzibar hours.md (left as it is; its "
                                            "MEMORY.md line marked; recall and context leave it out)")
    assert 'supersedes: "[[Zanzibar hours]]"\n' in (vault / "memory/references/Zanzibar desks.md").read_text()


def test_save_supersedes_a_list_and_refuses_what_points_nowhere_or_is_ambiguous(vault: Path, cli):
    write(vault, "memory/references/dup.md", note("reference", "one dup"))
    write(vault, "memory/projects/dup.md", note("project", "another dup"))
    cli("index", "--vault", vault)
    index = (vault / "MEMORY.md").read_bytes()
    assert ranked(cli, vault, "lead with the answer preamble")[0] == "memory/feedback/answer-first.md"
    r = cli("save", "Something new.", "--type", "reference", "--supersedes", "no-such-note", "--vault", vault, code=1)
    assert r.stderr.startswith("mdmem: no note matches 'no-such-note' in ")
    r = cli("save", "Something new.", "--type", "reference", "--supersedes", "dup", "--vault", vault, code=2)
    assert r.stderr == ("mdmem: --supersedes 'dup' is ambiguous: 2 notes have that name (memory/projects/dup.md, "
                        "memory/references/dup.md); give its path\n")
    assert (vault / "MEMORY.md").read_bytes() == index and not (vault / "memory/references/something-new.md").exists()
    out = cli.json("save", "Something new.", "--type", "reference", "--supersedes", "memory/projects/dup.md",
                   "--supersedes", "answer-first", "--vault", vault)
    assert out["supersedes"] == ["memory/projects/dup.md", "memory/feedback/answer-first.md"]
    text = (vault / out["path"]).read_text()
    assert "\nsupersedes:\n- \"[[memory/projects/dup]]\"\n- \"[[answer-first]]\"\ncreated: " in text
    assert "memory/feedback/answer-first.md" not in ranked(cli, vault, "lead with the answer preamble")


def test_save_supersedes_marks_the_old_line_of_memory_md_and_check_reports_an_unmarked_one(vault: Path, cli):
    """After `save NEW --supersedes OLD`, MEMORY.md still listed OLD as current, unmarked, and check said nothing:
    the old line is marked (the new note named as text, the line format and every other byte kept, CRLF too)."""
    cli("save", "Staging deploys run the deploy script by hand.", "--type", "reference", "--name", "staging-deploy",
        "--vault", vault)
    index = vault / "MEMORY.md"
    index.write_bytes(index.read_bytes().replace(b"\n", b"\r\n"))  # a Windows editor's line ends, kept
    before = index.read_bytes().split(b"\r\n")
    old_line = next(i for i, line in enumerate(before) if b"](memory/references/staging-deploy.md)" in line)
    out = cli.json("save", "Staging deploys run from GitHub Actions on every merge.", "--type", "reference",
                   "--name", "staging-actions", "--supersedes", "staging-deploy", "--vault", vault)
    assert out["index_marked"] == ["memory/references/staging-deploy.md"]
    after = index.read_bytes().split(b"\r\n")
    assert after[old_line] == (b"- [staging-deploy.md](memory/references/staging-deploy.md) \xe2\x80\x94 Staging deploys "
                               b"run the deploy script by hand. (superseded by staging-actions.md) `~" +
                               before[old_line].rsplit(b"`~", 1)[1])
    added = [line for line in after if line not in before]
    assert added == [after[old_line], b"- [staging-actions.md](memory/references/staging-actions.md) \xe2\x80\x94 "
                     b"Staging deploys run from GitHub Actions on every merge. `~" + added[1].rsplit(b"`~", 1)[1]]
    assert [line for line in before if line not in after] == [before[old_line]]
    report = cli.json("check", "--vault", vault)
    mine = [(i["kind"], i["severity"], i["line"]) for i in report["issues"] if i["kind"] == "SUPERSEDED"]
    assert mine == [("SUPERSEDED", "info", old_line + 1)]
    index.write_bytes(index.read_bytes().replace(b" (superseded by staging-actions.md)", b""))  # an older save's line
    report = cli.json("check", "--vault", vault)
    [issue] = [i for i in report["issues"] if i["kind"] == "SUPERSEDED"]
    assert (issue["severity"], issue["path"], issue["line"]) == ("warning", "MEMORY.md", old_line + 1)
    assert issue["detail"] == (f"line {old_line + 1}: memory/references/staging-deploy.md is superseded by "
                               "memory/references/staging-actions.md, but the line lists it as current: an agent "
                               "loads it as the truth")


def test_search_ranks_a_superseded_note_below_the_note_that_supersedes_it(vault: Path, cli):
    """The superseded note matched the words better and came first: it now comes right after its successor."""
    write(vault, "memory/references/kiwi-old.md", note("reference", "Kiwi builds: kiwi builds run the kiwi build "
                                                       "script, kiwi builds nightly."))
    write(vault, "memory/references/kiwi-new.md", note("reference", "Kiwi builds now run in CI.",
                                                       supersedes='"[[kiwi-old]]"'))
    write(vault, "memory/references/kiwi-other.md", note("reference", "Kiwi builds cache pip wheels, kiwi builds."))
    got = [h["path"] for h in cli.json("search", "kiwi builds", "--vault", vault)["results"]]
    assert got == ["memory/references/kiwi-other.md", "memory/references/kiwi-new.md",
                   "memory/references/kiwi-old.md"]


# ----------------------------------------------------------------------------- recall, search, context


def test_recall_leaves_a_superseded_note_out_and_search_marks_it(vault: Path, cli):
    write(vault, OLD, OLD_TEXT)
    cli("index", "--vault", vault)
    assert ranked(cli, vault, "zanzibar coworking")[0] == OLD
    cli("save", NEW_BODY, "--type", "reference", "--name", "Zanzibar hours", "--supersedes", OLD, "--vault", vault)
    got = ranked(cli, vault, "zanzibar coworking")
    assert got[0] == NEW and OLD not in got  # nor as the new note's related (it links to the old one)
    found = hits(cli, vault, "zanzibar coworking")
    assert found[OLD]["superseded_by"] == [NEW] and found[OLD]["expired"] is False
    assert found[OLD]["valid_until"] is None and found[NEW]["superseded_by"] is None
    assert set(found[NEW]) >= {"path", "title", "score", "snippet", "date", "signals"}  # the old keys stay
    human = cli("search", "zanzibar coworking", "--vault", vault, "--today", TODAY).stdout
    assert "   superseded by [[Zanzibar hours]]\n" in human
    full = cli("context", "--mode", "full", "--query", "zanzibar coworking", "--vault", vault, "--today", TODAY).stdout
    assert f"({NEW})" in full and OLD not in full


def test_a_chain_a_b_c_leaves_only_c_and_a_note_superseding_itself_stays(vault: Path, cli):
    write(vault, "memory/references/a.md", note("reference", "Wombat tariff is 10 euros.", created="2026-10-01"))
    write(vault, "memory/references/b.md", note("reference", "Wombat tariff is 12 euros.", created="2026-10-10",
                                                supersedes='"[[a]]"'))
    write(vault, "memory/references/c.md", note("reference", "Wombat tariff is 15 euros.", created="2026-10-20",
                                                supersedes="b"))  # a plain name: the same link
    write(vault, "memory/references/d.md", note("reference", "Wombat parking is free.", supersedes='"[[d]]"'))
    cli("index", "--vault", vault)
    assert sorted(ranked(cli, vault, "wombat")) == ["memory/references/c.md", "memory/references/d.md"]
    found = hits(cli, vault, "wombat")
    assert found["memory/references/a.md"]["superseded_by"] == ["memory/references/b.md"]
    assert found["memory/references/b.md"]["superseded_by"] == ["memory/references/c.md"]
    assert found["memory/references/c.md"]["superseded_by"] is None
    assert found["memory/references/d.md"]["superseded_by"] is None
    # superseding is the new note's word: editing it away brings the old note back
    write(vault, "memory/references/c.md", note("reference", "Wombat tariff is 15 euros.", created="2026-10-20"))
    assert "memory/references/b.md" in ranked(cli, vault, "wombat")


def test_a_list_of_links_supersedes_each(vault: Path, cli):
    write(vault, "memory/references/x1.md", note("reference", "Numbat rule one."))
    write(vault, "memory/references/x2.md", note("reference", "Numbat rule two."))
    write(vault, "memory/references/x3.md", note("reference", "Numbat rules, both.",
                                                 supersedes='\n  - "[[x1]]"\n  - "[[x2|the second]]"'))
    cli("index", "--vault", vault)
    assert ranked(cli, vault, "numbat") == ["memory/references/x3.md"]
    found = hits(cli, vault, "numbat")
    assert [found[f"memory/references/x{i}.md"]["superseded_by"] for i in (1, 2)] == [["memory/references/x3.md"]] * 2


def test_recall_of_a_time_window_leaves_the_superseded_notes_entries_out(vault: Path, cli):
    write(vault, "memory/references/wallaby.md", note("reference", "Wallaby budget is 5k.", created="2026-11-17",
                                                      description="wallaby budget approved"))
    write(vault, "memory/references/wallaby-2.md", note("reference", "Wallaby budget is 7k.", created="2026-11-18",
                                                        description="wallaby budget raised",
                                                        supersedes='"[[wallaby]]"'))
    cli("index", "--vault", vault)
    out = cli.json("recall", "wallaby last week", "--vault", vault, "--today", TODAY)
    assert (out["window"]["start"], out["window"]["end"]) == ("2026-11-16", "2026-11-22")
    assert [e["path"] for e in out["entries"]] == ["memory/references/wallaby-2.md"]
    assert "memory/references/wallaby.md" not in out["markdown"]


def test_an_expired_note_is_recalled_through_its_day_and_marked_after(vault: Path, cli):
    write(vault, "memory/references/promo.md", note("reference", "The quokka promo code gives 20% off.",
                                                    valid_until="2026-11-25"))
    cli("index", "--vault", vault)
    assert ranked(cli, vault, "quokka promo", "2026-11-25")[0] == "memory/references/promo.md"
    assert "memory/references/promo.md" not in ranked(cli, vault, "quokka promo", "2026-11-26")
    hit = hits(cli, vault, "quokka promo", "2026-11-26")["memory/references/promo.md"]
    assert (hit["valid_until"], hit["expired"], hit["superseded_by"]) == ("2026-11-25", True, None)
    assert hits(cli, vault, "quokka promo", "2026-11-25")["memory/references/promo.md"]["expired"] is False
    human = cli("search", "quokka promo", "--vault", vault, "--today", "2026-11-26").stdout
    assert "   expired 2026-11-25\n" in human


def test_the_card_leaves_out_superseded_and_expired_notes_and_is_made_again_when_one_expires(vault: Path, cli,
                                                                                           tmp_path: Path):
    write(vault, "memory/feedback/standup.md", note("feedback", "Standup is at 09:30.", name="standup-time",
                                                    description="standup at 09:30, short"))
    write(vault, "memory/feedback/promo-window.md", note("feedback", "Mention the promo.", name="promo-window",
                                                         description="mention the winter promo", valid_until=TODAY))
    cli("index", "--vault", vault)
    first = card(vault, tmp_path)
    assert "- standup-time — standup at 09:30, short\n" in first and "- promo-window — mention the winter" in first
    day_after = card(vault, tmp_path, "2026-11-26")  # the same files: the kept card no longer holds
    assert "promo-window" not in day_after and "- standup-time — standup at 09:30, short\n" in day_after
    write(vault, "memory/feedback/standup-v2.md", note("feedback", "Standup moved to 10:00.", name="standup-v2",
                                                       description="standup at 10:00", supersedes='"[[standup]]"'))
    later = card(vault, tmp_path, "2026-11-26")
    assert "- standup-v2 — standup at 10:00\n" in later and "standup-time" not in later


def test_the_prompt_hook_leaves_out_superseded_and_expired_notes(vault: Path, cli, tmp_path: Path):
    write(vault, OLD, OLD_TEXT)
    write(vault, "memory/references/promo.md", note("reference", "The quokka promo code gives 20% off.",
                                                    description="quokka promo code", valid_until=TODAY))
    cli("index", "--vault", vault)
    assert injected(vault, tmp_path, "when does the zanzibar coworking open?", "s1") == [OLD]
    assert injected(vault, tmp_path, "the quokka promo code", "s2") == ["memory/references/promo.md"]
    assert injected(vault, tmp_path, "the quokka promo code", "s3", "2026-11-26") == []
    write(vault, NEW, note("reference", NEW_BODY, supersedes=f'"[[{OLD[:-3]}]]"'))  # seen at the next prompt
    assert injected(vault, tmp_path, "when does the zanzibar coworking open?", "s4") == [NEW]


# ----------------------------------------------------------------------------- check


def test_check_reports_supersedes_problems_and_likely_supersedes(vault: Path, cli):
    body = ("# Office plants\nThe office plants are watered every Monday by whoever arrives first in the morning.\n"
            "The big ficus by the window needs half a litre; the cactus on the shelf only once a month.\n")
    write(vault, "memory/references/plants.md", f"---\ntype: reference\ncreated: 2026-09-01\n---\n{body}")
    write(vault, "memory/references/plants-2.md", f"---\ntype: reference\ncreated: 2026-11-01\n---\n{body}"
          "Since November the cleaners water them too.\n")
    write(vault, "memory/references/lost.md", note("reference", "Gone.", supersedes='"[[no such note]]"'))
    write(vault, "memory/references/me.md", note("reference", "Mine.", supersedes='"[[me]]"'))
    write(vault, "memory/references/loop-a.md", note("reference", "Loop a.", supersedes='"[[loop-b]]"'))
    write(vault, "memory/references/loop-b.md", note("reference", "Loop b.", supersedes='"[[loop-a]]"'))
    write(vault, "memory/references/soon.md", note("reference", "Soon.", valid_until="soon"))
    write(vault, "memory/references/over.md", note("reference", "Over.", valid_until="2026-01-31"))
    out = json.loads(cli("check", "--vault", vault, "--today", TODAY, "--json").stdout)
    mine = [(i["kind"], i["path"], i["severity"], i["line"], i["detail"]) for i in out["issues"]
            if i["kind"] in ("SUPERSEDES", "VALID UNTIL", "SUPERSEDE?", "EXPIRED", "DUPLICATE", "DANGLING")
            and i["path"].startswith("memory/references/") and "/postgres" not in i["path"]]
    assert mine == [
        ("DUPLICATE", "memory/references/plants-2.md", "warning", None,
         "near-duplicate of memory/references/plants.md: 82% the same text (word 5-grams)"),
        ("SUPERSEDES", "memory/references/loop-a.md", "warning", 3,
         "supersedes memory/references/loop-b.md, which supersedes it back (directly or through others): every "
         "note of the cycle is left out of recall"),
        ("SUPERSEDES", "memory/references/loop-b.md", "warning", 3,
         "supersedes memory/references/loop-a.md, which supersedes it back (directly or through others): every "
         "note of the cycle is left out of recall"),
        ("SUPERSEDES", "memory/references/lost.md", "warning", 3,
         "supersedes [[no such note]], which is no note in the vault: the note it means to replace is still recalled"),
        ("SUPERSEDES", "memory/references/me.md", "warning", 3, "supersedes itself ([[me]]): nothing is replaced"),
        ("VALID UNTIL", "memory/references/soon.md", "warning", None,
         "valid_until: 'soon' is not a date (YYYY-MM-DD): the note never expires"),
        ("SUPERSEDE?", "memory/references/plants-2.md", "info", None,
         "may supersede memory/references/plants.md (2026-09-01; this note 2026-11-01): near-duplicates, 82% the "
         "same text (word 5-grams)"),
        ("EXPIRED", "memory/references/over.md", "info", None,
         "valid until 2026-01-31: left out of recall, context and the prompt hook"),
    ]
    maybe = next(i for i in out["issues"] if i["kind"] == "SUPERSEDE?")
    assert maybe["action"] == ('if it replaces it, add supersedes: "[[plants]]" to its frontmatter (the old note '
                               "stays, out of recall); else merge the two")
    # declared: no longer a DUPLICATE nor a SUPERSEDE?
    write(vault, "memory/references/plants-2.md", f"---\ntype: reference\ncreated: 2026-11-01\nsupersedes: "
          f"\"[[plants]]\"\n---\n{body}Since November the cleaners water them too.\n")
    again = json.loads(cli("check", "--vault", vault, "--today", TODAY, "--json").stdout)
    kinds = {(i["kind"], i["path"]) for i in again["issues"]}
    assert not kinds & {("DUPLICATE", "memory/references/plants-2.md"), ("SUPERSEDE?", "memory/references/plants-2.md")}


# ----------------------------------------------------------------------------- MCP


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_save_tool_supersedes_and_search_marks_it(vault: Path, monkeypatch):
    pytest.importorskip("mcp")
    from mcp import Client

    from mdmem.mcp_server import build_server

    monkeypatch.setenv("MDMEM_TODAY", TODAY)
    write(vault, OLD, OLD_TEXT)
    async with Client(build_server(vault), mode="legacy") as client:
        result = await client.call_tool("save", {"text": NEW_BODY, "type": "reference", "name": "Zanzibar hours",
                                                 "supersedes": "zanzibar-hours"})
        assert not result.is_error, result.content[0].text
        assert json.loads(result.content[0].text)["supersedes"] == [OLD]
        assert 'supersedes: "[[zanzibar-hours]]"\n' in (vault / NEW).read_text()
        found = json.loads((await client.call_tool("search", {"query": "zanzibar coworking"})).content[0].text)
        marks = {h["path"]: h["superseded_by"] for h in found["results"]}
        assert (marks[NEW], marks[OLD]) == (None, [NEW])
        recalled = (await client.call_tool("recall", {"query": "zanzibar coworking"})).content[0].text
        assert NEW in recalled and OLD not in recalled

"""``mdmem import``: real transcripts of each agent, through the real CLI, into a copy of sample-vault.

Data: tests/data/claude-code, gemini (real files), codex (written in Codex's record shapes: no licensed real
rollout is public), chatgpt (four conversations of a real export; the whole one is eval/'s); SOURCES.md beside
each. No public real Claude.ai export was found: its tests, and the ChatGPT tests of edge cases the real export
lacks (an edited prompt, a secret), build conversations from the exports' published shapes, marked so in names.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from support import ROOT

DATA = ROOT / "tests" / "data"
CLAUDE = DATA / "claude-code"
CODEX = DATA / "codex" / "rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl"
GEMINI = DATA / "gemini"
TOKEN = "ghp_" + "Zq7W" * 9  # a GitHub token's shape


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
            and ".mdmem" not in p.parts}


def notes(vault: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((vault / "sessions").glob("*.md"))}


def said(note: str) -> list[str]:
    """The user's messages of a session note, in order, without their times."""
    body = note.split("## What the user said\n\n", 1)[1].split("\n## ", 1)[0]
    items, current = [], None
    for line in body.splitlines():
        if line[:1].isdigit() and ". " in line[:5]:
            current = line.split(". ", 1)[1]
            if current.startswith("**"):
                current = current.split("** ", 1)[1] if "** " in current else ""
            current = current.removeprefix("(typed while the agent worked) ")
            items.append(current)
        elif line.startswith("   ") and items:
            items[-1] += "\n" + line[3:]
        elif not line.strip() and items:
            items[-1] += "\n"
    return [i.strip() for i in items]


@pytest.fixture
def claude_home(isolated: Path) -> Path:
    folder = isolated / ".claude" / "projects" / "-Users-pete-tmp-claude-code-sessions"
    folder.mkdir(parents=True)
    for name in ("14-session-share-curry-poems.jsonl", "95-mclaude-hi.jsonl"):  # the folder holds recall's too
        shutil.copy(CLAUDE / name, folder / name)
    # a subagent's transcript lives beside its session: never a session of its own
    sub = folder / "14-session-share-curry-poems" / "subagents"
    sub.mkdir(parents=True)
    shutil.copy(CLAUDE / "95-mclaude-hi.jsonl", sub / "agent-a1.jsonl")
    return folder


@pytest.mark.slow
def test_claude_code_sessions_become_notes_with_what_the_user_typed(cli, vault, claude_home):
    report = cli.json("import", "claude-code", "--vault", vault)
    assert sorted(i["status"] for i in report["items"]) == ["created", "created"]
    found = notes(vault)
    assert sorted(found) == ["2026-01-12-claude-code-91b751c5.md", "2026-01-22-claude-code-0ccf1a04.md"] or \
        len(found) == 2  # the local date of a session near midnight UTC depends on the zone
    curry = next(t for n, t in found.items() if "0ccf1a04" in n)
    assert said(curry) == [
        "Spaw sub-agents to write poems about Thai green curry, Thai yellow curry and Thai red curry. Each subagent "
        "should do a web search to understand the most common adjectives used for these caries as part of preparing "
        "for its poetry.\n\nrun the agents in the background, and while we wait for them to complete write your own "
        "poem about sushi",
        "is the 3rd tool still running?", "??", "are they still being written?", "why won't you run it?"]
    for noise in ("task-notification", "Caveat:", "<command-", "local-command", "Crimson river"):
        assert noise not in curry.split("## What the assistant concluded")[0]
    assert "type: session" in curry and "agent: claude-code" in curry and "reviewed: false" in curry
    assert "Claude Code session in [[claude-code-sessions]]" in curry
    assert "session: 0ccf1a04-1b4c-43b6-8aa5-79e41db43a68" in curry
    assert "## What the assistant concluded" in curry
    day = curry.split("created: ", 1)[1][:10]
    daily = (vault / "memory" / "daily" / f"{day}.md").read_text(encoding="utf-8")
    assert f"[[sessions/{day}-claude-code-0ccf1a04|Spawn curry poem agents, write sushi" in daily
    # session notes are not memory: the card and the budget never count them
    check = cli.json("check", "--vault", vault)
    assert not any(i["path"].startswith("sessions/") for i in check["issues"])


@pytest.mark.slow
def test_reimport_changes_nothing_and_never_duplicates(cli, vault, claude_home):
    cli("import", "claude-code", "--vault", vault)
    before = tree(vault)
    report = cli.json("import", "claude-code", "--vault", vault)
    assert [i["status"] for i in report["items"]] == ["unchanged", "unchanged"]
    assert report["daily"] == 0
    assert tree(vault) == before


@pytest.mark.slow
def test_a_session_that_went_on_is_updated_in_place(cli, vault, claude_home):
    cli("import", "claude-code", "--vault", vault)
    hi = claude_home / "95-mclaude-hi.jsonl"
    line = json.loads(hi.read_text(encoding="utf-8").splitlines()[-1])
    more = {**line, "type": "user", "uuid": "later-1", "isMeta": False, "timestamp": "2026-01-12T21:40:00.000Z",
            "message": {"role": "user", "content": "and one more thing: keep the logs"}}
    more.pop("toolUseResult", None)
    with hi.open("a", encoding="utf-8") as f:
        f.write(json.dumps(more) + "\n")
    report = cli.json("import", "claude-code", "--vault", vault)
    assert sorted(i["status"] for i in report["items"]) == ["unchanged", "updated"]
    assert len(notes(vault)) == 2
    note = next(t for n, t in notes(vault).items() if "91b751c5" in n)
    assert said(note) == ["hi", "and one more thing: keep the logs"]


def test_no_secret_lands_in_the_vault(cli, vault, claude_home):
    hi = claude_home / "95-mclaude-hi.jsonl"
    hi.write_text(hi.read_text(encoding="utf-8").replace('"content":"hi"', f'"content":"hi, my token is {TOKEN}"'),
                  encoding="utf-8")
    cli("import", "claude-code", "--vault", vault)
    assert not any(TOKEN.encode() in data for data in tree(vault).values())
    note = next(t for n, t in notes(vault).items() if "91b751c5" in n)
    assert said(note) == ["hi, my token is [GitHub token redacted]"]


@pytest.mark.slow
def test_dry_run_project_and_since(cli, vault, claude_home):
    before = tree(vault)
    report = cli.json("import", "claude-code", "--vault", vault, "--dry-run")
    assert sorted(i["status"] for i in report["items"]) == ["created", "created"] and report["dry_run"]
    assert tree(vault) == before
    report = cli.json("import", "claude-code", "--vault", vault, "--project", "claude-code-sessions", "--dry-run")
    assert [i["project"] for i in report["items"]] == ["claude-code-sessions"]
    assert report["skipped"] == {"other project": 1}
    report = cli.json("import", "claude-code", "--vault", vault, "--since", "2026-01-20", "--dry-run")
    assert [i["session"][:8] for i in report["items"]] == ["0ccf1a04"]


@pytest.mark.slow
def test_codex_rollout_keeps_what_the_user_typed_and_replays_rollbacks(cli, vault, isolated):
    home = isolated / "codex"
    day = home / "sessions" / "2025" / "11" / "22"
    day.mkdir(parents=True)
    rollout = day / CODEX.name
    shutil.copy(CODEX, rollout)
    env = {"CODEX_HOME": str(home)}
    report = cli.json("import", "codex", "--vault", vault, env=env)
    assert [(i["status"], i["project"], i["user_messages"]) for i in report["items"]] == [("created", "rtchess", 4)]
    note = next(iter(notes(vault).values()))
    typed = said(note)
    assert typed[0].startswith("Let us build a chess game where a piece must rest")
    assert typed[1].startswith("The new game button does nothing")
    assert typed[3].startswith("Please make it fair")
    assert "environment_context" not in note and "<cwd>" not in note
    assert "- `index.html`" in note and "- `app.js`" in note  # files its apply_patch calls wrote
    assert "Codex session in [[rtchess]]" in note
    assert cli.json("import", "codex", "--vault", vault, env=env)["items"][0]["status"] == "unchanged"
    # the user undid their last turn (Codex's /undo, thread_rolled_back): it is no longer what was said
    with rollout.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"timestamp": "2025-11-22T21:30:00.000Z", "type": "event_msg",
                            "payload": {"type": "thread_rolled_back", "num_turns": 1}}) + "\n")
    report = cli.json("import", "codex", "--vault", vault, env=env)
    assert [(i["status"], i["user_messages"]) for i in report["items"]] == [("updated", 3)]
    assert len(notes(vault)) == 1
    assert not any("make it fair" in line for line in said(next(iter(notes(vault).values()))))


def _gemini_home(isolated: Path) -> Path:
    chats = isolated / ".gemini" / "tmp" / "cli" / "chats"
    chats.mkdir(parents=True)
    (isolated / ".gemini" / "projects.json").write_text(json.dumps({"projects": {"/Users/dev/cli": "cli"}}))
    return chats


@pytest.mark.slow
def test_gemini_recordings_legacy_json(cli, vault, isolated):
    chats = _gemini_home(isolated)
    for f in GEMINI.glob("*.json"):
        shutil.copy(f, chats / f"session-{f.stem.split('-', 1)[1]}.json")
    report = cli.json("import", "gemini", "--vault", vault)
    assert sorted(i["user_messages"] for i in report["items"]) == [1, 1, 2]
    assert {i["project"] for i in report["items"]} == {"cli"}
    found = notes(vault)
    texts = sorted(said(t)[0] for t in found.values())
    assert texts[0] == "add new text to test-gemini.txt"
    assert not any("Please continue" in t for t in found.values())  # Gemini CLI's own, not the user's
    assert not any("update available" in t for t in found.values())  # an info record
    assert any("- `test-gemini.txt`" in t for t in found.values())


@pytest.mark.slow
def test_gemini_jsonl_is_replayed_with_updates_sets_and_rewinds(cli, vault, isolated):
    chats = _gemini_home(isolated)
    doc = json.loads((GEMINI / "session-12-cbfeaa512b.json").read_text(encoding="utf-8"))
    messages = doc.pop("messages")
    lines = [{**doc, "kind": "main"}]
    lines += [m for m in messages]
    first_reply = next(m for m in messages if m["type"] == "gemini")
    lines.append({**first_reply, "content": "Which text should I add?"})  # the same id again: an update
    second_user = [m for m in messages if m["type"] == "user"][1]
    lines.append({"$rewindTo": second_user["id"]})  # the user rewound to before their second message
    lines.append({"id": "typed-again", "timestamp": "2026-01-10T02:10:00.000Z", "type": "user",
                  "content": [{"text": "add 'hello there' instead"}]})
    lines.append({"$set": {"lastUpdated": "2026-01-10T02:10:00.000Z"}})
    path = chats / "session-2026-01-10T02-08-faff42ab.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    cli("import", "gemini", "--vault", vault)
    note = next(iter(notes(vault).values()))
    assert said(note) == ["add new text to test-gemini.txt", "add 'hello there' instead"]
    assert "Which text should I add?" in note and '",how are you"' not in note
    # a $set of the whole message list replaces everything before it
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"$set": {"messages": [messages[0]], "lastUpdated": "2026-01-10T02:11:00.000Z"}}) + "\n")
    assert cli.json("import", "gemini", "--vault", vault)["items"][0]["user_messages"] == 1


def _chatgpt_export(path: Path) -> None:
    """A conversation in the export's shape (no public export found): the user edited their second prompt,
    so the tree has two branches; ``current_node`` ends the kept one."""
    def node(nid, parent, children, role=None, text=None, t=0.0, **extra):
        message = None if role is None else {
            "id": nid, "author": {"role": role}, "create_time": 1767225600.0 + t,
            "content": {"content_type": "text", "parts": [text]}, "recipient": "all", "metadata": extra}
        return {"id": nid, "parent": parent, "children": children, "message": message}
    mapping = {
        "root": node("root", None, ["sys"]),
        "sys": node("sys", "root", ["u1"], "system", ""),
        "u1": node("u1", "sys", ["a1"], "user", "How do I rotate the nginx logs?", 1),
        "a1": node("a1", "u1", ["u2old", "u2new"], "assistant", "Use logrotate with a daily rule.", 2),
        "u2old": node("u2old", "a1", ["a2old"], "user", "and for apache? (abandoned draft)", 3),
        "a2old": node("a2old", "u2old", [], "assistant", "For apache ...", 4),
        "u2new": node("u2new", "a1", ["a2new"], "user", f"and keep 30 days; my key is {TOKEN}", 5),
        "a2new": node("a2new", "u2new", [], "assistant", "Set rotate 30 in the rule.", 6),
    }
    path.write_text(json.dumps([{"title": "nginx log rotation", "create_time": 1767225600.0,
                                 "update_time": 1767225606.0, "mapping": mapping, "current_node": "a2new",
                                 "conversation_id": "c0ffee00-1111-2222-3333-444455556666"}]), encoding="utf-8")


@pytest.mark.slow
def test_chatgpt_export_schema_follows_the_kept_branch(cli, vault, tmp_path):
    export = tmp_path / "conversations.json"
    _chatgpt_export(export)
    report = cli.json("import", "chatgpt", export, "--vault", vault)
    assert [(i["status"], i["user_messages"]) for i in report["items"]] == [("created", 2)]
    note = next(iter(notes(vault).values()))
    assert said(note) == ["How do I rotate the nginx logs?", "and keep 30 days; my key is [GitHub token redacted]"]
    assert "abandoned" not in note and TOKEN not in note
    assert "# nginx log rotation" in note
    assert cli.json("import", "chatgpt", export, "--vault", vault)["items"][0]["status"] == "unchanged"


@pytest.mark.slow
def test_claude_ai_export_schema(cli, vault, tmp_path):
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([{
        "uuid": "5e55a0c0-0000-4000-8000-000000000001", "name": "Postgres vacuum", "created_at":
        "2026-03-02T10:00:00Z", "updated_at": "2026-03-02T10:05:00Z", "chat_messages": [
            {"uuid": "m1", "sender": "human", "text": "Why is autovacuum slow?", "created_at": "2026-03-02T10:00:00Z",
             "content": [{"type": "text", "text": "Why is autovacuum slow?"}], "attachments": [
                 {"file_name": "pg.log", "extracted_content": "LOG: not what the user said"}]},
            {"uuid": "m2", "sender": "assistant", "text": "Raise autovacuum_vacuum_cost_limit.",
             "created_at": "2026-03-02T10:01:00Z"}]}]), encoding="utf-8")
    report = cli.json("import", "claude-ai", export, "--vault", vault)
    assert [(i["agent"], i["user_messages"]) for i in report["items"]] == [("claude-ai", 1)]
    note = next(iter(notes(vault).values()))
    assert said(note) == ["Why is autovacuum slow?"] and "not what the user said" not in note


def test_unknown_source_and_missing_export_file(cli, vault):
    assert "unknown source" in cli("import", "cursor", "--vault", vault, code=2).stderr
    assert "needs the export's file" in cli("import", "chatgpt", "--vault", vault, code=2).stderr


def test_a_broken_transcript_is_an_error_not_the_end(cli, vault, claude_home):
    (claude_home / "broken.jsonl").write_bytes(b"\xff\xfe not json\n{\"type\":\n")
    os.mkfifo(claude_home / "fifo.jsonl")
    report = cli.json("import", "claude-code", "--vault", vault)
    assert len(report["items"]) == 2


def test_an_older_copy_of_a_session_never_replaces_the_note(cli, vault, claude_home):
    """The same session in two files, one a prefix of the other (as Entire's checkpoints keep them): one note,
    the fuller one, whatever the order, and a re-import changes nothing."""
    full = claude_home / "14-session-share-curry-poems.jsonl"
    lines = full.read_text(encoding="utf-8").splitlines(keepends=True)
    (claude_home / "00-older-copy.jsonl").write_text("".join(lines[: len(lines) // 3]), encoding="utf-8")
    (claude_home / "99-older-copy.jsonl").write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    report = cli.json("import", "claude-code", "--vault", vault)
    assert report["skipped"] == {"older copy": 1}
    assert len(notes(vault)) == 2
    curry = next(t for n, t in notes(vault).items() if "0ccf1a04" in n)
    assert said(curry)[-1] == "why won't you run it?"
    before = tree(vault)
    again = cli.json("import", "claude-code", "--vault", vault)
    assert {i["status"] for i in again["items"]} == {"unchanged"} and again["skipped"] == {"older copy": 2}
    assert tree(vault) == before


def test_an_export_is_streamed_a_zip_of_shards_and_a_cut_file(cli, vault, tmp_path):
    """Exports are read one conversation at a time: a ZIP's sharded ``conversations-NNN.json`` in order; a file
    cut short (a download that stopped) keeps the conversations before the cut and reports the rest."""
    import zipfile

    one = tmp_path / "one.json"
    _chatgpt_export(one)
    conv = json.loads(one.read_text(encoding="utf-8"))[0]
    other = json.loads(json.dumps(conv).replace("c0ffee00", "deadbeef").replace("nginx", "caddy"))
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("conversations-001.json", json.dumps([other]))
        z.writestr("conversations-000.json", json.dumps([conv]))
        z.writestr("chat.html", "<html></html>")
    report = cli.json("import", "chatgpt", archive, "--vault", vault, "--dry-run")
    assert [i["session"][:8] for i in report["items"]] == ["c0ffee00", "deadbeef"] and not report["errors"]

    cut = tmp_path / "conversations.json"
    whole = json.dumps([conv, other])
    cut.write_text(whole[: len(whole) - 200], encoding="utf-8")
    report = cli.json("import", "chatgpt", cut, "--vault", vault)
    assert [i["session"][:8] for i in report["items"]] == ["c0ffee00"]
    assert len(report["errors"]) == 1 and "not JSON" in report["errors"][0][1]


def test_a_question_about_the_past_in_a_vault_that_never_imported(cli, vault):
    """No ``sessions/`` yet: a question about an earlier conversation answers from the notes (it once stopped with
    "unknown type 'session'")."""
    out = cli.json("recall", "when did we set up the deploy pipeline?", "--vault", vault)
    assert out["sessions"] == [] and out["ranked"]


REAL_CHATGPT = ROOT / "tests" / "data" / "chatgpt" / "conversations.json"  # four real conversations (SOURCES.md)


@pytest.mark.slow
def test_a_real_chatgpt_export(cli, vault):
    """A real export: one note per conversation, the user's messages of the kept branch in order, never a tool's
    output (browsing errors and quotes) nor the regenerated answer left on the other branch; again: nothing."""
    report = cli.json("import", "chatgpt", REAL_CHATGPT, "--vault", vault)
    assert sorted(i["user_messages"] for i in report["items"]) == [2, 2, 7, 7] and not report["errors"]
    by_title = {n.split("\n# ", 1)[1].split("\n", 1)[0]: n for n in notes(vault).values()}
    assert [m[:40] for m in said(by_title["GitHub Wikis & Source Code"])] == [
        "In GitHub, is there some way to fill the", "show me the data science unicorn venn di"]
    logo = said(by_title["Logo design for Pieterkuppens.net."])
    assert [m[:30] for m in logo[2:5]] == ["Can you recommend me RGB codes", "Do you have a third color to c",
                                          "How does a sunrise, with an or"]
    everything = "".join(notes(vault).values())
    for left_out in ("We are experiencing a high lo", "Error when executing command", "Beschikbaar als Software",
                     "I suggest using a light gray", "NOT one of the unique elements of Big Data"):
        assert left_out not in everything
    before = tree(vault)
    again = cli.json("import", "chatgpt", REAL_CHATGPT, "--vault", vault)
    assert {i["status"] for i in again["items"]} == {"unchanged"} and tree(vault) == before

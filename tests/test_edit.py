"""Agents maintain notes: `edit_note`, `move_note` and `forget` through the real MCP server (the SDK's own
client), and `mdmem edit` / `mdmem move` on the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mcp import Client

from mdmem.mcp_server import build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def call(client, tool: str, **args) -> dict:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def fails(client, tool: str, **args) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error
    return result.content[0].text


NOTE = """---
name: billing-runbook
description: What to do when billing breaks
type: protocol
tags: [ops, billing]   # keep this comment
updated: 2026-11-01
---
# Billing runbook

## Status
Draft, reviewed by nobody.

## Steps
1. Look at the dashboard.
2. Page Tom.

```
## Not a heading (code)
```
"""


def _runbook(vault: Path) -> Path:
    path = vault / "memory" / "protocols" / "billing-runbook.md"
    path.write_text(NOTE)
    return path


@pytest.mark.slow
async def test_edit_note_appends_replaces_and_sets_against_a_version(vault, monkeypatch):
    monkeypatch.setenv("MDMEM_TODAY", "2026-11-25")
    path = _runbook(vault)
    async with Client(build_server(vault), mode="legacy") as client:
        read = await call(client, "read_note", note="billing-runbook")
        got = await call(client, "edit_note", note="billing-runbook", version=read["version"],
                         section="Status", replace="Reviewed by Ana on 2026-11-24.",
                         set={"status": "active", "owner": "Diego: payments"}, unset=["updated"])
        assert got["path"] == "memory/protocols/billing-runbook.md" and got["previous"] == read["version"]
        # a protocol an agent changes is the agent's until the user confirms it (tests/test_provenance.py)
        assert got["changes"] == ["replaced the section 'Status'", "frontmatter: removed updated",
                                  "frontmatter: added status", "frontmatter: added owner", "frontmatter: added source",
                                  "frontmatter: added agent"]
        assert path.read_text() == NOTE.replace("updated: 2026-11-01\n", "status: active\nowner: \"Diego: payments\"\n"
                                                "source: agent\nagent: mcp\n") \
            .replace("Draft, reviewed by nobody.", "Reviewed by Ana on 2026-11-24.")
        again = await call(client, "read_note", note="billing-runbook")
        assert again["version"] == got["version"] != read["version"]
        appended = await call(client, "edit_note", note="billing-runbook", version=got["version"],
                              append="3. Write the post-mortem.")
        assert path.read_text().endswith("## Not a heading (code)\n```\n\n3. Write the post-mortem.\n")
        assert appended["changes"] == ["appended 25 characters"]
        # the search index sees the edit at once
        hits = await call(client, "search", query="post-mortem")
        assert hits["results"][0]["path"] == "memory/protocols/billing-runbook.md"


async def test_a_conflicting_edit_is_refused_and_nothing_is_written(vault, monkeypatch):
    monkeypatch.setenv("MDMEM_TODAY", "2026-11-25")
    path = _runbook(vault)
    async with Client(build_server(vault), mode="legacy") as client:
        read = await call(client, "read_note", note="billing-runbook")
        path.write_text(NOTE.replace("Page Tom.", "Page Tom, then Ana."))  # the user edits in Obsidian meanwhile
        user_bytes = path.read_bytes()
        message = await fails(client, "edit_note", note="billing-runbook", version=read["version"],
                              append="3. Something the agent wanted.")
        assert f"changed since it was read (version {read['version']}, now " in message
        assert "nothing was written" in message and path.read_bytes() == user_bytes
        fresh = await call(client, "read_note", note="billing-runbook")
        await call(client, "edit_note", note="billing-runbook", version=fresh["version"], append="3. Done.")
        assert path.read_text() == NOTE.replace("Page Tom.", "Page Tom, then Ana.").replace(
            "updated: 2026-11-01", "updated: 2026-11-25\nsource: agent\nagent: mcp") + "\n3. Done.\n"  # `updated`: today


@pytest.mark.slow
async def test_edit_note_explains_what_it_cannot_do(vault):
    _runbook(vault)
    async with Client(build_server(vault), mode="legacy") as client:
        v = (await call(client, "read_note", note="billing-runbook"))["version"]
        assert "no heading 'Owners' in the note (its headings: # Billing runbook, ## Status, ## Steps)" in \
            await fails(client, "edit_note", note="billing-runbook", version=v, section="Owners", replace="x")
        assert "nothing to do" in await fails(client, "edit_note", note="billing-runbook", version=v)
        assert "append or replace a section, not both" in await fails(
            client, "edit_note", note="billing-runbook", version=v, append="a", section="Status", replace="b")
        assert "no key 'owner' to remove" in await fails(client, "edit_note", note="billing-runbook", version=v,
                                                          unset=["owner"])


# ----------------------------------------------------------------------------- move

TARGET = "memory/references/old-vpn-guide.md"
# (file, text with links to the note that moves, the same text after the move to memory/archive/vpn/wireguard-2025.md)
LINKERS = [
    ("a1.md", "See [[old-vpn-guide]].", "See [[wireguard-2025]]."),
    ("a2.md", "See [[old-vpn-guide|the old guide]].", "See [[wireguard-2025|the old guide]]."),
    ("a3.md", "Step: [[old-vpn-guide#Keys]].", "Step: [[wireguard-2025#Keys]]."),
    ("a4.md", "Block: [[old-vpn-guide#^peer-setup|peers]].", "Block: [[wireguard-2025#^peer-setup|peers]]."),
    ("a5.md", "![[old-vpn-guide]]", "![[wireguard-2025]]"),
    ("a6.md", "![[old-vpn-guide#Keys|keys]] inline", "![[wireguard-2025#Keys|keys]] inline"),
    ("a7.md", "| who | link |\n| --- | --- |\n| me | [[old-vpn-guide\\|guide]] |",
     "| who | link |\n| --- | --- |\n| me | [[wireguard-2025\\|guide]] |"),
    ("a8.md", "[guide](../references/old-vpn-guide.md)", "[guide](../archive/vpn/wireguard-2025.md)"),
    ("a9.md", "[guide](../references/old-vpn-guide.md#keys)", "[guide](../archive/vpn/wireguard-2025.md#keys)"),
    ("b1.md", "[guide](/memory/references/old-vpn-guide.md)", "[guide](/memory/archive/vpn/wireguard-2025.md)"),
    ("b2.md", "[guide](<../references/old-vpn-guide.md>)", "[guide](<../archive/vpn/wireguard-2025.md>)"),
    ("b3.md", "![scan](../references/old-vpn-guide.md)", "![scan](../archive/vpn/wireguard-2025.md)"),
    ("b4.md", "[[references/old-vpn-guide]]", "[[memory/archive/vpn/wireguard-2025]]"),
    ("b5.md", "[[old-vpn-guide.md]]", "[[wireguard-2025.md]]"),
    ("b6.md", "Twice: [[old-vpn-guide]] and [[old-vpn-guide|again]].",
     "Twice: [[wireguard-2025]] and [[wireguard-2025|again]]."),
    ("b7.md", "Code is not a link: `[[old-vpn-guide]]`, but [[old-vpn-guide]] is.",
     "Code is not a link: `[[old-vpn-guide]]`, but [[wireguard-2025]] is."),
    ("b8.md", "```\n[[old-vpn-guide]]\n```\n[[Old-VPN-Guide]]", "```\n[[old-vpn-guide]]\n```\n[[wireguard-2025]]"),
    ("b9.md", "> quoted [[old-vpn-guide|q]]", "> quoted [[wireguard-2025|q]]"),
    ("c1.md", "- item [[ old-vpn-guide ]]", "- item [[wireguard-2025]]"),
    ("c2.md", "Not this one: [[old-vpn-guide-2]] nor [old](old-vpn-guide.txt).",
     "Not this one: [[old-vpn-guide-2]] nor [old](old-vpn-guide.txt)."),
]
FRONT = ('---\nup: "[[old-vpn-guide]]"\nrelated: ["[[home-lab]]", "[[old-vpn-guide|vpn]]"]\n---\nbody\n',
         '---\nup: "[[wireguard-2025]]"\nrelated: ["[[home-lab]]", "[[wireguard-2025|vpn]]"]\n---\nbody\n')


@pytest.mark.slow
async def test_move_note_rewrites_every_link_to_it_exactly(vault):
    """A rename into another folder: links in 20 notes (and a frontmatter one, and MEMORY.md) are rewritten
    exactly, aliases, headings, block ids, embeds and link styles kept; code and other notes untouched."""
    (vault / TARGET).write_text("---\ndescription: WireGuard road-warrior setup, superseded\n---\n# Old VPN guide\n\n"
                                "## Keys\nGenerate them on the laptop.\n\nPeers go in wg0.conf. ^peer-setup\n")
    folder = vault / "memory" / "notes"
    folder.mkdir()
    for name, before, _ in LINKERS:
        (folder / name).write_text(before + "\n")
    (folder / "front.md").write_text(FRONT[0])
    untouched = {p: p.read_bytes() for p in vault.rglob("*.md")
                 if "old-vpn-guide" not in p.read_text() and p.name != "old-vpn-guide.md"}
    guide = (vault / TARGET).read_bytes()
    def broken(report: dict) -> list:
        return sorted((i["path"], i["detail"]) for i in report["issues"] if i["kind"] in ("BROKEN LINK", "DANGLING"))

    async with Client(build_server(vault), mode="legacy") as client:
        old_backlinks = (await call(client, "backlinks", note="old-vpn-guide"))["backlinks"]
        broken_before = broken(await call(client, "check"))
        got = await call(client, "move_note", note="old-vpn-guide", new="memory/archive/vpn/wireguard-2025")
        assert got["source"] == TARGET and got["target"] == "memory/archive/vpn/wireguard-2025.md"
        assert got["skipped"] == [] and got["dry_run"] is False
        for name, _, after in LINKERS:
            assert (folder / name).read_text() == after + "\n", name
        assert (folder / "front.md").read_text() == FRONT[1]
        assert not (vault / TARGET).exists()
        assert (vault / got["target"]).read_bytes() == guide  # the note itself had no link to fix
        index = (vault / "MEMORY.md").read_text()
        assert "- [wireguard-2025.md](memory/archive/vpn/wireguard-2025.md) — WireGuard road-warrior" in index
        assert "old-vpn-guide" not in index
        rewritten = {r["path"]: r["links"] for r in got["rewritten"]}
        assert rewritten == {"MEMORY.md": 1, "memory/notes/front.md": 2} | {
            f"memory/notes/{name}": (2 if name == "b6.md" else 1) for name, b, a in LINKERS if b != a}
        assert got["links"] == sum(rewritten.values())
        for path, data in untouched.items():
            assert path.read_bytes() == data, path
        # every link that pointed at the note still does, from the same lines
        new_backlinks = (await call(client, "backlinks", note="wireguard-2025"))["backlinks"]
        assert [(b["source"], b["line"]) for b in new_backlinks] == [(b["source"], b["line"]) for b in old_backlinks]
        assert len(new_backlinks) == 23 and broken(await call(client, "check")) == broken_before  # 19 notes (one with 2), front 2, MEMORY 1; nothing broken


@pytest.mark.slow
async def test_move_note_fixes_the_moved_notes_own_relative_links_and_refuses_clobbering(vault):
    person = vault / "memory" / "people" / "lucas-pereira.md"
    text = person.read_text()
    assert "[sql-migrations](../protocols/sql-migrations.md)" in text
    async with Client(build_server(vault), mode="legacy") as client:
        got = await call(client, "move_note", note="lucas-pereira", new="memory/people/team/")
        moved = vault / "memory" / "people" / "team" / "lucas-pereira.md"
        assert got["target"] == "memory/people/team/lucas-pereira.md" and moved.is_file()
        assert moved.read_text() == text.replace("(../protocols/", "(../../protocols/")
        assert "exists already" in await fails(client, "move_note", note="ana-souza", new="tom-okafor")
        assert "MEMORY.md is the index" in await fails(client, "move_note", note="MEMORY.md", new="index")


@pytest.mark.slow
async def test_forget_archives_one_named_note(vault):
    (vault / TARGET).write_text("# Old VPN guide\n")
    async with Client(build_server(vault), mode="legacy") as client:
        got = await call(client, "forget", note="old-vpn-guide")
        assert got["notes"][0]["archived_to"] == "memory/.archive/references/old-vpn-guide.md"
        assert (vault / "memory" / ".archive" / "references" / "old-vpn-guide.md").is_file()
        assert "old-vpn-guide" not in (vault / "MEMORY.md").read_text()
        assert "no note matches 'wireguard'" in await fails(client, "forget", note="wireguard")


# ----------------------------------------------------------------------------- the command line


@pytest.mark.slow
def test_cli_edit_and_move(cli, vault, monkeypatch):
    monkeypatch.setenv("MDMEM_TODAY", "2026-11-25")
    path = _runbook(vault)
    out = cli.json("edit", "billing-runbook", "--vault", vault, "--set", "status=done", "--set", "tags=[ops, done]",
                   "--append", "Closed.")
    assert out["changes"][0] == "appended 7 characters" and "frontmatter: set tags" in out["changes"]
    text = path.read_text()
    assert "tags: [\"ops\", \"done\"]\n" in text and "status: done\n" in text and text.endswith("\n\nClosed.\n")
    assert "updated: 2026-11-25\n" in text  # today, since the note keeps the key
    stale = cli("edit", "billing-runbook", "--vault", vault, "--version", "0" * 16, "--append", "x", code=1)
    assert "changed since it was read" in stale.stderr and path.read_text() == text
    cli("edit", "billing-runbook", "--vault", vault, "--section", "Status", code=2)
    moved = cli("move", "billing-runbook", "runbook-billing", "--vault", vault, "--dry-run")
    # the plan is data, on stdout (`| less` showed nothing); only the closing remark is a message
    assert moved.stdout == "would move memory/protocols/billing-runbook.md → memory/protocols/runbook-billing.md\n"
    assert moved.stderr == "dry run: nothing changed\n"
    assert path.exists()
    cli("move", "billing-runbook", "runbook-billing", "--vault", vault)
    assert not path.exists() and (path.parent / "runbook-billing.md").read_text() == text
    hits = cli.json("search", "Closed runbook", "--vault", vault)["results"]
    assert hits[0]["path"] == "memory/protocols/runbook-billing.md"


def test_edit_keeps_crlf_and_bom(cli, tmp_path):
    v = tmp_path / "v"
    (v / "memory").mkdir(parents=True)
    (v / "MEMORY.md").write_text("# Memory\n")
    note = v / "memory" / "n.md"
    note.write_bytes(b"\xef\xbb\xbf---\r\ntitle: n\r\n---\r\n# N\r\n\r\ntext\r\n")
    cli("edit", "n", "--vault", v, "--append", "more", "--set", "status=ok")
    assert note.read_bytes() == b"\xef\xbb\xbf---\r\ntitle: n\r\nstatus: ok\r\n---\r\n# N\r\n\r\ntext\r\n\r\nmore\r\n"
    shutil.rmtree(v / ".mdmem")

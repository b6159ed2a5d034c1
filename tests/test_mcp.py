"""`mdmem mcp`: the real server driven through the MCP SDK's own client (in memory and
over stdio), and `mdmem install claude`."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import run_process

pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mdmem.agents.launch import HOOK_CODE
from mdmem.mcp_server import build_server
from mdmem.mcp_session import MAX_CHARS, Session, fit

pytestmark = pytest.mark.anyio
READ_ONLY = {"search", "recall", "read_note", "backlinks", "neighbors", "timeline", "check"}
WRITES = {"save", "daily_add", "checkpoint_accept", "checkpoint_propose", "move_note", "edit_note", "forget",
          "restore_note"}
DESTRUCTIVE = {"edit_note", "forget"}  # they replace or archive what the user wrote


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
async def client(vault):
    async with Client(build_server(vault), mode="legacy") as c:  # initialize handshake, JSON-RPC streams
        yield c


async def call(client, tool: str, **args) -> dict:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content[0].text
    (block,) = result.content
    assert len(block.text) <= MAX_CHARS
    return json.loads(block.text)


async def fails(client, tool: str, **args) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error
    return result.content[0].text


# --- the tools ---------------------------------------------------------------

async def test_tools_have_typed_schemas_and_honest_hints(client):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == READ_ONLY | WRITES
    for name, tool in tools.items():
        hints = tool.annotations
        assert hints.read_only_hint is (name in READ_ONLY) and hints.destructive_hint is (name in DESTRUCTIVE), name
        assert hints.open_world_hint is False and len(tool.description) > 60, name
        if name in READ_ONLY:
            assert hints.idempotent_hint is True
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert list(search["properties"]) == ["query", "limit", "type", "tag", "folder", "after", "before", "mode",
                                          "include_index", "sessions"]
    assert {k: search["properties"]["limit"][k] for k in ("type", "default", "minimum")} == \
        {"type": "integer", "default": 10, "minimum": 1}
    assert "description" in search["properties"]["after"]
    assert tools["recall"].input_schema["properties"]["budget"]["default"] == 4000
    assert tools["read_note"].input_schema["required"] == ["note"]
    assert tools["edit_note"].input_schema["required"] == ["note", "version"]
    assert tools["move_note"].input_schema["required"] == ["note", "new"]
    assert tools["neighbors"].input_schema["properties"]["depth"]["default"] == 1
    assert tools["timeline"].input_schema["properties"]["limit"]["default"] == 50
    save = tools["save"].input_schema["properties"]
    assert save["type"]["anyOf"][0]["enum"] == ["user", "person", "project", "protocol", "decision", "reference",
                                                 "feedback"]
    assert save["tags"]["anyOf"][:2] == [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]
    assert tools["checkpoint_accept"].input_schema["required"] == ["numbers"]
    assert tools["check"].input_schema["properties"] == {}


@pytest.mark.slow
async def test_search_answers_as_the_cli_does(client, cli, vault):
    got = await call(client, "search", query="integer cents")
    assert got["results"][0]["path"] == "memory/decisions/decision-integer-cents.md"
    assert "**integer**" in got["results"][0]["snippet"]
    assert got == cli.json("search", "integer cents", "--vault", vault)
    people = await call(client, "search", query="billing", folder="memory/people", limit=3)
    assert people["results"] and all(r["path"].startswith("memory/people/") for r in people["results"])
    dated = await call(client, "search", query="atlas", after="2026-11", before="2026-11")
    assert dated["results"] and all("2026-11-01" <= r["date"] <= "2026-11-30" for r in dated["results"])


async def test_recall_returns_a_block_under_budget(client):
    got = await call(client, "recall", query="why did we choose integer cents", budget=1200)
    assert got["budget"] == 1200 and len(got["markdown"]) <= 1200
    assert got["markdown"].startswith("## Memory recall: why did we choose integer cents")
    assert got["ranked"][0]["path"] == "memory/decisions/decision-integer-cents.md"
    assert "text" not in got["ranked"][0]  # shown once, in the block


async def test_read_note_gives_the_text_and_reads_on_after_a_cut(client, vault):
    path = "memory/decisions/decision-integer-cents.md"
    whole = (vault / path).read_text()
    got = await call(client, "read_note", note="decision-integer-cents")
    assert got["path"] == path and got["content"] == whole and got["type"] == "decision"
    assert got["version"] == hashlib.blake2b((vault / path).read_bytes(), digest_size=8).hexdigest()
    assert got["chars"] == len(whole) and "truncated" not in got
    parts, offset = [], 0
    while True:
        part = await call(client, "read_note", note=path, max_chars=400, offset=offset)
        parts.append(part["content"])
        if not part.get("truncated"):
            break
        assert part["next_offset"] == offset + 400 and f"offset={offset + 400}" in part["note"]
        offset = part["next_offset"]
    assert "".join(parts) == whole and len(parts) == -(-len(whole) // 400)


@pytest.mark.slow
async def test_backlinks_and_neighbors_of_a_hub(client, cli, vault):
    got = await call(client, "backlinks", note="atlas-billing")
    assert got["note"] == "memory/projects/atlas-billing.md" and len(got["backlinks"]) == 14
    assert {"source": "MEMORY.md", "line": 20} == {k: got["backlinks"][0][k] for k in ("source", "line")}
    assert got == cli.json("backlinks", "atlas-billing", "--vault", vault)
    near = await call(client, "neighbors", note="memory/projects/atlas-billing.md")
    assert len(near["neighbors"]) == 20
    assert near["neighbors"][0] == {"path": "memory/people/ana-souza.md", "distance": 1, "direction": "both",
                                    "weight": 3}
    assert near == cli.json("neighbors", "atlas-billing", "--limit", "20", "--vault", vault)


async def test_timeline(client, cli, vault, monkeypatch):
    monkeypatch.setenv("MDMEM_TODAY", "2026-11-25")
    got = await call(client, "timeline", when="last 30 days")
    assert got["entries"] and all("2026-10-26" <= e["date"] <= "2026-11-25" for e in got["entries"])
    assert got == cli.json("timeline", "--when", "last 30 days", "--vault", vault)
    few = await call(client, "timeline", query="cutover", when="last 30 days", limit=2)
    assert len(few["entries"]) <= 2


@pytest.mark.slow
async def test_save_writes_a_note_and_its_index_line_then_search_finds_it(client, vault):
    text = "Marta prefers review requests batched on Thursday afternoons, never on Mondays."
    got = await call(client, "save", text=text, type="feedback", name="Batch review requests",
                     description="batch review requests for Thursdays", tags=["reviews", "marta"])
    assert got["status"] == "created" and got["path"] == "memory/feedback/Batch review requests.md"
    assert got["index_changed"] and got["index_line"] in (vault / "MEMORY.md").read_text()
    assert "\ntype: feedback\ntags:\n- marta\n- reviews\n" in (vault / got["path"]).read_text()
    hits = await call(client, "search", query="batched Thursday afternoons")
    assert hits["results"][0]["path"] == got["path"]
    again = await call(client, "save", text=text, type="feedback", name="Batch review requests")
    assert again["status"] == "unchanged"
    other = await call(client, "save", text="Rui answers Adyen questions within a day; email is best.",
                       type="person", name="Rui response time", tags="adyen, rui")
    assert "tags:\n- adyen\n- rui\n" in (vault / other["path"]).read_text()


async def test_daily_add_appends_an_entry(client, vault):
    got = await call(client, "daily_add", text="Paired with Rui on the quetzal retries.", at="09:15")
    day = vault / got["path"]
    assert got["time"] == "09:15" and got["created"] is True
    assert "## 09:15\nPaired with Rui on the quetzal retries.\n" in day.read_text()
    assert (await call(client, "search", query="quetzal"))["results"][0]["path"] == got["path"]
    again = await call(client, "daily_add", text="Second entry.", at="10:00")
    assert again["created"] is False and day.read_text().endswith("## 10:00\nSecond entry.\n")


@pytest.mark.slow
async def test_check_reports_the_budget(client, cli, vault):
    got = await call(client, "check")
    assert got["budget"] == {"tokens": 16796, "cap": 40000, "percent": 42.0, "index_tokens": 1561, "files": 60}
    assert set(got["counts"]) == {"info", "warning", "error"} and sum(got["counts"].values()) == len(got["issues"])
    assert got["budget"] == cli.json("check", "--vault", vault)["budget"]


@pytest.mark.slow
async def test_checkpoint_accept_saves_the_chosen_suggestions(client, cli, vault, tmp_path):
    decision = {"type": "decision", "dimension": 4, "name": "Chose SQS over Redis", "chosen": "SQS",
                "rejected": ["Redis"], "description": "SQS over Redis: managed, no ops team",
                "body": "SQS over Redis for the sync queue: it is managed and we have no ops team."}
    rule = {"type": "claude-md", "dimension": 2, "name": "Replies under ten lines",
            "description": "keep replies short", "body": "- Keep your replies under ten lines."}
    await call(client, "checkpoint_propose", candidates=[decision, rule], session="talk")  # pending: two
    got = await call(client, "checkpoint_accept", numbers="1")
    assert got["session"] == "talk" and got["skipped"] == [2]
    (decision,) = got["accepted"]
    assert decision["status"] == "created" and decision["path"] == "memory/decisions/decision-chose-sqs-over-redis.md"
    assert (vault / decision["path"]).is_file()
    assert "no pending checkpoint" in await fails(client, "checkpoint_accept", numbers="1")


# --- errors, freshness, bounds ------------------------------------------------

async def test_errors_are_tool_errors_and_the_server_keeps_answering(client, vault):
    assert "no note matches 'no-such-note'" in await fails(client, "read_note", note="no-such-note")
    assert "no note matches" in await fails(client, "backlinks", note="no-such-note")
    bad_type = await fails(client, "save", text="something", type="banana")
    assert "Input should be 'user'" in bad_type and "banana" in bad_type
    assert "wants a date as YYYY-MM-DD or YYYY-MM, not '2026-13'" in await fails(client, "search", query="x",
                                                                                after="2026-13")
    assert "limit" in await fails(client, "search", query="x", limit=0)
    assert "HH:MM" in await fails(client, "daily_add", text="x", at="25:00")
    assert "nothing to save" in await fails(client, "save", text="   ")
    assert "Unknown tool" in await fails(client, "forget_everything")
    (vault / ".mdmem" / "config.toml").write_text("[search]\nrecency_weight = 'lots'\n")
    assert "bad [search] value" in await fails(client, "search", query="cents")
    (vault / ".mdmem" / "config.toml").unlink()
    os.environ["MDMEM_TODAY"] = "2026-11-31"
    try:
        assert "MDMEM_TODAY wants a date as YYYY-MM-DD, not '2026-11-31'" in await fails(client, "check")
    finally:
        del os.environ["MDMEM_TODAY"]
    assert (await call(client, "search", query="integer cents"))["results"]


async def test_search_refuses_an_unknown_type_and_argument_errors_carry_no_pydantic_link(client, vault):
    """An unknown `type` silently returned [] (it now lists the valid ones, as save does); argument errors ended
    with pydantic's "For further information visit https://errors.pydantic.dev/..." line."""
    assert await fails(client, "search", query="cents", type="decisions") == (
        "Error executing tool search: unknown type 'decisions': choose one of daily, decision, digest, feedback, note, "
        "person, project, protocol, reference, user")
    assert (await call(client, "search", query="cents", type="Decision"))["results"]
    bad_limit = await fails(client, "search", query="x", limit=0)
    assert bad_limit == ("Error executing tool search: 1 validation error for searchArguments\nlimit\n  Input should "
                         "be greater than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]")
    bad_type = await fails(client, "save", text="something", type="banana")
    assert "banana" in bad_type and "pydantic" not in bad_type


def test_an_unexpected_exception_is_logged_and_reported(vault, caplog):
    from mcp.server.mcpserver.exceptions import ToolError

    session = Session(vault)
    with caplog.at_level(logging.ERROR, logger="mdmem.mcp"), pytest.raises(ToolError) as e:
        session.call("boom", lambda mem: 1 / 0)
    assert "internal error in boom (ZeroDivisionError: division by zero)" in str(e.value)
    assert caplog.records[0].exc_info[0] is ZeroDivisionError
    assert json.loads(session.call("ok", lambda mem: {"notes": len(list(mem.notes()))}))["notes"] > 50
    session.close()


async def test_edits_behind_the_servers_back_are_seen(client, vault):
    assert (await call(client, "search", query="zanzibar"))["results"] == []
    note = vault / "memory" / "references" / "zanzibar-office.md"
    note.write_text("# Zanzibar office\n\nThe Zanzibar office opens at 8.\n")
    assert (await call(client, "search", query="zanzibar"))["results"][0]["path"] == \
        "memory/references/zanzibar-office.md"
    note.write_text("# Zanzibar office\n\nThe Zanzibar office opens at 8, Quokka days on Friday.\n")
    assert (await call(client, "search", query="quokka"))["results"][0]["path"] == "memory/references/zanzibar-office.md"
    assert len((await call(client, "search", query="zanzibar"))["results"]) == 1  # once, not old and new
    assert "Quokka" in (await call(client, "read_note", note="zanzibar-office"))["content"]
    note.unlink()
    assert (await call(client, "search", query="zanzibar"))["results"] == []


@pytest.mark.slow
async def test_every_result_is_bounded(client, vault):
    big = vault / "memory" / "references" / "huge.md"
    big.write_text("# Huge\n\n" + "".join(f"line {i} of a very long reference note\n" for i in range(20_000)))
    got = await call(client, "read_note", note="huge")  # `call` checks the whole result fits
    assert got["truncated"] and got["chars"] > 500_000 and got["content"] == big.read_text()[:got["next_offset"]]
    hub = vault / "memory" / "projects" / "hub.md"
    hub.write_text("# Hub\n")
    for i in range(300):
        (vault / "memory" / "references" / f"spoke-{i:03}.md").write_text(
            f"# Spoke {i}\n\nThis spoke links to [[hub]] and explains at some length why it matters so much.\n")
    got = await call(client, "backlinks", note="hub")
    assert got["truncated"] is True and got["backlinks_total"] == 300 and 50 < len(got["backlinks"]) < 300
    assert got["backlinks"][0]["source"] == "memory/references/spoke-000.md"


def test_fit_cuts_lists_then_texts():
    small = {"a": [1, 2], "b": "x"}
    assert fit(small) == '{"a":[1,2],"b":"x"}'
    cut = json.loads(fit({"items": [{"n": i, "s": "y" * 50} for i in range(1000)], "q": "z"}, limit=2000))
    assert cut["truncated"] is True and cut["items_total"] == 1000 and 0 < len(cut["items"]) < 40
    assert len(fit({"items": [{"n": i} for i in range(1000)]}, limit=2000)) <= 2000
    text = json.loads(fit({"text": "line\n" * 10_000, "path": "p"}, limit=3000))
    assert text["truncated"] and "…[cut:" in text["text"] and len(fit({"text": "\n" * 10_000}, limit=3000)) <= 3000


# --- change detection (what spares a stat of every note before every call) ----

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux-only (elsewhere: always True)")
def test_changes_sees_every_kind_of_edit_and_nothing_else(vault, tmp_path):
    from mdmem.engine.changes import Changes

    changes = Changes(vault)
    assert changes.watching and changes.changed() is False
    (vault / "memory" / "people" / "ana-souza.md").open("a").write("\nmore\n")  # in place, as Obsidian saves
    assert changes.changed() is True and changes.changed() is False
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem" / "notes.db").write_text("derived state")  # hidden: mdmem's own writes
    (vault / "memory" / ".hidden.md").write_text("x")
    (vault / "memory" / "people" / "ana-souza.md").read_text()  # reading is no change
    assert changes.changed() is False
    (vault / "memory" / "new" / "deeper").mkdir(parents=True)  # new folders are watched from now on
    assert changes.changed() is True
    (vault / "memory" / "new" / "deeper" / "n.md").write_text("# N\n")
    assert changes.changed() is True
    (vault / "memory" / "new" / "deeper" / "n.md").rename(vault / "memory" / "new" / "m.md")
    assert changes.changed() is True
    (vault / "memory" / "new" / "m.md").unlink()
    assert changes.changed() is True
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n")
    (vault / "memory" / "linked.md").symlink_to(outside)
    changes.close()
    changes = Changes(vault)  # a symlinked note is watched at its target
    outside.write_text("# Outside, edited\n")
    assert changes.changed() is True and changes.changed() is False
    changes.close()
    assert changes.changed() is True  # not watching: every call checks the files


# --- over real stdio --------------------------------------------------------

@pytest.mark.slow
async def test_stdio_server_registered_by_install_speaks_only_protocol_on_stdout(cli, vault, tmp_path, monkeypatch):
    """`mdmem install claude` writes .mcp.json; its command, started as Claude Code would, answers
    initialize, tools/list and a search; a copy of its stdout holds JSON-RPC messages only."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    notes = project / "notes"
    shutil.copytree(vault, notes)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", _bin_with_mdmem(tmp_path))
    cli("install", "claude", "--vault", notes, "--project", project)
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["mdmem"]
    assert entry == {"command": "mdmem", "args": ["mcp", "--vault", "notes"]}  # nothing of this machine
    wire = tmp_path / "stdout.jsonl"
    command = " ".join(map(shlex.quote, [entry["command"], *entry["args"]]))
    # Claude Code starts it in the folder it runs in (here a subfolder) and passes CLAUDE_PROJECT_DIR
    (project / "src").mkdir()
    params = StdioServerParameters(command="sh", args=["-c", f"{command} | tee {shlex.quote(str(wire))}"],
                                   env={"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "PATH": os.environ["PATH"],
                                        "CLAUDE_PROJECT_DIR": str(project)}, cwd=str(project / "src"))
    with open(tmp_path / "stderr.txt", "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            assert client.server_info.name == "mdmem"
            assert {t.name for t in (await client.list_tools()).tools} == READ_ONLY | WRITES
            got = await call(client, "search", query="integer cents")
            assert got["results"][0]["path"] == "memory/decisions/decision-integer-cents.md"
            assert "no note matches" in await fails(client, "read_note", note="nothing-like-it")
    lines = wire.read_text().splitlines()
    assert len(lines) >= 3 and all(json.loads(line)["jsonrpc"] == "2.0" for line in lines)
    assert f"serving {notes.resolve()}" in (tmp_path / "stderr.txt").read_text()


@pytest.mark.slow
def test_mcp_without_a_vault_fails_clearly_and_other_commands_never_load_the_sdk(vault, tmp_path):
    proc = run_process("mcp", "--vault", tmp_path / "nowhere")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"mdmem: vault not found: {tmp_path / 'nowhere'} (--vault) does not exist (was the vault "
                           "moved or renamed?)\n")
    probe = ("import sys; from typer.testing import CliRunner; from mdmem.cli.app import app; "
             f"r = CliRunner().invoke(app, ['search', 'cents', '--vault', {str(vault)!r}]); "
             "print(r.exit_code, sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mdmem.mcp'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert out.stdout == "0 []\n", out.stderr


# --- mdmem install claude ---------------------------------------------------------

def _bin_with_mdmem(tmp_path: Path) -> str:
    """A PATH whose `mdmem` is this interpreter's mdmem (as a venv's bin/ or a pipx install gives)."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    script = bindir / "mdmem"
    script.write_text(f"#!{sys.executable}\nfrom mdmem.__main__ import main\nmain()\n")
    script.chmod(0o755)
    return f"{bindir}{os.pathsep}/usr/bin{os.pathsep}/bin"


def dump(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def server(vault: Path) -> dict:
    return {"command": sys.executable, "args": ["-m", "mdmem", "mcp", "--vault", str(vault)]}


def claude_hooks(vault: Path) -> dict:
    """The "hooks" object `mdmem install claude` writes: Stop, SessionStart, UserPromptSubmit, PreCompact and
    SessionEnd groups, in that order."""
    def command(sub: str) -> str:
        return f"{shlex.quote(sys.executable)} -P -c {shlex.quote(HOOK_CODE)} hook {sub} --vault {shlex.quote(str(vault))}"

    def plain(sub: str) -> list:
        return [{"hooks": [{"type": "command", "command": command(sub), "timeout": 10}]}]
    return {"Stop": plain("stop"),
            "SessionStart": [{"matcher": "startup|resume|clear|compact", "hooks": [
                {"type": "command", "command": command("session-start"), "timeout": 10}]}],
            "UserPromptSubmit": plain("prompt"), "PreCompact": plain("pre-compact"),
            "SessionEnd": plain("session-end")}


EVENTS = ("Stop", "SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd")
SKILLS_REMOVED = "".join(f"skill /{name}: removed ({{skills}}/{name}/SKILL.md)\n"
                         for name in ("memory-check", "consolidate", "mdmem-memory"))


@pytest.fixture
def world(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("MDMEM_VAULT", raising=False)
    return home, project


GITIGNORE = ("# written by mdmem: personal Claude Code settings, mdmem's skills and backups stay out of git\n"
             "settings.local.json\n*.mdmem-backup\nskills/memory-check/\nskills/consolidate/\nskills/mdmem-memory/\n")


@pytest.fixture
def inside(world, vault, tmp_path, monkeypatch) -> Path:
    """The vault inside the project (project/notes) and `mdmem` on PATH: a portable .mcp.json."""
    notes = world[1] / "notes"
    shutil.copytree(vault, notes)
    monkeypatch.setenv("PATH", _bin_with_mdmem(tmp_path))
    return notes


@pytest.mark.slow
def test_install_claude_project_scope_writes_a_portable_mcp_json(cli, world, inside):
    home, project = world
    out = cli("install", "claude", "--vault", inside, "--project", project).stdout
    assert (project / ".mcp.json").read_text() == dump(
        {"mcpServers": {"mdmem": {"command": "mdmem", "args": ["mcp", "--vault", "notes"]}}})
    hooks = (project / ".claude" / "settings.local.json").read_text()
    assert json.loads(hooks)["hooks"]["Stop"][0]["hooks"][0]["command"].endswith(
        f"hook stop --vault {shlex.quote(str(inside))}")  # the hooks are local: this machine's paths are fine
    assert (project / ".claude" / ".gitignore").read_text() == GITIGNORE
    assert (inside / ".mdmem" / ".gitignore").read_text() == "*\n"  # before any hook makes .mdmem/hooks/
    assert not (project / ".claude" / "settings.json").exists() and not (home / ".claude.json").exists()
    assert out.startswith(f"mcpServers.mdmem: added\nwrote {project / '.mcp.json'}\n"
                          + "".join(f"{e}: added\n" for e in EVENTS)
                          + f"wrote {project / '.claude' / 'settings.local.json'}\n"
                          f"wrote {project / '.claude' / '.gitignore'} (settings.local.json, mdmem's skills and backups stay "
                          "out of git)\n")
    assert "\nClaude Code asks once, in this project, to approve the servers of .mcp.json (commit it to share)\n" \
        in out and out.endswith(f'put [judge] command = "claude -p" in {os.environ["MDMEM_HOME"]}/config.toml\n')
    before = {p: p.read_bytes() for p in (project / ".mcp.json", project / ".claude" / "settings.local.json",
                                          project / ".claude" / ".gitignore")}
    again = cli.json("install", "claude", "--vault", inside, "--project", project)
    assert again["mcp"]["actions"] == {"mcpServers.mdmem": "unchanged"} and again["hooks"]["actions"] == \
        {e: "unchanged" for e in EVENTS} and again["gitignore"] is None
    assert {p: p.read_bytes() for p in before} == before
    assert not list(project.rglob("*.mdmem-backup"))
    # the project root itself as the vault (it holds its MEMORY.md: a folder with nothing of a vault is refused)
    cli("install", "claude", "--vault", project, "--project", project, code=2)
    (project / "MEMORY.md").write_text("# Memory index\n")
    cli("install", "claude", "--vault", project, "--project", project)
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["mdmem"]["args"] == ["mcp", "--vault", "."]


def test_install_claude_machine_specific_entry_goes_to_the_local_scope(cli, vault, world, monkeypatch, tmp_path):
    """A vault outside the project (or no `mdmem` on PATH): the entry would hold absolute paths, so it goes
    to ~/.claude.json's projects["<project>"].mcpServers, and .mcp.json is left alone."""
    home, project = world
    out = cli("install", "claude", "--vault", vault, "--project", project).stdout
    state = json.loads((home / ".claude.json").read_text())
    assert state == {"projects": {os.path.realpath(project): {"mcpServers": {"mdmem": server(vault)}}}}
    assert not (project / ".mcp.json").exists()
    assert (project / ".claude" / "settings.local.json").read_text() == dump({"hooks": claude_hooks(vault)})
    assert out.startswith("mcpServers.mdmem: added\n(local scope: this project, for you on this machine only "
                          f"(the vault {vault} is outside the project); .mcp.json is left as it was)\n"
                          f"wrote {home / '.claude.json'}\n")
    notes = project / "notes"
    shutil.copytree(vault, notes)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no mdmem there
    got = cli.json("install", "claude", "--vault", notes, "--project", project)
    assert got["mcp"]["note"].startswith("local scope: this project, for you on this machine only (`mdmem` is not "
                                         "on PATH")
    assert json.loads((home / ".claude.json").read_text())["projects"][os.path.realpath(project)] == \
        {"mcpServers": {"mdmem": server(notes)}}
    # once mdmem is on PATH the entry moves to .mcp.json, and the local one (which would win) goes
    monkeypatch.setenv("PATH", _bin_with_mdmem(tmp_path))
    got = cli.json("install", "claude", "--vault", notes, "--project", project)
    assert got["mcp"]["path"] == str(project / ".mcp.json") and got["mcp"]["note"] is None
    assert got["replaced"]["actions"] == {"mcpServers.mdmem": "removed"}
    assert json.loads((home / ".claude.json").read_text()) == {}  # nothing left empty behind


def test_install_claude_keeps_other_servers_and_keys(cli, world, inside):
    _, project = world
    mine = {"command": "/old/python", "args": ["-m", "mdmem", "mcp", "--vault", "/old"], "env": {"A": "1"}}
    old = {"mcpServers": {"github": {"command": "gh-mcp", "args": []}, "mdmem": mine}, "extra": [1, "ü"]}
    (project / ".mcp.json").write_text(dump(old))
    got = cli.json("install", "claude", "--vault", inside, "--project", project)
    assert got["mcp"]["actions"] == {"mcpServers.mdmem": "updated"}
    assert got["mcp"]["backup"] == str(project / ".mcp.json.mdmem-backup")
    assert (project / ".mcp.json.mdmem-backup").read_text() == dump(old)
    new = json.loads((project / ".mcp.json").read_text())
    assert list(new) == ["mcpServers", "extra"] and new["extra"] == [1, "ü"]
    assert list(new["mcpServers"]) == ["github", "mdmem"] and new["mcpServers"]["github"] == old["mcpServers"]["github"]
    assert new["mcpServers"]["mdmem"] == {"command": "mdmem", "args": ["mcp", "--vault", "notes"], "env": {"A": "1"}}


@pytest.mark.parametrize("config_dir", [False, True])
def test_install_claude_user_scope(cli, vault, world, monkeypatch, config_dir):
    home, project = world
    where = home / "cfg" if config_dir else home / ".claude"
    state = home / "cfg" / ".claude.json" if config_dir else home / ".claude.json"
    if config_dir:
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "cfg"))
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(dump({"numStartups": 7, "projects": {"/x": {"mcpServers": {}}}}))
    got = cli.json("install", "claude", "--scope", "user", "--vault", vault, "--project", project)
    assert got["mcp"]["path"] == str(state) and got["hooks"]["path"] == str(where / "settings.json")
    assert json.loads(state.read_text()) == {"numStartups": 7, "projects": {"/x": {"mcpServers": {}}},
                                             "mcpServers": {"mdmem": server(vault)}}
    assert json.loads((where / "settings.json").read_text()) == {"hooks": claude_hooks(vault)}
    assert not (project / ".mcp.json").exists() and not (project / ".claude").exists()
    bytes_now = state.read_bytes()
    cli("install", "claude", "--scope", "user", "--vault", vault)
    assert state.read_bytes() == bytes_now


@pytest.mark.slow
def test_install_claude_refuses_invalid_json_and_touches_nothing(cli, world, inside):
    _, project = world
    vault = inside
    _, project = world
    (project / ".mcp.json").write_text('{"mcpServers": {oops}')
    result = cli("install", "claude", "--vault", vault, "--project", project, code=1)
    assert "not valid JSON" in result.stderr and "nothing was changed" in result.stderr
    assert (project / ".mcp.json").read_text() == '{"mcpServers": {oops}'
    assert not (project / ".claude").exists()  # checked before either file is written
    (project / ".mcp.json").write_text('{"mcpServers": []}')
    assert '"mcpServers" must be an object' in cli("install", "claude", "--vault", vault, "--project", project,
                                                   code=1).stderr
    (project / ".mcp.json").unlink()
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text("[]")
    assert "top level must be an object" in cli("install", "claude", "--vault", vault, "--project", project,
                                                code=1).stderr
    assert not (project / ".mcp.json").exists()
    cli("install", "claude", "--scope", "team", "--vault", vault, "--project", project, code=2)


def test_install_claude_dry_run_writes_nothing(cli, world, inside):
    _, project = world
    out = cli("install", "claude", "--vault", inside, "--project", project, "--dry-run").stdout
    assert f"dry run: would write {project / '.mcp.json'}:" in out and '"mdmem": {' in out
    assert f"dry run: would write {project / '.claude' / 'settings.local.json'}:" in out
    assert f"would write {project / '.claude' / '.gitignore'}" in out
    assert not (project / ".mcp.json").exists() and not (project / ".claude").exists()


@pytest.mark.slow
def test_uninstall_claude_undoes_install_claude(cli, world, inside):
    home, project = world
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(dump({"model": "opus"}))  # the team's: never touched
    cli("install", "claude", "--vault", inside, "--project", project)
    assert (project / ".mcp.json").exists() and (project / ".claude" / "settings.local.json").exists()
    dry = cli.json("uninstall", "claude", "--project", project, "--dry-run")
    assert [r["actions"] for r in dry["results"]] == [{"mcpServers.mdmem": "removed"}, {"mcpServers.mdmem": "absent"},
                                                     {e: "removed" for e in EVENTS}]
    assert (project / ".mcp.json").exists()
    out = cli("uninstall", "claude", "--project", project).stdout
    assert out == (f"mcpServers.mdmem: removed\nremoved {project / '.mcp.json'}: it held nothing else\n"
                   f"mcpServers.mdmem: absent\nnothing to change in {home / '.claude.json'}\n"
                   + "".join(f"{e}: removed\n" for e in EVENTS)
                   + f"removed {project / '.claude' / 'settings.local.json'}: it held nothing else\n"
                   f"removed {project / '.claude' / '.gitignore'}\n"
                   + SKILLS_REMOVED.format(skills=project / ".claude" / "skills"))
    assert sorted(p.name for p in project.iterdir()) == [".claude", ".git", "notes"]
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["settings.json"]
    # others' servers and settings stay; a second uninstall changes nothing
    (project / ".mcp.json").write_text(dump({"mcpServers": {"github": {"command": "gh-mcp"}}}))
    cli("install", "claude", "--vault", inside, "--project", project)
    cli("uninstall", "claude", "--project", project)
    assert json.loads((project / ".mcp.json").read_text()) == {"mcpServers": {"github": {"command": "gh-mcp"}}}
    again = cli.json("uninstall", "claude", "--project", project)
    assert [r["actions"] for r in again["results"]] == [{"mcpServers.mdmem": "absent"}, {"mcpServers.mdmem": "absent"},
                                                       {e: "absent" for e in EVENTS}]
    # user scope: the server leaves ~/.claude.json, the hooks ~/.claude/settings.json
    cli("install", "claude", "--scope", "user", "--vault", inside)
    cli("uninstall", "claude", "--scope", "user")
    assert not (home / ".claude.json").exists()  # install made it (no backup of an earlier one): it goes (decision 119)
    assert json.loads((home / ".claude" / "settings.json").read_text()) == {}


@pytest.mark.slow
def test_uninstall_claude_leaves_no_empty_object_and_keeps_everything_else(cli, world, tmp_path):
    """A new user's trial: `uninstall claude` left `"mcpServers": {}` (and, in the local scope, a project entry
    holding only that) in ~/.claude.json. What install added goes, with each object that leaves empty; the user's
    keys, servers, projects and hooks stay as they were, an empty object of their own included."""
    home, project = world
    vault = tmp_path / "v"
    cli("init", vault)
    state, settings = home / ".claude.json", home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "echo mine"}
    old_state = {"numStartups": 3, "projects": {"/x": {"allowedTools": [], "mcpServers": {}}}}
    old_settings = {"model": "opus", "hooks": {"Stop": [{"hooks": [mine]}]}}
    state.write_text(dump(old_state))
    settings.write_text(dump(old_settings))
    for scope in ("user", "project"):  # a vault outside the project: the project's server goes to the local scope
        cli("install", "claude", "--scope", scope, "--vault", vault, "--project", project)
        assert "mdmem" in json.dumps(json.loads(state.read_text()))
        cli("uninstall", "claude", "--scope", scope, "--project", project)
        assert json.loads(state.read_text()) == old_state, scope
        assert json.loads(settings.read_text()) == old_settings, scope
    # the user's own servers and the project's own keys stay, mdmem's entry alone goes
    ours = os.path.realpath(project)
    old_state = {"mcpServers": {"github": {"command": "gh-mcp"}}, "projects": {ours: {"allowedTools": ["Bash"]}}}
    state.write_text(dump(old_state))
    for scope in ("user", "project"):
        cli("install", "claude", "--scope", scope, "--vault", vault, "--project", project)
        cli("uninstall", "claude", "--scope", scope, "--project", project)
        assert json.loads(state.read_text()) == old_state, scope
    # a shared .mcp.json with a key of its own keeps it, without an empty "mcpServers"
    (project / ".mcp.json").write_text(dump({"mcpServers": {"mdmem": server(vault)}, "extra": [1]}))
    got = cli.json("uninstall", "claude", "--project", project)
    assert got["results"][0]["actions"] == {"mcpServers.mdmem": "removed"}
    assert json.loads((project / ".mcp.json").read_text()) == {"extra": [1]}


def test_install_claude_keeps_the_machine_specific_skills_out_of_git(cli, vault, tmp_path, monkeypatch):
    """The skills' commands hold this machine's interpreter and vault paths: in a real git repository nothing
    mdmem writes under .claude/ shows as untracked, while a skill of the team's still does. An older
    .gitignore (without the skill lines) gets them on the next install and still goes with uninstall."""
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".claude").mkdir()
    (project / ".claude" / ".gitignore").write_text(
        "# written by mdmem: personal Claude Code settings and mdmem's backups stay out of git\n"
        "settings.local.json\n*.mdmem-backup\n")  # what an earlier mdmem wrote
    team = project / ".claude" / "skills" / "deploy" / "SKILL.md"
    team.parent.mkdir(parents=True)
    team.write_text("---\nname: deploy\ndescription: the team's\n---\n")
    cli("install", "claude", "--vault", vault, "--project", project)
    skill = project / ".claude" / "skills" / "memory-check" / "SKILL.md"
    assert str(vault.absolute()) in skill.read_text()  # a machine path: why it must stay out of git
    status = subprocess.run(["git", "-C", str(project), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    assert sorted(status) == ["?? .claude/.gitignore", "?? .claude/skills/deploy/SKILL.md"], status
    assert (project / ".claude" / ".gitignore").read_text().endswith(
        "skills/memory-check/\nskills/consolidate/\nskills/mdmem-memory/\n")
    cli("uninstall", "claude", "--project", project)
    assert not (project / ".claude" / ".gitignore").exists() and team.exists()

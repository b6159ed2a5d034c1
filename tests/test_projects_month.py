"""A month in one vault with two git projects: sessions in each (the CLI run from the repository, a checkpoint
accepted there, the MCP server started there), then the card and the prompt hook of project B's session.
B's card holds none of A's decisions or feedback and all of B's and the global ones; every note written carries
its project; the graph links each to its project's note."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import Cli

pytestmark = pytest.mark.slow  # the whole module is in the slow lane (.ci/run)

A_NOTES = {
    "decision": "We chose PostgreSQL over MongoDB for the atlas billing service because we need transactions.",
    "feedback": "In atlas, keep the migration files small: one table per migration file.",
}
B_NOTES = {
    "decision": "We chose Astro over Next.js for the borealis marketing site because pages are static.",
    "feedback": "In borealis, never commit generated images; they are built in CI from the sources.",
}
GLOBAL = "I prefer short answers with the conclusion first, then the details."


def _repo(root: Path, name: str) -> Path:
    repo = root / "code" / name
    (repo / ".git").mkdir(parents=True)  # a git repository as the walk up finds it (no git spawned)
    (repo / "src").mkdir()
    return repo


def _hook(name: str, vault: Path, payload: dict, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "MDMEM_TODAY": "2026-11-30"}
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", name, "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def _frontmatter(path: Path) -> dict:
    import frontmatter

    return dict(frontmatter.loads(path.read_text()).metadata)


@pytest.fixture
def month(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    cli = Cli()
    vault = tmp_path / "vault"
    cli("init", str(vault))
    atlas, borealis = _repo(tmp_path, "atlas"), _repo(tmp_path, "borealis")
    day = iter(f"2026-11-{d:02d}" for d in range(2, 30))
    # week 1: a session in atlas (run from a sub-folder: the git root is the project)
    monkeypatch.chdir(atlas / "src")
    for kind, text in A_NOTES.items():
        cli("save", text, "--type", kind, "--vault", str(vault), env={"MDMEM_TODAY": next(day)})
    cli("save", GLOBAL, "--type", "feedback", "--global", "--vault", str(vault))
    # week 2: a session in borealis; one memory by hand, one from an accepted checkpoint
    monkeypatch.chdir(borealis)
    cli("save", B_NOTES["decision"], "--type", "decision", "--vault", str(vault), env={"MDMEM_TODAY": next(day)})
    proposal = {"dimensions": [6], "candidates": [
        {"type": "feedback", "dimension": 6, "name": "No generated images in borealis commits",
         "description": B_NOTES["feedback"], "body": B_NOTES["feedback"]}]}
    cli.runner.invoke(__import__("mdmem.cli.app").cli.app.app,
                      ["checkpoint", "propose", "--vault", str(vault), "--session", "b1"], input=json.dumps(proposal))
    cli("checkpoint", "accept", "1", "--session", "b1", "--vault", str(vault))
    # week 3: an agent in atlas saves over MCP (the server runs in the repository)
    monkeypatch.chdir(atlas)
    import anyio
    from mcp import Client

    from mdmem.mcp_server import build_server

    async def mcp_save() -> dict:
        async with Client(build_server(vault), mode="legacy") as client:
            result = await client.call_tool("save", {"text": "Atlas invoices are numbered per tenant, never "
                                                             "globally; the sequence lives in the tenants table.",
                                                     "type": "reference"})
            assert not result.is_error, result.content[0].text
            return json.loads(result.content[0].text)

    saved = anyio.run(mcp_save)
    assert saved["path"].startswith("memory/references/")
    return cli, vault, atlas, borealis


def test_a_month_in_two_projects(month, tmp_path: Path):
    cli, vault, atlas, borealis = month
    notes = {p.relative_to(vault).as_posix(): _frontmatter(p) for p in (vault / "memory").rglob("*.md")}
    owners = {path: fm.get("project") for path, fm in notes.items() if fm.get("type") != "project"}
    assert sorted(owners.values(), key=str) == sorted(["[[atlas]]", "[[atlas]]", "[[atlas]]", "[[borealis]]",
                                                       "[[borealis]]", None], key=str)
    # and where it came from: typed (user), accepted from B's checkpoint (its session), saved over MCP (agent)
    sources = sorted(fm.get("source") for fm in notes.values() if fm.get("type") != "project")
    assert sources == ["agent", "checkpoint", "user", "user", "user", "user"]
    assert all(fm.get("created") for fm in notes.values())
    assert [fm.get("session") for fm in notes.values() if fm.get("source") == "checkpoint"] == ["b1"]
    # each project has its note, made on first use, which every memory of it links to
    assert notes["memory/projects/atlas.md"]["type"] == "project"
    assert notes["memory/projects/borealis.md"]["type"] == "project"
    back = cli.json("backlinks", "memory/projects/atlas.md", "--vault", str(vault))
    linking = {b["source"] for b in back["backlinks"]}
    assert {p for p, o in owners.items() if o == "[[atlas]]"} <= linking
    # B's card: B's and the global memories, none of A's
    card = _hook("session-start", vault, {"session_id": "b2", "hook_event_name": "SessionStart", "source": "startup",
                                          "cwd": str(borealis)}, borealis).stdout
    assert "Astro over Next.js" in card and "borealis" in card.lower() and "conclusion first" in card
    assert "PostgreSQL" not in card and "migration files" not in card
    card_a = _hook("session-start", vault, {"session_id": "a2", "hook_event_name": "SessionStart",
                                            "source": "startup", "cwd": str(atlas / "src")}, atlas).stdout
    assert "PostgreSQL" in card_a and "Astro" not in card_a and "generated images" not in card_a
    # B's prompt hook never offers A's decision; A's does
    ask = {"session_id": "b2", "hook_event_name": "UserPromptSubmit",
           "prompt": "which database did we choose for the billing service and why?"}
    assert _hook("prompt", vault, ask | {"cwd": str(borealis)}, borealis).stdout == ""
    given = _hook("prompt", vault, ask | {"cwd": str(atlas), "session_id": "a3"}, atlas).stdout
    assert "PostgreSQL" in given
    # recall in B: not A's unless asked, then marked
    os.chdir(borealis)
    alone = cli("recall", "PostgreSQL billing transactions", "--vault", str(vault)).stdout
    assert "memory/decisions/" not in alone and "Nothing found" in alone
    # ... but it says that another project's memories answer, and how to see them
    assert "1 more matches in other projects' memories: atlas (1)" in alone and "--project all" in alone
    hidden = cli.json("recall", "PostgreSQL billing transactions", "--vault", str(vault))
    assert hidden["elsewhere"] == {"atlas": 1} and hidden["ranked"] == []
    everything = cli("recall", "PostgreSQL billing transactions", "--project", "all", "--vault", str(vault)).stdout
    assert "from project atlas" in everything
    named = cli("recall", "PostgreSQL billing transactions", "--project", "atlas", "--vault", str(vault)).stdout
    assert "PostgreSQL" in named and "from project" not in named

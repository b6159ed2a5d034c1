"""Forgetting in a flat vault (Claude Code's own memory folder: MEMORY.md beside its notes, no memory/), through the
real CLI: a new user's trial found the first `forget` made memory/.archive/, after which the vault counted as
layered, every other note fell outside memory/ (check: 0 memory files) and the next `forget` refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the whole module is in the slow lane (.ci/run)


def flat_vault(root: Path) -> Path:
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n- [Deploy](deploy.md) — how we deploy\n- [Style](style.md) — code style\n")
    (root / "deploy.md").write_text("---\nname: Deploy\ndescription: how we deploy\n---\nWe deploy with Cloudflare Pages.\n")
    (root / "style.md").write_text("---\nname: Style\ndescription: code style\n---\nUse ruff for linting.\n")
    return root


def files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".mdmem" not in p.parts)


def test_a_flat_vault_stays_flat_through_forget_and_restore(cli, tmp_path: Path):
    vault = flat_vault(tmp_path / "flat")
    first = cli.json("forget", "deploy.md", "--vault", vault)
    assert [(n["path"], n["archived_to"]) for n in first["notes"]] == [("deploy.md", ".archive/deploy.md")]
    assert not (vault / "memory").exists()
    audit = cli.json("check", "--vault", vault)
    assert audit["layout"] == "flat" and audit["budget"]["files"] == 1  # style.md is still a memory
    second = cli.json("forget", "Style", "--vault", vault)  # refused before: "only memory notes (under memory/)"
    assert [(n["path"], n["archived_to"]) for n in second["notes"]] == [("style.md", ".archive/style.md")]
    assert files(vault) == [".archive/deploy.md", ".archive/forgotten.jsonl", ".archive/style.md", "MEMORY.md"]
    assert [json.loads(ln)["from"] for ln in (vault / ".archive" / "forgotten.jsonl").read_text().splitlines()] == \
        ["deploy.md", "style.md"]
    shown = cli("show", ".archive/deploy.md", "--vault", vault, code=1)
    assert "is an archived (forgotten) note; bring it back with `mdmem restore .archive/deploy.md`" in shown.stderr
    back = cli.json("restore", "deploy", "--vault", vault)
    assert (back["archived"], back["path"], back["logged"]) == (".archive/deploy.md", "deploy.md", True)
    assert back["index_lines"] == ["- [Deploy](deploy.md) — how we deploy"]
    cli("restore", "style.md", "--vault", vault)
    assert files(vault) == [".archive/forgotten.jsonl", "MEMORY.md", "deploy.md", "style.md"]
    assert (vault / "MEMORY.md").read_text() == \
        "# Memory\n- [Deploy](deploy.md) — how we deploy\n- [Style](style.md) — code style\n"
    assert cli.json("check", "--vault", vault)["budget"]["files"] == 2


def test_a_layered_vault_keeps_its_archive_and_restore_finds_a_note_forgotten_while_flat(cli, tmp_path: Path):
    vault = tmp_path / "v"
    cli("init", vault)
    cli("save", "We deploy with Cloudflare Pages.", "-t", "decision", "--name", "Deploy on Pages", "--vault", vault)
    got = cli.json("forget", "Deploy on Pages", "--vault", vault)
    assert [n["archived_to"] for n in got["notes"]] == ["memory/.archive/decisions/Deploy on Pages.md"]
    assert not (vault / ".archive").exists()
    # a flat vault forgets a note, then is made layered (`mdmem init`): restore still finds it, at its old path
    flat = flat_vault(tmp_path / "flat")
    cli("forget", "style.md", "--vault", flat)
    cli("init", flat)
    assert (flat / "memory").is_dir()
    back = cli.json("restore", "style", "--vault", flat)
    assert (back["archived"], back["path"]) == (".archive/style.md", "style.md")
    assert (flat / "style.md").read_text().endswith("Use ruff for linting.\n")

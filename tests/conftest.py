"""Fixtures for every test: a fresh copy of sample-vault/, the real CLI, and an isolated environment."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from support import SAMPLE, Cli


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs with HOME, MDMEM_HOME and CLAUDE_CONFIG_DIR in a private folder, no MDMEM_*
    variable from the caller's shell, and the current folder in an empty temporary one: nothing a
    test does can touch the developer's own vault or Claude Code settings, and no test sees them."""
    home = tmp_path_factory.mktemp("home")
    for name in list(os.environ):
        if name.startswith("MDMEM_") or name == "CLAUDECODE":  # run inside Claude Code: a CLI write is the agent's
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MDMEM_HOME", str(home / ".mdmem"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    cwd = tmp_path_factory.mktemp("cwd")
    monkeypatch.chdir(cwd)
    return home


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A private copy of sample-vault/ (without derived state)."""
    dest = tmp_path / "vault"
    shutil.copytree(SAMPLE, dest, ignore=shutil.ignore_patterns(".mdmem"))
    return dest


@pytest.fixture
def cli() -> Cli:
    return Cli()

"""Shared test helpers: a fresh copy of sample-vault/ and the real CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample-vault"
FIXTURES = ROOT.parent / "shared" / "fixtures"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A private copy of sample-vault/ (without derived state)."""
    dest = tmp_path / "vault"
    shutil.copytree(SAMPLE, dest, ignore=shutil.ignore_patterns(".mdmem"))
    return dest


class Cli:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, code: int = 0, env: dict | None = None):
        result = self.runner.invoke(app, [str(a) for a in args], env=env, catch_exceptions=False)
        assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
        return result

    def json(self, *args: str, env: dict | None = None):
        return json.loads(self(*args, "--json", env=env).stdout)


@pytest.fixture
def cli() -> Cli:
    return Cli()


def run_process(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m mdmem ARGS`` as a separate process."""
    return subprocess.run(
        [sys.executable, "-m", "mdmem", *map(str, args)],
        capture_output=True, text=True, env=env, timeout=timeout,
    )

"""Shared test helpers (not a test module): paths, a fresh copy of sample-vault/, the real CLI, and the
sample conversation. conftest.py turns some of them into fixtures; tests import the rest from here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from mdmem.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample-vault"
FIXTURES = ROOT / "tests" / "data" / "fixtures"  # real vaults and transcripts, with their licences

SESSION = """User: The sync service needs a queue. Should we use Redis instead of SQS?
Assistant: We decided to use SQS instead of Redis because it is managed and we have no ops team.
User: From now on, keep your replies under ten lines.
User: And never edit files under migrations/ by hand; generate them with alembic.
Assistant: Understood.
User: no, don't paste the whole diff back to me, just say which files changed.
"""


class Cli:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, code: int = 0, env: dict | None = None):
        result = self.runner.invoke(app, [str(a) for a in args], env=env, catch_exceptions=False)
        assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
        return result

    def json(self, *args: str, env: dict | None = None):
        return json.loads(self(*args, "--json", env=env).stdout)


def new_vault(tmp_path: Path) -> tuple[Cli, Path]:
    """A CLI runner and a vault ``mdmem init`` made at ``tmp_path/vault``."""
    cli = Cli()
    vault = tmp_path / "vault"
    cli("init", str(vault))
    return cli, vault


def git_repo(root: Path, name: str) -> Path:
    """``root/code/name`` made a git root as the walk up finds it (a ``.git`` folder; no git spawned)."""
    repo = root / "code" / name
    (repo / ".git").mkdir(parents=True)
    return repo


def propose(cli: Cli, vault: Path, session: str, *candidates: dict) -> str:
    """``mdmem checkpoint propose --session SESSION`` with ``candidates`` as a model's JSON on stdin; its stdout."""
    result = cli.runner.invoke(app, ["checkpoint", "propose", "--vault", str(vault), "--session", session],
                               input=json.dumps({"dimensions": [6], "candidates": list(candidates)}))
    assert result.exit_code == 0, result.output
    return result.stdout


def hook_env(tmp_path: Path, **extra: str) -> dict:
    """The environment of a hook or CLI subprocess: no MDMEM_* or CLAUDECODE from the caller, a private home."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_") and k != "CLAUDECODE"}
    return env | {"MDMEM_HOME": str(tmp_path / "home-mdmem"), "HOME": str(tmp_path / "home")} | extra


def run_hook(name: str, vault: Path, tmp_path: Path, payload: dict) -> str:
    """``mdmem hook NAME --vault VAULT`` with ``payload`` as JSON on stdin, as Claude Code runs it; its stdout."""
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", name, "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, env=hook_env(tmp_path),
                          timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def settled(vault: Path, bound: float = 60.0) -> int:
    """Wait until every notes-cache refresh a prompt hook started in the background (``mdmem hook refresh``: a line
    in the hook log when started, one when done) has ended, at most ``bound`` seconds (a hang guard, never a timing
    the test depends on); how many were started."""
    import time

    log = vault / ".mdmem" / "hooks" / "hook.log"
    deadline = time.monotonic() + bound
    while True:
        lines = log.read_text("utf-8").splitlines() if log.exists() else []
        started = sum(1 for line in lines if line.split(" ", 1)[-1].startswith("hook refresh --vault "))
        ended = sum(1 for line in lines if line.split(" ", 1)[-1].startswith("hook refresh: "))
        if ended >= started:
            return started
        assert time.monotonic() < deadline, f"{started - ended} background refresh(es) still running: {lines[-5:]}"
        time.sleep(0.05)


def unfenced(text: str) -> str:
    """``text`` without the fence lines mdmem puts around vault text (mdmem.text.fence), to compare the rest."""
    import re

    return re.sub(r"^</?mdmem-vault-data-[0-9a-f]{8}>(\n|\Z)", "", text, flags=re.M)


def script(name: str):
    """A script of ``scripts/`` loaded as a module (once per test session), to test what it computes."""
    import importlib.util

    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def run_process(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m mdmem ARGS`` as a separate process."""
    return subprocess.run(
        [sys.executable, "-m", "mdmem", *map(str, args)],
        capture_output=True, text=True, env=env, timeout=timeout,
    )


def drain(master: int, proc, stop_at_exit: bool = True, timeout: float = 30) -> str:
    """What a child showed on the pseudo-terminal ``master``: read until it closes it (or, with ``stop_at_exit``,
    until the child has exited and nothing is left to read), within ``timeout`` (a hang guard, not a timing);
    then ``master`` is closed. CRLF read as LF."""
    import os
    import select
    import time

    shown, deadline = b"", time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child is gone
                break
            if not chunk:
                break
            shown += chunk
        elif stop_at_exit and proc.poll() is not None:
            break
    os.close(master)
    return shown.decode("utf-8", "replace").replace("\r\n", "\n")


def cache_meta(vault: Path, key: str) -> str | None:
    """A value of the vault's notes cache's ``meta`` table (None when it has none)."""
    import sqlite3

    db = sqlite3.connect(vault / ".mdmem" / "notes.db")
    try:
        row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    finally:
        db.close()
    return row[0] if row else None

"""A vault synced by iCloud, Dropbox or Obsidian Sync keeps mdmem's state outside it (``MDMEM_STATE_DIR``, or
``[state] folder`` in the user's own ``$MDMEM_HOME/config.toml``): through the real CLI and the hooks, nothing
is written under the vault but the notes asked for; the state lives in a folder of its own per vault (keyed by
the vault's resolved path), checked as ``.mdmem`` is; deleting it and running again rebuilds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import hook_env, run_process

RULE = "Never commit generated images in the atlas repository; CI builds them from the sources."


def _run(env: dict, *args: str) -> subprocess.CompletedProcess:
    proc = run_process(*args, env=env)
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc


def _hook(name: str, vault: Path, env: dict, payload: dict, cwd: Path) -> str:
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", name, "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=120, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _tree(root: Path) -> set[str]:
    """Every file below ``root`` (any file, hidden ones too)."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if not p.is_dir()}


def test_nothing_of_mdmems_in_a_synced_vault(tmp_path: Path) -> None:
    vault, state = tmp_path / "iCloud" / "notes", tmp_path / "mdmem-state"
    env = hook_env(tmp_path, MDMEM_STATE_DIR=str(state))
    init = _run(env, "init", str(vault))
    assert ".mdmem" not in init.stdout.split("state")[0] and str(state) in init.stdout, init.stdout
    after_init = _tree(vault)
    saved = json.loads(_run(env, "save", RULE, "--type", "feedback", "--global", "--vault", str(vault),
                            "--json").stdout)["path"]
    assert "atlas" in _run(env, "search", "generated images", "--vault", str(vault)).stdout
    info = json.loads(_run(env, "index", "--vault", str(vault), "--json").stdout)
    talk = tmp_path / "talk.md"
    talk.write_text("User: From now on, never commit generated images.\nAssistant: Understood.\n")
    session = {"session_id": "s1", "cwd": str(tmp_path), "transcript_path": str(talk)}
    card = _hook("session-start", vault, env, session | {"hook_event_name": "SessionStart", "source": "startup"},
                 tmp_path)
    assert "generated images" in card
    _hook("prompt", vault, env, session | {"hook_event_name": "UserPromptSubmit",
                                           "prompt": "may I commit the generated images?"}, tmp_path)
    _hook("stop", vault, env, session | {"hook_event_name": "Stop", "stop_hook_active": False}, tmp_path)
    # the vault holds the notes asked for (MEMORY.md lists the saved one) and nothing else of mdmem's
    assert _tree(vault) - after_init == {saved}, _tree(vault) - after_init
    assert not (vault / ".mdmem").exists()
    # the state: one folder for this vault, named by it and its path's hash, holding everything derived
    (folder,) = state.iterdir()
    assert folder.name.startswith("notes-") and info["state"] == str(folder / ".mdmem")
    held = _tree(folder / ".mdmem")
    assert "notes.db" in held and any(p.startswith("index/") for p in held), held
    assert {"hooks/stop-s1.json", "hooks/prompt-s1.json"} <= held, held  # the hooks' state follows it
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    # deleted, it is made again from the notes
    import shutil

    shutil.rmtree(state)
    assert "atlas" in _run(env, "search", "generated images", "--vault", str(vault)).stdout
    assert (folder / ".mdmem" / "notes.db").is_file() and not (vault / ".mdmem").exists()


def test_the_user_config_setting_and_two_vaults_of_one_name(tmp_path: Path) -> None:
    state = tmp_path / "elsewhere"
    env = hook_env(tmp_path)
    home = Path(env["MDMEM_HOME"])
    home.mkdir()
    (home / "config.toml").write_text(f'[state]\nfolder = "{state}"\n')
    one, two = tmp_path / "a" / "vault", tmp_path / "b" / "vault"
    for vault in (one, two):
        _run(env, "init", str(vault))
    where = {json.loads(_run(env, "index", "--vault", str(v), "--json").stdout)["state"] for v in (one, two)}
    assert len(where) == 2 and all(w.startswith(str(state) + os.sep) for w in where), where
    assert not (one / ".mdmem").exists() and not (two / ".mdmem").exists()
    # a bad setting is one line naming the file, never a traceback
    (home / "config.toml").write_text("[state]\nfolder = 3\n")
    proc = run_process("index", "--vault", str(one), env=env)
    assert proc.returncode != 0 and "config.toml" in proc.stderr and "Traceback" not in proc.stderr


def test_the_state_folder_is_checked_as_mdmem_is(tmp_path: Path) -> None:
    """The vault's folder in the state home replaced by a symlink (to a folder holding someone's notes.db):
    refused, nothing written through it."""
    vault, state, decoy = tmp_path / "vault", tmp_path / "state", tmp_path / "decoy"
    env = hook_env(tmp_path, MDMEM_STATE_DIR=str(state))
    _run(env, "init", str(vault))
    (folder,) = state.iterdir()
    import shutil

    shutil.rmtree(folder)
    (decoy / ".mdmem").mkdir(parents=True)
    (decoy / ".mdmem" / "notes.db").write_bytes(b"someone's")
    folder.symlink_to(decoy)
    proc = run_process("search", "anything", "--vault", str(vault), env=env)
    assert proc.returncode != 0 and "symlink" in proc.stderr, proc.stderr
    assert (decoy / ".mdmem" / "notes.db").read_bytes() == b"someone's"


@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_variable_keeps_the_state_in_the_vault(tmp_path: Path, empty: str) -> None:
    vault = tmp_path / "vault"
    _run(hook_env(tmp_path, MDMEM_STATE_DIR=empty), "init", str(vault))
    assert (vault / ".mdmem").is_dir()

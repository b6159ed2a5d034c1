"""The hooks when the vault they are given is unusable, as a new user's trial met it, each through the real hook
process (`python -m mdmem hook ...`, JSON on stdin) with a fresh HOME: a `--vault` folder that is no vault is
refused with nothing written into it, and the session start says so where the user sees it (`systemMessage`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HOOKS = ("session-start", "stop", "prompt", "pre-compact", "session-end")


def hook(name: str, *args, stdin: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {"MDMEM_HOME": os.environ["MDMEM_HOME"]}
    return subprocess.run([sys.executable, "-m", "mdmem", "hook", name, *map(str, args)], input=json.dumps(stdin),
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.slow
def test_a_folder_that_is_no_vault_is_refused_by_every_hook_and_left_untouched(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Notes of mine\n")
    talk = tmp_path / "t.md"
    talk.write_text("User: From now on, answer in English.\nAssistant: We chose SQS over Redis because it is managed.\n")
    event = {"session_id": "s1", "source": "startup", "transcript_path": str(talk), "cwd": str(tmp_path),
             "prompt": "how do we deploy"}
    why = (f"{docs} (--vault) is a folder of notes, not a vault yet: make it one with `mdmem init {docs}` before "
           "writing to it (reading it works as it is)")
    for name in HOOKS:
        proc = hook(name, "--vault", docs, stdin=event | {"hook_event_name": name})
        assert proc.returncode == 0 and proc.stderr == f"mdmem hook {name}: {why}\n", name
        if name == "session-start":  # the user sees it (and the agent knows there is no memory this session)
            line = f"mdmem hook session-start: {why}"
            assert json.loads(proc.stdout) == {"systemMessage": line, "hookSpecificOutput": {
                "hookEventName": "SessionStart", "additionalContext": line}}
        else:
            assert proc.stdout == "", name
    assert sorted(p.name for p in docs.rglob("*")) == ["a.md"]  # no .mdmem/ made: it is still no vault
    logged = (Path(os.environ["MDMEM_HOME"]) / "hook.log").read_text().splitlines()
    assert [ln.split(" ", 2)[1] for ln in logged] == ["session_start", "stop", "prompt", "pre_compact", "session_end"]
    # once it is made a vault, the same hook answers with the card
    assert subprocess.run([sys.executable, "-m", "mdmem", "init", docs], capture_output=True).returncode == 0
    card = hook("session-start", "--vault", docs, stdin=event | {"hook_event_name": "SessionStart"})
    assert card.returncode == 0 and card.stderr == "" and card.stdout.startswith("# ")


def test_a_vault_moved_away_is_shown_to_the_user_at_session_start(tmp_path: Path):
    """A `--vault` that no longer exists (the vault moved or renamed) printed nothing at session start (stderr only,
    hidden by Claude Code on exit 0) while a folder that is no vault got a systemMessage: the user silently lost
    memory. Now the same systemMessage, and nothing is made at the old path."""
    gone = tmp_path / "vault"
    assert subprocess.run([sys.executable, "-m", "mdmem", "init", gone], capture_output=True).returncode == 0
    gone.rename(tmp_path / "vault-renamed")
    proc = hook("session-start", "--vault", gone, stdin={"session_id": "s1", "source": "startup"})
    line = f"mdmem hook session-start: vault not found: {gone} (--vault) does not exist (was the vault moved or renamed?)"
    assert proc.returncode == 0 and proc.stderr == line + "\n"
    assert json.loads(proc.stdout) == {"systemMessage": line, "hookSpecificOutput": {
        "hookEventName": "SessionStart", "additionalContext": line}}
    stop = hook("stop", "--vault", gone, stdin={"session_id": "s1", "transcript_path": str(tmp_path / "t")})
    assert stop.returncode == 0 and stop.stdout == ""  # the turn's hooks stay quiet: the session start said it
    assert not gone.exists()


@pytest.mark.slow
def test_every_vault_given_that_cannot_be_used_exits_2(tmp_path: Path):
    """`--vault /etc` (no vault) exited 2 and a missing folder 1: both are a wrong value given, exit 2 (usage)."""
    docs, file = tmp_path / "docs", tmp_path / "f.md"
    docs.mkdir()
    file.write_text("x\n")
    for given, why in ((tmp_path / "gone", "vault not found: {} (--vault) does not exist (was the vault moved or "
                        "renamed?)"), (file, "vault not found: {} (--vault) is not a folder"),
                       (docs, "{} (--vault) is not a vault (no MEMORY.md")):
        proc = subprocess.run([sys.executable, "-m", "mdmem", "search", "x", "--vault", given],
                              capture_output=True, text=True, timeout=120)
        assert (proc.returncode, proc.stdout) == (2, ""), given
        assert proc.stderr.startswith("mdmem: " + why.format(given)), proc.stderr


BROKEN = {"bad TOML": '[search]\nmode = "lexical\n', "a bad value": '[search]\nmode = "fastest"\n',
          "a bad [hook] value": '[hook]\npolicy = "sometimes"\n'}


@pytest.mark.slow
def test_a_broken_config_keeps_the_card_and_says_so_in_the_readers_one_message(tmp_path: Path):
    """A malformed config.toml made the session start print nothing (its message on stderr, which Claude Code does
    not show): the card is made with the defaults, opens with the line every command stops with, and the user
    sees that line (systemMessage)."""
    vault = tmp_path / "v"
    assert subprocess.run([sys.executable, "-m", "mdmem", "init", vault], capture_output=True).returncode == 0
    good = hook("session-start", "--vault", vault, stdin={"session_id": "s1", "source": "startup"})
    assert good.returncode == 0 and good.stderr == "" and good.stdout.startswith("# Memory (v: ")
    config = vault / ".mdmem" / "config.toml"
    for what, text in BROKEN.items():
        config.write_text(text)
        if what == "a bad [hook] value":  # only the hooks read [hook]: the Stop hook stops with it (exit 0)
            said = hook("stop", "--vault", vault, stdin={"session_id": "s1", "transcript_path": str(tmp_path / "t")})
            assert said.returncode == 0 and said.stdout == "" and said.stderr.startswith("mdmem hook stop: [hook] ")
            message = said.stderr.removeprefix("mdmem hook stop: ")
        else:
            said = subprocess.run([sys.executable, "-m", "mdmem", "search", "deploy", "--vault", vault],
                                  capture_output=True, text=True)
            assert said.returncode == 1 and said.stderr.startswith(
                f"mdmem: cannot read {config}: Illegal character" if what == "bad TOML" else "mdmem: bad [search] mode in "), what
            message = said.stderr.removeprefix("mdmem: ")
        assert message.count("\n") == 1, what
        line = (f"mdmem: {message.rstrip()} — this card uses the defaults; until the file is fixed, what reads it "
                "stops with this error")
        proc = hook("session-start", "--vault", vault, stdin={"session_id": "s1", "source": "startup"})
        assert proc.returncode == 0 and proc.stderr == "", what
        out = json.loads(proc.stdout)
        assert out["systemMessage"] == line, what
        assert out["hookSpecificOutput"] == {"hookEventName": "SessionStart",
                                             "additionalContext": line + "\n\n" + good.stdout}, what
    config.write_text("[search]\nmode = \"lexical\"\n")  # fixed: the card as before, plain text
    assert hook("session-start", "--vault", vault, stdin={"session_id": "s1", "source": "startup"}).stdout == good.stdout

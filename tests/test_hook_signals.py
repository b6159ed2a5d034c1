"""The Stop hook's default `signals` policy, its bounds (regular files only, the last N MB, a time
bound), and its fire/silent decision on a replay of real Claude Code sessions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support import script

T0 = 1_790_000_000.0
PROMPT = "[mdmem checkpoint] Before you stop, scan this conversation"


def run(vault: Path, payload, *args: str, now: float = T0, stdin_open: bool = False) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {"MDMEM_NOW": str(now)}
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "stop", "--vault", str(vault), *args],
                          input=raw, capture_output=True, text=True, env=environ, timeout=60)
    assert proc.returncode == 0, proc.stderr
    if proc.stdout:
        assert proc.stdout.endswith("\n") and proc.stdout.count("\n") == 1
    return proc


def payload(transcript: Path, session: str = "s1", **extra) -> dict:
    return {"session_id": session, "transcript_path": str(transcript), "cwd": str(transcript.parent),
            "hook_event_name": "Stop", "stop_hook_active": False, **extra}


def state(vault: Path, session: str = "s1") -> dict:
    return json.loads((vault / ".mdmem" / "hooks" / f"stop-{session}.json").read_text())


def fired(proc: subprocess.CompletedProcess) -> str | None:
    return json.loads(proc.stdout)["reason"] if proc.stdout else None


def warm(vault: Path, s: Session, n: int = 3, session: str = "s1", now: float = T0 - 3600) -> None:
    """``n`` short turns first, each with its Stop: the trigger's budget lets no in-session scan fire before a
    session's fourth stop (:data:`mdmem.agents.checkpoint.stop.BANK`), nor a rule's turn before its third."""
    for _ in range(n):
        s.user("👍").say("👍")
        assert run(vault, payload(s.path, session), now=now).stdout == ""


class Session:
    """A Claude Code JSONL transcript written record by record, as Claude Code appends it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.n = 0
        path.write_text("")

    def _write(self, rec: dict) -> None:
        self.n += 1
        rec = {"sessionId": "s1", "uuid": f"u{self.n}", "timestamp": "2026-01-01T00:00:00Z", **rec}
        with open(self.path, "a") as f:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")

    def user(self, text: str) -> Session:
        self._write({"type": "user", "message": {"role": "user", "content": text}})
        return self

    def tools(self, count: int) -> Session:
        for _ in range(count):
            mid = f"m{self.n}"
            self._write({"type": "assistant", "message": {"id": mid, "role": "assistant", "content": [
                {"type": "tool_use", "id": f"t{self.n}", "name": "Bash", "input": {"command": "ls"}}]}})
            self._write({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{self.n}", "content": "ok"}]}})
        return self

    def say(self, text: str) -> Session:
        self._write({"type": "assistant", "message": {"id": f"m{self.n}", "role": "assistant",
                                                       "content": [{"type": "text", "text": text}]}})
        return self


def test_hook_defaults_are_the_settings_defaults():
    from mdmem.agents.hooks.session import DEFAULTS
    from mdmem.base.settings import HOOK_DEFAULTS

    assert DEFAULTS == HOOK_DEFAULTS and DEFAULTS["policy"] == "signals"


# --- bounds ------------------------------------------------------------------------------------


def test_transcript_path_that_is_not_a_regular_file(vault: Path, tmp_path: Path):
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    for bad in ("/dev/zero", str(fifo), str(tmp_path)):
        t = time.monotonic()
        proc = run(vault, {"session_id": "s1", "transcript_path": bad, "cwd": str(tmp_path)})
        assert time.monotonic() - t < 30 and proc.stdout == ""
        assert "mdmem hook stop: transcript is" in proc.stderr and bad in proc.stderr
    log = (vault / ".mdmem" / "hooks" / "hook.log").read_text()
    assert log.count("transcript is not a regular file") == 2 and log.count("transcript is a folder") == 1


@pytest.mark.slow
def test_the_hook_gives_up_at_its_time_bound(vault: Path, tmp_path: Path):
    """stdin never closed (a hook waiting on nothing): the time bound ends it, exit 0."""
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem" / "config.toml").write_text("[hook]\ntimeout_seconds = 1\n")
    proc = subprocess.Popen([sys.executable, "-m", "mdmem", "hook", "stop", "--vault", str(vault)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.wait(timeout=30)  # the hang guard: the bound itself is 2 s (the default, before the config is read)
    finally:
        proc.kill()
        proc.stdin.close()
    out, err = proc.stdout.read(), proc.stderr.read()
    assert proc.returncode == 0 and out == ""
    assert "gave up after the hook's time bound" in err


def test_only_the_last_megabytes_are_read(vault: Path, tmp_path: Path):
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem" / "config.toml").write_text("[hook]\nmax_transcript_mb = 0.01\n")  # 10,485 bytes
    s = Session(tmp_path / "s.jsonl")
    s.user("never push to main without a review")  # lost in the part that is not read
    for i in range(60):
        s.user(f"question {i} about the weather in Lisbon").say(f"It is sunny, {i} degrees.")
    run(vault, payload(s.path))
    st = state(vault)
    size = s.path.stat().st_size
    assert size > 20_000 and st["offset"] == size
    assert st["scanned"]["cut"] > 0 and st["scanned"]["to"] - st["scanned"]["from"] - st["scanned"]["cut"] <= 10_485
    assert not st.get("said")  # the rule was in the part not read


# --- a replay of real sessions ------------------------------------------------------------------


def _eval():
    return script("eval_checkpoint")


@pytest.mark.slow
@pytest.mark.parametrize("name, fires", [("02-entire-gitignore-correction", True),
                                         ("13-charming-code-block-colour", False),
                                         ("09-mclaude-terminal-freeze", False)])
def test_replay_of_real_sessions(vault: Path, tmp_path: Path, name: str, fires: bool):
    """One Stop per agent turn, the file growing, the clock from the records, as Claude Code runs
    the hook: 02 holds a firm correction ("the CLI should handle that for every user, not you
    editing this repo"), 09 and 13 hold nothing worth keeping (tune split). None fires in the session: the
    budget; 02's correction is left to the next session's review."""
    ev = _eval()
    source = ev.DATA / f"{name}.jsonl"
    labels = json.loads((ev.DATA / f"{name}.labels.json").read_text())
    assert labels["split"] == "tune" and labels["worth_checkpoint"] is fires
    data = source.read_bytes()
    stops = ev.stops(data)
    assert len(stops) == labels["stops"]
    grow = tmp_path / "session.jsonl"
    outcomes = []
    for length, clock, last in stops:
        grow.write_bytes(data[:length])
        extra = {"last_assistant_message": last} if last else {}
        outcomes.append(run(vault, payload(grow, name, **extra), now=clock).stdout != "")
    # a session of three stops stays within the budget (no in-session scan before the fourth stop but for a
    # rule said at the third); what no scan covered is recorded at the session's end (tests/test_checkpoint_trigger)
    assert not any(outcomes), outcomes


def test_a_quiet_stop_imports_only_what_it_needs(vault: Path, tmp_path: Path):
    """The quiet path's budget is twice a bare interpreter: no scan prompt, no dataclasses, typing or
    pathlib (each measured at 5-15 ms), when the new text holds no signal's hint word; and not json, re, enum
    or signal either (under load `import json` alone measured 0.8x a bare `python -c pass`: it
    imports re, which imports enum), nor the SessionStart card's module."""
    s = Session(tmp_path / "s.jsonl")
    s.user("why does the build fail on CI?").tools(2).say("The cache key changed.")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "mdmem", "hook", "stop", "--vault", str(vault)],
                          input=json.dumps(payload(s.path)), capture_output=True, text=True, env=environ, timeout=60)
    assert proc.returncode == 0 and proc.stdout == ""
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "mdmem.agents.checkpoint.transcript" in imported and "mdmem.agents.checkpoint.stop" in imported  # the stop was read
    heavy = {"mdmem.agents.checkpoint.evidence", "mdmem.agents.checkpoint.consolidate", "mdmem.agents.checkpoint.scan", "dataclasses", "typing",
             "pathlib", "mdmem.base.settings", "mdmem.base.models", "json", "re", "enum", "signal",
             "mdmem.agents.hooks.session", "mdmem.base.terminal"}
    assert not imported & heavy, sorted(imported & heavy)
    assert state(vault)["typed"] == 1

# --- an interview: every turn ends by asking the user ------------------------------------------

OFFER = ("There are three ways to time the summaries:\n\n"
         "| Option | Trade-off |\n|---|---|\n"
         "| **A. At commit time** | Only committed work is summarised. |\n"
         "| **B. At every checkpoint** | More expensive, available earlier. |\n"
         "| **C. On demand** | Generated when viewing a checkpoint. |\n\n"
         "I recommend A. Which timing model do you want?\n")


@pytest.mark.slow
def test_a_turn_that_does_not_ask_ends_the_deferral(vault: Path, tmp_path: Path):
    s = Session(tmp_path / "s.jsonl")
    warm(vault, s)  # the budget: no in-session scan before the fourth stop
    s.user("brainstorm: summaries of checkpoints").tools(2).say(OFFER)
    run(vault, payload(s.path))
    s.user("A.").tools(1).say("Good. Should failures block the commit?")
    assert run(vault, payload(s.path), now=T0 + 60).stdout == "" and state(vault)["asked"] == 2
    s.user("let me think about it").say("Sure, take your time.")
    reason = fired(run(vault, payload(s.path), now=T0 + 120))  # the turn ends without a question: due
    assert reason is not None and state(vault)["asked"] == 0


@pytest.mark.slow
def test_a_portuguese_conversation_gets_the_portuguese_scan_prompt(vault: Path, tmp_path: Path):
    s = Session(tmp_path / "s.jsonl")
    warm(vault, s)  # the budget: no in-session scan before the fourth stop
    s.user("a partir de agora, rode o pytest antes de cada commit, por favor").tools(2)
    s.say("Feito: rodei o pytest e todos os testes passam.")
    reason = fired(run(vault, payload(s.path)))
    assert reason.startswith("[mdmem checkpoint] Antes de parar, revise esta conversa pelas sete dimensões")
    assert "\n\nPor que agora: o usuário disse uma regra ou corrigiu o assistente.\n\n" in reason
    assert " --lang pt <<'JSON'" in reason and len(reason) <= 6000
    assert "Before you stop" not in reason and "Why now" not in reason


def test_fastjson_reads_and_writes_as_json_does():
    """The quiet path's JSON (`_json`'s C scanner and encoder, without `import json`): the same
    values, the same refusals, the same text as json.dumps(ensure_ascii=False, separators=(",", ":"))."""
    from mdmem.agents.hooks import session as hooks
    from mdmem.base import fastjson
    from mdmem.cli import hook

    for text in ['{"a": [1, 2.5, null, true, "é\\u00e9"], "b": {}}', " [1] \n", '"x"', "-0.0", "1e400", "NaN",
                 '{"k": "\\ud83d\\ude00"}']:
        assert repr(fastjson.loads(text)) == repr(json.loads(text)), text
        assert repr(fastjson.loads(text.encode())) == repr(json.loads(text.encode())), text
    assert fastjson.loads(b'\xef\xbb\xbf{"bom": 1}') == {"bom": 1}  # as json.loads reads bytes
    for bad in ["", "{", "[1] x", '{"a":1}{}', "nul", '{"a": "\x01"}', b"\xff{}"]:
        with pytest.raises(ValueError):
            fastjson.loads(bad)
        with pytest.raises(ValueError):
            json.loads(bad)
    value = {"a": ["é", 1, 2.5, None, True, {"x": 'y\n"\x1b'}], "n": float("inf"), "": []}
    assert fastjson.dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    with pytest.raises(TypeError):
        fastjson.dumps({"p": Path("/")})
    assert hook.CARD_MAX == hooks.CARD_MAX

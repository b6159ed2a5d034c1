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

from support import ROOT, script

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


def test_a_rule_said_in_passing_fires_at_the_end_of_the_turn(vault: Path, tmp_path: Path):
    s = Session(tmp_path / "s.jsonl")
    s.user("build the export page. and whenever you build those sheets, put the region and the season on top")
    s.tools(3).say("Done: the export page is built and its tests pass.")
    reason = fired(run(vault, payload(s.path)))
    assert reason is not None and reason.startswith(PROMPT)
    assert "Why now: a rule, decision or correction was said, a result was delivered." in reason
    assert "- ② msg 0 (user): \"build the export page. and whenever you build those sheets" not in reason  # one sentence
    assert "msg 0 (user): \"and whenever you build those sheets, put the region and the season on top\"" in reason
    assert state(vault)["triggers"] == 1 and state(vault)["pending"] == {} and state(vault)["tools"] == 0


def test_no_checkpoint_while_the_turn_asks_the_user_something(vault: Path, tmp_path: Path):
    s = Session(tmp_path / "s.jsonl")
    s.user("never run the migrations against the shared database, use the local copy")
    s.tools(2).say("Understood. Should I also add a guard to the deploy script?")
    assert run(vault, payload(s.path)).stdout == ""  # the user answers first
    assert list(state(vault)["pending"]) == ["3"]  # the rule waits
    s.user("no, leave it").tools(1).say("Left the deploy script as it is.")
    reason = fired(run(vault, payload(s.path), now=T0 + 60))
    assert reason is not None and "③ msg 0 (user): \"never run the migrations against the shared database" in reason


def test_minimum_interval_and_the_explicit_ask(vault: Path, tmp_path: Path):
    s = Session(tmp_path / "s.jsonl")
    s.user("from now on, answer in two lines at most").say("Sure.")
    assert fired(run(vault, payload(s.path))) is not None
    s.user("also, never use emoji in commit messages").tools(1).say("Noted.")
    assert run(vault, payload(s.path), now=T0 + 5 * 60).stdout == ""  # 5 minutes after the last: too soon
    assert list(state(vault)["pending"]) == ["3"]
    assert fired(run(vault, payload(s.path), now=T0 + 11 * 60)) is not None  # held back, then due
    # the user asks: it fires at once, interval or not, in English or Portuguese
    s.user("ok, let's consolidate what we learned today").say("Let me look back.")
    assert "Why now: the user asked to consolidate." in fired(run(vault, payload(s.path), now=T0 + 12 * 60))
    s.user("pode consolidar a sessão?").say("Vou revisar.")
    assert fired(run(vault, payload(s.path), now=T0 + 13 * 60)) is not None
    s.user("resume last session").say("Resuming.")  # "resume" is not the Portuguese "resuma"
    assert run(vault, payload(s.path), now=T0 + 14 * 60).stdout == ""


def test_work_alone_stays_quiet_and_adds_to_weak_evidence(vault: Path, tmp_path: Path):
    s = Session(tmp_path / "s.jsonl")
    s.user("fix the flaky export test").tools(20).say("Fixed: all 48 tests pass.")
    assert run(vault, payload(s.path)).stdout == ""  # 20 tool calls and a delivery: nothing worth keeping
    st = state(vault)
    # no word any detector needs: the detectors did not even run (a delivery and tool calls alone never fire)
    assert st["tools"] == 20 and st["pending"] == {} and "detected" not in st
    # a weak hint (a convention for one commit, 0.7: half a point) + the work done: 0.5 + 0.25 + 0.25
    s.user("commit these changes with a conventional commit message").tools(2).say("Committed: all tests pass.")
    reason = fired(run(vault, payload(s.path), now=T0 + 60))
    assert reason is not None
    assert "Why now: a rule, decision or correction was said, the user steered the work, a result was delivered, " \
           "22 tool calls since the last checkpoint, the topic changed." in reason


def test_a_follow_up_that_steers_the_work_fires_once_and_a_short_one_does_not(vault: Path, tmp_path: Path):
    """What the user types after the first request (a fact, a correction, a question about the approach) is
    where real sessions keep what is worth remembering, in words no detector knows ("M-Claude is in the
    Documents folder"): a follow-up of five words or more fires at the end of its turn, the model judges.
    "yes" or "commit this" does not; after a checkpoint, one steer alone waits for a second one."""
    s = Session(tmp_path / "s.jsonl")
    s.user("log in to git and push the repository").tools(3).say("Logged in. Where is the repository?")
    assert run(vault, payload(s.path)).stdout == ""  # the first request is not a follow-up
    s.user("yes, push").tools(1).say("Pushed.")
    assert run(vault, payload(s.path), now=T0 + 60).stdout == ""  # two words
    assert state(vault)["typed"] == 2 and state(vault)["steers"] == 0
    s.user("M-Claude is in the Documents folder").tools(2).say("Found it there; pulled and merged.")
    reason = fired(run(vault, payload(s.path), now=T0 + 120))
    assert reason is not None and "Why now: the user steered the work" in reason
    assert state(vault)["steers"] == 0 and state(vault)["triggers"] == 1
    s.user("now pull the other clone as well").tools(1).say("Pulled.")
    assert run(vault, payload(s.path), now=T0 + 20 * 60).stdout == ""  # one steer after a checkpoint: half
    s.user("and tag the release as v2 please").tools(1).say("Tagged v2.")
    assert fired(run(vault, payload(s.path), now=T0 + 21 * 60)) is not None  # the second one
    # a notification and a command's wrapper are not typed by the user
    s.user("<task-notification>the background build finished with exit code 0</task-notification>").say("Good.")
    assert run(vault, payload(s.path), now=T0 + 40 * 60).stdout == "" and state(vault)["steers"] == 0


def test_a_steer_waits_while_the_turn_asks_the_user(vault: Path, tmp_path: Path):
    s = Session(tmp_path / "s.jsonl")
    s.user("fix the export").tools(3).say("Fixed.")
    run(vault, payload(s.path))
    s.user("the export should keep the header row too").tools(1).say("Should I also keep the footer?")
    assert run(vault, payload(s.path), now=T0 + 60).stdout == ""  # the user answers first
    s.user("no").tools(1).say("Kept the header row only.")
    assert fired(run(vault, payload(s.path), now=T0 + 120)) is not None


def test_the_cadence_is_the_fallback(vault: Path, tmp_path: Path):
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem" / "config.toml").write_text("[hook]\nmin_stops = 3\nmin_minutes = 1\nmin_tool_calls = 10\n")
    s = Session(tmp_path / "s.jsonl")
    for i in range(3):  # short follow-ups ("rename module 1") do not steer the work: only the cadence fires
        s.user(f"rename module {i}").tools(6).say("Renamed.")
        out = run(vault, payload(s.path), now=T0 + i * 60)
        assert (out.stdout != "") is (i == 2), i
    assert "Why now: 3 stops since the last checkpoint." in fired(out)


def test_hook_defaults_are_the_settings_defaults():
    from mdmem.agents.hooks.session import DEFAULTS
    from mdmem.base.settings import HOOK_DEFAULTS

    assert DEFAULTS == HOOK_DEFAULTS and DEFAULTS["policy"] == "signals"


# --- bounds (issue 12, item 5) --------------------------------------------------------------------


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
    assert st["pending"] == {}


# --- a replay of real sessions ------------------------------------------------------------------


def _eval():
    return script("eval_checkpoint")


@pytest.mark.parametrize("name, fires", [("02-entire-gitignore-correction", True),
                                         ("13-charming-code-block-colour", False),
                                         ("09-mclaude-terminal-freeze", False)])
def test_replay_of_real_sessions(vault: Path, tmp_path: Path, name: str, fires: bool):
    """One Stop per agent turn, the file growing, the clock from the records, as Claude Code runs
    the hook: 02 holds a firm correction ("the CLI should handle that for every user, not you
    editing this repo"), 09 and 13 hold nothing worth keeping (tune split)."""
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
    assert any(outcomes) is fires, outcomes
    if fires:  # at the stop after the correction (the second of three), not before
        assert outcomes == [False, True, False]


def test_the_gate_lets_through_every_piece_of_evidence_in_the_labelled_corpora():
    """A quiet stop skips the detectors when its new text holds none of the words they need
    (hooks.gate): that must never hide evidence. Every hit of a dimension that can fire (②-⑦),
    in the 54 + 12 written conversations and the dev split of the real ones, passes the gate."""
    from mdmem.agents.checkpoint import dimensions, transcript
    from mdmem.agents.hooks import session as hooks

    paths = [p for folder in ("checkpoint", "checkpoint-holdout") for p in sorted((ROOT / "tests" / "data" /
                                                                                  folder).iterdir())
             if p.suffix in (".md", ".jsonl") and p.name[:2].isdigit()]
    ev = _eval()
    paths += [path for path, _ in ev.sessions("dev")]
    checked = 0
    for path in paths:
        messages = transcript.read(path).messages
        for e in dimensions.detect(messages):
            if e.dimension == 1 or e.strength < dimensions.HIT:
                continue
            m = messages[e.index]
            users = [m] if m.speaker == "user" else [x for x in messages[e.index + 1:e.index + 3] if x.speaker == "user"]
            reply = [x for x in messages[e.index + 1:e.index + 2] if x.speaker == "assistant"]  # a concession
            assert hooks.gate(users, [m] + users + reply, messages[max(0, e.index - 2):e.index]), \
                (path.name, e.dimension, e.quote)
            checked += 1
    assert checked > 150, checked
    plain = [transcript.Message(0, "user", t) for t in ("pushed", "verify", "fix the failing test in parser.py",
                                                          "why does the build fail on CI?")]
    assert not any(hooks.gate([m], [m]) for m in plain)  # and it is not a gate that lets everything through


def test_a_quiet_stop_imports_only_what_it_needs(vault: Path, tmp_path: Path):
    """The quiet path's budget is twice a bare interpreter: no detectors, no dataclasses, typing or
    pathlib (each measured at 5-15 ms), when the new text needs no detector; and not json, re, enum
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
    heavy = {"mdmem.agents.checkpoint.dimensions", "mdmem.agents.checkpoint.consolidate", "mdmem.agents.checkpoint.scan", "dataclasses", "typing",
             "pathlib", "mdmem.base.settings", "mdmem.base.models", "json", "re", "enum", "signal",
             "mdmem.agents.hooks.session", "mdmem.base.terminal"}
    assert not imported & heavy, sorted(imported & heavy)
    assert state(vault)["tools"] == 2

# --- an interview: every turn ends by asking the user ------------------------------------------

OFFER = ("There are three ways to time the summaries:\n\n"
         "| Option | Trade-off |\n|---|---|\n"
         "| **A. At commit time** | Only committed work is summarised. |\n"
         "| **B. At every checkpoint** | More expensive, available earlier. |\n"
         "| **C. On demand** | Generated when viewing a checkpoint. |\n\n"
         "I recommend A. Which timing model do you want?\n")


def test_an_interview_fires_after_two_turns_that_ask(vault: Path, tmp_path: Path):
    """Every turn of a brainstorming interview ends by asking the user; the answers are the
    decisions. A due checkpoint waits while at most two turns in a row ended by asking, then fires
    (without the bound such a real session stayed silent through all its 12 stops)."""
    s = Session(tmp_path / "s.jsonl")
    s.user("brainstorm: summaries of checkpoints").tools(2).say(OFFER)
    assert run(vault, payload(s.path)).stdout == ""  # nothing said yet; this turn asked (1)
    s.user("A.").tools(1).say("Good. Should failures block the commit?")
    assert run(vault, payload(s.path), now=T0 + 60).stdout == ""  # the pick is due, but the turn asks (2)
    assert list(state(vault)["pending"]) == ["4"] and state(vault)["asked"] == 2
    s.user("no, log and go on").tools(1).say("Noted. Which scope do you prefer, manual or both?")
    reason = fired(run(vault, payload(s.path), now=T0 + 120))  # a third turn that asks: an interview
    assert reason is not None and '- ④ msg 4 (user): "A." [picked option A of 3]' in reason  # tool calls count
    assert state(vault)["triggers"] == 1 and state(vault)["asked"] == 3


def test_a_turn_that_does_not_ask_ends_the_deferral(vault: Path, tmp_path: Path):
    s = Session(tmp_path / "s.jsonl")
    s.user("brainstorm: summaries of checkpoints").tools(2).say(OFFER)
    run(vault, payload(s.path))
    s.user("A.").tools(1).say("Good. Should failures block the commit?")
    assert run(vault, payload(s.path), now=T0 + 60).stdout == "" and state(vault)["asked"] == 2
    s.user("let me think about it").say("Sure, take your time.")
    reason = fired(run(vault, payload(s.path), now=T0 + 120))  # the turn ends without a question: due
    assert reason is not None and state(vault)["asked"] == 0


def test_a_portuguese_conversation_gets_the_portuguese_scan_prompt(vault: Path, tmp_path: Path):
    s = Session(tmp_path / "s.jsonl")
    s.user("a partir de agora, rode o pytest antes de cada commit, por favor").tools(2)
    s.say("Feito: rodei o pytest e todos os testes passam.")
    reason = fired(run(vault, payload(s.path)))
    assert reason.startswith("[mdmem checkpoint] Antes de parar, revise esta conversa pelas sete dimensões")
    assert "\n\nPor que agora: foi dita uma regra, decisão ou correção, um resultado foi entregue.\n\n" in reason
    assert " --lang pt <<'JSON'" in reason and len(reason) <= 6000
    assert "Before you stop" not in reason and "Why now" not in reason


def test_the_prompts_language_is_what_the_user_typed_all_session(vault: Path, tmp_path: Path):
    """The hook chose the language from its hints' quotes and the topic words, which hold no function words: a
    Portuguese session that fired on a follow-up alone got the English prompt. It keeps a tally of what the
    user typed; a terminal log pasted into an English session (``com.apple.…``: real session 118 was answered
    in Portuguese for it) counts for neither language."""
    s = Session(tmp_path / "pt.jsonl")
    s.user("preciso que o relatório mensal saia em planilha").tools(3).say("Pronto, a planilha está gerada.")
    assert run(vault, payload(s.path, session="pt")).stdout == ""
    s.user("ficou bom, mas a coluna de datas está no formato errado para o banco").tools(2).say("Corrigido.")
    reason = fired(run(vault, payload(s.path, session="pt"), now=T0 + 60))
    assert reason is not None and reason.startswith("[mdmem checkpoint] Antes de parar")
    assert "Por que agora: o usuário direcionou o trabalho" in reason
    log = "\n".join(f"com.apple.{name} com.apple.{name}.agent (launchd), mail.com: ok" for name in
                    ("screensharing", "remotemanagement", "ARDAgent", "smbd", "sshd") * 8)
    e = Session(tmp_path / "en.jsonl")
    e.user("run the audit script and tell me what it found").tools(3).say("It is running.")
    run(vault, payload(e.path, session="en"))
    e.user("here is the output:\n" + log).tools(1).say("The audit shows Remote Management is on.")
    reason = fired(run(vault, payload(e.path, session="en"), now=T0 + 60))
    assert reason is not None and reason.startswith(PROMPT) and "Antes de parar" not in reason


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

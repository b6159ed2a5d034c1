"""Claude Code hooks: ``mdmem hook stop`` (and ``install``/``uninstall``/``status``).

Claude Code runs the Stop hook at the end of every agent turn, so this module
is reached from ``mdmem.__main__`` before Typer is imported, and imports only
the standard library and mdmem's stdlib-only parts (no whoosh, networkx, rich,
yaml or markdown-it).

The Stop hook reads Claude Code's JSON on stdin (``session_id``,
``transcript_path``, ``cwd``, ``stop_hook_active``, optional
``last_assistant_message``; unknown fields ignored) and keeps per-session state
in ``<vault>/.mdmem/hooks/stop-<session>.json`` (atomic writes under a
per-session ``flock``, so hooks racing on one session both count). Policies:

- ``cadence`` (the default): fires when at least ``min_stops`` (20) stops and
  ``min_minutes`` (30) minutes have passed since the session's last trigger (or
  its first stop), and checks the transcript written since the last trigger;
- ``evidence``: at every stop scans only the transcript bytes appended since
  the last scan (carrying the previous two messages for context) and fires when
  ``min_dimensions`` (2) dimensions were newly hit since the last trigger, at
  most every ``min_interval_minutes`` (10).

When a checkpoint has candidates it prints one JSON object: ``decision:
"block"`` with a ``reason`` that gives the model the checkpoint and tells it to
ask the user which to save (then run ``mdmem checkpoint accept``), plus a
``systemMessage`` for the user; ``--output context`` sends the checkpoint as
``hookSpecificOutput.additionalContext`` instead of blocking. Otherwise, and
whenever ``stop_hook_active`` is true, it exits 0 and prints nothing. It fails
open: any error exits 0, with the message on stderr and in
``.mdmem/hooks/hook.log``. ``MDMEM_NOW`` (epoch seconds or ISO 8601) sets the
clock, for tests.

Settings (flags win over ``<vault>/.mdmem/config.toml``)::

    [hook]
    policy = "cadence"          # or "evidence"
    min_stops = 20
    min_minutes = 30
    min_dimensions = 2
    min_interval_minutes = 10
    output = "block"            # or "context"
"""

from __future__ import annotations

import json
import os
import sys
import time

USAGE = """usage: mdmem hook COMMAND [OPTIONS]

Claude Code hooks (these commands do not load the full CLI, to stay fast).

commands:
  stop            the Stop hook: reads Claude Code's JSON on stdin; prints a checkpoint when one is due
                    --vault PATH  --policy cadence|evidence  --output block|context
  session-start   the SessionStart hook: prints the memory card (`mdmem context`, index mode)
                    --vault PATH  --budget CHARS (default 4000, at most 10000)
  install         add mdmem's hooks to .claude/settings*.json (--scope project|user|local, --dry-run)
  uninstall       remove them (--scope ..., --dry-run)
  status          where they are installed
"""
DEFAULTS = {"policy": "cadence", "min_stops": 20, "min_minutes": 30.0, "min_dimensions": 2,
            "min_interval_minutes": 10.0, "output": "block"}
CHOICES = {"policy": ("cadence", "evidence"), "output": ("block", "context")}
CARRY = 2          # messages carried from one evidence scan to the next, for context
SEEN = 400         # evidence keys remembered per session, so a message is not counted twice
PENDING = 5        # the strongest pieces of evidence kept per dimension until the next trigger
LOCK_WAIT = 5.0    # seconds to wait for another hook holding the session's state


CARD_MAX = 10_000  # characters: the most the SessionStart hook ever prints
BOOTSTRAP = ("AGENTS.md", "SOUL.md", "USER.md", "IDENTITY.md", "RULES.md")  # `mdmem context`, in this order


class HookError(Exception):
    pass


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0
    command, rest = argv[0], argv[1:]
    if command in ("install", "uninstall", "status"):
        from .claude_settings import main as settings_main

        return settings_main(argv)
    if command == "stop":
        return run(stop, rest)
    if command == "session-start":
        return run(session_start, rest)
    sys.stderr.write(f"mdmem hook: unknown command {command!r}\n{USAGE}")
    return 2


def run(hook, args: list[str]) -> int:
    """Run a hook fail-open: its JSON (if any) on stdout, errors on stderr and in the log, exit 0."""
    given = args[args.index("--vault") + 1] if "--vault" in args[:-1] else None
    vault = os.path.abspath(given) if given and os.path.isdir(given) else None  # where to log from the start
    try:
        opts = parse_options(args)
        payload = read_payload(sys.stdin)
        vault = vault or locate(opts.get("vault"), payload.get("cwd"))
        out = hook(vault, payload, opts)
    except Exception as e:  # noqa: BLE001 - a hook must never break the agent's turn
        message = f"{type(e).__name__}: {e}" if not isinstance(e, HookError) else str(e)
        sys.stderr.write(f"mdmem hook {hook.__name__.replace('_', '-')}: {message}\n")
        log(vault, f"{hook.__name__} error: {message}")
        return 0
    if isinstance(out, str):
        sys.stdout.write(out if out.endswith("\n") or not out else out + "\n")
    elif out is not None:
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return 0


def safe_session(session: str) -> str:
    """A session id as a file name (state, checkpoints): ASCII letters, digits, ``._-``, at most 120."""
    name = "".join(c if (c.isascii() and c.isalnum()) or c in "._-" else "_" for c in session)
    return name[:120].lstrip(".") or "session"


def parse_options(args: list[str]) -> dict:
    opts: dict = {}
    it = iter(args)
    for arg in it:
        key, _, value = arg.partition("=")
        if key not in ("--vault", "--policy", "--output", "--budget"):
            raise HookError(f"unknown option {arg!r} (known: --vault, --policy, --output, --budget)")
        if not value:
            value = next(it, "")
        name = key[2:]
        if not value or (name in CHOICES and value not in CHOICES[name]):
            raise HookError(f"{key} needs one of: {', '.join(CHOICES.get(name, ('a value',)))}")
        if name == "budget" and not (value.isdigit() and 200 <= int(value) <= CARD_MAX):
            raise HookError(f"--budget needs a number of characters from 200 to {CARD_MAX}")
        opts[name] = value
    return opts


def read_payload(stream) -> dict:
    raw = stream.read()
    try:
        payload = json.loads(raw) if raw.strip() else {}
    except ValueError as e:
        raise HookError(f"stdin is not JSON ({e})") from None
    if not isinstance(payload, dict):
        raise HookError("stdin is not a JSON object")
    return payload


def locate(explicit: str | None, cwd) -> str:
    """The vault: ``--vault`` (what ``hook install`` writes: the fast path), else
    ``MDMEM_VAULT``, the hook's ``cwd`` and its ancestors, the default vault."""
    if explicit and os.path.isdir(explicit):
        return os.path.abspath(explicit)
    from pathlib import Path

    from .vault import find_vault

    here = Path(cwd) if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else None
    return str(find_vault(explicit, cwd=here))


def now() -> float:
    given = os.environ.get("MDMEM_NOW")
    if not given:
        return time.time()
    try:
        return float(given)
    except ValueError:
        import datetime as dt

        moment = dt.datetime.fromisoformat(given)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.timezone.utc)
        return moment.timestamp()


def settings(vault: str, opts: dict) -> dict:
    out = dict(DEFAULTS)
    path = os.path.join(vault, ".mdmem", "config.toml")
    if os.path.isfile(path):
        import tomllib

        try:
            with open(path, "rb") as f:
                section = tomllib.load(f).get("hook", {})
        except (OSError, ValueError) as e:
            raise HookError(f"cannot read {path}: {e}") from None
        if not isinstance(section, dict):
            raise HookError(f"[hook] in {path} is not a table")
        for key, value in section.items():
            if key not in DEFAULTS:
                raise HookError(f"unknown [hook] key {key!r} in {path} (known: {', '.join(DEFAULTS)})")
            kind = type(DEFAULTS[key])
            if kind is str and value not in CHOICES[key]:
                raise HookError(f"[hook] {key} in {path} must be one of {', '.join(CHOICES[key])}")
            if kind is not str and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise HookError(f"[hook] {key} in {path} must be a number >= 0")
            out[key] = value
    out.update({k: v for k, v in opts.items() if k in ("policy", "output")})
    return out


def log(vault: str | None, line: str) -> None:
    """Append to ``<vault>/.mdmem/hooks/hook.log`` (or ``~/.mdmem/hook.log``), kept under 1 MB."""
    try:
        from .vault import mdmem_home

        folder = os.path.join(vault, ".mdmem", "hooks") if vault is not None else str(mdmem_home())
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "hook.log")
        if os.path.exists(path) and os.path.getsize(path) > 1_000_000:
            os.replace(path, path + ".1")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime())
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{stamp} {line}\n")
    except OSError:
        pass


# ----------------------------------------------------------------------------- state


class _Locked:
    """An exclusive ``flock`` on the session's lock file, waited for up to LOCK_WAIT."""

    def __init__(self, path: str):
        self.path = path

    def __enter__(self):
        import fcntl

        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(self.fd)
                    raise HookError(f"another hook holds {self.path} (waited {LOCK_WAIT:.0f} s)") from None
                time.sleep(0.005)

    def __exit__(self, *exc):
        os.close(self.fd)  # closing releases the lock


def read_state(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            state = json.loads(f.read())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}  # damaged state is derived state: start the session's count again
    return state if isinstance(state, dict) else {}


def write_state(path: str, state: dict) -> None:
    """Atomically (temp file, fsync, rename). Not through ``vault.write_atomic``:
    this is derived state under ``.mdmem/``, and importing that module (tempfile,
    dataclasses) would double the cost of a hook that does not fire."""
    data = json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode()
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- stop


def stop(vault: str, payload: dict, opts: dict) -> dict | None:
    if payload.get("stop_hook_active") is True:
        return None  # Claude is already continuing because of a Stop hook: never loop
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    transcript = payload.get("transcript_path") if isinstance(payload.get("transcript_path"), str) else ""
    if not session:
        raise HookError("no session_id in the hook's input")
    cfg = settings(vault, opts)
    folder = os.path.join(vault, ".mdmem", "hooks")
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, "stop-" + safe_session(session))
    t = now()
    with _Locked(base + ".lock"):
        state = read_state(base + ".json")
        state.setdefault("first", t)
        state["stops"] = state.get("stops", 0) + 1
        state["since"] = state.get("since", 0) + 1
        state["policy"] = cfg["policy"]
        if transcript and state.get("transcript") not in (None, transcript):
            state.update(offset=0, trigger_offset=0, count=0, carry=[])  # a new file for this session
        state["transcript"] = transcript or state.get("transcript")
        if isinstance(payload.get("cwd"), str):
            state["cwd"] = payload["cwd"]
        evidence = None
        if cfg["policy"] == "cadence":
            last = state.get("last_trigger") or state["first"]
            if state["since"] >= cfg["min_stops"] and t - last >= cfg["min_minutes"] * 60:
                evidence, scan = _scan(transcript, state, "trigger_offset", payload)
                evidence = list(evidence)
                _trigger(state, t)
                state["scanned"] = scan
        else:
            found, scan = _scan(transcript, state, "offset", payload)
            state["scanned"] = scan
            from .dimensions import HIT

            pending = state.setdefault("pending", {})
            for e in found:
                if e.strength >= HIT:  # only what hits a dimension counts toward firing
                    items = pending.setdefault(str(e.dimension), [])
                    items.append(_evidence_dict(e))
                    items.sort(key=lambda d: -d["strength"])
                    del items[PENDING:]
            last = state.get("last_trigger") or 0
            if len(pending) >= cfg["min_dimensions"] and t - last >= cfg["min_interval_minutes"] * 60:
                evidence = [_evidence(d) for items in pending.values() for d in items]
                _trigger(state, t)
        write_state(base + ".json", state)
        if evidence is None:
            return None
        return _fire(vault, session, transcript, evidence, state, cfg)


def _trigger(state: dict, t: float) -> None:
    state["last_trigger"] = t
    state["since"] = 0
    state["pending"] = {}
    state["triggers"] = state.get("triggers", 0) + 1


def _evidence_dict(e) -> dict:
    from dataclasses import asdict

    return asdict(e)


def _evidence(d: dict):
    from .dimensions import Evidence

    return Evidence(**d)


def _scan(transcript: str, state: dict, key: str, payload: dict):
    """New evidence in the transcript bytes after ``state[key]`` (the offset
    then moves to the end of what was read)."""
    from .dimensions import detect
    from .transcript import Message, read

    if not transcript:
        raise HookError("no transcript_path in the hook's input")
    start = int(state.get(key, 0) or 0)
    tr = read(transcript, start=start)
    base = int(state.get("count", 0)) if key == "offset" else 0
    carry = [Message(m["index"], m["speaker"], m["text"], tuple(m["tools"]), m["offset"], m.get("id"))
             for m in state.get("carry", [])] if key == "offset" else []
    fresh = [Message(base + i, m.speaker, m.text, m.tools, m.offset, m.id) for i, m in enumerate(tr.messages)]
    if carry and fresh and fresh[0].id and carry[-1].id == fresh[0].id:
        # the rest of a message whose first records the last scan read: one message again
        old, new = carry[-1], fresh.pop(0)
        carry[-1] = Message(old.index, old.speaker, "\n".join(t for t in (old.text, new.text) if t),
                            old.tools + new.tools, old.offset, old.id)
        fresh = [Message(m.index - 1, m.speaker, m.text, m.tools, m.offset, m.id) for m in fresh]
    messages = carry + fresh
    last = payload.get("last_assistant_message")
    if isinstance(last, str) and last.strip() and not any(
            m.speaker == "assistant" and last.strip()[:200] in m.text for m in fresh[-3:]):
        # the transcript is written asynchronously: the last reply may not be in the file yet
        messages.append(Message(base + len(fresh), "assistant", last.strip(), (), tr.end))
    seen = set(state.get("seen", []))
    found = []
    for e in detect(messages):
        k = f"{e.dimension}:{e.quote}"
        if k not in seen:
            seen.add(k)
            found.append(e)
    state["seen"] = list(seen)[-SEEN:]
    state[key] = tr.end
    if key == "offset":
        state["count"] = base + len(fresh)
        state["carry"] = [{"index": m.index, "speaker": m.speaker, "text": m.text[-4000:], "tools": list(m.tools),
                           "offset": m.offset, "id": m.id} for m in (carry + fresh)[-CARRY:]]
    return found, {"from": start, "to": tr.end, "messages": len(fresh), "malformed": tr.malformed}


def _fire(vault_dir: str, session: str, transcript: str, evidence: list, state: dict, cfg: dict) -> dict | None:
    from pathlib import Path

    from . import checkpoint as cp
    from .dimensions import language
    from .transcript import Message

    vault = Path(vault_dir)
    messages = [Message(0, e.speaker, e.quote) for e in evidence]
    lang = language(messages)
    cwd_claude = [Path(state["cwd"]) / "CLAUDE.md"] if state.get("cwd") else []
    known = cp.Known.read(vault, cwd_claude, session)
    result = cp.build(evidence, session=session, transcript=transcript, lang=lang, known=known,
                      today=time.strftime("%Y-%m-%d", time.localtime(now())))
    if not result.fired:
        log(vault, f"stop session={session} checked: {len(result.dimensions)} dimension(s), nothing to suggest")
        return None
    cp.store(vault, result)
    log(vault, f"stop session={session} fired: {len(result.candidates)} candidate(s) "
               f"{''.join(c.mark for c in result.candidates)}")
    reason = cp.text(result) + "\n\n" + instructions(result.lang, session, vault)
    note = (f"mdmem: {len(result.candidates)} memória(s) sugerida(s); responda com os números ou \"pular\"."
            if result.lang == "pt" else
            f"mdmem: {len(result.candidates)} memor{'y' if len(result.candidates) == 1 else 'ies'} suggested; "
            "answer with numbers or \"skip\".")
    if cfg["output"] == "context":
        return {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": reason}, "systemMessage": note}
    return {"decision": "block", "reason": reason, "systemMessage": note}


def instructions(lang: str, session: str, vault) -> str:
    import shlex

    tail = f"--session {shlex.quote(session)} --vault {shlex.quote(str(vault))}"
    from .claude_settings import runner

    run = runner()
    if lang == "pt":
        return (f"(mdmem) Mostre ao usuário estas memórias sugeridas, numeradas como acima, e pergunte quais "
                f"salvar; não salve nada antes da resposta. Se ele responder com números, rode "
                f"`{run} checkpoint accept 1,2 {tail}` (com os números dele); se disser \"pular\", rode "
                f"`{run} checkpoint skip {tail}`. Uma regra [claude-md] não é salva pelo mdmem: mostre a "
                f"linha para o usuário colocar no CLAUDE.md.")
    return (f"(mdmem) Show the user these suggested memories, numbered as above, and ask which to save; save "
            f"nothing before they answer. If they reply with numbers, run `{run} checkpoint accept 1,2 {tail}` "
            f"(with their numbers); if they say skip, run `{run} checkpoint skip {tail}`. A [claude-md] rule is "
            f"not saved by mdmem: show the line for the user to add to CLAUDE.md.")


# ----------------------------------------------------------------------------- session start


def fingerprint(vault: str, cwd: str) -> str:
    """What the memory card depends on, cheaply: the stat of every note (hidden
    folders skipped, like the vault walk) and of the bootstrap files that apply
    in ``cwd``. About 50 ms for 10k notes; no parsing."""
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    stack = [vault]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name.startswith("."):
                continue
            try:
                if e.is_dir():
                    stack.append(e.path)
                elif e.name.endswith(".md"):
                    st = e.stat()
                    h.update(f"{e.path}\0{st.st_mtime_ns}\0{st.st_size}\n".encode("utf-8", "surrogateescape"))
            except OSError:
                continue
    for path in bootstrap_candidates(cwd):
        try:
            st = os.stat(path)
            h.update(f"{path}\0{st.st_mtime_ns}\0{st.st_size}\n".encode("utf-8", "surrogateescape"))
        except OSError:
            pass
    return h.hexdigest()


def bootstrap_files(cwd: str) -> list[tuple[str, str]]:
    """(name, file) of each bootstrap file that applies in ``cwd``: the workspace's, else the global one."""
    candidates = bootstrap_candidates(cwd)
    out = []
    for name in BOOTSTRAP:
        found = next((p for p in candidates if os.path.basename(p) == name and os.path.isfile(p)), None)
        if found:
            out.append((name, found))
    return out


def bootstrap_candidates(cwd: str) -> list[str]:
    """Every place a bootstrap file could come from for ``cwd``, in order of precedence: the workspace
    (the nearest ancestor holding ``.git`` or ``.agent``), then ``MDMEM_BOOTSTRAP_DIR`` or ``~/.mdmem``."""
    here = os.path.abspath(cwd)
    workspace = None
    while True:
        if os.path.exists(os.path.join(here, ".git")) or os.path.exists(os.path.join(here, ".agent")):
            workspace = here
            break
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    home = os.environ.get("MDMEM_BOOTSTRAP_DIR") or os.environ.get("MDMEM_HOME") or os.path.join(
        os.path.expanduser("~"), ".mdmem")
    folders = [f for f in (workspace, os.path.expanduser(home)) if f]
    return [os.path.join(f, name) for f in folders for name in BOOTSTRAP]


def _card_path(vault: str) -> str:
    return os.path.join(vault, ".mdmem", "hooks", "context-card.json")


def save_card(vault, cwd, text: str, budget: int = 4000, fp: str | None = None) -> None:
    """Keep the index-mode card for the SessionStart hook, with what it was made from."""
    vault, cwd = str(vault), str(cwd)
    os.makedirs(os.path.dirname(_card_path(vault)), exist_ok=True)
    write_state(_card_path(vault), {"fingerprint": fp or fingerprint(vault, cwd), "budget": budget, "text": text})


def session_start(vault: str, payload: dict, opts: dict) -> str:
    """The memory card, from ``.mdmem/hooks/context-card.json`` when nothing it
    depends on changed, else made again (refreshing the notes cache)."""
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and os.path.isdir(payload["cwd"]) \
        else os.getcwd()
    budget = int(opts.get("budget", 4000))
    fp = fingerprint(vault, cwd)
    card = read_state(_card_path(vault))
    if card.get("fingerprint") == fp and card.get("budget") == budget and isinstance(card.get("text"), str):
        return card["text"][:CARD_MAX]
    from pathlib import Path

    from .context import context
    from .core import Memory

    with Memory.open(vault) as mem:
        mem.refresh(strict=False)
        text = context(mem, "index", budget, cwd=Path(cwd)).text
    save_card(vault, cwd, text, budget, fp)
    log(vault, f"session-start source={payload.get('source', '?')}: card made again ({len(text)} characters)")
    return text[:CARD_MAX]

"""The hook fast path: ``mdmem hook stop|session-start|prompt|pre-compact|session-end``, as Claude Code
runs them.

Details and reasons: docs/decisions/050-hooks-stop-policy-and-fast-path.md


Contract in detail: docs/decisions/060-module-contracts.md (mdmem/cli/hook.py)."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `from typing import`: the hook fast path imports as little as it can
if TYPE_CHECKING:
    from collections.abc import Callable

FAST = ("stop", "session-start", "prompt", "pre-compact", "session-end", "refresh")
OPTIONS = {"stop": ("--vault", "--agent", "--policy", "--output"), "session-start": ("--vault", "--agent", "--budget"),
           "prompt": ("--vault", "--agent"), "pre-compact": ("--vault", "--agent"), "session-end": ("--vault", "--agent"),
           "refresh": ("--vault",)}
AGENTS = ("claude", "codex", "gemini", "cursor", "copilot", "opencode")  # = mdmem.agents.hooks.wire.AGENTS
CHOICES = {"policy": ("signals", "cadence", "evidence"), "output": ("block", "context"), "agent": AGENTS}
HELP = ("--help", "-h")

# what `mdmem hook NAME --help` prints: a new user had to guess the JSON a hook reads on stdin. The fields are those
# Claude Code sends (its hooks reference: every event has session_id, transcript_path, cwd, hook_event_name; each
# event adds its own) that the hook uses; it ignores the rest
_VAULT = ("  --vault PATH   the vault (default: MDMEM_VAULT, else the hook's cwd or an ancestor, else the default)\n"
          "  --agent NAME   whose hook this is: claude (default), codex, gemini, cursor, copilot or opencode\n"
          "                 (its payload and answer are mapped to and from Claude Code's; `mdmem install AGENT` writes it)\n")
_TAIL = ("  -h, --help     this help\n\nClaude Code runs it (`mdmem hook install` registers it). It always exits 0: an "
         "error or an unknown option is\nreported on stderr and in <vault>/.mdmem/hooks/hook.log, never breaks the "
         "session.\n")
USAGE = {
    "stop": (
        "usage: mdmem hook stop [--vault PATH] [--policy signals|cadence|evidence] [--output block|context]\n\n"
        "The Stop hook: at the end of each turn, reads what the transcript gained since the last stop and, when a\n"
        "memory checkpoint is due, hands the model the scan prompt; otherwise prints nothing.\n\n"
        "stdin (Claude Code's JSON): session_id, transcript_path, cwd, hook_event_name (\"Stop\"),\n"
        "  stop_hook_active (true: the turn goes on because of a Stop hook; prints nothing),\n"
        "  last_assistant_message (optional: the reply, when the transcript has not caught up).\n"
        "stdout: nothing, or {\"decision\": \"block\", \"reason\": PROMPT, \"systemMessage\": ...}.\n\n"
        "options:\n" + _VAULT +
        "  --policy NAME  when a checkpoint is due: signals (default), cadence or evidence ([hook] in config.toml)\n"
        "  --output NAME  block (default: the prompt as the block reason) or context (as additional context)\n"),
    "session-start": (
        "usage: mdmem hook session-start [--vault PATH] [--budget BYTES]\n\n"
        "The SessionStart hook: prints the memory card (index mode), then any pending checkpoint's suggestions\n"
        "and how to accept them; at most 10,000 bytes.\n\n"
        "stdin (Claude Code's JSON): session_id, cwd (the bootstrap files that apply), hook_event_name\n"
        "  (\"SessionStart\"), source (startup, resume, clear or compact: after a compaction only the session's own\n"
        "  pending checkpoint is shown).\n"
        "stdout: the card, plain text (Claude Code adds it to the session's context); when config.toml is broken\n"
        "  or --vault is missing or no vault,\n"
        "  {\"systemMessage\": LINE, \"hookSpecificOutput\": {..., \"additionalContext\": ...}}\n"
        "  (the user sees LINE; the card, with the defaults, opens with it).\n\n"
        "options:\n" + _VAULT +
        "  --budget BYTES the card's size, 200 to 10000 (default 8000, leaving room for a pending checkpoint)\n"),
    "prompt": (
        "usage: mdmem hook prompt [--vault PATH]\n\n"
        "The UserPromptSubmit hook: the few notes the prompt needs, as additional context, or nothing.\n\n"
        "stdin (Claude Code's JSON): session_id (a note is given once per session), prompt, cwd,\n"
        "  hook_event_name (\"UserPromptSubmit\").\n"
        "stdout: nothing, or {\"hookSpecificOutput\": {\"hookEventName\": \"UserPromptSubmit\", "
        "\"additionalContext\": ...}}.\n\n"
        "options:\n" + _VAULT),
    "pre-compact": (
        "usage: mdmem hook pre-compact [--vault PATH]\n\n"
        "The PreCompact hook: records which turns no memory checkpoint scanned (offsets, never text; nothing\n"
        "written to memory); the card after the compaction names them: `mdmem checkpoint review --session S`.\n\n"
        "stdin (Claude Code's JSON): session_id, transcript_path, cwd, hook_event_name (\"PreCompact\"),\n"
        "  trigger (manual or auto).\n"
        "stdout: nothing, or {\"systemMessage\": ...} when unscanned turns were recorded.\n\n"
        "options:\n" + _VAULT),
    "session-end": (
        "usage: mdmem hook session-end [--vault PATH]\n\n"
        "The SessionEnd hook: like pre-compact; the next session's card (same project) names the unscanned turns.\n\n"
        "stdin (Claude Code's JSON): session_id, transcript_path, cwd, hook_event_name (\"SessionEnd\"),\n"
        "  reason (clear, logout, prompt_input_exit or other).\n"
        "stdout: nothing.\n\n"
        "options:\n" + _VAULT),
    "refresh": (
        "usage: mdmem hook refresh --vault PATH\n\n"
        "Brings the notes cache up to date, as `mdmem hook prompt` does before it answers; the prompt hook starts it\n"
        "in the background after an edit of notes' bodies alone. Reads no stdin, prints nothing; one line in the hook\n"
        "log.\n\n"
        "options:\n  --vault PATH   the vault\n"),
}


def main(argv: list[str]) -> int:
    command, rest = argv[0], argv[1:]
    if any(a in HELP for a in rest):  # before stdin is read: a person typed it
        return usage(command)
    hook: Callable[..., object]
    if command == "refresh":  # no payload, no answer: a detached process the prompt hook started
        return refresh(rest)
    if command == "stop":  # the Stop policy alone: the card's module is not needed at every turn
        from mdmem.agents.checkpoint.stop import stop as hook
        from mdmem.agents.hooks.state import DEFAULTS, arm

        arm(DEFAULTS["timeout_seconds"])  # a hostile transcript_path or a stdin never closed cannot hold the turn
    elif command == "prompt":
        from mdmem.agents.hooks.prompt import prompt as hook
    else:
        if command == "session-start":
            import gc

            # a process of a fraction of a second that may make the card from thousands of notes' rows: the cycle
            # collector's passes over them cost it 5-9 ms (decision 120); what it leaves goes with the process
            gc.disable()
        from mdmem.agents.hooks import session as hooks

        hook = {"session-start": hooks.session_start, "pre-compact": hooks.pre_compact,
                "session-end": hooks.session_end}[command]
    return run(hook, rest, OPTIONS[command])


def refresh(args: list[str]) -> int:
    """``mdmem hook refresh --vault VAULT`` (:func:`mdmem.agents.hooks.state.background_refresh`); exit 0, also for
    arguments it cannot use (said in the home log: a detached process has no one to tell)."""
    from mdmem.agents.hooks.state import background_refresh, log
    from mdmem.base.vault import looks_like_vault

    given = args[1] if len(args) == 2 and args[0] == "--vault" else None
    if not given or not os.path.isdir(given) or not looks_like_vault(given):
        log(None, f"hook refresh: needs --vault and a vault (got {' '.join(args)!r})")
        return 0
    return background_refresh(os.path.abspath(given))


def usage(command: str) -> int:
    """``mdmem hook COMMAND --help``: the hook's usage (:data:`USAGE`, constant text) on stdout; exit 0."""
    from mdmem.base.terminal import visible

    sys.stdout.write(visible(USAGE[command] + (_TAIL if command != "refresh" else "  -h, --help     this help\n")))
    return 0


def run(hook, args: list[str], known: tuple[str, ...] = OPTIONS["stop"]) -> int:
    """Run a hook fail-open: its JSON (if any) on stdout, errors on stderr and in the log, exit 0."""
    from mdmem.agents.hooks.state import disarm, log
    from mdmem.base.errors import MdmemError
    from mdmem.base.vault import looks_like_vault

    given = args[args.index("--vault") + 1] if "--vault" in args[:-1] else None
    # where to log from the start: never a folder that is no vault (the log would make it look like one)
    vault = os.path.abspath(given) if given and os.path.isdir(given) and looks_like_vault(given) else None
    name = hook.__name__.replace("_", "-")
    agent = adapter("claude")
    project = ""  # the hook's cwd, once the payload is read: where `mdmem hook status` shows this run
    try:
        opts = parse_options(args, known)
        agent = adapter(opts.get("agent", "claude"))
        opts.update(agent.FORCED.get(name, {}))
        payload = agent.inbound(name, read_payload(sys.stdin))
        payload.setdefault("mdmem_agent", agent.NAME)  # whose session: kept with the hook's state
        project = payload["cwd"] if isinstance(payload.get("cwd"), str) else ""
        vault = vault or locate(opts.get("vault"), payload.get("cwd"))
        from mdmem.base.state import check_state

        check_state(vault)  # a symlinked .mdmem (or index, hooks...): nothing read or written through it
        reads = {} if name == "prompt" else {"read": transcript_reader(agent)}  # the agent's transcripts
        out = agent.outbound(name, hook(vault, payload, opts, **reads))
        disarm()  # the answer is printed whole, never cut by the time bound
        from mdmem.agents.hooks.fired import record
        from mdmem.agents.hooks.state import now

        record(vault, agent.NAME, name, project, now())
    except Exception as e:
        message = str(e) if isinstance(e, MdmemError) else f"{type(e).__name__}: {e}"
        disarm()
        from mdmem.base.errors import NotAVault
        from mdmem.base.terminal import json_safe, visible

        line = visible(f"mdmem hook {hook.__name__.replace('_', '-')}: {message}")
        sys.stderr.write(line + "\n")
        log(vault, f"{hook.__name__} error: {message}")
        from mdmem.agents.hooks.fired import record
        from mdmem.agents.hooks.state import now

        record(vault, agent.NAME, name, project, now(), e)
        if isinstance(e, NotAVault) and hook.__name__ == "session_start":  # the user must see it: see above
            import json

            shown = agent.outbound(name, {"systemMessage": line, "hookSpecificOutput": {
                "hookEventName": "SessionStart", "additionalContext": line}})
            if shown:
                sys.stdout.write(json_safe(json.dumps(shown, ensure_ascii=False)) + "\n")
                sys.stdout.flush()
        return 0
    if out is None or out == "":
        return 0  # the quiet path: nothing printed (and `json`, `re` and the terminal module never imported)
    from mdmem.base.terminal import json_safe, visible

    if isinstance(out, str):
        out = visible(out)  # the card holds titles and descriptions from the vault
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    else:
        import json

        sys.stdout.write(json_safe(json.dumps(out, ensure_ascii=False)) + "\n")
    sys.stdout.flush()
    return 0


def adapter(name: str):
    """The agent's hooks module (``mdmem.agents.<name>.hooks``): its payload in, mdmem's answer out."""
    import importlib

    return importlib.import_module(f"mdmem.agents.{name}.hooks")


def transcript_reader(agent):
    """The agent's transcript reader (its adapter's ``transcript_reader()``), the ``read=`` of the neutral hooks;
    an agent whose adapter names none writes Claude Code's JSONL (as far as mdmem reads it)."""
    own = getattr(agent, "transcript_reader", None)
    if own is not None:
        return own()
    from mdmem.agents.claude.transcript import read

    return read


CARD_MAX = 10_000  # = mdmem.agents.hooks.session.CARD_MAX (the card's module is not imported for a stop)


def parse_options(args: list[str], known: tuple[str, ...] = OPTIONS["stop"]) -> dict:
    from mdmem.agents.hooks.state import HookError

    opts: dict = {}
    it = iter(args)
    for arg in it:
        key, _, value = arg.partition("=")
        if key not in known:
            raise HookError(f"unknown option {arg!r} (known: {', '.join(known + HELP)})")
        if not value:
            value = next(it, "")
        name = key[2:]
        if not value or (name in CHOICES and value not in CHOICES[name]):
            raise HookError(f"{key} needs one of: {', '.join(CHOICES.get(name, ('a value',)))}")
        if name == "budget" and not (value.isdigit() and 200 <= int(value) <= CARD_MAX):
            raise HookError(f"--budget needs a number of bytes from 200 to {CARD_MAX}")
        opts[name] = value
    return opts


def read_payload(stream) -> dict:
    from mdmem.agents.hooks.state import HookError, loads

    raw = stream.read(4 * 1024 * 1024)  # Claude Code's payload is a few KB: never read without a bound
    try:
        payload = loads(raw) if raw.strip() else {}
    except ValueError as e:
        raise HookError(f"stdin is not JSON ({e})") from None
    if not isinstance(payload, dict):
        raise HookError("stdin is not a JSON object")
    return payload


def locate(explicit: str | None, cwd) -> str:
    """The vault: ``--vault`` (what ``hook install`` writes: the fast path), else
    ``MDMEM_VAULT``, the hook's ``cwd`` and its ancestors, the default vault."""
    from mdmem.base.vault import looks_like_vault

    if explicit and os.path.isdir(explicit) and looks_like_vault(explicit):
        return os.path.abspath(explicit)
    from pathlib import Path  # (a folder that is no vault: find_vault says why, NotAVault)

    from mdmem.base.vault import find_vault

    here = Path(cwd) if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else None
    return str(find_vault(explicit, cwd=here))

"""The hook fast path: ``mdmem hook stop|session-start|prompt|pre-compact|session-end``, as Claude Code
runs them.

:mod:`mdmem.__main__` hands these here on ``sys.argv`` before Typer is imported (a Typer command
costs ~300 ms to start; a hook runs at every agent turn). Standard library and ``mdmem.base`` only at
load time; the logic is :mod:`mdmem.agents.hooks`. Every other ``mdmem hook`` command (install,
uninstall, status, --help) goes through the Typer app like any command.

A hook fails open: any error exits 0, with the message on stderr and in ``.mdmem/hooks/hook.log``.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `from typing import`: the hook fast path imports as little as it can
if TYPE_CHECKING:
    from collections.abc import Callable

FAST = ("stop", "session-start", "prompt", "pre-compact", "session-end")
OPTIONS = ("--vault", "--policy", "--output", "--budget")
CHOICES = {"policy": ("signals", "cadence", "evidence"), "output": ("block", "context")}


def main(argv: list[str]) -> int:
    command, rest = argv[0], argv[1:]
    hook: Callable[[str, dict, dict], object]
    if command == "stop":  # the Stop policy alone: the card's module is not needed at every turn
        from mdmem.agents.hookstate import DEFAULTS, arm
        from mdmem.agents.stop import stop as hook

        arm(DEFAULTS["timeout_seconds"])  # a hostile transcript_path or a stdin never closed cannot hold the turn
    elif command == "prompt":
        from mdmem.agents.prompt import prompt as hook
    else:
        from mdmem.agents import hooks

        hook = {"session-start": hooks.session_start, "pre-compact": hooks.pre_compact,
                "session-end": hooks.session_end}[command]
    return run(hook, rest)


def run(hook, args: list[str]) -> int:
    """Run a hook fail-open: its JSON (if any) on stdout, errors on stderr and in the log, exit 0."""
    from mdmem.agents.hookstate import disarm, log
    from mdmem.base.errors import MdmemError

    given = args[args.index("--vault") + 1] if "--vault" in args[:-1] else None
    vault = os.path.abspath(given) if given and os.path.isdir(given) else None  # where to log from the start
    try:
        opts = parse_options(args)
        payload = read_payload(sys.stdin)
        vault = vault or locate(opts.get("vault"), payload.get("cwd"))
        out = hook(vault, payload, opts)
        disarm()  # the answer is printed whole, never cut by the time bound
    except Exception as e:
        message = str(e) if isinstance(e, MdmemError) else f"{type(e).__name__}: {e}"
        disarm()
        from mdmem.base.terminal import visible

        sys.stderr.write(visible(f"mdmem hook {hook.__name__.replace('_', '-')}: {message}") + "\n")
        log(vault, f"{hook.__name__} error: {message}")
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


CARD_MAX = 10_000  # = mdmem.agents.hooks.CARD_MAX (the card's module is not imported for a stop)


def parse_options(args: list[str]) -> dict:
    from mdmem.agents.hookstate import HookError

    opts: dict = {}
    it = iter(args)
    for arg in it:
        key, _, value = arg.partition("=")
        if key not in OPTIONS:
            raise HookError(f"unknown option {arg!r} (known: {', '.join(OPTIONS)})")
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
    from mdmem.agents.hookstate import HookError, loads

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
    if explicit and os.path.isdir(explicit):
        return os.path.abspath(explicit)
    from pathlib import Path

    from mdmem.base.files import find_vault

    here = Path(cwd) if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else None
    return str(find_vault(explicit, cwd=here))

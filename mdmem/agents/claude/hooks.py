"""Claude Code's hooks: the agent-neutral hooks (:mod:`mdmem.agents.hooks`, the Stop trigger in
:mod:`mdmem.agents.checkpoint.stop`) bound to what is Claude Code's, its transcript reader. What
:mod:`mdmem.cli.hook` runs for ``mdmem hook stop|session-start|prompt|pre-compact|session-end``; another
agent's adapter gives the same five. Each imports its hook when run (a quiet stop imports only what it needs)."""

from __future__ import annotations


def stop(vault: str, payload: dict, opts: dict) -> dict | None:
    from mdmem.agents.checkpoint.stop import stop as run
    from mdmem.agents.claude.transcript import read

    return run(vault, payload, opts, read=read)


def session_start(vault: str, payload: dict, opts: dict) -> str | dict:
    from mdmem.agents.hooks.session import session_start as run

    return run(vault, payload, opts)


def prompt(vault: str, payload: dict, opts: dict) -> dict | None:
    from mdmem.agents.hooks.prompt import prompt as run

    return run(vault, payload, opts)


def pre_compact(vault: str, payload: dict, opts: dict) -> dict | None:
    from mdmem.agents.claude.transcript import read
    from mdmem.agents.hooks.session import pre_compact as run

    return run(vault, payload, opts, read=read)


def session_end(vault: str, payload: dict, opts: dict) -> None:
    from mdmem.agents.claude.transcript import read
    from mdmem.agents.hooks.session import session_end as run

    return run(vault, payload, opts, read=read)

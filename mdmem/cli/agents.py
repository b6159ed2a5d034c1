"""The agents' side of the command line: ``context``, ``timeline``, ``checkpoint``,
``digest``, ``mcp`` and ``install claude``, registered on :data:`mdmem.cli.app`
(this module is imported at the end of ``cli.py``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from mdmem.cli.app import JsonOpt, SensitiveOpt, TodayOpt, VaultOpt, _date, _errors, _memory, app

@app.command()
def timeline(
    query: Annotated[str, typer.Argument(help="Words to look for, with or without a time phrase "
                                         "(\"billing last week\", \"há 3 meses\").")] = "",
    vault: VaultOpt = None,
    when: Annotated[Optional[str], typer.Option("--when", help="The window as a time phrase (default: the "
                                                "query's, else the last 30 days).", show_default=False)] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Most entries.")] = 50,
    include_sensitive: SensitiveOpt = False,
    today: TodayOpt = None,
    json: JsonOpt = False,
) -> None:
    """Dated entries in a window: daily notes' ## HH:MM entries and notes by created/updated date."""
    from mdmem.cli import render
    from mdmem.ops.timeline import timeline as run

    with _memory(vault) as mem:
        result = run(mem, query, when, _date(today, "--today"), limit, include_sensitive)
    render.emit_json(result) if json else render.timeline(result)


@app.command()
def context(
    vault: VaultOpt = None,
    mode: Annotated[str, typer.Option("--mode", help="index (a small stable card), full or off.")] = "index",
    budget: Annotated[int, typer.Option("--budget", min=200, help="Most characters.")] = 4000,
    query: Annotated[Optional[str], typer.Option("--query", "-q", help="full mode: notes relevant to this.",
                                                 show_default=False)] = None,
    paths: Annotated[Optional[list[str]], typer.Option("--paths", help="Files being worked on: protocols whose "
                                                       "paths: globs match them are included (repeat).",
                                                       show_default=False)] = None,
    include_sensitive: SensitiveOpt = False,
    today: TodayOpt = None,
    json: JsonOpt = False,
) -> None:
    """The block an agent gets in its prompt: bootstrap files, protocols, and the memory card
    (index) or profile, projects, relevant notes and recent days (full), within a budget."""
    from mdmem.cli import render
    from mdmem.ops.context import context as run

    with _memory(vault) as mem:
        result = run(mem, mode, budget, query, paths or [], include_sensitive, today=_date(today, "--today"))
        if mode == "index" and budget == 4000 and not paths and not include_sensitive:
            from mdmem.agents.hooks import save_card

            save_card(mem.root, Path.cwd(), result.text)
    render.emit_json(result) if json else (render.text(result.text) if result.text else None)


@app.command()
def checkpoint(
    target: Annotated[Optional[str], typer.Argument(
        metavar="[TRANSCRIPT | - | accept NUMBERS | skip]",
        help="A Claude Code .jsonl transcript or a User:/Assistant: text file (- reads stdin; default: the newest "
             "transcript of the project in the current folder); or `accept 1,3` / `skip`.",
        show_default=False)] = None,
    numbers: Annotated[Optional[str], typer.Argument(help="With accept: the candidates to save (1,3 or all).",
                                                     show_default=False, metavar="")] = None,
    vault: VaultOpt = None,
    session: Annotated[Optional[str], typer.Option("--session", help="The session's checkpoint (default: the "
                                                   "newest pending one; or the transcript's session).",
                                                   show_default=False)] = None,
    lang: Annotated[Optional[str], typer.Option("--lang", help="en or pt (default: the transcript's language).",
                                                show_default=False)] = None,
    subagents: Annotated[bool, typer.Option("--subagents", help="Read subagent transcripts too.")] = False,
    json: JsonOpt = False,
) -> None:
    """Look back over a conversation for memories worth keeping (seven dimensions) and
    suggest at most three; `checkpoint accept 1,3` saves them, `checkpoint skip` drops them."""
    from mdmem.agents import checkpoint as cp
    from mdmem.cli import render

    if target in ("accept", "skip"):
        if target == "skip":
            if numbers is not None:
                raise typer.BadParameter("skip takes no numbers", param_hint="skip")
            with _errors():
                from mdmem.base.files import find_vault

                result = cp.skip(find_vault(vault), session)
            render.emit_json(result) if json else render.message(
                f"discarded {result.discarded} suggestion(s) of session {result.session}")
            return
        if not numbers:
            raise typer.BadParameter("which candidates? e.g. `mdmem checkpoint accept 1,3`", param_hint="accept")
        with _memory(vault) as mem:
            result = cp.accept(mem, numbers, session)
        render.emit_json(result) if json else render.accepted(result)
        if any(a.status == "refused" for a in result.accepted):
            raise typer.Exit(1)
        return
    if numbers is not None:
        raise typer.BadParameter(f"unexpected {numbers!r} after the transcript")
    with _errors():
        from mdmem.agents.transcript import latest_for
        from mdmem.base.files import find_vault

        root = find_vault(vault)
        source = target if target is not None else str(latest_for(Path.cwd()))
        result = cp.analyze(source, root, lang=lang, subagents=subagents, session=session,
                            today=os.environ.get("MDMEM_TODAY"))
    if json:
        from dataclasses import asdict

        render.emit_json(asdict(result) | {"fired": result.fired, "text": cp.text(result)})
    else:
        render.text(cp.text(result) + "\n")


@app.command("mcp")
def mcp_serve(vault: VaultOpt = None) -> None:
    """Serve the vault to an agent over MCP on stdio: search, recall, read_note, backlinks, neighbors,
    timeline, save, daily_add, check, checkpoint_accept (`mdmem install claude` registers it)."""
    from mdmem.mcp_server import serve  # the MCP SDK is imported here only

    with _errors():
        serve(vault)


hook_app = typer.Typer(help="Claude Code hooks: the hooks themselves (run by Claude Code) and their set-up.",
                       no_args_is_help=True)
app.add_typer(hook_app, name="hook")
ScopeOpt = Annotated[str, typer.Option("--scope", help="project: <project>/.claude/settings.json (shared); local: "
                                       ".claude/settings.local.json (personal); user: ~/.claude/settings.json or "
                                       "$CLAUDE_CONFIG_DIR/settings.json.")]
ProjectOpt = Annotated[Optional[Path], typer.Option("--project", help="The project folder (default: the nearest "
                                                    "ancestor with .git or .claude, else here).",
                                                    show_default=False)]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Show what would be written; write nothing.")]


def _hook_fast(command: str, args: list[str]) -> None:
    """``hook stop`` / ``hook session-start`` reached through Typer (``python -m mdmem`` always takes the
    fast path first; this keeps the commands listed in ``--help`` and working from the app)."""
    from mdmem.cli.hook import main as hook_main

    raise typer.Exit(hook_main([command, *args]))


@hook_app.command("stop", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def hook_stop(ctx: typer.Context) -> None:
    """The Stop hook: reads Claude Code's JSON on stdin; prints a checkpoint when one is due
    (--vault PATH, --policy cadence|evidence, --output block|context)."""
    _hook_fast("stop", ctx.args)


@hook_app.command("session-start", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def hook_session_start(ctx: typer.Context) -> None:
    """The SessionStart hook: prints the memory card (index mode; --vault PATH, --budget CHARS)."""
    _hook_fast("session-start", ctx.args)


@hook_app.command("install")
def hook_install(
    vault: VaultOpt = None,
    scope: ScopeOpt = "local",
    project: ProjectOpt = None,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
) -> None:
    """Add or update mdmem's hooks in Claude Code's settings (idempotent; everything else is kept, the
    old file backed up). Default scope local: the command holds this machine's paths."""
    from mdmem.agents import claude_settings
    from mdmem.base.errors import MdmemError, VaultNotFound
    from mdmem.base.files import find_vault
    from mdmem.cli import render

    _scope(scope, claude_settings.SCOPES)
    with _errors():
        try:
            where = find_vault(vault)
        except VaultNotFound as e:
            raise MdmemError(f"cannot install the hook: {e}") from None
        result = claude_settings.install(scope, where, project, dry_run=dry_run)
    render.emit_json(result) if json else render.text(render.install_text(result))
    for warning in getattr(result, "warnings", ()):
        render.message(f"mdmem: warning: {warning}")


@hook_app.command("uninstall")
def hook_uninstall(scope: ScopeOpt = "local", project: ProjectOpt = None, dry_run: DryRunOpt = False,
                   json: JsonOpt = False) -> None:
    """Remove mdmem's hooks from Claude Code's settings (everything else is kept)."""
    from mdmem.agents import claude_settings
    from mdmem.cli import render

    _scope(scope, claude_settings.SCOPES)
    with _errors():
        result = claude_settings.uninstall(scope, project, dry_run=dry_run)
    render.emit_json(result) if json else render.text(render.install_text(result))
    for warning in getattr(result, "warnings", ()):
        render.message(f"mdmem: warning: {warning}")


@hook_app.command("status")
def hook_status(project: ProjectOpt = None, json: JsonOpt = False) -> None:
    """Where mdmem's hooks are installed, in every scope."""
    from mdmem.agents import claude_settings
    from mdmem.cli import render

    with _errors():
        result = claude_settings.status(project)
    render.emit_json(result) if json else render.text(render.hook_status_text(result))
    for warning in result.warnings:
        render.message(f"mdmem: warning: {warning}")


def _scope(scope: str, choices: tuple[str, ...]) -> None:
    if scope not in choices:
        raise typer.BadParameter(f"choose {', '.join(choices)}", param_hint="--scope")


install_app = typer.Typer(help="Connect mdmem to an agent.", no_args_is_help=True)
app.add_typer(install_app, name="install")


@install_app.command("claude")
def install_claude(
    vault: VaultOpt = None,
    scope: Annotated[str, typer.Option("--scope", help="project: the server in <project>/.mcp.json, the hooks in "
                                       ".claude/settings.local.json; user: the server in ~/.claude.json, the hooks "
                                       "in ~/.claude/settings.json.")] = "project",
    project: Annotated[Optional[Path], typer.Option("--project", help="The project folder (default: the nearest "
                                                    "ancestor with .git or .claude, else here).",
                                                    show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be written; write nothing.")] = False,
    json: JsonOpt = False,
) -> None:
    """Register `mdmem mcp` with Claude Code and install mdmem's hooks (both idempotent; every other
    setting and server is kept, the old file backed up)."""
    from mdmem.agents import claude_settings
    from mdmem.cli import render

    if scope not in ("project", "user"):
        raise typer.BadParameter("choose project or user", param_hint="--scope")
    with _errors():
        from mdmem.base.files import find_vault

        result = claude_settings.install_claude(scope, find_vault(vault), project, dry_run=dry_run)
    if json:
        render.emit_json(result)
    else:
        render.text(render.claude_text(result))


@app.command()
def digest(
    vault: VaultOpt = None,
    today: Annotated[Optional[str], typer.Option(
        "--today", envvar="MDMEM_TODAY", help="Take this YYYY-MM-DD as today (which weeks and months are over).",
        show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be written or archived; "
                                                            "change nothing.")] = False,
    json: JsonOpt = False,
) -> None:
    """Write weekly and monthly digests of the daily notes (finished periods only; hand edits are kept)."""
    import datetime as dt

    from mdmem.cli import render
    from mdmem.ops.digest import digest as run_digest

    day = None
    if today:
        if len(today) != 10:
            raise typer.BadParameter(f"wants a date as YYYY-MM-DD, not {today!r}", param_hint="--today")
        day = dt.date.fromisoformat(_date(today, "--today"))
    with _memory(vault, refresh=False) as mem:
        result = run_digest(mem, day, mem.settings.digest, dry_run)
    render.emit_json(result) if json else render.digest(result)

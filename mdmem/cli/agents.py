"""The agents' side of the command line: ``context``, ``timeline``, ``checkpoint``,
``digest``, ``mcp``, ``install claude`` and ``uninstall claude``, registered on :data:`mdmem.cli.common.app`
(this module is imported at the end of ``cli.py``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from mdmem.cli import commands, writes  # noqa: F401  (the vault's commands register first: the order of --help)
from mdmem.cli.common import (
    GlobalOpt,
    JsonOpt,
    JudgeOpt,
    OwnerOpt,
    SeenOpt,
    SensitiveOpt,
    TodayOpt,
    VaultOpt,
    app,
    date_option,
    day_option,
    judge_option,
    open_memory,
    vault_root,
)


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
    from mdmem.api import timeline as run
    from mdmem.cli import render

    with open_memory(vault, read=True) as mem:
        result = run(mem, query, when, date_option(today, "--today"), limit, include_sensitive)
    render.emit_json(result) if json else render.timeline(result)


@app.command()
def context(
    vault: VaultOpt = None,
    mode: Annotated[str, typer.Option("--mode", help="index (a small stable card), full or off.")] = "index",
    budget: Annotated[int, typer.Option("--budget", min=200, help="Most bytes (UTF-8).")] = 8000,
    query: Annotated[Optional[str], typer.Option("--query", "-q", help="full mode: notes relevant to this.",
                                                 show_default=False)] = None,
    paths: Annotated[Optional[list[str]], typer.Option("--paths", help="Files being worked on: protocols whose "
                                                       "paths: globs match them are included (repeat).",
                                                       show_default=False)] = None,
    include_sensitive: SensitiveOpt = False,
    today: TodayOpt = None,
    project: SeenOpt = None,
    write: Annotated[Optional[Path], typer.Option("--write", help="Write the card into FILE for an agent without "
                                                  "hooks: between mdmem's markers in a file of yours (AGENTS.md), "
                                                  "or the whole file when mdmem wrote it (`mdmem install AGENT`).",
                                                  show_default=False)] = None,
    json: JsonOpt = False,
) -> None:
    """The block an agent gets in its prompt: bootstrap files, protocols, and the memory card
    (index) or profile, projects, relevant notes and recent days (full), within a budget. Of the project
    memories, the current folder's project's (--project NAME or all for others)."""
    from mdmem.api import context as run
    from mdmem.base.projects import for_read
    from mdmem.cli import render

    if write is not None:
        from mdmem.agents.connect import write_card

        action = write_card(write.absolute(), str(vault_root(vault)), Path.cwd())
        render.message(f"mdmem: {write}: card {action}")
        return

    with open_memory(vault, read=True) as mem:
        from mdmem.agents.hooks.session import CARD_BUDGET, card_command, card_protocol, save_card

        day = date_option(today, "--today")
        scope = for_read(mem.root, project)
        result = run(mem, mode, budget, query, paths or [], include_sensitive, today=day,
                     protocol=card_protocol(mem.root), command=card_command(mem.root), scope=scope)
        if mode == "index" and budget == CARD_BUDGET and not paths and not include_sensitive \
                and not scope.everything and project is None:
            from mdmem.api import iso_day

            save_card(mem.root, Path.cwd(), result.text, day=iso_day(day),
                      through=mem.store.valid_through(iso_day(day)), project=scope.project)
    render.emit_json(result) if json else (render.text(result.text) if result.text else None)


@app.command()
def checkpoint(
    target: Annotated[Optional[str], typer.Argument(
        metavar="[TRANSCRIPT | - | propose | accept | skip | review]",
        help="A Claude Code .jsonl transcript or a User:/Assistant: text file (- reads stdin; default: the newest "
             "transcript of the project in the current folder); `propose` (JSON candidates on stdin, from a model); "
             "or `accept 1,3` / `skip`; or `review --session S` (an earlier session's turns no scan covered, "
             "with the scan prompt, for the model to judge).",
        show_default=False)] = None,
    numbers: Annotated[Optional[str], typer.Argument(help="With accept: the candidates to save (1,3 or all).",
                                                     show_default=False, metavar="[NUMBERS]")] = None,
    vault: VaultOpt = None,
    session: Annotated[Optional[str], typer.Option("--session", help="The session's checkpoint (default: the "
                                                   "newest pending one of this folder's project or a global one; or the transcript's session).",
                                                   show_default=False)] = None,
    lang: Annotated[Optional[str], typer.Option("--lang", help="en or pt (default: the transcript's language).",
                                                show_default=False)] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="A command that reads the scan prompt and the "
                                                 "conversation on stdin and answers JSON candidates (e.g. "
                                                 "'claude -p', 'llm -m MODEL'); without it, mdmem's own "
                                                 "detectors (no model).", show_default=False)] = None,
    subagents: Annotated[bool, typer.Option("--subagents", help="Read subagent transcripts too.")] = False,
    allow_secret: Annotated[bool, typer.Option("--allow-secret", help="With accept: save a suggestion even though "
                                               "it looks like it holds a secret (you keep it knowingly).")] = False,
    project: OwnerOpt = None,
    no_project: GlobalOpt = False,
    judge: JudgeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Look back over a conversation for memories worth keeping (seven dimensions) and
    suggest at most three; `checkpoint accept 1,3` saves them, `checkpoint skip` drops them.
    `checkpoint propose` takes a model's candidates (JSON on stdin), checks and stores them."""
    from mdmem.agents.checkpoint import consolidate as cp
    from mdmem.cli import render

    if target == "review":
        if not session:
            raise typer.BadParameter("which session? `mdmem checkpoint review --session S`", param_hint="--session")
        from mdmem.agents.checkpoint.review import agent_of, review, review_imported, waits
        from mdmem.agents.launch import runner

        root = vault_root(vault)
        if waits(root, session):
            done = review(root, session, run=runner(), read=_reader(agent_of(root, session)))
        else:  # an imported session (sessions/): its transcript read by the reader of the agent that wrote it
            done = review_imported(root, session, run=runner(), read_for=lambda agent: _reader(
                _ADAPTERS[agent]) if agent in _ADAPTERS else None)
        render.emit_json(done) if json else render.text(done.text)
        return
    if target in ("accept", "skip"):
        if target == "skip":
            if allow_secret:
                raise typer.BadParameter("--allow-secret goes with accept", param_hint="--allow-secret")
            if numbers is not None:
                raise typer.BadParameter("skip takes no numbers", param_hint="skip")
            from mdmem.base.projects import for_write

            root = vault_root(vault)
            skipped = cp.skip(root, session, here=for_write(root))
            render.emit_json(skipped) if json else render.message(
                f"discarded {skipped.discarded} suggestion(s) of session {skipped.session}")
            return
        if not numbers:
            raise typer.BadParameter("which candidates? e.g. `mdmem checkpoint accept 1,3`", param_hint="accept")
        from mdmem.base.projects import for_write

        with open_memory(vault) as mem:
            accepted = cp.accept(mem, numbers, session, allow_secret=allow_secret,
                                 project=for_write(mem.root, project, no_project),
                                 given=bool(project) or no_project, here=for_write(mem.root),
                                 judge=judge_option(judge))
        render.emit_json(accepted) if json else render.accepted(accepted)
        if any(a.status == "refused" for a in accepted.accepted):
            raise typer.Exit(1)
        return
    if allow_secret:
        raise typer.BadParameter("--allow-secret goes with accept", param_hint="--allow-secret")
    if numbers is not None:
        raise typer.BadParameter(f"unexpected {numbers!r} after the {'command' if target == 'propose' else 'transcript'}")
    from mdmem.agents.claude.transcript import latest_for, read

    root = vault_root(vault)
    if target == "propose":
        import sys

        if model:
            raise typer.BadParameter("--model goes with a transcript, not with propose", param_hint="--model")
        data = sys.stdin.buffer.read(4 * 1024 * 1024)
        sid = session
        if sid is None:  # the model in a Claude Code session: the project's newest transcript is its own
            try:
                sid = latest_for(Path.cwd()).stem
            except Exception:
                sid = None
        from mdmem.agents.checkpoint.review import place
        from mdmem.agents.claude.transcript import folder_of, for_session

        own = for_session(sid) if sid else None  # the session's folder, when no hook recorded it
        scope, day, source = place(root, sid, Path.cwd(), project, no_project, folder_of(own) if own else None)
        if source == "cwd" and not project and not no_project:
            memory = f"project {scope.project}'s memory" if scope is not None and scope.project else "the global memory"
            render.message(f"mdmem: no folder is recorded for session {sid or '(unknown)'} and no transcript of it "
                           f"was found: compared with {memory}, this folder's ({Path.cwd()}); --project NAME or "
                           "--global to choose")
        with open_memory(vault) as mem:  # the candidates that repeat a saved note are marked with it
            result = cp.propose(root, data, session=sid, lang=lang or "en", extra_claude_md=[Path.cwd() / "CLAUDE.md"],
                                today=os.environ.get("MDMEM_TODAY"), mem=mem, scope=scope, conversation_date=day,
                                judge=judge_option(judge))
    elif model:
        source = target if target is not None else str(latest_for(Path.cwd()))
        with open_memory(vault) as mem:
            result = cp.analyze(source, root, lang=lang, subagents=subagents, session=session,
                                today=os.environ.get("MDMEM_TODAY"), model=model, read=read, mem=mem,
                                judge=judge_option(judge))
    else:
        source = target if target is not None else str(latest_for(Path.cwd()))
        result = cp.analyze(source, root, lang=lang, subagents=subagents, session=session,
                            today=os.environ.get("MDMEM_TODAY"), read=read)
    if json:
        render.emit_json(cp.as_dict(result, shown=True) | {"fired": result.fired, "text": cp.text(result)})
    else:
        render.text(cp.text(result) + "\n")
        if target != "propose" and result.fired:  # a hand run: the person needs the commands, --session included
            render.message(cp.commands(result.session, root, result.lang, [c.number for c in result.candidates]))


@app.command("mcp")
def mcp_serve(vault: VaultOpt = None) -> None:
    """Serve the vault to an agent over MCP on stdio: search, recall, read_note, backlinks, neighbors,
    timeline, save, daily_add, check, checkpoint_accept (`mdmem install claude` registers it)."""
    from mdmem.mcp_server import serve  # the MCP SDK is imported here only

    project = os.environ.get("CLAUDE_PROJECT_DIR")
    if vault is not None and not vault.expanduser().is_absolute() and project:
        vault = Path(project) / vault  # .mcp.json's relative vault is the project's (Claude Code >= 2.1.141)
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


# the hooks' own options and --help are theirs (mdmem.cli.hook.USAGE), as on the fast path
_RAW = {"allow_extra_args": True, "ignore_unknown_options": True}


def _hook_fast(command: str, args: list[str]) -> None:
    """``hook stop`` / ``hook session-start`` reached through Typer (``python -m mdmem`` always takes the
    fast path first; this keeps the commands listed in ``--help`` and working from the app)."""
    from mdmem.cli.hook import main as hook_main

    raise typer.Exit(hook_main([command, *args]))


@hook_app.command("stop", context_settings=_RAW, add_help_option=False)
def hook_stop(ctx: typer.Context) -> None:
    """The Stop hook: reads Claude Code's JSON on stdin; hands the model the scan prompt when a
    checkpoint is due (--vault PATH, --policy signals|cadence|evidence, --output block|context)."""
    _hook_fast("stop", ctx.args)


@hook_app.command("session-start", context_settings=_RAW, add_help_option=False)
def hook_session_start(ctx: typer.Context) -> None:
    """The SessionStart hook: prints the memory card and any pending checkpoint (index mode; --vault PATH,
    --budget BYTES)."""
    _hook_fast("session-start", ctx.args)


@hook_app.command("prompt", context_settings=_RAW, add_help_option=False)
def hook_prompt(ctx: typer.Context) -> None:
    """The UserPromptSubmit hook: reads the prompt on stdin; prints the few relevant notes as additional
    context, or nothing (--vault PATH)."""
    _hook_fast("prompt", ctx.args)


@hook_app.command("pre-compact", context_settings=_RAW, add_help_option=False)
def hook_pre_compact(ctx: typer.Context) -> None:
    """The PreCompact hook: checks the transcript as it stands and keeps its suggestions as the session's
    pending checkpoint, shown by the card after the compaction (--vault PATH)."""
    _hook_fast("pre-compact", ctx.args)


@hook_app.command("session-end", context_settings=_RAW, add_help_option=False)
def hook_session_end(ctx: typer.Context) -> None:
    """The SessionEnd hook: like pre-compact, the pending checkpoint is shown at the next start (--vault PATH)."""
    _hook_fast("session-end", ctx.args)


PromptOpt = Annotated[bool, typer.Option("--prompt/--no-prompt", help="Register the UserPromptSubmit hook (the "
                                         "notes a prompt needs, injected as context); --no-prompt leaves it out "
                                         "(and removes it if an earlier install added it).")]


@hook_app.command("install")
def hook_install(
    vault: VaultOpt = None,
    scope: ScopeOpt = "local",
    project: ProjectOpt = None,
    prompt: PromptOpt = True,
    dry_run: DryRunOpt = False,
    json: JsonOpt = False,
) -> None:
    """Add or update mdmem's hooks in Claude Code's settings (idempotent; everything else is kept, the
    old file backed up). Default scope local: the command holds this machine's paths."""
    from mdmem.agents.claude import settings as claude_settings
    from mdmem.base.errors import MdmemError, VaultNotFound
    from mdmem.cli import claude_text, render

    _scope(scope, claude_settings.SCOPES)
    try:
        where = vault_root(vault)
    except VaultNotFound as e:
        raise MdmemError(f"cannot install the hook: {e}") from None
    result = claude_settings.install(scope, where, project, dry_run=dry_run, prompt=prompt)
    render.emit_json(result) if json else render.text(claude_text.install_text(result))
    for warning in getattr(result, "warnings", ()):
        render.message(f"mdmem: warning: {warning}")


@hook_app.command("uninstall")
def hook_uninstall(scope: ScopeOpt = "local", project: ProjectOpt = None, dry_run: DryRunOpt = False,
                   json: JsonOpt = False) -> None:
    """Remove mdmem's hooks from Claude Code's settings (everything else is kept)."""
    from mdmem.agents.claude import settings as claude_settings
    from mdmem.cli import claude_text, render

    _scope(scope, claude_settings.SCOPES)
    result = claude_settings.uninstall(scope, project, dry_run=dry_run)
    render.emit_json(result) if json else render.text(claude_text.install_text(result))
    for warning in getattr(result, "warnings", ()):
        render.message(f"mdmem: warning: {warning}")


@hook_app.command("status")
def hook_status(
    project: ProjectOpt = None,
    vault: Annotated[Optional[Path], typer.Option("--vault", help="The vault whose session to show (default: the "
                                                  "one the installed hooks name).", show_default=False)] = None,
    session: Annotated[Optional[str], typer.Option("--session", help="The session to show (default: the one "
                                                   "that stopped last).", show_default=False)] = None,
    agent: Annotated[str, typer.Option("--agent", help="Whose install to show: claude, one of "
                                       "codex, gemini, cursor, copilot, goose, opencode, cline, windsurf, aider "
                                       "(for codex: whether Codex trusts each hook; each hook's last run and last "
                                       "error in the project), or all (every agent installed in the project)."
                                       )] = "claude",
    json: JsonOpt = False,
) -> None:
    """Where mdmem's hooks and skills are installed, in every scope; for the current session its stop count,
    when the next checkpoint may fire, and the pending checkpoint."""
    from mdmem.agents.claude import settings as claude_settings
    from mdmem.cli import claude_text, render

    if agent != "claude":
        if agent not in (*OTHER_AGENTS, "all"):
            raise typer.BadParameter(f"choose claude, all or one of {', '.join(OTHER_AGENTS)}", param_hint="--agent")
        from mdmem.agents import connect
        from mdmem.base.vault import find_vault

        where = str(find_vault(vault)) if vault is not None else None
        found = [connect.status(name, _agent_module(name), _project(project), where)
                 for name in (OTHER_AGENTS if agent == "all" else (agent,))]
        if agent == "all":  # only the agents with something of mdmem's in the project
            found = [f for f in found if _anything(f)]
            render.emit_json(found) if json else render.text(
                "\n\n".join(_status_text(f) for f in found) or f"no agent has mdmem installed in {_project(project)}")
        else:
            render.emit_json(found[0]) if json else render.text(_status_text(found[0]))
        return

    if vault is not None:
        from mdmem.base.vault import find_vault

        vault = find_vault(vault)
    result = claude_settings.status(project, vault=vault, session=session)
    render.emit_json(result) if json else render.text(claude_text.hook_status_text(result))
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
    scope: Annotated[str, typer.Option("--scope", help="project: the server in <project>/.mcp.json when its entry "
                                       "holds nothing of this machine (mdmem on PATH, the vault inside the project), "
                                       "else in this project's local scope of ~/.claude.json; the hooks in "
                                       ".claude/settings.local.json; user: the server in ~/.claude.json, the hooks "
                                       "in ~/.claude/settings.json.")] = "project",
    project: Annotated[Optional[Path], typer.Option("--project", help="The project folder (default: the nearest "
                                                    "ancestor with .git or .claude, else here).",
                                                    show_default=False)] = None,
    prompt: PromptOpt = True,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be written; write nothing.")] = False,
    json: JsonOpt = False,
) -> None:
    """Register `mdmem mcp` with Claude Code, install mdmem's hooks and its skills (/memory-check,
    /consolidate, the memory skill); all idempotent, every other setting, server and skill kept, the old
    file backed up; `mdmem uninstall claude` undoes it)."""
    from mdmem.agents.claude import install as claude_mcp
    from mdmem.cli import claude_text, render

    if scope not in ("project", "user"):
        raise typer.BadParameter("choose project or user", param_hint="--scope")
    result = claude_mcp.install_claude(scope, vault_root(vault), project, dry_run=dry_run, prompt=prompt)
    if json:
        render.emit_json(result)
    else:
        render.text(claude_text.claude_text(result))
    for warning in result.skills.warnings if result.skills else ():
        render.message(f"mdmem: warning: {warning}")


uninstall_app = typer.Typer(help="Disconnect mdmem from an agent.", no_args_is_help=True)
app.add_typer(uninstall_app, name="uninstall")


AGENT_LABELS = {"codex": "Codex CLI", "gemini": "Gemini CLI", "cursor": "Cursor", "copilot": "GitHub Copilot CLI",
                "goose": "Goose", "opencode": "OpenCode", "cline": "Cline", "windsurf": "Windsurf", "aider": "Aider"}
AGENT_WRITES = {  # what each install writes (the agent's install module says why)
    "codex": "hooks in .codex/hooks.json (trust them in Codex's /hooks), the MCP server in .codex/config.toml",
    "gemini": "hooks and the MCP server in .gemini/settings.json",
    "cursor": "hooks in .cursor/hooks.json, the MCP server in .cursor/mcp.json",
    "copilot": "hooks in .github/hooks/mdmem.json (the MCP server: the step is printed)",
    "goose": "the memory card in AGENTS.md (the MCP extension: the step is printed)",
    "opencode": "mdmem's plugin in .opencode/plugins/mdmem.js, the MCP server in opencode.json",
    "cline": "the memory card as .clinerules/mdmem.md (the MCP server: the step is printed)",
    "windsurf": "the memory card as .windsurf/rules/mdmem.md (the MCP server: the step is printed)",
    "aider": "the memory card as .mdmem-card.md, for aider --read",
}
OTHER_AGENTS = ("codex", "gemini", "cursor", "copilot", "goose", "opencode", "cline", "windsurf", "aider")
ProjectArg = Annotated[Optional[Path], typer.Option("--project", help="The project folder (default: the nearest "
                                                   "ancestor with .git, else here).", show_default=False)]


def _agent_module(agent: str):
    import importlib

    return importlib.import_module(f"mdmem.agents.{agent}.install")


def _project(project: Path | None) -> Path:
    from mdmem.agents.claude.env import find_project

    return find_project(project).absolute()


def _agent_result_text(result, verb: str) -> str:
    lines = [f"mdmem {verb} {result.agent}{' (dry run: nothing written)' if result.dry_run else ''}: "
             f"project {result.project}"]
    lines += [f"  {f.action:9} {f.path}" + (f"  ({f.detail})" if f.detail else "") for f in result.files]
    lines += [f"  note: {n}" for n in result.notes]
    return "\n".join(lines)


_ADAPTERS = {"claude-code": "claude", "codex": "codex", "gemini": "gemini"}  # an imported session's agent: its hooks'


def _reader(agent: str):
    """The transcript reader of ``agent`` (its hook adapter names it; an unknown name reads Claude Code's)."""
    from mdmem.cli.hook import AGENTS, adapter, transcript_reader

    return transcript_reader(adapter(agent if agent in AGENTS else "claude"))


def _anything(found: dict) -> bool:
    """Whether an agent's status shows anything of mdmem's installed in the project."""
    return (any(st["installed"] for st in found["events"].values()) or any(found["cards"].values())
            or bool(found["server"] and found["server"]["installed"])
            or bool(found["plugin"] and found["plugin"]["installed"]))


def _status_text(found: dict) -> str:
    from mdmem.cli.claude_text import fired_lines

    lines = [f"mdmem for {found['agent']} in {found['project']}:"]
    for event, st in found["events"].items():
        trust = "" if "trusted" not in st else ("  trusted" if st["trusted"] else
                                                "  installed but not trusted: trust it in the agent (/hooks)")
        lines.append(f"  hook {event:18} {'installed' if st['installed'] else 'absent'}{trust if st['installed'] else ''}")
    if found["plugin"] is not None:
        lines.append(f"  plugin              {'installed' if found['plugin']['installed'] else 'absent'}  "
                     f"({found['plugin']['file']})")
    if found["server"] is not None:
        lines.append(f"  MCP server          {'installed' if found['server']['installed'] else 'absent'}  "
                     f"({found['server']['file']})")
    lines += [f"  card {name:15} {'installed' if ok else 'absent'}" for name, ok in found["cards"].items()]
    lines += fired_lines(found["fired"])
    if not found["fired"] and (found["events"] or found["plugin"]):
        lines.append(f"  no hook has run in this project yet{' (vault ' + found['vault'] + ')' if found['vault'] else ''}")
    return "\n".join(lines)


def _register_agent(agent: str) -> None:
    def install_agent(vault: VaultOpt = None, project: ProjectArg = None, prompt: PromptOpt = True,
                      dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be written.")] = False,
                      json: JsonOpt = False) -> None:
        from mdmem.agents import connect
        from mdmem.cli import render

        result = connect.install(agent, _agent_module(agent), _project(project), str(vault_root(vault)),
                                 prompt=prompt, dry_run=dry_run)
        render.emit_json(result) if json else render.text(_agent_result_text(result, "install"))

    def uninstall_agent(project: ProjectArg = None,
                        dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change.")] = False,
                        json: JsonOpt = False) -> None:
        from mdmem.agents import connect
        from mdmem.cli import render

        result = connect.uninstall(agent, _agent_module(agent), _project(project), dry_run=dry_run)
        render.emit_json(result) if json else render.text(_agent_result_text(result, "uninstall"))

    install_agent.__doc__ = f"Connect mdmem to {AGENT_LABELS[agent]}: {AGENT_WRITES[agent]}. Idempotent; only mdmem's own entries are ever changed; `mdmem uninstall " + \
        agent + "` undoes it, byte for byte."
    uninstall_agent.__doc__ = f"Undo `mdmem install {agent}`: mdmem's entries out, every other setting kept, " \
        "a file mdmem created removed, a file it changed put back as it was."
    install_app.command(agent)(install_agent)
    uninstall_app.command(agent)(uninstall_agent)


for _agent in OTHER_AGENTS:
    _register_agent(_agent)



@uninstall_app.command("claude")
def uninstall_claude(
    scope: Annotated[str, typer.Option("--scope", help="project: the server in .mcp.json and in the local scope, "
                                       "the hooks in .claude/settings.local.json; user: ~/.claude.json and "
                                       "~/.claude/settings.json.")] = "project",
    project: Annotated[Optional[Path], typer.Option("--project", help="The project folder (default: the nearest "
                                                    "ancestor with .git or .claude, else here).",
                                                    show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change; change nothing.")] = False,
    json: JsonOpt = False,
) -> None:
    """Undo `mdmem install claude`: remove mdmem's MCP server, hooks and skills (every other setting,
    server and skill is kept; a file that held only mdmem's entries is removed)."""
    from mdmem.agents.claude import install as claude_mcp
    from mdmem.cli import claude_text, render

    if scope not in ("project", "user"):
        raise typer.BadParameter("choose project or user", param_hint="--scope")
    result = claude_mcp.uninstall_claude(scope, project, dry_run=dry_run)
    render.emit_json(result) if json else render.text(claude_text.claude_uninstall_text(result))
    for warning in getattr(result.skills, "warnings", ()):
        render.message(f"mdmem: warning: {warning}")


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

    from mdmem.api import digest as run_digest
    from mdmem.cli import render

    day = day_option(today)
    with open_memory(vault, refresh=False) as mem:
        result = run_digest(mem, day, mem.settings.digest, dry_run)
    render.emit_json(result) if json else render.digest(result)

"""The vault's own commands that read it: init, index, search, show, links, backlinks, neighbors, recall,
graph, watch, check (the writing ones are :mod:`mdmem.cli.writes`, the agents' side :mod:`mdmem.cli.agents`)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Optional

import typer

from mdmem.cli.common import (
    JsonOpt,
    ModeOpt,
    NoteArg,
    SeenOpt,
    SensitiveOpt,
    TodayOpt,
    VaultOpt,
    app,
    date_option,
    day_option,
    is_tty,
    judge_option,
    open_memory,
    vault_root,
)


@app.command()
def init(
    path: Annotated[Optional[Path], typer.Argument(help="The vault folder: a new one, or an existing one such as "
                                                   "your Obsidian vault (default: ~/.mdmem/vault).")] = None,
    today: TodayOpt = None,
    json: JsonOpt = False,
) -> None:
    """Make a vault: a new folder gets the whole skeleton; an existing one (your Obsidian vault) gets only
    what it lacks (MEMORY.md, memory/ folders, .mdmem/). Never changes an existing file."""
    import datetime as dt

    from mdmem.base.layout import INDEX_NAME
    from mdmem.base.vault import default_vault, init_vault
    from mdmem.cli import render

    day = day_option(today) or dt.date.today()
    target = (path or default_vault()).expanduser().resolve()
    result = init_vault(target)
    if INDEX_NAME in result.added:  # its budget comment: today's, with the audit's figure
        from mdmem.api import stamp_new_index

        stamp_new_index(target, day)
    result = replace(result, daily=_daily_log(target))
    render.emit_json(result) if json else render.initialised(result)


def _daily_log(root: Path) -> str:
    """Where ``mdmem daily`` writes in ``root`` and which setting says so (``init`` says it once)."""
    from mdmem.base.settings import Settings

    daily = Settings.load(root).daily
    where = f"{daily.folder}/{daily.format}.md" if daily.folder else f"{daily.format}.md"
    why = {"obsidian": "Obsidian's Daily notes settings (.obsidian/daily-notes.json); [daily] in "
                       ".mdmem/config.toml chooses otherwise",
           "config.toml": "[daily] in .mdmem/config.toml"}.get(daily.source, "mdmem's default")
    return f"{where} ({why})"


@app.command()
def index(
    vault: VaultOpt = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Rebuild everything from the files.")] = False,
    semantic: Annotated[bool, typer.Option("--semantic", help="Also embed the notes for search by meaning (the "
                                           "`semantic` extra); later refreshes keep the vectors current.")] = False,
    json: JsonOpt = False,
) -> None:
    """Bring the notes cache and search index up to date (only what changed). A folder of notes that is no
    vault yet is indexed as it is (its .mdmem/ makes it one); every other command refuses such a folder."""
    from mdmem.api import Memory
    from mdmem.cli import render

    with Memory(vault_root(vault, adopt=True)) as mem:
        if json or not is_tty():
            result = mem.refresh(rebuild=rebuild, semantic=semantic)
        else:
            result = _with_progress(mem, rebuild, semantic)
        if json:
            from dataclasses import asdict

            render.emit_json(
                {k: getattr(result, k) for k in ("notes", "added", "changed", "removed", "seconds")}
                | {"rebuilt": result.rebuilt, "stages": result.stages,
                   "vectors": asdict(result.vectors) if result.vectors else None, "state": str(mem.state_dir)}
            )
        else:
            render.refresh(result)
            render.state(str(mem.root), str(mem.state_dir))


def _with_progress(mem, rebuild: bool, semantic: bool = False):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("index", total=None)
        return mem.refresh(rebuild=rebuild, progress=lambda done, total: bar.update(task, completed=done, total=total),
                           semantic=semantic)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Words, a question, \"a phrase\", AND/NOT, field:value.")],
    vault: VaultOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Most results to show.")] = 10,
    type: Annotated[Optional[str], typer.Option("--type", help="Only notes of this type.")] = None,
    tag: Annotated[Optional[str], typer.Option("--tag", help="Only notes with this tag (or a child tag).")] = None,
    folder: Annotated[Optional[str], typer.Option("--folder", help="Only notes under this folder.")] = None,
    after: Annotated[Optional[str], typer.Option("--after", help="Dated on or after YYYY-MM-DD.")] = None,
    before: Annotated[Optional[str], typer.Option("--before", help="Dated on or before YYYY-MM-DD.")] = None,
    recency: Annotated[bool, typer.Option("--recency/--no-recency", help="Lift recent notes a little.")] = True,
    mode: ModeOpt = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show each signal's rank and score for every hit.")] = False,
    include_index: Annotated[bool, typer.Option("--include-index", help="Include index notes (MEMORY.md, notes "
                                                "with `index: true`), left out of hits by default.")] = False,
    sessions: Annotated[Optional[bool], typer.Option(
        "--sessions/--no-sessions", help="Add (or leave out) the imported past sessions that answer it, after the "
        "notes; by default they come when the query is about past conversations (\"when did we ...\") or no note "
        "answers. `--type session` searches the sessions alone.", show_default=False)] = None,
    today: TodayOpt = None,
    json: JsonOpt = False,
) -> None:
    """Ranked search with snippets: BM25F full text (lexical), by meaning (semantic), or both fused (hybrid).
    A note another note supersedes, or past its valid_until, is shown marked. Imported past sessions are not
    among the notes; they follow them when asked (--sessions), for a question about past conversations, or
    when no note answers."""
    from mdmem.api import Filters
    from mdmem.api import search as run
    from mdmem.base.settings import OFF
    from mdmem.cli import render

    filters = Filters(type, tag, folder, date_option(after, "--after"), date_option(before, "--before", end=True),
                      include_index)
    with open_memory(vault, read=True) as mem:
        result = run(mem, query, limit, filters, None if recency else OFF, mode, explain,
                     today=date_option(today, "--today"), sessions=sessions)
    render.emit_json(result) if json else render.search(result)


@app.command()
def show(
    note: NoteArg,
    vault: VaultOpt = None,
    body: Annotated[bool, typer.Option("--body", help="Also print the note's text (after its frontmatter).")] = False,
    json: JsonOpt = False,
) -> None:
    """A note's metadata: type, tags, aliases, frontmatter, tokens, problems (and its text with --body)."""
    from mdmem.base.usage import record
    from mdmem.cli import render

    with open_memory(vault, read=True) as mem:
        view = mem.show(note)
        text = _note_body(mem, view.path) if body else None
        record(mem.state_dir, [view.path], "read")
    if json:
        from dataclasses import asdict

        render.emit_json(asdict(view) | ({"body": text} if body else {}))
    else:
        render.show(view, text)


def _note_body(mem, path: str) -> str:
    """A note's text after its frontmatter, read within the vault's bounds."""
    return mem.read(path).body


@app.command()
def links(note: NoteArg, vault: VaultOpt = None, json: JsonOpt = False) -> None:
    """A note's outgoing links, resolved as Obsidian does (null target = dangling)."""
    from mdmem.cli import render

    with open_memory(vault, read=True) as mem:
        result = mem.links(note)
    if json:
        render.emit_json(
            {"note": result.note, "links": [
                {k: v for k, v in vars(link).items() if k != "link"} for link in result.links
            ]}
        )
    else:
        render.links(result)


@app.command()
def backlinks(
    note: NoteArg,
    vault: VaultOpt = None,
    unlinked: Annotated[bool, typer.Option("--unlinked", help="Also notes that mention it without a link.")] = False,
    json: JsonOpt = False,
) -> None:
    """Notes linking to NOTE, with the line and its text (Obsidian's backlinks pane)."""
    from mdmem import api
    from mdmem.cli import render

    with open_memory(vault, read=True) as mem:
        result = api.backlinks(mem, note, unlinked)
    render.emit_json(result) if json else render.backlinks(result, unlinked)


@app.command()
def neighbors(
    note: NoteArg,
    vault: VaultOpt = None,
    depth: Annotated[int, typer.Option("--depth", "-d", min=1, max=6, help="How many links away.")] = 1,
    direction: Annotated[str, typer.Option("--direction", help="in, out or both.")] = "both",
    limit: Annotated[Optional[int], typer.Option("--limit", "-n", min=1, help="Most neighbours to list.")] = None,
    json: JsonOpt = False,
) -> None:
    """Notes around NOTE, nearest first, then by link weight."""
    from mdmem import api
    from mdmem.cli import render

    if direction not in ("in", "out", "both"):
        raise typer.BadParameter("choose in, out or both", param_hint="--direction")
    with open_memory(vault, read=True) as mem:
        result = api.neighbors(mem, note, depth, direction, limit)
    render.emit_json(result) if json else render.neighbors(result)


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="What to remember.")],
    vault: VaultOpt = None,
    budget: Annotated[int, typer.Option("--budget", min=200, help="Most characters in the block.")] = 4000,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Most ranked hits.")] = 5,
    include_sensitive: SensitiveOpt = False,
    today: TodayOpt = None,
    mode: ModeOpt = None,
    sessions: Annotated[Optional[bool], typer.Option(
        "--sessions/--no-sessions", help="Add (or leave out) the imported past sessions that answer it; by "
        "default they come when the question is about past conversations (\"when did we ...\").",
        show_default=False)] = None,
    project: SeenOpt = None,
    json: JsonOpt = False,
) -> None:
    """Search hits plus their linked notes, as a Markdown block for a prompt (a time phrase such
    as "last week" or "em abril" puts that window's dated entries first; past sessions follow a question
    about past conversations). Memory notes come first; of the project memories, those of the current
    folder's project (--project NAME or all for others)."""
    from mdmem.api import recall as run
    from mdmem.base.projects import for_read
    from mdmem.cli import render

    with open_memory(vault, read=True) as mem:
        result = run(mem, query, budget=budget, limit=limit, include_sensitive=include_sensitive,
                     today=date_option(today, "--today"), mode=mode, sessions=sessions,
                     scope=for_read(mem.root, project))
    render.emit_json(result) if json else render.text(result.markdown)


graph_app = typer.Typer(help="The link graph: map, orphans, dead ends, dangling links, paths, export, HTML.",
                        no_args_is_help=True)
app.add_typer(graph_app, name="graph")


@graph_app.command("map")
def graph_map(vault: VaultOpt = None, json: JsonOpt = False) -> None:
    """Counts by type and folder, links, dangling links, components, hubs."""
    from mdmem import api
    from mdmem.cli import render

    with open_memory(vault, read=True) as mem:
        result = api.graph_map(mem)
    render.emit_json(result) if json else render.graph_map(result)


def _listing(name: str, doc: str):
    def command(vault: VaultOpt = None, json: JsonOpt = False) -> None:
        from mdmem import api
        from mdmem.cli import render

        with open_memory(vault, read=True) as mem:
            paths = getattr(api, name)(mem)
        render.emit_json({name: paths}) if json else render.paths(paths, f"no {name}")

    command.__doc__ = doc
    graph_app.command(name)(command)


_listing("orphans", "Notes no other note links to.")
_listing("deadends", "Notes with no outgoing links.")
_listing("isolated", "Notes with no links in or out.")


@graph_app.command("dangling")
def graph_dangling(vault: VaultOpt = None, json: JsonOpt = False) -> None:
    """Link targets that do not exist, with the notes linking to them and counts."""
    from mdmem import api
    from mdmem.cli import render

    with open_memory(vault, read=True) as mem:
        result = api.dangling(mem)
    render.emit_json({"dangling": result}) if json else render.dangling(result)


@graph_app.command("path")
def graph_path(
    source: Annotated[str, typer.Argument(help="From this note.")],
    target: Annotated[str, typer.Argument(help="To this note.")],
    vault: VaultOpt = None,
    json: JsonOpt = False,
) -> None:
    """The shortest chain of links between two notes."""
    from mdmem import api
    from mdmem.cli import render

    with open_memory(vault, read=True) as mem:
        result = api.path_between(mem, source, target)
    render.emit_json(result) if json else render.paths(result.path, "")


@graph_app.command("export")
def graph_export(
    vault: VaultOpt = None,
    format: Annotated[str, typer.Option("--format", "-f", help="json, graphml, gexf, dot or mermaid.")] = "json",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file.")] = None,
) -> None:
    """The whole graph in a format other tools read."""
    from mdmem.api import EXPORT_FORMATS as FORMATS
    from mdmem.api import export
    from mdmem.cli import render

    if format not in FORMATS:
        raise typer.BadParameter(f"choose one of {', '.join(FORMATS)}", param_hint="--format")
    with open_memory(vault, read=True) as mem:
        text = export(mem.graph(), format)
    render.to_file_or_stdout(text, output)


@graph_app.command("html")
def graph_html(
    vault: VaultOpt = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="The HTML file (default: <vault>/.mdmem/graph.html).")] = None,
    open_: Annotated[bool, typer.Option("--open", help="Open it in a browser.")] = False,
) -> None:
    """One self-contained HTML page to explore the graph (works offline)."""
    from mdmem import api
    from mdmem.api import graph_page as render_html
    from mdmem.cli import render

    with open_memory(vault, read=True) as mem:
        page = render_html(api.graph_data(mem))
        target = output or mem.state_dir / "graph.html"
    render.to_file_or_stdout(page, target)
    if open_:
        import webbrowser

        webbrowser.open(target.resolve().as_uri())


@app.command()
def watch(
    vault: VaultOpt = None,
    debounce: Annotated[float, typer.Option("--debounce", help="Seconds of quiet before a batch is indexed.")] = 0.3,
) -> None:
    """Keep the index up to date as files change (Ctrl-C to stop)."""
    from mdmem.api import watch as run
    from mdmem.cli import render

    def report(batch) -> None:
        if batch.error:
            render.message(f"mdmem watch: {batch.error}")
        else:
            r = batch.result
            render.message(
                f"{r.added} added, {r.changed} changed, {r.removed} removed ({r.notes} notes, {r.seconds:.2f}s)"
            )

    with open_memory(vault, read=True) as mem:
        run(mem, debounce=debounce, on_batch=report,
            on_ready=lambda: render.message(f"watching {mem.root} (Ctrl-C to stop)"))
        render.message("stopped")


@app.command()
def check(
    vault: VaultOpt = None,
    json: JsonOpt = False,
    update_budget: Annotated[bool, typer.Option(
        "--update-budget", help="Rewrite MEMORY.md's first-line budget comment (the only write).")] = False,
    fail_on: Annotated[Optional[str], typer.Option(
        "--fail-on", help="Exit 3 when an issue at or above this severity exists: info, warning or error. "
        "Without it check exits 0 whatever it finds, errors included (hooks and scripts rely on that); pass "
        "--fail-on error in CI.", show_default=False)] = None,
    cap: Annotated[Optional[int], typer.Option("--cap", min=1, help="Token budget of the memory files [40000].",
                                               show_default=False)] = None,
    warn_percent: Annotated[Optional[float], typer.Option(
        "--warn-percent", min=0.1, help="BUDGET WARNING at this share of the cap [80].", show_default=False)] = None,
    stale_days: Annotated[Optional[int], typer.Option(
        "--stale-days", min=0, help="STALE after this many days unchanged, 0 = never [30].",
        show_default=False)] = None,
    oversized_percent: Annotated[Optional[float], typer.Option(
        "--oversized-percent", min=0.1, help="OVERSIZED: one file above this share of the cap [10].",
        show_default=False)] = None,
    load_lines: Annotated[Optional[int], typer.Option(
        "--load-lines", min=1, help="Lines of MEMORY.md an agent loads [200].", show_default=False)] = None,
    load_bytes: Annotated[Optional[int], typer.Option(
        "--load-bytes", min=1, help="Bytes of MEMORY.md an agent loads [25000].", show_default=False)] = None,
    today: Annotated[Optional[str], typer.Option(
        "--today", envvar="MDMEM_TODAY", help="Audit as of this date, YYYY-MM-DD (reproducible reports).",
        show_default=False)] = None,
    all_notes: Annotated[bool, typer.Option(
        "--all", help="Audit every note as memory, not only what an agent loads (MEMORY.md + memory/).")] = False,
    judge: Annotated[Optional[str], typer.Option(
        "--judge", help="A model command asked about each duplicate guessed by meaning (e.g. 'claude -p'; at most "
        "20 a run, answers kept in .mdmem/): a pair it clears is no DUPLICATE (default: MDMEM_JUDGE or [judge] "
        "command in ~/.mdmem/config.toml; '' for none).", show_default=False)] = None,
) -> None:
    """The budget audit: tokens against the cap, types, largest files, growth, issues. A vault without
    MEMORY.md or memory/ (a plain Obsidian vault) is said to have no memory layout, unless --all.

    Exit 0 even when it finds errors, unless --fail-on is given (then 3 at or above that severity)."""
    import datetime as dt

    from mdmem import api
    from mdmem.base.settings import check_settings
    from mdmem.cli import render

    severities = ("info", "warning", "error")
    if fail_on is not None and fail_on not in severities:
        raise typer.BadParameter("choose info, warning or error", param_hint="--fail-on")
    day = day_option(today)
    flags = dict(cap=cap, warn_percent=warn_percent, stale_days=stale_days, oversized_percent=oversized_percent,
                 load_lines=load_lines, load_bytes=load_bytes)
    given = vault if vault is not None else os.environ.get("MDMEM_VAULT") or None
    if given is not None and not Path(given).expanduser().is_dir():
        report = api.check_missing_folder(Path(given).expanduser(), check_settings(None, **flags), day)
        if update_budget:
            render.message("mdmem: no vault folder, so no MEMORY.md budget comment to update")
    else:
        with open_memory(vault, read=True) as mem:
            report = api.check(mem, mem.settings.check_with(**flags), day, all_notes=all_notes,
                               judge=judge_option(judge))
            if update_budget:
                status, report = api.update_budget(mem, report, day or dt.date.today())
                render.message({"updated": "mdmem: MEMORY.md budget comment updated",
                                "unchanged": "mdmem: MEMORY.md budget comment already up to date",
                                "missing": "mdmem: no MEMORY.md, so no budget comment to update"}[status])
    render.check_json(report) if json else render.check(report)
    if fail_on is not None and report.fails(fail_on):
        from mdmem.base.errors import EXIT_CHECK_FAILED

        raise typer.Exit(EXIT_CHECK_FAILED)

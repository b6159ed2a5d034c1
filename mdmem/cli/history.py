"""``mdmem import SOURCE``: past sessions of an agent (or a chat export) as notes under ``sessions/``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from mdmem.cli.common import JsonOpt, VaultOpt, app, is_tty, open_memory


@app.command(name="import")
def import_(
    source: Annotated[str, typer.Argument(help="claude-code, codex, gemini, chatgpt or claude-ai.")],
    file: Annotated[Optional[Path], typer.Argument(help="chatgpt / claude-ai: the export's conversations.json "
                                                   "(or its ZIP); an agent: one transcript file.",
                                                   show_default=False)] = None,
    vault: VaultOpt = None,
    project: Annotated[Optional[str], typer.Option("--project", help="Only sessions of this project (its "
                                                   "folder's name, or a path).", show_default=False)] = None,
    since: Annotated[Optional[str], typer.Option("--since", help="Only sessions active on or after YYYY-MM-DD "
                                                 "(or 30d, 2w).", show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be written; change nothing.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary (errors still go to stderr).")] = False,
    json: JsonOpt = False,
) -> None:
    """Import past sessions: one note per session under sessions/, linked from that day's daily note.
    Re-running updates what changed and never duplicates."""
    from mdmem.api import import_sessions
    from mdmem.cli import render

    with open_memory(vault, refresh=False, write=True) as mem:
        if is_tty() and not json and not quiet:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            columns = (TextColumn(f"importing {source}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
            with Progress(*columns, transient=True) as bar:
                task = bar.add_task("import", total=None)
                result = import_sessions(mem, source, file, project=project, since=since, dry_run=dry_run,
                                         progress=lambda done, total, label: bar.update(task, completed=done,
                                                                                        total=total))
        else:
            result = import_sessions(mem, source, file, project=project, since=since, dry_run=dry_run)
    if json:
        render.emit_json(result)
    elif not quiet:
        render.imported(result)
    else:
        for label, why in result.errors:
            render.message(f"mdmem: {label}: {why}")

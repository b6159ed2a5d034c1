"""The commands that write notes: daily add/show, save (and its per-type shortcuts), forget, restore, edit, move.
Registered after :mod:`mdmem.cli.commands` (the order of ``--help``); the agents' side is
:mod:`mdmem.cli.agents`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from mdmem.cli.common import (
    GlobalOpt,
    JsonOpt,
    JudgeOpt,
    NoteArg,
    OwnerOpt,
    TodayOpt,
    VaultOpt,
    app,
    date_option,
    judge_option,
    open_memory,
)

daily_app = typer.Typer(help="The daily log: append-only timestamped entries in memory/daily/.",
                        no_args_is_help=True)
app.add_typer(daily_app, name="daily")


def _body(text: str | None, file: Path | None) -> str:
    """The text from the argument, ``--file F`` or stdin (``-``): a regular file (never a FIFO or a
    device: ``/dev/zero`` would never end) or stdin, at most ``MAX_TEXT`` characters, UTF-8; else one
    line on stderr and exit 2."""
    import sys

    from mdmem.api import MAX_TEXT
    from mdmem.base.errors import UsageError

    if file is not None and text not in (None, "-"):
        raise typer.BadParameter("give the text or --file, not both", param_hint="--file")
    too_long = f"is longer than {MAX_TEXT:,} characters, the most a memory may be"
    if file is not None:
        from mdmem.base.files import read_outside

        try:
            data = read_outside(file, 4 * MAX_TEXT + 4)  # UTF-8: at most 4 bytes a character
        except OSError as e:
            raise UsageError(f"cannot read {file}: {e.strerror}") from None
        try:
            body = data.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{file} is not UTF-8 text") from None
        if len(body) > MAX_TEXT:
            raise UsageError(f"{file} {too_long}")
        return body
    if text is None or text == "-":
        if sys.stdin.isatty():  # a person at a terminal: say what is awaited rather than wait in silence
            from mdmem.cli.render import message

            message("mdmem: reading the text from the terminal; end it with Ctrl-D on a line of its own "
                    "(or give the text as an argument, or --file F)")
        body = sys.stdin.read(MAX_TEXT + 1)
        if len(body) > MAX_TEXT:
            raise UsageError(f"the text on stdin {too_long}")
        return body
    return text


SecretOpt = Annotated[bool, typer.Option("--allow-secret", help="Save even though the text looks like it holds a "
                                         "secret (a key, a token, a password): only when it is not one.")]


TextArg = Annotated[Optional[str], typer.Argument(help="The text; - (or nothing) reads stdin.", show_default=False)]
FileOpt = Annotated[Optional[Path], typer.Option("--file", help="Read the text from this file.", show_default=False)]


@daily_app.command("add")
def daily_add(
    text: TextArg = None,
    vault: VaultOpt = None,
    file: FileOpt = None,
    at: Annotated[Optional[str], typer.Option("--at", help="The entry's time, HH:MM (default: now).",
                                              show_default=False)] = None,
    date: Annotated[Optional[str], typer.Option("--date", help="The day, YYYY-MM-DD (default: today).",
                                                show_default=False)] = None,
    allow_secret: SecretOpt = False,
    json: JsonOpt = False,
) -> None:
    """Append a `## HH:MM` entry to today's daily note."""
    from mdmem import api
    from mdmem.cli import render

    body = _body(text, file)
    with open_memory(vault, refresh=False) as mem:
        result = api.daily_add(mem, body, at, date_option(date, "--date"), allow_secret=allow_secret)
    render.emit_json(result) if json else render.daily_added(result)


@daily_app.command("show")
def daily_show(
    when: Annotated[str, typer.Argument(help="today, yesterday, week or YYYY-MM-DD.")] = "today",
    vault: VaultOpt = None,
    today: Annotated[Optional[str], typer.Option("--today", envvar="MDMEM_TODAY",
                                                 help="Take this YYYY-MM-DD as today.", show_default=False)] = None,
    json: JsonOpt = False,
) -> None:
    """Show the daily notes of a day or of the last week."""
    from mdmem import api
    from mdmem.cli import render

    with open_memory(vault, refresh=False, read=True) as mem:
        result = api.daily_show(mem, when, date_option(today, "--today"))
    render.emit_json(result) if json else render.daily_view(result)


def _save(
    text: TextArg = None,
    vault: VaultOpt = None,
    type: Annotated[Optional[str], typer.Option(
        "--type", "-t", help="user, person, project, protocol, decision, reference or feedback.",
        show_default=False)] = None,
    name: Annotated[Optional[str], typer.Option(
        "--name", help="The note's name; a plain one (letters, digits, spaces, at most 60 characters) is its file "
        "name as written, so [[NAME]] links to it (default: the first line's subject, in kebab-case).",
        show_default=False)] = None,
    description: Annotated[Optional[str], typer.Option(
        "--description", "-d", help="One line for MEMORY.md (default: the first line).", show_default=False)] = None,
    tags: Annotated[Optional[list[str]], typer.Option("--tags", help="A tag (repeat, or comma-separated).",
                                                      show_default=False)] = None,
    file: FileOpt = None,
    new: Annotated[bool, typer.Option("--new", help="Save even when a near-duplicate exists.")] = False,
    chosen: Annotated[Optional[str], typer.Option("--chosen", help="A decision: what was chosen.",
                                                  show_default=False)] = None,
    rejected: Annotated[Optional[list[str]], typer.Option("--rejected", help="A decision: an option given up "
                                                          "(repeat).", show_default=False)] = None,
    supersedes: Annotated[Optional[list[str]], typer.Option(
        "--supersedes", help="A note this one replaces (path, file name or title; repeat): written as "
        "supersedes: \"[[NOTE]]\"; the old note is left as it is, and recall and context leave it out.",
        show_default=False)] = None,
    allow_secret: SecretOpt = False,
    project: OwnerOpt = None,
    no_project: GlobalOpt = False,
    update: Annotated[Optional[str], typer.Option(
        "--update", help="Add the text to this note instead (one note per fact: what save names when a memory "
        "repeats or may mean the same as a saved one).", show_default=False)] = None,
    section: Annotated[Optional[str], typer.Option(
        "--section", help="With --update: replace this section (heading) of the note with the text.",
        show_default=False)] = None,
    judge: JudgeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Save a memory: a note in its type's folder plus its line in MEMORY.md
    (without --type, the type is inferred and the reason shown). Saved in a git repository, it belongs to
    that project (project: "[[NAME]]"); --project NAME names one, --global none."""
    from mdmem import api
    from mdmem.base.projects import for_write
    from mdmem.base.provenance import Provenance, shell_agent
    from mdmem.cli import render

    body = _body(text, file)
    tag_list = [t for given in tags or () for t in given.split(",")]
    agent = shell_agent()  # run from an agent's shell (Claude Code's Bash tool): the agent's save, not the user's
    with open_memory(vault, write=True) as mem:
        owner = for_write(mem.root, project, no_project)
        result = api.save(mem, body, type, name, description, tag_list, new=new,
                              chosen=chosen, rejected=rejected or [], allow_secret=allow_secret,
                              supersedes=supersedes or [], project=owner, update=update, section=section,
                              provenance=Provenance("agent", agent=agent) if agent else Provenance("user"),
                              judge=judge_option(judge))
    render.emit_json(result) if json else render.saved(result)


app.command("save")(_save)
app.command("remember", help="Alias of save.")(_save)


@app.command()
def forget(
    query: Annotated[str, typer.Argument(help="A note (path, file name, title or alias), else search words.")],
    vault: VaultOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would move; change nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Forget the search matches of words that name no "
                                      "note, without asking.")] = False,
    json: JsonOpt = False,
) -> None:
    """Archive a note into memory/.archive/ and remove its MEMORY.md lines (nothing is deleted; `mdmem restore`
    brings it back). A note named exactly goes at once; words that name no note are searched, and their
    matches are archived only when you confirm (on a terminal) or with --yes."""
    import sys

    from mdmem.api import NeedsConfirmation
    from mdmem.api import forget as run
    from mdmem.cli import render

    with open_memory(vault, write=True) as mem:
        try:
            result = run(mem, query, dry_run, yes)
        except NeedsConfirmation as e:
            if not (sys.stdin.isatty() and sys.stderr.isatty()):
                raise  # a script: the one-line refusal, exit 2
            result = run(mem, query, paths=_confirmed(query, e.paths))
    render.emit_json(result) if json else render.forgotten(result)


def _confirmed(query: str, paths: list[str]) -> list[str]:
    """Ask the person at the terminal whether the search matches of ``query`` are what to forget."""
    from mdmem.base.errors import MdmemError
    from mdmem.cli import render

    one = len(paths) == 1
    render.message(f"{render._line(query)!r} names no note; search finds {'this one' if one else f'these {len(paths)}'}:")
    for path in paths:
        render.message(f"  {render._line(path)}")
    if not render.ask(f"Archive {'it' if one else 'all of them'}? [y/N]:"):
        raise MdmemError("nothing was forgotten")
    return paths


@app.command()
def restore(
    note: Annotated[str, typer.Argument(help="The archived note: its path (memory/.archive/...), the path it was "
                                        "forgotten from, its file name or title.", show_default=False)],
    vault: VaultOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would move back; change nothing.")] = False,
    json: JsonOpt = False,
) -> None:
    """Bring a forgotten note back from memory/.archive/ to where it was, with its MEMORY.md lines (never over
    a note that now exists there)."""
    from mdmem.api import restore as run
    from mdmem.cli import render

    with open_memory(vault, write=True) as mem:
        result = run(mem, note, dry_run)
    render.emit_json(result) if json else render.restored(result)


def _value(text: str):
    """``--set KEY=VALUE``'s value read as YAML (``3``, ``true``, ``[a, b]``), else kept as text."""
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    import datetime as dt

    if isinstance(value, (dt.date, dt.datetime)):
        return text
    return value if isinstance(value, (str, int, float, bool, list)) or value is None else text


@app.command()
def edit(
    note: NoteArg,
    vault: VaultOpt = None,
    append: Annotated[Optional[str], typer.Option("--append", help="Add this text at the end of the note (- reads "
                                                  "stdin).", show_default=False)] = None,
    section: Annotated[Optional[str], typer.Option("--section", help="The heading of the section to replace "
                                                   "(\"Status\" or \"## Status\").", show_default=False)] = None,
    replace: Annotated[Optional[str], typer.Option("--replace", help="With --section: the section's new text (- "
                                                   "reads stdin).", show_default=False)] = None,
    set_: Annotated[Optional[list[str]], typer.Option("--set", help="KEY=VALUE: set a frontmatter key (the value "
                                                      "read as YAML; repeat).", show_default=False)] = None,
    unset: Annotated[Optional[list[str]], typer.Option("--unset", help="KEY: remove a frontmatter key (repeat).",
                                                       show_default=False)] = None,
    expected: Annotated[Optional[str], typer.Option("--version", help="Refuse unless the note is still this "
                                                    "version (from `read_note` or an earlier edit).",
                                                    show_default=False)] = None,
    today: TodayOpt = None,
    allow_secret: SecretOpt = False,
    json: JsonOpt = False,
) -> None:
    """Edit a note: append text, replace one section, set or remove frontmatter keys (atomic, under the
    lock; the rest of the note, frontmatter formatting included, is kept byte for byte)."""
    import sys

    from mdmem.api import MAX_TEXT
    from mdmem.api import edit as run
    from mdmem.cli import render

    values = {}
    for item in set_ or ():
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise typer.BadParameter(f"wants KEY=VALUE, not {item!r}", param_hint="--set")
        values[key.strip()] = _value(value)
    if append == "-":
        append = sys.stdin.read(MAX_TEXT + 1)  # bounded: one more than the guard takes, so it says so
    if replace == "-":
        replace = sys.stdin.read(MAX_TEXT + 1)
    from mdmem.base.provenance import shell_agent

    with open_memory(vault, write=True) as mem:
        result = run(mem, note, expected=expected, append=append, section=section, replace=replace,
                     set_keys=values, unset=[u.strip() for u in unset or ()], today=date_option(today, "--today"),
                     agent=shell_agent(), allow_secret=allow_secret)
    render.emit_json(result) if json else render.edited(result)


@app.command()
def confirm(
    note: NoteArg,
    vault: VaultOpt = None,
    today: Annotated[Optional[str], typer.Option("--today", help="The date written as confirmed: (YYYY-MM-DD).",
                                                 show_default=False)] = None,
    json: JsonOpt = False,
) -> None:
    """Make a note an agent saved your own: `source: user` and `confirmed: DATE` in its frontmatter (nothing else
    changes). Until then the card and the prompt hook show it as proposed by an agent, never as your rule. Run it
    in your own terminal: an agent cannot confirm its own write (not over MCP, not from an agent's shell)."""
    from mdmem.api import confirm as run
    from mdmem.cli import render

    with open_memory(vault, write=True) as mem:
        result = run(mem, note, today=date_option(today, "--today"))
    render.emit_json(result) if json else render.message(
        f"confirmed {result.path}: source user (was {result.was})" if result.changed
        else f"{result.path} is already the user's (source {result.was}): nothing changed")


@app.command()
def move(
    note: Annotated[Optional[str], typer.Argument(help="A vault path, a file name or a title.",
                                                  show_default=False)] = None,
    new: Annotated[Optional[str], typer.Argument(help="The new name (same folder), a vault path (memory/x/new.md) "
                                                 "or a folder ending in / (keeps the name).", show_default=False)]
    = None,
    vault: VaultOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would move and which links would be "
                                          "rewritten; change nothing.")] = False,
    resume: Annotated[bool, typer.Option("--resume", help="Finish a move that was interrupted (killed, a power "
                                         "cut) from its journal in .mdmem/; any other write does it too.")] = False,
    allow_secret: SecretOpt = False,
    json: JsonOpt = False,
) -> None:
    """Rename or move a note and rewrite every link to it in the vault, as Obsidian does (aliases,
    headings, block ids and embeds kept). Crash-safe: a killed move is finished by the next write."""
    from mdmem.api import move as run
    from mdmem.api import resume_move as finish
    from mdmem.base.errors import UsageError
    from mdmem.cli import render

    if resume:
        if note is not None or new is not None:
            raise UsageError("--resume takes no NOTE or NEW: it finishes the interrupted move")
        with open_memory(vault, write=True) as mem:
            result = finish(mem)
        if result is None:
            render.message("no interrupted move to finish")
            return
    else:
        if note is None or new is None:
            raise UsageError("move NOTE NEW: give the note and its new name (or --resume)")
        with open_memory(vault, write=True) as mem:
            result = run(mem, note, new, dry_run, allow_secret=allow_secret)
    render.emit_json(result) if json else render.moved(result)

"""Results on the terminal: JSON (``dataclasses.asdict``) or text via rich.

Only the CLI calls this module. rich is imported when text is rendered, so
``--json`` output never pays for it.

Control characters (a vault may be hostile): every byte of human output leaves through
:func:`message`, :func:`text` or :func:`console`, and each of them passes it through
:func:`mdmem.base.terminal.visible` (``ESC`` is shown as ``\\x1b``, ``CR`` as ``\\r``, C1 as
``\\x9b``...), so no note, file name or title can drive the terminal. A value shown inside a
line (a path, a title, a list item) goes through :func:`_line` / :func:`_escape` first, which
also writes its newlines out, so a name holding one cannot break line-based output. JSON keeps
the exact text (:func:`mdmem.base.terminal.json_safe` escapes what ``json.dumps`` leaves raw).
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

from mdmem.base.fastjson import encode
from mdmem.base.terminal import json_safe, visible

_BOLD = re.compile(r"\*\*(.+?)\*\*")


def to_json(result: Any) -> str:
    return json_safe(encode(result, indent=2))


def emit_json(result: Any) -> None:
    sys.stdout.write(to_json(result) + "\n")


_CONSOLE = None


PIPE_WIDTH = 1000  # columns when the output is no terminal and COLUMNS is unset: nothing is wrapped


def console(stderr: bool = False):
    """A rich console whose ``print`` shows control characters (:func:`visible`) before rich sees
    the markup: the one way text reaches the terminal through rich. On a terminal it wraps at the
    terminal's width; into a pipe or a file (an agent's shell tool, ``| grep``) it does not wrap at all
    unless ``COLUMNS`` says a width: rich's default of 80 columns there cut paths in the middle
    ("…-orders-servic" / "e.md", found by a new user's trial), which no reader of a pipe can undo."""
    global _CONSOLE
    if _CONSOLE is None:
        from rich.console import Console

        class SafeConsole(Console):
            def print(self, *objects, **kwargs) -> None:
                super().print(*(visible(o) if isinstance(o, str) else o for o in objects), **kwargs)

        _CONSOLE = SafeConsole
    stream = sys.stderr if stderr else sys.stdout
    piped = not (hasattr(stream, "isatty") and stream.isatty())
    if piped and not os.environ.get("COLUMNS"):
        return _CONSOLE(stderr=stderr, highlight=False, soft_wrap=True, width=PIPE_WIDTH)
    return _CONSOLE(stderr=stderr, highlight=False, soft_wrap=False)


def message(text: str) -> None:
    """A message for a person, on stderr."""
    sys.stderr.write(visible(text.rstrip("\n")) + "\n")


def ask(question: str) -> bool:
    """A yes/no question to the person at the terminal (on stderr; click's prompt writes to stdout), then
    their line from stdin: True for y or yes."""
    sys.stderr.write(visible(question.rstrip("\n")) + " ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().casefold() in ("y", "yes")


def _line(value: Any) -> str:
    """One value inside a line of output: every control character, newlines included, written out."""
    return visible(str(value), newlines=False)


def _escape(text: str) -> str:
    """One value inside rich markup: shown on its line (:func:`_line`), its ``[`` escaped."""
    from rich.markup import escape

    return escape(_line(text))


def marked(snippet: str) -> str:
    """``**term**`` from the index's highlighter -> rich bold."""
    parts = _BOLD.split(snippet)
    return "".join(_escape(p) if i % 2 == 0 else f"[bold yellow]{_escape(p)}[/]" for i, p in enumerate(parts))


def search(result) -> None:
    out = console()
    if not result.results:
        message(f"no notes match {result.query!r}")
    for i, hit in enumerate(result.results, 1):
        out.print(f"[bold]{i}. {_escape(hit.title)}[/]  [dim]{_escape(hit.path)} · {hit.score:.4g}[/]")
        standing = standing_marks(hit)
        if standing:
            out.print("   [yellow]" + _escape(standing) + "[/]")
        if hit.signals:
            parts = [f"{name} #{s['rank']} {s['score']:.4g}" for name, s in hit.signals.items() if "rank" in s]
            if "fused" in hit.signals:
                parts.append(f"fused {hit.signals['fused']['score']:.4g}")
            out.print("   [dim]" + _escape(" · ".join(parts)) + "[/]")
        if hit.snippet:
            out.print("   " + marked(hit.snippet))
    _past_sessions(out, result.sessions)


def _past_sessions(out, hits) -> None:
    """The imported past sessions a search adds, after its notes: date, agent, project, title, path and the
    lines that hold the query's words."""
    if not hits:
        return
    out.print("[bold]past sessions[/] [dim](imported; --no-sessions leaves them out)[/]")
    for h in hits:
        where = f" in {h.project}" if h.project else ""
        out.print(f"- {_escape(h.date or '?')} {_escape(h.agent + where)}: [bold]{_escape(h.title)}[/]  "
                  f"[dim]{_escape(h.path)}[/]")
        for line in h.lines:
            out.print("   > " + _escape(line))


def standing_marks(hit) -> str:
    """``superseded by [[new]]`` / ``expired YYYY-MM-DD`` for a hit that no longer holds, else ""."""
    from posixpath import basename

    marks = []
    if getattr(hit, "superseded_by", None):
        marks.append("superseded by " + ", ".join(f"[[{basename(p)[:-3]}]]" for p in hit.superseded_by))
    if getattr(hit, "expired", False):
        marks.append(f"expired {hit.valid_until}")
    return " · ".join(marks)


def refresh(result) -> None:
    verb = "rebuilt" if result.rebuilt else "updated"
    stages = ", ".join(f"{k} {v:.2f}s" for k, v in result.stages.items())
    console().print(
        f"{verb}: {result.notes} notes ({result.added} added, {result.changed} changed, "
        f"{result.removed} removed) in {result.seconds:.2f}s" + (f" [dim]({stages})[/]" if stages else "")
    )


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(body: str) -> str:
    """A note's text for a terminal: control characters (escape sequences, bells) shown as ``�``;
    newlines and tabs kept."""
    return _CONTROL.sub("\ufffd", body.replace("\r\n", "\n"))


def show(view, body: str | None = None) -> None:
    out = console()
    out.print(f"[bold]{_escape(view.title)}[/]  [dim]{_escape(view.path)}[/]")
    out.print(f"type: {_escape(view.type)}   tokens: ~{view.tokens}")
    if view.tags:
        out.print("tags: " + _escape(", ".join("#" + t for t in view.tags)))
    if view.aliases:
        out.print("aliases: " + _escape(", ".join(view.aliases)))
    prov = getattr(view, "provenance", None) or {}
    if prov:
        said = ", ".join(f"{k} {_escape(str(prov[k]))}" for k in ("session", "agent", "confirmed") if prov.get(k))
        out.print(f"source: {_escape(str(prov['source']))}" + (f" ({said})" if said else "")
                  + (" — proposed by an agent, not confirmed: `mdmem confirm` makes it the user's"
                     if prov.get("unconfirmed") else ""))
    for key, value in view.frontmatter.items():
        if key not in ("tags", "aliases", "type", "source", "session", "agent", "confirmed"):
            out.print(f"[dim]{_escape(str(key))}:[/] {_escape(json.dumps(value, ensure_ascii=False))}")
    for problem in view.problems:
        out.print(f"[red]problem[/] {_escape(problem.code)}: {_escape(problem.message)}")
    if body is not None:
        out.file.flush()
        text("\n" + printable(body).strip("\n"))


def links(result) -> None:
    out = console()
    if not result.links:
        message(f"{_line(result.note)} has no outgoing links")
        return
    for link in result.links:
        where = link.target or f"[red]missing[/] ({_escape(link.link or '')})"
        extra = " embed" if link.embed else ""
        out.print(f"[dim]{link.line:>4}[/] {_escape(link.raw)} → {where if link.target is None else _escape(where)} [dim]{link.kind}{extra}[/]")


def initialised(result) -> None:
    """``mdmem init``: a new vault, or what was added to an existing folder (on stdout)."""
    if result.new:
        text(f"created vault at {result.vault}: {', '.join(result.added)}")
    elif result.added:
        text(f"added to {result.vault}: {', '.join(result.added)}\n"
             "no existing file was changed" + (f" (already there: {', '.join(result.kept)})" if result.kept else ""))
    else:
        text(f"nothing to add: {result.vault} already has {', '.join(result.kept)}")
    if result.daily and "mdmem's default" not in result.daily:  # an Obsidian vault's Daily notes, or config.toml
        text(f"daily log: {result.daily}")
    state(result.vault, result.state)


def state(vault: str, folder: str) -> None:
    """Where a vault's derived state lives, said when it is not the vault's own ``.mdmem/`` (a vault synced by
    iCloud, Dropbox or Obsidian Sync keeps it outside: ``MDMEM_STATE_DIR``, ``[state] folder``; or a read-only
    vault's, in ``$MDMEM_HOME/read-only/``)."""
    import os

    if folder and os.path.dirname(os.path.abspath(folder)) != os.path.abspath(vault):
        text(f"state (index, caches, hooks' state): {folder} (outside the vault)")


def text(body: str) -> None:
    """Text for a person (or a prompt) on stdout."""
    body = visible(body)
    sys.stdout.write(body if body.endswith("\n") else body + "\n")


def to_file_or_stdout(body: str, output) -> None:
    if output is None:
        text(body)
        return
    from mdmem.base.files import write_atomic

    write_atomic(output, body.encode("utf-8"))
    message(f"wrote {output} ({len(body.encode('utf-8')):,} bytes)")


def paths(items: list[str], empty: str) -> None:
    if not items:
        if empty:
            message(empty)
        return
    text("\n".join(_line(item) for item in items))


def backlinks(result, unlinked: bool) -> None:
    out = console()
    if not result.backlinks:
        message(f"no notes link to {_line(result.note)}")
    for b in result.backlinks:
        out.print(f"[bold]{_escape(b.source)}[/]:{b.line}  {_escape(b.context)}")
    if unlinked:
        out.print(f"[dim]unlinked mentions: {len(result.unlinked)}[/]")
        for b in result.unlinked:
            out.print(f"{_escape(b.source)}:{b.line}  {_escape(b.context)}")


def neighbors(result) -> None:
    if not result.neighbors:
        message(f"{_line(result.note)} has no linked notes")
        return
    arrows = {"out": "→", "in": "←", "both": "↔"}
    text("\n".join(f"{n.distance} {arrows[n.direction]} {_line(n.path)}  (weight {n.weight})"
                   for n in result.neighbors))


GRAPH_MAP_ROWS = 10  # rows of each table of `graph map` (--json has them all)


def graph_map(m) -> None:
    """``mdmem graph map``: small tables (the graph, notes by type and by folder, the hubs two ways)."""
    from rich import box
    from rich.table import Table

    out = console()

    titles: dict[int, str] = {}

    def table(title: str, *columns: str) -> Table:
        t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        titles[id(t)] = title
        for i, name in enumerate(columns):
            t.add_column(name, justify="left" if i == 0 or name.startswith("by ") else "right",
                         overflow="fold")
        return t

    def show(t: Table) -> None:
        out.print(f"[bold]{titles[id(t)]}[/]")
        out.print(t)
        out.print("")

    graph = table("the graph", "", "count", "occurrences")
    graph.add_row("notes", f"{m.notes:,}", "")
    graph.add_row("links between notes", f"{m.links:,}", f"{m.link_occurrences:,}")
    graph.add_row("dangling targets", f"{m.dangling:,}", f"{m.dangling_occurrences:,}")
    graph.add_row("components", f"{m.components:,}", "")
    graph.add_row("orphans (no backlinks)", f"{m.orphans:,}", "")
    graph.add_row("isolated (no links)", f"{m.isolated:,}", "")
    show(graph)
    for title, counts in (("notes by type", m.by_type), ("notes by folder", m.by_folder)):
        t = table(title, title.rsplit(" ", 1)[-1], "notes")
        items = list(counts.items())
        for name, count in items[:GRAPH_MAP_ROWS]:
            t.add_row(_escape(name if name != "." else "(vault root)"), f"{count:,}")
        if len(items) > GRAPH_MAP_ROWS:
            t.add_row(f"[dim]… {len(items) - GRAPH_MAP_ROWS} more[/]", f"{sum(c for _, c in items[GRAPH_MAP_ROWS:]):,}")
        show(t)
    for title, hubs, fmt in (("hubs by links (in and out)", m.hubs_degree, "{:g}"),
                             ("hubs by PageRank", m.hubs_pagerank, "{:.4f}")):
        t = table(title, "note", title.split(" ")[2])
        for hub in hubs[:GRAPH_MAP_ROWS]:
            t.add_row(_escape(hub.path), fmt.format(hub.value))
        show(t)


def dangling(items) -> None:
    if not items:
        message("no dangling links")
        return
    text("\n".join(f"{_line(d.target)}  ×{d.count}  ← {', '.join(map(_line, d.sources))}" for d in items))


_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
CHECK_ISSUES_PER_KIND = 20  # text output lists at most this many issues of one kind (--json has all)


def _left_out(report) -> str | None:
    """The line saying how many Markdown files the vault's Obsidian settings keep out, or None."""
    if not report.left_out:
        return None
    words = {"excluded": "Excluded files", "template": "templates folder"}
    parts = ", ".join(f"{n:,} by its {words.get(why, why)}" for why, n in report.left_out.items())
    return f"[dim]left out as Obsidian leaves them out of search and the graph: {parts} (read with `mdmem show PATH`)[/]"


def check(report) -> None:
    """``mdmem check``: budget, type table, largest files, growth, then issues by severity."""
    out = console()
    out.soft_wrap = True  # long paths and details stay on one line (grep-able when piped)
    left_out = _left_out(report)
    if report.layout == "none":  # no memory layout: the one thing to say
        for issue in report.issues:
            out.print(f"[{_SEVERITY_STYLE.get(issue.severity, '')}]{issue.severity:<8}[/] [bold]{issue.kind}[/]  "
                      f"{_escape(issue.detail)}")
            out.print(f"         [dim]→ {_escape(issue.action)}[/]")
        if left_out:
            out.print(left_out)
        return
    b = report.budget
    pct = (b.tokens * 200 + b.cap) // (2 * b.cap)
    out.print(f"[bold]budget[/]  ~{b.tokens:,} tk / {b.cap:,} tk ({pct}%) in {b.files:,} memory files; "
              f"MEMORY.md ~{b.index_tokens:,} tk apart  [dim](today {report.today}, {report.layout} layout)[/]")
    if left_out:
        out.print(left_out)
    out.print("")
    out.print(f"[bold]{'type':<10}{'files':>8}{'tokens':>12}[/]")
    for name, count in report.types.items():
        style = "dim" if not count.files else ""
        line = f"{name:<10}{count.files:>8,}{count.tokens:>12,}"
        out.print(f"[{style}]{line}[/]" if style else line)
    if report.top:
        out.print("")
        out.print("[bold]largest[/]")
        for t in report.top:
            out.print(f"{t.tokens:>9,} tk {t.percent:>6.1f}%  {_escape(t.path)}")
    g = report.growth
    out.print("")
    out.print(f"[bold]growth[/]  {g.last_7_days.files:,} files (~{g.last_7_days.tokens:,} tk) changed in the last "
              f"7 days, {g.days_8_to_30.files:,} (~{g.days_8_to_30.tokens:,} tk) 8-30 days ago")
    if report.sessions_unreviewed:
        waiting = report.sessions_unreviewed
        parts = ", ".join(f"{_escape(p or '(no project)')} {n:,}" for p, n in waiting.items())
        out.print(f"[bold]sessions[/]  {sum(waiting.values()):,} imported sessions never reviewed: {parts}  "
                  "[dim](sessions/, outside the budget)[/]")
    if report.judge is not None:
        out.print(_judged(report.judge))
    out.print("")
    counts = report.counts()
    if not report.issues:
        out.print("[bold green]no issues[/]")
        return
    summary = ", ".join(f"{n:,} {s}" + ("s" if n > 1 and s != "info" else "")
                        for s, n in reversed(counts.items()) if n)
    out.print(f"[bold]{len(report.issues):,} issues[/] ({summary})")
    from itertools import groupby

    for (severity, kind), same in groupby(report.issues, key=lambda i: (i.severity, i.kind)):
        group = list(same)
        style = _SEVERITY_STYLE.get(severity, "")
        for issue in group[:CHECK_ISSUES_PER_KIND]:
            where = issue.path + (f":{issue.line}" if issue.line else "")
            out.print(f"[{style}]{severity:<8}[/] [bold]{kind}[/]  {_escape(where)}  {_escape(issue.detail)}")
            out.print(f"         [dim]→ {_escape(issue.action)}[/]")
        if len(group) > CHECK_ISSUES_PER_KIND:
            out.print(f"[dim]… and {len(group) - CHECK_ISSUES_PER_KIND} more {kind} ({severity}); "
                      "mdmem check --json lists them all[/]")


def _judged(j) -> str:
    """The judge's line of ``check``: what it said of the duplicates guessed by meaning (decision 127)."""
    if not j.pairs:
        return f"[bold]judge[/]  no duplicate guessed by meaning to ask about  [dim]({_escape(j.source)})[/]"
    said = [f"{j.same:,} the same (the judge agrees)" if j.same else "",
            f"cleared by the judge: {j.cleared:,}" if j.cleared else "",
            f"{j.failed:,} without a usable answer" if j.failed else "",
            f"{j.unasked:,} left unasked" if j.unasked else ""]
    calls = f"{j.calls:,} model call{'s' if j.calls != 1 else ''}" + (f", {j.kept:,} answers kept from an earlier "
                                                                        "check" if j.kept else "")
    many = "s" if len(j.pairs) != 1 else ""
    return (f"[bold]judge[/]  {len(j.pairs):,} duplicate{many} guessed by meaning: {', '.join(s for s in said if s)}  "
            f"[dim]({calls}; {_escape(j.source)})[/]")


def check_json(report) -> None:
    """``mdmem check --json``: the same data as :func:`emit_json`, written fast
    enough for 10k issues (``dataclasses.asdict`` and an indented dump of every
    issue cost ~1.5 s there): pretty at the top, one compact issue per line."""
    head = {
        "budget": vars(report.budget),
        "types": {name: vars(count) for name, count in report.types.items()},
        "top": [vars(t) for t in report.top],
        "growth": {name: vars(bucket) for name, bucket in vars(report.growth).items()},
        "today": report.today,
        "layout": report.layout,
        "sessions_unreviewed": report.sessions_unreviewed,
        "left_out": report.left_out,
    }
    if report.judge is not None:  # with a judge set only: without one, the output is as it was
        head["judge"] = {k: v for k, v in vars(report.judge).items() if k != "pairs"} | {
            "pairs": [vars(p) for p in report.judge.pairs]}
    text = json.dumps(head, ensure_ascii=False, indent=2)
    issues = ",\n    ".join(json.dumps(vars(i), ensure_ascii=False) for i in report.issues)
    sys.stdout.write(json_safe(text[:-2] + ',\n  "issues": [' + (f"\n    {issues}\n  " if issues else "") + "]\n}\n"))


# ------------------------------------------------------------------ capture (daily, save, forget)


def daily_added(entry) -> None:
    verb = "created" if entry.created else "appended to"
    message(f"{verb} {_line(entry.path)} (## {entry.time})")


def daily_view(view) -> None:
    if not view.days:
        span = view.start if view.start == view.end else f"{view.start} to {view.end}"
        message(f"no daily notes for {span}")
        return
    parts = []
    for day in view.days:
        parts.append(f"=== {day.date}  ({_line(day.path)})\n{day.body}" if len(view.days) > 1 else day.body)
    text("\n".join(parts))


def saved(result) -> None:
    for warning in result.warnings:
        message(f"warning: {_line(warning)}")
    if result.status == "unchanged":
        message(f"already saved: {_line(result.path)} has the same content; nothing changed")
        return
    if result.status == "updated":
        message(f"updated {_line(result.path)} (~{result.tokens}tk): one note for this fact")
        return
    why = "" if result.type_reason == "given" else f"; type inferred: {result.type_reason}"
    message(f"saved {_line(result.path)} ({result.type}, ~{result.tokens}tk{why})")
    for old in getattr(result, "supersedes", ()):
        marked = "; its MEMORY.md line marked" if old in getattr(result, "index_marked", ()) else ""
        message(f"supersedes {_line(old)} (left as it is{marked}; recall and context leave it out)")
    if result.index_changed:
        message(f"MEMORY.md ## {result.section}: {_line(result.index_line)}")
    if getattr(result, "confirm", None):
        message(f"note: {_line(result.confirm)}")


def forgotten(result) -> None:
    verb = "would move" if result.dry_run else "moved"
    for item in result.notes:
        message(f"{verb} {_line(item.path)} → {_line(item.archived_to)}")
        for line in item.index_lines:
            message(f"  {'would remove' if result.dry_run else 'removed'} from MEMORY.md: {_line(line)}")
        if item.links:
            notes = ", ".join(map(_line, item.linked_from[:3])) + (
                f" and {len(item.linked_from) - 3} more" if len(item.linked_from) > 3 else "")
            message(f"  {_count(item.links, 'link')} in {notes} {'would point' if result.dry_run else 'now point'} "
                    "at an archived note")
    if result.dry_run:
        message("dry run: nothing changed" + ("; these are search matches: confirm or pass --yes to forget them"
                                              if result.by_search else ""))
    elif result.notes:
        import shlex

        message(f"bring {'it' if len(result.notes) == 1 else 'one'} back with: mdmem restore "
                f"{_line(shlex.quote(result.notes[0].archived_to))}")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def restored(result) -> None:
    message(f"{'would restore' if result.dry_run else 'restored'} {_line(result.archived)} → {_line(result.path)}")
    for line in result.index_lines:
        message(f"  {'would add' if result.dry_run else 'added'} to MEMORY.md again: {_line(line)}")
    if result.links:
        message(f"  {_count(result.links, 'link')} in {_count(len(result.linked_from), 'note')} resolve to it again")
    if result.dry_run:
        message("dry run: nothing changed")


def edited(result) -> None:
    message(f"edited {result.path}: " + "; ".join(result.changes) + f" (version {result.version})")


def moved(result) -> None:
    """What a move did, on stderr (messages); a dry run's plan is the data asked for, on stdout (``| less``
    showed nothing), and only "dry run: nothing changed" stays a message."""
    verb = "would move" if result.dry_run else "moved"
    say = text if result.dry_run else message
    say(f"{verb} {_line(result.source)} → {_line(result.target)}")
    for r in result.rewritten:
        say(f"  {'would rewrite' if result.dry_run else 'rewrote'} {r.links} link(s) in {_line(r.path)} "
            f"(line{'s' if len(r.lines) > 1 else ''} {', '.join(map(str, r.lines))})")
    for s in result.skipped:
        say(f"  not rewritten: {_line(s)}")
    if result.dry_run:
        message("dry run: nothing changed")


def accepted(result) -> None:
    for a in result.accepted:
        if a.status == "created":
            message(f"{a.number}. saved {_line(a.path)} ({a.type})")
        elif a.status == "unchanged":
            message(f"{a.number}. already saved: {_line(a.path)}")
        elif a.status == "updated":
            message(f"{a.number}. {_line(a.message)}")
        elif a.status == "proposed":
            message(f"{a.number}. for CLAUDE.md (add it yourself): {_line(a.line)}")
        else:
            message(f"{a.number}. not saved: {_line(a.message)}")


def timeline(result) -> None:
    span = f"{result.start} – {result.end}" + (f" ({result.phrase})" if result.phrase else "")
    if not result.entries:
        message(f"nothing dated {span}" + (f" mentions {result.words!r}" if result.words else ""))
        return
    out = [f"# {span}" + (f": {result.words}" if result.words else "")]
    for e in result.entries:
        when = e.date + (f" {e.time}" if e.time else "")
        kind = "" if e.kind == "daily" else f" [{_line(e.kind)}]"
        out.append(f"{when}  {_line(e.title)}{kind}: {_line(e.text)}")
    if result.truncated:
        out.append(f"… {result.total - len(result.entries)} more (--limit)")
    text("\n".join(out))


# ------------------------------------------------------------------ digest

_DIGEST_LABELS = {
    "created": ("created", "would create"),
    "updated": ("updated", "would update"),
    "unchanged": ("unchanged", "unchanged"),
    "kept-edited": ("kept: edited by hand", "kept: edited by hand"),
    "skipped-not-generated": ("skipped: not written by mdmem digest", "skipped: not written by mdmem digest"),
    "skipped-unreadable": ("skipped: a daily note or the digest cannot be read",
                           "skipped: a daily note or the digest cannot be read"),
}


def digest(result) -> None:
    """``mdmem digest``: one line per digest and per archived note, problems, a summary (all on stderr)."""
    dry = 1 if result.dry_run else 0
    for problem in result.problems:
        message(f"warning: {_line(problem.path)}: {_line(problem.message)}")
    for item in result.items:
        entries = f"{item.entries} {'entry' if item.entries == 1 else 'entries'}"
        message(f"{_DIGEST_LABELS[item.status][dry]}: {_line(item.path)} ({entries})")
    for note in result.archived:
        message(f"{'would archive' if dry else 'archived'} {_line(note.path)} → {_line(note.archived_to)}")
    if not result.items:
        message(f"no finished week or month with daily notes before {result.today}")
        return
    counts = {status: sum(i.status == status for i in result.items) for status in _DIGEST_LABELS}
    summary = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    if result.archived:
        summary += f", {len(result.archived)} daily notes {'to archive' if dry else 'archived'}"
    message(f"{len(result.items)} digests: {summary}" + ("; dry run: nothing changed" if dry else ""))


_IMPORT_LABELS = {"created": ("created", "would create"), "updated": ("updated", "would update"),
                  "unchanged": ("unchanged", "unchanged")}


def imported(result) -> None:
    """``mdmem import``: a line per note written (or that would be), then a summary (all on stderr)."""
    dry = 1 if result.dry_run else 0
    for item in result.items:
        if item.status != "unchanged":
            message(f"{_IMPORT_LABELS[item.status][dry]}: {_line(item.path)} ({item.user_messages} user messages)")
    for label, why in result.errors:
        message(f"error: {_line(label)}: {_line(why)}")
    parts = [f"{result.count(s)} {_IMPORT_LABELS[s][dry]}" for s in ("created", "updated", "unchanged")]
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(result.skipped.items()))
    message(f"{result.read} sessions read from {result.source}: " + ", ".join(parts) +
            (f"; left out: {skipped}" if skipped else "") +
            (f"; {result.daily} daily entries added" if result.daily else "") +
            ("; dry run: nothing changed" if result.dry_run else ""))

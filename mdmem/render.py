"""Results on the terminal: JSON (``dataclasses.asdict``) or text via rich.

Only the CLI calls this module. rich is imported when text is rendered, so
``--json`` output never pays for it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from typing import Any

_BOLD = re.compile(r"\*\*(.+?)\*\*")


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def to_json(result: Any) -> str:
    data = dataclasses.asdict(result) if dataclasses.is_dataclass(result) else result
    return json.dumps(data, ensure_ascii=False, indent=2, default=_plain)


def emit_json(result: Any) -> None:
    sys.stdout.write(to_json(result) + "\n")


def console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def message(text: str) -> None:
    """A message for a person, on stderr."""
    sys.stderr.write(text.rstrip("\n") + "\n")


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def marked(snippet: str) -> str:
    """``**term**`` from the index's highlighter -> rich bold."""
    parts = _BOLD.split(snippet)
    return "".join(_escape(p) if i % 2 == 0 else f"[bold yellow]{_escape(p)}[/]" for i, p in enumerate(parts))


def search(result) -> None:
    out = console()
    if not result.results:
        message(f"no notes match {result.query!r}")
        return
    for i, hit in enumerate(result.results, 1):
        out.print(f"[bold]{i}. {_escape(hit.title)}[/]  [dim]{_escape(hit.path)} · {hit.score:.2f}[/]")
        if hit.snippet:
            out.print("   " + marked(hit.snippet))


def refresh(result) -> None:
    verb = "rebuilt" if result.rebuilt else "updated"
    stages = ", ".join(f"{k} {v:.2f}s" for k, v in result.stages.items())
    console().print(
        f"{verb}: {result.notes} notes ({result.added} added, {result.changed} changed, "
        f"{result.removed} removed) in {result.seconds:.2f}s" + (f" [dim]({stages})[/]" if stages else "")
    )


def show(view) -> None:
    out = console()
    out.print(f"[bold]{_escape(view.title)}[/]  [dim]{_escape(view.path)}[/]")
    out.print(f"type: {view.type}   tokens: ~{view.tokens}")
    if view.tags:
        out.print("tags: " + _escape(", ".join("#" + t for t in view.tags)))
    if view.aliases:
        out.print("aliases: " + _escape(", ".join(view.aliases)))
    for key, value in view.frontmatter.items():
        if key not in ("tags", "aliases", "type"):
            out.print(f"[dim]{_escape(str(key))}:[/] {_escape(json.dumps(value, ensure_ascii=False))}")
    for problem in view.problems:
        out.print(f"[red]problem[/] {problem.code}: {_escape(problem.message)}")


def links(result) -> None:
    out = console()
    if not result.links:
        message(f"{result.note} has no outgoing links")
        return
    for link in result.links:
        where = link.target or f"[red]missing[/] ({_escape(link.link or '')})"
        extra = " embed" if link.embed else ""
        out.print(f"[dim]{link.line:>4}[/] {_escape(link.raw)} → {where if link.target is None else _escape(where)} [dim]{link.kind}{extra}[/]")


def created(vault, files: list[str]) -> None:
    console().print(f"created vault at {vault} ({len(files)} files)")


def text(body: str) -> None:
    sys.stdout.write(body if body.endswith("\n") else body + "\n")


def to_file_or_stdout(body: str, output) -> None:
    if output is None:
        text(body)
        return
    from .vault import write_atomic

    write_atomic(output, body.encode("utf-8"))
    message(f"wrote {output} ({len(body.encode('utf-8')):,} bytes)")


def paths(items: list[str], empty: str) -> None:
    if not items:
        if empty:
            message(empty)
        return
    text("\n".join(items))


def backlinks(result, unlinked: bool) -> None:
    out = console()
    if not result.backlinks:
        message(f"no notes link to {result.note}")
    for b in result.backlinks:
        out.print(f"[bold]{_escape(b.source)}[/]:{b.line}  {_escape(b.context)}")
    if unlinked:
        out.print(f"[dim]unlinked mentions: {len(result.unlinked)}[/]")
        for b in result.unlinked:
            out.print(f"{_escape(b.source)}:{b.line}  {_escape(b.context)}")


def neighbors(result) -> None:
    if not result.neighbors:
        message(f"{result.note} has no linked notes")
        return
    arrows = {"out": "→", "in": "←", "both": "↔"}
    text("\n".join(f"{n.distance} {arrows[n.direction]} {n.path}  (weight {n.weight})" for n in result.neighbors))


def graph_map(m) -> None:
    out = console()
    out.print(f"[bold]{m.notes}[/] notes, {m.links} links ({m.link_occurrences} occurrences), "
              f"{m.dangling} dangling targets ({m.dangling_occurrences} occurrences), {m.components} components, "
              f"{m.orphans} orphans, {m.isolated} isolated")
    out.print("by type:   " + ", ".join(f"{k} {v}" for k, v in m.by_type.items()))
    out.print("by folder: " + ", ".join(f"{_escape(k)} {v}" for k, v in list(m.by_folder.items())[:12]))
    out.print("hubs (links): " + ", ".join(f"{_escape(h.path)} {h.value:g}" for h in m.hubs_degree[:5]))
    out.print("hubs (PageRank): " + ", ".join(f"{_escape(h.path)} {h.value:.4f}" for h in m.hubs_pagerank[:5]))


def dangling(items) -> None:
    if not items:
        message("no dangling links")
        return
    text("\n".join(f"{d.target}  ×{d.count}  ← {', '.join(d.sources)}" for d in items))

"""A daily note's entries: the ``## HH:MM`` headings of ``memory/daily/YYYY-MM-DD.md``
and what stands under each, up to the next ``#``/``##`` heading.

Found with the real Markdown parser (``links.markdown()``), so a ``## 09:00`` inside
a code block is not an entry, and each entry carries the wikilink targets and tags
written in it. :func:`entries_plain` does the same line by line, without links or
tags, for a note too large to parse. One definition for ``digest``, ``timeline``
and ``context``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdmem.base.layout import nfc

_TIME = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)(?:\s+(.*))?$")
_ENTRY_LINE = re.compile(r"^##[ \t]+(([01]\d|2[0-3]):[0-5]\d)(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_BOUND_LINE = re.compile(r"^#{1,2}(?:[ \t]|$)")


@dataclass(frozen=True)
class Entry:
    time: str                 # HH:MM
    first: str                # the heading's text after the time, else the entry's first non-blank line
    text: str                 # the entry's lines under its heading
    links: tuple[str, ...]    # wikilink targets as written, one per target
    tags: tuple[str, ...]


def link_key(target: str) -> str:
    """Targets that differ only in case, normalisation or a ``.md`` suffix are one."""
    return nfc(target).casefold().removesuffix(".md")


def _first(heading_rest: str, lines: list[str]) -> str:
    if heading_rest.strip():
        return heading_rest
    return next((ln for ln in lines if ln.strip()), "")


def _unique(values: list[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for v in values:
        seen.setdefault(link_key(v), v)
    return tuple(seen.values())


def entries(body: str) -> tuple[Entry, ...]:
    """The ``## HH:MM`` entries of a daily note's body (frontmatter already split off)."""
    from mdmem.text.links import markdown, valid_tag

    env: dict = {"links": [], "tags": []}
    tokens = markdown().parse(body, env)
    lines = body.split("\n")
    bounds: list[int] = []
    starts: list[tuple[int, int, str, str]] = []  # heading line, first body line, time, rest
    tags_at: list[tuple[int, str]] = []
    line = 0
    for i, tok in enumerate(tokens):
        if tok.map:
            line = tok.map[0]
        if tok.type == "heading_open" and tok.level == 0 and tok.tag in ("h1", "h2") and tok.map:
            bounds.append(tok.map[0])
            m = _TIME.match(tokens[i + 1].content.strip()) if tok.tag == "h2" else None
            if m:
                starts.append((tok.map[0], tok.map[1], f"{m.group(1)}:{m.group(2)}", m.group(3) or ""))
        elif tok.type == "inline":
            for child in tok.children or ():
                if child.type == "tag":
                    name = valid_tag(child.content)
                    if name:
                        tags_at.append((line, name))
    links_at = [(ln, target) for _, target, _, _, _, kind, ln in env["links"] if kind == "wikilink" and target]
    out = []
    for head, first, time, rest in starts:
        end = next((b for b in bounds if b > head), len(lines))
        links = [v for ln, v in links_at if head <= ln < end]
        tags = [v for ln, v in tags_at if head <= ln < end]
        out.append(Entry(time, _first(rest, lines[first:end]), "\n".join(lines[first:end]).strip("\n"),
                         _unique(links), tuple(dict.fromkeys(tags))))
    return tuple(out)


def entries_plain(body: str) -> tuple[Entry, ...]:
    """For a note too large to parse: entries by line, without links or tags."""
    lines = body.split("\n")
    heads = [(i, m) for i, ln in enumerate(lines) if (m := _ENTRY_LINE.match(ln))]
    bounds = [i for i, ln in enumerate(lines) if _BOUND_LINE.match(ln)]
    out = []
    for i, m in heads:
        end = next((b for b in bounds if b > i), len(lines))
        out.append(Entry(m.group(1), _first(m.group(3) or "", lines[i + 1:end]),
                         "\n".join(lines[i + 1:end]).strip("\n"), (), ()))
    return tuple(out)

"""Graph browsing: backlinks (linked and unlinked), neighbours, the vault map,
orphans, dead ends, isolated notes, dangling links and paths between notes.

Functions over a :class:`~mdmem.engine.memory.Memory` that return dataclasses; the
graph itself is :mod:`mdmem.engine.graph`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdmem.base.errors import MdmemError
from mdmem.base.files import read_bytes
from mdmem.engine.graph import Dangling, Neighbor
from mdmem.engine.memory import Memory

CONTEXT_CHARS = 200
UNLINKED_CANDIDATES = 500
_LINKS = re.compile(r"!?\[\[[^\]\n]*\]\]|!?\[[^\]\n]*\]\([^)\n]*\)")


@dataclass(frozen=True)
class Backlink:
    source: str
    line: int
    context: str


@dataclass(frozen=True)
class BacklinksResult:
    note: str
    backlinks: list[Backlink]
    unlinked: list[Backlink]


@dataclass(frozen=True)
class NeighborsResult:
    note: str
    neighbors: list[Neighbor]


@dataclass(frozen=True)
class Ranked:
    path: str
    value: float


@dataclass(frozen=True)
class GraphMap:
    notes: int
    links: int  # note pairs linked (edges)
    link_occurrences: int
    dangling: int  # distinct missing targets
    dangling_occurrences: int
    components: int
    orphans: int
    isolated: int
    by_type: dict[str, int]
    by_folder: dict[str, int]
    hubs_degree: list[Ranked]
    hubs_pagerank: list[Ranked]


@dataclass(frozen=True)
class PathResult:
    source: str
    target: str
    path: list[str]
    directed: bool  # False: no chain follows link direction; this one ignores it


def _lines(mem: Memory, path: str) -> list[str]:
    try:
        text = read_bytes(mem.root, path).decode("utf-8", errors="replace")
    except OSError:
        return []
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _context(line: str, at: int = 0) -> str:
    """A line trimmed to about :data:`CONTEXT_CHARS` characters around ``at``."""
    line = line.strip()
    if len(line) <= CONTEXT_CHARS:
        return line
    start = max(0, min(at - CONTEXT_CHARS // 3, len(line) - CONTEXT_CHARS))
    return ("…" if start else "") + line[start : start + CONTEXT_CHARS].strip() + "…"


def backlinks(mem: Memory, ref: str, unlinked: bool = False) -> BacklinksResult:
    """Every note linking to NOTE, with the line and its text, as in Obsidian's
    backlinks pane; ``unlinked`` adds notes that mention NOTE's title or an
    alias in plain text (words separated by spaces, ``-`` or ``_`` alike) in their
    body (frontmatter lines, ``name:`` and ``aliases:`` included, are not mentions)."""
    path = mem.resolve_note(ref)
    graph = mem.graph()
    cache: dict[str, list[str]] = {}

    def line_of(source: str, number: int) -> str:
        lines = cache.setdefault(source, _lines(mem, source))
        return lines[number - 1] if 0 < number <= len(lines) else ""

    title = graph.g.nodes[path]["title"].lower()
    linked = []
    for source, number in graph.backlink_lines(path):
        text = line_of(source, number)
        spans = [m for m in _LINKS.finditer(text) if title in m.group().lower()] or list(_LINKS.finditer(text))
        linked.append(Backlink(source, number, _context(text, spans[0].start() if spans else 0)))
    mentions = _unlinked(mem, path, {b.source for b in linked}) if unlinked else []
    return BacklinksResult(path, linked, mentions)


def _unlinked(mem: Memory, path: str, linking: set[str]) -> list[Backlink]:
    note = mem.store.get(path)
    names = [n for n in {note.title, *note.aliases} if n.strip()] if note else []
    patterns = [
        re.compile(r"(?<!\w)" + r"[\s_-]+".join(map(re.escape, re.split(r"[\s_-]+", n.strip()))) + r"(?!\w)", re.I)
        for n in names
    ]
    candidates: set[str] = set()
    for name in names:
        words = " ".join(re.split(r"[\s_-]+", name.strip()))
        query = f'"{words}"' if " " in words else words
        hits = mem.search(query, limit=UNLINKED_CANDIDATES, mode="lexical").results  # exact names, never by meaning
        if not hits or len(hits) >= UNLINKED_CANDIDATES:
            # only stop words (nothing to search for) or too many to trust the cut: read every note
            candidates = set(mem.graph().notes())
            break
        candidates.update(hit.path for hit in hits)
    from mdmem.text.parse import split_frontmatter

    out = []
    for source in sorted(candidates - linking - {path}):
        lines = _lines(mem, source)
        head = split_frontmatter("\n".join(lines))[2]  # frontmatter lines are metadata, not mentions
        for number, line in enumerate(lines[head:], head + 1):
            plain = _LINKS.sub(lambda m: " " * len(m.group()), line)
            found = next((m for p in patterns if (m := p.search(plain))), None)
            if found:
                out.append(Backlink(source, number, _context(line, found.start())))
    return out


def neighbors(mem: Memory, ref: str, depth: int = 1, direction: str = "both", limit: int | None = None) -> NeighborsResult:
    path = mem.resolve_note(ref)
    return NeighborsResult(path, mem.graph().neighbors(path, depth, direction, limit))


def graph_map(mem: Memory, top: int = 10) -> GraphMap:
    graph = mem.graph()
    g = graph.g
    note_edges = [(s, t, w) for s, t, w in g.edges(data="weight")]
    dangling = graph.dangling()
    counts = graph.counts()
    hubs = graph.hubs(top)
    return GraphMap(
        notes=len(graph.notes()),
        links=sum(1 for s, t, _ in note_edges if graph.is_note(t)),
        link_occurrences=sum(w for s, t, w in note_edges if graph.is_note(t)),
        dangling=len(dangling),
        dangling_occurrences=sum(d.count for d in dangling),
        components=graph.components(),
        orphans=len(graph.orphans()),
        isolated=len(graph.isolated()),
        by_type=dict(sorted(counts["type"].items(), key=lambda kv: (-kv[1], kv[0]))),
        by_folder=dict(sorted(counts["folder"].items(), key=lambda kv: (-kv[1], kv[0]))),
        hubs_degree=[Ranked(p, v) for p, v in hubs["degree"]],
        hubs_pagerank=[Ranked(p, v) for p, v in hubs["pagerank"]],
    )


def orphans(mem: Memory) -> list[str]:
    return mem.graph().orphans()


def deadends(mem: Memory) -> list[str]:
    return mem.graph().deadends()


def isolated(mem: Memory) -> list[str]:
    return mem.graph().isolated()


def dangling(mem: Memory) -> list[Dangling]:
    return mem.graph().dangling()


def path_between(mem: Memory, a: str, b: str) -> PathResult:
    source, target = mem.resolve_note(a), mem.resolve_note(b)
    chain, directed = mem.graph().shortest_path(source, target)
    if not chain:
        raise MdmemError(f"no chain of links connects {source} and {target}")
    return PathResult(source, target, chain, directed)


def graph_data(mem: Memory, preview_chars: int = 400) -> dict:
    """The whole graph as the data of the HTML page (``graph_html.render_html``):
    nodes with title, type, folder, tags, a text preview and orphan flag;
    edges with weight and embed; Obsidian's colour groups when the vault has them; the vault's
    name (its folder's, as Obsidian names a vault) for the page's obsidian:// links."""
    from mdmem.ops.graph_page import obsidian_color_groups
    from mdmem.text.parse import snippet_text

    graph = mem.graph()
    g = graph.g
    nodes = []
    for node, data in sorted(g.nodes(data=True)):
        if data.get("kind") == "note":
            note = mem.store.get(node)
            description = str(note.frontmatter.get("description", "")).strip() if note else ""
            try:
                body = " ".join(snippet_text(read_bytes(mem.root, node), preview_chars * 2).split())
            except OSError:
                body = ""
            preview = (description + " — " + body if description else body)[:preview_chars]
            nodes.append({
                "id": node, "title": data["title"], "type": data["type"], "folder": data["folder"],
                "tags": list(data["tags"]), "kind": "note", "preview": preview,
                "orphan": g.in_degree(node) == 0, "x": None, "y": None,
            })
        else:
            nodes.append({
                "id": node, "title": data["title"], "type": "dangling", "folder": "", "tags": [],
                "kind": "dangling", "preview": "", "orphan": False, "x": None, "y": None,
            })
    edges = [
        {"source": s, "target": t, "weight": d["weight"], "embed": d["embed"]}
        for s, t, d in sorted(g.edges(data=True))
    ]
    return {"title": mem.root.name, "vault": mem.root.name, "nodes": nodes, "edges": edges,
            "groups": obsidian_color_groups(mem.root)}

"""The link graph: the only importer of networkx.

One node per note (``kind="note"``: title, type, tags, folder) and one per
missing link target (``kind="dangling"``, id ``"?" + target``). An edge
``source -> target`` carries ``weight`` (occurrences), ``embed`` (any
occurrence is an embed), ``kinds`` (wikilink, markdown, frontmatter) and
``lines``. A note's links to itself (``[[#Heading]]``) and links to existing
non-note files (images, PDFs) are not edges.

The graph is derived from the notes cache, never by reading files, and kept in
``.mdmem/graph.json`` (data, never a pickle: :meth:`LinkGraph.to_data`). :meth:`LinkGraph.update` applies only what changed:
a changed note's own edges are redone; a note or file that appeared or went
away also re-resolves the notes whose links name it (Obsidian resolves by file
name, so only those can change), found through a name index.
"""

from __future__ import annotations

import posixpath
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import networkx as nx

from mdmem.base.layout import is_index_note, nfc
from mdmem.base.models import Note
from mdmem.text.resolve import Resolver, name_key


def dangling_id(target: str) -> str:
    """One node per missing note, whatever the spelling: ``[[Foo]]``, ``[[foo.md]]``."""
    key = nfc(target.strip()).lower()
    return "?" + (key[:-3] if key.endswith(".md") else key)


@dataclass(frozen=True)
class Neighbor:
    path: str
    distance: int
    direction: str  # "out", "in" or "both", as first reached
    weight: int


@dataclass(frozen=True)
class Dangling:
    target: str
    count: int
    sources: list[str]


class LinkGraph:
    """A ``networkx.DiGraph`` plus the name index that makes updates local."""

    def __init__(self) -> None:
        self.g = nx.DiGraph()
        self.names: dict[str, set[str]] = {}  # name_key -> notes with a link of that name
        self.files: frozenset[str] = frozenset()  # non-note files the links were resolved against
        self._pagerank: dict[str, float] | None = None

    # the cache file ---------------------------------------------------------
    def to_data(self) -> dict:
        """Plain JSON data: node and edge attributes are strings, numbers, booleans and lists."""
        return {"files": sorted(self.files),
                "nodes": [[n, a] for n, a in self.g.nodes(data=True)],
                "edges": [[u, v, a] for u, v, a in self.g.edges(data=True)]}

    @classmethod
    def from_data(cls, data: dict) -> LinkGraph:
        """The inverse of :meth:`to_data`; the name index is rebuilt from the nodes' ``names``."""
        graph = cls()
        graph.files = frozenset(data["files"])
        graph.g.add_nodes_from((n, a) for n, a in data["nodes"])
        graph.g.add_edges_from((u, v, a) for u, v, a in data["edges"])
        for node, keys in graph.g.nodes(data="names"):
            for key in keys or ():
                graph.names.setdefault(key, set()).add(node)
        return graph

    # building --------------------------------------------------------------
    @classmethod
    def build(cls, notes: Iterable[Note], resolver: Resolver, files: Iterable[str]) -> LinkGraph:
        graph = cls()
        graph.files = frozenset(files)
        notes = list(notes)
        for note in notes:
            graph._add_node(note)
        for note in notes:
            graph._link(note, resolver)
        return graph

    def _add_node(self, note: Note) -> None:
        folder = posixpath.dirname(note.path)
        self.g.add_node(
            note.path, kind="note", title=note.title, type=note.type, tags=list(note.tags), folder=folder,
            index=is_index_note(note.path, note.frontmatter),
        )

    def _link(self, note: Note, resolver: Resolver) -> None:
        """(Re)draw ``note``'s outgoing edges and its entries in the name index."""
        source = note.path
        for old in list(self.g.successors(source)):
            self.g.remove_edge(source, old)
            self._unlinked(old)
        for key in self.g.nodes[source].get("names", ()):
            self.names.get(key, set()).discard(source)
        edges: dict[str, dict] = {}
        spelled: dict[str, str] = {}
        names = set()
        for link in note.links:
            if not link.target:
                continue  # [[#Heading]]: its own note
            key = name_key(link.target)
            names.add(key)
            target = resolver.resolve(link.target, source)
            if target == source:
                continue
            if target is None:
                target = dangling_id(link.target)
                while target in self.g and self.g.nodes[target].get("kind") == "note":
                    target += "?"  # a note really named like that: keep them apart
                spelled.setdefault(target, link.target.strip())
            elif target not in self.g or self.g.nodes[target].get("kind") != "note":
                continue  # an existing attachment: not part of the note graph
            edge = edges.setdefault(target, {"weight": 0, "embed": False, "kinds": set(), "lines": []})
            edge["weight"] += 1
            edge["embed"] |= link.embed
            edge["kinds"].add(link.kind)
            edge["lines"].append(link.line)
        for target, edge in edges.items():
            if target not in self.g:
                self.g.add_node(target, kind="dangling", title=spelled[target])
            extra = {"spelled": spelled[target]} if target in spelled else {}
            self.g.add_edge(source, target, weight=edge["weight"], embed=edge["embed"],
                            kinds=sorted(edge["kinds"]), lines=sorted(edge["lines"]), **extra)
            if target in spelled:
                self._unlinked(target)
        self.g.nodes[source]["names"] = sorted(names)
        for key in names:
            self.names.setdefault(key, set()).add(source)

    def _unlinked(self, node: str) -> None:
        """After a dangling node's incoming links changed: drop it when none is
        left, else spell it as its first linking note (by path) does, so the
        name does not depend on the order of edits."""
        if node not in self.g or self.g.nodes[node].get("kind") != "dangling":
            return
        sources = list(self.g.predecessors(node))
        if not sources:
            self.g.remove_node(node)
        else:
            self.g.nodes[node]["title"] = self.g.edges[min(sources), node]["spelled"]

    def update(
        self,
        changed: dict[str, Note | None],
        note_of: Callable[[str], Note | None],
        resolver: Resolver,
        files: Iterable[str],
    ) -> None:
        """Apply changed notes (``None`` = removed) and the current set of non-note files."""
        self._pagerank = None
        files = frozenset(files)
        appeared = {p for p, n in changed.items() if n is not None and p not in self.g}
        vanished = {p for p, n in changed.items() if n is None and p in self.g}
        moved_files = files ^ self.files
        self.files = files
        touched = {name_key(p) for p in (*appeared, *vanished, *moved_files)}
        for path in vanished:
            for key in self.g.nodes[path].get("names", ()):
                self.names.get(key, set()).discard(path)
            for target in list(self.g.successors(path)):
                self.g.remove_edge(path, target)
                self._unlinked(target)
            self.g.remove_node(path)
        for path, note in changed.items():
            if note is not None:
                if path in self.g:
                    self.g.nodes[path].update(
                        title=note.title, type=note.type, tags=list(note.tags), folder=posixpath.dirname(path),
                        index=is_index_note(note.path, note.frontmatter),
                    )
                else:
                    self._add_node(note)
        redo = {p for p, n in changed.items() if n is not None}
        for key in touched:
            redo |= self.names.get(key, set())
        for path in sorted(redo):
            note = changed.get(path) or note_of(path)
            if note is not None and path in self.g:
                self._link(note, resolver)

    # reading ---------------------------------------------------------------
    def is_note(self, node: str) -> bool:
        return self.g.nodes[node].get("kind") == "note"

    def notes(self) -> list[str]:
        return sorted(n for n, kind in self.g.nodes(data="kind") if kind == "note")

    def backlink_lines(self, path: str) -> list[tuple[str, int]]:
        """(source, line) for every link occurrence pointing at ``path``."""
        out: list[tuple[str, int]] = []
        for source in self.g.predecessors(path):
            out.extend((source, line) for line in self.g.edges[source, path]["lines"])
        return sorted(out)

    def is_index(self, node: str) -> bool:
        return bool(self.g.nodes[node].get("index"))

    def neighbors(self, path: str, depth: int = 1, direction: str = "both", limit: int | None = None,
                  through_index: bool = False) -> list[Neighbor]:
        """Breadth-first over notes, nearest first, then by link weight. Index notes (MEMORY.md,
        ``index: true``) relate nothing: they are neither listed nor walked through (unless
        ``through_index``); asked about itself, an index still lists what it links."""
        g = self.g
        seen = {path}
        found: list[Neighbor] = []
        frontier = deque([(path, 0)])
        while frontier:
            node, dist = frontier.popleft()
            if dist >= depth:
                continue
            steps: dict[str, list] = {}
            if direction in ("out", "both"):
                for nxt in g.successors(node):
                    steps.setdefault(nxt, [set(), 0])
                    steps[nxt][0].add("out")
                    steps[nxt][1] += g.edges[node, nxt]["weight"]
            if direction in ("in", "both"):
                for nxt in g.predecessors(node):
                    steps.setdefault(nxt, [set(), 0])
                    steps[nxt][0].add("in")
                    steps[nxt][1] += g.edges[nxt, node]["weight"]
            for nxt, (ways, weight) in sorted(steps.items()):
                if nxt in seen or not self.is_note(nxt) or (not through_index and self.is_index(nxt)):
                    continue
                seen.add(nxt)
                found.append(Neighbor(nxt, dist + 1, "both" if len(ways) == 2 else ways.pop(), weight))
                frontier.append((nxt, dist + 1))
        found.sort(key=lambda n: (n.distance, -n.weight, n.path))
        return found[:limit] if limit else found

    def orphans(self) -> list[str]:
        """Notes no other note links to."""
        return [n for n in self.notes() if self.g.in_degree(n) == 0]

    def deadends(self) -> list[str]:
        """Notes with no outgoing links (dangling ones count as links)."""
        return [n for n in self.notes() if self.g.out_degree(n) == 0]

    def isolated(self) -> list[str]:
        return [n for n in self.notes() if self.g.degree(n) == 0]

    def dangling(self) -> list[Dangling]:
        out = []
        for node, kind in self.g.nodes(data="kind"):
            if kind == "dangling":
                sources = sorted(self.g.predecessors(node))
                count = sum(self.g.edges[s, node]["weight"] for s in sources)
                out.append(Dangling(self.g.nodes[node]["title"], count, sources))
        out.sort(key=lambda d: (-d.count, d.target.lower()))
        return out

    def shortest_path(self, a: str, b: str) -> tuple[list[str], bool]:
        """The shortest chain of links from ``a`` to ``b`` following link
        direction; if there is none, ignoring direction. -> (path, directed)."""
        notes = self.g.subgraph(self.notes())  # never through a missing note
        for view, directed in ((notes, True), (notes.to_undirected(as_view=True), False)):
            try:
                return nx.shortest_path(view, a, b), directed
            except nx.NetworkXNoPath:
                continue
        return [], False

    def components(self) -> int:
        notes = self.g.subgraph(self.notes())
        return nx.number_weakly_connected_components(notes) if len(notes) else 0

    def pagerank(self, damping: float = 0.85, tol: float = 1e-6, rounds: int = 100) -> dict[str, float]:
        """PageRank over notes by power iteration on index lists (no numpy or
        scipy needed); stops like networkx's when the change is under n x tol."""
        if self._pagerank is not None:
            return self._pagerank
        nodes = self.notes()
        n = len(nodes)
        if not n:
            return {}
        index = {node: i for i, node in enumerate(nodes)}
        out = [
            [(index[t], w) for _, t, w in self.g.out_edges(node, data="weight") if t in index] for node in nodes
        ]
        total = [sum(w for _, w in edges) for edges in out]
        sinks = [i for i in range(n) if not total[i]]
        rank = [1.0 / n] * n
        for _ in range(rounds):
            start = (1.0 - damping) / n + damping * sum(rank[i] for i in sinks) / n
            new = [start] * n
            for i, edges in enumerate(out):
                if edges:
                    share = damping * rank[i] / total[i]
                    for j, w in edges:
                        new[j] += share * w
            done = sum(abs(a - b) for a, b in zip(new, rank)) < n * tol
            rank = new
            if done:
                break
        self._pagerank = dict(zip(nodes, rank))
        return self._pagerank

    def hubs(self, top: int = 10) -> dict[str, list[tuple[str, float]]]:
        degree = sorted(
            ((n, self.g.in_degree(n) + self.g.out_degree(n)) for n in self.notes()), key=lambda x: (-x[1], x[0])
        )
        rank = sorted(self.pagerank().items(), key=lambda x: (-x[1], x[0]))
        return {"degree": degree[:top], "pagerank": [(n, round(r, 6)) for n, r in rank[:top]]}

    def counts(self) -> dict[str, Counter]:
        notes = self.notes()
        return {
            "type": Counter(self.g.nodes[n]["type"] for n in notes),
            "folder": Counter(self.g.nodes[n]["folder"] or "." for n in notes),
        }

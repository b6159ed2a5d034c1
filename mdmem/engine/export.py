"""The link graph in other formats: JSON, GraphML, GEXF (via networkx), DOT and
Mermaid (written here; networkx's DOT writer needs pydot).

Node attributes: path, title, type, tags, folder (and kind: note or
dangling); edge attributes: weight, embed, kinds. List values become
comma-separated strings in GraphML and GEXF, which only hold scalars.

XML 1.0 cannot hold most control characters at all (not even escaped), so in
GraphML and GEXF a name holding one (a file named with ``ESC`` or ``BEL``) has
it written out visibly (``\\x1b``, :func:`mdmem.base.terminal.visible`); DOT and
Mermaid labels do the same. JSON keeps every name exact.
"""

from __future__ import annotations

import json
import re

import networkx as nx

from mdmem.base.terminal import json_safe, visible
from mdmem.engine.graph import LinkGraph

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # what XML 1.0 forbids (surrogates cannot occur)


def _xml(value: object) -> object:
    """A value XML 1.0 can hold: forbidden characters written out visibly."""
    if isinstance(value, str) and _NOT_XML.search(value):
        return _NOT_XML.sub(lambda m: visible(m.group(), newlines=False) if m.group() < "\x20"
                            else f"\\u{ord(m.group()):04x}", value)
    return value

FORMATS = ("json", "graphml", "gexf", "dot", "mermaid")


def _nodes(graph: LinkGraph) -> Iterator[tuple[str, dict[str, Any]]]:
    for node, data in sorted(graph.g.nodes(data=True)):
        yield node, {
            "path": node if data.get("kind") == "note" else "",
            "title": data.get("title", ""),
            "type": data.get("type", ""),
            "tags": list(data.get("tags", [])),
            "folder": data.get("folder", ""),
            "kind": data.get("kind", "note"),
        }


def _edges(graph: LinkGraph) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for source, target, data in sorted(graph.g.edges(data=True)):
        yield source, target, {"weight": data["weight"], "embed": data["embed"], "kinds": list(data["kinds"])}


def export(graph: LinkGraph, fmt: str) -> str:
    if fmt == "json":
        return json_safe(json.dumps({
            "nodes": [{"id": n, **attrs} for n, attrs in _nodes(graph)],
            "edges": [{"source": s, "target": t, **attrs} for s, t, attrs in _edges(graph)],
        }, ensure_ascii=False, indent=1))
    if fmt in ("graphml", "gexf"):
        flat = nx.DiGraph()
        for node, attrs in _nodes(graph):
            flat.add_node(_xml(node), **{k: _xml(",".join(v) if isinstance(v, list) else v) for k, v in attrs.items()})
        for s, t, attrs in _edges(graph):
            flat.add_edge(_xml(s), _xml(t), **{k: _xml(",".join(v) if isinstance(v, list) else v)
                                               for k, v in attrs.items()})
        lines = nx.generate_graphml(flat) if fmt == "graphml" else nx.generate_gexf(flat)
        return "\n".join(lines) + "\n"
    if fmt == "dot":
        return _dot(graph)
    if fmt == "mermaid":
        return _mermaid(graph)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def _dot_quote(text: str) -> str:
    text = visible(text.replace("\n", " "), newlines=False)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dot(graph: LinkGraph) -> str:
    out = ["digraph vault {", "  node [shape=box];"]
    for node, attrs in _nodes(graph):
        style = ", style=dashed" if attrs["kind"] == "dangling" else ""
        out.append(f"  {_dot_quote(node)} [label={_dot_quote(attrs['title'])}, type={_dot_quote(attrs['type'])}{style}];")
    for s, t, attrs in _edges(graph):
        embed = ", style=bold" if attrs["embed"] else ""
        out.append(f"  {_dot_quote(s)} -> {_dot_quote(t)} [weight={attrs['weight']}{embed}];")
    out.append("}")
    return "\n".join(out) + "\n"


def _mermaid_label(text: str) -> str:
    text = visible(text, newlines=False)
    return '"' + "".join("#quot;" if c == '"' else f"#{ord(c)};" if c in "<>#&" else c for c in text) + '"'


def _mermaid(graph: LinkGraph) -> str:
    ids = {}
    out = ["graph LR"]
    for i, (node, attrs) in enumerate(_nodes(graph)):
        ids[node] = f"n{i}"
        shape = ("((", "))") if attrs["kind"] == "dangling" else ("[", "]")
        out.append(f"  n{i}{shape[0]}{_mermaid_label(attrs['title'])}{shape[1]}")
    for s, t, attrs in _edges(graph):
        arrow = "==>" if attrs["embed"] else "-->"
        out.append(f"  {ids[s]} {arrow} {ids[t]}")
    return "\n".join(out) + "\n"

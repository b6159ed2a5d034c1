"""The `mdmem graph html` page: one self-contained HTML file that explores the vault graph offline.

Pure: a data dict in, a string out. The JavaScript (sigma.js + graphology + ForceAtlas2, vendored from the
npm registry by `scripts/build_graph_js.sh`) and the page's own code live in `mdmem/assets/` and are
inlined, so the page needs no network. Every string in the data comes from users' notes and is untrusted:
it travels as JSON inside `<script type="application/json">` (with `<`, `>`, `&`, U+2028 and U+2029
escaped) and the page only ever puts it into the DOM with `textContent`. A Content-Security-Policy that
allows only the page's own inline scripts (by hash) and blob: workers backs this up.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import re
from importlib import resources
from pathlib import Path
from typing import Any

ASSET_FILES = ("graph.bundle.js", "graph_app.js", "graph.css")
PREVIEW_CHARS = 1200

_HEX_COLOR = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_JSON_ESCAPE_RE = re.compile("[<>&\u2028\u2029]")


def _asset(name: str) -> str:
    return resources.files("mdmem").joinpath("assets", name).read_text(encoding="utf-8")


def _str(value: Any, default: str = "") -> str:
    if value is None:
        return default
    return value if isinstance(value, str) else str(value)


def _coord(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _color(value: Any) -> str | None:
    """A CSS hex colour from a '#rrggbb' string or Obsidian's {"a": 1, "rgb": 14701138}; None if invalid."""
    if isinstance(value, str):
        value = value.strip()
        return value.lower() if _HEX_COLOR.match(value) else None
    if isinstance(value, dict):
        rgb = value.get("rgb")
        if isinstance(rgb, int) and not isinstance(rgb, bool) and 0 <= rgb <= 0xFFFFFF:
            return f"#{rgb:06x}"
    return None


def _clean(data: dict) -> dict:
    """The data dict in the compact shape the page reads (untrusted strings stay strings).

    Nodes keep their keys but drop default values (no tags, no preview, not an orphan, no position);
    edges become [source index, target index, weight, embed 0/1], which keeps a 10k-note page small.
    Duplicate node ids keep the first; edges to unknown ids are dropped. The page is made to be shared: every
    string a note gives it (path, title, tags, preview) has its secrets redacted (:func:`mdmem.text.secrets.redact`).
    """
    from mdmem.text.secrets import redact

    nodes: list[dict] = []
    index: dict[str, int] = {}
    for n in data.get("nodes") or ():
        if not isinstance(n, dict) or n.get("id") is None or _str(n["id"]) in index:
            continue
        node_id = _str(n["id"])
        tags = n.get("tags") or []
        if isinstance(tags, str):
            tags = [tags]
        shown_id = redact(node_id)
        if shown_id != node_id:  # kept apart from any other node's id
            shown_id = f"{shown_id}#{len(nodes)}"
        node: dict[str, object] = {"id": shown_id, "title": redact(_str(n.get("title"), node_id) or node_id)}
        for key in ("type", "folder"):
            if n.get(key):
                node[key] = redact(_str(n[key]))
        if tags:
            node["tags"] = [redact(_str(t)) for t in tags if t is not None]
        if n.get("kind") == "dangling":
            node["kind"] = "dangling"
        if n.get("preview"):
            node["preview"] = redact(_str(n["preview"]))[:PREVIEW_CHARS]
        if n.get("orphan"):
            node["orphan"] = True
        x, y = _coord(n.get("x")), _coord(n.get("y"))
        if x is not None and y is not None:
            node["x"], node["y"] = x, y
        index[node_id] = len(nodes)
        nodes.append(node)
    edges = []
    for e in data.get("edges") or ():
        if not isinstance(e, dict):
            continue
        source, target = index.get(_str(e.get("source"))), index.get(_str(e.get("target")))
        if source is None or target is None:
            continue
        weight = e.get("weight", 1)
        weight = int(weight) if isinstance(weight, (int, float)) and math.isfinite(weight) else 1
        edges.append([source, target, max(1, weight), 1 if e.get("embed") else 0])
    groups = []
    for g in data.get("groups") or ():
        if isinstance(g, dict) and isinstance(g.get("query"), str) and g["query"].strip():
            color = _color(g.get("color"))
            if color:
                groups.append({"query": g["query"].strip(), "color": color})
    clean = {"title": _str(data.get("title"), "vault"), "nodes": nodes, "edges": edges, "groups": groups}
    if isinstance(data.get("vault"), str) and data["vault"]:
        clean["vault"] = data["vault"]  # the Obsidian vault's name: each note links to obsidian://open
    return clean


def _json_for_script(obj: Any) -> str:
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _JSON_ESCAPE_RE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


def _script_safe(js: str) -> str:
    # A literal "</script" (or "<!--") inside inlined code would end the element early.
    return re.sub(r"<(/script|!--)", r"\\x3c\1", js, flags=re.IGNORECASE)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def render_html(data: dict) -> str:
    """One self-contained HTML page showing the graph in `data`; works offline from file://."""
    clean = _clean(data)
    bundle = _script_safe(_asset("graph.bundle.js"))
    app = _script_safe(_asset("graph_app.js"))
    css = _asset("graph.css").replace("</", "<\\/")
    payload = _json_for_script(clean)
    csp = "; ".join([
        "default-src 'none'",
        f"script-src {_sha256(bundle)} {_sha256(app)}",
        "worker-src blob:",
        "style-src 'unsafe-inline'",
        "img-src data: blob:",
        "connect-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ])
    title = html.escape(clean["title"], quote=True)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{html.escape(csp, quote=True)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mdmem">
<title>{title} · mdmem graph</title>
<style>{css}</style>
</head>
<body>
<header id="bar">
  <h1 id="vault-title">{title}</h1>
  <div id="search-box">
    <input id="search" type="search" placeholder="Search notes…" autocomplete="off" spellcheck="false"
      aria-label="Search notes" aria-controls="results">
    <ul id="results" role="listbox" hidden></ul>
  </div>
  <label>Colour <select id="color-by" aria-label="Colour by">
    <option value="groups">Colour groups</option>
    <option value="type">Type</option>
    <option value="folder">Folder</option>
    <option value="tag">Tag</option>
  </select></label>
  <label title="Notes that links point to but that do not exist yet">
    <input type="checkbox" id="show-dangling" checked> Dangling</label>
  <label title="Notes that no other note links to"><input type="checkbox" id="show-orphans" checked> Orphans</label>
  <label title="Only the selected note and its neighbourhood"><input type="checkbox" id="local-mode"> Local graph</label>
  <label>Depth <select id="depth" aria-label="Local graph depth">
    <option value="1">1</option><option value="2">2</option><option value="3">3</option>
  </select></label>
  <button id="layout-toggle" type="button">Run layout</button>
  <button id="fit" type="button">Fit</button>
  <span id="stats"></span>
</header>
<main>
  <div id="graph"></div>
  <div id="legend"></div>
  <div id="message" hidden></div>
  <aside id="panel" hidden>
    <button id="panel-close" type="button" aria-label="Close">×</button>
    <h2 id="panel-title"></h2>
    <div id="panel-path"></div>
    <a id="panel-open" hidden>Open in Obsidian</a>
    <dl>
      <dt>Type</dt><dd id="panel-type"></dd>
      <dt>Folder</dt><dd id="panel-folder"></dd>
      <dt>Tags</dt><dd id="panel-tags"></dd>
    </dl>
    <div id="panel-preview"></div>
    <h3>Backlinks <span class="count" id="panel-backlinks-count"></span></h3>
    <ul id="panel-backlinks" class="links"></ul>
    <h3>Links <span class="count" id="panel-links-count"></span></h3>
    <ul id="panel-links" class="links"></ul>
  </aside>
</main>
<script type="application/json" id="mdmem-data">{payload}</script>
<script>{bundle}</script>
<script>{app}</script>
</body>
</html>
"""


def obsidian_color_groups(vault: Path) -> list[dict]:
    """The colour groups of `<vault>/.obsidian/graph.json` as [{"query", "color": "#rrggbb"}]; [] if none."""
    path = Path(vault) / ".obsidian" / "graph.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    groups = raw.get("colorGroups") if isinstance(raw, dict) else None
    if not isinstance(groups, list):
        return []
    out = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("query"), str):
            continue
        query, color = group["query"].strip(), _color(group.get("color"))
        if query and color:
            out.append({"query": query, "color": color})
    return out

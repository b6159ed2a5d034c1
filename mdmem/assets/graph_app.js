/* mdmem graph page (plain source, inlined by mdmem/graph_html.py after graph.bundle.js).
 *
 * The data comes from users' notes and is untrusted: it is read from the JSON script element
 * with JSON.parse and only ever reaches the DOM through textContent (or canvas text drawn by sigma).
 * Tests read window.mdmemGraph and <body data-ready / data-node-count / data-visible-count>.
 */
(function () {
  "use strict";

  var PALETTE = ["#e5a13c", "#4fb3d9", "#7ed27a", "#e06c75", "#c678dd", "#56c8b8", "#d19a66", "#8fa4f7",
    "#e5c07b", "#f38ba8", "#a3d977", "#5fd7ff"];
  var TYPE_COLORS = { person: "#e5a13c", project: "#4fb3d9", protocol: "#e06c75", daily: "#7ed27a",
    decision: "#c678dd", reference: "#56c8b8", feedback: "#d19a66", user: "#f38ba8" };
  var DEFAULT_COLOR = "#a0a4ab", OTHER_COLOR = "#7a7f87", DANGLING_COLOR = "#5b5f66";
  var DIM_NODE = "#2e2e2e", EDGE_COLOR = "#4b4b4b", DIM_EDGE = "#2a2a2a", FOCUS_EDGE = "#8a7cf0";
  var HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
  var MAX_RESULTS = 50, MAX_LIST = 500;

  var body = document.body;
  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fail(code, text) {
    var m = $("message");
    m.textContent = text;
    m.hidden = false;
    body.setAttribute("data-error", code);
  }

  var lib = window.MdmemGraphLib;
  if (!lib) return fail("bundle", "The graph library did not load.");
  var data;
  try {
    data = JSON.parse($("mdmem-data").textContent);
  } catch (e) {
    return fail("data", "The graph data could not be read.");
  }

  /* ---------------------------------------------------------------- graph */
  var graph = new lib.Graph({ type: "directed", multi: false, allowSelfLoops: false });
  var meta = new Map(); // id -> node record from the data, plus lower-cased fields
  var rand = mulberry32(0x6d646d);
  var missingXY = 0, nodeList = data.nodes || [];
  var spread = Math.sqrt(Math.max(nodeList.length, 1)) * 10;

  // Nodes drop default values (see graph_html._clean); edges are [source index, target index, weight, embed].
  nodeList.forEach(function (n) {
    if (typeof n.id !== "string" || meta.has(n.id)) return;
    n.title = typeof n.title === "string" && n.title ? n.title : n.id;
    n.type = typeof n.type === "string" ? n.type : "";
    n.folder = typeof n.folder === "string" ? n.folder : "";
    n.preview = typeof n.preview === "string" ? n.preview : "";
    n.tags = Array.isArray(n.tags) ? n.tags.map(String) : [];
    n.orphan = n.orphan === true;
    n.dangling = n.kind === "dangling";
    n.titleLower = n.title.toLowerCase();
    n.idLower = n.id.toLowerCase();
    n.baseLower = n.idLower.slice(n.idLower.lastIndexOf("/") + 1);
    n.tagsLower = n.tags.map(function (t) { return t.replace(/^#/, "").toLowerCase(); });
    meta.set(n.id, n);
    var x = n.x, y = n.y;
    if (typeof x !== "number" || typeof y !== "number" || !isFinite(x) || !isFinite(y)) {
      missingXY++;
      var r = spread * Math.sqrt(rand()), a = 2 * Math.PI * rand();
      x = r * Math.cos(a);
      y = r * Math.sin(a);
    }
    graph.addNode(n.id, { label: n.title, x: x, y: y, size: 1, color: DEFAULT_COLOR });
  });

  (data.edges || []).forEach(function (e) {
    var s = nodeList[e[0]], t = nodeList[e[1]];
    if (!s || !t || s.id === t.id || !graph.hasNode(s.id) || !graph.hasNode(t.id)) return;
    var w = typeof e[2] === "number" && e[2] > 0 ? e[2] : 1;
    var key = graph.edge(s.id, t.id);
    if (key !== undefined) graph.updateEdgeAttribute(key, "weight", function (old) { return old + w; });
    else graph.addEdge(s.id, t.id, { weight: w, embed: e[3] === 1 });
  });

  var big = graph.order > 2000;
  var nodeBase = graph.order > 5000 ? 1.5 : big ? 2 : 4, nodeScale = big ? 1 : 1.6, nodeMax = big ? 14 : 22;
  graph.updateEachNodeAttributes(function (id, attr) {
    attr.size = Math.min(nodeMax, nodeBase + nodeScale * Math.sqrt(graph.degree(id)));
    return attr;
  }, { attributes: ["size"] });
  var edgeBase = graph.size > 20000 ? 0.4 : 0.8;
  graph.updateEachEdgeAttributes(function (key, attr) {
    attr.size = Math.min(4, edgeBase * (1 + Math.log2(attr.weight)));
    attr.color = EDGE_COLOR;
    return attr;
  }, { attributes: ["size", "color"] });

  var groups = (data.groups || []).filter(function (g) {
    return g && typeof g.query === "string" && typeof g.color === "string" && HEX.test(g.color);
  });

  /* ---------------------------------------------------------------- state */
  var state = {
    selected: null, hovered: null, search: null, // search: Set of matching ids while the box has a query
    local: false, depth: 1, showDangling: true, showOrphans: true,
    colorBy: groups.length ? "groups" : defaultColoring()
  };
  function defaultColoring() { // Obsidian's colour groups if any, else type, unless nearly all notes share one
    var types = new Map(), notes = 0, most = 0;
    meta.forEach(function (n) {
      if (n.dangling) return;
      notes++;
      types.set(n.type, (types.get(n.type) || 0) + 1);
      most = Math.max(most, types.get(n.type));
    });
    return most > 0.9 * notes ? "folder" : "type";
  }
  var localSet = null, focusSet = null, focusEdges = null, colors = new Map();

  function passesFilters(n) {
    return (state.showDangling || !n.dangling) && (state.showOrphans || !n.orphan);
  }
  function isVisible(id) {
    if (id === state.selected) return true;
    var n = meta.get(id);
    if (localSet) return localSet.has(id);
    return passesFilters(n);
  }
  function neighbourhood(start, depth) {
    var seen = new Set([start]), frontier = [start];
    for (var d = 0; d < depth && frontier.length; d++) {
      var next = [];
      frontier.forEach(function (id) {
        graph.forEachNeighbor(id, function (nb) {
          if (seen.has(nb) || (!state.showDangling && meta.get(nb).dangling)) return;
          seen.add(nb);
          next.push(nb);
        });
      });
      frontier = next;
    }
    return seen;
  }
  function updateLocal() {
    localSet = state.local && state.selected ? neighbourhood(state.selected, state.depth) : null;
  }
  function updateFocus() {
    var focus = state.hovered || state.selected;
    if (!focus) { focusSet = focusEdges = null; return; }
    focusSet = new Set([focus]);
    focusEdges = new Set();
    graph.forEachNeighbor(focus, function (nb) { focusSet.add(nb); });
    graph.forEachEdge(focus, function (edge) { focusEdges.add(edge); });
  }

  /* --------------------------------------------------------------- colours */
  function compileQuery(query) {
    // Obsidian-like: "tag:#x", "path:folder", "file:name", quoted values, -negation, OR; plain text vs titles.
    var alternatives = query.split(/\s+OR\s+/).map(function (alt) {
      var tokens = alt.replace(/[()]/g, " ").match(/-?(?:[A-Za-z-]+:)?(?:"[^"]*"|\S+)/g) || [];
      return tokens.map(function (tok) {
        var neg = tok.length > 1 && tok.charAt(0) === "-";
        if (neg) tok = tok.slice(1);
        var m = /^([A-Za-z-]+):(.*)$/.exec(tok), op = m ? m[1].toLowerCase() : "", val = m ? m[2] : tok;
        val = val.replace(/^"|"$/g, "").toLowerCase();
        var test;
        if (!val) test = function () { return true; };
        else if (op === "tag") {
          val = val.replace(/^#/, "");
          test = function (n) {
            return n.tagsLower.some(function (t) { return t === val || t.indexOf(val + "/") === 0; });
          };
        } else if (op === "path") test = function (n) { return n.idLower.indexOf(val) >= 0; };
        else if (op === "file") test = function (n) { return n.baseLower.indexOf(val) >= 0; };
        else {
          if (m && ["line", "content", "section", "block"].indexOf(op) < 0) val = tok.toLowerCase();
          test = function (n) { return n.titleLower.indexOf(val) >= 0; };
        }
        return neg ? function (n) { return !test(n); } : test;
      });
    });
    return function (n) {
      return alternatives.some(function (terms) {
        return terms.length > 0 && terms.every(function (t) { return t(n); });
      });
    };
  }

  function computeColors() {
    colors = new Map();
    var legend = [], dangling = 0;
    meta.forEach(function (n, id) { if (n.dangling) { colors.set(id, DANGLING_COLOR); dangling++; } });
    if (state.colorBy === "groups") {
      var matchers = groups.map(function (g) { return { g: g, test: compileQuery(g.query), n: 0 }; });
      var rest = 0;
      meta.forEach(function (n, id) {
        if (n.dangling) return;
        for (var i = 0; i < matchers.length; i++) {
          if (matchers[i].test(n)) { colors.set(id, matchers[i].g.color); matchers[i].n++; return; }
        }
        colors.set(id, DEFAULT_COLOR);
        rest++;
      });
      matchers.forEach(function (m) { legend.push({ label: m.g.query, color: m.g.color, n: m.n }); });
      if (rest) legend.push({ label: "other notes", color: DEFAULT_COLOR, n: rest });
    } else {
      var keyOf;
      if (state.colorBy === "folder") keyOf = function (n) { return n.folder || "(vault root)"; };
      else if (state.colorBy === "tag") {
        var freq = new Map();
        meta.forEach(function (n) {
          if (!n.dangling) n.tagsLower.forEach(function (t) { freq.set(t, (freq.get(t) || 0) + 1); });
        });
        keyOf = function (n) {
          var best = null;
          n.tagsLower.forEach(function (t) {
            if (best === null || freq.get(t) > freq.get(best) || (freq.get(t) === freq.get(best) && t < best)) best = t;
          });
          return best === null ? "(no tags)" : "#" + best;
        };
      } else keyOf = function (n) { return n.type || "(no type)"; };
      var counts = new Map(), keys = new Map();
      meta.forEach(function (n, id) {
        if (n.dangling) return;
        var k = keyOf(n);
        keys.set(id, k);
        counts.set(k, (counts.get(k) || 0) + 1);
      });
      var ordered = Array.from(counts.keys()).sort(function (a, b) {
        return counts.get(b) - counts.get(a) || (a < b ? -1 : a > b ? 1 : 0);
      });
      var colorOfKey = new Map(), used = new Set(), free = PALETTE.slice(), other = 0;
      if (state.colorBy === "type") {
        ordered.forEach(function (k) {
          if (Object.prototype.hasOwnProperty.call(TYPE_COLORS, k)) { colorOfKey.set(k, TYPE_COLORS[k]); used.add(TYPE_COLORS[k]); }
        });
        free = free.filter(function (c) { return !used.has(c); });
      }
      ordered.forEach(function (k) {
        if (colorOfKey.has(k)) return;
        if (k.charAt(0) === "(") colorOfKey.set(k, DEFAULT_COLOR);
        else if (free.length) colorOfKey.set(k, free.shift());
      });
      keys.forEach(function (k, id) { colors.set(id, colorOfKey.get(k) || OTHER_COLOR); });
      ordered.forEach(function (k) {
        if (colorOfKey.has(k)) legend.push({ label: k, color: colorOfKey.get(k), n: counts.get(k) });
        else other += counts.get(k);
      });
      if (other) legend.push({ label: "other", color: OTHER_COLOR, n: other });
    }
    if (dangling) legend.push({ label: "dangling (not created)", color: DANGLING_COLOR, n: dangling });
    var box = $("legend");
    box.replaceChildren();
    legend.forEach(function (item) {
      var row = el("div"), sw = el("span", "swatch");
      sw.style.backgroundColor = HEX.test(item.color) ? item.color : OTHER_COLOR;
      row.appendChild(sw);
      row.appendChild(el("span", null, item.label));
      row.appendChild(el("span", "n", item.n));
      box.appendChild(row);
    });
  }

  /* -------------------------------------------------------------- renderer */
  // No zIndex: with sigma's zIndex sorting, a refresh between mousedown and click (hover highlighting)
  // renumbers the nodes and the click lands on the stage.
  function nodeReducer(id, res) { // res is sigma's own copy of the attributes
    res.color = colors.get(id) || DEFAULT_COLOR;
    if (!isVisible(id)) { res.hidden = true; return res; }
    if (state.search) { // while the search box has a query, its matches stand out
      if (state.search.has(id)) { res.highlighted = true; if (state.search.size <= 30) res.forceLabel = true; }
      else { res.color = DIM_NODE; res.label = null; }
    } else if (focusSet) { // else the hovered or selected note and its neighbours
      // (the local graph already is the selected note's neighbourhood: only hovering dims it)
      if (!focusSet.has(id) && (!localSet || state.hovered)) { res.color = DIM_NODE; res.label = null; }
      else if (focusSet.size <= 13) res.forceLabel = true;
    }
    if (id === state.selected || id === state.hovered) { res.highlighted = true; res.forceLabel = true; }
    return res;
  }
  function edgeReducer(key, res) {
    if (state.search) res.color = DIM_EDGE;
    else if (focusEdges) {
      if (focusEdges.has(key)) { res.color = FOCUS_EDGE; res.size = res.size * 1.6 + 0.4; }
      else res.color = DIM_EDGE;
    }
    return res;
  }
  function drawHover(ctx, d, settings) {
    // Like sigma's default hover, in the page's dark colours; canvas text, never HTML.
    var size = settings.labelSize, label = typeof d.label === "string" ? d.label : "";
    ctx.font = settings.labelWeight + " " + size + "px " + settings.labelFont;
    ctx.fillStyle = "#2b2b2b";
    ctx.shadowBlur = 8;
    ctx.shadowColor = "#000";
    ctx.beginPath();
    ctx.arc(d.x, d.y, d.size + 3, 0, Math.PI * 2);
    ctx.fill();
    if (label) {
      var w = ctx.measureText(label).width + 10, h = size + 8;
      ctx.fillRect(d.x + d.size + 3, d.y - h / 2, w, h);
      ctx.shadowBlur = 0;
      ctx.fillStyle = "#f0f0f0";
      ctx.fillText(label, d.x + d.size + 8, d.y + size / 3);
    }
    ctx.shadowBlur = 0;
    ctx.fillStyle = d.color;
    ctx.beginPath();
    ctx.arc(d.x, d.y, d.size, 0, Math.PI * 2);
    ctx.fill();
  }

  computeColors();
  var renderer;
  try {
    renderer = new lib.Sigma(graph, $("graph"), {
      nodeReducer: nodeReducer,
      edgeReducer: edgeReducer,
      defaultEdgeType: graph.size <= 5000 ? "arrow" : "line",
      defaultNodeColor: DEFAULT_COLOR,
      defaultEdgeColor: EDGE_COLOR,
      labelColor: { color: "#dcddde" },
      labelFont: "system-ui, sans-serif",
      labelSize: 12,
      labelRenderedSizeThreshold: graph.order <= 50 ? 0 : big ? 9 : 6,
      labelDensity: 0.5,
      labelGridCellSize: 120,
      hideEdgesOnMove: graph.size > 20000,
      defaultDrawNodeHover: drawHover,
      enableCameraRotation: false,
      minCameraRatio: 0.005,
      maxCameraRatio: 20
    });
  } catch (e) {
    return fail("webgl", "This page needs WebGL to draw the graph: " + (e && e.message ? e.message : e));
  }
  var camera = renderer.getCamera();

  function refresh() {
    renderer.refresh();
    updateCounts();
  }
  function updateCounts() {
    var visible = 0;
    graph.forEachNode(function (id) {
      var d = renderer.getNodeDisplayData(id);
      if (d && !d.hidden) visible++;
    });
    api.visible = visible;
    body.setAttribute("data-visible-count", String(visible));
    var parts = [noteCount + " notes", graph.size + " links"];
    if (danglingCount) parts.push(danglingCount + " dangling");
    parts.push("showing " + visible);
    if (state.local && !state.selected) parts.push("local graph: select a note");
    $("stats").textContent = parts.join(" · ");
  }

  function fitVisible(animate) {
    var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity, any = false;
    graph.forEachNode(function (id) {
      var d = renderer.getNodeDisplayData(id);
      if (!d || d.hidden) return;
      any = true;
      if (d.x < minX) minX = d.x;
      if (d.x > maxX) maxX = d.x;
      if (d.y < minY) minY = d.y;
      if (d.y > maxY) maxY = d.y;
    });
    if (!any) return;
    // the box's size on screen at ratio 1, against the room left beside the panel (sizes scale as 1/ratio)
    var panel = $("panel"), dim = renderer.getDimensions();
    var freeWidth = panel.hidden || panel.offsetWidth >= dim.width * 0.7 ? dim.width : dim.width - panel.offsetWidth;
    var target = { x: (minX + maxX) / 2, y: (minY + maxY) / 2, ratio: 1, angle: camera.angle };
    var p = renderer.framedGraphToViewport({ x: minX, y: minY }, { cameraState: target });
    var q = renderer.framedGraphToViewport({ x: maxX, y: maxY }, { cameraState: target });
    target.ratio = Math.min(1.2, Math.max(0.02, Math.abs(q.x - p.x) / Math.max(100, freeWidth - 60),
      Math.abs(q.y - p.y) / Math.max(100, dim.height - 60)));
    target = besidePanel(target);
    if (animate) camera.animate(target, { duration: 400 });
    else camera.setState(target);
  }
  function besidePanel(target) {
    // move the camera so that `target`'s centre shows in the middle of what the side panel leaves free
    var panel = $("panel"), dim = renderer.getDimensions();
    if (panel.hidden || panel.offsetWidth >= dim.width * 0.7) return target;
    var a = renderer.viewportToFramedGraph({ x: dim.width / 2, y: dim.height / 2 }, { cameraState: target });
    var b = renderer.viewportToFramedGraph({ x: dim.width / 2 + panel.offsetWidth / 2, y: dim.height / 2 }, { cameraState: target });
    target.x += b.x - a.x;
    target.y += b.y - a.y;
    return target;
  }
  function focusCamera(id) {
    var d = renderer.getNodeDisplayData(id);
    if (!d) return;
    // zoom so that the node's visible neighbours stay in view (never zooming out, never closer than 0.05)
    var reach = 0;
    graph.forEachNeighbor(id, function (nb) {
      var e = renderer.getNodeDisplayData(nb);
      if (e && !e.hidden) reach = Math.max(reach, Math.abs(e.x - d.x), Math.abs(e.y - d.y));
    });
    var ratio = Math.min(camera.ratio, Math.max(0.05, reach ? reach * 2.6 : 0.15));
    camera.animate(besidePanel({ x: d.x, y: d.y, angle: camera.angle, ratio: ratio }), { duration: 450 });
  }

  /* ------------------------------------------------------------------ panel */
  // obsidian://open?vault=NAME&file=PATH: Obsidian opens the note (a vault's name is its folder's name;
  // a Markdown file's path may go without ".md"). Both parts are percent-encoded, and the scheme is fixed
  // here, so no note can make the link point anywhere else.
  var obsidianVault = typeof data.vault === "string" ? data.vault : "";
  function obsidianUri(id) {
    var file = /\.md$/i.test(id) ? id.slice(0, -3) : id;
    return "obsidian://open?vault=" + encodeURIComponent(obsidianVault) + "&file=" + encodeURIComponent(file);
  }
  function byTitle(a, b) {
    var x = meta.get(a), y = meta.get(b);
    return x.titleLower < y.titleLower ? -1 : x.titleLower > y.titleLower ? 1 : (a < b ? -1 : a > b ? 1 : 0);
  }
  function fillLinks(list, countEl, ids, empty) {
    ids = ids.slice().sort(byTitle);
    list.replaceChildren();
    countEl.textContent = String(ids.length);
    if (!ids.length) list.appendChild(el("li", "none", empty));
    ids.slice(0, MAX_LIST).forEach(function (nid) {
      var m = meta.get(nid), li = el("li"), b = el("button", m.dangling ? "dangling" : null, m.title);
      b.type = "button";
      b.title = m.dangling ? "not created yet" : m.id;
      b.addEventListener("click", function () { select(nid, true); });
      li.appendChild(b);
      list.appendChild(li);
    });
    if (ids.length > MAX_LIST) list.appendChild(el("li", "none", "… and " + (ids.length - MAX_LIST) + " more"));
  }
  function showPanel(id) {
    var n = meta.get(id);
    $("panel-title").textContent = n.title;
    $("panel-path").textContent = n.dangling ? "not created yet" : n.id;
    $("panel-type").textContent = n.type || "—";
    $("panel-folder").textContent = n.folder || (n.dangling ? "—" : "(vault root)");
    var tags = $("panel-tags");
    tags.replaceChildren();
    if (!n.tags.length) tags.textContent = "—";
    n.tags.forEach(function (t) { tags.appendChild(el("span", "tag", "#" + t.replace(/^#/, ""))); });
    $("panel-preview").textContent = n.preview;
    var open = $("panel-open");
    open.hidden = n.dangling || !obsidianVault;
    if (!open.hidden) open.setAttribute("href", obsidianUri(n.id));
    fillLinks($("panel-backlinks"), $("panel-backlinks-count"), graph.inNeighbors(id), "No backlinks");
    fillLinks($("panel-links"), $("panel-links-count"), graph.outNeighbors(id), "No links");
    $("panel").hidden = false;
  }

  function select(id, moveCamera) {
    if (!meta.has(id)) return false;
    state.selected = id;
    updateLocal();
    updateFocus();
    showPanel(id);
    refresh();
    if (state.local) fitVisible(true);
    else if (moveCamera) focusCamera(id);
    return true;
  }
  function deselect() {
    if (!state.selected) return;
    state.selected = null;
    $("panel").hidden = true;
    updateLocal();
    updateFocus();
    refresh();
    if (state.local) fitVisible(true);
  }

  /* ----------------------------------------------------------------- search */
  var searchInput = $("search"), results = $("results"), resultIds = [], active = -1, lastQuery = "";
  function findMatches(q) {
    q = q.trim().toLowerCase();
    if (!q) return null;
    var scored = [];
    meta.forEach(function (n, id) {
      var i = n.titleLower.indexOf(q), s;
      if (i === 0) s = n.titleLower.length === q.length ? 0 : 1;
      else if (i > 0) s = 2;
      else if (n.idLower.indexOf(q) >= 0) s = 3;
      else return;
      if (n.dangling) s += 0.5;
      scored.push([s, id]);
    });
    scored.sort(function (a, b) { return a[0] - b[0] || byTitle(a[1], b[1]); });
    return scored.map(function (x) { return x[1]; });
  }
  function setActive(i) {
    var items = results.querySelectorAll("li[data-i]");
    if (!items.length) return;
    active = (i + items.length) % items.length;
    items.forEach(function (li, j) {
      li.classList.toggle("active", j === active);
      li.setAttribute("aria-selected", j === active ? "true" : "false");
    });
    items[active].scrollIntoView({ block: "nearest" });
  }
  function closeResults() { results.hidden = true; active = -1; }
  function runSearch() {
    lastQuery = searchInput.value;
    var ids = findMatches(lastQuery);
    resultIds = ids || [];
    state.search = ids ? new Set(ids) : null;
    results.replaceChildren();
    active = -1;
    if (ids) {
      ids.slice(0, MAX_RESULTS).forEach(function (id, i) {
        var n = meta.get(id), li = el("li", null, n.title);
        li.setAttribute("role", "option");
        li.setAttribute("data-i", String(i));
        li.appendChild(el("span", "path", n.dangling ? "not created" : n.folder || "/"));
        li.addEventListener("mousedown", function (ev) { ev.preventDefault(); choose(id); });
        results.appendChild(li);
      });
      if (!ids.length) results.appendChild(el("li", "more", "No matching notes"));
      else if (ids.length > MAX_RESULTS) results.appendChild(el("li", "more", "… " + (ids.length - MAX_RESULTS) + " more"));
      results.hidden = false;
    } else closeResults();
    refresh();
  }
  function choose(id) {
    searchInput.value = lastQuery = meta.get(id).title;
    resultIds = [id];
    state.search = null;
    closeResults();
    select(id, true);
  }
  var searchTimer = null;
  searchInput.addEventListener("input", function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, graph.order > 2000 ? 120 : 40);
  });
  searchInput.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowDown") { ev.preventDefault(); setActive(active + 1); }
    else if (ev.key === "ArrowUp") { ev.preventDefault(); setActive(active - 1); }
    else if (ev.key === "Enter") {
      clearTimeout(searchTimer);
      if (searchInput.value !== lastQuery) runSearch();
      var id = resultIds[active >= 0 ? active : 0];
      if (id !== undefined) choose(id);
    } else if (ev.key === "Escape") {
      searchInput.value = "";
      runSearch();
    }
  });
  searchInput.addEventListener("focus", function () { if (state.search && results.childNodes.length) results.hidden = false; });
  searchInput.addEventListener("blur", function () { closeResults(); });

  /* --------------------------------------------------------------- controls */
  var colorBy = $("color-by");
  if (!groups.length) colorBy.querySelector('option[value="groups"]').remove();
  colorBy.value = state.colorBy;
  colorBy.addEventListener("change", function () { state.colorBy = colorBy.value; computeColors(); refresh(); });
  function onFilterChange() {
    updateLocal();
    refresh();
    if (state.local) fitVisible(true);
  }
  $("show-dangling").addEventListener("change", function (ev) { state.showDangling = ev.target.checked; onFilterChange(); });
  $("show-orphans").addEventListener("change", function (ev) { state.showOrphans = ev.target.checked; onFilterChange(); });
  $("local-mode").addEventListener("change", function (ev) {
    state.local = ev.target.checked;
    updateLocal();
    refresh();
    fitVisible(true);
  });
  $("depth").addEventListener("change", function (ev) { state.depth = parseInt(ev.target.value, 10) || 1; onFilterChange(); });
  $("fit").addEventListener("click", function () { fitVisible(true); });
  $("panel-close").addEventListener("click", deselect);
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && ev.target === body) deselect();
  });

  renderer.on("clickNode", function (e) { select(e.node, false); });
  renderer.on("doubleClickNode", function (e) { select(e.node, false); }); // two quick clicks on two nodes
  // A click right after the pointer entered a node can miss it (the hover re-render swaps sigma's picking
  // buffer in between): the node the pointer is over still counts as clicked.
  var pointerNode = null;
  renderer.on("clickStage", function () {
    if (pointerNode && isVisible(pointerNode)) select(pointerNode, false);
    else if (!state.local) deselect();
  });
  // Hovering highlights the node's neighbourhood; on big graphs a refresh costs too much for that, and
  // sigma's own hover label is all there is.
  var hoverFocus = graph.order + graph.size <= 40000;
  renderer.on("enterNode", function (e) {
    pointerNode = e.node;
    if (!hoverFocus) return;
    state.hovered = e.node;
    updateFocus();
    renderer.scheduleRefresh();
  });
  renderer.on("leaveNode", function () {
    pointerNode = null;
    if (!hoverFocus || state.hovered === null) return;
    state.hovered = null;
    updateFocus();
    renderer.scheduleRefresh();
  });

  /* ----------------------------------------------------------------- layout */
  // ForceAtlas2 runs in a web worker made from a Blob URL (the package's own worker function), iterating
  // as fast as it can; the renderer gets new positions only every so often, since one update costs
  // 10-100 ms of main-thread time at 10k notes. Without workers, the algorithm runs on the main thread
  // in time slices instead.
  var fa2Settings = Object.assign({}, lib.fa2Defaults, lib.forceAtlas2.inferSettings(graph));
  var helpers = lib.fa2Helpers, layoutButton = $("layout-toggle");
  var worker = null, matrices = null, inFlight = false, running = false, syncFrame = null, layoutTimer = null;
  var latest = null, applyFrame = null, lastApply = 0, applyCost = 0, renderCost = 0, renderStart = 0;
  function edgeWeight(edge, attr) { return attr.weight || 1; }
  renderer.on("beforeRender", function () { renderStart = performance.now(); });
  renderer.on("afterRender", function () { renderCost = 0.8 * renderCost + 0.2 * (performance.now() - renderStart); });

  function applyPositions(matrix) {
    var t0 = performance.now();
    helpers.assignLayoutChanges(graph, matrix, null);
    lastApply = performance.now();
    applyCost = lastApply - t0;
  }
  function applyLatest() {
    applyFrame = null;
    if (latest) { applyPositions(latest); latest = null; }
  }
  function send(withEdges) {
    var payload = { settings: fa2Settings, nodes: matrices.nodes.buffer }, buffers = [matrices.nodes.buffer];
    if (withEdges) { payload.edges = matrices.edges.buffer; buffers.push(matrices.edges.buffer); }
    inFlight = true;
    worker.postMessage(payload, buffers);
  }
  function onWorkerMessage(ev) {
    inFlight = false;
    matrices.nodes = new Float32Array(ev.data.nodes);
    if (!running) { applyPositions(matrices.nodes); return; }
    // Hand the matrix straight back so that the worker never waits for the renderer, and show a copy
    // now and then: at most every 3x what an update plus a render cost (and 100 ms).
    if (applyFrame === null && performance.now() - lastApply > Math.max(100, 3 * (applyCost + renderCost))) {
      latest = matrices.nodes.slice();
      applyFrame = requestAnimationFrame(applyLatest);
    }
    send(false);
  }
  function spawnWorker() {
    worker = helpers.createWorker(lib.fa2Worker);
    worker.addEventListener("message", onWorkerMessage);
    worker.addEventListener("error", function (ev) { // e.g. workers blocked: fall back to the main thread
      ev.preventDefault();
      worker.terminate();
      worker = null;
      inFlight = false;
      if (running) { running = false; startSyncLayout(); }
      updateLayoutButton();
    });
    matrices = helpers.graphToByteArrays(graph, edgeWeight);
    send(true);
  }
  function startSyncLayout() {
    var batch = 1;
    function step() {
      var t0 = performance.now();
      lib.forceAtlas2.assign(graph, { iterations: batch, settings: fa2Settings, getEdgeWeight: "weight" });
      var cost = performance.now() - t0;
      batch = Math.max(1, Math.min(100, Math.round(batch * (cost < 20 ? 1.5 : 0.7))));
      syncFrame = requestAnimationFrame(step);
    }
    syncFrame = requestAnimationFrame(step);
  }
  function layoutRunning() { return running || syncFrame !== null; }
  function updateLayoutButton() {
    var on = layoutRunning();
    layoutButton.textContent = on ? "Stop layout" : "Run layout";
    body.setAttribute("data-layout", on ? "running" : "stopped");
  }
  function stopLayout() {
    clearTimeout(layoutTimer);
    if (running) {
      running = false;
      if (!inFlight && matrices) applyPositions(matrices.nodes);
    }
    if (syncFrame !== null) cancelAnimationFrame(syncFrame);
    syncFrame = null;
    updateLayoutButton();
  }
  function startLayout(ms) {
    if (graph.order < 2 || layoutRunning()) return;
    running = true;
    try {
      if (!worker) spawnWorker();
      else if (!inFlight) send(false);
    } catch (e) {
      running = false;
      worker = null;
      startSyncLayout();
    }
    layoutTimer = setTimeout(stopLayout, ms || 15000);
    updateLayoutButton();
  }
  layoutButton.addEventListener("click", function () {
    if (layoutRunning()) stopLayout();
    else startLayout(30000);
  });

  /* ------------------------------------------------------------------ start */
  var noteCount = 0, danglingCount = 0;
  meta.forEach(function (n) { if (n.dangling) danglingCount++; else noteCount++; });
  var api = {
    order: 0, visible: 0, graph: graph, renderer: renderer,
    get selected() { return state.selected; },
    select: function (id) { return select(id, true); },
    deselect: deselect,
    search: function (q) { return findMatches(q) || []; },
    startLayout: startLayout, stopLayout: stopLayout, layoutRunning: layoutRunning
  };
  window.mdmemGraph = api;
  updateCounts(); // the renderer has just processed everything once
  var rendered = 0;
  graph.forEachNode(function (id) { if (renderer.getNodeDisplayData(id)) rendered++; });
  api.order = rendered;
  body.setAttribute("data-node-count", String(rendered));
  body.setAttribute("data-edge-count", String(graph.size));
  if (!graph.order) { $("message").textContent = "This vault has no notes yet."; $("message").hidden = false; }
  if (missingXY > 0) startLayout(Math.min(20000, 3000 + graph.order * 2));
  updateLayoutButton();
  api.readyMs = Math.round(performance.now());
  body.setAttribute("data-ready", "1");

  function mulberry32(a) {
    return function () {
      a = (a + 0x6d2b79f5) | 0;
      var t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
})();

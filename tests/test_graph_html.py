"""`mdmem graph html`: the page, tested in a real headless browser (Debian's chromium, driven by playwright).

The browser tests skip when chromium or the playwright package is missing; the pure-Python tests always run.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import time
from pathlib import Path

import pytest

from mdmem.ops.graph_page import obsidian_color_groups, render_html

pytestmark = pytest.mark.slow  # a real headless browser: the whole module is in the slow lane

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
FIXTURES = Path(__file__).resolve().parent / "data" / "fixtures" / "vaults"

EVIL_SCRIPT = "<script>window.__pwned=1</script>"
EVIL_IMG = "</script><img src=x onerror=window.__pwned=2>"
EVIL_ID = "memory/x/</script><script>window.__pwned=4</script>.md"
ANA = "memory/people/ana-souza.md"


def _node(node_id, title, x, y, *, type="", tags=(), kind="note", preview=None, orphan=False):
    folder = node_id.rsplit("/", 1)[0] if "/" in node_id and kind == "note" else ""
    return {"id": node_id, "title": title, "type": type, "folder": folder, "tags": list(tags), "kind": kind,
            "preview": f"Preview of {title}." if preview is None else preview, "orphan": orphan, "x": x, "y": y}


def _edge(source, target, weight=1, embed=False):
    return {"source": source, "target": target, "weight": weight, "embed": embed}


def small_vault(layout=True) -> dict:
    """9 nodes: 8 notes + 1 dangling; 5 orphans; two notes with hostile titles, one with a hostile path."""
    pos = iter([(0, 0), (4, 1), (-3, 3), (6, 5), (-2, -5), (-6, 6), (3, -7), (9, -3), (-5, -8)])

    def xy():
        x, y = next(pos)
        return (float(x), float(y)) if layout else (None, None)

    nodes = [
        _node(ANA, "ana-souza", *xy(), type="person", tags=["payments", "project/atlas"],
              preview="Ana leads payments.\u2028Prefers <b>async</b> & short notes."),
        _node("memory/projects/atlas.md", "atlas", *xy(), type="project", tags=["project/atlas"]),
        _node("memory/people/bob.md", "bob", *xy(), type="person"),
        _node("memory/people/carol.md", "carol", *xy(), type="person", orphan=True),
        _node("memory/daily/2024-05-01.md", "2024-05-01", *xy(), type="daily", orphan=True),
        _node(EVIL_ID, EVIL_SCRIPT, *xy(), type="<i>x</i>", tags=["<b>t</b>"], orphan=True,
              preview='<img src=x onerror="window.__pwned=3"> </script><script>window.__pwned=5</script>'),
        _node("memory/x/evil2.md", EVIL_IMG, *xy(), orphan=True),
        _node("memory/lonely.md", "lonely", *xy(), orphan=True),
        _node("?missing-note", "missing-note", *xy(), kind="dangling"),
    ]
    edges = [
        _edge("memory/projects/atlas.md", ANA, 2),
        _edge("memory/projects/atlas.md", "memory/people/bob.md"),
        _edge("memory/people/bob.md", ANA),
        _edge(ANA, "memory/projects/atlas.md"),
        _edge("memory/people/carol.md", "memory/projects/atlas.md"),
        _edge("memory/daily/2024-05-01.md", ANA, 1, True),
        _edge("memory/daily/2024-05-01.md", "?missing-note"),
        _edge(EVIL_ID, "memory/people/bob.md"),
        _edge("memory/x/evil2.md", "?missing-note", 3),
    ]
    groups = [{"query": "tag:#project", "color": "#e0a030"},
              {"query": "<img src=x onerror=window.__pwned=6>", "color": "#4fb3d9"}]
    return {"title": "my-vault </script><script>window.__pwned=7</script>", "nodes": nodes, "edges": edges,
            "groups": groups}


def big_vault(n_nodes=10_000, n_edges=60_000, seed=7) -> dict:
    rng = random.Random(seed)
    folders = [f"memory/f{i:02d}" for i in range(40)]
    types = ["person", "project", "protocol", "daily", "decision", "reference"]
    ids = [f"{folders[i % 40]}/note-{i:05d}.md" for i in range(n_nodes)]
    nodes = [_node(nid, f"note-{i:05d}", None, None, type=types[i % 6], tags=[f"t{i % 25}"],
                   preview=f"Body of note {i}. " * 20) for i, nid in enumerate(ids)]
    seen, edges = set(), []
    while len(edges) < n_edges:  # preferential-ish attachment: a few hubs, many leaves
        a = rng.randrange(n_nodes)
        b = int(n_nodes * rng.random() ** 2.5)
        if a != b and (a, b) not in seen:
            seen.add((a, b))
            edges.append(_edge(ids[a], ids[b], rng.randint(1, 3)))
    targets = {b for _, b in seen}
    for i, node in enumerate(nodes):
        node["orphan"] = i not in targets
    return {"title": "big", "nodes": nodes, "edges": edges, "groups": []}


# ------------------------------------------------------------------------------------------- pure Python


def _payload(page_html: str) -> dict:
    m = re.search(r'<script type="application/json" id="mdmem-data">(.*?)</script>', page_html, re.S)
    assert m
    return json.loads(m.group(1))


def test_render_html_escapes_every_data_string():
    data = small_vault()
    page = render_html(data)
    # Nothing from the data can open or close a tag: the only <script> elements are the page's own three.
    assert len(re.findall(r"<script", page, re.I)) == 3
    assert len(re.findall(r"</script", page, re.I)) == 3
    for evil in ("window.__pwned=1</script>", "<img src=x", "\u2028"):
        assert evil not in page
    assert "<title>my-vault &lt;/script&gt;&lt;script&gt;window.__pwned=7&lt;/script&gt; · mdmem graph</title>" in page
    payload = _payload(page)  # the JSON still round-trips to the exact strings
    titles = {n["id"]: n["title"] for n in payload["nodes"]}
    assert titles[EVIL_ID] == EVIL_SCRIPT
    assert titles["memory/x/evil2.md"] == EVIL_IMG
    assert payload["nodes"][0]["preview"] == data["nodes"][0]["preview"]
    assert payload["groups"] == data["groups"]
    assert 'http-equiv="Content-Security-Policy"' in page


def test_render_html_normalises_odd_input():
    page = render_html({"title": None, "nodes": [
        {"id": "a.md", "title": None, "tags": "solo", "x": float("nan"), "y": 1.0, "preview": "p" * 5000},
        {"id": "a.md", "title": "duplicate"}, {"title": "no id"}],
        "edges": [{"source": "a.md", "target": "a.md", "weight": float("inf")}, {"source": "a.md"}],
        "groups": [{"query": "x", "color": "red; background:url(http://x)"}, {"query": "y", "color": {"rgb": 255}}]})
    payload = _payload(page)
    assert payload["nodes"] == [{"id": "a.md", "title": "a.md", "tags": ["solo"], "preview": "p" * 1200}]
    assert payload["edges"] == [[0, 0, 1, 0]]
    assert payload["groups"] == [{"query": "y", "color": "#0000ff"}]
    assert payload["title"] == "vault"


def test_obsidian_color_groups(tmp_path):
    assert obsidian_color_groups(tmp_path) == []
    (tmp_path / ".obsidian").mkdir()
    graph_json = tmp_path / ".obsidian" / "graph.json"
    graph_json.write_text("{not json", encoding="utf-8")
    assert obsidian_color_groups(tmp_path) == []
    graph_json.write_text(json.dumps({"colorGroups": [
        {"query": "tag:#project", "color": {"a": 1, "rgb": 14701138}},
        {"query": "path:\"How To\"", "color": {"a": 1, "rgb": 16776960}},
        {"query": "", "color": {"a": 1, "rgb": 1}}, {"query": "file:x"}, "junk"]}), encoding="utf-8")
    assert obsidian_color_groups(tmp_path) == [{"query": "tag:#project", "color": "#e05252"},
                                               {"query": "path:\"How To\"", "color": "#ffff00"}]
    graph_json.write_bytes(b"\xff\xfe")
    assert obsidian_color_groups(tmp_path) == []


def test_obsidian_color_groups_on_a_real_vault():
    vault = FIXTURES / "obsidian-tasks-docs" / "docs"
    groups = obsidian_color_groups(vault)
    assert groups[0] == {"query": 'path:"Getting Started/Statuses"', "color": "#add65c"}
    assert [g["query"] for g in groups[2:]] == ["path:Queries", "file:Introduction", "path:Reference",
                                                'path:"How To"']


# ----------------------------------------------------------------------------------------------- browser


@pytest.fixture(scope="module")
def browser():
    exe = "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else shutil.which("chromium")
    if not exe:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


class Page:
    """A page opened from file:// with every console message, page error and request recorded."""

    def __init__(self, browser, tmp_path: Path, data: dict, name="graph.html", timeout_ms=15_000):
        self.file = tmp_path / name
        self.file.write_text(render_html(data), encoding="utf-8")
        self.console, self.errors, self.requests = [], [], []
        self.page = browser.new_page(viewport={"width": 1280, "height": 800})
        self.page.on("console", lambda m: self.console.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        start = time.perf_counter()
        self.page.goto(self.file.as_uri())
        # poll on a timer, not on animation frames: software WebGL makes a frame of a big graph slow
        self.page.wait_for_function("() => document.body && document.body.dataset.ready === '1'",
                                    polling=50, timeout=timeout_ms)
        self.load_seconds = time.perf_counter() - start

    def js(self, expr, arg=None):
        return self.page.evaluate(expr, arg)

    def visible(self) -> set[str]:
        return set(self.js("""() => { const g = window.mdmemGraph;
            return g.graph.filterNodes(n => !g.renderer.getNodeDisplayData(n).hidden); }"""))

    def texts(self, selector) -> list[str]:
        return self.page.locator(selector).all_text_contents()

    def check_clean(self):
        assert self.errors == []
        assert [text for kind, text in self.console if kind == "error"] == []
        assert [u for u in self.requests if u.split(":", 1)[0] not in ("file", "data", "blob")] == []
        assert self.js("document.body.dataset.error") is None
        assert self.js("window.__pwned") is None

    def close(self):
        self.page.close()


@pytest.fixture
def page(browser, tmp_path):
    p = Page(browser, tmp_path, small_vault())
    yield p
    p.close()


def test_page_loads_offline_and_renders_every_node(page):
    assert page.js("document.body.dataset.nodeCount") == "9"
    assert page.js("window.mdmemGraph.order") == 9
    assert page.js("window.mdmemGraph.visible") == 9
    assert page.page.locator("#vault-title").text_content() == "my-vault </script><script>window.__pwned=7</script>"
    assert page.js("document.body.dataset.layout") == "stopped"  # precomputed layout: nothing to run
    # Obsidian colour groups are the default colouring; the hostile query is shown as text.
    assert page.page.locator("#color-by").input_value() == "groups"
    assert page.texts("#legend > div") == ["tag:#project2", "<img src=x onerror=window.__pwned=6>0",
                                           "other notes6", "dangling (not created)1"]
    page.page.select_option("#color-by", "type")
    assert "person3" in page.texts("#legend > div")
    page.page.select_option("#color-by", "folder")
    assert "memory/people3" in page.texts("#legend > div")
    page.page.select_option("#color-by", "tag")
    assert page.texts("#legend > div")[:3] == ["(no tags)5", "#project/atlas2", "#<b>t</b>1"]
    assert page.requests == [page.file.as_uri()]
    page.check_clean()


def test_search_finds_a_note_and_the_panel_shows_its_backlinks(page, tmp_path):
    page.page.locator("#search").press_sequentially("ana")
    first = page.page.locator("#results li").first
    first.wait_for()
    assert first.text_content().startswith("ana-souza")
    first.click()
    assert page.js("window.mdmemGraph.selected") == ANA
    assert page.page.locator("#panel").is_visible()
    assert page.page.locator("#panel-title").text_content() == "ana-souza"
    assert page.page.locator("#panel-type").text_content() == "person"
    assert page.texts("#panel-tags .tag") == ["#payments", "#project/atlas"]
    assert page.page.locator("#panel-preview").text_content() == "Ana leads payments.\u2028Prefers <b>async</b> & short notes."
    assert page.texts("#panel-backlinks button") == ["2024-05-01", "atlas", "bob"]
    assert page.texts("#panel-links button") == ["atlas"]
    # a link in the panel moves there
    page.page.locator("#panel-backlinks button", has_text="atlas").click()
    assert page.page.locator("#panel-title").text_content() == "atlas"
    assert page.texts("#panel-backlinks button") == ["ana-souza", "carol"]
    assert page.texts("#panel-links button") == ["ana-souza", "bob"]
    page.page.locator("#search").fill("")
    page.page.locator("#search").press_sequentially("caro")
    page.page.locator("#results li").first.wait_for()
    page.page.locator("#search").press("Enter")
    assert page.page.locator("#panel-title").text_content() == "carol"
    assert page.js("window.mdmemGraph.selected") == "memory/people/carol.md"
    page.js("id => window.mdmemGraph.select(id)", "memory/projects/atlas.md")
    page.page.click("#fit")
    page.page.wait_for_timeout(600)  # let the camera animation settle
    shot = tmp_path / "graph.png"
    page.page.screenshot(path=str(shot))
    shutil.copyfile(shot, "/tmp/mdmem-graph.png")
    assert shot.stat().st_size > 10_000
    page.check_clean()


def test_clicking_a_node_shows_it_and_hostile_titles_stay_inert(page):
    def click_node(node_id):
        x, y = page.js("""id => { const r = window.mdmemGraph.renderer, a = window.mdmemGraph.graph.getNodeAttributes(id);
            const p = r.graphToViewport({x: a.x, y: a.y}), box = document.getElementById('graph').getBoundingClientRect();
            return [box.left + p.x, box.top + p.y]; }""", node_id)
        page.page.mouse.click(x, y)
        page.page.wait_for_timeout(350)  # two clicks within sigma's doubleClickTimeout make a double click

    click_node("memory/people/bob.md")
    assert page.page.locator("#panel-title").text_content() == "bob"
    assert page.texts("#panel-backlinks button") == [EVIL_SCRIPT, "atlas"]
    click_node(EVIL_ID)
    assert page.page.locator("#panel-title").text_content() == EVIL_SCRIPT
    assert page.page.locator("#panel-path").text_content() == EVIL_ID
    assert page.page.locator("#panel-type").text_content() == "<i>x</i>"
    assert page.texts("#panel-tags .tag") == ["#<b>t</b>"]
    assert "window.__pwned=5</script>" in page.page.locator("#panel-preview").text_content()
    page.page.locator("#search").press_sequentially("onerror")
    page.page.locator("#results li").first.wait_for()
    assert page.texts("#results li")[0].startswith(EVIL_IMG)
    page.page.locator("#results li").first.click()
    assert page.page.locator("#panel-title").text_content() == EVIL_IMG
    assert page.texts("#panel-links button") == ["missing-note"]
    assert page.page.locator("#panel img, #results img, #legend img, #bar img").count() == 0
    page.page.wait_for_timeout(300)
    page.check_clean()


def test_toggles_change_the_visible_count(page):
    everything = page.visible()
    assert len(everything) == 9
    page.page.uncheck("#show-orphans")
    assert page.visible() == {ANA, "memory/projects/atlas.md", "memory/people/bob.md", "?missing-note"}
    assert page.js("document.body.dataset.visibleCount") == "4"
    page.page.uncheck("#show-dangling")
    assert page.js("window.mdmemGraph.visible") == 3
    page.page.check("#show-orphans")
    assert page.visible() == everything - {"?missing-note"}
    page.page.check("#show-dangling")
    assert page.visible() == everything
    page.check_clean()


def test_local_graph_shows_the_neighbourhood_at_each_depth(page):
    page.js("id => window.mdmemGraph.select(id)", ANA)
    page.page.check("#local-mode")
    assert page.visible() == {ANA, "memory/projects/atlas.md", "memory/people/bob.md", "memory/daily/2024-05-01.md"}
    page.page.select_option("#depth", "2")
    assert page.visible() == {ANA, "memory/projects/atlas.md", "memory/people/bob.md", "memory/daily/2024-05-01.md",
                              "memory/people/carol.md", EVIL_ID, "?missing-note"}
    page.page.select_option("#depth", "3")
    assert len(page.visible()) == 8  # + evil2 (via the dangling note); "lonely" has no links at all
    page.page.uncheck("#show-dangling")  # the local graph does not walk through hidden dangling notes
    assert len(page.visible()) == 6
    page.page.check("#show-dangling")
    page.page.select_option("#depth", "1")
    page.page.locator("#panel-links button", has_text="atlas").click()  # moving keeps local mode
    assert page.visible() == {"memory/projects/atlas.md", ANA, "memory/people/bob.md", "memory/people/carol.md"}
    page.page.uncheck("#local-mode")
    assert len(page.visible()) == 9
    page.check_clean()


def test_page_lays_itself_out_in_a_worker_when_no_positions_are_given(browser, tmp_path):
    p = Page(browser, tmp_path, small_vault(layout=False))
    try:
        assert p.js("window.mdmemGraph.order") == 9
        assert p.js("document.body.dataset.layout") == "running"
        before = p.js("window.mdmemGraph.graph.getNodeAttributes('memory/lonely.md')")
        p.page.wait_for_function("() => { const a = window.mdmemGraph.graph.getNodeAttributes('memory/lonely.md');"
                                 f" return a.x !== {before['x']!r} || a.y !== {before['y']!r}; }}", timeout=5000)
        p.page.click("#layout-toggle")
        assert p.js("document.body.dataset.layout") == "stopped"
        assert any(u.startswith("blob:") for u in p.requests)  # the layout worker
        p.check_clean()
    finally:
        p.close()


def test_content_security_policy_blocks_injected_markup(browser, tmp_path):
    """Defence in depth: even markup that got into the page would not run (only the page's scripts, by hash)."""
    page_html = render_html(small_vault()).replace(
        "</main>", "</main><script>window.__pwned=8</script><img src=x onerror=\"window.__pwned=9\">")
    path = tmp_path / "injected.html"
    path.write_text(page_html, encoding="utf-8")
    page = browser.new_page()
    try:
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-ready]", state="attached")
        assert page.evaluate("window.mdmemGraph.order") == 9
        assert page.evaluate("window.__pwned") is None
    finally:
        page.close()


@pytest.mark.parametrize("nodes", [[], [_node("only.md", "only", None, None)]], ids=["empty", "one-note"])
def test_tiny_vaults(browser, tmp_path, nodes):
    p = Page(browser, tmp_path, {"title": "tiny", "nodes": nodes, "edges": [], "groups": []})
    try:
        assert p.js("window.mdmemGraph.order") == len(nodes)
        assert p.js("document.body.dataset.layout") == "stopped"
        assert p.page.locator("#message").is_visible() == (not nodes)
        if nodes:
            p.js("id => window.mdmemGraph.select(id)", "only.md")
            assert p.texts("#panel-backlinks li") == ["No backlinks"]
        p.check_clean()
    finally:
        p.close()


def test_ten_thousand_notes(browser, tmp_path):
    data = big_vault()
    start = time.perf_counter()
    page_html = render_html(data)
    render_s = time.perf_counter() - start
    p = Page(browser, tmp_path, data, name="big.html", timeout_ms=30_000)
    try:
        assert p.js("window.mdmemGraph.order") == 10_000
        assert p.js("Number(document.body.dataset.edgeCount)") == 60_000
        assert p.js("document.body.dataset.layout") == "running"
        p.js("window.mdmemGraph.stopLayout()")  # software WebGL makes each layout frame slow; not the point here
        start = time.perf_counter()
        found = p.js("window.mdmemGraph.search('note-04242')")
        search_ms = (time.perf_counter() - start) * 1000
        assert found[0] == "memory/f02/note-04242.md"
        p.js("document.getElementById('show-orphans').click()")  # (no wait for slow animation frames)
        orphans = sum(1 for n in data["nodes"] if n["orphan"])
        assert p.js("window.mdmemGraph.visible") == 10_000 - orphans
        ready_ms = p.js("window.mdmemGraph.readyMs")  # the page's own clock, from navigation start
        print(f"\n10k notes / 60k links: render_html {render_s * 1000:.0f} ms, {len(page_html) / 1e6:.2f} MB; "
              f"page script ready at {ready_ms / 1000:.1f} s, seen by the test after {p.load_seconds:.1f} s "
              f"(software WebGL paints slowly); search {search_ms:.0f} ms")
        assert p.load_seconds < 30
        p.check_clean()
    finally:
        p.close()


def test_each_note_links_to_obsidian(browser, tmp_path):
    """The panel's "Open in Obsidian" is obsidian://open?vault=NAME&file=PATH (both percent-encoded, ".md"
    dropped); none for a dangling target, nor when the data names no vault."""
    data = small_vault() | {"vault": "My Vault & co"}
    p = Page(browser, tmp_path, data)
    try:
        p.js("id => window.mdmemGraph.select(id)", ANA)
        link = p.page.locator("#panel-open")
        assert link.is_visible() and link.text_content() == "Open in Obsidian"
        assert link.get_attribute("href") == "obsidian://open?vault=My%20Vault%20%26%20co&file=memory%2Fpeople%2Fana-souza"
        p.js("id => window.mdmemGraph.select(id)", EVIL_ID)
        assert link.get_attribute("href") == (
            "obsidian://open?vault=My%20Vault%20%26%20co&file=memory%2Fx%2F%3C%2Fscript%3E%3Cscript%3Ewindow.__pwned"
            "%3D4%3C%2Fscript%3E")
        p.js("id => window.mdmemGraph.select(id)", "?missing-note")
        assert not link.is_visible()
        p.check_clean()
    finally:
        p.close()
    q = Page(browser, tmp_path, small_vault(), name="no-vault.html")
    try:
        q.js("id => window.mdmemGraph.select(id)", ANA)
        assert not q.page.locator("#panel-open").is_visible()
    finally:
        q.close()

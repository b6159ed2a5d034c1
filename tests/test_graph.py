"""The link graph through the real CLI: backlinks (linked and unlinked),
neighbours, the vault map, orphans / dead ends / isolated / dangling, paths,
export in five formats, graph-expanded recall, incremental updates against a
fresh build, and graph facts on the real fixture vaults against an independent
regex count of their files.

Every test works on real files in ``tmp_path`` and drives the real CLI through
Typer's ``CliRunner`` (the ``cli`` fixture). Nothing of mdmem's is mocked.
Expected numbers are derived independently of ``mdmem.engine.graph``: from
``sample-vault-flaws.md``, from ``mdmem links`` (the resolver, one note at a
time), from hand-made vaults whose graph is known by construction, or from a
plain-regex reading of the files.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import posixpath
import re
import shutil
import stat
import unicodedata
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from urllib.parse import unquote

import networkx as nx
import pytest

from support import ROOT, SAMPLE, Cli

VAULTS = ROOT / "tests" / "data" / "fixtures" / "vaults"

ORPHAN = "memory/references/lisbon-coworking-spots.md"
PRIYA = "memory/people/priya-raman.md"


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_vault(root: Path, files: dict[str, str]) -> Path:
    (root / ".mdmem").mkdir(parents=True, exist_ok=True)  # a vault (--vault refuses a folder with nothing of one)
    for rel, text in files.items():
        write(root, rel, text)
    return root


def note_files(root: Path) -> list[str]:
    """Vault-relative paths of every note (hidden paths excluded)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".md") and not name.startswith("."):
                out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return sorted(out)


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    """One indexed copy of sample-vault/ shared by the read-only tests of this module."""
    dest = tmp_path_factory.mktemp("sample") / "vault"
    shutil.copytree(SAMPLE, dest, ignore=shutil.ignore_patterns(".mdmem"))
    Cli()("index", "--vault", dest)
    return dest


# ======================================================================
# 1. sample-vault: orphans, dangling, isolated, dead ends, map
# ======================================================================

_WIKI_RAW = re.compile(r"^!?\[\[(.*)\]\]$", re.S)
_MD_RAW = re.compile(r"^!?\[[^\]]*\]\((.*)\)$", re.S)


def written_target(raw: str) -> str:
    """The target of a link as written, from its raw text (independent of mdmem's parser)."""
    m = _WIKI_RAW.match(raw)
    if m:
        inner = re.split(r"\\?\|", m.group(1), maxsplit=1)[0]
    else:
        inner = _MD_RAW.match(raw).group(1).strip()
        if inner.startswith("<") and inner.endswith(">"):
            inner = inner[1:-1]
        inner = unquote(inner)
    return inner.split("#", 1)[0].strip()


def dangling_key(target: str) -> str:
    key = unicodedata.normalize("NFC", target).lower()
    return key[:-3] if key.endswith(".md") else key


def independent_map(cli: Cli, root: Path) -> dict:
    """Graph figures computed from ``mdmem links NOTE --json`` over every note."""
    notes = note_files(root)
    edges: dict[tuple[str, str], int] = defaultdict(int)
    dangling: dict[str, int] = defaultdict(int)
    links_out: set[str] = set()  # notes with a link to another note or to a missing one
    for note in notes:
        for link in cli.json("links", note, "--vault", root)["links"]:
            target = link["target"]
            if target is None:
                written = written_target(link["raw"])
                if written:
                    dangling[dangling_key(written)] += 1
                    links_out.add(note)
            elif target != note and target.endswith(".md"):
                edges[note, target] += 1
    # weakly connected components by union-find over notes
    parent = {n: n for n in notes}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for s, t in edges:
        parent[find(s)] = find(t)
    has_in = {t for _, t in edges}
    has_out = {s for s, _ in edges} | links_out
    return {
        "notes": len(notes),
        "links": len(edges),
        "link_occurrences": sum(edges.values()),
        "dangling": len(dangling),
        "dangling_occurrences": sum(dangling.values()),
        "components": len({find(n) for n in notes}),
        "orphans": sorted(n for n in notes if n not in has_in),
        "isolated": sorted(n for n in notes if n not in has_in and n not in has_out),
        "deadends": sorted(n for n in notes if n not in has_out),
    }


@pytest.mark.slow
def test_orphans_are_memory_md_and_the_deliberate_orphan(cli, sample):
    assert cli.json("graph", "orphans", "--vault", sample) == {"orphans": ["MEMORY.md", ORPHAN]}
    out = cli("graph", "orphans", "--vault", sample).stdout.split()
    assert out == ["MEMORY.md", ORPHAN]


def test_dangling_is_exactly_the_two_deliberate_targets(cli, sample):
    assert cli.json("graph", "dangling", "--vault", sample) == {"dangling": [
        {"target": "kafka-retention-policy", "count": 1, "sources": [PRIYA]},
        {"target": "memory/references/old-vpn-guide.md", "count": 1, "sources": ["MEMORY.md"]},
    ]}
    text = cli("graph", "dangling", "--vault", sample).stdout
    assert "kafka-retention-policy" in text and PRIYA in text


@pytest.mark.slow
def test_isolated_and_deadends(cli, sample):
    assert cli.json("graph", "isolated", "--vault", sample) == {"isolated": [ORPHAN]}
    assert cli.json("graph", "deadends", "--vault", sample) == {"deadends": [ORPHAN]}


@pytest.mark.slow
def test_graph_map_agrees_with_links_of_every_note(cli, sample):
    expected = independent_map(cli, sample)
    got = cli.json("graph", "map", "--vault", sample)
    assert expected["notes"] == 61
    assert expected["dangling"] == 2 and expected["dangling_occurrences"] == 2
    assert expected["orphans"] == ["MEMORY.md", ORPHAN]
    assert expected["isolated"] == expected["deadends"] == [ORPHAN]
    assert {k: got[k] for k in ("notes", "links", "link_occurrences", "dangling", "dangling_occurrences",
                                "components", "orphans", "isolated")} == {
        "notes": expected["notes"],
        "links": expected["links"],
        "link_occurrences": expected["link_occurrences"],
        "dangling": expected["dangling"],
        "dangling_occurrences": expected["dangling_occurrences"],
        "components": expected["components"],
        "orphans": len(expected["orphans"]),
        "isolated": len(expected["isolated"]),
    }
    assert got["components"] == 2  # everything else hangs together; the orphan stands alone
    # by type, from sample-vault-flaws.md ("note" is MEMORY.md, which has no frontmatter)
    assert got["by_type"] == {"daily": 21, "decision": 8, "person": 8, "reference": 7, "feedback": 6,
                              "protocol": 5, "project": 4, "note": 1, "user": 1}
    assert sum(got["by_folder"].values()) == 61 and got["by_folder"]["."] == 1
    assert [h["path"] for h in got["hubs_degree"]][0] == "MEMORY.md"  # 38 index lines + the broken one
    assert got["hubs_degree"][0]["value"] == 39
    assert len(got["hubs_pagerank"]) == 10
    assert all(0 < h["value"] < 1 for h in got["hubs_pagerank"])
    assert "MEMORY.md" not in [h["path"] for h in got["hubs_pagerank"]]  # nothing links to it
    text = cli("graph", "map", "--vault", sample).stdout
    assert "61" in text


# ----------------------------------------------------------------- backlinks

def test_backlinks_home_lab_network(cli, sample):
    got = cli.json("backlinks", "home-lab-network", "--vault", sample)
    assert got == {
        "note": "memory/references/home-lab-network.md",
        "backlinks": [
            {"source": "MEMORY.md", "line": 56, "context": "- [home-lab-network.md](memory/references/"
             "home-lab-network.md) — home lab IPs, VLANs, WireGuard (July) `~244tk`"},
            {"source": "memory/projects/home-lab.md", "line": 16,
             "context": "- Network layout: [[home-lab-network]] (may be out of date)."},
            {"source": "memory/projects/home-lab.md", "line": 25,
             "context": "- Write the backup setup down this time, see [notes on the network]"
             "(<../references/home-lab-network.md>)."},
        ],
        "unlinked": [],
    }


def test_backlinks_money_handling(cli, sample):
    got = cli.json("backlinks", "memory/protocols/money-handling.md", "--vault", sample)
    assert got["note"] == "memory/protocols/money-handling.md"
    assert [(b["source"], b["line"]) for b in got["backlinks"]] == [
        ("MEMORY.md", 27),
        ("memory/daily/2026-10-23.md", 23),  # [[memory/protocols/money-handling.md|money-handling]]
        ("memory/decisions/decision-integer-cents.md", 23),
        ("memory/decisions/decision-ledger-double-entry.md", 24),
        ("memory/feedback/failing-test-first-for-money.md", 18),
        ("memory/people/lucas-pereira.md", 20),  # [money-handling](../protocols/money-handling.md)
        ("memory/projects/lisbon-meetup-talk.md", 19),
    ]
    for b in got["backlinks"]:
        line = (sample / b["source"]).read_text(encoding="utf-8").split("\n")[b["line"] - 1]
        assert b["context"] == line.strip()
        assert "money-handling" in b["context"]


def test_backlinks_ana_souza_counts_frontmatter_and_case(cli, sample):
    got = cli.json("backlinks", "ana-souza", "--vault", sample)["backlinks"]
    pairs = [(b["source"], b["line"]) for b in got]
    assert pairs == sorted(pairs)
    # quoted frontmatter list value
    assert ("memory/decisions/decision-adyen-over-stripe.md", 8) in pairs
    # [[Ana-Souza]] resolves case-insensitively
    assert ("memory/people/ines-carvalho.md", 22) in pairs
    # the escaped pipe in atlas-billing's table
    atlas = [b for b in got if b["source"] == "memory/projects/atlas-billing.md"]
    assert atlas and any("[[ana-souza\\|Ana]]" in b["context"] for b in atlas)
    for b in got:
        assert re.search(r"ana-souza", b["context"], re.I), b
    # every backlink line really holds a link to ana-souza (an independent grep)
    for source, line in pairs:
        text = (sample / source).read_text(encoding="utf-8").split("\n")[line - 1]
        assert re.search(r"\[\[\s*ana-souza|ana-souza\.md\)", text, re.I), (source, line, text)


def test_backlinks_of_the_orphan_and_of_a_missing_note(cli, sample):
    assert cli.json("backlinks", ORPHAN, "--vault", sample)["backlinks"] == []
    result = cli("backlinks", "kafka-retention-policy", "--vault", sample, code=1)
    assert "kafka-retention-policy" in result.stderr and result.stdout == ""


def test_backlinks_unlinked_mentions(cli, tmp_path):
    v = make_vault(tmp_path / "v", {
        "Project Falcon.md": "---\naliases: [Falcon Initiative]\n---\nThe project falcon itself.\n",
        "b.md": "# B\n\nWe talked about project falcon yesterday.\n",
        "c.md": "The Falcon Initiative is going well.\n",
        "d.md": "See [[Project Falcon]] for details.\nproject falcon again in plain text.\n",
        "e.md": "Only inside a link: [[Project Falcon Notes|project falcon]] and ![[Project Falcon Plan]].\n",
        "f.md": "Project Falconry is a different thing; so is projectfalcon.\n",
        "g.md": "Then\n\nproject-falcon, hyphenated.\n",
        "h.md": "nothing to see here\n",
    })
    got = cli.json("backlinks", "Project Falcon", "--unlinked", "--vault", v)
    assert got["note"] == "Project Falcon.md"
    assert got["backlinks"] == [
        {"source": "d.md", "line": 1, "context": "See [[Project Falcon]] for details."},
    ]
    assert [(u["source"], u["line"]) for u in got["unlinked"]] == [("b.md", 3), ("c.md", 1), ("g.md", 3)]
    contexts = {u["source"]: u["context"] for u in got["unlinked"]}
    assert contexts == {
        "b.md": "We talked about project falcon yesterday.",
        "c.md": "The Falcon Initiative is going well.",
        "g.md": "project-falcon, hyphenated.",
    }
    # without --unlinked the list stays empty
    assert cli.json("backlinks", "Project Falcon", "--vault", v)["unlinked"] == []


def test_backlink_context_shows_the_link_on_a_long_line(cli, tmp_path):
    v = make_vault(tmp_path / "v", {"target.md": "t\n", "src.md": "word " * 80 + "see [[target]] here.\n"})
    [b] = cli.json("backlinks", "target", "--vault", v)["backlinks"]
    assert (b["source"], b["line"]) == ("src.md", 1)
    assert len(b["context"]) <= 202
    assert "[[target]]" in b["context"]


def test_unlinked_mentions_of_a_title_made_of_stop_words(cli, tmp_path):
    v = make_vault(tmp_path / "v", {"To Do.md": "list\n", "b.md": "Put it on the to do list.\n"})
    got = cli.json("backlinks", "To Do", "--unlinked", "--vault", v)
    assert [(u["source"], u["line"]) for u in got["unlinked"]] == [("b.md", 1)]


# ----------------------------------------------------------------- neighbours

HAND = {
    # a -> b (x2), a -> c; c -> a; b -> d; c -> g (x2); e -> a; h -> e; f -> [[missing]]
    "a.md": "[[b]] and [[b]] and [[c]]\n",
    "b.md": "[[d]]\n",
    "c.md": "[[a]]\n[[g]] and [[g]]\n",
    "d.md": "leaf\n",
    "e.md": "[[a]]\n",
    "f.md": "[[missing]]\n",
    "g.md": "leaf\n",
    "h.md": "[[e]]\n",
    "x.md": "also [[Missing]]\n",
}


@pytest.fixture
def hand(tmp_path) -> Path:
    return make_vault(tmp_path / "hand", HAND)


def nbrs(cli, v, note, *opts):
    got = cli.json("neighbors", note, "--vault", v, *opts)
    return [(n["path"], n["distance"], n["direction"], n["weight"]) for n in got["neighbors"]]


@pytest.mark.slow
def test_neighbors_depth_direction_limit(cli, hand):
    v = hand
    assert cli.json("neighbors", "a", "--vault", v)["note"] == "a.md"
    assert nbrs(cli, v, "a") == [
        ("b.md", 1, "out", 2), ("c.md", 1, "both", 2), ("e.md", 1, "in", 1),
    ]
    assert nbrs(cli, v, "a", "--depth", "2") == [
        ("b.md", 1, "out", 2), ("c.md", 1, "both", 2), ("e.md", 1, "in", 1),
        ("g.md", 2, "out", 2), ("d.md", 2, "out", 1), ("h.md", 2, "in", 1),
    ]
    assert nbrs(cli, v, "a", "--depth", "2", "--direction", "out") == [
        ("b.md", 1, "out", 2), ("c.md", 1, "out", 1), ("g.md", 2, "out", 2), ("d.md", 2, "out", 1),
    ]
    assert nbrs(cli, v, "a", "--depth", "2", "--direction", "in") == [
        ("c.md", 1, "in", 1), ("e.md", 1, "in", 1), ("h.md", 2, "in", 1),
    ]
    assert nbrs(cli, v, "a", "--direction", "both", "--depth", "3") == nbrs(cli, v, "a", "--depth", "2")
    assert nbrs(cli, v, "a", "--depth", "2", "--limit", "2") == [
        ("b.md", 1, "out", 2), ("c.md", 1, "both", 2)]
    assert nbrs(cli, v, "a", "--depth", "2", "--limit", "4")[-1] == ("g.md", 2, "out", 2)
    # dangling targets are never neighbours; a note linking only to one has none
    assert nbrs(cli, v, "f", "--depth", "3") == []
    assert nbrs(cli, v, "d", "--direction", "out") == []
    assert nbrs(cli, v, "d", "--direction", "in", "--depth", "2") == [
        ("b.md", 1, "in", 1), ("a.md", 2, "in", 2)]


def test_neighbors_usage_errors(cli, hand):
    assert cli("neighbors", "a", "--vault", hand, "--direction", "sideways", code=2).exit_code == 2
    cli("neighbors", "a", "--vault", hand, "--depth", "0", code=2)
    cli("neighbors", "a", "--vault", hand, "--limit", "0", code=2)
    assert "nobody" in cli("neighbors", "nobody", "--vault", hand, code=1).stderr


@pytest.mark.slow
def test_neighbors_on_sample_vault(cli, sample):
    got = cli.json("neighbors", ORPHAN, "--vault", sample, "--depth", "3")
    assert got == {"note": ORPHAN, "neighbors": []}
    near = cli.json("neighbors", "priya-raman", "--vault", sample, "--depth", "2")["neighbors"]
    keys = [(n["distance"], -n["weight"], n["path"]) for n in near]
    assert keys == sorted(keys)
    assert {n["distance"] for n in near} == {1, 2}
    assert PRIYA not in [n["path"] for n in near]
    assert not any(n["path"].startswith("?") for n in near)
    # depth 1 = the notes priya-raman links to plus the notes linking to it (from `links`/`backlinks`)
    out = {ln["target"] for ln in cli.json("links", PRIYA, "--vault", sample)["links"]} - {PRIYA, None}
    inn = {b["source"] for b in cli.json("backlinks", PRIYA, "--vault", sample)["backlinks"]}
    one = {n["path"]: n["direction"] for n in near if n["distance"] == 1}
    assert "MEMORY.md" in inn and set(one) == (out | inn) - {"MEMORY.md"}  # the index links it, relates nothing
    assert "MEMORY.md" not in {n["path"] for n in near}
    for path, direction in one.items():
        assert direction == ("both" if path in out and path in inn else "out" if path in out else "in")


def test_graph_map_counts_a_link_to_a_note_named_with_a_question_mark(cli, tmp_path):
    v = make_vault(tmp_path / "v", {"a.md": "[[?odd]]\n", "?odd.md": "x\n"})
    assert [ln["target"] for ln in cli.json("links", "a", "--vault", v)["links"]] == ["?odd.md"]
    assert cli.json("graph", "orphans", "--vault", v) == {"orphans": ["a.md"]}
    got = cli.json("graph", "map", "--vault", v)
    assert (got["links"], got["link_occurrences"], got["dangling"]) == (1, 1, 0)


# ----------------------------------------------------------------- paths

@pytest.mark.slow
def test_graph_path_directed_undirected_and_none(cli, hand):
    v = hand
    assert cli.json("graph", "path", "a", "d", "--vault", v) == {
        "source": "a.md", "target": "d.md", "path": ["a.md", "b.md", "d.md"], "directed": True,
    }
    # d links nowhere: only an undirected chain exists
    assert cli.json("graph", "path", "d", "a", "--vault", v) == {
        "source": "d.md", "target": "a.md", "path": ["d.md", "b.md", "a.md"], "directed": False,
    }
    text = cli("graph", "path", "h", "g", "--vault", v).stdout
    assert text.split() == ["h.md", "e.md", "a.md", "c.md", "g.md"]
    result = cli("graph", "path", "a", "f", "--vault", v, code=1)
    assert result.stderr.strip() == "mdmem: no chain of links connects a.md and f.md"
    assert result.stdout == ""
    cli("graph", "path", "a", "nobody", "--vault", v, code=1)


def test_graph_path_does_not_go_through_a_missing_note(cli, hand):
    # f.md and x.md both link to [[missing]], which does not exist. They are two
    # separate components in `graph map` (components counts notes only), so no
    # chain of links connects them; the path must not contain "?missing".
    assert cli.json("graph", "map", "--vault", hand)["components"] == 3
    result = cli("graph", "path", "f", "x", "--vault", hand, code=1)
    assert "no chain of links connects f.md and x.md" in result.stderr


@pytest.mark.slow
def test_graph_path_on_sample_vault(cli, sample):
    got = cli.json("graph", "path", "ines-carvalho", "ana-souza", "--vault", sample)
    assert got == {"source": "memory/people/ines-carvalho.md", "target": "memory/people/ana-souza.md",
                   "path": ["memory/people/ines-carvalho.md", "memory/people/ana-souza.md"], "directed": True}
    result = cli("graph", "path", "MEMORY.md", ORPHAN, "--vault", sample, code=1)
    assert "no chain of links" in result.stderr


# ----------------------------------------------------------------- export

@pytest.mark.slow
def test_export_json_matches_graph_map(cli, sample):
    m = cli.json("graph", "map", "--vault", sample)
    dangling = cli.json("graph", "dangling", "--vault", sample)["dangling"]
    data = json.loads(cli("graph", "export", "--vault", sample).stdout)
    notes = [n for n in data["nodes"] if n["kind"] == "note"]
    missing = [n for n in data["nodes"] if n["kind"] == "dangling"]
    assert len(notes) == m["notes"] == 61
    assert len(missing) == m["dangling"] == 2
    note_edges = [e for e in data["edges"] if not e["target"].startswith("?")]
    assert len(note_edges) == m["links"]
    assert sum(e["weight"] for e in note_edges) == m["link_occurrences"]
    assert len(data["edges"]) == m["links"] + sum(len(d["sources"]) for d in dangling)
    ids = {n["id"] for n in data["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids for e in data["edges"])
    by_id = {n["id"]: n for n in data["nodes"]}
    priya = by_id[PRIYA]
    assert priya["path"] == PRIYA and priya["title"] == "priya-raman" and priya["type"] == "person"
    assert priya["folder"] == "memory/people" and isinstance(priya["tags"], list)
    assert {n["title"] for n in missing} == {"kafka-retention-policy", "memory/references/old-vpn-guide.md"}
    edge = next(e for e in data["edges"] if e["source"] == PRIYA and e["target"].startswith("?"))
    assert edge["weight"] == 1 and edge["embed"] is False and edge["kinds"] == ["wikilink"]


@pytest.mark.slow
def test_export_graphml_gexf_dot(cli, sample, tmp_path):
    m = cli.json("graph", "map", "--vault", sample)
    dangling = cli.json("graph", "dangling", "--vault", sample)["dangling"]
    n_dangling_edges = sum(len(d["sources"]) for d in dangling)
    nodes, edges = m["notes"] + m["dangling"], m["links"] + n_dangling_edges

    graphml = cli("graph", "export", "--format", "graphml", "--vault", sample).stdout
    root = ET.fromstring(graphml.encode())
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    assert len(root.findall(".//g:node", ns)) == nodes
    assert len(root.findall(".//g:edge", ns)) == edges
    path = tmp_path / "g.graphml"
    path.write_text(graphml, encoding="utf-8")
    g = nx.read_graphml(path)
    assert g.is_directed() and g.number_of_nodes() == nodes and g.number_of_edges() == edges
    assert g.nodes[PRIYA]["title"] == "priya-raman" and g.nodes[PRIYA]["type"] == "person"
    assert g.nodes[PRIYA]["folder"] == "memory/people"
    assert g.edges["memory/people/ines-carvalho.md", "memory/people/ana-souza.md"]["weight"] >= 1

    gexf = cli("graph", "export", "-f", "gexf", "--vault", sample).stdout
    root = ET.fromstring(gexf.encode())
    local = lambda el: el.tag.rsplit("}", 1)[-1]  # noqa: E731
    assert sum(1 for el in root.iter() if local(el) == "node") == nodes
    assert sum(1 for el in root.iter() if local(el) == "edge") == edges
    (tmp_path / "g.gexf").write_text(gexf, encoding="utf-8")
    back = nx.read_gexf(tmp_path / "g.gexf")
    assert back.number_of_nodes() == nodes and back.number_of_edges() == edges

    dot = cli("graph", "export", "--format", "dot", "--vault", sample).stdout
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert sum(1 for line in dot.splitlines() if " -> " in line) == edges


def test_export_mermaid_escapes_titles(cli, tmp_path):
    v = make_vault(tmp_path / "v", {
        'say "hi" <now> & co.md': "[[plain]]\n",
        "plain.md": "![[say \"hi\" <now> & co]] and [[ghost]]\n",
    })
    out = cli("graph", "export", "--format", "mermaid", "--vault", v).stdout
    lines = out.splitlines()
    assert lines[0] == "graph LR"
    # nodes sorted by id: "?ghost", "plain.md", 'say "hi"...'
    assert lines[1:4] == [
        '  n0(("ghost"))',
        '  n1["plain"]',
        '  n2["say #quot;hi#quot; #60;now#62; #38; co"]',
    ]
    assert sorted(lines[4:]) == ["  n1 --> n0", "  n1 ==> n2", "  n2 --> n1"]
    labels = [re.fullmatch(r'  n\d+(?:\["(.*)"\]|\(\("(.*)"\)\))', line) for line in lines[1:4]]
    assert all(m and not re.search(r'["<>&]', m.group(1) or m.group(2)) for m in labels)  # nothing raw inside
    dot = cli("graph", "export", "--format", "dot", "--vault", v).stdout
    assert '"say \\"hi\\" <now> & co.md" -> "plain.md"' in dot
    root = ET.fromstring(cli("graph", "export", "--format", "graphml", "--vault", v).stdout.encode())
    titles = {d.text for d in root.iter() if d.tag.endswith("data")}
    assert 'say "hi" <now> & co' in titles


@pytest.mark.slow
def test_export_output_file_and_unknown_format(cli, sample, tmp_path):
    target = tmp_path / "out" / "graph.json"
    target.parent.mkdir()
    result = cli("graph", "export", "--vault", sample, "-o", target)
    assert result.stdout == ""
    assert str(target) in result.stderr
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data == json.loads(cli("graph", "export", "--format", "json", "--vault", sample).stdout)
    dot = tmp_path / "g.dot"
    cli("graph", "export", "--format", "dot", "--output", dot, "--vault", sample)
    assert dot.read_text(encoding="utf-8").startswith("digraph")
    bad = cli("graph", "export", "--format", "svg", "--vault", sample, code=2)
    assert "json" in bad.stderr and "mermaid" in bad.stderr
    assert not (tmp_path / "svg").exists()


# ======================================================================
# 2. recall
# ======================================================================

QUERIES = ["kafka retention", "atlas billing cutover", "migrations", "Ana", "deploy"]
BUDGETS = [200, 300, 500, 800, 1200, 2000, 4000]


@pytest.mark.slow
def test_recall_budget_order_and_related(cli, sample):
    neighbours: dict[str, set[str]] = {}
    for query in QUERIES:
        search = [h["path"] for h in cli.json("search", query, "--vault", sample, "--limit", "5")["results"]]
        assert search, query
        titles = {h: Path(h).stem for h in search}
        for budget in BUDGETS:
            got = cli.json("recall", query, "--vault", sample, "--budget", str(budget))
            assert got["query"] == query and got["budget"] == budget
            md = got["markdown"]
            assert len(md) <= budget, (query, budget, len(md))
            ranked = [r["path"] for r in got["ranked"]]
            assert ranked and ranked == search[: len(ranked)], (query, budget)
            reasons = [r["reason"] for r in got["ranked"]]
            assert reasons == [f"search rank {i}" for i in range(1, len(ranked) + 1)]
            if budget == 4000:
                assert ranked == search, query
            # the Markdown block shows ranked hits first, in order, then related ones
            at = [md.index(f"({p})") for p in ranked]
            assert at == sorted(at)
            related = [r["path"] for r in got["related"]]
            assert len(set(related)) == len(related)
            assert not set(related) & set(search), (query, budget)
            assert "MEMORY.md" not in related
            if related:
                assert md.index("### Related") > max(at)
            for r in got["related"]:
                assert r["reason"].strip(), r
                assert f"({r['path']})" in md
                linked_to = []
                for hit in ranked:
                    if hit not in neighbours:
                        neighbours[hit] = {n["path"] for n in cli.json(
                            "neighbors", hit, "--vault", sample)["neighbors"]}
                    if r["path"] in neighbours[hit]:
                        linked_to.append(titles[hit])
                assert linked_to, (query, budget, r)
                assert any(t in r["reason"] for t in linked_to), r["reason"]
    # and related notes do show up when there is room
    wide = cli.json("recall", "kafka retention", "--vault", sample, "--budget", "4000", "--limit", "1")
    assert wide["related"], wide


@pytest.mark.slow
def test_recall_tiny_budget_keeps_the_first_hit(cli, sample):
    for query in QUERIES:
        first = cli.json("search", query, "--vault", sample, "--limit", "1")["results"][0]["path"]
        got = cli.json("recall", query, "--vault", sample, "--budget", "200")
        assert [r["path"] for r in got["ranked"]] == [first], query
        assert got["related"] == []
        assert len(got["markdown"]) <= 200
        assert got["markdown"].startswith(f"## Memory recall: {query}\n")
        assert f"({first})" in got["markdown"]
    cli("recall", "kafka", "--vault", sample, "--budget", "199", code=2)
    text = cli("recall", "kafka retention", "--vault", sample, "--budget", "300").stdout
    assert text.startswith("## Memory recall: kafka retention")


def test_recall_related_fill_the_budget_without_displacing_ranked(cli, tmp_path):
    # hub.md is the only hit for "zircon"; spoke notes link to it or from it without the word
    files = {"hub.md": "---\ndescription: the zircon hub\n---\n"
                       "zircon facts. See [[s1]] and [[s1]] and [[s2]].\n",
             "s1.md": "---\ndescription: first spoke\n---\nplain words\n",
             "s2.md": "plain words two\n",
             "s3.md": "points back at [[hub]]\n",
             "far.md": "links [[s3]] only\n"}
    v = make_vault(tmp_path / "v", files)
    got = cli.json("recall", "zircon", "--vault", v, "--budget", "4000")
    assert [r["path"] for r in got["ranked"]] == ["hub.md"]
    assert [r["path"] for r in got["related"]] == ["s1.md", "s2.md", "s3.md"]  # weight 2 first, then by path
    assert [r["reason"] for r in got["related"]] == ["linked from hub", "linked from hub", "links to hub"]
    assert "far.md" not in got["markdown"]
    assert got["markdown"].endswith(
        "\n### Related\n- s1 (s1.md) — linked from hub: first spoke\n"
        "- s2 (s2.md) — linked from hub\n- s3 (s3.md) — links to hub\n")


def test_recall_long_query_still_within_budget(cli, sample):
    query = " ".join(["kafka"] + ["zzqq"] * 60)
    got = cli.json("recall", query, "--vault", sample, "--budget", "200")
    assert len(got["markdown"]) <= 200


def test_recall_ranks_like_search_with_a_config(cli, tmp_path):
    today = dt.date.today().isoformat()
    v = make_vault(tmp_path / "v", {
        "fresh.md": f"---\nupdated: {today}\n---\nOne mention of quokka here among many other words.\n",
        "old.md": "---\nupdated: 2015-01-01\n---\nquokka quokka quokka quokka quokka.\n",
    })
    write(v, ".mdmem/config.toml", "[search]\nrecency_half_life_days = 30\nrecency_weight = 1000\n")
    search = [h["path"] for h in cli.json("search", "quokka", "--vault", v)["results"]]
    plain = [h["path"] for h in cli.json("search", "quokka", "--vault", v, "--no-recency")["results"]]
    assert search == ["fresh.md", "old.md"] and plain == ["old.md", "fresh.md"]  # the config matters
    recall = [r["path"] for r in cli.json("recall", "quokka", "--vault", v)["ranked"]]
    assert recall == search


# ======================================================================
# 3. incremental graph updates agree with a fresh build
# ======================================================================

def graph_state(cli: Cli, v: Path, notes: list[str]) -> dict:
    state = {
        "map": cli.json("graph", "map", "--vault", v),
        "dangling": cli.json("graph", "dangling", "--vault", v),
        "orphans": cli.json("graph", "orphans", "--vault", v),
        "deadends": cli.json("graph", "deadends", "--vault", v),
        "export": json.loads(cli("graph", "export", "--vault", v).stdout),
    }
    for note in notes:
        state[note] = cli.json("backlinks", note, "--vault", v)
        state["n:" + note] = cli.json("neighbors", note, "--vault", v, "--depth", "2")
    return state


def fresh_state(cli: Cli, v: Path, tmp_path: Path, notes: list[str]) -> dict:
    """The same commands on a copy of the vault whose .mdmem/graph.json is deleted."""
    copy = tmp_path / f"fresh-{len(list(tmp_path.glob('fresh-*')))}"
    shutil.copytree(v, copy)
    (copy / ".mdmem" / "graph.json").unlink()
    return graph_state(cli, copy, notes)


def dangling_of(state: dict) -> dict[str, tuple[int, list[str]]]:
    return {d["target"]: (d["count"], d["sources"]) for d in state["dangling"]["dangling"]}


@pytest.mark.slow
def test_incremental_updates_match_a_fresh_build(cli, vault, tmp_path):
    v = vault
    watch = ["memory/people/ana-souza.md", PRIYA, "memory/projects/atlas-billing.md"]
    work = tmp_path / "fresh"
    work.mkdir()

    def check(notes=watch) -> dict:
        inc = graph_state(cli, v, notes)
        assert (v / ".mdmem" / "graph.json").is_file()
        assert inc == fresh_state(cli, v, work, notes)
        return inc

    base = check()
    assert base["map"]["dangling"] == 2

    # 1. the missing note appears: priya's dangling link resolves
    write(v, "memory/references/kafka-retention-policy.md",
          "---\ntype: reference\n---\n# Kafka retention\n\nOwner: [[priya-raman]].\n")
    s = check(watch + ["memory/references/kafka-retention-policy.md"])
    assert "kafka-retention-policy" not in dangling_of(s)
    assert s["map"]["notes"] == 62 and s["map"]["dangling"] == 1
    kafka = s["memory/references/kafka-retention-policy.md"]["backlinks"]
    assert [(b["source"], b["line"]) for b in kafka] == [(PRIYA, 18)]
    assert "memory/references/kafka-retention-policy.md" in [b["source"] for b in s[PRIYA]["backlinks"]]

    # 2. a note others link to is deleted: its backlinks become dangling
    before = cli.json("backlinks", "money-handling", "--vault", v)["backlinks"]
    (v / "memory/protocols/money-handling.md").unlink()
    s = check()
    d = dangling_of(s)
    assert d["money-handling"] == (4, sorted({
        "memory/decisions/decision-integer-cents.md", "memory/decisions/decision-ledger-double-entry.md",
        "memory/feedback/failing-test-first-for-money.md", "memory/projects/lisbon-meetup-talk.md"}))
    assert d["memory/protocols/money-handling.md"] == (2, ["MEMORY.md", "memory/daily/2026-10-23.md"])
    assert d["../protocols/money-handling.md"] == (1, ["memory/people/lucas-pereira.md"])
    assert sum(c for c, _ in d.values()) == 1 + len(before)  # old-vpn-guide + every former backlink
    assert s["map"]["notes"] == 61

    # 3. a note is renamed: links to the old name dangle, its own links still count
    old_backlinks = cli.json("backlinks", "rui-matos", "--vault", v)["backlinks"]
    assert old_backlinks
    (v / "memory/people/rui-matos.md").rename(v / "memory/people/rui-matos-silva.md")
    s = check(watch + ["memory/people/rui-matos-silva.md"])
    assert s["memory/people/rui-matos-silva.md"]["backlinks"] == []
    count, sources = dangling_of(s)["rui-matos"]
    assert sources == sorted({b["source"] for b in old_backlinks if "[[" in b["context"]})
    assert "memory/people/rui-matos-silva.md" in s["orphans"]["orphans"]

    # 4. a note's links are edited: link the renamed note, drop the atlas-billing links
    ana = v / "memory/people/ana-souza.md"
    text = ana.read_text(encoding="utf-8")
    assert "[[atlas-billing]]" in text
    text = text.replace("[[atlas-billing]]", "atlas billing").replace("[[atlas-billing|", "[[nowhere|")
    ana.write_text(text + "\nPairs with [[rui-matos-silva]] and [[rui-matos-silva#Role|Rui]].\n",
                   encoding="utf-8")
    s = check(watch + ["memory/people/rui-matos-silva.md"])
    assert [b["source"] for b in s["memory/people/rui-matos-silva.md"]["backlinks"]] == [
        "memory/people/ana-souza.md"] * 2
    assert "memory/people/ana-souza.md" not in [
        b["source"] for b in s["memory/projects/atlas-billing.md"]["backlinks"]]

    # 5. an embedded image: dangling until the file exists, then no edge at all
    write(v, "memory/projects/home-lab.md",
          (v / "memory/projects/home-lab.md").read_text(encoding="utf-8") + "\n![[diagram.png]]\n")
    s = check()
    assert dangling_of(s)["diagram.png"] == (1, ["memory/projects/home-lab.md"])
    (v / "memory/references/diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    s = check()
    assert "diagram.png" not in dangling_of(s)
    assert not any("diagram" in e["target"] for e in s["export"]["edges"])
    # and it goes away again
    (v / "memory/references/diagram.png").unlink()
    s = check()
    assert dangling_of(s)["diagram.png"] == (1, ["memory/projects/home-lab.md"])

    # 6. a second file with a popular name changes how bare links resolve
    people_ana = s["memory/people/ana-souza.md"]
    assert "memory/projects/atlas-billing.md" in [b["source"] for b in people_ana["backlinks"]]
    write(v, "memory/projects/ana-souza.md", "---\ntype: project\n---\nA project named like a person.\n")
    s = check(watch + ["memory/projects/ana-souza.md"])
    project_sources = {b["source"] for b in s["memory/projects/ana-souza.md"]["backlinks"]}
    assert "memory/projects/atlas-billing.md" in project_sources  # [[ana-souza]] from the same folder
    assert all(src.startswith("memory/projects/") for src in project_sources), project_sources
    assert not project_sources & {b["source"] for b in s["memory/people/ana-souza.md"]["backlinks"]}
    assert "MEMORY.md" in {b["source"] for b in s["memory/people/ana-souza.md"]["backlinks"]}  # a vault path
    (v / "memory/projects/ana-souza.md").unlink()
    s = check()
    assert s["memory/people/ana-souza.md"] == people_ana

    # 7. the kafka note goes away again: back to dangling, from the one source
    (v / "memory/references/kafka-retention-policy.md").unlink()
    s = check()
    assert dangling_of(s)["kafka-retention-policy"] == (1, [PRIYA])


def test_incremental_dangling_spelling_matches_a_fresh_build(cli, hand, tmp_path):
    # f.md writes [[missing]], x.md writes [[Missing]]: one dangling node, spelled "missing" (f sorts first)
    assert [d["target"] for d in cli.json("graph", "dangling", "--vault", hand)["dangling"]] == ["missing"]
    (hand / "f.md").write_text("no links now\n", encoding="utf-8")
    inc = cli.json("graph", "dangling", "--vault", hand)
    copy = tmp_path / "copy"
    shutil.copytree(hand, copy)
    (copy / ".mdmem" / "graph.json").unlink()
    assert inc == cli.json("graph", "dangling", "--vault", copy)  # fresh: "Missing", from x.md


# ======================================================================
# 4. the real fixture vaults against an independent regex count
# ======================================================================

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")
_COMMENT = re.compile(r"%%.*?%%", re.S)
_WIKI = re.compile(r"!?\[\[([^\]\n]+?)\]\]")
# a Markdown link: [text](<dest>) or [text](dest) where dest may hold one level of
# balanced parentheses (CommonMark allows them), then an optional "title"
_MDLINK = re.compile(r"!?\[[^\]\n]*\]\(\s*(<[^>\n]+>|(?:[^()\s]|\([^()\s]*\))+)(?:\s+\"[^\"]*\")?\s*\)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def _strip_code(text: str) -> str:
    """Blank fenced blocks, %% comments %% and inline code spans (on one line)."""
    out, fence = [], None
    for line in text.replace("\r\n", "\n").split("\n"):
        m = _FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                out.append("")
            else:
                out.append(line)
        else:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip()[len(m.group(1)):].strip():
                fence = None
            out.append("")
    text = _COMMENT.sub("", "\n".join(out))
    return _INLINE_CODE.sub("", text)


def regex_targets(text: str) -> list[str]:
    """Link targets as written: wikilinks and embeds (before ``|`` / ``#``), and Markdown links
    that are not URLs (URL-decoded, before ``#``). Markdown links without an extension count as
    note links too, as in Obsidian (``[t](/abc123)``)."""
    text = _strip_code(text)
    out = []
    for m in _WIKI.finditer(text):
        target = re.split(r"\\?\|", m.group(1), maxsplit=1)[0].split("#", 1)[0].strip()
        if target:
            out.append(target)
    for m in _MDLINK.finditer(text):
        dest = m.group(1)
        if dest.startswith("<"):
            dest = dest[1:-1]
        if _SCHEME.match(dest):
            continue
        target = unquote(dest.split("#", 1)[0]).strip()
        if target:
            out.append(target)
    return out


def _nfc_lower(text: str) -> str:
    return unicodedata.normalize("NFC", text).lower()


def is_note_target(target: str) -> bool:
    last = target.rsplit("/", 1)[-1]
    return last.lower().endswith(".md") or not _EXTENSION.search(last)


def independent_facts(root: Path) -> dict:
    """Orphans, dangling note targets and in-degrees from plain regexes over the files."""
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        files += [os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
                  for f in filenames if not f.startswith(".")]
    notes = sorted(f for f in files if f.endswith(".md"))
    by_path = {_nfc_lower(f): f for f in files}
    by_name: dict[str, list[str]] = defaultdict(list)
    for f in files:
        by_name[_nfc_lower(f).rsplit("/", 1)[-1]].append(f)
    linking: dict[str, set[str]] = defaultdict(set)
    dangling: set[str] = set()
    ambiguous: set[str] = set()  # file names a link could not be pinned to
    for source in notes:
        text = (root / source).read_bytes().decode("utf-8", errors="replace")
        for target in regex_targets(text):
            key = _nfc_lower(target)
            wants = [key] if key.endswith(".md") else [key, key + ".md"]
            if key.startswith(("./", "../")):  # relative to the linking note's folder
                folder = _nfc_lower(posixpath.dirname(source))
                joined = [posixpath.normpath(posixpath.join(folder, w)) for w in wants]
                found = {by_path[p] for p in joined if p in by_path}
            elif key.startswith("/"):  # a vault path
                found = {by_path[w[1:]] for w in wants if w[1:] in by_path}
            elif "/" in key:  # folder/name: the files whose path ends with it
                found = {f for w in wants for f in by_name.get(w.rsplit("/", 1)[-1], [])
                         if _nfc_lower(f) == w or _nfc_lower(f).endswith("/" + w)}
            else:  # a bare name: the one file of that name
                found = {f for w in wants for f in by_name.get(w, [])}
            if len(found) > 1:
                ambiguous.update(w.rsplit("/", 1)[-1] for w in wants)
            elif found:
                hit = found.pop()
                if hit.endswith(".md") and hit != source:
                    linking[hit].add(source)
            elif is_note_target(target):
                dangling.add(key[:-3] if key.endswith(".md") else key)
    return {
        "notes": notes,
        "in": {n: linking[n] for n in notes},
        "orphans": {n for n in notes if not linking[n]},
        "dangling": dangling,
        "ambiguous": ambiguous,
    }


def _copy_writable(src: Path, dest: Path) -> Path:
    """Copy a fixture vault (read-only files) so that mdmem can write .mdmem/ inside it."""
    shutil.copytree(src, dest, copy_function=shutil.copyfile)
    for dirpath, dirnames, filenames in os.walk(dest):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            p.chmod(p.stat().st_mode | stat.S_IWUSR)
    dest.chmod(dest.stat().st_mode | stat.S_IWUSR)
    return dest


REAL = {  # name: (vault folder inside the fixture, notes)
    "obsidian-tasks-docs": ("docs", 118),
    "dwarvesf-brain": ("", 885),
}


@pytest.fixture(scope="module", params=sorted(REAL))
def real(request, tmp_path_factory):
    name = request.param
    sub, count = REAL[name]
    src = VAULTS / name / sub if sub else VAULTS / name
    v = _copy_writable(src, tmp_path_factory.mktemp(name) / "vault")
    cli = Cli()
    cli("index", "--vault", v)  # a folder of notes with nothing of a vault (dwarvesf-brain): indexed as it is
    export = json.loads(cli("graph", "export", "--vault", v).stdout)
    indegree: dict[str, set[str]] = defaultdict(set)
    for e in export["edges"]:
        if not e["target"].startswith("?"):
            indegree[e["target"]].add(e["source"])
    return {
        "name": name, "vault": v, "count": count, "cli": cli,
        "mdmem": {
            "notes": sorted(n["id"] for n in export["nodes"] if n["kind"] == "note"),
            "in": indegree,
            "orphans": set(cli.json("graph", "orphans", "--vault", v)["orphans"]),
            "dangling": [d["target"] for d in cli.json("graph", "dangling", "--vault", v)["dangling"]],
            "map": cli.json("graph", "map", "--vault", v),
        },
        "regex": independent_facts(v),
    }


def _pinned(path: str, ambiguous: set[str]) -> bool:
    """Whether the independent count can speak for this note (no ambiguous link could mean it)."""
    name = _nfc_lower(path).rsplit("/", 1)[-1]
    return name not in ambiguous and name[:-3] not in ambiguous


# No disagreements are tolerated: on both vaults the regex count and mdmem agree exactly, on every
# orphan, every dangling note target and every note's set of linking notes. Ambiguous targets (a bare
# name shared by several files) are skipped by the comparison; there are none today.

@pytest.mark.slow
def test_real_vault_orphans(real):
    ours, theirs = real["regex"], real["mdmem"]
    assert len(ours["ambiguous"]) <= 3  # the skip must not hollow the comparison out (0 today)
    assert theirs["notes"] == ours["notes"] and len(ours["notes"]) == real["count"]
    pinned = lambda paths: {p for p in paths if _pinned(p, ours["ambiguous"])}  # noqa: E731
    assert pinned(theirs["orphans"]) == pinned(ours["orphans"])
    assert theirs["map"]["orphans"] == len(theirs["orphans"])


@pytest.mark.slow
def test_real_vault_dangling_note_targets(real):
    ours, theirs = real["regex"], real["mdmem"]
    got = {_nfc_lower(t) for t in theirs["dangling"] if is_note_target(t)}
    got = {t[:-3] if t.endswith(".md") else t for t in got}
    skip = {t for t in got | ours["dangling"] if t.rsplit("/", 1)[-1] in ours["ambiguous"]}
    assert got - skip == ours["dangling"] - skip
    assert theirs["map"]["dangling"] == len(theirs["dangling"])
    if real["name"] == "dwarvesf-brain":
        assert 89 <= len(ours["dangling"]) <= 165  # SOURCES.md: ~127 unresolved targets (notes and images)


@pytest.mark.slow
def test_real_vault_in_degree_of_every_note(real):
    ours, theirs = real["regex"], real["mdmem"]
    diff = {
        n: (len(ours["in"][n]), len(theirs["in"].get(n, ())))
        for n in ours["notes"]
        if _pinned(n, ours["ambiguous"]) and ours["in"][n] != theirs["in"].get(n, set())
    }
    assert diff == {}
    assert sum(len(s) for s in ours["in"].values()) > len(ours["notes"]) // 2  # a real graph, not empty


@pytest.mark.slow
def test_real_vault_backlinks_command(real):
    ours = real["regex"]
    top = sorted(ours["notes"], key=lambda n: (-len(ours["in"][n]), n))[:3]
    for note in top:
        got = real["cli"].json("backlinks", note, "--vault", real["vault"])
        assert got["note"] == note
        assert {b["source"] for b in got["backlinks"]} == ours["in"][note]
        assert len(got["backlinks"]) >= len(ours["in"][note])
        assert all(b["line"] >= 1 and b["context"] for b in got["backlinks"])

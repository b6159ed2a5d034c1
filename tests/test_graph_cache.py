"""The cached link graph: incremental updates equal a fresh build; PageRank
equals networkx's reference implementation."""

from __future__ import annotations

import os
import random

import pytest
from networkx.algorithms.link_analysis import pagerank_alg

from mdmem.engine.memory import Memory


def snapshot(vault):
    """Everything observable about the graph, from a fresh Memory."""
    with Memory.open(vault) as mem:
        mem.refresh()
        g = mem.graph()
        edges = sorted((s, t, d["weight"], d["embed"], tuple(d["kinds"]), tuple(d["lines"]))
                       for s, t, d in g.g.edges(data=True))
        nodes = sorted((n, d.get("kind"), d.get("title"), d.get("type")) for n, d in g.g.nodes(data=True))
        return nodes, edges, g.orphans(), [(d.target.lower(), d.count, d.sources) for d in g.dangling()]


def fresh(vault):
    (vault / ".mdmem" / "graph.json").unlink(missing_ok=True)
    return snapshot(vault)


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))  # a new mtime even on coarse clocks


@pytest.mark.slow
def test_random_edits_match_a_fresh_build(tmp_path):
    rng = random.Random(7)
    vault = tmp_path / "v"
    (vault / "memory").mkdir(parents=True)
    (vault / "MEMORY.md").write_text("# index\n")
    names = [f"n{i}" for i in range(30)]
    folders = ["memory/a", "memory/b", "memory/a/deep"]

    def body(name):
        targets = rng.sample(names + ["ghost", "ghost.md", "pic.png", "Dup"], 4)
        forms = [f"[[{t}]]" if i % 2 else f"![[{t}]]" for i, t in enumerate(targets)]
        return f"---\nrelated: \"[[{rng.choice(names)}]]\"\n---\n# {name}\n" + " ".join(forms) + "\n"

    live: dict[str, str] = {}
    for name in names[:20]:
        rel = f"{rng.choice(folders)}/{name}.md"
        write(vault / rel, body(name))
        live[name] = rel
    snapshot(vault)  # cache a graph
    for step in range(25):
        action = rng.choice(["edit", "add", "remove", "rename", "file", "dup"])
        if action == "edit" and live:
            name = rng.choice(sorted(live))
            write(vault / live[name], body(name))
        elif action == "add":
            name = rng.choice([n for n in names if n not in live] or names)
            if name not in live:
                live[name] = f"{rng.choice(folders)}/{name}.md"
                write(vault / live[name], body(name))
        elif action == "remove" and live:
            name = rng.choice(sorted(live))
            (vault / live.pop(name)).unlink()
        elif action == "rename" and live:
            name = rng.choice(sorted(live))
            new = f"{rng.choice(folders)}/{name}.md"
            if new != live[name]:
                os.replace(vault / live[name], vault / new)
                live[name] = new
        elif action == "file":
            pic = vault / "memory" / "pic.png"
            pic.unlink() if pic.exists() else pic.write_bytes(b"\x89PNG")
        elif action == "dup":  # a second Dup.md changes how [[Dup]] resolves for some notes
            dup = vault / rng.choice(folders) / "Dup.md"
            dup.unlink() if dup.exists() else write(dup, "# dup\n")
        incremental = snapshot(vault)
        assert incremental == fresh(vault), f"step {step}: {action}"


def test_graph_cache_survives_damage(tmp_path, vault):
    expected = fresh(vault)
    (vault / ".mdmem" / "graph.json").write_bytes(b"not json")
    assert snapshot(vault) == expected


@pytest.mark.parametrize("weight", ["weight", None])
def test_pagerank_matches_networkx(vault, weight):
    with Memory.open(vault) as mem:
        mem.refresh()
        graph = mem.graph()
        notes = graph.g.subgraph(graph.notes())
        if weight is None:  # the same walk with every weight 1
            for _, _, data in graph.g.edges(data=True):
                data["weight"] = 1
        reference = pagerank_alg._pagerank_python(notes, alpha=0.85, weight="weight", tol=1e-12)
        graph._pagerank = None
        ours = graph.pagerank(tol=1e-12)
    assert ours.keys() == reference.keys()
    assert max(abs(ours[k] - reference[k]) for k in ours) < 1e-9

"""``mdmem recall``: ranked search hits plus a one-hop graph expansion around
them, rendered as a Markdown block for a prompt that never exceeds its budget.

Ranked hits come first and are never displaced: related notes (linked to or
from a hit, not themselves hits) only fill what budget is left, strongest
first (link weight, discounted by the rank of the hit they hang off).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .core import Memory
from .index import Recency

DEFAULT_BUDGET = 4000


@dataclass(frozen=True)
class RecallItem:
    path: str
    title: str
    reason: str
    score: float
    text: str  # what the Markdown block shows of the note


@dataclass(frozen=True)
class RecallResult:
    query: str
    budget: int
    ranked: list[RecallItem]
    related: list[RecallItem]
    markdown: str


def _plain(snippet: str) -> str:
    return snippet.replace("**", "")


def recall(
    mem: Memory, query: str, budget: int = DEFAULT_BUDGET, limit: int = 5, recency: Recency = Recency()
) -> RecallResult:
    hits = mem.search(query, limit=limit, recency=recency).results
    graph = mem.graph()
    shown = {hit.path for hit in hits}
    weight: dict[str, float] = defaultdict(float)
    why: dict[str, list[str]] = defaultdict(list)
    for rank, hit in enumerate(hits, 1):
        for nb in graph.neighbors(hit.path, depth=1):
            if nb.path in shown or nb.path == "MEMORY.md":  # the index an agent already has
                continue
            weight[nb.path] += nb.weight / rank
            verb = {"out": "linked from", "in": "links to", "both": "linked with"}[nb.direction]
            why[nb.path].append(f"{verb} {hit.title}")
    candidates = sorted(weight, key=lambda p: (-weight[p], p))[: limit * 2]

    shown_query = query if len(query) <= budget // 4 else query[: budget // 4 - 1].rstrip() + "…"
    header = f"## Memory recall: {shown_query}\n"
    used = len(header)
    ranked: list[RecallItem] = []
    blocks: list[str] = [header]
    for rank, hit in enumerate(hits, 1):
        note = mem.store.get(hit.path)
        description = str(note.frontmatter.get("description", "")).strip() if note else ""
        body = "\n".join(x for x in (description, _plain(hit.snippet)) if x)
        head = f"\n### {hit.title} ({hit.path})\n"
        room = budget - used - len(head) - 1
        if room < 40:
            break
        text = body if len(body) <= room else body[: room - 1].rstrip() + "…"
        block = head + text + "\n"
        blocks.append(block)
        used += len(block)
        ranked.append(RecallItem(hit.path, hit.title, f"search rank {rank}", hit.score, text))

    related: list[RecallItem] = []
    title_line = "\n### Related\n"
    for path in candidates:
        note = mem.store.get(path)
        if note is None:
            continue
        description = str(note.frontmatter.get("description", "")).strip()
        reason = "; ".join(why[path][:2])
        line = f"- {note.title} ({path}) — {reason}" + (f": {description}" if description else "") + "\n"
        extra = len(line) + (len(title_line) if not related else 0)
        if used + extra > budget:
            continue
        if not related:
            blocks.append(title_line)
        blocks.append(line)
        used += extra
        related.append(RecallItem(path, note.title, reason, round(weight[path], 4), description))
    return RecallResult(query, budget, ranked, related, "".join(blocks))

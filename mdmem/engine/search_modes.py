"""``search --mode semantic|hybrid|auto``: ranked notes from the vectors alone, or the
vectors fused with BM25F (:mod:`mdmem.engine.vectors`), with the same filters as the
lexical search and, with ``explain``, each signal's rank and score per hit. ``auto`` is
hybrid where the vault has vectors (``mdmem index --semantic``) and the extra is installed,
else lexical."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from mdmem.base.errors import UsageError
from mdmem.base.settings import Recency
from mdmem.engine.index import Filters, SearchHit, SearchResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from mdmem.base.settings import Fusion
    from mdmem.engine.memory import Memory

POOL = 50  # notes taken from the vectors before fusing
LEXICAL_POOL = 20  # ... and from BM25F (at least ``limit``)
# Why 20 and not 50 (hybrid warm p95 at 10k): Whoosh prunes less the more hits it must keep. CPU time of
# ``Memory.lexical(q, k, snippets=False)`` on the generated 10k vault (bench.py's 64 queries x 5, pool sizes in random
# order, load 5.4): k = 10 / 20 / 25 / 30 / 50 mean 16.0 / 18.2 / 19.5 / 20.2 / 22.2 ms, p95 43 / 56 / 62 / 59 / 77.
# The calibrated fusion's z-scores are taken over this pool, so quality was checked on the dev splits: re-fusing
# ``bench_recall.py --candidates`` lists cut to k (Hit@1 / R@5 any / R@5 all / MRR), REALTALK dev k = 15: 0.696 /
# 0.917 / 0.734 / 0.791, 20: 0.696 / 0.920 / 0.734 / 0.790, 25-50: 0.696 / 0.920 / 0.734 / 0.791; LongMemEval dev
# (first 120 by sha256) k = 10: 0.917 / 0.975 / 0.875 / 0.945, 15-20: 0.917 / 0.983 / 0.900 / 0.946, 25-50: 0.917 /
# 0.983 / 0.892 / 0.946; the real runs at 20: docs/benchmarks-history.md ("hybrid at 10k").


def allowed(mem: Memory, filters: Filters) -> Callable[[str], bool] | None:
    """A path test that applies ``filters`` to a note of the cache (index notes are out unless
    ``filters.index``; None: no filter at all).

    With the default filters and vectors made from the notes cache as it is now (the same epoch and generation:
    every path they hold is a cached note), the test is a look-up in the index notes that lexical search masks
    (:meth:`~mdmem.engine.index.SearchIndex.masked`, read once a searcher), instead of reading and decoding each
    note the vectors visit from the cache. Measured on the generated 10k vault (bench.py's 64 queries x 3, hybrid,
    ~75 notes visited a query): those checks took 6.7 ms p50 (28 ms mean, load 3.4) and take 0.13 ms
    (docs/benchmarks-history.md, "hybrid at 10k")."""
    if filters == Filters(index=True):
        return None
    if filters == Filters() and _vectors_current(mem):
        masked = mem.index.masked()
        return lambda path: path not in masked
    from mdmem.base.layout import is_index_note, nfc

    folder = nfc(filters.folder.strip("/")) + "/" if filters.folder else None
    tag = filters.tag.lower().lstrip("#").rstrip("/") if filters.tag else None

    def ok(path: str) -> bool:
        note = mem.store.get(path)
        if note is None:
            return False
        if not filters.index and is_index_note(note.path, note.frontmatter):
            return False
        if filters.type and note.type != filters.type.lower():
            return False
        if filters.not_type and note.type == filters.not_type.lower():
            return False
        if tag and not any(t == tag or t.startswith(tag + "/") for t in note.tags):
            return False
        if folder and not nfc(path).startswith(folder):
            return False
        if filters.after and (note.date or "") < filters.after:
            return False
        return not (filters.before and (note.date or "9999") > filters.before + "~")

    return ok


def _vectors_current(mem: Memory) -> bool:
    """The loaded vectors match the notes cache's epoch and generation, and there is an index to mask with."""
    from mdmem.engine.vectors import loaded

    vectors, _ = loaded(mem)
    return vectors is not None and (vectors.epoch, vectors.gen) == mem.store.state()[:2] and mem.index.exists()


def auto_mode(mem: Memory) -> str:
    """``auto``: hybrid when the vault has vectors and the model's extra is installed, else lexical (the
    model, numpy included, is then never imported)."""
    from mdmem.engine.embed import missing
    from mdmem.engine.vectors import FILE

    if (mem.state_dir / FILE).exists() and not missing(mem.settings.semantic.model):
        return "hybrid"
    return "lexical"


def _hit(mem: Memory, path: str, score: float, terms: set[str], passage: int | None = None) -> SearchHit:
    """A hit; its snippet comes from the note's best passage by meaning when there is one (the part of a
    long note the vectors matched), else from the window of the whole note richest in query terms."""
    from mdmem.engine.index import snippet
    from mdmem.engine.vectors import best_passage

    note = mem.store.get(path)
    title = note.title if note else path.rsplit("/", 1)[-1][:-3]
    text = best_passage(mem, path, passage) if passage is not None else ""
    return SearchHit(path, title, round(score, 4), snippet(text or mem.text_of(path), terms), note.date if note else None)


def search(mem: Memory, query: str, limit: int, filters: Filters, recency: Recency, mode: str, explain: bool,
           fusion: Fusion | None = None) -> SearchResult:
    from mdmem.base.settings import MODES, Fusion
    from mdmem.engine.vectors import fuse, may_lead
    from mdmem.engine.vectors import search as by_meaning

    if mode not in MODES:
        raise UsageError(f"--mode must be one of: {', '.join(MODES)}")
    from mdmem.text.query import check_query

    check_query(query)
    if mode == "auto":
        mode = auto_mode(mem)
        if mode == "lexical":
            hits = mem.lexical(query, limit, filters, recency)
            if explain:
                hits = [replace(h, signals={"lexical": {"rank": i, "score": h.score}}) for i, h in enumerate(hits, 1)]
            return SearchResult(query, hits, mode)
    from mdmem.engine.embed import require

    require(mem.settings.semantic.model)
    fusion = fusion or Fusion()
    pool = max(limit, POOL) if mode == "hybrid" else limit
    near = by_meaning(mem, query, pool, allowed(mem, filters))
    sem_rank = {m.path: (i, m) for i, m in enumerate(near, 1)}
    terms = mem.index.terms(query) if mem.index.exists() else set()
    if mode == "semantic":
        hits = [_hit(mem, m.path, m.score, terms, m.chunk) for m in near[:limit]]
        if explain:
            hits = [replace(h, signals={"semantic": {"rank": i, "score": near[i - 1].score,
                                                     "passage": near[i - 1].chunk}})
                    for i, h in enumerate(hits, 1)]
        return SearchResult(query, hits, mode)
    lexical = mem.lexical(query, max(limit, LEXICAL_POOL), filters, recency, snippets=False)
    lex_rank = {h.path: (i, h) for i, h in enumerate(lexical, 1)}
    semantic = [(m.path, m.score) for m in near]
    fused = fuse([(h.path, h.score) for h in lexical], semantic, fusion, query)[:limit]
    hits = []
    for path, score in fused:
        hit = _hit(mem, path, score, terms, sem_rank[path][1].chunk if path in sem_rank else None)
        if explain:
            signals = {"fused": {"score": round(score, 6), "method": fusion.method,
                                 "weights": [fusion.lexical_weight, fusion.semantic_weight]}
                       | ({"k": fusion.k} if fusion.method == "rrf" else {})
                       | ({"vectors_may_lead": may_lead(semantic, query, fusion.lead)}
                          if fusion.method == "calibrated" else {})}
            if path in lex_rank:
                signals["lexical"] = {"rank": lex_rank[path][0], "score": lex_rank[path][1].score}
            if path in sem_rank:
                signals["semantic"] = {"rank": sem_rank[path][0], "score": sem_rank[path][1].score,
                                       "passage": sem_rank[path][1].chunk}
            hit = replace(hit, signals=signals)
        hits.append(hit)
    return SearchResult(query, hits, mode)

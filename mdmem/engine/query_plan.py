"""How a parsed query is run: the shape Whoosh gets from :meth:`mdmem.engine.index.SearchIndex.search`.

Three rewrites of Whoosh's query objects, each measured (with :mod:`mdmem.engine.index`, the only modules that
touch Whoosh's queries; :mod:`mdmem.engine.whoosh_load` loads it first):

* :func:`lift_nots`: ``a NOT b`` as people mean it;
* :func:`union_matchers`: Whoosh's tree of union matchers, which can skip blocks, for every OR;
* :func:`common_split`: a question's common words only add to notes that hold one of its rarer words, once
  enough notes do (Lucene's "common terms" query), which is what made a question slow at 10k notes.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import Any

from mdmem.engine.whoosh_load import load_whoosh

load_whoosh()

from whoosh import query as q  # noqa: E402

COMMON = 0.10  # a word in more than this share of the notes is common (see common_split)


def lift_nots(query: Any) -> Any:
    """With OR as the default operator, ``a NOT b`` parses as ``a OR (NOT b)``,
    which matches nearly everything; make it ``a ANDNOT b`` as people mean it."""
    if isinstance(query, (q.And, q.Or)):
        query = type(query)([lift_nots(c) for c in query.subqueries], boost=query.boost)
    if isinstance(query, q.Or):
        keep = [c for c in query.subqueries if not isinstance(c, q.Not)]
        drop = [c.query for c in query.subqueries if isinstance(c, q.Not)]
        if drop:
            positive = (q.Or(keep) if len(keep) > 1 else keep[0]) if keep else q.Every()
            return q.AndNot(positive, q.Or(drop) if len(drop) > 1 else drop[0])
    return query


def union_matchers(query: Any) -> Any:
    """Score OR queries with Whoosh's tree of union matchers, which can skip
    blocks that cannot reach the top N, instead of the "preload every match"
    matcher it picks for segments under 5,000 documents (~35% faster warm
    queries at 10k notes, same ranking)."""
    if isinstance(query, q.Or):
        query.matcher_type = q.Or.DEFAULT_MATCHER
    for child in query.children():
        union_matchers(child)
    return query


def positive_terms(query: Any) -> set[str]:
    """The body terms a query asks for (not those under a NOT)."""
    if isinstance(query, q.Not):
        return set()
    if query.is_leaf():
        return {text for field, text in query.iter_all_terms() if field in ("title", "aliases", "body")}
    return set().union(*(positive_terms(c) for c in query.children()))


def common_split(query: Any, searcher: Any, pool: int, allowed: Callable[[int], bool] | None = None) -> Any:
    """``rare ANDMAYBE common`` for an OR of words some of which are common, when at least ``pool`` notes hold
    a rare one; else the query as it is.

    The parser makes a flat OR of terms, a word in each default field (``title:limit OR body:limit OR …``). A
    term is *common* when more than :data:`COMMON` of the notes hold it; any clause that is not a plain term (a
    phrase, a prefix, a group) counts as rare, so it is always scored. A word can be rare in the titles and
    common in the bodies: the notes with it in their title are then scored, as they should be. The notes that
    hold a rare term get exactly the scores they had (``ANDMAYBE`` adds the common terms' BM25F where a note has
    them); what changes is that a note holding only common terms is no longer scored, once ``pool`` notes, the
    most the search keeps, hold a rare one. Fewer than that, and the query runs whole, so a short list is never
    made shorter (which is also why a vault of a few dozen notes is not touched at all).

    Why (warm p95 at 10k notes): Whoosh scores every note an OR matches, in Python (~30 us a note);
    a question such as "how do we handle outage limit monthly in teste punxo" ORs four words each in 28-50%
    of the generated 10k vault's notes and one in 70, so it scored ~8,000 notes to keep 30. CPU time of
    ``Memory.lexical(q, 10)`` over bench.py's 56 terms + 8 questions x 3 (one process, load ~2), p50 / p95:
    as before 15.1 / 52.3 ms (questions 21.2 / 77.2), split at 10% 12.5 / 28.5 (questions 18.5 / 31.5); the
    same ten notes in the same order for 63 of the 64 queries and the same first note for all 64. On real text,
    a vault of the 7,952 sessions of LongMemEval_s's dev split pooled (~12 kB notes; its 181 questions, gold =
    their answer sessions; 4 interleaved runs): CPU p50 / p95 68-72 / 268-338 ms -> 45-47 / 128-133 ms, Hit@1
    0.343 / R@5 0.619 / MRR 0.463 -> 0.343 / 0.619 / 0.464 (18 lists and 4 first notes changed). Other shares
    there: 5% 40 / 110 ms but Hit@1 0.326, R@5 0.597; 2% 0.337 / 0.608: 10% is kept. The per-question vaults of
    the dev sets (20-50 notes) never reach the split: REALTALK dev and LongMemEval dev (first 120) gave the same
    lists, question for question.

    ``allowed`` (a mask's test of a doc number): only those notes count toward ``pool``. Without it, a search that
    hides imported sessions counted the rare words of sessions it never returns, and with 10,000 of them recall
    got 0-8 notes instead of 10 for 9 of 30 questions (decision 087).
    """
    if not isinstance(query, q.Or) or len(query.subqueries) < 2:
        return query
    notes = searcher.doc_count()
    cut = COMMON * notes
    rare, common = [], []
    for clause in query.subqueries:
        if _plain_words(clause) and max(searcher.doc_frequency(f, t) for f, t in clause.iter_all_terms()) > cut:
            common.append(clause)
        else:
            rare.append(clause)
    if not rare or not common:
        return query
    wanted = q.Or(rare) if len(rare) > 1 else rare[0]
    docs = searcher.docs_for_query(wanted)
    if allowed is not None:  # a filter or a mask: only the notes the search may return count
        docs = (d for d in docs if allowed(d))
    if sum(1 for _ in islice(docs, pool)) < pool:
        return query
    also = q.Or(common) if len(common) > 1 else common[0]
    return union_matchers(q.AndMaybe(wanted, also))


def _plain_words(clause: Any) -> bool:
    """A term, or an OR of terms with no boost of its own."""
    if isinstance(clause, q.Term):
        return True
    return isinstance(clause, q.Or) and clause.boost == 1.0 and all(type(c) is q.Term for c in clause.subqueries)

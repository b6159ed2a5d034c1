#!/usr/bin/env python3
"""Session-level retrieval figures for mdmem's search on LongMemEval_s; not a test.

    python scripts/bench_recall.py --data /work/data/longmemeval/longmemeval_s.json \\
        --split dev --modes lexical,semantic,hybrid [--limit N] [--work DIR] [--json]

The data file is LongMemEval_s (a JSON list of questions, each with its own haystack
of about 50 chat sessions); it is not in the repository (about 260 MB): see
``docs-notes/longmemeval.md`` for where it came from and how to rebuild it.

For every question (abstention questions, ``question_id`` ending in ``_abs``, are
skipped unless ``--include-abs``, as the LongMemEval paper does for retrieval):

1. A vault is written: ``MEMORY.md`` (a heading) and ``memory/daily/`` with one note
   per haystack session, ``YYYY-MM-DD-sNN.md`` (its date, then its index in the
   haystack), frontmatter ``type: daily``, ``date``, ``session_id``, ``time``, and the
   turns as ``**user:** text`` / ``**assistant:** text`` paragraphs.
2. ``Memory.open(vault).refresh()`` builds the lexical index (timed: build_s); when a
   semantic mode is asked for, ``refresh(semantic=True)`` then adds the vectors
   (timed apart: vectors_s).
3. ``mem.search(question, limit=10, mode=mode)`` for each mode; its hits are mapped
   back to session ids. One untimed warm-up search per mode, then ``--repeats`` timed
   searches (the median is the question's latency).

Metrics, per mode, overall and per ``question_type`` (gold = ``answer_session_ids``):

* Hit@1: the first hit is a gold session.
* R@k any (``recall_any@k``): at least one gold session in the first k hits.
* R@k all (``recall_all@k``): every gold session in the first k hits.
* MRR@10: 1 / rank of the first gold hit, 0 when none is in the first 10.
* NDCG@10: binary relevance, ideal = all gold sessions first (capped at 10).

Split: a question is in ``dev`` when ``int(sha256(question_id)[:8], 16) % 100 < 40``,
else in ``test`` (about 40 / 60; stable, needs no file).

``--granularity pair`` writes one note per user turn (with the assistant replies
that follow it) instead of one per session, asks search for 100 notes and ranks each
session by its best note: passage-level retrieval simulated with the index as it is.

``--data`` may also be REALTALK (a folder of ``Chat_*.json``, ``scripts/realtalk.py``): one vault per
conversation, shared by its questions. ``--candidates`` keeps each question's raw BM25F and vector lists
(re-scored by ``scripts/tune_fusion.py``); ``--embed-cache FILE`` keeps embeddings by (model, text sha1).
``--granularity window`` writes one note per ~90 words of consecutive turns (passage-level BM25F simulated).

``--records FILE`` appends one JSON line per question as it finishes, and
``--resume`` skips the questions already in that file (and counts them in the
figures), so a long run can be split into several.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MODES = ("lexical", "semantic", "hybrid")
KS = (1, 5, 10)
LIMIT = 10
PAIR_POOL = 100  # notes asked for at ``pair`` granularity, folded into sessions
CAND_POOL = 50  # --candidates: hits kept from each list


# data ------------------------------------------------------------------------
def split_of(qid: str) -> str:
    """``dev`` for about 40% of the question ids, ``test`` for the rest (sha256, stable)."""
    return "dev" if int(hashlib.sha256(qid.encode("utf-8")).hexdigest()[:8], 16) % 100 < 40 else "test"


def load(path: Path, split: str, include_abs: bool) -> tuple[list[dict], dict]:
    """LongMemEval's JSON list, or REALTALK (a folder of ``Chat_*.json``, or one: ``scripts/realtalk.py``)."""
    if path.is_dir() or path.name.startswith("Chat_"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from realtalk import load as load_realtalk

        data = load_realtalk(path)
    else:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    stats = {"file_questions": len(data), "abstention_skipped": 0, "no_gold_skipped": 0}
    out = []
    for q in sorted(data, key=lambda q: q["question_id"]):
        if split != "all" and split_of(q["question_id"]) != split:
            continue
        if q["question_id"].endswith("_abs") and not include_abs:
            stats["abstention_skipped"] += 1
            continue
        if not set(q["answer_session_ids"]) & set(q["haystack_session_ids"]):
            stats["no_gold_skipped"] += 1
            continue
        out.append(q)
    return out, stats


def iso_date(stamp: str) -> tuple[str, str]:
    """``2023/05/20 (Sat) 02:21`` -> (``2023-05-20``, ``02:21``)."""
    parts = stamp.split()
    day = parts[0].replace("/", "-")
    return day, (parts[-1] if len(parts) > 1 and ":" in parts[-1] else "")


def passages(turns: list[dict], granularity: str) -> list[list[dict]]:
    """A session's turns as one passage (``session``) or one per user turn with the
    replies that follow it (``pair``)."""
    if granularity == "session":
        return [turns]
    out: list[list[dict]] = []
    if granularity == "window":  # consecutive turns of about 90 words (text/passages.py's size)
        size = 0
        for t in turns:
            if not out or size >= 90:
                out.append([])
                size = 0
            out[-1].append(t)
            size += len(t["content"].split())
        return out
    for t in turns:
        if t["role"] == "user" or not out:
            out.append([])
        out[-1].append(t)
    return out


def write_vault(q: dict, folder: Path, embed_model: str | None, granularity: str = "session") -> dict[str, str]:
    """The question's haystack as a vault; returns {vault path: session id}."""
    if folder.exists():
        shutil.rmtree(folder)
    daily = folder / "memory" / "daily"
    daily.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    if embed_model:
        (folder / ".mdmem").mkdir()
        (folder / ".mdmem" / "config.toml").write_text(f'[semantic]\nmodel = "{embed_model}"\n', encoding="utf-8")
    mapping = {}
    width = max(2, len(str(len(q["haystack_sessions"]) - 1)))
    for i, (sid, stamp, turns) in enumerate(zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"])):
        day, clock = iso_date(stamp)
        parts = passages(turns, granularity)
        for j, part in enumerate(parts):
            name = f"{day}-s{i:0{width}d}.md" if granularity == "session" else f"{day}-s{i:0{width}d}-p{j:02d}.md"
            lines = ["---", "type: daily", f"date: {day}", f"session_id: {json.dumps(sid)}"]
            if clock:
                lines.append(f'time: "{clock}"')
            lines += ["---", ""]
            for t in part:
                lines += [f"**{t['role']}:** {t['content'].strip()}", ""]
            (daily / name).write_text("\n".join(lines), encoding="utf-8")
            mapping[f"memory/daily/{name}"] = sid
    return mapping


def sessions_ranked(paths: list[str], mapping: dict[str, str]) -> list[str | None]:
    """Hits (notes) -> sessions in order of their best-ranked note, at most :data:`LIMIT`."""
    out: list[str | None] = []
    for p in paths:
        sid = mapping.get(p)
        if sid is None or sid not in out:
            out.append(sid)
        if len(out) == LIMIT:
            break
    return out


# metrics -----------------------------------------------------------------------
def score(ranked: list[str | None], gold: set[str]) -> dict:
    first = next((i for i, s in enumerate(ranked[:LIMIT], 1) if s in gold), None)
    m = {"hit@1": float(bool(ranked) and ranked[0] in gold), "mrr": 1.0 / first if first else 0.0,
         "first_gold_rank": first}
    for k in (5, 10):
        top = set(ranked[:k])
        m[f"r@{k}_any"] = float(bool(top & gold))
        m[f"r@{k}_all"] = float(gold <= top)
    dcg = sum(1.0 / math.log2(i + 1) for i, s in enumerate(ranked[:LIMIT], 1) if s in gold)
    idcg = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(gold), LIMIT) + 1))
    m["ndcg@10"] = dcg / idcg if idcg else 0.0
    return m


METRICS = ("hit@1", "r@5_any", "r@5_all", "r@10_any", "r@10_all", "mrr", "ndcg@10")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else float("nan")


def summarise(records: list[dict], modes: list[str]) -> dict:
    out: dict = {}
    for mode in modes:
        rows = [r for r in records if mode in r["modes"]]
        groups: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            groups["all"].append(r)
            groups[r["question_type"]].append(r)
        table = {}
        for name, rs in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0])):
            table[name] = {"n": len(rs)} | {
                m: round(statistics.fmean(r["modes"][mode][m] for r in rs), 4) for m in METRICS
            }
        lat = [r["modes"][mode]["latency_ms"] for r in rows]
        cold = [r["modes"][mode]["cold_ms"] for r in rows]
        out[mode] = {
            "questions": len(rows),
            "metrics": table,
            "latency_ms": {"p50": round(pct(lat, 0.5), 2), "p95": round(pct(lat, 0.95), 2),
                           "first_query_p50": round(pct(cold, 0.5), 2)} if rows else {},
        }
    built = [r for r in records if not r.get("shared_vault")]  # REALTALK: one vault a conversation
    builds = [r["build_s"] for r in built]
    vecs = [r["vectors_s"] for r in built if r.get("vectors_s") is not None]
    chunks = sum(r.get("chunks") or 0 for r in built if r.get("vectors_s") is not None)
    out["build"] = {
        "vaults": len(built),
        "sessions_mean": round(statistics.fmean(r["sessions"] for r in built), 1) if built else 0,
        "notes_mean": round(statistics.fmean(r.get("notes", r["sessions"]) for r in built), 1) if built else 0,
        "lexical_build_s": {"p50": round(pct(builds, 0.5), 3), "p95": round(pct(builds, 0.95), 3),
                            "total": round(sum(builds), 1)} if builds else {},
        "vectors_s": {"p50": round(pct(vecs, 0.5), 3), "p95": round(pct(vecs, 0.95), 3), "total": round(sum(vecs), 1),
                      "chunks": chunks, "chunks_per_s": round(chunks / sum(vecs), 1) if sum(vecs) else None}
        if vecs else {},
    }
    return out


# run --------------------------------------------------------------------------
def cache_embeddings(file: Path) -> None:
    """Make every model's ``embed`` look texts up in a SQLite file first (bench only): tuning runs
    re-build the same vaults, and embedding is the slow part (~40 chunks/s on 2 busy cores)."""
    import sqlite3

    import numpy as np

    from mdmem.engine import embed

    db = sqlite3.connect(str(file))
    db.execute("CREATE TABLE IF NOT EXISTS e (model TEXT, sha TEXT, v BLOB, PRIMARY KEY (model, sha))")
    original = embed.model

    def model(name: str = embed.DEFAULT):
        m = original(name)
        if getattr(m, "_cached", False):
            return m
        raw = m.embed

        def cached(texts: list[str], threads: int | None = None):
            shas = [hashlib.sha1(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
            out = np.zeros((len(texts), m.dim), dtype=np.float32)
            todo = []
            for i, sha in enumerate(shas):
                row = db.execute("SELECT v FROM e WHERE model=? AND sha=?", (m.id, sha)).fetchone()
                if row is None:
                    todo.append(i)
                else:
                    out[i] = np.frombuffer(row[0], dtype=np.float32)
            if todo:
                fresh = raw([texts[i] for i in todo], threads=threads)
                for i, v in zip(todo, fresh):
                    out[i] = v
                    db.execute("INSERT OR REPLACE INTO e VALUES (?,?,?)", (m.id, shas[i], v.astype(np.float32).tobytes()))
                db.commit()
            return out

        m.embed, m._cached = cached, True
        return m

    embed.model = model


BUILT: dict[str, tuple] = {}  # vault_key -> (Memory, mapping, build figures): REALTALK's shared vaults


def run_one(q: dict, folder: Path, modes: list[str], repeats: int, embed_model: str | None, recency,
            granularity: str = "session", candidates: bool = False) -> dict:
    from mdmem import Memory

    gold = set(q["answer_session_ids"])
    key = q.get("vault_key")
    rec = {"question_id": q["question_id"], "question_type": q["question_type"], "question": q["question"],
           "sessions": len(q["haystack_session_ids"]), "gold": sorted(gold), "modes": {},
           "vectors_s": None, "chunks": None, "granularity": granularity}
    # a session has several notes at ``pair`` granularity: ask for enough notes to fill LIMIT sessions
    limit = LIMIT if granularity == "session" else PAIR_POOL
    semantic = any(m != "lexical" for m in modes) or candidates
    if key in BUILT:
        mem, mapping, figures = BUILT[key]
        rec |= figures | {"shared_vault": True}
    else:
        mapping = write_vault(q, folder, embed_model, granularity)
        mem = Memory.open(folder)
        figures = {}
        t = time.perf_counter()
        mem.refresh()
        figures["build_s"] = round(time.perf_counter() - t, 4)
        if semantic:
            t = time.perf_counter()
            r = mem.refresh(semantic=True)
            figures["vectors_s"] = round(time.perf_counter() - t, 4)
            if r.vectors is not None:
                figures["chunks"] = r.vectors.chunks
        rec |= figures
        if key:
            BUILT[key] = (mem, mapping, figures)
    rec["notes"] = len(mapping)
    try:
        if candidates:
            rec["cand"] = candidate_lists(mem, q["question"], mapping)
        for mode in modes:
            kwargs = {"limit": limit, "mode": mode}
            if recency is not None:
                kwargs["recency"] = recency
            t = time.perf_counter()
            res = mem.search(q["question"], **kwargs)
            cold = (time.perf_counter() - t) * 1000
            times = []
            for _ in range(repeats):
                t = time.perf_counter()
                res = mem.search(q["question"], **kwargs)
                times.append((time.perf_counter() - t) * 1000)
            hits = getattr(res, "hits", None)
            if hits is None:
                hits = res.results
            ranked = sessions_ranked([h.path for h in hits], mapping)
            m = score(ranked, gold)
            m["latency_ms"] = round(statistics.median(times), 3) if times else round(cold, 3)
            m["cold_ms"] = round(cold, 3)
            m["top"] = [sid or "MEMORY.md" for sid in ranked]
            rec["modes"][mode] = m
    finally:
        if not key:
            mem.close()
    return rec


def candidate_lists(mem, question: str, mapping: dict[str, str]) -> dict:
    """The raw lists fusion works on, as (session, score): BM25F's and the vectors' top
    :data:`CAND_POOL` (and, when the vectors know passages, each note's passage scores), so
    ``scripts/tune_fusion.py`` can re-score fusion variants without re-embedding anything."""
    from mdmem.base.settings import Recency
    from mdmem.engine import vectors

    lex = mem.lexical(question, CAND_POOL, recency=Recency(weight=0.0), snippets=False)
    whole = mem.index.search(question, CAND_POOL, recency=Recency(weight=0.0))  # BM25F without the passage stage
    sem = vectors.search(mem, question, CAND_POOL)
    return {"lex": [[mapping.get(h.path), h.score] for h in lex],
            "bm25f": [[mapping.get(h.path), h.score] for h in whole],
            "sem": [[mapping.get(m.path), m.score] for m in sem],
            "sem_scores": {mapping.get(m.path): list(getattr(m, "scores", ()) or ()) for m in sem}}


def fmt_table(summary: dict, modes: list[str]) -> str:
    lines = []
    head = f"{'question type':28} {'n':>4} {'Hit@1':>6} {'R@5any':>7} {'R@5all':>7} {'R@10any':>8} {'R@10all':>8} {'MRR':>6} {'NDCG10':>7}"
    for mode in modes:
        s = summary[mode]
        if not s["questions"]:
            continue
        lat = s["latency_ms"]
        lines.append(f"\n== {mode}: {s['questions']} questions; search p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms "
                     f"(warm; first query p50 {lat['first_query_p50']:.1f} ms)")
        lines.append(head)
        for name, row in s["metrics"].items():
            lines.append(f"{name:28} {row['n']:>4} {row['hit@1']:>6.3f} {row['r@5_any']:>7.3f} {row['r@5_all']:>7.3f} "
                         f"{row['r@10_any']:>8.3f} {row['r@10_all']:>8.3f} {row['mrr']:>6.3f} {row['ndcg@10']:>7.3f}")
    b = summary["build"]
    if b.get("lexical_build_s"):
        lines.append(f"\nvaults built: {b['vaults']} (mean {b['sessions_mean']} sessions, {b['notes_mean']} notes each); "
                     f"lexical build "
                     f"p50 {b['lexical_build_s']['p50']:.2f} s, p95 {b['lexical_build_s']['p95']:.2f} s")
    if b.get("vectors_s"):
        v = b["vectors_s"]
        lines.append(f"vectors: p50 {v['p50']:.2f} s, p95 {v['p95']:.2f} s per vault; {v['chunks']} chunks, "
                     f"{v['chunks_per_s']} chunks/s")
    lines.append("R@k any = at least one gold session in the top k (recall_any); "
                 "R@k all = every gold session in the top k (recall_all).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, type=Path, help="longmemeval_s JSON (a list of questions)")
    ap.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    ap.add_argument("--modes", default="lexical", help="comma-separated: lexical,semantic,hybrid")
    ap.add_argument("--limit", type=int, default=0, help="first N questions of the split (by question_id); 0 = all")
    ap.add_argument("--offset", type=int, default=0, help="skip the first N questions of the split")
    ap.add_argument("--work", type=Path, help="folder for the built vaults (kept); default a temp folder, removed")
    ap.add_argument("--repeats", type=int, default=3, help="timed searches per question and mode (after one warm-up)")
    ap.add_argument("--embed-model", choices=("use-multilingual-v3", "minilm"),
                    help="[semantic] model written into each vault's .mdmem/config.toml (default: mdmem's default)")
    ap.add_argument("--granularity", choices=("session", "pair", "window"), default="session",
                    help="one note per session (default), or one per user turn and its replies (pair); "
                         "a session is then ranked by its best note")
    ap.add_argument("--no-recency", action="store_true", help="search with the recency lift off")
    ap.add_argument("--include-abs", action="store_true", help="keep the abstention (_abs) questions")
    ap.add_argument("--records", type=Path, help="append one JSON line per question to this file")
    ap.add_argument("--resume", action="store_true", help="skip questions already in --records, and count them")
    ap.add_argument("--qids", help="only these question ids: comma-separated, or @FILE with one id a line")
    ap.add_argument("--order", choices=("qid", "hash"), default="qid",
                    help="question order before --offset/--limit: by question_id, or by sha256(question_id) "
                         "(a --limit sample then mixes the question types)")
    ap.add_argument("--also-done", type=Path, action="append", default=[],
                    help="with --resume: another records file (e.g. of a parallel run) whose questions are "
                         "skipped and counted; re-read before each question")
    ap.add_argument("--candidates", action="store_true",
                    help="also keep each question's raw lexical and semantic lists (for scripts/tune_fusion.py)")
    ap.add_argument("--embed-cache", type=Path,
                    help="SQLite file of embeddings by (model, sha1 of text): re-runs embed nothing already seen")
    ap.add_argument("--json", action="store_true", help="print every figure as JSON")
    ap.add_argument("--quiet", action="store_true", help="no per-question progress on stderr")
    args = ap.parse_args(argv)

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        ap.error(f"--modes: choose from {', '.join(MODES)}")
    questions, stats = load(args.data, args.split, args.include_abs)
    if args.qids:
        text = Path(args.qids[1:]).read_text(encoding="utf-8") if args.qids.startswith("@") else args.qids
        wanted = {x.strip() for x in text.replace(",", "\n").splitlines() if x.strip()}
        questions = [q for q in questions if q["question_id"] in wanted]
    if args.order == "hash":
        questions.sort(key=lambda q: hashlib.sha256(q["question_id"].encode("utf-8")).hexdigest())
    questions = questions[args.offset:]
    if args.limit:
        questions = questions[: args.limit]

    if args.embed_cache:
        cache_embeddings(args.embed_cache)

    recency = None
    if args.no_recency:
        from mdmem.base.settings import Recency

        recency = Recency(weight=0.0)

    done: dict[str, dict] = {}

    def read_done() -> None:
        for file in ([args.records] if args.records else []) + args.also_done:
            if not file.exists():
                continue
            for line in file.read_text(encoding="utf-8").splitlines():
                try:
                    r = json.loads(line)
                except ValueError:  # a line still being written by a parallel run
                    continue
                if all(m in r["modes"] for m in modes) and r.get("granularity", "session") == args.granularity:
                    done.setdefault(r["question_id"], r)

    if args.resume:
        read_done()
    work = args.work or Path(tempfile.mkdtemp(prefix="mdmem-lme-"))
    work.mkdir(parents=True, exist_ok=True)
    records: list[dict] = []
    t_all = time.perf_counter()
    try:
        for i, q in enumerate(questions, 1):
            if args.resume and args.also_done:
                read_done()
            if q["question_id"] in done:
                records.append(done[q["question_id"]])
                continue
            folder = work / (q.get("vault_key") or q["question_id"])
            rec = run_one(q, folder, modes, args.repeats, args.embed_model, recency, args.granularity,
                          args.candidates)
            records.append(rec)
            if args.records:
                with open(args.records, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rec) + "\n")
            if not args.work and not q.get("vault_key"):
                shutil.rmtree(folder, ignore_errors=True)
            if not args.quiet:
                marks = " ".join(f"{m}:{rec['modes'][m]['first_gold_rank'] or '-'}" for m in modes)
                print(f"[{i}/{len(questions)}] {q['question_id']:>20} {q['question_type']:26} first gold rank {marks}"
                      f"  build {rec['build_s']:.2f}s" + (f" vec {rec['vectors_s']:.2f}s" if rec["vectors_s"] else ""),
                      file=sys.stderr, flush=True)
    finally:
        for mem, _, _ in BUILT.values():
            mem.close()
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    wall = time.perf_counter() - t_all

    summary = summarise(records, modes)
    meta = {
        "data": str(args.data), "split": args.split, "modes": modes, "questions": len(records),
        "limit": args.limit, "offset": args.offset, "include_abs": args.include_abs,
        "embed_model": args.embed_model or "default", "recency": not args.no_recency, "repeats": args.repeats,
        "granularity": args.granularity, "qids": args.qids,
        "wall_s": round(wall, 1), "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d"), **stats,
    }
    if args.json:
        print(json.dumps({"meta": meta, "summary": summary, "questions": records}, indent=1))
    else:
        print(f"{'REALTALK' if args.data.is_dir() or args.data.name.startswith('Chat_') else 'LongMemEval_s'}, split {args.split}: {len(records)} questions ({stats['abstention_skipped']} abstention "
              f"skipped), modes {','.join(modes)}; wall {wall:.0f} s on {os.cpu_count()} cpus")
        print(fmt_table(summary, modes))
    return 0


if __name__ == "__main__":
    sys.exit(main())

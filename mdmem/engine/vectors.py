"""Search by meaning (the optional ``semantic`` extra): note vectors beside the
index, brute-force cosine search, and the fusion of BM25F and vectors.

Vectors live in ``.mdmem/vectors.npz`` (derived: delete it any time): one
float16 row per chunk of a note (:mod:`mdmem.engine.embed`), with a row map (path,
chunk number), each note's content hash and the model id, plus the notes
cache's epoch and generation they match. They exist only once asked for
(``mdmem index --semantic``, or ``[semantic] enabled = true`` in
``.mdmem/config.toml``); from then on every refresh brings them up to date in
the same write-locked step as the Whoosh index, embedding only the notes the
cache's change log names whose text really changed (a content hash), and the
file is replaced atomically. A vectors file from another model, another cache
epoch, or too far behind the change log is rebuilt.

Hybrid search fuses the two ranked lists (:func:`fuse`): by default their
normalised scores weighted 0.25 (BM25F) and 0.75 (cosine), or reciprocal ranks
(``[search] fusion = "rrf"``); ``[search] hybrid_lexical_weight``,
``hybrid_semantic_weight``, ``rrf_k`` set the rest.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mdmem.base.files import write_atomic
from mdmem.base.settings import Fusion

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory

FILE = "vectors.npz"
FORMAT = 1


@dataclass(frozen=True)
class SyncResult:
    embedded: int      # notes embedded (new or changed text)
    chunks: int        # chunks embedded
    removed: int       # notes whose vectors were dropped
    rebuilt: bool
    seconds: float
    total_notes: int = 0
    total_chunks: int = 0


def enabled(mem: Memory) -> bool:
    return (mem.state_dir / FILE).exists() or mem.settings.semantic.enabled


@dataclass
class Vectors:
    epoch: str
    gen: int
    model: str
    paths: list[str] = field(default_factory=list)    # one per row
    chunks: list[int] = field(default_factory=list)   # one per row
    hashes: dict[str, str] = field(default_factory=dict)  # path -> content hash
    matrix: object = None                             # numpy float16 (rows, DIM)

    @classmethod
    def load(cls, mem: Memory) -> Vectors | None:
        import numpy as np

        try:
            with np.load(mem.state_dir / FILE, allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode())
                if meta.get("format") != FORMAT:
                    return None
                return cls(meta["epoch"], meta["gen"], meta["model"], meta["paths"], meta["chunks"], meta["hashes"],
                           data["matrix"])
        except (OSError, ValueError, KeyError, EOFError):
            return None  # missing or damaged: derived state, rebuilt

    def save(self, mem: Memory) -> None:
        import numpy as np

        meta = {"format": FORMAT, "epoch": self.epoch, "gen": self.gen, "model": self.model, "paths": self.paths,
                "chunks": self.chunks, "hashes": self.hashes}
        buf = io.BytesIO()
        np.savez(buf, matrix=self.matrix, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
        write_atomic(mem.state_dir / FILE, buf.getvalue())


def note_text(mem: Memory, path: str) -> str:
    """What is embedded for a note: its title, description, and body as plain text."""
    from mdmem.base.files import read_bytes
    from mdmem.text.parse import snippet_text

    note = mem.store.get(path)
    try:
        body = snippet_text(read_bytes(mem.root, path), limit=60_000)
    except OSError:
        return ""
    head = []
    if note is not None:
        head.append(note.title.replace("-", " "))
        desc = note.frontmatter.get("description")
        if isinstance(desc, str) and desc.strip():
            head.append(desc.strip())
    return "\n".join([". ".join(head), body.strip()]).strip()


def sync(mem: Memory, rebuild: bool = False) -> SyncResult:
    """Bring ``.mdmem/vectors.npz`` up to date with the notes cache (call under the write lock)."""
    import numpy as np

    from mdmem.engine.embed import DIMS, IDS, model

    t0 = time.perf_counter()
    name = mem.settings.semantic.model
    DIM, MODEL_ID = DIMS[name], IDS[name]
    m = None  # loaded only when a text needs embedding (~1.5 s)
    epoch, gen, pruned = mem.store.state()
    current = {n.path for n in mem.store.notes() if n.path != "MEMORY.md"}
    old = None if rebuild else Vectors.load(mem)
    if old is not None and (old.epoch != epoch or old.model != MODEL_ID or not pruned <= old.gen <= gen):
        old = None
    if old is None:
        todo, keep_rows = sorted(current), []
        hashes: dict[str, str] = {}
        base_paths: list[str] = []
        base_chunks: list[int] = []
        base = np.zeros((0, DIM), dtype=np.float16)
    else:
        changed = mem.store.changes_since(old.gen) | (set(old.hashes) ^ current)
        todo = sorted(changed & current)
        gone = set(old.hashes) - current
        drop = gone | set(todo)
        keep_rows = [i for i, p in enumerate(old.paths) if p not in drop]
        hashes = {p: h for p, h in old.hashes.items() if p not in gone}
        base_paths = [old.paths[i] for i in keep_rows]
        base_chunks = [old.chunks[i] for i in keep_rows]
        base = old.matrix[keep_rows] if len(keep_rows) else np.zeros((0, DIM), dtype=np.float16)
    texts: list[str] = []
    new_paths: list[str] = []
    new_chunks: list[int] = []
    embedded = 0
    unchanged_rows: dict[str, list[int]] = {}
    if old is not None:
        wanted = set(todo)
        for i, p in enumerate(old.paths):
            if p in wanted:
                unchanged_rows.setdefault(p, []).append(i)
    reuse = []
    for path in todo:
        text = note_text(mem, path)
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        if old is not None and old.hashes.get(path) == digest and path in unchanged_rows:
            reuse.append(path)  # touched, not changed: keep its vectors
            continue
        hashes[path] = digest
        m = m or model(name)
        pieces = m.chunks(text)
        embedded += 1
        texts += pieces
        new_paths += [path] * len(pieces)
        new_chunks += list(range(len(pieces)))
    if reuse:
        rows = [i for p in reuse for i in unchanged_rows[p]]
        base = np.concatenate([base, old.matrix[rows]]) if len(base) else old.matrix[rows]
        base_paths += [old.paths[i] for i in rows]
        base_chunks += [old.chunks[i] for i in rows]
    fresh = m.embed(texts).astype(np.float16) if texts else np.zeros((0, DIM), dtype=np.float16)
    matrix = np.concatenate([base, fresh]) if len(base) else fresh
    hashes = {p: h for p, h in hashes.items() if p in current}
    removed = 0 if old is None else len(set(old.hashes) - current)
    if old is None or texts or removed or old.gen != gen:
        Vectors(epoch, gen, MODEL_ID, base_paths + new_paths, base_chunks + new_chunks, hashes, matrix).save(mem)
    return SyncResult(embedded, len(texts), removed, old is None, round(time.perf_counter() - t0, 3),
                      len(hashes), int(matrix.shape[0]))


@dataclass(frozen=True)
class Match:
    path: str
    score: float   # cosine of the best chunk
    chunk: int


_LOADED: dict[str, tuple[tuple[int, int], Vectors, object]] = {}  # file -> (stat, vectors, float32 matrix)


def loaded(mem: Memory):
    """The vectors and their float32 matrix, read once a process while the file is unchanged."""
    import numpy as np

    path = mem.state_dir / FILE
    try:
        st = path.stat()
    except OSError:
        return None, None
    key = (st.st_mtime_ns, st.st_size)
    hit = _LOADED.get(str(path))
    if hit is None or hit[0] != key:
        vectors = Vectors.load(mem)
        if vectors is None:
            return None, None
        hit = (key, vectors, vectors.matrix.astype(np.float32))
        _LOADED[str(path)] = hit
    return hit[1], hit[2]


def search(mem: Memory, query: str, limit: int, allowed=None) -> list[Match]:
    """The notes whose best chunk is nearest ``query`` (cosine), best first."""
    import numpy as np

    from mdmem.base.errors import MdmemError
    from mdmem.engine.embed import model

    vectors, matrix = loaded(mem)
    if vectors is None:
        raise MdmemError("no vectors yet: run `mdmem index --semantic` once (then every refresh keeps them up to date)")
    if not len(vectors.paths) or not query.strip():
        return []
    q = model(vectors.model).embed([query])[0].astype(np.float32)  # the model the vectors were made with
    scores = matrix @ q
    best: dict[str, tuple[float, int]] = {}
    for i in np.argsort(-scores):
        path = vectors.paths[i]
        if path in best or (allowed is not None and not allowed(path)):
            continue
        best[path] = (float(scores[i]), vectors.chunks[i])
        if len(best) >= limit:
            break
    return [Match(p, round(s, 4), c) for p, (s, c) in best.items()]


def fuse(lexical: list[tuple[str, float]], semantic: list[tuple[str, float]], fusion: Fusion) -> list[tuple[str, float]]:
    """Two ranked (path, score) lists, BM25F's and the cosines, fused.

    ``scores`` (the default): ``w_lex * bm25 / bm25_max + w_sem * (cos - cos_min) / (cos_max - cos_min)``
    over the union of both lists (a note missing from a list takes that list's floor). ``rrf``:
    ``w_lex / (k + rank_lex) + w_sem / (k + rank_sem)``. On the labelled sets of
    ``tests/data/semantic/`` the score fusion kept the lexical results on exact terms and most of the
    semantic gain on paraphrases, where rank fusion let the lexical list's noise in (README)."""
    scores: dict[str, float] = {}
    if fusion.method == "rrf":
        for weight, ranked in ((fusion.lexical_weight, lexical), (fusion.semantic_weight, semantic)):
            for rank, (path, _) in enumerate(ranked, 1):
                scores[path] = scores.get(path, 0.0) + weight / (fusion.k + rank)
    else:
        top = max((s for _, s in lexical), default=0.0) or 1.0
        cos = [s for _, s in semantic]
        lo, hi = (min(cos), max(cos)) if cos else (0.0, 1.0)
        span = (hi - lo) or 1.0
        lex = dict(lexical)
        sem = dict(semantic)
        for path in lex.keys() | sem.keys():
            scores[path] = (fusion.lexical_weight * lex.get(path, 0.0) / top
                            + fusion.semantic_weight * (sem.get(path, lo) - lo) / span)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))

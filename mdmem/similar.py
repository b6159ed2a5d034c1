"""Near-duplicate text, shared by the audit (``check``'s DUPLICATE) and capture
(``save`` refusing to repeat a note): one normalised-name key and one word
5-gram (shingle) Jaccard similarity, so both agree on what a duplicate is."""

from __future__ import annotations

import re
import unicodedata

SIMILAR = 0.8  # Jaccard similarity of word 5-grams from which two notes are near-duplicates
_WORD = re.compile(r"\w+")


def name_key(text: str) -> str:
    """Case, accents, spaces and punctuation aside: ``Ledger Notes`` = ``ledger-notes``."""
    text = text.casefold()
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)  # accents become combining marks, dropped below
    return "".join(filter(str.isalnum, text))


def shingles(text: str, n: int = 5) -> set[tuple[str, ...]]:
    """The text's word n-grams (one gram of all its words when it is shorter)."""
    words = _WORD.findall(text.casefold())
    k = min(n, len(words))
    return {tuple(words[i : i + k]) for i in range(len(words) - k + 1)} if k else set()


def similarity(a: set, b: set) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0

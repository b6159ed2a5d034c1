"""BLAKE2b, the package's one hash for keys and digests, without :mod:`hashlib`: ``hashlib`` loads OpenSSL's
bindings (``_hashlib``) at import, ~3 ms of every hook that hashes (the card's key, the fence's tag), where
CPython's own ``_blake2`` costs ~0.5 ms (decision 126). The same object ``hashlib.blake2b`` gives."""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # not CPython, or built without it
    from hashlib import blake2b

__all__ = ["blake2b"]

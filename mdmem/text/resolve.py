"""Obsidian's link resolution: a link target plus the linking note -> a vault path.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/text/resolve.py)."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable

from mdmem.base.layout import nfc


def _key(text: str) -> str:
    return nfc(text).lower()


def name_key(target: str) -> str:
    """The part of a link target Obsidian resolves by: its file name, lower-cased,
    NFC, without ``.md``. A file's key and the keys of links that may reach it agree."""
    name = nfc(target.strip()).lower().rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


class Resolver:
    def __init__(self, paths: Iterable[str]) -> None:
        self._exact: dict[str, str] = {}
        self._by_name: dict[str, list[str]] = defaultdict(list)
        for path in paths:
            key = _key(path)
            if self._exact.setdefault(key, path) != path and nfc(path) == path:
                self._exact[key] = path  # twins: the NFC-named one, whichever came first
            self._by_name[key.rsplit("/", 1)[-1]].append(path)

    def __contains__(self, path: str) -> bool:
        return _key(path) in self._exact

    def exact(self, path: str) -> str | None:
        key = _key(path)
        return self._exact.get(key) or self._exact.get(key + ".md")

    def exists(self, target: str, source: str = "") -> bool:
        """Whether the link resolves at all. A bare name (no folder, no ``/``)
        resolves exactly when some file has that name, with or without ``.md``,
        so that case skips the full resolution (the audit checks ~100k links)."""
        link = target.strip()
        if not link or "/" in link or "\\" in link:
            return self.resolve(target, source) is not None
        key = _key(link)
        return key in self._by_name or key + ".md" in self._by_name

    def resolve(self, target: str, source: str = "") -> str | None:
        link = nfc(target.strip())
        if not link:
            return source or None
        if link.startswith("/"):
            return self.exact(link.lstrip("/"))
        folder = posixpath.dirname(source)
        if link.startswith(("./", "../")):
            joined = posixpath.normpath(posixpath.join(folder, link))
            return None if joined.startswith("../") or joined == ".." else self.exact(joined)
        hit = self.exact(link)
        if hit:
            return hit
        key = _key(link)
        name = key.rsplit("/", 1)[-1]
        candidates = self._by_name.get(name, []) + self._by_name.get(name + ".md", [])
        if "/" in key:
            candidates = [
                p for p in candidates
                if _key(p).endswith("/" + key) or _key(p).endswith("/" + key + ".md")
            ]
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        prefix = folder + "/" if folder else ""
        return min(candidates, key=lambda p: (not p.startswith(prefix), len(p), p))

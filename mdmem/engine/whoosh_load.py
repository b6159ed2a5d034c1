"""How mdmem loads Whoosh-Reloaded: without the imports it never uses, and reading its segment files in place.

Both are small patches on the library, measured on a search process of the generated 10k-note vault, and
both run once, from :mod:`mdmem.engine.index` or :mod:`mdmem.engine.query_plan` (with this module, the only ones that
import Whoosh), before Whoosh's own modules are imported there. Standard library only until :func:`load_whoosh` runs.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


def load_whoosh() -> None:
    """Import Whoosh lean, then make it read segments in place (idempotent)."""
    _import_whoosh_lean()
    _read_segments_in_place()


def _import_whoosh_lean() -> None:
    """Import Whoosh-Reloaded without three imports it never uses on our paths, measured at ~45 ms of a
    ~480 ms search process: ``whoosh.compat`` imports ``urllib.request`` (http.client, email: ~23 ms)
    for a ``urlretrieve`` nothing calls; ``whoosh.reading`` imports the ``cached_property``
    package, which imports asyncio (~13 ms), for what ``functools.cached_property`` does; and
    ``whoosh.query.terms`` imports ``whoosh.lang.morph_en`` (~25 large regexes compiled at import:
    ~8-10 ms CPU, 20 interleaved runs under load) for the ``Variations`` query mdmem never builds. A
    stand-in for each module exists only while Whoosh is imported (its one function imports the real
    module if ever called) and is removed at once, so any later import of it is real."""
    import functools
    import importlib
    import sys
    import types

    if "cached_property" not in sys.modules:
        shim = types.ModuleType("cached_property")
        shim.cached_property = functools.cached_property  # type: ignore[attr-defined]
        sys.modules["cached_property"] = shim

    def stand_in(name: str, function: str) -> types.ModuleType:
        module = types.ModuleType(name)

        def call(*args: Any, **kwargs: Any) -> Any:  # pragma: no cover - whoosh never calls it here
            if sys.modules.get(name) is module:
                del sys.modules[name]
            return getattr(importlib.import_module(name), function)(*args, **kwargs)

        setattr(module, function, call)
        return module

    stand_ins = {}
    if "whoosh.compat" not in sys.modules and "urllib.request" not in sys.modules:
        stand_ins["urllib.request"] = stand_in("urllib.request", "urlretrieve")
    if "whoosh.query" not in sys.modules and "whoosh.lang.morph_en" not in sys.modules:
        stand_ins["whoosh.lang.morph_en"] = stand_in("whoosh.lang.morph_en", "variations")
    sys.modules.update(stand_ins)
    try:
        import whoosh.compat
        import whoosh.query  # noqa: F401
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]


class _View:
    """A read-only file over a memoryview that never copies it: what Whoosh reads a segment's
    sub-files through (``read``/``seek``/``tell``, ``pickle.load``), instead of an ``io.BytesIO``."""

    __slots__ = ("_mv", "_pos", "_len")

    def __init__(self, buf: bytes | bytearray | memoryview) -> None:
        self._mv = memoryview(buf)
        self._pos = 0
        self._len = len(self._mv)

    def read(self, n: int | None = -1) -> bytes:
        pos = self._pos
        end = self._len if n is None or n < 0 else min(pos + n, self._len)
        self._pos = max(pos, end)
        return self._mv[pos:end].tobytes()

    def peek(self, size: int = 0) -> bytes:
        """The next bytes without moving on: ``pickle.load`` takes a window through this and then skips
        what it used, instead of calling ``read`` for each piece (~18 calls for one of Whoosh's block
        headers). 512 bytes hold any of those; more is read as needed."""
        return self._mv[self._pos:self._pos + 512].tobytes()

    def readinto(self, b: Any) -> int:
        pos = self._pos
        n = max(0, min(len(b), self._len - pos))
        b[:n] = self._mv[pos:pos + n]
        self._pos = pos + n
        return n

    def readline(self, size: int | None = -1) -> bytes:
        pos = self._pos
        end = self._len if size is None or size < 0 else min(pos + size, self._len)
        parts = []
        while pos < end:  # a few KB at a time: never a copy of the whole rest of the segment
            chunk = self._mv[pos:min(pos + 4096, end)].tobytes()
            cut = chunk.find(b"\n")
            if cut >= 0:
                chunk = chunk[:cut + 1]
            parts.append(chunk)
            pos += len(chunk)
            if cut >= 0:
                break
        self._pos = max(self._pos, pos)
        return b"".join(parts)

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line

    def seek(self, pos: int, whence: int = 0) -> int:
        pos += self._pos if whence == 1 else self._len if whence == 2 else 0
        if pos < 0:
            raise ValueError(f"negative seek value {pos}")
        self._pos = pos
        return pos

    def tell(self) -> int:
        return self._pos

    def close(self) -> None:
        pass


def _read_segments_in_place() -> None:
    """Read a segment's sub-files straight from Whoosh's ``mmap`` of it. ``BufferFile`` (every
    sub-file of a compound segment) wrapped its memoryview in ``io.BytesIO``, which copies it: opening
    a searcher on the 10k-note index copied its ~25 MB of postings and terms, page by page, on every
    open, and a search process after an edit opens the segments three times (health check, the
    writer's delete, the new searcher). Measured in one process on the generated 10k vault, CPU time,
    interleaved runs under load: open + first query 31 -> 12 ms (5 runs each), the same hits and scores;
    the warm queries of ``scripts/bench.py`` 1.0x of before at p50 and p95 (6 ABBA pairs, 0.86-1.17x)."""
    from whoosh.filedb import structfile

    def __init__(self: Any, buf: Any, name: str | None = None, onclose: Any = None) -> None:
        self._buf = buf
        self._name = name
        self.file = _View(buf)
        self.onclose = onclose
        self.is_real = False
        self.is_closed = False

    structfile.BufferFile.__init__ = __init__

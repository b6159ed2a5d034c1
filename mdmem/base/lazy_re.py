"""Regular expressions compiled on their first use, for the hook fast path: a quiet Stop hook reaches few
of the detectors' ~110 patterns, and compiling them all costs more than its budget; ``re`` itself is
imported only when a pattern is first used. Flags are ``re`` flags, or their letters (``"IM"``) where the
caller does not import ``re``. The one lazy-pattern helper of the package."""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: the hook fast path imports as little as it can
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from re import Match
    from typing import Any


def _flags(flags: int | str) -> int:
    import re

    if isinstance(flags, int):
        return flags
    value = 0
    for letter in flags:
        value |= getattr(re, letter)
    return value


class Lazy:
    """A pattern compiled on its first use; after it, its methods are the compiled pattern's own."""

    def __init__(self, pattern: str, flags: int | str = 0) -> None:
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name: str) -> Any:
        import re

        compiled = re.compile(self.pattern, _flags(self.flags))
        for method in ("search", "match", "finditer", "findall", "sub", "split", "fullmatch"):
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


class Hinted:
    """A pattern that can match only text holding one of ``hints`` (lower-case substrings): looked
    for first, so text holding none never compiles it."""

    def __init__(self, pattern: str, hints: tuple[str, ...], flags: int | str = "I") -> None:
        self.lazy, self.hints = Lazy(pattern, flags), hints
        self.pattern, self.flags = pattern, flags

    def _maybe(self, text: str) -> bool:
        low = text.lower()
        return any(h in low for h in self.hints)

    def search(self, text: str, *args: int) -> Match[str] | None:
        return self.lazy.search(text, *args) if self._maybe(text) else None

    def match(self, text: str, *args: int) -> Match[str] | None:
        return self.lazy.match(text, *args) if self._maybe(text) else None

    def finditer(self, text: str, *args: int) -> Iterator[Match[str]]:
        return self.lazy.finditer(text, *args) if self._maybe(text) else iter(())

    def sub(self, repl: str | Callable[[Match[str]], str], text: str, count: int = 0) -> str:
        return self.lazy.sub(repl, text, count) if self._maybe(text) else text


def rx(pattern: str, flags: int | str = "I", hints: tuple[str, ...] | None = None) -> Any:
    """A detector's pattern: case-insensitive by default; with ``hints``, tried only on text holding one."""
    return Lazy(pattern, flags) if hints is None else Hinted(pattern, hints, flags)


def lazy(pattern: str, flags: int | str = 0) -> Lazy:
    """A pattern compiled on first use, with ``re``'s default flags unless given."""
    return Lazy(pattern, flags)

"""Text fitted to a budget of UTF-8 bytes, as the context block and the card lay it out: the block's sections each
whole or left out (:class:`Builder`), lines clipped (:func:`clip`), and lists of lines sharing a room fairly, the
long ones made only as far as the room (:class:`Listed`, :func:`share`; decision 126). No ``dataclasses`` or
``typing``: the SessionStart hook imports it (decision 120)."""

from __future__ import annotations

from mdmem.engine.heads import fill

LINE_MAX = 240  # bytes of one listed line at most
CHUNK = 32  # the notes of a long list whose lines are read at once (about what the card shows of one)


def size(text: str) -> int:
    """What the budget counts: UTF-8 bytes."""
    return len(text.encode("utf-8"))


def clip(line: str, limit: int = LINE_MAX) -> str:
    """``line`` in at most ``limit`` bytes: cut at a word, ending "…"."""
    if size(line) <= limit:
        return line
    cut = line.encode("utf-8")[: limit - 3].decode("utf-8", "ignore")
    return cut.rsplit(" ", 1)[0].rstrip(" ,;:—–-") + "…"


class Builder:
    """The block being made: its parts, its sections (name, characters, source, bytes) and those left out."""

    def __init__(self, budget: int):
        self.budget = budget
        self.parts: list[str] = []
        self.sections: list[tuple[str, int, str | None, int]] = []
        self.omitted: list[str] = []

    @property
    def used(self) -> int:
        return sum(size(p) for p in self.parts)

    def add(self, name: str, text: str, source: str | None = None) -> bool:
        text = text.rstrip("\n") + "\n"
        block = ("\n" if self.parts else "") + text
        if self.used + size(block) > self.budget:
            self.omitted.append(name)
            return False
        self.parts.append(block)
        self.sections.append((name, len(block), source, size(block)))
        return True

    def text(self) -> str:
        return "".join(self.parts)


class Listed:
    """One listed section of the card: its heading, its lines, and what to say about the rest.

    ``lines`` is a list, or (a list of thousands of notes: 1,600 feedback notes at 10k) ``(notes, line, columns)``:
    the notes in order, how a note becomes its line and the columns of the notes cache that takes (read for
    :data:`CHUNK` notes at a time: :func:`mdmem.engine.heads.fill`), made only as far as the card reads them (the
    lines that fit, and what tells whether the whole list would fit: :meth:`need`); ``paths`` then come from the
    notes."""

    def __init__(self, head: str | None, lines, more: str, total: int | None = None,
                 paths: list[str] | None = None):
        self.head, self.more = head, more
        if isinstance(lines, tuple):
            self._notes, self._line, self._columns = lines
            self.lines: list[str] = []
            self.paths = []
        else:
            self._notes, self._line = (), None
            self.lines = lines
            self.paths = paths or []  # the note of each line, in order (the card's notes: used when it is shown)
        self.count = len(self._notes) if self._line is not None else len(lines)  # lines it has, made or not
        self.total = self.count if total is None else total  # what exists (more than listed: the rest is named)
        self.shown: list[str] = []
        self._bytes = 0  # the made lines' bytes

    def _made(self, i: int) -> str:
        """The ``i``-th line, made when first asked."""
        while len(self.lines) <= i:
            note = self._notes[len(self.lines)]
            if len(self.lines) % CHUNK == 0:
                fill(self._notes[len(self.lines):len(self.lines) + CHUNK], self._columns)
            line = self._line(note)  # (only a list made of notes reaches here)
            self.lines.append(line)
            self.paths.append(note.path)
            self._bytes += size(line) + 1
        return self.lines[i]

    def named(self) -> list[str]:
        """The notes of the lines shown."""
        kept = set(self.shown)
        return [p for line, p in zip(self.lines, self.paths) if line in kept]

    def need(self, cap: int | None = None) -> int:
        """The bytes the whole list takes; ``cap + 1`` when that is more than ``cap``: a list whose need is over the
        room only gets its share of the room, whatever its need, so its thousands of lines need not be made (and
        lists over the room share it in the order given, not by length)."""
        rest = self.total - self.count
        text = ([self.head] if self.head else []) + ([self.more.replace("{n}", str(rest))] if rest else [])
        fixed = sum(size(t) + 1 for t in text)
        if self._line is None:
            if self._bytes == 0 and self.lines:  # the lines' bytes, counted once: share() asks again and again
                self._bytes = sum(size(t) + 1 for t in self.lines)
        else:
            while len(self.lines) < self.count and (cap is None or fixed + self._bytes <= cap):
                self._made(len(self.lines))
        need = self._bytes + fixed
        return need if cap is None else min(need, cap + 1)

    def fit(self, room: int) -> int:
        """Keep the lines that fit in ``room`` bytes (with the "N more" line when some are left out);
        returns the bytes used."""
        head = size(self.head) + 1 if self.head else 0
        need = self.need(room)
        if need <= room:  # all of it
            rest = self.total - self.count
            self.shown = ([self.head] if self.head else []) + self.lines + ([self.more.replace("{n}", str(rest))] if rest else [])
            return need if self.shown else 0
        used, kept = head, []
        for i in range(self.count):
            line = self._made(i)
            rest = self.total - i - 1
            tail = size(self.more.replace("{n}", str(rest))) + 1 if rest else 0
            if used + size(line) + 1 + tail > room:
                break
            kept.append(line)
            used += size(line) + 1
        left = self.total - len(kept)
        if left:
            line = self.more.replace("{n}", str(left))
            if used + size(line) + 1 > room:
                self.shown = []
                return 0
            kept.append(line)
            used += size(line) + 1
        if not kept:
            self.shown = []
            return 0
        self.shown = ([self.head] if self.head else []) + kept
        return used


def share(parts: list[Listed], room: int) -> int:
    """Fair shares of ``room`` (max-min: the smallest needs are met whole, the rest split what is left, in the
    order given when their needs are over the room); returns the bytes used."""
    used = 0
    order = sorted((p for p in parts if p.count or p.total), key=lambda p: p.need(room))
    for i, part in enumerate(order):
        share = (room - used) // (len(order) - i)
        used += part.fit(min(share, part.need(room)))
    return used

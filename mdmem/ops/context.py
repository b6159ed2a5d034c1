"""``mdmem context``: the block an agent gets in its prompt, never over its budget.

Sections, in this order, each only when it fits whole in what is left:

1. bootstrap files ``AGENTS.md``, ``SOUL.md``, ``USER.md``, ``IDENTITY.md``,
   ``RULES.md``: each from the workspace (the nearest ancestor of the working
   directory holding ``.git`` or ``.agent``) when present there, else from the
   global directory (``MDMEM_BOOTSTRAP_DIR``, else ``~/.mdmem/``), as ``## NAME``;
2. protocols: notes of type ``protocol`` whose ``paths:`` globs match one of
   ``paths`` (in full), and the protocols without ``paths:`` (global: in full
   in ``full`` mode, one line each in ``index`` mode);
3. ``index`` mode (the default): a compact card, the same bytes for the same
   vault (no clock in it, everything sorted), so prompt caches keep working:
   counts by type, the user, active projects, people, the last daily notes'
   dates, and how to pull detail; ``full`` mode instead: the user's profile,
   active projects, notes relevant to ``query`` (:mod:`mdmem.ops.recall`), the
   daily notes of the last 3 days, notes linked to the user and the active
   projects, the latest digest. ``off``: nothing.

Notes marked sensitive (``sensitive: true`` or a ``sensitive`` tag) never
appear unless ``include_sensitive``.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from dataclasses import dataclass, field
from pathlib import Path

from mdmem.engine.memory import Memory
from mdmem.base.errors import UsageError
from mdmem.ops.timeline import daily_entries, is_sensitive

DEFAULT_BUDGET = 4000
MODES = ("index", "full", "off")
ACTIVE = {"active", "ongoing", "in progress", "in-progress", "wip", "ativo", "ativa", "em andamento"}
CLOSED = {"done", "paused", "archived", "cancelled", "canceled", "closed", "dropped", "concluído", "concluido",
          "pausado", "arquivado", "cancelado"}


@dataclass(frozen=True)
class Section:
    name: str
    chars: int
    source: str | None = None


@dataclass(frozen=True)
class ContextResult:
    mode: str
    budget: int
    chars: int
    text: str
    sections: list[Section]
    omitted: list[str] = field(default_factory=list)  # sections that did not fit


def bootstrap_files(cwd: Path) -> list[tuple[str, Path]]:
    """(name, file) for each bootstrap file found: the workspace's, else the global one (the same rule
    the SessionStart hook fingerprints: :func:`mdmem.base.layout.bootstrap_files`)."""
    from mdmem.base.layout import bootstrap_files as found

    return [(name, Path(path)) for name, path in found(str(cwd))]


def _glob_match(path: str, pattern: str) -> bool:
    pattern = pattern.strip().lstrip("./")
    path = path.lstrip("./")
    if fnmatch.fnmatchcase(path, pattern):
        return True
    if "**/" in pattern and fnmatch.fnmatchcase(path, pattern.replace("**/", "")):
        return True  # "**/*.py" matches "a.py" too
    return pattern.endswith("/**") and (path + "/").startswith(pattern[:-2])


def protocol_paths(note) -> list[str]:
    value = note.frontmatter.get("paths")
    if isinstance(value, str):
        value = [value]
    return [p for p in value if isinstance(p, str) and p.strip()] if isinstance(value, list) else []


def _body(mem: Memory, path: str) -> str:
    from mdmem.text.parse import decode, split_frontmatter
    from mdmem.base.files import read_bytes

    try:
        return split_frontmatter(decode(read_bytes(mem.root, path))[0])[1].strip()
    except OSError:
        return ""


def _desc(note) -> str:
    d = note.frontmatter.get("description")
    return " ".join(d.split()) if isinstance(d, str) else ""


def _status(note) -> str:
    s = note.frontmatter.get("status")
    return s.strip().lower() if isinstance(s, str) else ""


class _Builder:
    def __init__(self, budget: int):
        self.budget = budget
        self.parts: list[str] = []
        self.sections: list[Section] = []
        self.omitted: list[str] = []

    @property
    def used(self) -> int:
        return sum(len(p) for p in self.parts)

    def add(self, name: str, text: str, source: str | None = None) -> bool:
        text = text.rstrip("\n") + "\n"
        block = ("\n" if self.parts else "") + text
        if self.used + len(block) > self.budget:
            self.omitted.append(name)
            return False
        self.parts.append(block)
        self.sections.append(Section(name, len(block), source))
        return True

    def text(self) -> str:
        return "".join(self.parts)


def _notes(mem: Memory, include_sensitive: bool) -> list:
    from mdmem.ops.search import without_conflicts

    notes = without_conflicts(mem, mem.notes())  # a sync conflict copy is not a memory until resolved
    return sorted((n for n in notes if include_sensitive or not is_sensitive(n)), key=lambda n: n.path)


def context(mem: Memory, mode: str = "index", budget: int = DEFAULT_BUDGET, query: str | None = None,
            paths: list[str] | tuple[str, ...] = (), include_sensitive: bool = False, cwd: Path | None = None,
            today: dt.date | str | None = None) -> ContextResult:
    if mode not in MODES:
        raise UsageError(f"--mode must be one of: {', '.join(MODES)}")
    if budget < 200:
        raise UsageError("--budget must be at least 200 characters")
    b = _Builder(budget)
    if mode == "off":
        return ContextResult(mode, budget, 0, "", [], [])
    for name, file in bootstrap_files(cwd or Path.cwd()):
        try:
            text = file.read_text("utf-8", "replace").strip()
        except OSError:
            continue
        if text:
            b.add(f"bootstrap {name}", f"## {name}\n\n{text}", str(file))
    notes = _notes(mem, include_sensitive)
    the_card = card(mem, notes) if mode == "index" else ""
    _protocols(mem, b, notes, paths, mode, reserve=len(the_card) + 1 if the_card else 0)
    if mode == "index":
        b.add("card", the_card)
    else:
        day = dt.date.fromisoformat(today) if isinstance(today, str) else (today or dt.date.today())
        _full(mem, b, notes, query, day, include_sensitive)
    text = b.text()
    assert len(text) <= budget
    return ContextResult(mode, budget, len(text), text, b.sections, b.omitted)


def _protocols(mem: Memory, b: _Builder, notes: list, paths, mode: str, reserve: int = 0) -> None:
    """Path-matched protocols in full; the global ones in full (full mode) or as a list
    of one line each (index mode) cut to what leaves ``reserve`` characters for the card."""
    lines = []
    for note in notes:
        if note.type != "protocol":
            continue
        globs = protocol_paths(note)
        if globs:
            if any(_glob_match(p, g) for p in paths for g in globs):
                b.add(f"protocol {note.path}", f"## Protocol: {note.title} (for {', '.join(globs)})\n\n"
                      f"{_body(mem, note.path)}", note.path)
        elif mode == "full":
            b.add(f"protocol {note.path}", f"## Protocol: {note.title}\n\n{_body(mem, note.path)}", note.path)
        else:
            lines.append(f"- {note.title}" + (f" — {_desc(note)}" if _desc(note) else "") + f" ({note.path})")
    if lines:
        head, more = "## Protocols (always)", "- … and {} more: `mdmem search type:protocol`"
        room = b.budget - b.used - reserve - 1 - len(head) - 1
        kept: list[str] = []
        for i, line in enumerate(lines):
            tail = len(more.format(len(lines) - i - 1)) + 1 if i + 1 < len(lines) else 0
            if len(line) + 1 + tail > room:
                kept.append(more.format(len(lines) - i))
                break
            kept.append(line)
            room -= len(line) + 1
        if kept and not kept[0].startswith("- … and"):
            b.add("protocols", head + "\n" + "\n".join(kept))


def _active(notes: list) -> list:
    return [n for n in notes if n.type == "project" and (_status(n) in ACTIVE or not _status(n)
                                                          and _status(n) not in CLOSED)]


def card(mem: Memory, notes: list | None = None) -> str:
    """The index-mode card: stable text for a given vault."""
    notes = _notes(mem, False) if notes is None else notes
    counts: dict[str, int] = {}
    for n in notes:
        if n.path != "MEMORY.md":
            counts[n.type] = counts.get(n.type, 0) + 1
    total = sum(counts.values())
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    lines = [f"# Memory ({mem.root.name}: {total} notes — {kinds})"]
    users = [n for n in notes if n.type == "user"]
    for u in users[:2]:
        lines.append(f"User: {u.frontmatter.get('name') if isinstance(u.frontmatter.get('name'), str) else u.title}"
                     + (f" — {_desc(u)}" if _desc(u) else "") + f" ({u.path})")
    active = _active(notes)
    if active:
        lines.append("Active projects:")
        lines += [f"- {n.title}" + (f" — {_desc(n)}" if _desc(n) else "") for n in active[:8]]
    people = [n.title for n in notes if n.type in ("person",) and n not in users]
    if people:
        lines.append(f"People: {', '.join(people[:15])}" + (f" (+{len(people) - 15} more)" if len(people) > 15 else ""))
    days = sorted((n.title for n in notes if n.type == "daily"), reverse=True)[:3]
    if days:
        lines.append(f"Last daily notes: {', '.join(days)}")
    lines.append('Pull detail: `mdmem recall "<question>"` (search + linked notes, within a budget), '
                 '`mdmem timeline "last week"`, `mdmem show NOTE`; over MCP: recall, search, read_note, timeline.')
    return "\n".join(lines)


def _full(mem: Memory, b: _Builder, notes: list, query: str | None, today: dt.date, include_sensitive: bool):
    users = [n for n in notes if n.type == "user"]
    for u in users[:1]:
        b.add("user profile", f"## About the user: {u.title}\n\n{_body(mem, u.path)}", u.path)
    active = _active(notes)
    if active:
        b.add("active projects", "## Active projects\n" + "\n".join(
            f"- {n.title}" + (f" — {_desc(n)}" if _desc(n) else "") + f" ({n.path})" for n in active))
    shown = {n.path for n in users[:1]} | {n.path for n in active}
    if query:
        from mdmem.ops.recall import recall

        room = b.budget - b.used - 1
        if room >= 300:
            r = recall(mem, query, budget=room, include_sensitive=include_sensitive)
            if r.ranked or r.related:
                b.add("relevant notes", r.markdown)
                shown |= {i.path for i in r.ranked + r.related}
    since = (today - dt.timedelta(days=2)).isoformat()
    daily = [n for n in notes if n.type == "daily" and since <= n.title <= today.isoformat()]
    if daily:
        lines = ["## Last 3 days"]
        for n in sorted(daily, key=lambda n: n.title, reverse=True):
            for time, text in daily_entries(mem, n):
                first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
                lines.append(f"- {n.title}{' ' + time if time else ''}: {first}")
        b.add("daily", "\n".join(lines))
    related = _related(mem, users[:1] + active, shown, include_sensitive)
    if related:
        b.add("related", "## Related\n" + "\n".join(related))
    digests = sorted((n for n in notes if n.type == "digest"), key=lambda n: (n.date or "", n.path), reverse=True)
    if digests:
        b.add("digest", f"## Latest digest: {digests[0].title}\n\n{_body(mem, digests[0].path)}", digests[0].path)


def _related(mem: Memory, around: list, shown: set[str], include_sensitive: bool, limit: int = 10) -> list[str]:
    if not around:
        return []
    graph = mem.graph()
    seen: dict[str, float] = {}
    for note in around:
        for nb in graph.neighbors(note.path, depth=1):
            if nb.path not in shown and nb.path != "MEMORY.md":
                seen[nb.path] = seen.get(nb.path, 0) + nb.weight
    lines = []
    for path in sorted(seen, key=lambda p: (-seen[p], p)):
        note = mem.store.get(path)
        if note is None or (not include_sensitive and is_sensitive(note)) or note.type == "daily":
            continue
        lines.append(f"- {note.title}" + (f" — {_desc(note)}" if _desc(note) else "") + f" ({path})")
        if len(lines) == limit:
            break
    return lines

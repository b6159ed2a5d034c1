"""Frozen dataclasses shared by the core and the CLI.

The core returns these and never prints; the CLI renders them as text or, with
``--json``, as ``dataclasses.asdict`` (see ``render.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Problem:
    """Something wrong with a note: a finding, never a crash.

    ``code`` is one of: ``invalid_yaml``, ``frontmatter_not_mapping``, ``bom``,
    ``not_utf8``, ``empty``, ``too_large``, ``unreadable``, ``symlink_loop``.
    """

    code: str
    message: str


@dataclass(frozen=True)
class Issue:
    """One finding of ``mdmem check`` (:mod:`mdmem.ops.check`, :mod:`mdmem.ops.check_facts`)."""

    kind: str
    path: str  # vault-relative; "MEMORY.md" for index-level issues, "." for the vault
    detail: str
    action: str
    severity: str  # info, warning or error
    line: int | None = None


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int  # 1-based line in the file


@dataclass(frozen=True)
class Link:
    """One link occurrence as written in a note (unresolved).

    ``target`` is the link's path part with whitespace trimmed, URL-decoded for
    Markdown links (``""`` for ``[[#Heading]]``, which points at its own note);
    ``subpath`` is ``"#Heading"`` / ``"#^block"`` or ``None``; ``display`` is the
    text after ``|`` (wikilinks) or between brackets (Markdown links), else ``None``.
    ``kind`` is ``"wikilink"``, ``"markdown"`` or ``"frontmatter"``.
    """

    raw: str
    target: str
    subpath: str | None
    display: str | None
    embed: bool
    kind: str
    line: int  # 1-based line in the file (frontmatter lines count)


@dataclass(frozen=True)
class Note:
    """A parsed note. ``text`` is the Markdown-stripped body used for indexing;
    it is not kept in the notes cache (an empty string when loaded from it)."""

    path: str  # vault-relative, "/" separators
    title: str  # the file name without ".md", as Obsidian shows it
    type: str  # frontmatter ``type``, else inferred from the folder, else "note"
    frontmatter: dict[str, Any]
    tags: tuple[str, ...]  # lower-case, no "#", sorted, unique
    aliases: tuple[str, ...]
    headings: tuple[Heading, ...]
    links: tuple[Link, ...]
    tokens: int  # floor(bytes / 3.2)
    problems: tuple[Problem, ...]
    mtime_ns: int = 0
    size: int = 0
    date: str | None = None  # ISO date: frontmatter updated, else created, else file mtime
    text: str = field(default="", compare=False, repr=False)
    ctime_ns: int = field(default=0, compare=False, repr=False)  # the change stamp it was read at (not kept in JSON)
    digest: str = field(default="", compare=False, repr=False)  # of its body as read (engine.store.body_digest)
    front: str = field(default="", compare=False, repr=False)  # of its frontmatter as read (engine.bodies.front_digest)


@dataclass(frozen=True)
class InitResult:
    """What ``mdmem init`` did: ``new`` when the folder was absent or empty (the whole skeleton);
    else ``added`` holds only what was missing. Folders end with ``/``."""

    vault: str
    new: bool
    added: list[str]
    kept: list[str]  # parts of the layout that were there already, untouched
    daily: str = ""  # where `mdmem daily` writes, and which setting says so
    state: str = ""  # where the vault's derived state lives (``<vault>/.mdmem``, or outside it: decision 067)

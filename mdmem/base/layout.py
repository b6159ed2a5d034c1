"""Every rule of a vault's layout, in one place: where things live and what names mean.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/base/layout.py)."""

from __future__ import annotations

import os

from mdmem.base.lazy_re import lazy

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    import re
    from collections.abc import Container

STATE_DIR = ".mdmem"
INDEX_NAME = "MEMORY.md"
MEMORY_DIR = "memory"
OBSIDIAN_DIR = ".obsidian"  # Obsidian's settings folder: its parent is an Obsidian vault
DAILY_DIR = f"{MEMORY_DIR}/daily"
ARCHIVE_DIR = f"{MEMORY_DIR}/.archive"
ARCHIVE_LOG = f"{ARCHIVE_DIR}/forgotten.jsonl"  # one JSON line per note forgotten: where it came from, its index lines
# a flat vault's archive (Claude Code's memory folder: MEMORY.md and its notes, no memory/): hidden at the root, so
# forgetting never makes memory/, which would turn the vault layered (mdmem.base.vault.is_flat; see ops/forget)
FLAT_ARCHIVE_DIR = ".archive"
ARCHIVE_DIRS = (ARCHIVE_DIR, FLAT_ARCHIVE_DIR)  # where `restore` looks: both, whatever the vault is now
DIGEST_DIR = f"{MEMORY_DIR}/digests"
SESSIONS_DIR = "sessions"  # imported past sessions (``mdmem import``): a record of what was said, not memory
HOOKS_DIR = f"{STATE_DIR}/hooks"
CHECKPOINTS_DIR = f"{STATE_DIR}/checkpoints"
STATE_GITIGNORE = "*\n"  # .mdmem/.gitignore: derived state is never committed

# a note's type -> the folder under memory/ where `save` puts it
TYPE_FOLDERS = {
    "person": "people", "user": "people", "project": "projects", "protocol": "protocols",
    "decision": "decisions", "reference": "references", "feedback": "feedback", "daily": "daily",
}
# a folder name anywhere in a note's path -> the type it implies when frontmatter has none
FOLDER_TYPES = {
    "people": "person", "projects": "project", "protocols": "protocol", "daily": "daily",
    "decisions": "decision", "references": "reference", "feedback": "feedback",
}
# the MEMORY.md section a saved note's line goes under
INDEX_SECTIONS = {
    "user": "User", "person": "People", "project": "Projects", "protocol": "Protocols",
    "decision": "Decisions", "feedback": "Feedback", "reference": "References",
}

# bootstrap files `mdmem context` puts first, in this order
BOOTSTRAP = ("AGENTS.md", "SOUL.md", "USER.md", "IDENTITY.md", "RULES.md")


def mdmem_home() -> str:
    """``MDMEM_HOME`` or ``~/.mdmem``: the default vault's parent, global bootstrap files, hook log."""
    return os.environ.get("MDMEM_HOME") or os.path.join(os.path.expanduser("~"), ".mdmem")


def user_config_path() -> str:
    """The user's own config, ``$MDMEM_HOME/config.toml`` (``~/.mdmem/config.toml``): settings of this user on
    this machine, never inside a vault (a synced vault carries its ``.mdmem/config.toml`` to every machine)."""
    return os.path.join(os.path.expanduser(mdmem_home()), "config.toml")


def nfc(name: str) -> str:
    """A file name, vault path or link target as mdmem *matches* it: NFC-normalised. The one place a name on
    disk becomes a key (link resolution, name lookup, dedup, ``check``'s NAME TWINS).

    A note's path is always its name as it is on disk, and only that is ever opened or written: macOS file
    systems (HFS+ stores NFD; APFS keeps what was written but compares without regard to the form) and the
    tools that bring their files over (Syncthing, Dropbox, rsync, unzip, git without
    ``core.precomposeUnicode``) leave ``Cafe`` + U+0301 on a Linux disk, where ``open()`` needs the exact
    bytes: a walker that keyed notes by their NFC name opened ``Café.md`` and found nothing (the note was
    unsearchable, ``show`` said "unreadable"). Obsidian matches a ``[[Café]]`` link to such a file; so does
    mdmem, by comparing these keys. ASCII names (nearly all) skip the normaliser."""
    if name.isascii():
        return name
    import unicodedata

    return unicodedata.normalize("NFC", name)


def is_index(path: str) -> bool:
    return path == INDEX_NAME


def _true(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "yes"))


def is_index_note(path: str, frontmatter: dict) -> bool:
    """An index, not a note: ``MEMORY.md``, or a note whose frontmatter says ``index: true`` (a map of
    content, a hub page). Index notes are out of search hits unless asked for (``--include-index``) and
    never relate two notes in recall's graph expansion or ``neighbors``: MEMORY.md links every memory,
    so through it everything was "related" to everything. They stay in backlinks and the graph page."""
    return path == INDEX_NAME or _true(frontmatter.get("index"))


def is_sensitive(frontmatter: dict, tags: Container[object]) -> bool:
    """A note marked sensitive (``sensitive: true`` or a ``sensitive`` tag): never shown to an agent
    unless asked for (context, recall, the prompt hook)."""
    return _true(frontmatter.get("sensitive")) or "sensitive" in tags


def archive_dir(flat: bool = False) -> str:
    """The archive forgetting moves notes into: ``memory/.archive``, or ``.archive`` in a flat vault."""
    return FLAT_ARCHIVE_DIR if flat else ARCHIVE_DIR


def archive_log(flat: bool = False) -> str:
    """The archive's log (``forgotten.jsonl``) of :func:`archive_dir`."""
    return f"{archive_dir(flat)}/forgotten.jsonl"


def archive_path(rel: str, flat: bool = False) -> str:
    """Where a note goes when forgotten: ``memory/x/y.md`` -> ``memory/.archive/x/y.md``; in a flat vault
    ``x.md`` -> ``.archive/x.md``."""
    if flat:
        return f"{FLAT_ARCHIVE_DIR}/{rel}"
    inner = rel[len(MEMORY_DIR) + 1:] if rel.startswith(MEMORY_DIR + "/") else rel
    return f"{ARCHIVE_DIR}/{inner}"


def archive_of(rel: str) -> str | None:
    """The archive folder (of :data:`ARCHIVE_DIRS`) holding the vault path ``rel``, else None (any case)."""
    folded = rel.casefold()
    return next((d for d in ARCHIVE_DIRS if folded.startswith(d.casefold() + "/")), None)


def safe_session(session: str) -> str:
    """A session id as a file name (state, checkpoints): ASCII letters, digits, ``._-``, at most 120."""
    name = "".join(c if (c.isascii() and c.isalnum()) or c in "._-" else "_" for c in session)
    return name[:120].lstrip(".") or "session"


def bootstrap_candidates(cwd: str) -> list[str]:
    """Every place a bootstrap file could come from for ``cwd``, in order of precedence: the workspace
    (the nearest ancestor holding ``.git`` or ``.agent``), then ``MDMEM_BOOTSTRAP_DIR`` or ``~/.mdmem``."""
    here = os.path.abspath(cwd)
    workspace = None
    while True:
        if os.path.exists(os.path.join(here, ".git")) or os.path.exists(os.path.join(here, ".agent")):
            workspace = here
            break
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    home = os.environ.get("MDMEM_BOOTSTRAP_DIR") or mdmem_home()
    folders = [f for f in (workspace, os.path.expanduser(home)) if f]
    return [os.path.join(f, name) for f in folders for name in BOOTSTRAP]


def bootstrap_files(cwd: str) -> list[tuple[str, str]]:
    """(name, file) of each bootstrap file that applies in ``cwd``: the workspace's, else the global one. A file
    that is a link to a place outside its folder is none (a cloned project's ``USER.md`` linked to the user's
    credentials would go into the agent's context: decision 131); a link within it (``AGENTS.md`` to ``CLAUDE.md``)
    is followed."""
    candidates = bootstrap_candidates(cwd)
    out = []
    for name in BOOTSTRAP:
        found = next((p for p in candidates if os.path.basename(p) == name and os.path.isfile(p) and _within(p)), None)
        if found:
            out.append((name, found))
    return out


def _within(path: str) -> bool:
    """Does ``path``, links followed, lie inside its own folder?"""
    folder = os.path.realpath(os.path.dirname(path))
    return os.path.realpath(path).startswith(folder.rstrip(os.sep) + os.sep)


# ----------------------------------------------------------------------------- sync conflict copies
# What sync tools leave beside a note they could not merge. Until someone resolves it, such a copy is a
# second, diverging version of a memory: `check` reports it (SYNC CONFLICT) and search, recall, context and
# timeline leave it out (ops/conflicts.py).

# what every name the per-name test below takes for a candidate "x 2.md" ends with (" ", a digit 2-9, three more
# characters), among the names joined by newlines (it starts with a literal: re scans for it fast, 0.2 ms at 10k notes)
_NUMBERED = lazy(r" [2-9][^/\n]{3}\n")
SYNC_WINDOW_NS = 5 * 60 * 10**9  # a "name 2.md" counts as a duplicate when modified within 5 minutes of "name.md"
_CONFLICT_NAME: tuple[tuple[str, re.Pattern[str]], ...] | None = None


def _conflict_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    global _CONFLICT_NAME
    if _CONFLICT_NAME is None:
        import re

        _CONFLICT_NAME = (
            # Dropbox "x (conflicted copy 2024-05-01).md", "x (Ana's conflicted copy 2024-05-01).md"; Google
            # Drive, Nextcloud and Obsidian Sync write the same words ("x (Conflicted copy 202405011230).md")
            ("Dropbox, Google Drive or Obsidian Sync",
             re.compile(r"^(.+?) \((?:[^()]* )?conflicted copy(?:[^()]*|[^()]*\(\d+\)[^()]*)\)(\.md)$", re.I)),
            # Syncthing "x.sync-conflict-20240501-123456-ABCDEFG.md"
            ("Syncthing", re.compile(r"^(.+?)\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}(\.md)$", re.I)),
            # iCloud and Obsidian's own duplicate "x 2.md" beside "x.md" (only with close modification times)
            ("iCloud or Obsidian", re.compile(r"^(.+) ([2-9])(\.md)$")),
        )
    return _CONFLICT_NAME


def sync_conflicts(notes: dict[str, tuple[int, int, int]]) -> dict[str, tuple[str, str]]:
    """The sync conflict copies among ``notes`` (vault path -> (mtime_ns, size, ctime_ns), as the walker gives them):
    copy -> (the original it belongs to, the tool that made it). A Dropbox or Syncthing copy is one by its
    name alone (its original may be gone); ``x 2.md`` only beside ``x.md`` and modified within
    :data:`SYNC_WINDOW_NS` of it (else it is a note someone named so)."""
    found: dict[str, tuple[str, str]] = {}
    names = "\n".join(notes) + "\n"
    if "onflict" not in names and not _NUMBERED.search(names):  # one look at every name at once: most vaults have none
        return found
    patterns = _conflict_patterns()
    for path, stat in notes.items():
        folder, _, name = path.rpartition("/")
        if "onflict" not in name and not (len(name) > 5 and name[-4] in "23456789" and name[-5] == " "):
            continue  # the cheap test: most names are no candidate
        for tool, pattern in patterns:
            m = pattern.match(name)
            if not m:
                continue
            original = (folder + "/" if folder else "") + m.group(1) + m.group(m.lastindex or 0)
            if tool.startswith("iCloud"):
                theirs = notes.get(original)
                if theirs is None or abs(theirs[0] - stat[0]) > SYNC_WINDOW_NS:
                    continue
            found[path] = (original, tool)
            break
    return found

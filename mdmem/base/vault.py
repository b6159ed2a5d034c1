"""The vault as a whole: which folder is one (an mdmem vault, an Obsidian one), finding it for a command
(:func:`find_vault`), and making one from the skeleton (:func:`init_vault`). Reading and writing inside it:
:mod:`mdmem.base.files`. Standard library only, cheap to import (the hooks find their vault here)."""

from __future__ import annotations

import os

from mdmem.base.errors import MdmemError, NotAVault, VaultNotFound
from mdmem.base.files import write_new
from mdmem.base.layout import INDEX_NAME, MEMORY_DIR, OBSIDIAN_DIR, STATE_DIR, mdmem_home
from mdmem.base.state import state_dir, state_folder

TYPE_CHECKING = False  # not `from typing import`: cheap for the hooks
if TYPE_CHECKING:
    from pathlib import Path

    from mdmem.base.models import InitResult


def default_vault() -> Path:
    """The user's default vault, created by ``mdmem init`` with no PATH."""
    from pathlib import Path

    return Path(mdmem_home()) / "vault"




READING_MARK = "read-as-is"  # .mdmem/<this>: the state a read left in a folder given with no vault markers


def _has_state(path: Path | str) -> bool:
    """``.mdmem/`` is there, and not only as what reading a folder of notes as it is left behind
    (:data:`READING_MARK`): such a folder stays no vault for the writing commands until ``mdmem init``."""
    state = os.path.join(path, STATE_DIR)
    return os.path.isdir(state) and not os.path.isfile(os.path.join(state, READING_MARK))


def is_memory_vault(path: Path) -> bool:
    """An mdmem vault: ``.mdmem/``, or ``MEMORY.md`` beside ``memory/``."""
    return _has_state(path) or ((path / INDEX_NAME).is_file() and (path / MEMORY_DIR).is_dir())


def is_flat(path: Path) -> bool:
    """A flat vault: no ``memory/`` folder, every note but ``MEMORY.md`` a memory (Claude Code's own memory
    folder); else layered (memory files under ``memory/``). Decided by what exists, so nothing mdmem does
    to a flat vault may make ``memory/`` (forgetting archives into ``.archive/``: layout.FLAT_ARCHIVE_DIR)."""
    return not os.path.isdir(os.path.join(path, MEMORY_DIR))


def is_obsidian_vault(path: Path) -> bool:
    """A folder Obsidian opens as a vault: it holds ``.obsidian/``."""
    return (path / OBSIDIAN_DIR).is_dir()


def is_vault(path: Path) -> bool:
    """A folder mdmem takes as a vault: an mdmem vault or an Obsidian one."""
    return is_memory_vault(path) or is_obsidian_vault(path)


def looks_like_vault(path: Path | str) -> bool:
    """A folder given as the vault is taken as one when it holds any of ``MEMORY.md`` (Claude Code's flat
    memory folder has only that), ``memory/``, ``.obsidian/`` or ``.mdmem/``; any other folder is a
    mistyped path, never made a vault behind the user's back (``mdmem init`` makes one). A ``str`` too:
    the hooks' fast path asks without importing ``pathlib``."""
    return os.path.isfile(os.path.join(path, INDEX_NAME)) or os.path.isdir(os.path.join(path, MEMORY_DIR)) \
        or os.path.isdir(os.path.join(path, OBSIDIAN_DIR)) or _has_state(path)


NOTES_PROBE = 20_000  # folder entries :func:`holds_notes` looks at, at most, before it says no


def holds_notes(path: Path | str) -> bool:
    """A folder holding at least one Markdown note (``*.md``, hidden folders skipped, breadth first, at most
    :data:`NOTES_PROBE` entries looked at): a folder of notes copied without ``.obsidian/`` (the Obsidian help
    vault and the Obsidian Hub are published so), which a ``--vault`` may name on purpose."""
    queue, seen = [os.fspath(path)], 0
    while queue and seen < NOTES_PROBE:
        folder = queue.pop(0)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    queue.append(entry.path)
                elif entry.name.lower().endswith(".md") and entry.is_file():
                    return True
            except OSError:
                continue
    return False


def _too_wide(path: Path) -> str | None:
    """Why ``path`` cannot be a vault (the file-system root, the home folder), else None."""
    from pathlib import Path

    if path == Path(path.anchor):
        return "the file-system root"
    try:
        if path == Path.home().resolve():
            return "your home folder"
    except (RuntimeError, OSError):
        pass
    return None


def find_vault(explicit: str | os.PathLike | None = None, cwd: Path | None = None, adopt: bool = False,
               read: bool = False) -> Path:
    """``--vault``, then ``MDMEM_VAULT``, then the nearest ancestor holding ``.mdmem/`` or
    ``MEMORY.md`` + ``memory/``, then the nearest ancestor holding ``.obsidian/`` (an Obsidian
    vault brought as it is), then the default vault. First match wins: an mdmem vault above an
    Obsidian one wins over it (a project that keeps its memory at its root and an Obsidian
    ``docs/`` folder inside). The file-system root and the home folder are refused: walking them
    would read the whole disk. A folder given (``--vault``, ``MDMEM_VAULT``) that holds nothing of a
    vault (:func:`looks_like_vault`) is refused too: a mistyped ``--vault /some/docs`` once made
    ``docs/`` a vault, indexed it and answered "no notes match". Every refusal of a vault *given* is one
    :class:`NotAVault` (exit 2, usage: the value of an option is wrong, as click's own path checks exit
    2), whether the path is missing, a file, the root or home, or a folder that is no vault: a script
    tells "fix the path you passed" from a failure by one code (a new user's trial found ``--vault /etc``
    exiting 2 and a missing folder 1), and the SessionStart hook shows the user every one of them (a
    vault moved or renamed no longer loses its memory silently). Nothing given and nothing found stays
    :class:`VaultNotFound` (exit 1): nothing the user typed is wrong. ``adopt`` (``mdmem index``, the one
    command that means "index this folder as it is") takes a folder that is no vault yet; ``read`` (the
    reading commands) takes a ``--vault`` that holds Markdown notes (:func:`holds_notes`: a git copy of a vault without
    its ``.obsidian/``), so that a missing folder or one without any note stays the usage error it was."""
    from pathlib import Path

    for given, origin in ((explicit, "--vault"), (os.environ.get("MDMEM_VAULT"), "MDMEM_VAULT")):
        if given:
            path = Path(given).expanduser()
            if not path.is_dir():
                why = "is not a folder" if path.exists() else "does not exist (was the vault moved or renamed?)"
                raise NotAVault(f"vault not found: {path} ({origin}) {why}")
            path = path.resolve()
            wide = _too_wide(path)
            if wide:
                raise NotAVault(f"refusing {path} ({origin}) as a vault: it is {wide}; "
                                "pass the folder that holds your notes")
            if not adopt and not looks_like_vault(path) and not (read and origin == "--vault" and holds_notes(path)):
                import shlex

                quoted = shlex.quote(str(path))
                if origin == "--vault" and holds_notes(path):  # named on purpose: writing there needs init first
                    raise NotAVault(f"{path} ({origin}) is a folder of notes, not a vault yet: make it one with "
                                    f"`mdmem init {quoted}` before writing to it (reading it works as it is)")
                raise NotAVault(f"{path} ({origin}) is not a vault (no {INDEX_NAME}, {MEMORY_DIR}/, {OBSIDIAN_DIR}/ "
                                f"or {STATE_DIR}/, and no note); check the path, or make it one with `mdmem init "
                                f"{quoted}` (or `mdmem index --vault {quoted}` to index it as it is)")
            return path
    here = (cwd or Path.cwd()).resolve()
    for looks_like in (is_memory_vault, is_obsidian_vault):
        for folder in (here, *here.parents):
            if looks_like(folder) and not _too_wide(folder):
                return folder
    fallback = default_vault()
    if fallback.is_dir():
        return fallback.resolve()
    raise VaultNotFound(
        "no vault found: pass --vault PATH, set MDMEM_VAULT, run mdmem inside a vault, "
        "or create the default vault with `mdmem init`"
    )


def skeleton_dir() -> Path:
    """The skeleton of a new vault: ``mdmem/skeleton`` in a wheel, ``vault/`` in a checkout."""
    from pathlib import Path

    packaged = Path(__file__).parent.parent / "skeleton"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).parent.parent.parent / "vault"
    if checkout.is_dir():
        return checkout
    raise MdmemError("the vault skeleton is missing from this installation")


def init_vault(path: Path) -> InitResult:
    """Make ``path`` a vault, adding only what is missing and changing no existing file.

    A new folder (absent or empty) gets the whole skeleton: ``MEMORY.md``, ``README.md`` and the
    ``memory/`` folders. An existing folder (an Obsidian vault, a notes folder, a project) gets only
    what it lacks of ``MEMORY.md`` and ``memory/people|projects|protocols|daily/`` (its own README
    and notes are its business). Either way ``.mdmem/`` is created with its ``.gitignore`` of ``*``.
    Returns :class:`~mdmem.base.models.InitResult`: what was added and what was already there."""
    from mdmem.base.models import InitResult

    if path.exists() and not path.is_dir():
        raise MdmemError(f"cannot make a vault of {path}: it is a file, not a folder")
    wide = _too_wide(path.resolve()) if path.exists() else None
    if wide:
        raise MdmemError(f"refusing to make {path} a vault: it is {wide}; pass the folder that holds your notes")
    new = not path.exists() or not any(path.iterdir())
    source = skeleton_dir()
    plan = sorted(p.relative_to(source) for p in source.rglob("*") if p.is_file())
    added, kept = [], []
    for rel in plan:
        parts = rel.parts
        if len(parts) == 1:  # MEMORY.md, README.md
            name = rel.as_posix()
            if not new and name != INDEX_NAME:
                continue
            if (path / rel).exists():
                kept.append(name)
                continue
            write_new(path / rel, (source / rel).read_bytes())
            added.append(name)
            continue
        folder = "/".join(parts[:-1]) + "/"  # memory/people/ ...: created with its .gitkeep, else left alone
        if (path / rel).parent.exists():
            if folder not in kept:
                kept.append(folder)
            continue
        write_new(path / rel, (source / rel).read_bytes())
        added.append(folder)
    from pathlib import Path

    state = Path(state_folder(path))  # the vault's .mdmem, or a folder outside it (state_root)
    inside = state == path / STATE_DIR
    had_state, had_ignore = state.is_dir(), (state / ".gitignore").exists()
    state_dir(path)
    (state / READING_MARK).unlink(missing_ok=True)  # a folder read as it is before: a vault now
    if not inside:
        pass  # nothing of mdmem's in the vault: said apart (InitResult.state)
    elif not had_state:
        added.append(STATE_DIR + "/")
    elif not had_ignore:
        added.append(f"{STATE_DIR}/.gitignore")
    else:
        kept.append(STATE_DIR + "/")
    return InitResult(str(path), new, added, kept, state=str(state))

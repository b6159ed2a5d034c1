"""mdmem's public API: the library the CLI and the MCP server are front ends of (docs/python-api.md).

Every name is imported when first used (``from mdmem.api import search`` imports the search path, nothing
else), so ``import mdmem`` stays cheap for the hooks. The verbs take an open :class:`Memory` first
(``with Memory.open(path) as mem: save(mem, ...)``) and return frozen dataclasses; errors are
:class:`MdmemError` kinds. :mod:`mdmem` re-exports all of it: ``from mdmem import Memory, save``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: `import mdmem` is on the hooks' path
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from mdmem.agents.checkpoint.consolidate import (  # noqa: F401  (the public names, for type checkers)
        Checkpoint,
        accept,
        skip,
    )
    from mdmem.agents.history.importer import ImportReport
    from mdmem.base.errors import (  # noqa: F401  (the public names, for type checkers)
        AmbiguousNote,
        ConfigError,
        LockTimeout,
        MdmemError,
        NotAVault,
        NoteArchived,
        NoteNotFound,
        UsageError,
        VaultNotFound,
        WriteConflict,
    )
    from mdmem.base.files import (  # noqa: F401  (the public names, for type checkers)
        version,
    )
    from mdmem.base.vault import (  # noqa: F401  (the public names, for type checkers)
        default_vault,
        find_vault,
        init_vault,
    )
    from mdmem.engine.changes import (  # noqa: F401  (the public names, for type checkers)
        Changes,
    )
    from mdmem.engine.export import (  # noqa: F401  (the public names, for type checkers)
        export,
    )
    from mdmem.engine.index import (  # noqa: F401  (the public names, for type checkers)
        Filters,
    )
    from mdmem.engine.memory import (  # noqa: F401  (the public names, for type checkers)
        Memory,
        NoteText,
    )
    from mdmem.ops.browse import (  # noqa: F401  (the public names, for type checkers)
        backlinks,
        dangling,
        deadends,
        graph_data,
        graph_map,
        isolated,
        neighbors,
        orphans,
        path_between,
    )
    from mdmem.ops.budget import (  # noqa: F401  (the public names, for type checkers)
        stamp_new_index,
        update_budget,
    )
    from mdmem.ops.capture import (  # noqa: F401  (the public names, for type checkers)
        MAX_TEXT,
        save,
    )
    from mdmem.ops.check import (  # noqa: F401  (the public names, for type checkers)
        audit as check,
    )
    from mdmem.ops.confirm import (  # noqa: F401  (the public names, for type checkers)
        confirm,
    )
    from mdmem.ops.context import (  # noqa: F401  (the public names, for type checkers)
        context,
    )
    from mdmem.ops.daily import (  # noqa: F401  (the public names, for type checkers)
        daily_add,
        daily_show,
    )
    from mdmem.ops.digest import (  # noqa: F401  (the public names, for type checkers)
        digest,
    )
    from mdmem.ops.edit import (  # noqa: F401  (the public names, for type checkers)
        edit,
    )
    from mdmem.ops.find import (  # noqa: F401  (the public names, for type checkers)
        search,
    )
    from mdmem.ops.forget import (  # noqa: F401  (the public names, for type checkers)
        NeedsConfirmation,
        forget,
        restore,
    )
    from mdmem.ops.graph_page import (  # noqa: F401  (the public names, for type checkers)
        render_html as graph_page,
    )
    from mdmem.ops.move import (  # noqa: F401  (the public names, for type checkers)
        move,
    )
    from mdmem.ops.move import (  # noqa: F401  (the public names, for type checkers)
        resume as resume_move,
    )
    from mdmem.ops.recall import (  # noqa: F401  (the public names, for type checkers)
        recall,
    )
    from mdmem.ops.search import (  # noqa: F401  (the public names, for type checkers)
        iso_day,
    )
    from mdmem.ops.sessions import (  # noqa: F401  (the public names, for type checkers)
        hidden_type,
        is_session,
        recall_sessions,
    )
    from mdmem.ops.timeline import (  # noqa: F401  (the public names, for type checkers)
        timeline,
    )
    from mdmem.ops.watch import (  # noqa: F401  (the public names, for type checkers)
        watch,
    )
    from mdmem.text.parse import (  # noqa: F401  (the public names, for type checkers)
        decode,
    )
    from mdmem.text.past import (  # noqa: F401  (the public names, for type checkers)
        about_past,
    )
    from mdmem.text.query import (  # noqa: F401  (the public names, for type checkers)
        MAX_QUERY_CHARS,
    )
    from mdmem.text.temporal import (  # noqa: F401  (the public names, for type checkers)
        iso_bound,
    )

# the public name -> (module, name there); grouped as docs/python-api.md presents them
_WHERE: dict[str, tuple[str, str]] = {
    # the vault
    "Memory": ("mdmem.engine.memory", "Memory"),
    "NoteText": ("mdmem.engine.memory", "NoteText"),
    "find_vault": ("mdmem.base.vault", "find_vault"),
    "init_vault": ("mdmem.base.vault", "init_vault"),
    "default_vault": ("mdmem.base.vault", "default_vault"),
    "version": ("mdmem.base.files", "version"),
    "decode": ("mdmem.text.parse", "decode"),
    # reading
    "search": ("mdmem.ops.find", "search"),
    "iso_day": ("mdmem.ops.search", "iso_day"),
    "Filters": ("mdmem.engine.index", "Filters"),
    "recall": ("mdmem.ops.recall", "recall"),
    "context": ("mdmem.ops.context", "context"),
    "timeline": ("mdmem.ops.timeline", "timeline"),
    "iso_bound": ("mdmem.text.temporal", "iso_bound"),
    "MAX_QUERY_CHARS": ("mdmem.text.query", "MAX_QUERY_CHARS"),
    "daily_show": ("mdmem.ops.daily", "daily_show"),
    "digest": ("mdmem.ops.digest", "digest"),
    # writing
    "save": ("mdmem.ops.capture", "save"),
    "MAX_TEXT": ("mdmem.ops.capture", "MAX_TEXT"),
    "edit": ("mdmem.ops.edit", "edit"),
    "move": ("mdmem.ops.move", "move"),
    "resume_move": ("mdmem.ops.move", "resume"),
    "forget": ("mdmem.ops.forget", "forget"),
    "restore": ("mdmem.ops.forget", "restore"),
    "NeedsConfirmation": ("mdmem.ops.forget", "NeedsConfirmation"),
    "daily_add": ("mdmem.ops.daily", "daily_add"),
    "confirm": ("mdmem.ops.confirm", "confirm"),
    # checking
    "check": ("mdmem.ops.check", "audit"),
    "check_missing_folder": ("mdmem.ops.check", "missing_folder"),
    "update_budget": ("mdmem.ops.budget", "update_budget"),
    "stamp_new_index": ("mdmem.ops.budget", "stamp_new_index"),
    # the link graph
    "backlinks": ("mdmem.ops.browse", "backlinks"),
    "neighbors": ("mdmem.ops.browse", "neighbors"),
    "path_between": ("mdmem.ops.browse", "path_between"),
    "graph_map": ("mdmem.ops.browse", "graph_map"),
    "orphans": ("mdmem.ops.browse", "orphans"),
    "deadends": ("mdmem.ops.browse", "deadends"),
    "isolated": ("mdmem.ops.browse", "isolated"),
    "dangling": ("mdmem.ops.browse", "dangling"),
    "graph_data": ("mdmem.ops.browse", "graph_data"),
    "graph_page": ("mdmem.ops.graph_page", "render_html"),
    "export": ("mdmem.engine.export", "export"),
    "EXPORT_FORMATS": ("mdmem.engine.export", "FORMATS"),
    # long-running processes
    "watch": ("mdmem.ops.watch", "watch"),
    "Changes": ("mdmem.engine.changes", "Changes"),
    # the checkpoint (accept, skip; checkpoint below)
    "accept": ("mdmem.agents.checkpoint.consolidate", "accept"),
    "skip": ("mdmem.agents.checkpoint.consolidate", "skip"),
    "recall_sessions": ("mdmem.ops.sessions", "recall_sessions"),
    "is_session": ("mdmem.ops.sessions", "is_session"),
    "hidden_type": ("mdmem.ops.sessions", "hidden_type"),
    "about_past": ("mdmem.text.past", "about_past"),
    # errors
    "MdmemError": ("mdmem.base.errors", "MdmemError"),
    "VaultNotFound": ("mdmem.base.errors", "VaultNotFound"),
    "NotAVault": ("mdmem.base.errors", "NotAVault"),
    "NoteNotFound": ("mdmem.base.errors", "NoteNotFound"),
    "AmbiguousNote": ("mdmem.base.errors", "AmbiguousNote"),
    "NoteArchived": ("mdmem.base.errors", "NoteArchived"),
    "LockTimeout": ("mdmem.base.errors", "LockTimeout"),
    "WriteConflict": ("mdmem.base.errors", "WriteConflict"),
    "UsageError": ("mdmem.base.errors", "UsageError"),
    "ConfigError": ("mdmem.base.errors", "ConfigError"),
}

__all__ = sorted([*_WHERE, "checkpoint", "import_sessions"])


def checkpoint(transcript: str | Path, vault: str | Path, **options) -> Checkpoint:
    """The offline checkpoint of a conversation: a Claude Code JSONL transcript or a ``User:`` /
    ``Assistant:`` text (``-``: standard input), read by Claude Code's reader; what the detectors suggest
    keeping, stored as the vault's pending checkpoint (``store_result=False``: not stored). Nothing is
    written to memory: :func:`accept` saves the ones chosen. ``options``: those of
    :func:`mdmem.agents.checkpoint.consolidate.analyze` (``lang``, ``session``, ``today``, ``model``, ...)."""
    from pathlib import Path

    from mdmem.agents.checkpoint.consolidate import analyze
    from mdmem.agents.claude.transcript import read

    return analyze(str(transcript), Path(vault), read=read, **options)


def import_sessions(memory: Memory, source: str, file: str | Path | None = None, **options) -> ImportReport:
    """Past sessions as notes under ``sessions/``, one per session, linked from the day's daily note; again
    updates what changed, never duplicates. ``source``: an agent's transcripts (``claude-code``, ``codex``,
    ``gemini``: all of them, or the one ``file``) or a chat export's ``file`` (``chatgpt``, ``claude-ai``),
    each read by that agent's own reader. ``options``: those of
    :func:`mdmem.agents.history.importer.import_sessions` (``project``, ``since``, ``dry_run``, ``progress``)."""
    from mdmem.agents.history.importer import import_sessions as run

    return run(memory, source, units=_import_units(source, file), **options)


def _import_units(source: str, file: str | Path | None) -> list:
    """(label, read) for each file to import, unread: an agent's transcript files (or ``file``), or the export.
    Here, above the agents' packages: the importer is neutral and never picks an agent's reader."""
    import os
    from pathlib import Path

    from mdmem.agents.history.importer import EXPORT_SOURCES, SOURCES
    from mdmem.base.errors import UsageError

    if source not in SOURCES:
        raise UsageError(f"unknown source {source!r}: choose one of {', '.join(SOURCES)}")
    if source in EXPORT_SOURCES:
        if file is None:
            raise UsageError(f"import {source} needs the export's file (conversations.json or its ZIP)")
        from mdmem.agents.exports import chatgpt, claude_ai

        export_reader = chatgpt.read if source == "chatgpt" else claude_ai.read
        return [(os.fspath(file), lambda: export_reader(file))]
    if source == "claude-code":
        from mdmem.agents.claude import history as mod
    elif source == "codex":
        from mdmem.agents.codex import rollout as mod  # type: ignore[no-redef]
    else:
        from mdmem.agents.gemini import chats as mod  # type: ignore[no-redef]
    paths = [Path(file)] if file is not None else mod.files()
    read = mod.read
    return [(os.fspath(p), lambda p=p: [read(p)]) for p in paths]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'mdmem.api' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value  # the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    return __all__

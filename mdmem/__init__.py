"""mdmem: an Obsidian-style Markdown-vault memory manager for AI agents.

``from mdmem import Memory, save, search`` is the library (docs/python-api.md): every name of
:mod:`mdmem.api`, resolved lazily so that ``import mdmem`` (the hook fast path) stays standard-library
only and cheap.
"""

from __future__ import annotations

# ruff: noqa: F405  (the names of __all__ come from mdmem.api, lazily)

__version__ = "0.1.0"

TYPE_CHECKING = False  # not `from typing import`: `import mdmem` is on the hooks' path (typing costs ~5 ms)
if TYPE_CHECKING:
    from mdmem.api import *  # noqa: F403



def __getattr__(name: str) -> object:
    """A public name, from :mod:`mdmem.api` (imported on first use: ``import mdmem`` alone imports nothing)."""
    if name.startswith("_") or name not in __all__:
        raise AttributeError(f"module 'mdmem' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module("mdmem.api"), name)


def __dir__() -> list[str]:
    return list(__all__)


# the public API's names, as `from mdmem import *` and readers of __all__ see them (kept equal to
# mdmem.api.__all__ by tests/test_python_api.py)
__all__ = [
    "AmbiguousNote", "Changes", "ConfigError", "EXPORT_FORMATS", "Filters", "LockTimeout", "MAX_QUERY_CHARS",
    "MAX_TEXT", "MdmemError", "Memory", "NeedsConfirmation", "NotAVault", "NoteArchived", "NoteNotFound",
    "NoteText", "UsageError", "VaultNotFound", "WriteConflict", "__version__", "about_past", "accept", "backlinks",
    "check", "check_missing_folder", "checkpoint", "confirm", "context", "daily_add", "daily_show", "dangling",
    "deadends", "decode", "default_vault", "digest", "edit", "export", "find_vault", "forget", "graph_data",
    "graph_map", "graph_page", "hidden_type", "import_sessions", "init_vault", "is_session", "iso_bound", "iso_day",
    "isolated", "move", "neighbors", "orphans", "path_between", "recall", "recall_sessions", "restore",
    "resume_move", "save", "search", "skip", "stamp_new_index", "timeline", "update_budget", "version", "watch",
]

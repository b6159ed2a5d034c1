"""mdmem: an Obsidian-style Markdown-vault memory manager for AI agents.

``from mdmem import Memory`` is the library: ``Memory.open(path).search(q, limit=5)``.
The name is resolved lazily so that ``import mdmem`` (the hook fast path) stays
standard-library only.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: the hooks import this package and typing costs ~5 ms

__version__ = "0.1.0"
__all__ = ["Memory", "__version__"]

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory


def __getattr__(name: str):
    if name == "Memory":
        from mdmem.engine.memory import Memory

        return Memory
    raise AttributeError(f"module 'mdmem' has no attribute {name!r}")

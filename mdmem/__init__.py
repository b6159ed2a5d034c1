"""mdmem: an Obsidian-style Markdown-vault memory manager for AI agents.

``from mdmem import Memory`` is the library: ``Memory.open(path).search(q, limit=5)``.
The name is resolved lazily so that ``import mdmem`` (the hook fast path) stays
standard-library only and cheap.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["Memory", "__version__"]

TYPE_CHECKING = False  # not `from typing import`: `import mdmem` is on the hooks' path (typing costs ~5 ms)
if TYPE_CHECKING:
    from mdmem.engine.memory import Memory


def __getattr__(name: str) -> object:
    if name == "Memory":
        from mdmem.engine.memory import Memory

        return Memory
    raise AttributeError(f"module 'mdmem' has no attribute {name!r}")

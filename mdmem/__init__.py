"""mdmem: an Obsidian-style Markdown-vault memory manager for AI agents."""

__version__ = "0.1.0"

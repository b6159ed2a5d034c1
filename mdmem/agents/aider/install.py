"""``mdmem install aider``: the card as ``.mdmem-card.md``, which Aider reads with ``--read`` (Aider has no hooks
and no MCP)."""

from __future__ import annotations

CARDS = ((".mdmem-card.md", True),)


def notes(vault: str) -> list[str]:
    return ["Have Aider read the card: add `read: .mdmem-card.md` to .aider.conf.yml (or run aider --read "
            ".mdmem-card.md); refresh it with `mdmem context --write .mdmem-card.md`."]

"""When a stored checkpoint was saved, as the card and ``checkpoint accept`` take it: its ``saved`` (the real clock),
unless it is not a number or lies ahead. A checkpoint dated in the future (a vault delivered by sync or an archive)
would otherwise sit on every card, never age out, and be the newest pending one (decision 130). Standard library
only, nothing imported: the card's hook and the checkpoint store both read it."""

from __future__ import annotations

AHEAD = 86400  # seconds a checkpoint's `saved` may lie ahead of this clock (another machine's) and still be taken


def saved_at(data: dict, now: float, days: float) -> float | None:
    """``data``'s ``saved``, None when it is no longer taken: more than ``days`` days ago, not a number, or more
    than :data:`AHEAD` in the future."""
    saved = data.get("saved")
    if not isinstance(saved, (int, float)) or isinstance(saved, bool):
        return None
    return saved if now - days * 86400 <= saved <= now + AHEAD else None  # (NaN: neither)

"""mdmem's hooks speak Claude Code's JSON; this maps another agent's payload in and mdmem's answer out.

Each agent package has a ``hooks`` module with ``NAME``, ``EVENTS`` (the agent's event name -> mdmem's hook),
``FORCED`` (hook options the agent needs, e.g. Codex has no context output on Stop), ``inbound(hook, payload)``
and ``outbound(hook, answer)``. The hooks themselves (card, prompt recall, checkpoint trigger, capture) stay one
agent-neutral implementation. Standard library only: this runs on the hook fast path.
"""

from __future__ import annotations

AGENTS = ("claude", "codex", "gemini", "cursor", "copilot", "opencode")  # those whose hooks run mdmem's commands


def context_of(answer) -> str | None:
    """The text an answer hands the model: the card (a string), ``additionalContext``, or a block's reason."""
    if isinstance(answer, str):
        return answer or None
    if not isinstance(answer, dict):
        return None
    specific = answer.get("hookSpecificOutput")
    if isinstance(specific, dict) and isinstance(specific.get("additionalContext"), str):
        return specific["additionalContext"]
    reason = answer.get("reason")
    return reason if isinstance(reason, str) else None


def reshaped(hook: str, answer, start: str, stop) -> dict | None:
    """An answer for an agent whose hooks take the card in one field (``start``) and the scan prompt as
    ``stop(text)``; every other hook answers nothing (those agents only observe them)."""
    text = context_of(answer)
    if not text:
        return None
    if hook == "session-start":
        return {start: text}
    return stop(text) if hook == "stop" else None


def present(payload: dict) -> dict:
    """The payload without the fields an adapter found no value for."""
    return {k: v for k, v in payload.items() if v is not None}


def keep(answer: dict, allowed: tuple[str, ...]) -> dict | None:
    """Only the fields the agent's schema allows (Codex refuses an answer with any other)."""
    kept = {k: v for k, v in answer.items() if k in allowed}
    return kept or None


def first(payload: dict, *names: str):
    """The first of ``names`` the payload holds as a non-empty value."""
    for name in names:
        value = payload.get(name)
        if value not in (None, "", [], {}):
            return value
    return None

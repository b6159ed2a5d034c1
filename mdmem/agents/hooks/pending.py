"""What the next card shows of a pending checkpoint (kept by the Stop, PreCompact or SessionEnd hook and not yet
accepted or skipped): which one, its suggestions still pending, how to accept them. Standard library and ``mdmem.base`` only at load time:
the SessionStart hook reads it on every session start."""

from __future__ import annotations

import os
import time

from mdmem.agents.checkpoint.saved import saved_at
from mdmem.agents.hooks.state import read_state
from mdmem.base.layout import safe_session
from mdmem.base.state import state_folder

PENDING_DAYS = 14  # a pending checkpoint older than this is no longer shown on the card
# who stored a checkpoint the card shows (its `origin`, mdmem.agents.checkpoint.candidates.ORIGINS): the model through
# `checkpoint propose` / MCP `checkpoint_propose` (after the Stop hook's prompt or a consolidation) and the
# PreCompact / SessionEnd hooks; one stored before origins were kept has none and is shown, as then. Never a hand
# run of `mdmem checkpoint TRANSCRIPT` ("hand"): its person read the list in their terminal, and it sat on every
# later card of the vault for 14 days, the agents asking about it (a new user's trial)
CARD_ORIGINS = ("propose", "PreCompact", "SessionEnd", None)


def cut_bytes(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, on a character boundary."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def checkpoints_folder(vault: str) -> str:
    return state_folder(vault, "checkpoints")


def _shown(data: dict) -> bool:
    """Is ``data`` a checkpoint the card shows: pending, with suggestions left, stored by a hook or
    ``propose`` (:data:`CARD_ORIGINS`)?"""
    return data.get("status") == "pending" and bool(data.get("candidates")) and data.get("origin") in CARD_ORIGINS


def pending(vault: str, session: str | None = None, prefer: str | None = None, project: str | None = None) -> dict | None:
    """The pending checkpoint to show: ``session``'s (after a compaction: only that one); else
    ``prefer``'s if pending, else the newest pending one of any session of ``project`` (the card's: the
    checkpoint records the project its session worked in; one made outside any project is shown in every
    project, one stored before projects were recorded too) saved in the last :data:`PENDING_DAYS` days and not
    ahead of now (:func:`mdmem.agents.checkpoint.saved.saved_at`); never one a hand run stored (:data:`CARD_ORIGINS`). Read as plain JSON (the
    card stays on the standard library)."""
    folder = checkpoints_folder(vault)
    chosen = session or prefer
    if chosen:
        data = read_state(os.path.join(folder, safe_session(chosen) + ".json"))
        if _shown(data):
            return data
        if session is not None:
            return None
    newest = None
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    now = time.time()
    for name in names:
        if not name.endswith(".json"):
            continue
        data = read_state(os.path.join(folder, name))
        saved = saved_at(data, now, PENDING_DAYS)
        if saved is not None and _shown(data) and _ours(data, project):
            if newest is None or (saved, name) > newest[0]:
                newest = ((saved, name), data)
    return newest[1] if newest else None


def _ours(data: dict, project: str | None) -> bool:
    """Is a stored checkpoint one a card of ``project`` shows: of that project's session, or global?"""
    owner = data.get("project")
    return not isinstance(owner, str) or not owner or (
        project is not None and owner.casefold() == project.casefold())


def instructions(lang: str, session: str, vault, example: str = "1,2") -> str:
    """How the model accepts or skips a pending checkpoint's suggestions (the user chooses); ``example``:
    the numbers the accept command shows (the pending ones: after a partial accept only #3 may be left)."""
    import shlex

    from mdmem.agents.launch import runner
    from mdmem.text.fence import one_line

    tail = one_line(f"--session {shlex.quote(session)} --vault {shlex.quote(str(vault))}")  # one line, whatever the id
    example = one_line(example)
    run = runner()
    if lang == "pt":
        return (f"(mdmem) Mostre ao usuário estas memórias sugeridas, numeradas como acima, e pergunte quais "
                f"salvar; não salve nada antes da resposta. Se ele responder com números, rode "
                f"`{run} checkpoint accept {example} {tail}` (com os números dele); se disser \"pular\", rode "
                f"`{run} checkpoint skip {tail}`. Uma regra [claude-md] não é salva pelo mdmem: mostre a "
                f"linha para o usuário colocar no CLAUDE.md.")
    return (f"(mdmem) Show the user these suggested memories, numbered as above, and ask which to save; save "
            f"nothing before they answer. If they reply with numbers, run `{run} checkpoint accept {example} {tail}` "
            f"(with their numbers); if they say skip, run `{run} checkpoint skip {tail}`. A [claude-md] rule is "
            f"not saved by mdmem: show the line for the user to add to CLAUDE.md.")


def pending_text(vault: str, data: dict, room: int) -> str:
    """A pending checkpoint as the card shows it: why it is there, its numbered suggestions (as many as
    fit in ``room`` bytes) and how to accept or skip them; "" when not even one fits."""
    from mdmem.text.fence import fence, one_line

    session = str(data.get("session", ""))
    marker = read_state(state_folder(vault, "hooks", "pending-" + safe_session(session) + ".json"))
    pt = data.get("lang") == "pt"
    why = {"PreCompact": "antes da compactação" if pt else "before the conversation was compacted",
           "SessionEnd": "no fim da sessão" if pt else "when the session ended"}.get(
        str(data.get("origin") or marker.get("event")))
    head = ((f"## Checkpoint pendente (sessão {one_line(session)}{', ' + why if why else ''})\n"
             "Memórias sugeridas, ainda não salvas:") if pt else
            (f"## Pending memory checkpoint (session {one_line(session)}{', kept ' + why if why else ''})\n"
             "Suggested memories, not saved yet:"))
    items = [c for c in data.get("candidates", []) if isinstance(c, dict)]
    shown = [str(c.get("number", i + 1)) for i, c in enumerate(items)][:2]
    tail = instructions(data.get("lang", "en"), session, vault, ",".join(shown) or "1")
    flagged = ""
    if any(c.get("secret") for c in items):  # rare: the mark's text only then (the card stays on the stdlib)
        from mdmem.agents.checkpoint.candidates import SECRET_MARK

        flagged = SECRET_MARK["pt" if pt else "en"].format(flag="--allow-secret")
    lines: list[str] = []
    used = len(head.encode()) + 1 + len(tail.encode()) + 1 + len(fence("").encode()) + 1
    for c in items:
        line = f"{one_line(c.get('number', len(lines) + 1))}. [{one_line(c.get('type', '?'))}] " \
               f"{one_line(c.get('mark', ''))} {one_line(c.get('name', ''))} — {one_line(c.get('description', ''))}" \
               .replace("  ", " ") + (f" {flagged}" if c.get("secret") else "")
        line = cut_bytes(" ".join(line.split()), 300)
        if used + len(line.encode()) + 1 > room:
            break
        lines.append(line)
        used += len(line.encode()) + 1
    if not lines:
        return ""
    return "\n".join([head, fence("\n".join(lines)), tail])

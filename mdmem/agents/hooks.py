"""Claude Code hooks, the logic: the Stop hook (``stop``) and the SessionStart card (``session_start``).

Claude Code runs these at every agent turn, so they are reached from :mod:`mdmem.cli.hook` (the
fast path, before Typer is ever imported) and this module imports only the standard library and
``mdmem.base`` at load time (no whoosh, networkx, rich, yaml or markdown-it).
Installing them into Claude Code's settings is :mod:`mdmem.agents.claude_settings`.

The Stop hook reads Claude Code's JSON on stdin (``session_id``,
``transcript_path``, ``cwd``, ``stop_hook_active``, optional
``last_assistant_message``; unknown fields ignored) and keeps per-session state
in ``<vault>/.mdmem/hooks/stop-<session>.json`` (atomic writes under a
per-session ``flock``, so hooks racing on one session both count). Policies:

- ``cadence`` (the default): fires when at least ``min_stops`` (20) stops and
  ``min_minutes`` (30) minutes have passed since the session's last trigger (or
  its first stop), and checks the transcript written since the last trigger;
- ``evidence``: at every stop scans only the transcript bytes appended since
  the last scan (carrying the previous two messages for context) and fires when
  ``min_dimensions`` (2) dimensions were newly hit since the last trigger, at
  most every ``min_interval_minutes`` (10).

When a checkpoint has candidates it prints one JSON object: ``decision:
"block"`` with a ``reason`` that gives the model the checkpoint and tells it to
ask the user which to save (then run ``mdmem checkpoint accept``), plus a
``systemMessage`` for the user; ``--output context`` sends the checkpoint as
``hookSpecificOutput.additionalContext`` instead of blocking. Otherwise, and
whenever ``stop_hook_active`` is true, it exits 0 and prints nothing. It fails
open: any error exits 0, with the message on stderr and in
``.mdmem/hooks/hook.log``. ``MDMEM_NOW`` (epoch seconds or ISO 8601) sets the
clock, for tests.

Settings (flags win over ``<vault>/.mdmem/config.toml``)::

    [hook]
    policy = "cadence"          # or "evidence"
    min_stops = 20
    min_minutes = 30
    min_dimensions = 2
    min_interval_minutes = 10
    output = "block"            # or "context"
"""

from __future__ import annotations

import json
import os
import time

from mdmem.base import files
from mdmem.base.errors import MdmemError
from mdmem.base.layout import HOOKS_DIR, bootstrap_candidates, mdmem_home, safe_session

CARRY = 2          # messages carried from one evidence scan to the next, for context
SEEN = 400         # evidence keys remembered per session, so a message is not counted twice
PENDING = 5        # the strongest pieces of evidence kept per dimension until the next trigger
LOCK_WAIT = 5.0    # seconds to wait for another hook holding the session's state
CARD_MAX = 10_000  # bytes (UTF-8): the most the SessionStart hook ever prints; Claude Code cuts larger ones
CARD_BUDGET = 8000  # bytes: the card's default budget, leaving room for a pending checkpoint
PENDING_DAYS = 14  # a pending checkpoint older than this is no longer shown on the card


class HookError(MdmemError):
    """A hook's input or state is unusable; the hook fails open (exit 0, message on stderr and in the log)."""


def now() -> float:
    given = os.environ.get("MDMEM_NOW")
    if not given:
        return time.time()
    try:
        return float(given)
    except ValueError:
        import datetime as dt

        moment = dt.datetime.fromisoformat(given)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.timezone.utc)
        return moment.timestamp()


def settings(vault: str, opts: dict) -> dict:
    """``[hook]`` of the vault's config over its defaults, then the flags (read only when the file exists:
    the settings module costs ~10 ms to import, a tenth of a quiet hook's budget)."""
    if not os.path.isfile(os.path.join(vault, ".mdmem", "config.toml")):
        return {"policy": "cadence", "min_stops": 20, "min_minutes": 30.0, "min_dimensions": 2,
                "min_interval_minutes": 10.0, "output": "block", **{k: v for k, v in opts.items()
                                                                     if k in ("policy", "output")}}
    from mdmem.base.settings import hook_settings

    return hook_settings(vault, opts)


def log(vault: str | None, line: str) -> None:
    """Append to ``<vault>/.mdmem/hooks/hook.log`` (or ``~/.mdmem/hook.log``), kept under 1 MB."""
    try:
        folder = os.path.join(vault, HOOKS_DIR) if vault is not None else mdmem_home()
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "hook.log")
        if os.path.exists(path) and os.path.getsize(path) > 1_000_000:
            os.replace(path, path + ".1")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime())
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{stamp} {line}\n")
    except OSError:
        pass


# ----------------------------------------------------------------------------- state


def read_state(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            state = json.loads(f.read())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}  # damaged state is derived state: start the session's count again
    return state if isinstance(state, dict) else {}


def write_state(path: str, state: dict) -> None:
    files.write_atomic(path, json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode())


# ----------------------------------------------------------------------------- stop


def stop(vault: str, payload: dict, opts: dict) -> dict | None:
    if payload.get("stop_hook_active") is True:
        return None  # Claude is already continuing because of a Stop hook: never loop
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    transcript = payload.get("transcript_path") if isinstance(payload.get("transcript_path"), str) else ""
    if not session:
        raise HookError("no session_id in the hook's input")
    cfg = settings(vault, opts)
    folder = os.path.join(vault, HOOKS_DIR)
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, "stop-" + safe_session(session))
    t = now()
    with files.Lock(base + ".lock", LOCK_WAIT, f"another hook holds {base}.lock (waited {LOCK_WAIT:.0f} s)"):
        state = read_state(base + ".json")
        state.setdefault("first", t)
        state["stops"] = state.get("stops", 0) + 1
        state["since"] = state.get("since", 0) + 1
        state["policy"] = cfg["policy"]
        if transcript and state.get("transcript") not in (None, transcript):
            state.update(offset=0, trigger_offset=0, count=0, carry=[])  # a new file for this session
        state["transcript"] = transcript or state.get("transcript")
        if isinstance(payload.get("cwd"), str):
            state["cwd"] = payload["cwd"]
        evidence = None
        if cfg["policy"] == "cadence":
            last = state.get("last_trigger") or state["first"]
            if state["since"] >= cfg["min_stops"] and t - last >= cfg["min_minutes"] * 60:
                evidence, scan = _scan(transcript, state, "trigger_offset", payload)
                evidence = list(evidence)
                _trigger(state, t)
                state["scanned"] = scan
        else:
            found, scan = _scan(transcript, state, "offset", payload)
            state["scanned"] = scan
            from mdmem.agents.dimensions import HIT

            pending = state.setdefault("pending", {})
            for e in found:
                if e.strength >= HIT:  # only what hits a dimension counts toward firing
                    items = pending.setdefault(str(e.dimension), [])
                    items.append(_evidence_dict(e))
                    items.sort(key=lambda d: -d["strength"])
                    del items[PENDING:]
            last = state.get("last_trigger") or 0
            if len(pending) >= cfg["min_dimensions"] and t - last >= cfg["min_interval_minutes"] * 60:
                evidence = [_evidence(d) for items in pending.values() for d in items]
                _trigger(state, t)
        write_state(base + ".json", state)
        if evidence is None:
            return None
        return _fire(vault, session, transcript, evidence, state, cfg)


def _trigger(state: dict, t: float) -> None:
    state["last_trigger"] = t
    state["since"] = 0
    state["pending"] = {}
    state["triggers"] = state.get("triggers", 0) + 1


def _evidence_dict(e) -> dict:
    from dataclasses import asdict

    return asdict(e)


def _evidence(d: dict):
    from mdmem.agents.dimensions import Evidence

    return Evidence(**d)


def _scan(transcript: str, state: dict, key: str, payload: dict):
    """New evidence in the transcript bytes after ``state[key]`` (the offset
    then moves to the end of what was read)."""
    from mdmem.agents.dimensions import detect
    from mdmem.agents.transcript import Message, read

    if not transcript:
        raise HookError("no transcript_path in the hook's input")
    start = int(state.get(key, 0) or 0)
    tr = read(transcript, start=start)
    base = int(state.get("count", 0)) if key == "offset" else 0
    carry = [Message(m["index"], m["speaker"], m["text"], tuple(m["tools"]), m["offset"], m.get("id"))
             for m in state.get("carry", [])] if key == "offset" else []
    fresh = [Message(base + i, m.speaker, m.text, m.tools, m.offset, m.id) for i, m in enumerate(tr.messages)]
    if carry and fresh and fresh[0].id and carry[-1].id == fresh[0].id:
        # the rest of a message whose first records the last scan read: one message again
        old, new = carry[-1], fresh.pop(0)
        carry[-1] = Message(old.index, old.speaker, "\n".join(t for t in (old.text, new.text) if t),
                            old.tools + new.tools, old.offset, old.id)
        fresh = [Message(m.index - 1, m.speaker, m.text, m.tools, m.offset, m.id) for m in fresh]
    messages = carry + fresh
    last = payload.get("last_assistant_message")
    if isinstance(last, str) and last.strip() and not any(
            m.speaker == "assistant" and last.strip()[:200] in m.text for m in fresh[-3:]):
        # the transcript is written asynchronously: the last reply may not be in the file yet
        messages.append(Message(base + len(fresh), "assistant", last.strip(), (), tr.end))
    seen = set(state.get("seen", []))
    found = []
    for e in detect(messages):
        k = f"{e.dimension}:{e.quote}"
        if k not in seen:
            seen.add(k)
            found.append(e)
    state["seen"] = list(seen)[-SEEN:]
    state[key] = tr.end
    if key == "offset":
        state["count"] = base + len(fresh)
        state["carry"] = [{"index": m.index, "speaker": m.speaker, "text": m.text[-4000:], "tools": list(m.tools),
                           "offset": m.offset, "id": m.id} for m in (carry + fresh)[-CARRY:]]
    return found, {"from": start, "to": tr.end, "messages": len(fresh), "malformed": tr.malformed}


def _fire(vault_dir: str, session: str, transcript: str, evidence: list, state: dict, cfg: dict) -> dict | None:
    from pathlib import Path

    from mdmem.agents import checkpoint as cp
    from mdmem.agents.dimensions import language
    from mdmem.agents.transcript import Message

    vault = Path(vault_dir)
    messages = [Message(0, e.speaker, e.quote) for e in evidence]
    lang = language(messages)
    cwd_claude = [Path(state["cwd"]) / "CLAUDE.md"] if state.get("cwd") else []
    known = cp.Known.read(vault, cwd_claude, session)
    result = cp.build(evidence, session=session, transcript=transcript, lang=lang, known=known,
                      today=time.strftime("%Y-%m-%d", time.localtime(now())))
    if not result.fired:
        log(vault, f"stop session={session} checked: {len(result.dimensions)} dimension(s), nothing to suggest")
        return None
    cp.store(vault, result)
    log(vault, f"stop session={session} fired: {len(result.candidates)} candidate(s) "
               f"{''.join(c.mark for c in result.candidates)}")
    reason = cp.text(result) + "\n\n" + instructions(result.lang, session, vault)
    note = (f"mdmem: {len(result.candidates)} memória(s) sugerida(s); responda com os números ou \"pular\"."
            if result.lang == "pt" else
            f"mdmem: {len(result.candidates)} memor{'y' if len(result.candidates) == 1 else 'ies'} suggested; "
            "answer with numbers or \"skip\".")
    if cfg["output"] == "context":
        return {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": reason}, "systemMessage": note}
    return {"decision": "block", "reason": reason, "systemMessage": note}


def instructions(lang: str, session: str, vault) -> str:
    import shlex

    tail = f"--session {shlex.quote(session)} --vault {shlex.quote(str(vault))}"
    from mdmem.agents.claude_settings import runner

    run = runner()
    if lang == "pt":
        return (f"(mdmem) Mostre ao usuário estas memórias sugeridas, numeradas como acima, e pergunte quais "
                f"salvar; não salve nada antes da resposta. Se ele responder com números, rode "
                f"`{run} checkpoint accept 1,2 {tail}` (com os números dele); se disser \"pular\", rode "
                f"`{run} checkpoint skip {tail}`. Uma regra [claude-md] não é salva pelo mdmem: mostre a "
                f"linha para o usuário colocar no CLAUDE.md.")
    return (f"(mdmem) Show the user these suggested memories, numbered as above, and ask which to save; save "
            f"nothing before they answer. If they reply with numbers, run `{run} checkpoint accept 1,2 {tail}` "
            f"(with their numbers); if they say skip, run `{run} checkpoint skip {tail}`. A [claude-md] rule is "
            f"not saved by mdmem: show the line for the user to add to CLAUDE.md.")


# ----------------------------------------------------------------------------- session start


def fingerprint(vault: str, cwd: str) -> str:
    """What the memory card depends on, cheaply: the stat of every note (the one
    vault walker, :func:`mdmem.base.files.scan`) and of the bootstrap files that
    apply in ``cwd``. About 50 ms for 10k notes; no parsing."""
    import hashlib
    from pathlib import Path

    h = hashlib.blake2b(digest_size=16)
    for rel, (mtime, size) in sorted(files.scan(Path(vault)).notes.items()):
        h.update(f"{rel}\0{mtime}\0{size}\n".encode("utf-8", "surrogateescape"))
    for path in bootstrap_candidates(cwd):
        try:
            st = os.stat(path)
            h.update(f"{path}\0{st.st_mtime_ns}\0{st.st_size}\n".encode("utf-8", "surrogateescape"))
        except OSError:
            pass
    return h.hexdigest()


def _card_path(vault: str) -> str:
    return os.path.join(vault, HOOKS_DIR, "context-card.json")


def memory_protocol() -> str | None:
    """The memory protocol the card carries: ``mdmem.agents.checkpoint.memory_protocol()`` once the
    checkpoint module has it (issue 13), else None: :data:`mdmem.ops.context.MEMORY_PROTOCOL`, the
    placeholder, is used."""
    from mdmem.agents import checkpoint

    made = getattr(checkpoint, "memory_protocol", None)
    return made() if callable(made) else None


def save_card(vault, cwd, text: str, budget: int = CARD_BUDGET, fp: str | None = None) -> None:
    """Keep the index-mode card for the SessionStart hook, with what it was made from."""
    vault, cwd = str(vault), str(cwd)
    os.makedirs(os.path.dirname(_card_path(vault)), exist_ok=True)
    write_state(_card_path(vault), {"fingerprint": fp or fingerprint(vault, cwd), "budget": budget, "text": text})


def session_start(vault: str, payload: dict, opts: dict) -> str:
    """The memory card, from ``.mdmem/hooks/context-card.json`` when nothing it depends on changed,
    else made again (refreshing the notes cache); then, when a checkpoint is pending (kept by the
    Stop, PreCompact or SessionEnd hook and not yet accepted or skipped), its suggestions and how to
    accept them. At most :data:`CARD_MAX` bytes in all."""
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and os.path.isdir(payload["cwd"]) \
        else os.getcwd()
    budget = int(opts.get("budget", CARD_BUDGET))
    fp = fingerprint(vault, cwd)
    card = read_state(_card_path(vault))
    if card.get("fingerprint") == fp and card.get("budget") == budget and isinstance(card.get("text"), str):
        text = card["text"]
    else:
        from pathlib import Path

        from mdmem.engine.memory import Memory
        from mdmem.ops.context import context

        with Memory.open(vault) as mem:
            mem.refresh(strict=False)
            text = context(mem, "index", budget, cwd=Path(cwd), protocol=memory_protocol()).text
        save_card(vault, cwd, text, budget, fp)
        log(vault, f"session-start source={payload.get('source', '?')}: card made again ({len(text)} characters)")
    text = _cut(text, CARD_MAX)
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
    found = pending(vault, session if payload.get("source") == "compact" else None, prefer=session)
    if found:
        room = CARD_MAX - len(text.encode("utf-8")) - 2
        block = pending_text(vault, found, room)
        if block:
            text = (text.rstrip("\n") + "\n\n" if text else "") + block
    return text


def _cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, on a character boundary."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


# ----------------------------------------------------------------------------- pending checkpoints


def _checkpoints(vault: str) -> str:
    from mdmem.base.layout import CHECKPOINTS_DIR

    return os.path.join(vault, CHECKPOINTS_DIR)


def pending(vault: str, session: str | None = None, prefer: str | None = None) -> dict | None:
    """The pending checkpoint to show: ``session``'s (after a compaction: only that one); else
    ``prefer``'s if pending, else the newest pending one of any session saved in the last
    :data:`PENDING_DAYS` days. Read as plain JSON (the card stays on the standard library)."""
    folder = _checkpoints(vault)
    if session is not None or prefer is not None:
        data = read_state(os.path.join(folder, safe_session(session or prefer) + ".json"))
        if data.get("status") == "pending" and data.get("candidates"):
            return data
        if session is not None:
            return None
    newest = None
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    limit = time.time() - PENDING_DAYS * 86400  # `saved` is the real clock
    for name in names:
        if not name.endswith(".json"):
            continue
        data = read_state(os.path.join(folder, name))
        saved = data.get("saved", 0) if isinstance(data.get("saved"), (int, float)) else 0
        if data.get("status") == "pending" and data.get("candidates") and saved >= limit:
            if newest is None or (saved, name) > newest[0]:
                newest = ((saved, name), data)
    return newest[1] if newest else None


def pending_text(vault: str, data: dict, room: int) -> str:
    """A pending checkpoint as the card shows it: why it is there, its numbered suggestions (as many as
    fit in ``room`` bytes) and how to accept or skip them; "" when not even one fits."""
    session = str(data.get("session", ""))
    marker = read_state(os.path.join(vault, HOOKS_DIR, "pending-" + safe_session(session) + ".json"))
    pt = data.get("lang") == "pt"
    why = {"PreCompact": "antes da compactação" if pt else "before the conversation was compacted",
           "SessionEnd": "no fim da sessão" if pt else "when the session ended"}.get(marker.get("event"))
    head = ((f"## Checkpoint pendente (sessão {session}{', ' + why if why else ''})\n"
             "Memórias sugeridas, ainda não salvas:") if pt else
            (f"## Pending memory checkpoint (session {session}{', kept ' + why if why else ''})\n"
             "Suggested memories, not saved yet:"))
    tail = instructions(data.get("lang", "en"), session, vault)
    lines, used = [], len(head.encode()) + 1 + len(tail.encode()) + 1
    for c in data.get("candidates", []):
        if not isinstance(c, dict):
            continue
        line = f"{c.get('number', len(lines) + 1)}. [{c.get('type', '?')}] {c.get('mark', '')} {c.get('name', '')}" \
               f" — {c.get('description', '')}".replace("  ", " ")
        line = _cut(" ".join(line.split()), 300)
        if used + len(line.encode()) + 1 > room:
            break
        lines.append(line)
        used += len(line.encode()) + 1
    if not lines:
        return ""
    return "\n".join([head, *lines, tail])


def _iso(t) -> str | None:
    if not isinstance(t, (int, float)) or not t:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))


def session_status(vault: str, session: str | None = None) -> dict:
    """For ``hook status``: a session's stop count, when its next checkpoint may fire, its pending
    checkpoint and how many notes the prompt hook gave it. The session is ``session``, else the one whose
    Stop hook ran last. Read from the hooks' state files as the Stop hook keeps them."""
    folder = os.path.join(vault, HOOKS_DIR)
    name = safe_session(session) if session else None
    if name is None:
        try:
            states = [(os.stat(os.path.join(folder, f)).st_mtime_ns, f) for f in os.listdir(folder)
                      if f.startswith("stop-") and f.endswith(".json")]
        except OSError:
            states = []
        if states:
            name = max(states)[1][len("stop-"):-len(".json")]
    out: dict = {"vault": vault, "session": name}
    if name is None:
        return out | {"stops": 0, "next": None, "pending": None, "prompt_notes": 0}
    state = read_state(os.path.join(folder, f"stop-{name}.json"))
    cfg = settings(vault, {})
    policy = state.get("policy") or cfg["policy"]
    stops, since = int(state.get("stops", 0) or 0), int(state.get("since", 0) or 0)
    if policy == "evidence":
        last = state.get("last_trigger") or 0
        nxt = {"policy": "evidence", "dimensions": len(state.get("pending") or {}),
               "needs_dimensions": cfg["min_dimensions"],
               "not_before": _iso(last + cfg["min_interval_minutes"] * 60) if last else None}
    else:
        last = state.get("last_trigger") or state.get("first")
        nxt = {"policy": "cadence", "stops_left": max(0, cfg["min_stops"] - since),
               "not_before": _iso(last + cfg["min_minutes"] * 60) if last else None}
    data = read_state(os.path.join(_checkpoints(vault), name + ".json"))
    marker = read_state(os.path.join(folder, f"pending-{name}.json"))
    found = None
    if data.get("status") == "pending" and data.get("candidates"):
        found = {"candidates": [f"{c.get('number')}. [{c.get('type')}] {c.get('name')}"
                                for c in data["candidates"] if isinstance(c, dict)],
                 "saved": _iso(data.get("saved")), "kept_by": marker.get("event") or "Stop"}
    shown = read_state(os.path.join(folder, f"prompt-{name}.json")).get("shown") or []
    return out | {"stops": stops, "since_last_checkpoint": since, "checkpoints": int(state.get("triggers", 0) or 0),
                  "last_checkpoint": _iso(state.get("last_trigger")), "next": nxt, "pending": found,
                  "prompt_notes": len(shown)}


def _capture(vault: str, payload: dict, event: str) -> dict | None:
    """PreCompact and SessionEnd: the offline checkpoint on the transcript as it stands
    (:func:`mdmem.agents.checkpoint.analyze`), kept as the session's pending checkpoint when it has
    suggestions. Nothing is written to memory: the next card shows them and the user chooses."""
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    transcript = payload.get("transcript_path") if isinstance(payload.get("transcript_path"), str) else ""
    if not session:
        raise HookError("no session_id in the hook's input")
    if not transcript or not os.path.isfile(transcript):
        raise HookError(f"no transcript to read ({transcript or 'no transcript_path'})")
    from pathlib import Path

    from mdmem.agents import checkpoint as cp

    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and os.path.isdir(payload["cwd"]) else None
    folder = os.path.join(vault, HOOKS_DIR)
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, "pending-" + safe_session(session))
    with files.Lock(base + ".lock", LOCK_WAIT, f"another hook holds {base}.lock (waited {LOCK_WAIT:.0f} s)"):
        result = cp.analyze(transcript, Path(vault), session=session, cwd=Path(cwd) if cwd else None,
                            today=time.strftime("%Y-%m-%d", time.localtime(now())))
        if result.fired:
            write_state(base + ".json", {"event": event, "at": now(), "candidates": len(result.candidates),
                                         "trigger": payload.get("trigger") or payload.get("reason")})
    log(vault, f"{event} session={session}: {len(result.candidates)} suggestion(s) kept"
               if result.fired else f"{event} session={session}: nothing to suggest")
    return result


def pre_compact(vault: str, payload: dict, opts: dict) -> dict | None:
    result = _capture(vault, payload, "PreCompact")
    if result is None or not result.fired:
        return None
    n = len(result.candidates)
    note = (f"mdmem: {n} memória(s) sugerida(s) guardada(s); aparecem depois da compactação."
            if result.lang == "pt" else
            f"mdmem: {n} suggested memor{'y' if n == 1 else 'ies'} kept; shown again after the compaction.")
    return {"systemMessage": note}


def session_end(vault: str, payload: dict, opts: dict) -> None:
    _capture(vault, payload, "SessionEnd")
    return None

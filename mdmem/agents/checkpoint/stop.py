"""The Stop hook's policy: when the session should consolidate (``stop``).

Measurements: docs/decisions/050-hooks-stop-policy-and-fast-path.md, docs/decisions/075-quiet-checkpoint-signals.md


Contract in detail: docs/decisions/060-module-contracts.md (mdmem/agents/checkpoint/stop.py).
"""

from __future__ import annotations

import os

from mdmem.agents.hooks.state import (
    DEFAULTS,
    LOCK_WAIT,
    HookError,
    log,
    now,
    read_state,
    rearm,
    settings,
    text_field,
    write_state,
)
from mdmem.base import files
from mdmem.base.layout import safe_session
from mdmem.base.state import state_path
from mdmem.text.language import choose, tally

TYPE_CHECKING = False  # not `from typing import`: the quiet stop imports as little as it can
if TYPE_CHECKING:
    from collections.abc import Callable

CARRY = 2          # messages carried from one scan to the next, for context
# turns in a row that may end by asking the user and still defer a due checkpoint: an interview (a
# brainstorming skill asking "Which timing model do you want?" at every turn, the user answering "A.")
# ends every turn with a question, and its answers are the decisions worth keeping; measured on the
# replay of the real sessions, deferring without a bound kept such a session silent through all 12 stops
ASK_DEFER = 2
STEER_WORDS = 5    # a follow-up message of fewer words ("yes", "commit this", "push") does not steer
BANK = 4           # stops a session needs before its first in-session scan (the user asking goes past it)
SAID_BANK = 3      # ... but a turn in which the user stated a rule or corrected the assistant may be the first
BUDGET_STOPS = 10  # stops between two in-session scans: about one firing in ten stops
TOPIC = 80         # words of the recent requests kept, for topic changes and the scan prompt
FIRST_READ = 256 * 1024  # bytes: the most a session's first stop reads (its tail): the signals are this turn's
_PUNCT = str.maketrans({c: " " for c in ".,;:!?()[]{}\"'`*_#>|/\\<=+~^$%&@\n\t\r…—–-"})


def _words(low: str) -> list[str]:
    return low.translate(_PUNCT).split()


_OPTION_HEADS = frozenset("A. A) A: A* B. B) B: B* C. C) C: C* D. D) D: D* E. E) E: E* F. F) F: F* G. G) G: G* H. H) H: H* "
                          "1. 1) 1: 1* 2. 2) 2: 2* 3. 3) 3: 3* 4. 4) 4: 4* 5. 5) 5: 5* 6. 6) 6: 6* 7. 7) 7: 7* 8. 8) "
                          "8: 8* 9. 9) 9: 9*".split())  # a literal: a generator here costs the quiet stop's import


def offers(text: str) -> bool:
    """The message (its last 2,000 characters) lists two or more labelled options ("A.", "1)",
    "| **B.") and asks something: the user's next message may pick one (a choice settled, whatever its words)."""
    tail = text[-2000:]
    if "?" not in tail and ":\n" not in tail:
        return False
    heads = sum(1 for ln in tail.split("\n") if ln.lstrip(" -*•|#").lstrip("*").replace("Option ", "")[:2]
                in _OPTION_HEADS)
    return heads >= 2


def _answers(messages: list, typed: list) -> bool:
    """A message the user typed picks one of the options the assistant message before it offered."""
    at = {id(m) for m in typed}
    before = None
    for m in messages:
        if m.speaker == "assistant" and m.text:
            before = m
        elif id(m) in at and before is not None and _pick(m.text) and offers(before.text):
            return True
    return False


_ORDINALS = frozenset("first second third fourth last primeira segunda terceira última primeiro segundo "
                      "terceiro último".split())


def _pick(text: str) -> bool:
    """The message opens as a pick among options: "A.", "2", "option B", "the second one", "I think B"."""
    words = _words(text.lower())[:3]
    if words[:2] == ["i", "think"] or words[:2] == ["acho", "que"]:
        words = words[2:]
    if not words:
        return False
    if words[0] == "the" and len(words) > 1:
        words = words[1:]
    return (len(words[0]) == 1 and words[0] in "abcdefgh123456789") or words[0] in ("option", "opção", "opcao") \
        or words[0] in _ORDINALS
    return False


# ----------------------------------------------------------------------------- stop


def stop(vault: str, payload: dict, opts: dict, *, read: Callable) -> dict | None:
    """The Stop hook: a scan prompt when the session should consolidate, else None. ``read`` is the
    agent's transcript reader (path, start=, max_bytes=) -> Transcript."""
    if payload.get("stop_hook_active") is True:
        return None  # Claude is already continuing because of a Stop hook: never loop
    session, transcript = text_field(payload, "session_id"), text_field(payload, "transcript_path")
    if not session:
        raise HookError("no session_id in the hook's input")
    cfg = settings(vault, opts)
    if cfg["timeout_seconds"] != DEFAULTS["timeout_seconds"]:
        rearm(cfg["timeout_seconds"])
    folder = state_path(vault, "hooks")
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
        cwd = text_field(payload, "cwd")
        if cwd:
            state["cwd"] = cwd
        state["agent"] = text_field(payload, "mdmem_agent") or "claude"  # whose transcript format this is
        why, hints = None, []
        if cfg["policy"] == "cadence":
            last = state.get("last_trigger") or state["first"]
            if state["since"] >= cfg["min_stops"] and t - last >= cfg["min_minutes"] * 60:
                _scan(transcript, state, "trigger_offset", payload, cfg, read=read)
                why = f"{state['since']} stops since the last checkpoint"
        else:
            scan = _scan(transcript, state, "offset", payload, cfg, read=read)
            why = _signals(state, scan, cfg, t)
            hints = scan["rules"]
        if why is not None:
            _trigger(state, t)
            state["why"] = why
        write_state(base + ".json", state)
        if why is None:
            return None
        return _fire(vault, session, transcript, hints, state, cfg, why)


def _signals(state: dict, scan: dict, cfg: dict, t: float) -> str | None:
    """The ``signals`` policy at this stop: why to fire, or None. It fires only at a natural gap, within a
    budget (see the module's docstring): never without user words typed since the last scan
    (:func:`_new_words`), at most once per :data:`BUDGET_STOPS` stops after the first :data:`BANK`
    (:func:`_budget`); the user asking to consolidate goes past the budget."""
    state["steers"] = state.get("steers", 0) + scan["steers"]
    if scan["said"]:
        state["said"] = True  # a rule stated or a correction since the last scan: kept until the next one
    if not _new_words(state):
        return None  # never two scans without new user words between them
    if scan["ask"]:
        return "the user asked to consolidate"
    state["asked"] = state.get("asked", 0) + 1 if scan["asks_user"] else 0
    if scan["asks_user"] and state["asked"] <= ASK_DEFER:
        return None  # the turn ends by asking the user something: they answer first (an interview: see ASK_DEFER)
    if not _spaced(state, cfg, t):
        return None
    if state.get("said") and _budget(state, SAID_BANK):
        return "the user stated a rule or corrected the assistant"  # or settled a choice (the words scan.py translates)
    if not _budget(state) or not state.get("steers"):
        return None  # nothing said since the last scan: the session's end review covers the rest
    if scan["delivered"]:
        return "a task was closed"
    if scan["topic_changed"]:
        return "the topic changed"
    since = t - (state.get("last_trigger") or state["first"])
    if state["since"] >= cfg["min_stops"] and since >= cfg["min_minutes"] * 60:
        return f"{state['since']} stops since the last checkpoint"
    return None


def _new_words(state: dict) -> bool:
    """The user typed something since the last scan (``typed`` counts the session's typed messages)."""
    return int(state.get("typed", 0)) > int(state.get("typed_at_scan", 0))


def _budget(state: dict, bank: int | None = None) -> bool:
    """Whether a firing now stays within the budget: the session's ``n``-th firing needs
    ``BANK + (n - 1) * BUDGET_STOPS`` stops (measured on the tune split of the real sessions, the
    firings then stay near 1 in 10 stops; what no in-session scan covered, the next session reviews)."""
    return int(state.get("stops", 0)) >= (BANK if bank is None else bank) + int(state.get("triggers", 0)) * BUDGET_STOPS


def _spaced(state: dict, cfg: dict, t: float) -> bool:
    """At least ``min_interval_minutes`` since the last checkpoint (or none yet)."""
    last = state.get("last_trigger")
    return not last or t - last >= cfg["min_interval_minutes"] * 60


def _trigger(state: dict, t: float) -> None:
    state["last_trigger"] = t
    state["covered"] = int(state.get("offset", 0) or 0)  # the scan covers the transcript up to here
    state["typed_at_scan"] = int(state.get("typed", 0))
    state["since"] = 0
    state["steers"] = 0
    state["said"] = False
    state["triggers"] = state.get("triggers", 0) + 1


def _scan(transcript: str, state: dict, key: str, payload: dict, cfg: dict, *, read: Callable) -> dict:
    """What the transcript bytes after ``state[key]`` hold (the offset then moves to the end of what was
    read): whether the user asked to consolidate, stated a rule or corrected the assistant, steered the
    work; whether the turn delivered a result or ends by asking the user; whether the topic changed. Only
    the bytes since the last stop are read (a session's first stop: at most its last :data:`FIRST_READ`)."""
    from mdmem.agents.checkpoint import signals
    from mdmem.agents.checkpoint.transcript import Message

    if not transcript:
        raise HookError("no transcript_path in the hook's input")
    start = int(state.get(key, 0) or 0)
    # the messages carried from the last scan are read again from the transcript (the state keeps their offsets,
    # never their text): a message whose first records the last scan read comes back whole
    meta = [c for c in state.get("carry", []) if isinstance(c, dict)] if key == "offset" else []
    begin = min([start, *(int(c.get("offset", start)) for c in meta)])
    limit = int(float(cfg["max_transcript_mb"]) * 1024 * 1024)
    if not start:
        limit = min(limit, FIRST_READ)
    tr = read(transcript, start=begin, max_bytes=limit)
    base = int(state.get("count", 0)) if key == "offset" else 0
    old = [m for m in tr.messages if m.offset < start]
    known = {int(c.get("offset", -1)): int(c.get("index", 0)) for c in meta}
    carry = [Message(known.get(m.offset, base - len(old) + i), m.speaker, m.text, m.tools, m.offset, m.id, m.kind)
             for i, m in enumerate(old)][-CARRY:]
    fresh = [Message(base + i, m.speaker, m.text, m.tools, m.offset, m.id, m.kind)
             for i, m in enumerate(m for m in tr.messages if m.offset >= start)]
    messages = carry + fresh
    last = payload.get("last_assistant_message")
    if isinstance(last, str) and last.strip() and not any(
            m.speaker == "assistant" and last.strip()[:200] in m.text for m in messages[-3:]):
        # the transcript is written asynchronously: the last reply may not be in the file yet
        messages.append(Message(base + len(fresh), "assistant", last.strip(), (), tr.end))
    state[key] = tr.end
    new = [m for m in messages if m.index >= base]
    users = [m for m in new if m.speaker == "user"]
    typed = [m for m in users if m.kind != "prompt"]
    final = next((m.text for m in reversed(messages) if m.speaker == "assistant" and m.text and m.kind != "prompt"),
                 "")
    steers = _steers(state, users)
    stated = [(m.index, r[:199]) for m in typed for r in signals.rules(m.text)][-3:]  # the prompt's hints
    pt, en = tally(" ".join(m.text for m in typed)[:20000])
    if pt or en:  # the language the user writes in, over the whole session: the prompt's and the message's
        old_pt, old_en = state.get("lang", (0, 0))
        state["lang"] = [old_pt + pt, old_en + en]
    words = _topic_words(" ".join(m.text[:2000] for m in users if m.kind != "queued"))
    old_words = set(state.get("topic", []))
    changed = bool(old_words) and len(words) >= 5 and len(words & old_words) / len(words) < 0.1
    if words:
        state["topic"] = (list(words) + [w for w in state.get("topic", []) if w not in words])[:TOPIC]
    if key == "offset":
        state["count"] = base + len(fresh)
        state["carry"] = [{"index": m.index, "offset": m.offset} for m in (carry + fresh)[-CARRY:]
                          if m.offset < tr.end]  # offsets only: the text is read again (no user words kept)
    state["scanned"] = {"from": start, "to": tr.end, "messages": len(fresh), "malformed": tr.malformed,
                        **({"cut": tr.cut} if tr.cut else {})}
    return {"rules": stated, "ask": any(signals.asked(m.text) for m in typed), "steers": steers,
            "said": bool(stated) or any(signals.corrects(m.text) or signals.decides(m.text) for m in typed)
            or _answers(messages, typed),
            "asks_user": bool(final) and signals.asks_user(final),
            "delivered": bool(typed) and bool(final) and signals.closed(final), "topic_changed": changed}


def _steers(state: dict, users: list) -> int:
    """The user's messages in the new text that steer the work: typed after the session's first
    request (a correction, a fact, a rule, a question about the approach, an answer), with at least
    :data:`STEER_WORDS` words, not a notification or a command's wrapper. Counts the session's typed
    messages in ``state["typed"]``."""
    typed, steers = int(state.get("typed", 0)), 0
    for m in users:
        text = m.text.lstrip()
        if m.kind == "prompt" or not text or text.startswith(("<", "/")):
            continue
        if typed and len(text.split(None, STEER_WORDS)) >= STEER_WORDS:
            steers += 1
        typed += 1
    state["typed"] = typed
    return steers


_COMMON = frozenset("this that with from have what when will would could should there their about please "
                    "also just make sure them then than into your yours isso esse essa para como mais "
                    "quando onde fazer pode favor".split())


def _topic_words(text: str) -> set[str]:
    return {w for w in _words(text.lower()) if len(w) >= 4 and w.isalpha() and w not in _COMMON}


def _fire(vault_dir: str, session: str, transcript: str, hints: list, state: dict, cfg: dict,
          why: str) -> dict:
    """The scan prompt for the model in the session, as the Stop hook's output."""
    from mdmem.agents.checkpoint import scan as cp
    from mdmem.agents.checkpoint.evidence import Evidence
    from mdmem.agents.launch import started_as

    vault = vault_dir
    lang = choose(*state.get("lang", (0, 0)))
    cwd_claude = [os.path.join(state["cwd"], "CLAUDE.md")] if state.get("cwd") else []
    known = cp.Known.read(vault, cwd_claude, session, scope=cp.scope_of(vault, state.get("cwd")))
    evidence = [Evidence(2, i, "user", q, "stated as a standing rule", 0.9) for i, q in hints]
    reason = cp.scan_prompt(session, vault, known=known, evidence=evidence, topic=state.get("topic", []),
                            lang=lang, run=started_as(), why=why)
    log(vault, f"stop session={session} fired ({why}): {len(evidence)} hint(s), prompt {len(reason)} characters")
    note = ("mdmem: hora de consolidar a memória; o Claude vai revisar a sessão e sugerir o que vale guardar."
            if lang == "pt" else
            "mdmem: checkpoint: Claude reviews the session for memories worth keeping (you choose what is saved).")
    if cfg["output"] == "context":
        return {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": reason}, "systemMessage": note}
    return {"decision": "block", "reason": reason, "systemMessage": note}

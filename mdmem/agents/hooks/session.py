"""Claude Code hooks, the logic besides Stop: the SessionStart card (``session_start``) and ``hook status``
(``session_status``). The pending checkpoint the card shows is :mod:`mdmem.agents.hooks.pending`; the turns no
scan covered, PreCompact and SessionEnd are :mod:`mdmem.agents.hooks.uncovered`; the Stop hook's policy is
:mod:`mdmem.agents.checkpoint.stop` and what the hooks share :mod:`mdmem.agents.hooks.state`; all are re-exported
here, the hooks' public face (``hooks.stop``, ``hooks.pre_compact``, ``hooks.HookError``, ...).

Claude Code runs these at every session start, so they are reached from :mod:`mdmem.cli.hook`
(the fast path, before Typer is ever imported) and this module imports only the standard library
and ``mdmem.base`` at load time (no whoosh, networkx, rich, yaml or markdown-it).
"""

from __future__ import annotations

import os
import time

from mdmem.agents.checkpoint.stop import stop  # noqa: F401
from mdmem.agents.history.background import with_reminder
from mdmem.agents.hooks.pending import (  # noqa: F401  (re-exported: the hooks' public face)
    CARD_ORIGINS,
    PENDING_DAYS,
    checkpoints_folder,
    cut_bytes,
    instructions,
    pending,
    pending_text,
)
from mdmem.agents.hooks.state import (  # noqa: F401  (re-exported: the hooks' public face)
    DEFAULTS,
    LOCK_WAIT,
    HookError,
    HookTimeout,
    arm,
    disarm,
    dumps,
    folder_field,
    loads,
    log,
    now,
    read_state,
    record_digest,
    settings,
    text_field,
    today,
    write_state,
)
from mdmem.agents.hooks.uncovered import (  # noqa: F401  (re-exported: the hooks' public face)
    IMPORT_SOURCE,
    REVIEW_PREFIX,
    pre_compact,
    record_ended,
    review_line,
    session_end,
    unreviewed,
)
from mdmem.base import files
from mdmem.base.layout import SESSIONS_DIR, bootstrap_candidates, safe_session
from mdmem.base.state import state_folder

TYPE_CHECKING = False  # the card stays on the standard library
if TYPE_CHECKING:
    from collections.abc import Callable

    from mdmem.engine.bodies import Look

CARD_MAX = 10_000  # bytes (UTF-8): the most the SessionStart hook ever prints; Claude Code cuts larger ones
CARD_BUDGET = 8000  # bytes: the card's default budget, leaving room for a pending checkpoint
# the code that lays the card out (relative to the package): an upgrade or an edit of one of them makes the card
# again, as a changed note does (a kept card showed the old layout until some note changed)
CARD_CODE = ("ops/context.py", "ops/block.py", "ops/fit.py", "ops/timeline.py", "ops/search.py", "ops/recall.py", "text/protocol.py",
             "text/fence.py")


# ----------------------------------------------------------------------------- session start


def fingerprint(vault: str, cwd: str, scan: files.Scan | None = None) -> str:
    """What the memory card depends on, cheaply: the stat of every note (the one
    vault walker, :func:`mdmem.base.files.scan`) and of the bootstrap files that
    apply in ``cwd``, the memory protocol the card carries and the stat of the code that
    lays the card out (:data:`CARD_CODE`: an upgrade that changes either makes the card
    again; a card kept from before showed the old protocol until a note changed). No parsing. ``scan``: the
    vault's walk when the caller made it (the card made again hands the same walk to the refresh: one walk)."""
    return fingerprints(vault, cwd, scan)[0]


def fingerprints(vault: str, cwd: str, scan: files.Scan | None = None) -> tuple[str, str]:
    """(:func:`fingerprint`, the frame: the same less the notes' stats). A kept card whose frame is today's
    differs from what a new one would be only by the notes that changed (:func:`_kept_after_edit`)."""
    from mdmem.base.blake import blake2b

    h, frame = blake2b(digest_size=16), blake2b(digest_size=16)
    first: list[bytes] = [card_protocol(vault).encode("utf-8") + b"\0"]
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for rel in CARD_CODE:
        try:
            st = os.stat(os.path.join(package, rel))
            first.append(f"{rel}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
        except OSError:  # a zipped or frozen install: the protocol and the notes still key the card
            first.append(f"{rel}\0?\n".encode())
    for part in first:
        h.update(part)
        frame.update(part)
    # the notes as the walk saw them: which they are, and the sums of their stats (:func:`mdmem.base.files.sums`: any
    # write of a note moves its ctime, which only moves forward). A line hashed per note cost 12-20 ms at 10k notes
    # on every card, this 2 (decision 120); a file that is no note coming and going (an editor's backup) moves nothing
    scan = scan or files.scan(vault)
    h.update(f"{files.scan_sums(scan)}\n".encode())
    h.update("\0".join(scan.notes).encode("utf-8", "surrogateescape"))  # (in the walk's order: a folder lists the
    # files it keeps in the same order, whatever comes and goes beside them)
    for path in bootstrap_candidates(cwd):
        try:
            st = os.stat(path)
            part = f"{path}\0{st.st_mtime_ns}\0{st.st_size}\n".encode("utf-8", "surrogateescape")
        except OSError:
            continue
        h.update(part)
        frame.update(part)
    return h.hexdigest(), frame.hexdigest()


def _card_path(vault: str, project: str | None = None) -> str:
    """Where the card of a session in ``project`` is kept (one per project: each holds its own memories)."""
    tail = "" if not project else "-" + safe_session(project)
    return state_folder(vault, "hooks", f"context-card{tail}.json")


def card_protocol(vault) -> str:
    """The memory protocol the card carries: its commands are this install's (the Stop prompt's runner) with
    ``--vault`` and the vault's absolute path, since the agent's shell runs in the project, not the vault."""
    from mdmem.agents.launch import started_as
    from mdmem.text.protocol import memory_protocol as text

    return text(run=started_as(), vault=os.path.abspath(str(vault)))


def card_command(vault) -> str:
    """How the card writes the other commands it names (``{}``: the arguments), as :func:`card_protocol` does."""
    import shlex

    from mdmem.agents.launch import started_as

    return f"{started_as()} {{}} --vault {shlex.quote(os.path.abspath(str(vault)))}"


def save_card(vault, cwd, text: str, budget: int = CARD_BUDGET, fp: str | None = None,
              day: str | None = None, through: str | None = None, project: str | None = None,
              frame: str | None = None, store: list | None = None, shown: list[str] | None = None) -> None:
    """Keep the index-mode card of a session in ``project`` for the SessionStart hook, with what it was made
    from: the notes' fingerprint, the ``day`` it was made for and the last day it stays right (``through``: the
    next ``valid_until`` to pass, :func:`mdmem.engine.supersede.valid_through`; None: none will), the notes
    it names (``shown``: a use of each when it is shown, :func:`_used`); ``frame`` and ``store`` (the notes
    cache's epoch and generation it was made from): what lets the next session reuse it after an edit of a
    note's body alone (:func:`_kept_after_edit`)."""
    vault, cwd = str(vault), str(cwd)
    path = _card_path(vault, project)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_state(path, {"fingerprint": fp or fingerprint(vault, cwd), "budget": budget, "text": text,
                       "day": day or today(), "through": through, "frame": frame, "store": store,
                       "shown": shown or []})


def _used(vault: str, project: str | None, shown, day: str, kept: bool = False) -> None:
    """The notes a card names were injected: one use each (:mod:`mdmem.base.usage`: ``check`` does not call them
    unused; the card's own ranking leaves these uses out, or what it shows would keep its place), one appended line per
    card made and, for a card served as kept, once a day (a small marker beside the kept card
    says which day it last counted): the hook's cost stays flat however often sessions start."""
    if not isinstance(shown, list) or not shown:
        return
    marker = _card_path(vault, project)[:-5] + "-used"
    if kept:
        try:  # (a regular file, never through a link: a FIFO planted there would hang the hook)
            fd = files.open_regular(marker, follow=False)
            with open(fd, encoding="utf-8") as f:
                if f.read(16) == day:
                    return
        except OSError:
            pass
    from mdmem.base.usage import CARD, record

    record(state_folder(vault), shown, CARD, now())
    try:
        files.write_atomic(marker, day.encode(), durable=False)
    except OSError:
        pass


def _card_current(card: dict, fp: str, budget: int, day: str) -> bool:
    """Was the kept card made from these notes, at this budget, and does it hold on ``day`` (no note it
    lists has expired since it was made)?"""
    made, through = card.get("day"), card.get("through")
    return (card.get("fingerprint") == fp and card.get("budget") == budget and isinstance(card.get("text"), str)
            and isinstance(made, str) and made <= day and (not isinstance(through, str) or day <= through))


def _kept_after_edit(mem, card: dict, frame: str, before: list, refreshed, budget: int, day: str) -> bool:
    """May the kept ``card`` stand although its fingerprint moved? Yes when it was made today at this budget,
    with this frame (protocol, code, bootstrap files: :func:`fingerprints`), from the notes cache as it was
    before this hook's refresh (``before``: its epoch and generation), and that refresh changed no note's head
    (:meth:`mdmem.engine.store.Store.heads_moved`: only bodies were edited; none added or removed) nor any
    note whose body the card reads (the user's note: its profile lines) or whose body decides how it is listed
    (an agent's note: unconfirmed until the user edits it). The card is made of the notes' heads alone
    otherwise, so it would be the same bytes: an edit of a body, the most common change, costs the refresh
    of that note, not the card (decision 100)."""
    if not (_frame_holds(card, frame, budget, day) and card.get("store") == before):
        return False
    if refreshed is None:  # the notes cache was current and is the one the card was made from
        return True
    if refreshed.stale or refreshed.moved is None or refreshed.moved or refreshed.changed_paths is None:
        return False
    return not any(h.type == "user" or "a" in h.flags for h in mem.store.heads_of(refreshed.changed_paths))


def _frame_holds(card: dict, frame: str, budget: int, day: str) -> bool:
    """Was the kept ``card`` made today, at this budget, with this frame (:func:`fingerprints`), and does it hold
    today? What it must be, besides its notes, to stand after an edit."""
    through = card.get("through")
    return (card.get("frame") == frame and card.get("budget") == budget and card.get("day") == day
            and isinstance(card.get("text"), str) and not (isinstance(through, str) and day > through))


def _look(vault: str, card: dict, frame: str, walk: files.Scan, budget: int, day: str) -> Look | None:
    """May the kept ``card`` stand, told before the notes cache is refreshed or any note parsed? When its frame
    holds (:func:`_frame_holds`) and every note changed since the cache it was made from changed in its body
    alone, in a way the card does not show (:func:`mdmem.engine.bodies.only_bodies`: the frontmatter's text hashed
    the same, nothing like a ``#sensitive`` tag in the body, not the user's nor an agent's note). Then the cache is
    left as it is (the next refresh parses those notes) and the hook pays neither the parser's imports nor the
    cache's write (decision 101). The :class:`~mdmem.engine.bodies.Look` (its ``kept`` says), or None; a look that
    does not keep the card hands its diff to the refresh that follows."""
    if not _frame_holds(card, frame, budget, day):
        return None
    from mdmem.engine.bodies import only_bodies

    return only_bodies(vault, walk, card.get("store"))


def _config_trouble(vault: str) -> str | None:
    """The line the card opens with when the vault's config.toml cannot be used (the one reader's message,
    :func:`mdmem.base.settings.trouble`), else None; no file: None, the settings module never imported."""
    if not os.path.lexists(os.path.join(vault, ".mdmem", "config.toml")):  # a FIFO, a link: the reader says why
        return None
    from mdmem.base.settings import trouble

    why = trouble(vault)
    return None if why is None else \
        f"mdmem: {why} — this card uses the defaults; until the file is fixed, what reads it stops with this error"


def session_start(vault: str, payload: dict, opts: dict, *, read: Callable | None = None) -> str | dict:
    """The memory card, from ``.mdmem/hooks/context-card.json`` when nothing it depends on changed,
    else made again (refreshing the notes cache); then, when a checkpoint is pending (kept by the
    Stop, PreCompact or SessionEnd hook and not yet accepted or skipped; never a hand run's,
    :data:`CARD_ORIGINS`), its suggestions still pending and how to accept them. At most
    :data:`CARD_MAX` bytes in all.

    A broken config.toml (bad TOML, a bad value) never costs the session its card, nor passes unseen (it once
    made the hook print nothing, the message on stderr only, which Claude Code does not show: see
    :mod:`mdmem.cli.hook`): the card is made with the defaults and opens with one line, the reader's own
    message (the one every command stops with) and what it means here; the same line goes to the user as
    the hook's ``systemMessage``, so the answer is JSON then, the card as ``additionalContext``."""
    cwd = folder_field(payload) or os.getcwd()
    budget = int(opts.get("budget", CARD_BUDGET))
    if payload.get("source") in (None, "startup", "resume"):  # what a session killed before its end left behind
        from mdmem.agents.history.background import catch_up, enabled

        try:
            if enabled(vault):
                catch_up(vault, IMPORT_SOURCE.get(text_field(payload, "mdmem_agent") or "claude", "claude-code"), cwd)
        except OSError as e:
            log(vault, f"session-start: the catch-up import could not start: {e}")
    broken = _config_trouble(vault)
    scope = _scope(vault, cwd, broken)
    walk = files.scan(vault)
    fp, frame = fingerprints(vault, cwd, walk)
    card = read_state(_card_path(vault, scope.project))
    day = today()
    if _card_current(card, fp, budget, day):
        text = card["text"]
        _used(vault, scope.project, card.get("shown"), day, kept=True)
    elif (look := _look(vault, card, frame, walk, budget, day)) is not None and look.kept:
        text = card["text"]
        try:  # kept with the new fingerprint and the cache it was made from (left as it is)
            save_card(vault, cwd, text, budget, fp, day, card.get("through"), scope.project, frame,
                      card.get("store"), card.get("shown") if isinstance(card.get("shown"), list) else [])
        except OSError as e:
            log(vault, f"session-start: the card could not be kept ({e.strerror})")
        _used(vault, scope.project, card.get("shown"), day, kept=True)
        log(vault, f"session-start source={payload.get('source', '?')}: card kept: only bodies changed, "
                   f"none parsed ({len(text)} characters)")
    else:
        made = None
        if look is None or not (look.added or look.changed or look.removed):  # (a look that saw changes: behind)
            made = _from_cache(vault, cwd, card, walk, frame, budget, day, scope)
        if made is None:  # the notes cache is behind the files (or cannot be read as it is): refreshed first
            made = _refreshed(vault, cwd, card, walk, frame, look, budget, day, scope, broken)
        text, through, shown, store, how = made
        kept = how.startswith("kept")
        try:
            save_card(vault, cwd, text, budget, fp, day, through, scope.project, frame, store, shown)
        except OSError as e:  # a read-only vault: the card is shown, only not kept
            log(vault, f"session-start: the card could not be kept ({e.strerror})")
        _used(vault, scope.project, shown, day, kept=kept)
        log(vault, f"session-start source={payload.get('source', '?')}: card {how} ({len(text)} characters)")
    if broken:
        text = broken + "\n\n" + text
    text = cut_bytes(text, CARD_MAX)
    session = text_field(payload, "session_id") or None
    found = pending(vault, session if payload.get("source") == "compact" else None, prefer=session,
                    project=scope.project)
    if payload.get("mdmem_catch_up") and read is not None:  # an agent with no SessionEnd: its ended sessions now
        record_ended(vault, payload, read)
    waiting = unreviewed(vault, cwd, session, own=payload.get("source") == "compact")
    if waiting:
        line = review_line(vault, waiting)
        if len(text.encode("utf-8")) + len(line.encode("utf-8")) + 2 <= CARD_MAX:
            text = (text.rstrip("\n") + "\n\n" if text else "") + line
    text = with_reminder(text, vault, cwd, now(), CARD_MAX)  # imported sessions never reviewed (once a day)
    if found:
        room = CARD_MAX - len(text.encode("utf-8")) - 2
        block = pending_text(vault, found, room)
        if block:
            text = (text.rstrip("\n") + "\n\n" if text else "") + block
    if broken:
        from mdmem.base.terminal import visible

        return {"systemMessage": visible(broken, False), "hookSpecificOutput": {"hookEventName": "SessionStart",
                                                                         "additionalContext": visible(text)}}
    return text


def _make(source, vault: str, cwd: str, budget: int, day: str, scope) -> tuple[str, list[str]]:
    """The index-mode block and the notes it names (:func:`mdmem.ops.block.assemble`, what ``mdmem context`` gives)
    from ``source`` (a ``Memory``, or the notes cache's :class:`~mdmem.engine.heads.HeadReader`): the same text from
    either."""
    from pathlib import Path

    from mdmem.ops.block import assemble

    made, shown = assemble(source, "index", budget, cwd=Path(cwd), protocol=card_protocol(vault), today=day,
                           command=card_command(vault), scope=scope)
    return made.text(), shown


def _from_cache(vault: str, cwd: str, card: dict, walk: files.Scan, frame: str, budget: int, day: str,
                scope) -> tuple[str, str | None, list, list, str] | None:
    """(text, through, shown, store, how) of the card made from the notes cache as it stands, read without the
    engine (:class:`~mdmem.engine.heads.HeadReader`: the heads of the kinds the card lists, the other notes as
    counts; no ``Memory``, no parser, no write lock) when the cache was written from the files as ``walk`` saw
    them; the kept card when it was made from that very cache (:func:`_kept_after_edit`). None when the cache is
    behind the files or cannot be read as it is: the caller refreshes it (decision 120)."""
    import sqlite3

    from mdmem.engine.heads import CacheDamaged, HeadReader

    reader = HeadReader.open(vault, walk)
    if reader is None:
        return None
    try:
        with reader:
            store: list = list(reader.state()[:2])
            if _frame_holds(card, frame, budget, day) and card.get("store") == store:
                return _kept(card, store)
            text, shown = _make(reader, vault, cwd, budget, day, scope)
            return text, reader.valid_through(day), shown, store, "made again from the notes cache"
    except (sqlite3.Error, CacheDamaged, OSError, TypeError, ValueError, AttributeError) as e:  # the cache changed
        # under it, a row not mdmem's (a value of another type: decision 131): refreshed
        log(vault, f"session-start: the notes cache could not be read as it is ({type(e).__name__}); refreshing it")
        return None


def _kept(card: dict, store: list) -> tuple[str, str | None, list, list, str]:
    """(text, through, shown, store, how) of the kept ``card``, standing for notes cache state ``store``."""
    shown = card.get("shown")
    through = card.get("through")
    return (str(card["text"]), through if isinstance(through, str) else None, shown if isinstance(shown, list) else [],
            store, "kept: only bodies changed")


def _refreshed(vault: str, cwd: str, card: dict, walk: files.Scan, frame: str, look: Look | None, budget: int,
               day: str, scope, broken: str | None) -> tuple[str, str | None, list, list, str]:
    """(text, through, shown, store, how) of the card after the notes cache was brought up to date with the files
    through ``Memory`` (the changed notes parsed; the search index left as it is, decision 100): the kept card when
    only bodies changed (:func:`_kept_after_edit`), else made again."""
    from mdmem.engine.heads import CacheDamaged
    from mdmem.engine.memory import Memory

    defaults = None
    if broken:  # the defaults, config.toml being unusable (the settings module: only then, ~10 ms of imports)
        from mdmem.base.settings import Settings

        defaults = Settings()
    with Memory.open(vault, settings=defaults) as mem:
        # the notes cache alone brought up to date (the index's lag is folded in by the next command that searches
        # it: Whoosh is neither opened nor imported)
        before = list(mem.store.state()[:2])
        refreshed = None
        if not mem.notes_current(walk):
            refreshed = mem.refresh(strict=False, scan=walk, index=False, known=look)
            if not refreshed.stale and not mem.notes_current(mem.scan):
                # only a folder moved: the next card (and prompt) need not look again
                record_digest(vault, files.digest(mem.scan), files.digest(mem.scan, SESSIONS_DIR))
        if _kept_after_edit(mem, card, frame, before, refreshed, budget, day):
            return _kept(card, list(mem.store.state()[:2]))
        try:
            text, shown = _make(mem, vault, cwd, budget, day, scope)
        except (CacheDamaged, TypeError, ValueError, AttributeError) as e:  # a row mdmem did not write: made again
            log(vault, f"session-start: the notes cache holds rows mdmem did not write ({type(e).__name__}); "
                       "making it again")
            mem.store.reset()
            mem.refresh(strict=False, index=False)
            text, shown = _make(mem, vault, cwd, budget, day, scope)
        return text, mem.store.valid_through(day), shown, list(mem.store.state()[:2]), "made again"


def _scope(vault: str, cwd: str, broken: str | None):
    """The memories a session working in ``cwd`` is shown: the global ones and its project's
    (:mod:`mdmem.base.projects`; a broken config: no ``[projects]`` mapping, as every other default)."""
    from mdmem.base.projects import mapping, scope_for

    return scope_for(None, cwd, vault, {} if broken else mapping(vault), session=True)


# ----------------------------------------------------------------------------- hook status


def _iso(t) -> str | None:
    if not isinstance(t, (int, float)) or not t:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))


def session_status(vault: str, session: str | None = None) -> dict:
    """For ``hook status``: a session's stop count, when its next checkpoint may fire, its pending
    checkpoint and how many notes the prompt hook gave it. The session is ``session``, else the one whose
    Stop hook ran last. Read from the hooks' state files as the Stop hook keeps them."""
    folder = state_folder(vault, "hooks")
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
        return out | {"stops": 0, "next": None, "pending": None, "prompt_notes": 0, "review": None}
    state = read_state(os.path.join(folder, f"stop-{name}.json"))
    cfg = settings(vault, {})
    policy = state.get("policy") or cfg["policy"]
    stops, since = int(state.get("stops", 0) or 0), int(state.get("since", 0) or 0)
    if policy in ("signals", "evidence"):  # "evidence" (its detectors retired): the signals, as a setting of old
        last = state.get("last_trigger") or 0
        nxt = {"policy": "signals", "said": bool(state.get("said")), "steers": int(state.get("steers", 0) or 0),
               "fallback_stops_left": max(0, cfg["min_stops"] - since),
               "not_before": _iso(last + cfg["min_interval_minutes"] * 60) if last else None}
    else:
        last = state.get("last_trigger") or state.get("first")
        nxt = {"policy": "cadence", "stops_left": max(0, cfg["min_stops"] - since),
               "not_before": _iso(last + cfg["min_minutes"] * 60) if last else None}
    data = read_state(os.path.join(checkpoints_folder(vault), name + ".json"))
    marker = read_state(os.path.join(folder, f"pending-{name}.json"))
    found = None
    if data.get("status") == "pending" and data.get("candidates"):
        found = {"candidates": [f"{c.get('number')}. [{c.get('type')}] {c.get('name')}"
                                for c in data["candidates"] if isinstance(c, dict)],
                 "saved": _iso(data.get("saved")), "kept_by": _KEPT_BY.get(str(data.get("origin")))
                 or marker.get("event") or "Stop"}
    shown = read_state(os.path.join(folder, f"prompt-{name}.json")).get("shown") or []
    uncovered = read_state(os.path.join(folder, f"{REVIEW_PREFIX}{name}.json"))
    review = {k: uncovered.get(k) for k in ("event", "typed", "status")} if uncovered.get("session") else None
    return out | {"review": review, "stops": stops, "since_last_checkpoint": since, "checkpoints": int(state.get("triggers", 0) or 0),
                  "last_checkpoint": _iso(state.get("last_trigger")), "next": nxt, "pending": found,
                  "prompt_notes": len(shown)}


# `hook status`'s "kept by": who stored the pending checkpoint (its origin); "Stop" for `propose`, what the model
# runs when the Stop hook asks (or when it consolidates on its own)
_KEPT_BY = {"propose": "Stop", "PreCompact": "PreCompact", "SessionEnd": "SessionEnd",
            "hand": "a hand run of `mdmem checkpoint`, not shown on the card"}

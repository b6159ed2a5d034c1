"""Claude Code hooks, the logic besides Stop: the SessionStart card (``session_start``), the
pending checkpoint it shows, ``hook status``, and PreCompact / SessionEnd (``pre_compact``,
``session_end``: the offline checkpoint kept for the next card). The Stop hook's policy is
:mod:`mdmem.agents.checkpoint.stop` and what the hooks share :mod:`mdmem.agents.hooks.state`; both are
re-exported here (``hooks.stop``, ``hooks.HookError``, ...).

Claude Code runs these at every session start, so they are reached from :mod:`mdmem.cli.hook`
(the fast path, before Typer is ever imported) and this module imports only the standard library
and ``mdmem.base`` at load time (no whoosh, networkx, rich, yaml or markdown-it).
"""

from __future__ import annotations

import os
import time

from mdmem.agents.checkpoint.stop import stop  # noqa: F401
from mdmem.agents.history.background import with_reminder
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
from mdmem.base import files
from mdmem.base.errors import MdmemError
from mdmem.base.layout import SESSIONS_DIR, bootstrap_candidates, safe_session
from mdmem.base.state import state_folder, state_path

TYPE_CHECKING = False  # the card stays on the standard library
if TYPE_CHECKING:
    from collections.abc import Callable

    from mdmem.engine.bodies import Look

CARD_MAX = 10_000  # bytes (UTF-8): the most the SessionStart hook ever prints; Claude Code cuts larger ones
CARD_BUDGET = 8000  # bytes: the card's default budget, leaving room for a pending checkpoint
PENDING_DAYS = 14  # a pending checkpoint older than this is no longer shown on the card
# who stored a checkpoint the card shows (its `origin`, mdmem.agents.checkpoint.candidates.ORIGINS): the model through
# `checkpoint propose` / MCP `checkpoint_propose` (after the Stop hook's prompt or a consolidation) and the
# PreCompact / SessionEnd hooks; one stored before origins were kept has none and is shown, as then. Never a hand
# run of `mdmem checkpoint TRANSCRIPT` ("hand"): its person read the list in their terminal, and it sat on every
# later card of the vault for 14 days, the agents asking about it (a new user's trial)
CARD_ORIGINS = ("propose", "PreCompact", "SessionEnd", None)
# the code that lays the card out (relative to the package): an upgrade or an edit of one of them makes the card
# again, as a changed note does (a kept card showed the old layout until some note changed)
CARD_CODE = ("ops/context.py", "ops/timeline.py", "ops/search.py", "ops/recall.py", "text/protocol.py",
             "text/fence.py")


# ----------------------------------------------------------------------------- session start


def fingerprint(vault: str, cwd: str, scan: files.Scan | None = None) -> str:
    """What the memory card depends on, cheaply: the stat of every note (the one
    vault walker, :func:`mdmem.base.files.scan`) and of the bootstrap files that
    apply in ``cwd``, the memory protocol the card carries and the stat of the code that
    lays the card out (:data:`CARD_CODE`: an upgrade that changes either makes the card
    again; a card kept from before showed the old protocol until a note changed). About
    50 ms for 10k notes; no parsing. ``scan``: the vault's walk when the caller made it (the card made again
    hands the same walk to the refresh: one walk, not two)."""
    return fingerprints(vault, cwd, scan)[0]


def fingerprints(vault: str, cwd: str, scan: files.Scan | None = None) -> tuple[str, str]:
    """(:func:`fingerprint`, the frame: the same less the notes' stats). A kept card whose frame is today's
    differs from what a new one would be only by the notes that changed (:func:`_kept_after_edit`)."""
    import hashlib
    from pathlib import Path

    h, frame = hashlib.blake2b(digest_size=16), hashlib.blake2b(digest_size=16)
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
    for rel, (mtime, size, ctime) in sorted((scan or files.scan(Path(vault))).notes.items()):
        h.update(f"{rel}\0{mtime}\0{size}\0{ctime}\n".encode("utf-8", "surrogateescape"))
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
        try:
            with open(marker, encoding="utf-8") as f:
                if f.read(16) == day:
                    return
        except OSError:
            pass
    from mdmem.base.usage import CARD, record

    record(state_folder(vault), shown, CARD, now())
    try:
        with open(marker, "w", encoding="utf-8") as f:
            f.write(day)
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
        from pathlib import Path

        from mdmem.engine.memory import Memory

        defaults = None
        if broken:  # the defaults, config.toml being unusable (the settings module: only then, ~10 ms of imports)
            from mdmem.base.settings import Settings

            defaults = Settings()
        with Memory.open(vault, settings=defaults) as mem:
            # no note changed since the notes cache was written: the card is made from it alone (the search
            # index, Whoosh, is neither opened nor imported); else the notes cache alone brought up to date first
            # (the index's lag is folded in by the next command that searches it)
            before = list(mem.store.state()[:2])
            refreshed = None
            if not mem.notes_current(walk):
                refreshed = mem.refresh(strict=False, scan=walk, index=False, known=look)
                if not refreshed.stale and not mem.notes_current(mem.scan):
                    # only a folder moved: the next card (and prompt) need not look again
                    record_digest(vault, files.digest(mem.scan), files.digest(mem.scan, SESSIONS_DIR))
            kept = _kept_after_edit(mem, card, frame, before, refreshed, budget, day)
            if kept:
                text, through, how = card["text"], card.get("through"), "kept: only bodies changed"
                shown = card.get("shown") if isinstance(card.get("shown"), list) else []
            else:
                from mdmem.ops.context import context

                made = context(mem, "index", budget, cwd=Path(cwd), protocol=card_protocol(vault), today=day,
                               command=card_command(vault), scope=scope)
                text, shown = made.text, made.shown
                through, how = mem.store.valid_through(day), "made again"
            store = list(mem.store.state()[:2])
        try:
            save_card(vault, cwd, text, budget, fp, day, through, scope.project, frame, store, shown)
        except OSError as e:  # a read-only vault: the card is shown, only not kept
            log(vault, f"session-start: the card could not be kept ({e.strerror})")
        _used(vault, scope.project, shown, day, kept=kept)
        log(vault, f"session-start source={payload.get('source', '?')}: card {how} ({len(text)} characters)")
    if broken:
        text = broken + "\n\n" + text
    text = _cut(text, CARD_MAX)
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


def _scope(vault: str, cwd: str, broken: str | None):
    """The memories a session working in ``cwd`` is shown: the global ones and its project's
    (:mod:`mdmem.base.projects`; a broken config: no ``[projects]`` mapping, as every other default)."""
    from mdmem.base.projects import mapping, scope_for

    return scope_for(None, cwd, vault, {} if broken else mapping(vault), session=True)


def _cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, on a character boundary."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


# ----------------------------------------------------------------------------- pending checkpoints


def _checkpoints(vault: str) -> str:
    return state_folder(vault, "checkpoints")


def _shown(data: dict) -> bool:
    """Is ``data`` a checkpoint the card shows: pending, with suggestions left, stored by a hook or
    ``propose`` (:data:`CARD_ORIGINS`)?"""
    return data.get("status") == "pending" and bool(data.get("candidates")) and data.get("origin") in CARD_ORIGINS


def pending(vault: str, session: str | None = None, prefer: str | None = None, project: str | None = None) -> dict | None:
    """The pending checkpoint to show: ``session``'s (after a compaction: only that one); else
    ``prefer``'s if pending, else the newest pending one of any session of ``project`` (the card's: the
    checkpoint records the project its session worked in; one made outside any project is shown in every
    project, one stored before projects were recorded too) saved in the last :data:`PENDING_DAYS` days;
    never one a hand run stored (:data:`CARD_ORIGINS`). Read as plain JSON (the card stays on the standard
    library)."""
    folder = _checkpoints(vault)
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
    limit = time.time() - PENDING_DAYS * 86400  # `saved` is the real clock
    for name in names:
        if not name.endswith(".json"):
            continue
        data = read_state(os.path.join(folder, name))
        saved = data.get("saved", 0) if isinstance(data.get("saved"), (int, float)) else 0
        if _shown(data) and saved >= limit and _ours(data, project):
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
        line = _cut(" ".join(line.split()), 300)
        if used + len(line.encode()) + 1 > room:
            break
        lines.append(line)
        used += len(line.encode()) + 1
    if not lines:
        return ""
    return "\n".join([head, fence("\n".join(lines)), tail])


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
    data = read_state(os.path.join(_checkpoints(vault), name + ".json"))
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


REVIEW_PREFIX = "review-"  # .mdmem/hooks/review-<session>.json: turns of a session no scan covered


def _record_uncovered(vault: str, payload: dict, event: str, read: Callable) -> dict | None:
    """PreCompact and SessionEnd: record which part of the transcript no scan covered (from the Stop
    hook's last scan, ``covered`` in its state, to the end), when the user typed something there. Nothing
    is judged here and nothing written to memory: the next session's card (same project) names the
    session and ``mdmem checkpoint review --session S`` hands that part to the new session's model. The
    record holds offsets and counts, never the conversation's text. ``read`` is the agent's transcript reader."""
    session, transcript = text_field(payload, "session_id"), text_field(payload, "transcript_path")
    if not session:
        raise HookError("no session_id in the hook's input")
    if not transcript or not os.path.isfile(transcript):
        raise HookError(f"no transcript to read ({transcript or 'no transcript_path'})")

    folder = state_path(vault, "hooks")
    name = safe_session(session)
    state = read_state(os.path.join(folder, f"stop-{name}.json"))
    start = int(state.get("covered", 0) or 0) if state.get("transcript") in (None, transcript) else 0
    base = os.path.join(folder, REVIEW_PREFIX + name)
    with files.Lock(base + ".lock", LOCK_WAIT, f"another hook holds {base}.lock (waited {LOCK_WAIT:.0f} s)"):
        old = read_state(base + ".json")
        if old.get("status") == "pending" and old.get("transcript") == transcript:
            start = min(start, int(old.get("from", start) or 0))  # an earlier compaction's part is still unreviewed
        tr = read(transcript, start=start)
        typed = sum(1 for m in tr.messages if m.speaker == "user" and m.kind != "prompt")
        if not typed:
            log(vault, f"{event} session={session}: every turn was scanned")
            return None
        cwd = folder_field(payload) or state.get("cwd") or ""
        record = {"session": session, "transcript": transcript, "from": tr.start, "to": tr.end, "cwd": cwd,
                  "event": event, "at": now(), "typed": typed, "status": "pending",
                  "agent": text_field(payload, "mdmem_agent") or state.get("agent") or "claude",
                  "size": os.path.getsize(transcript)}
        write_state(base + ".json", record)
    log(vault, f"{event} session={session}: {typed} user message(s) no scan covered; kept for review")
    return record


IMPORT_SOURCE = {"claude": "claude-code", "codex": "codex", "gemini": "gemini"}  # `mdmem import SOURCE` per agent
CATCH_UP_IDLE = 600  # seconds: a session whose Stop hook ran this recently may still be going on


def record_ended(vault: str, payload: dict, read: Callable) -> int:
    """What SessionEnd would have recorded, for an agent that has no SessionEnd (Codex): every other session of
    this agent whose Stop hook last ran more than :data:`CATCH_UP_IDLE` seconds ago, in the last
    :data:`PENDING_DAYS` days, and whose transcript grew since its last record, gets its uncovered turns recorded
    for review (:func:`_record_uncovered`). Returns how many sessions were looked at."""
    agent, current = text_field(payload, "mdmem_agent") or "claude", text_field(payload, "session_id")
    folder = state_folder(vault, "hooks")
    try:
        names = [n for n in os.listdir(folder) if n.startswith("stop-") and n.endswith(".json")]
    except OSError:
        return 0
    t, seen = time.time(), 0
    for name in names:
        path = os.path.join(folder, name)
        try:
            age = t - os.stat(path).st_mtime
        except OSError:
            continue
        if age < CATCH_UP_IDLE or age > PENDING_DAYS * 86400:
            continue
        state = read_state(path)
        session, transcript = state.get("session") or name[5:-5], state.get("transcript")
        if state.get("agent") != agent or session == current or not isinstance(transcript, str):
            continue
        old = read_state(os.path.join(folder, REVIEW_PREFIX + safe_session(session) + ".json"))
        try:
            if old.get("status") == "reviewed" or os.path.getsize(transcript) == old.get("size"):
                continue
        except OSError:
            continue
        seen += 1
        try:
            _record_uncovered(vault, {"session_id": session, "transcript_path": transcript,
                                      "cwd": state.get("cwd") or "", "mdmem_agent": agent}, "SessionStart", read)
        except (HookError, MdmemError):
            continue
    return seen


def unreviewed(vault: str, cwd: str | None, session: str | None = None, own: bool = False) -> list[dict]:
    """The sessions whose uncovered turns wait for a review, newest first: of the same project (``cwd``
    the same folder as the session's, or one inside the other), seen in the last :data:`PENDING_DAYS`
    days; ``own``: only ``session``'s (after a compaction), else never ``session``'s own. A record untouched
    for longer than that is removed (the folder does not grow with every session ever run)."""
    folder = state_folder(vault, "hooks")
    try:
        names = [f for f in os.listdir(folder) if f.startswith(REVIEW_PREFIX) and f.endswith(".json")]
    except OSError:
        return []
    limit = now() - PENDING_DAYS * 86400
    here = os.path.realpath(cwd) if cwd else None
    out = []
    for f in names:
        path = os.path.join(folder, f)
        try:
            if os.stat(path).st_mtime < time.time() - PENDING_DAYS * 86400:  # past the window: derived state, gone
                os.remove(path)
                continue
        except OSError:
            continue
        data = read_state(path)
        sid = data.get("session")
        if data.get("status") != "pending" or not isinstance(sid, str) or not isinstance(data.get("at"), (int, float)):
            continue
        if data["at"] < limit or (own and sid != session) or (not own and sid == session):
            continue
        there = os.path.realpath(data["cwd"]) if isinstance(data.get("cwd"), str) and data["cwd"] else None
        if here and there and not (here == there or here.startswith(there + os.sep) or there.startswith(here + os.sep)):
            continue
        out.append(data)
    out.sort(key=lambda d: (-d["at"], d["session"]))
    return out


def review_line(vault: str, waiting: list[dict]) -> str:
    """The card's one line for the sessions whose turns no scan covered (:func:`unreviewed`)."""
    import shlex

    from mdmem.agents.launch import runner
    from mdmem.base.terminal import visible

    newest = waiting[0]
    more = f" (and {len(waiting) - 1} more session(s))" if len(waiting) > 1 else ""
    command = f"{runner()} checkpoint review --session {shlex.quote(newest['session'])} --vault {shlex.quote(str(vault))}"
    return visible(f"mdmem: not scanned: {newest.get('typed', 0)} user message(s) of session {newest['session']}"
                   f"{more} were never checked for memories: run `{command}`, judge what it prints, and propose "
                   "anything worth keeping (the user chooses).", False)


def pre_compact(vault: str, payload: dict, opts: dict, *, read: Callable) -> dict | None:
    """PreCompact: the turns no scan covered, recorded for review; ``read`` is the agent's transcript reader."""
    record = _record_uncovered(vault, payload, "PreCompact", read)
    if record is None:
        return None
    return {"systemMessage": "mdmem: the turns no memory checkpoint scanned are kept for review after the compaction."}


def session_end(vault: str, payload: dict, opts: dict, *, read: Callable) -> None:
    """The record of what no scan covered, and the session's import into ``sessions/`` handed to a background process
    (:mod:`mdmem.agents.history.background`, once the vault imports sessions: :func:`~mdmem.agents.history.
    background.enabled`): what the user said is in the vault before Claude Code deletes the transcript, and the
    hook does not wait for it."""
    from mdmem.agents.history.background import enabled, spawn_import

    transcript = text_field(payload, "transcript_path")
    if transcript and os.path.isfile(transcript) and enabled(vault):
        source = IMPORT_SOURCE.get(text_field(payload, "mdmem_agent") or "claude")
        pid = spawn_import(vault, source, transcript) if source else None
        log(vault, f"SessionEnd session={text_field(payload, 'session_id') or '?'}: import started (pid {pid})")
    _record_uncovered(vault, payload, "SessionEnd", read)
    return None

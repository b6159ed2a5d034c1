"""The consolidation checkpoint: the scan prompt the model in the session answers, the
validation and storage of what it proposes, the offline suggestions (a rule the user stated), and
``accept`` / ``skip``. Nothing here writes memory; ``accept`` does, later, through
:func:`mdmem.ops.capture.save`, for the numbers the user picked.

Candidates come from the model in the session (the scan prompt, then ``propose``) or offline from
the standing rules the user stated (:func:`build`); proposals wait in ``.mdmem/checkpoints/<session>.json`` until
``accept`` or ``skip``. Standard library only (the Stop hook builds checkpoints).

By concept (each re-exported here, the checkpoint's public face): :mod:`mdmem.agents.checkpoint.scan` the scan
prompt and what the vault already holds; :mod:`mdmem.agents.checkpoint.candidates` the candidates, their names,
the offline build and the stored checkpoints; :mod:`mdmem.agents.checkpoint.propose` the model's side; this
module the numbered text, ``analyze``, ``accept`` and ``skip``.

Details and reasons: docs/decisions/055-checkpoint-detectors-and-transcripts.md
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from mdmem.agents.checkpoint.candidates import (  # noqa: F401  (the checkpoint's public face)
    ANYWHERE,
    BODY_MAX,
    DESCRIPTION_MAX,
    KINDS,
    LANGS,
    MAX_CANDIDATES,
    NAME_MAX,
    ORIGINS,
    SECRET_MARK,
    Candidate,
    Checkpoint,
    Dropped,
    as_dict,
    build,
    candidate,
    load,
    mark,
    numbers,
    one_line,
    secret_of,
    store,
    title,
)
from mdmem.agents.checkpoint.propose import (  # noqa: F401
    MODEL_ANSWER,
    MODEL_ANSWER_PT,
    MODEL_INPUT_MAX,
    MODEL_TIMEOUT,
    conversation_text,
    propose,
    repeats_of,
    run_model,
)
from mdmem.agents.checkpoint.scan import (  # noqa: F401
    MARKS,
    PROMPT_MAX,
    RANK,
    Known,
    clean,
    command_tail,
    hint_lines,
    key_words,
    memory_protocol,
    scan_prompt,
    scope_of,
)
from mdmem.agents.launch import runner
from mdmem.base.errors import MdmemError, UsageError

# ----------------------------------------------------------------------------- text

_TEXT = {
    "en": {"head": "[Checkpoint] This conversation hit {n}/7 dimensions ({marks}). Suggested memories:",
           "quiet": "[Checkpoint] This conversation hit {n}/7 dimensions{marks}: nothing to suggest.",
           "ask": 'Save which? Reply with numbers (e.g. 1,2) or "skip".',
           "evidence": "evidence", "said": "said", "check": "check", "dropped": "not kept: {name} ({reason})",
           "same": "same as [[{name}]]: accepting updates {name} ({path}), no new note"},
    "pt": {"head": "[Checkpoint de Sedimentação] Esta conversa acertou {n}/7 dimensões ({marks}), "
                   "sugestão de sedimentação:",
           "quiet": "[Checkpoint de Sedimentação] Esta conversa acertou {n}/7 dimensões{marks}: nada a sugerir.",
           "ask": 'Salvar quais? Responda com os números (ex.: 1,2), ou "pular".',
           "evidence": "evidência", "said": "disse", "check": "verifique", "dropped": "não guardada: {name} ({reason})",
           "same": "igual a [[{name}]]: aceitar atualiza {name} ({path}), sem nota nova"},
}
_SPEAKERS = {"en": {"user": "user", "assistant": "assistant"}, "pt": {"user": "usuário", "assistant": "assistente"}}


def text(cp: Checkpoint, mcp: bool = False) -> str:
    """The checkpoint as the user (and the model) reads it: the seed's numbered list, a suggestion that looks
    like it holds a secret marked (:data:`SECRET_MARK`: ``--allow-secret``, which only the user passes, on the
    command line: an MCP client has no way to waive the scan)."""
    t = _TEXT.get(cp.lang, _TEXT["en"])
    flagged = SECRET_MARK.get(cp.lang, SECRET_MARK["en"]).format(flag="--allow-secret")
    marks = "".join(MARKS[d] for d in cp.dimensions if d in MARKS)
    # what `propose` did not keep is said inside the list the model shows (stdout), never only on stderr
    gone = [t["dropped"].format(name=d.name, reason=d.reason) for d in cp.dropped] if cp.source == "model" else []
    if not cp.candidates:
        return "\n".join([t["quiet"].format(n=len(cp.dimensions), marks=f" ({marks})" if marks else ""), *gone])
    out = [t["head"].format(n=len(cp.dimensions), marks=marks)]
    for c in cp.candidates:
        out.append(f"{c.number}. [{c.type}] {c.mark} {c.name} — {c.description}" + (f" {flagged}" if c.secret else "")
                   + (f" ({t['check']}: {c.flag})" if c.flag else ""))
        if c.same:  # said up front, where the model shows the list: what `accept` will do with it
            out.append("   " + t["same"].format(name=c.same.rsplit("/", 1)[-1].removesuffix(".md"), path=c.same))
        if c.line:
            out.append(f"   CLAUDE.md: {c.line}")
        if c.chosen and c.rejected:
            out.append(f"   {'escolha' if cp.lang == 'pt' else 'chosen'}: {c.chosen}; "
                       f"{'rejeitado' if cp.lang == 'pt' else 'rejected'}: {', '.join(c.rejected)}")
        if c.paths:
            out.append(f"   paths: {', '.join(c.paths)}")
        if c.evidence:
            e = c.evidence[0]
            out.append(f"   {t['evidence']}: #{e.index} {_SPEAKERS[cp.lang if cp.lang in _SPEAKERS else 'en'][e.speaker]}"
                       f": \"{clean(e.quote)}\" ({e.signal})")
    out.extend(gone)
    out.append(t["ask"])
    return "\n".join(out)


# ----------------------------------------------------------------------------- analyse, accept, skip


def analyze(source: str, vault: Path, *, lang: str | None = None, subagents: bool = False,
            session: str | None = None, cwd: Path | None = None, today: str | None = None,
            store_result: bool = True, model: str | None = None, max_bytes: int | None = None,
            timeout: float = MODEL_TIMEOUT, origin: str = "hand", read: Callable, mem=None, judge=None) -> Checkpoint:
    """The checkpoint of a whole transcript (``-`` = standard input; at most the last
    ``max_bytes`` of it), stored when it has candidates. Offline by default: only the standing rules the user
    stated in so many words (:func:`mdmem.agents.checkpoint.signals.standing`); with ``model`` the scan prompt and the conversation go to that command, and its JSON
    answer through :func:`propose`.

    ``origin`` (:data:`ORIGINS`) is who ran it: "hand" (the default: ``mdmem checkpoint TRANSCRIPT``, a
    person reading the list in their terminal), or the PreCompact / SessionEnd hook. The decision (a new
    user's trial: a hand run, documented as writing no memory, then sat on every later session's card for
    14 days and the agents asked about it): the SessionStart card shows only what the hooks and ``propose``
    stored, never a hand run; ``checkpoint accept N --session S`` (and ``accept``/``skip`` without
    ``--session``, the newest pending one of any origin) still take a hand run's suggestions. A hand run of
    a session's transcript replaces that session's pending checkpoint, as every checkpoint does: the
    numbers just printed are the ones ``accept`` takes, and the person who ran it decides them.

    The memory it compares with is the global one and the project of the conversation's folder (else ``cwd``)
    (:func:`mdmem.agents.checkpoint.scan.scope_of`); ``mem``, the open vault, lets a model's candidates be
    marked with the note they would update (:func:`propose`)."""
    from mdmem.agents.checkpoint.candidates import about
    from mdmem.agents.checkpoint.evidence import language
    from mdmem.agents.checkpoint.signals import standing
    from mdmem.agents.checkpoint.transcript import conversation_day
    tr = read(source, subagents=subagents, max_bytes=max_bytes, errors=bool(model))  # a model sees tools' errors
    sid = session or tr.session_id or (Path(source).stem if source != "-" else "stdin")
    chosen = lang or language(tr.messages)
    if chosen not in _TEXT:
        raise UsageError(f"--lang must be one of: {', '.join(_TEXT)}")
    claude_md = [Path(p) / "CLAUDE.md" for p in {str(cwd or Path.cwd()), tr.cwd or ""} if p]
    transcript = None if source == "-" else str(Path(source).resolve())
    evidence = standing(tr.messages)
    scope = scope_of(vault, tr.cwd or str(cwd or Path.cwd()))
    day = conversation_day(transcript, tr.messages) if tr.format == "jsonl" else None
    if model:
        known = Known.read(vault, claude_md, sid, scope=scope)
        prompt = scan_prompt(None, None, known=known, evidence=evidence, lang=chosen, answer=False,
                             topic=[m.text[:2000] for m in tr.messages if m.speaker == "user"][-20:])
        prompt = prompt + "\n\n" + (MODEL_ANSWER_PT if chosen == "pt" else MODEL_ANSWER)
        head = "--- A conversa ---" if chosen == "pt" else "--- The conversation ---"
        answer = run_model(model, prompt + f"\n\n{head}\n\n" + conversation_text(tr.messages), timeout)
        result = propose(vault, answer, session=sid, lang=chosen, transcript=transcript, extra_claude_md=claude_md,
                         today=today, store_result=store_result, origin=origin, scope=scope, mem=mem,
                         conversation_date=day, judge=judge)
        return Checkpoint(result.session, transcript, result.lang, result.dimensions, result.candidates,
                          result.dropped, len(tr.messages), tr.tool_calls, tr.malformed, tr.skipped, result.created,
                          "model")
    known = Known.read(vault, claude_md, sid, scope=scope)
    result = build(evidence, session=sid, transcript=transcript, lang=chosen, known=known, messages=len(tr.messages),
                   tool_calls=tr.tool_calls, malformed=tr.malformed, skipped=tr.skipped, today=day or today)
    if result.fired and store_result:
        store(vault, result, origin, about(scope, day))
    return result


@dataclass(frozen=True)
class Accepted:
    number: int
    dimension: int
    type: str
    name: str
    status: str          # created, unchanged, proposed (a CLAUDE.md line: not written), refused
    path: str | None
    message: str
    line: str | None = None


@dataclass(frozen=True)
class AcceptResult:
    session: str
    accepted: list[Accepted]
    skipped: list[int]   # candidate numbers not chosen (discarded)
    pending: list[int] = field(default_factory=list)  # still pending: refused as holding a secret


def commands(session: str, vault, lang: str = "en", example: Sequence[int] = (1, 2), run: str | None = None) -> str:
    """How to accept or skip a stored checkpoint's suggestions from a shell, with the ``--session`` and
    ``--vault`` they need (the tail the Stop hook's prompt builds, :func:`mdmem.agents.checkpoint.scan.command_tail`)."""
    from mdmem.agents.launch import runner

    run = run or runner()
    tail = command_tail(session, vault)
    picks = ",".join(map(str, example[:2])) or "1"
    if lang == "pt":
        return (f"Para salvar: `{run} checkpoint accept {picks} {tail}` (com os números escolhidos); para "
                f"descartar: `{run} checkpoint skip {tail}`.")
    return (f"To save: `{run} checkpoint accept {picks} {tail}` (with the numbers chosen); to discard them: "
            f"`{run} checkpoint skip {tail}`.")


def provenance(data: dict):
    """A stored checkpoint's provenance for the notes accepted from it: ``source: checkpoint``, its session, its
    agent (Claude Code unless it says another) and the conversation's own date: ``conversation_date`` when the
    checkpoint holds one, else the day it was stored (``saved``, the real clock, during the conversation)."""
    import time

    from mdmem.base.provenance import CLAUDE_CODE, Provenance

    day = data.get("conversation_date")
    if not (isinstance(day, str) and len(day) == 10 and day[4] == "-" and day[7] == "-"):
        saved = data.get("saved")
        day = time.strftime("%Y-%m-%d", time.localtime(saved)) if isinstance(saved, (int, float)) and saved > 0 \
            else None
    agent = data.get("agent") if isinstance(data.get("agent"), str) and data.get("agent") else CLAUDE_CODE
    session = str(data.get("session") or "") or None
    return Provenance("checkpoint", session=session if session != "manual" else None, agent=agent, created=day)


def accept(mem, spec: str, session: str | None = None, today: str | None = None,
           allow_secret: bool = False, project: str | None = None, given: bool = True,
           here: object = ANYWHERE, judge=None) -> AcceptResult:
    """Save the chosen candidates through :func:`mdmem.ops.capture.save` (each on its
    own: one refused near-duplicate does not stop the others). A candidate whose text looks
    like it holds a secret is refused (nothing written), the refusal says how to save it
    knowingly (``accept N --allow-secret --session S --vault V``), and it alone stays pending,
    under the number the user saw; ``allow_secret`` saves it.

    What an accept leaves (a new user's trial: after ``accept 1,2,3`` saved 1 and 2 and refused 3, the
    card still listed all three and ``skip`` discarded 3): the stored checkpoint's ``candidates`` are
    the suggestions still pending (those refused for a secret), ``done`` the others (saved, refused for
    another reason, or not chosen: discarded), each saved one with its result. The card, ``hook status``
    and ``skip`` read ``candidates``; a number saved by an earlier accept answers "already saved" (a
    retried ``accept 1,2,3 --allow-secret`` writes nothing twice); a number not chosen earlier can still
    be accepted with ``--session``. ``project``: the project (:mod:`mdmem.base.projects`) every memory saved
    carries (None: global) when ``given`` (``--project``/``--global``); else the one the checkpoint recorded, the
    project its session worked in, whatever folder the accept runs in (``project`` only for a checkpoint stored
    before projects were recorded). ``judge``: the user's model command (:mod:`mdmem.ops.judge`): a suggestion it
    names a repeat of a saved note updates that note, as one of the same wording does; what it answered at
    ``propose`` is taken again when it would be shown the same notes, unchanged (decision 124), else it is asked."""
    from mdmem.base.projects import Scope
    from mdmem.ops.capture import SameMemory, SecretRefused, save
    from mdmem.ops.repeats import UNCHECKED, Twin, Unchecked, is_guess

    data = load(mem.root, session, here=here)
    if data.get("status") != "pending" and session is None:
        raise MdmemError("no pending checkpoint")
    if not given and "project" in data:
        project = data["project"] if isinstance(data["project"], str) and data["project"] else None
    items = [c for c in data.get("candidates", []) if isinstance(c, dict)]
    done = [c for c in data.get("done", []) if isinstance(c, dict)]
    for i, c in enumerate(items):  # written before numbers were kept: the list's order is the number
        c.setdefault("number", i + 1)
    by_number = {c["number"]: c for c in done} | {c["number"]: c for c in items}
    if not by_number:
        raise MdmemError(f"the checkpoint of session {data.get('session')!r} holds no suggestion")
    chosen = numbers(spec, [c["number"] for c in items]) if spec.strip().lower() in ("all", "todos", "todas") \
        else numbers(spec, list(by_number))
    if not chosen:
        raise MdmemError(f"the checkpoint of session {data.get('session')!r} has nothing pending "
                         f"(saved: {', '.join(str(c['number']) for c in done if c.get('result'))})")
    tail = command_tail(data["session"], mem.root)
    results: list[Accepted] = []
    for n in chosen:
        c = by_number[n]
        kind = c["type"]
        earlier = c.get("result") if isinstance(c.get("result"), dict) else None
        if earlier and earlier.get("status") in ("created", "unchanged", "proposed", "updated"):
            results.append(Accepted(n, c["dimension"], kind, c["name"],
                                    "proposed" if earlier["status"] == "proposed" else "unchanged", earlier.get("path"),
                                    "already saved by an earlier accept: nothing changed", earlier.get("line")))
            continue
        if kind == "claude-md":
            results.append(Accepted(n, c["dimension"], kind, c["name"], "proposed", None,
                                    "add this line to CLAUDE.md yourself (mdmem does not edit CLAUDE.md)",
                                    c.get("line")))
            continue
        same = c.get("same") if isinstance(c.get("same"), str) else None
        twin: Twin | None | Unchecked = UNCHECKED
        if same is None:  # a note saved since the list was made: the same test propose ran, which save takes as its
            judged = c.get("judged") if isinstance(c.get("judged"), dict) else None  # the judge asked only when
            twin = repeats_of(mem, Scope(project), c["name"], c["body"], kind, judge, judged)  # it would read anew
            same = twin[0] if twin and not is_guess(twin[1]) else None
        if same and mem.store.get(same) is not None:  # the list said "accepting updates X": it does
            try:
                results.append(_add_to(mem, n, c, same, allow_secret, today))
                continue
            except SecretRefused:
                pass  # refused below, as any suggestion holding a secret
            except MdmemError as e:
                results.append(Accepted(n, c["dimension"], kind, c["name"], "refused", None, str(e)))
                continue
        try:
            r = save(mem, c["body"], kind, c["name"], c["description"], tags=["checkpoint"], today=today,
                     chosen=c.get("chosen"), rejected=c.get("rejected") or [], paths=c.get("paths") or [],
                     name_as_file=False, allow_secret=allow_secret,  # a suggested title, not a file name
                     provenance=provenance(data), project=project,
                     repeat=twin if same is None else UNCHECKED, judge=judge)  # (a "same" gone since: looks again)
        except SecretRefused as e:
            found = str(e).split("; nothing was written", 1)[0].removeprefix("refusing to write: ")
            results.append(Accepted(n, c["dimension"], kind, c["name"], "refused-secret", None,
                                    f"{found}; nothing was written. If it is not a secret, or to keep it knowingly: "
                                    f"`{runner()} checkpoint accept {n} --allow-secret {tail}` (the user, on the "
                                    f"command line; never over MCP); it stays pending"))
            continue
        except SameMemory as e:  # one note per fact: accepting it updates the note that says it already
            results.append(_add_to(mem, n, c, e.existing, allow_secret, today))
            continue
        except MdmemError as e:
            results.append(Accepted(n, c["dimension"], kind, c["name"], "refused", None, str(e)))
            continue
        maybe = [w for w in r.warnings if r.similar and r.similar in w]  # one note per fact, a guess
        results.append(Accepted(n, c["dimension"], kind, c["name"], r.status, r.path,
                                ("saved" if r.status == "created" else "already saved: nothing changed")
                                + "".join(f"; {w}" for w in maybe), r.index_line))
    outcome = {a.number: a for a in results}
    still = [c for c in by_number.values() if c["number"] in outcome and outcome[c["number"]].status == "refused-secret"]
    settled = [c | ({"result": asdict(outcome[c["number"]])} if c["number"] in outcome else {})
               for c in by_number.values() if c not in still]
    results = [replace(a, status="refused") if a.status == "refused-secret" else a for a in results]
    data = data | {"candidates": sorted(still, key=lambda c: c["number"]),
                   "done": sorted(settled, key=lambda c: c["number"]),
                   "history": (list(data.get("history", [])) + [c.get("name", "") for c in items if c not in still])[-50:]}
    mark(mem.root, data, "pending" if still else "accepted", [asdict(a) for a in results])
    return AcceptResult(data["session"], results, [c["number"] for c in items if c["number"] not in outcome],
                        [c["number"] for c in data["candidates"]])


@dataclass(frozen=True)
class SkipResult:
    session: str
    discarded: int


def _add_to(mem, n: int, c: dict, path: str, allow_secret: bool, today: str | None) -> Accepted:
    """Suggestion ``n`` (``c``) said by the saved note at ``path``: added to it, or, when the note already holds its
    text (its footer aside: a note saved since the list was made), nothing changed."""
    from mdmem.agents.checkpoint.propose import fact_of
    from mdmem.base import files as fs
    from mdmem.ops.capture import holds, save

    if holds(fs.read_bytes(mem.root, path), fact_of(c["body"])):
        return Accepted(n, c["dimension"], c["type"], c["name"], "unchanged", path, f"already in {path}: nothing changed")
    r = save(mem, c["body"], c["type"], update=path, allow_secret=allow_secret, today=today)
    return Accepted(n, c["dimension"], c["type"], c["name"], "updated", r.path, f"the same as {r.path}: added to it",
                    r.index_line)


def skip(vault: Path, session: str | None = None, here: object = ANYWHERE) -> SkipResult:
    """Discard a checkpoint's pending suggestions (after a partial accept, only those still pending); without
    ``session``, the newest pending one of the project ``here`` (:func:`candidates.load`)."""
    data = load(vault, session, here=here)
    pending = [c for c in data.get("candidates", []) if isinstance(c, dict)]
    history = (list(data.get("history", [])) + [c.get("name", "") for c in pending])[-50:]  # not proposed again
    mark(vault, data | {"candidates": [], "done": list(data.get("done", [])) + pending, "history": history}, "skipped")
    return SkipResult(data["session"], len(pending))

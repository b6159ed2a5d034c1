"""The consolidation checkpoint: the scan prompt the model in the session answers, the
validation and storage of what it proposes, the offline detectors' suggestions, and
``accept`` / ``skip``. Nothing here writes memory; ``accept`` does, later, through
:func:`mdmem.ops.capture.save`, for the numbers the user picked.

Two ways to candidates, one format for the user:

- **The model** (the seed's design, and the default in a Claude Code session): the Stop
  hook decides *when* and hands the model :func:`scan_prompt` (the seven dimensions, the
  do-not-save list, the rules, the vault's related memory, mdmem's detector hints); the
  model answers ``mdmem checkpoint propose`` with JSON candidates; :func:`propose` validates
  them (types, count, short clean names, do-not-save, secrets), drops what repeats the vault
  or the session's earlier proposals, stores them and prints the numbered list.
  ``mdmem checkpoint TRANSCRIPT --model CMD`` does the same with any command that answers
  JSON (:func:`run_model`). :func:`memory_protocol` is the short text that tells the model
  when to scan on its own (the seed's primary trigger).
- **Offline** (``mdmem checkpoint TRANSCRIPT``, no model): the detectors'
  evidence (:mod:`mdmem.agents.dimensions`) → :func:`build`: 0-1 dimensions hit → silent;
  else at most three candidates, rules, feedback and decisions before analysis, milestones
  and task closure, each named after its subject in at most 60 characters
  (:func:`title`: no cut words, tags or ellipses).

Proposals are kept in ``<vault>/.mdmem/checkpoints/<session>.json`` (atomic writes) until
``accept`` or ``skip``. Standard library only (the Stop hook builds checkpoints).

By concept (each re-exported here, the checkpoint's public face): :mod:`mdmem.agents.scan` the scan
prompt and what the vault already holds; :mod:`mdmem.agents.candidates` the candidates, their names,
the offline build and the stored checkpoints; :mod:`mdmem.agents.propose` the model's side; this
module the numbered text, ``analyze``, ``accept`` and ``skip``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from mdmem.agents.candidates import (  # noqa: F401  (the checkpoint's public face)
    BODY_MAX,
    DESCRIPTION_MAX,
    KINDS,
    LANGS,
    MAX_CANDIDATES,
    MIN_DIMENSIONS,
    NAME_MAX,
    PRIORITY,
    TYPES,
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
    store,
    title,
)
from mdmem.agents.propose import (  # noqa: F401
    _MODEL_ANSWER,
    _MODEL_ANSWER_PT,
    MODEL_INPUT_MAX,
    MODEL_TIMEOUT,
    conversation_text,
    propose,
    run_model,
)
from mdmem.agents.scan import (  # noqa: F401
    MARKS,
    PROMPT_MAX,
    RANK,
    Known,
    clean,
    hint_lines,
    key_words,
    memory_protocol,
    scan_prompt,
)
from mdmem.base.errors import MdmemError, UsageError

# ----------------------------------------------------------------------------- text

_TEXT = {
    "en": {"head": "[Checkpoint] This conversation hit {n}/7 dimensions ({marks}). Suggested memories:",
           "quiet": "[Checkpoint] This conversation hit {n}/7 dimensions{marks}: nothing to suggest.",
           "ask": 'Save which? Reply with numbers (e.g. 1,2) or "skip".',
           "evidence": "evidence", "said": "said"},
    "pt": {"head": "[Checkpoint de Sedimentação] Esta conversa acertou {n}/7 dimensões ({marks}), "
                   "sugestão de sedimentação:",
           "quiet": "[Checkpoint de Sedimentação] Esta conversa acertou {n}/7 dimensões{marks}: nada a sugerir.",
           "ask": 'Salvar quais? Responda com os números (ex.: 1,2), ou "pular".',
           "evidence": "evidência", "said": "disse"},
}
_SPEAKERS = {"en": {"user": "user", "assistant": "assistant"}, "pt": {"user": "usuário", "assistant": "assistente"}}


def text(cp: Checkpoint) -> str:
    """The checkpoint as the user (and the model) reads it: the seed's numbered list."""
    t = _TEXT.get(cp.lang, _TEXT["en"])
    marks = "".join(MARKS[d] for d in cp.dimensions if d in MARKS)
    if not cp.candidates:
        return t["quiet"].format(n=len(cp.dimensions), marks=f" ({marks})" if marks else "")
    out = [t["head"].format(n=len(cp.dimensions), marks=marks)]
    for c in cp.candidates:
        out.append(f"{c.number}. [{c.type}] {c.mark} {c.name} — {c.description}")
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
    out.append(t["ask"])
    return "\n".join(out)


# ----------------------------------------------------------------------------- analyse, accept, skip


def analyze(source: str, vault: Path, *, lang: str | None = None, subagents: bool = False,
            session: str | None = None, cwd: Path | None = None, today: str | None = None,
            store_result: bool = True, model: str | None = None, max_bytes: int | None = None,
            timeout: float = MODEL_TIMEOUT) -> Checkpoint:
    """The checkpoint of a whole transcript (``-`` = standard input; at most the last
    ``max_bytes`` of it), stored when it has candidates. Offline by default (the detectors);
    with ``model`` the scan prompt and the conversation go to that command, and its JSON
    answer through :func:`propose`."""
    from mdmem.agents.dimensions import detect, language
    from mdmem.agents.transcript import read

    tr = read(source, subagents=subagents, max_bytes=max_bytes)
    sid = session or tr.session_id or (Path(source).stem if source != "-" else "stdin")
    chosen = lang or language(tr.messages)
    if chosen not in _TEXT:
        raise UsageError(f"--lang must be one of: {', '.join(_TEXT)}")
    claude_md = [Path(p) / "CLAUDE.md" for p in {str(cwd or Path.cwd()), tr.cwd or ""} if p]
    transcript = None if source == "-" else str(Path(source).resolve())
    evidence = detect(tr.messages)
    if model:
        known = Known.read(vault, claude_md, sid)
        prompt = scan_prompt(None, None, known=known, evidence=evidence, lang=chosen, answer=False,
                             topic=[m.text[:2000] for m in tr.messages if m.speaker == "user"][-20:])
        prompt = prompt + "\n\n" + (_MODEL_ANSWER_PT if chosen == "pt" else _MODEL_ANSWER)
        head = "--- A conversa ---" if chosen == "pt" else "--- The conversation ---"
        answer = run_model(model, prompt + f"\n\n{head}\n\n" + conversation_text(tr.messages), timeout)
        result = propose(vault, answer, session=sid, lang=chosen, transcript=transcript, extra_claude_md=claude_md,
                         today=today, store_result=store_result)
        return Checkpoint(result.session, transcript, result.lang, result.dimensions, result.candidates,
                          result.dropped, len(tr.messages), tr.tool_calls, tr.malformed, tr.skipped, result.created,
                          "model")
    known = Known.read(vault, claude_md, sid)
    result = build(evidence, session=sid, transcript=transcript, lang=chosen, known=known, messages=len(tr.messages),
                   tool_calls=tr.tool_calls, malformed=tr.malformed, skipped=tr.skipped, today=today)
    if result.fired and store_result:
        store(vault, result)
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
    skipped: list[int]   # candidate numbers not chosen


def accept(mem, spec: str, session: str | None = None, today: str | None = None,
           allow_secret: bool = False) -> AcceptResult:
    """Save the chosen candidates through :func:`mdmem.ops.capture.save` (each on its
    own: one refused near-duplicate does not stop the others). A candidate whose text looks
    like it holds a secret is refused (nothing written), the refusal says how to save it
    knowingly (``accept N --allow-secret``), and the checkpoint stays pending for that;
    ``allow_secret`` saves it."""
    from mdmem.ops.capture import SecretRefused, save

    data = load(mem.root, session)
    items = data.get("candidates", [])
    if data.get("status") != "pending" and session is None:
        raise MdmemError("no pending checkpoint")
    chosen = numbers(spec, len(items))
    done: list[Accepted] = []
    secret = False
    for n in chosen:
        c = items[n - 1]
        kind = c["type"]
        if kind == "claude-md":
            done.append(Accepted(n, c["dimension"], kind, c["name"], "proposed", None,
                                 "add this line to CLAUDE.md yourself (mdmem does not edit CLAUDE.md)", c.get("line")))
            continue
        try:
            r = save(mem, c["body"], kind, c["name"], c["description"], tags=["checkpoint"], today=today,
                     chosen=c.get("chosen"), rejected=c.get("rejected") or [], paths=c.get("paths") or [],
                     name_as_file=False, allow_secret=allow_secret)  # a suggested title, not a file name
        except SecretRefused as e:
            secret = True
            found = str(e).split("; nothing was written", 1)[0].removeprefix("refusing to save: ")
            done.append(Accepted(n, c["dimension"], kind, c["name"], "refused", None,
                                 f"{found}; nothing was written. If it is not a secret, or to keep it knowingly: "
                                 f"`checkpoint accept {n} --allow-secret` (allow_secret=true over MCP); the "
                                 f"checkpoint stays pending"))
            continue
        except MdmemError as e:
            done.append(Accepted(n, c["dimension"], kind, c["name"], "refused", None, str(e)))
            continue
        done.append(Accepted(n, c["dimension"], kind, c["name"], r.status, r.path,
                             "saved" if r.status == "created" else "already saved: nothing changed", r.index_line))
    mark(mem.root, data, "pending" if secret else "accepted", [asdict(a) for a in done])
    return AcceptResult(data["session"], done, [i for i in range(1, len(items) + 1) if i not in chosen])


@dataclass(frozen=True)
class SkipResult:
    session: str
    discarded: int


def skip(vault: Path, session: str | None = None) -> SkipResult:
    data = load(vault, session)
    mark(vault, data, "skipped")
    return SkipResult(data["session"], len(data.get("candidates", [])))

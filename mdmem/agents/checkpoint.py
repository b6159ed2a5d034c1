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
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mdmem.agents.dimensions import NAMES, SUBSTANTIAL, Evidence, hits
from mdmem.agents.scan import (  # noqa: F401
    _TAGS,
    MARKS,
    PROMPT_MAX,
    RANK,
    Known,
    _slug,
    clean,
    hint_lines,
    key_words,
    memory_protocol,
    scan_prompt,
)
from mdmem.base.errors import MdmemError, UsageError
from mdmem.base.files import write_atomic
from mdmem.base.layout import STATE_DIR, safe_session

MAX_CANDIDATES = 3
MIN_DIMENSIONS = 2
NAME_MAX = 60        # characters of a candidate's name (the subject, a note's title)
DESCRIPTION_MAX = 160
BODY_MAX = 3000
TYPES = {1: "project", 2: "claude-md", 3: "protocol", 4: "decision", 5: "project", 6: "feedback", 7: "reference"}
KINDS = ("project", "claude-md", "protocol", "decision", "feedback", "reference", "user")
PRIORITY = (4, 6, 3, 2, 7, 5, 1)  # ties inside a rank
_GIT_ONLY = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b|\bgit (?:log|rebase|blame|"
                       r"cherry-pick|reset)\b", re.I)
_CODE = re.compile(r"^\s*(?:```|~~~)|^\s*(?:def |class \w+[:(]|import \w|from [\w.]+ import |function |"
                   r"const |let |var |#include|SELECT .* FROM )|[;{}]\s*$", re.M)
_TASK = re.compile(r"\b(?:TODO|WIP|in progress|right now|currently (?:working|fixing|debugging)|this session|"
                   r"next step|half[- ]done)\b", re.I)



@dataclass(frozen=True)
class Candidate:
    number: int
    type: str           # a memory type, or "claude-md": a line to add to CLAUDE.md (never written by mdmem)
    dimension: int
    mark: str
    name: str
    description: str
    body: str
    evidence: list[Evidence]
    chosen: str | None = None
    rejected: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    line: str | None = None  # the CLAUDE.md line of a behaviour rule


@dataclass(frozen=True)
class Dropped:
    name: str
    dimension: int
    reason: str


@dataclass(frozen=True)
class Checkpoint:
    session: str
    transcript: str | None
    lang: str
    dimensions: list[int]           # the dimensions hit
    candidates: list[Candidate]
    dropped: list[Dropped]
    messages: int
    tool_calls: int
    malformed: int = 0
    skipped: dict = field(default_factory=dict)
    created: str = ""
    source: str = "detectors"       # "detectors" (offline) or "model" (proposed by a model)

    @property
    def fired(self) -> bool:
        return bool(self.candidates)


def as_dict(result) -> dict:
    """``dataclasses.asdict`` of a checkpoint result, its evidence as plain dicts (JSON as is)."""
    from mdmem.agents.transcript import Frozen

    def plain(x):
        if isinstance(x, Frozen):
            return {k: plain(v) for k, v in x._asdict().items()}
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [plain(v) for v in x]
        return x

    return plain(asdict(result))


# ----------------------------------------------------------------------------- names

_FILLER = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|also|and|so|but|please|pls|sure|yes|yeah|well|hmm|fyi|btw|heads up|note|important|"
    r"one (?:general )?thing(?: first)?|remember(?: to| that| this)?|i think(?: that)?|i'?d (?:also )?like(?: to)?|"
    r"let'?s(?: also)?(?: make sure)?(?: that)?|make sure(?: that)?|instead|rule|e|também|por favor|acho que|"
    r"lembre(?:-se)?(?: de| que)?|importante|regra|obs)\b[\s,:;.!-]*)+", re.I)
_PLEASE = re.compile(r"[\s,]+(?:please|pls|thanks|por favor|obrigad[oa])[.!]*$", re.I)
_SMILEY = re.compile(r"\s*(?:[:;=]-?[)(DPp3]|[\U0001F600-\U0001F64F\U0001F300-\U0001F5FF\u2600-\u27BF])+\s*$")
_END_WORDS = frozenset("a an the of to and or with for in on at by from that which is are was be as than but so "
                       "its their your our my this these those into onto via per not no any every all "
                       "o a os as de do da dos das e ou com para pra em no na nos nas que por se é um uma "
                       "sem mais muito".split())
_CUTS = (" — ", " – ", " - ", ": ", "; ", ", because ", " because ", ", since ", ", so ", ", which ", ", but ",
         ", ", " porque ", " pois ", ", mas ", " (")


def _trim(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a clause or word boundary, never inside
    a word and never ending on a word such as "the" or "and"; no ellipsis."""
    text = text.strip(" .,;:!-—–")
    if len(text) <= limit:
        return text
    best = max((text.find(cut, 20) for cut in _CUTS if 20 <= text.find(cut, 20) <= limit), default=-1)
    if best >= 20:
        text = text[:best]
    else:
        text = text[:limit + 1].rsplit(" ", 1)[0] if " " in text[:limit + 1] else text[:limit]
    words = text.rstrip(" .,;:!-—–(").split(" ")
    while len(words) > 2 and (words[-1].lower().strip(".,;:()") in _END_WORDS or not words[-1].strip(".,;:()")):
        words.pop()
    return " ".join(words).rstrip(" .,;:!-—–(")


def title(text: str, limit: int = NAME_MAX) -> str:
    """The subject of ``text`` as a name: markup and lead-ins ("ok, also please remember…")
    dropped, the first sentence, at most ``limit`` characters (a clause or whole words),
    capitalised, no trailing punctuation."""
    flat = _FILLER.sub("", clean(text)) or clean(text)
    first = _PLEASE.sub("", _SMILEY.sub("", re.split(r"(?<=[.!?])\s+", flat, maxsplit=1)[0]).rstrip(" .!"))
    name = _trim(first, limit)
    name = re.sub(r"[/\\]", " ", name)  # a note name, not a path
    name = " ".join(name.split())
    return name[:1].upper() + name[1:] if name else name


def one_line(text: str, limit: int = DESCRIPTION_MAX) -> str:
    return _trim(_PLEASE.sub("", _SMILEY.sub("", clean(text))), limit)


# ----------------------------------------------------------------------------- offline candidates


def candidate(number: int, dim: int, evidence: list[Evidence], lang: str, today: str) -> Candidate:
    best = evidence[0]
    detail = best.detail
    pt = lang == "pt"
    said = ("Dito em uma sessão do Claude Code em " if pt else "From a Claude Code session on ") + today + "."
    kind = TYPES[dim]
    chosen = None
    rejected: list[str] = []
    paths: list[str] = []
    line = None
    subject = detail.get("clause") or best.quote
    if detail.get("kind") == "lesson":  # the same failure twice in one session (agents/rules.lessons)
        name = title(("Lição: " if pt else "Lesson: ") + clean(subject))
        desc = one_line(("Falhou duas vezes na sessão: " if pt else "Failed twice in one session: ") + clean(best.quote))
        body = (f"{'Primeira vez' if pt else 'First'}: {clean(detail.get('practice') or '')}\n\n"
                f"{'De novo' if pt else 'Again'}: {clean(best.quote)}\n\n"
                f"{'Por quê: a mesma falha voltou; confira isto antes da próxima vez' if pt else 'Why: the same failure came back; check for it next time'}."
                f"\n\n{said}")
        return Candidate(number, kind, dim, MARKS[dim], name or NAMES[dim].capitalize(), desc, body.strip() + "\n",
                         evidence[:3], None, [], list(detail.get("paths") or []), None)
    if dim == 1:
        summary = detail.get("summary") or best.quote
        name = title(summary)
        desc = one_line(f"{clean(best.quote)} ({best.signal})")
        body = (f"{'Pedido' if pt else 'Asked'}: {clean(detail.get('request_text') or '')}\n\n"
                f"{'Entrega' if pt else 'Delivered'}: {clean(summary)}\n\n{'Prova' if pt else 'Proof'}: "
                f"{clean(best.quote)} ({best.signal}).\n\n{said}")
    elif dim == 2:
        rule = clean(detail.get("rule") or best.quote)
        name = title(subject)
        desc = one_line(("Regra para o CLAUDE.md: " if pt else "Rule for CLAUDE.md: ") + (_FILLER.sub("", clean(subject))
                                                                                          or rule))
        line = "- " + (_FILLER.sub("", rule) or rule)
        body = f"{line}\n\n{said}"
    elif dim == 3:
        rule = clean(detail.get("rule") or best.quote)
        paths = list(detail.get("paths") or [])
        name = title(subject)
        desc = one_line(_FILLER.sub("", clean(subject)) or rule)
        body = "\n".join(f"- {_FILLER.sub('', clean(e.quote)) or clean(e.quote)}" for e in evidence[:3]
                         if e.detail.get("paths") == detail.get("paths")) + f"\n\n{said}"
    elif dim == 4:
        chosen = detail.get("chosen")
        rejected = [r for r in detail.get("rejected") or [] if r]
        why = _BECAUSE.search(clean(best.quote)) or re.search(r":\s+(.+)", clean(best.quote))
        if best.signal.startswith("picked option"):  # an answer to offered options (agents/decisions.picks)
            name = title(f"Escolhemos {chosen}" if pt else f"Chose {chosen}")
            desc = one_line(f"{chosen} {'em vez de' if pt else 'over'} {', '.join(rejected)}")
            body = (f"{'Escolhido' if pt else 'Chosen'}: {clean(detail.get('clause') or chosen)}\n\n"
                    f"{'Descartado' if pt else 'Rejected'}: {'; '.join(clean(r) for r in rejected)}\n\n"
                    f"{'Resposta do usuário' if pt else 'The user answered'}: {clean(best.quote)}\n\n{said}")
            return Candidate(number, kind, dim, MARKS[dim], name, desc, body + "\n", evidence[:1], chosen, rejected,
                             [], None)
        if chosen and rejected:
            name = title(f"Escolhemos {chosen} em vez de {rejected[0]}" if pt else f"Chose {chosen} over {rejected[0]}")
            desc = one_line(f"{chosen} {'em vez de' if pt else 'over'} {rejected[0]}" + (f": {why.group(1)}" if why else ""))
        else:
            name = title(subject)
            desc = one_line(best.quote)
        body = "\n\n".join(clean(e.quote) for e in evidence[:2]) + f"\n\n{said}"
    elif dim == 5:
        name = title(best.quote)
        desc = one_line(best.quote)
        body = clean(best.quote) + f"\n\n{said}"
    elif dim == 6:
        practice = detail.get("practice")
        if detail.get("kind") == "confirmation":
            what = detail.get("what") or practice or best.quote
            name = title(("Manter: " if pt else "Keep: ") + clean(what))
            desc = one_line(("O usuário confirmou: " if pt else "The user confirmed: ") + clean(what))
            body = (f"{'Prática' if pt else 'Practice'}: {clean(practice or '—')}\n\n"
                    f"{'Confirmação do usuário' if pt else 'The user confirmed'}: {clean(best.quote)}\n\n{said}")
        else:
            name = title(subject)
            desc = one_line(("O usuário corrigiu: " if pt else "The user corrected: ") + _FILLER.sub("", clean(subject)))
            why = "Por quê: o usuário corrigiu esta prática" if pt else "Why: the user corrected this practice"
            body = (f"- {_FILLER.sub('', clean(best.quote)) or clean(best.quote)}\n\n{why}"
                    + (f" ({'depois de' if pt else 'after'}: {clean(practice)})" if practice else "") + f".\n\n{said}")
    else:
        kind = "user" if detail.get("about_user") else "reference"
        name = title(best.quote)
        desc = one_line(best.quote)
        body = clean(detail.get("text") or best.quote) + \
            f"\n\n{'Retomado pelo usuário' if pt else 'Taken up by the user'}: {clean(detail.get('reply', ''))}\n\n{said}"
    return Candidate(number, kind, dim, MARKS[dim], name or NAMES[dim].capitalize(), desc, body.strip() + "\n",
                     evidence[:3], chosen, rejected, paths, line)


_BECAUSE = re.compile(r"\b(?:because|since|as|so that|given that|porque|pois|já que|uma vez que)\b[\s:]*(.+)", re.I)


def _secret(text: str) -> str | None:
    """Hook point for the secret detector of issue 12 (``save`` refusing secrets): when the
    vault layer gains one, call it here so ``propose`` drops a candidate holding a secret
    before it is ever stored. ``accept`` saves through ``capture.save``, which will refuse
    secrets on its own; until then this finds nothing."""
    return None


def _do_not_save(text: str, dim: int, code_ok: bool = True) -> str | None:
    if (dim != 7 or not code_ok) and _CODE.search(text):
        return "it is code (do not save: code lives in the code)"
    if _GIT_ONLY.search(text):
        return "it is git history (do not save: `git log` keeps it)"
    if dim not in (1, 5) and _TASK.search(text):
        return "it is task state (do not save: stale by the next session)"
    return None


def build(evidence: Sequence[Evidence], *, session: str, transcript: str | None, lang: str, known: Known,
          messages: int = 0, tool_calls: int = 0, malformed: int = 0, skipped: dict | None = None,
          today: str | None = None) -> Checkpoint:
    """The offline checkpoint for ``evidence``: silent below two dimensions, else at most
    three candidates: one per dimension, rules, feedback and decisions first (then analysis,
    milestones, task closure), then a second rule, decision or correction from another
    message when a slot is left; within a dimension the strongest evidence, the latest
    first among equals (a rule restated later is the complete one)."""
    found = {d: sorted(v, key=lambda e: (-round(e.strength, 2), -e.index)) for d, v in hits(evidence).items()}
    order = sorted(found, key=lambda d: (RANK[d], -round(found[d][0].strength, 1), PRIORITY.index(d)))
    day = today or dt.date.today().isoformat()
    candidates: list[Candidate] = []
    dropped: list[Dropped] = []
    seen: set[str] = set()
    if len(order) >= MIN_DIMENSIONS:
        queue = [(d, found[d][0]) for d in order] + \
            [(d, e) for d in order if RANK[d] == 0 for e in found[d][1:3] if e.strength >= 0.8]
        used: set[int] = set()
        for dim, best in queue:
            if best.index in used and dim in {c.dimension for c in candidates}:
                continue
            if dim == 1 and not (best.strength >= 0.9 and (best.detail.get("tools") or 0) >= SUBSTANTIAL
                                 and best.index == max(e.index for e in found[1])):
                continue  # only the session's latest delivery, and only a substantial one, is worth a memory
            rest = [e for e in found[dim] if e is not best]
            c = candidate(len(candidates) + 1, dim, [best] + rest, lang, day)
            why = known.repeats(c) or _do_not_save(best.quote, dim) or \
                ("a repeat of another candidate" if _slug(c.name) in seen else None)
            if why:
                dropped.append(Dropped(c.name, dim, why))
                continue
            seen.add(_slug(c.name))
            if len(candidates) < MAX_CANDIDATES:
                candidates.append(c)
                used.add(best.index)
            else:
                dropped.append(Dropped(c.name, dim, f"only {MAX_CANDIDATES} candidates at a time"))
    return Checkpoint(session, transcript, lang, sorted(found), candidates, dropped, messages, tool_calls, malformed,
                      dict(skipped or {}), dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))


# ----------------------------------------------------------------------------- the model's side


def _json_payload(data) -> object:
    """The candidates' JSON from what a model wrote: the object itself, or the first JSON
    object or list in the text (a model may wrap it in prose or a ```json fence)."""
    if not isinstance(data, (str, bytes)):
        return data
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = text.strip()
    if not text:
        raise UsageError("no candidates: expected JSON such as {\"candidates\": [...]} on standard input")
    try:
        return json.loads(text)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    for m in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        if isinstance(value, dict) and ("candidates" in value or "dimensions" in value) or isinstance(value, list):
            return value
    raise UsageError("no JSON candidates found in the input (expected {\"candidates\": [...]})")


def _dimension_of(item: dict, kind: str | None) -> int | None:
    value = item.get("dimension")
    if isinstance(value, str):
        value = value.strip()
        value = next((d for d, m in MARKS.items() if value.startswith(m)), None) or \
            (int(value) if value.isdigit() else None)
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 7:
        return value
    return {"claude-md": 2, "protocol": 3, "decision": 4, "feedback": 6, "reference": 7, "user": 7}.get(kind or "")


def _strings(value, limit: int = 10) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    out = [clean(v).strip(" .,;:")[:200] for v in value if isinstance(v, str)]
    return [v for v in out if v][:limit]


def _globs(value) -> list[str]:
    """Path globs as given (``**`` kept), one line each, without control characters."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    out = ["".join(c for c in v if c.isprintable()).strip()[:200] for v in value if isinstance(v, str)]
    return [v for v in out if v][:10]


def propose(vault: Path, data, *, session: str | None = None, lang: str = "en", transcript: str | None = None,
            extra_claude_md: Sequence[Path] = (), today: str | None = None, store_result: bool = True) -> Checkpoint:
    """Candidates a model proposes (JSON: ``{"dimensions": [...], "candidates": [{type,
    dimension, name, description, body, chosen, rejected, paths}]}`` or a bare list), checked
    and stored as the session's pending checkpoint:

    - a type outside :data:`KINDS`, a missing name or body, a secret, code, git history or
      task state: dropped with the reason;
    - names cleaned to the subject in at most 60 characters (:func:`title`: markup, tags and
      ellipses removed, cut at whole words), descriptions to one line;
    - what repeats the vault (a note name, a MEMORY.md or CLAUDE.md line), the session's earlier
      proposals or another candidate: dropped;
    - at most three kept, in the model's order.

    Nothing is stored when no candidate is left."""
    payload = _json_payload(data)
    if isinstance(payload, dict):
        items = payload.get("candidates", [])
        declared = payload.get("dimensions", [])
    elif isinstance(payload, list):
        items, declared = payload, []
    else:
        raise UsageError("expected a JSON object with \"candidates\" (a list), or a list of candidates")
    if not isinstance(items, list):
        raise UsageError("\"candidates\" must be a list")
    if lang not in _TEXT:
        raise UsageError(f"--lang must be one of: {', '.join(_TEXT)}")
    sid = session or "manual"
    known = Known.read(vault, extra_claude_md, sid)
    day = today or dt.date.today().isoformat()
    said = ("Proposto em uma sessão do Claude Code em " if lang == "pt" else "Proposed in a Claude Code session on ") \
        + day + "."
    candidates: list[Candidate] = []
    dropped: list[Dropped] = []
    seen: set[str] = set()
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict):
            dropped.append(Dropped(f"#{n}", 0, "not a JSON object"))
            continue
        kind = item.get("type") if isinstance(item.get("type"), str) else None
        kind = {"milestone": "project", "protocolo": "protocol", "decisão": "decision", "claude.md": "claude-md",
                "claude_md": "claude-md"}.get((kind or "").strip().lower(), (kind or "").strip().lower())
        dim = _dimension_of(item, kind) or 0
        raw_name = item.get("name") if isinstance(item.get("name"), str) else ""
        name = title(raw_name) if raw_name else ""
        if kind not in KINDS:
            dropped.append(Dropped(name or f"#{n}", dim, f"unknown type {item.get('type')!r} (one of {', '.join(KINDS)})"))
            continue
        if not name:
            dropped.append(Dropped(f"#{n}", dim, "no name"))
            continue
        body = item.get("body") if isinstance(item.get("body"), str) else ""
        body = _TAGS.sub("", body).strip()[:BODY_MAX]
        desc_raw = item.get("description") if isinstance(item.get("description"), str) else ""
        description = one_line(desc_raw or body.split("\n", 1)[0])
        if not body and not description:
            dropped.append(Dropped(name, dim, "no body or description"))
            continue
        text_all = " ".join((raw_name, desc_raw, body))
        why = _secret(text_all) or _do_not_save(body or description, dim or 3, code_ok=False)
        if why:
            dropped.append(Dropped(name, dim, why))
            continue
        line = None
        if kind == "claude-md":
            line = "- " + (clean(body.split("\n", 1)[0].lstrip("-* "))[:300] or description)
        chosen = clean(item["chosen"])[:120] if isinstance(item.get("chosen"), str) and item["chosen"].strip() else None
        rejected = _strings(item.get("rejected"))
        paths = [p for p in _globs(item.get("paths")) if not p.startswith(("/", "~")) and ".." not in p.split("/")]
        c = Candidate(len(candidates) + 1, kind, dim or 0, MARKS.get(dim, "·"), name, description,
                      (body or description).rstrip() + f"\n\n{said}\n", [], chosen, rejected, paths, line)
        why = known.repeats(c) or ("a repeat of another candidate" if _slug(name) in seen else None)
        if why:
            dropped.append(Dropped(name, dim, why))
            continue
        if len(candidates) >= MAX_CANDIDATES:
            dropped.append(Dropped(name, dim, f"only {MAX_CANDIDATES} candidates at a time"))
            continue
        seen.add(_slug(name))
        candidates.append(c)
    dims = sorted({d for d in declared if isinstance(d, int) and 1 <= d <= 7} if isinstance(declared, list) else set())
    dims = sorted(set(dims) | {c.dimension for c in candidates if c.dimension})
    result = Checkpoint(sid, transcript, lang, dims, candidates, dropped, 0, 0, 0, {},
                        dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "model")
    if result.fired and store_result:
        store(vault, result)
    return result


MODEL_INPUT_MAX = 120_000  # characters of conversation handed to a model command (the first turns + the latest)
MODEL_TIMEOUT = 600.0


def conversation_text(messages, limit: int = MODEL_INPUT_MAX) -> str:
    """The user/assistant text of a conversation for a model, message numbers as mdmem counts
    them, tool calls as a count; within ``limit`` characters: the first two messages and as
    many of the latest as fit."""
    rows = []
    for m in messages:
        who = "user (typed while you worked)" if m.kind == "queued" else m.speaker
        tools = f" [{len(m.tools)} tool call{'s' if len(m.tools) != 1 else ''}]" if m.tools else ""
        if m.text or tools:
            rows.append(f"[msg {m.index} · {who}]{tools}\n{m.text[:8000]}")
    if sum(len(r) + 2 for r in rows) <= limit:
        return "\n\n".join(rows)
    head = rows[:2]
    used = sum(len(r) + 2 for r in head) + 40
    tail: list[str] = []
    for r in reversed(rows[2:]):
        if used + len(r) + 2 > limit:
            break
        tail.append(r)
        used += len(r) + 2
    skipped = len(rows) - len(head) - len(tail)
    return "\n\n".join(head + [f"[… {skipped} messages left out …]"] + list(reversed(tail)))


def run_model(command: str, text: str, timeout: float = MODEL_TIMEOUT) -> str:
    """Run ``command`` (split like a shell would, run without one) with ``text`` on standard
    input; its standard output. Any command that answers JSON candidates works: ``claude -p``,
    ``llm``, a local runner."""
    import shlex
    import subprocess

    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise UsageError(f"--model: cannot split {command!r}: {e}") from None
    if not argv:
        raise UsageError("--model needs a command, e.g. --model 'claude -p'")
    try:
        proc = subprocess.run(argv, input=text.encode("utf-8"), capture_output=True, timeout=timeout)
    except FileNotFoundError:
        raise MdmemError(f"--model: command not found: {argv[0]}") from None
    except subprocess.TimeoutExpired:
        raise MdmemError(f"--model: {argv[0]} gave no answer within {timeout:.0f} s") from None
    except OSError as e:
        raise MdmemError(f"--model: cannot run {argv[0]}: {e.strerror or e}") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise MdmemError(f"--model: {argv[0]} exited with {proc.returncode}" + (f": {err[-1][:200]}" if err else ""))
    return proc.stdout.decode("utf-8", "replace")


_MODEL_ANSWER = """\
Answer with JSON only, no prose: {"dimensions": [the dimension numbers hit], "candidates": [{"type", "dimension", \
"name", "description", "body", "chosen", "rejected", "paths"}]}, or {"dimensions": [], "candidates": []} when fewer \
than 2 dimensions hit."""
_MODEL_ANSWER_PT = """\
Responda só com JSON, sem texto: {"dimensions": [os números das dimensões atingidas], "candidates": [{"type", \
"dimension", "name", "description", "body", "chosen", "rejected", "paths"}]}, ou {"dimensions": [], "candidates": []} \
quando menos de 2 dimensões forem atingidas. Escreva name, description e body em português."""


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


# ----------------------------------------------------------------------------- storage


def _folder(vault: Path) -> Path:
    return vault / STATE_DIR / "checkpoints"


def store(vault: Path, cp: Checkpoint) -> Path:
    """Keep the candidates until ``accept`` or ``skip`` (replacing any earlier
    pending proposal of the session; earlier candidate names are remembered so
    a later checkpoint does not propose them again)."""
    folder = _folder(vault)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{safe_session(cp.session)}.json"
    old = load(vault, cp.session, missing_ok=True)
    history = list(old.get("history", [])) + [c.get("name", "") for c in old.get("candidates", [])]
    data = as_dict(cp) | {"status": "pending", "history": history[-50:], "saved": int(time.time())}
    write_atomic(path, (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode())
    return path


def load(vault: Path, session: str | None = None, missing_ok: bool = False) -> dict:
    """A session's stored checkpoint; without ``session`` the newest pending one."""
    folder = _folder(vault)
    if session is None:
        pending = []
        for p in folder.glob("*.json") if folder.is_dir() else ():
            try:
                data = json.loads(p.read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and data.get("status") == "pending":
                pending.append((data.get("saved", 0), p.stat().st_mtime_ns, data))
        if not pending:
            if missing_ok:
                return {}
            raise MdmemError("no pending checkpoint: run `mdmem checkpoint` first")
        return max(pending, key=lambda x: (x[0], x[1]))[2]
    path = folder / f"{safe_session(session)}.json"
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        if missing_ok:
            return {}
        raise MdmemError(f"no checkpoint for session {session!r} in {folder}") from None
    except (OSError, ValueError) as e:
        if missing_ok:
            return {}
        raise MdmemError(f"cannot read the checkpoint {path}: {e}") from None
    return data if isinstance(data, dict) else {}


def mark(vault: Path, data: dict, status: str, results: list | None = None) -> None:
    path = _folder(vault) / f"{safe_session(data['session'])}.json"
    data = dict(data) | {"status": status, "results": results or [], "saved": int(time.time())}
    write_atomic(path, (json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n").encode())


def numbers(spec: str, count: int) -> list[int]:
    """``"1,3"`` / ``"1 3"`` / ``"all"`` → candidate numbers, each checked."""
    spec = spec.strip().lower()
    if spec in ("all", "todos", "todas"):
        return list(range(1, count + 1))
    out: list[int] = []
    for part in re.split(r"[,\s]+", spec):
        if not part:
            continue
        if not part.isdigit() or not 1 <= int(part) <= count:
            raise UsageError(f"{part!r} is not a candidate number (1-{count})")
        if int(part) not in out:
            out.append(int(part))
    if not out:
        raise UsageError("which candidates? give numbers such as 1,2 (or skip with `mdmem checkpoint skip`)")
    return out


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

"""The model's side of the checkpoint: :func:`propose` checks the candidates a model answers
(JSON) and stores them as the pending checkpoint; :func:`run_model` and :func:`conversation_text`
hand the scan prompt and the conversation to any command that answers JSON
(``mdmem checkpoint --model CMD``).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from mdmem.agents.checkpoint.candidates import (
    BODY_MAX,
    KINDS,
    LANGS,
    MAX_CANDIDATES,
    Candidate,
    Checkpoint,
    Dropped,
    _do_not_save,
    _secret,
    one_line,
    secret_of,
    store,
    title,
)
from mdmem.agents.checkpoint.scan import EXAMPLE_JSON, FIELDS, FIELDS_PT, MARKS, Known, _slug, clean, strip_tags
from mdmem.base.errors import MdmemError, UsageError


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


def _text(item: dict, key: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else ""


def propose(vault: Path, data, *, session: str | None = None, lang: str = "en", transcript: str | None = None,
            extra_claude_md: Sequence[Path] = (), today: str | None = None, store_result: bool = True,
            origin: str = "propose") -> Checkpoint:
    """Candidates a model proposes (JSON: ``{"dimensions": [...], "candidates": [{type,
    dimension, name, description, body, chosen, rejected, paths}]}`` or a bare list), checked
    and stored as the session's pending checkpoint:

    - a type outside :data:`KINDS`, a missing name or body, a secret, code, git history or
      task state: dropped with the reason;
    - names cleaned to the subject in at most 60 characters (:func:`title`: markup, tags and
      ellipses removed, cut at whole words), descriptions to one line;
    - what repeats the vault (a note name, a MEMORY.md or CLAUDE.md line, a saved note by
      :func:`mdmem.text.similar.same_memory`), the session's earlier proposals or another candidate:
      dropped;
    - at most three kept, in the model's order.

    Nothing is stored when no candidate is left; what is stored records ``origin``
    (:data:`mdmem.agents.checkpoint.candidates.ORIGINS`: "hand" for ``mdmem checkpoint TRANSCRIPT --model``, which the
    card does not show)."""
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
    if lang not in LANGS:
        raise UsageError(f"--lang must be one of: {', '.join(LANGS)}")
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
        raw_name = _text(item, "name")
        name = title(raw_name) if raw_name else ""
        if kind not in KINDS:
            dropped.append(Dropped(name or f"#{n}", dim, f"unknown type {item.get('type')!r} (one of {', '.join(KINDS)})"))
            continue
        if not name:
            dropped.append(Dropped(f"#{n}", dim, "no name"))
            continue
        body = strip_tags(_text(item, "body")).strip()[:BODY_MAX]
        desc_raw = _text(item, "description")
        description = one_line(desc_raw or body.split("\n", 1)[0])
        if not body and not description:
            dropped.append(Dropped(name, dim, "no body or description"))
            continue
        text_all = " ".join((raw_name, desc_raw, body))
        why = _secret(text_all) or _do_not_save(body or description, dim or 3, code_ok=False,
                                                   claim=f"{raw_name}\n{desc_raw or description}")
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
        c = replace(c, secret=secret_of(c))  # kept, and marked in the list: the user decides (_secret)
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
        store(vault, result, origin)
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


# `checkpoint --model`'s answer line: what "say nothing" is for a command that must print JSON, an example and
# what each field holds (the hook's prompt says the same). A model that read the first wording (a list of keys
# only) found it ambiguous: whether "do nothing and say nothing" meant printing nothing, what `dimension`,
# `chosen`/`rejected` and `paths` hold, how long a name may be.
_MODEL_ANSWER = ("""\
Answer with JSON only, no prose. "Do nothing and say nothing" means answering {"dimensions": [], "candidates": []}; \
otherwise list the dimension numbers hit and at most 3 candidates, e.g.
""" + EXAMPLE_JSON + "\n" + FIELDS + """ dimension: the number of the dimension it hits. chosen, rejected \
(decision only): the option taken and the ones turned down. A claude-md candidate is a line for the user to add \
to CLAUDE.md.""")
_MODEL_ANSWER_PT = ("""\
Responda só com JSON, sem texto. "Não faça nada e não diga nada" quer dizer responder \
{"dimensions": [], "candidates": []}; senão, liste os números das dimensões atingidas e no máximo 3 candidatas, ex.:
""" + EXAMPLE_JSON + "\n" + FIELDS_PT + """ dimension: o número da dimensão atingida. chosen, rejected \
(só decision): a opção escolhida e as descartadas. Uma candidata claude-md é uma linha para o usuário pôr no \
CLAUDE.md.""")

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
    Candidate,
    Checkpoint,
    Dropped,
    do_not_save,
    one_line,
    store,
    title,
)
from mdmem.agents.checkpoint.scan import (
    EXAMPLE_JSON,
    FIELDS,
    FIELDS_PT,
    MARKS,
    Known,
    clean,
    key_slug,
    key_words,
    strip_tags,
)
from mdmem.base.errors import UsageError

FOOTERS = {"en": "Proposed in a Claude Code session on ", "pt": "Proposto em uma sessão do Claude Code em "}


def fact_of(body: str) -> str:
    """A suggestion's body without the line saying where it was proposed (what a saved note may already say)."""
    head, _, last = body.rstrip().rpartition("\n\n")
    return head if head and last.startswith(tuple(FOOTERS.values())) else body


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


def _exact_duplicate(known: Known, c: Candidate) -> str | None:
    """The saved note ``c`` repeats exactly (the same name, or the same type and description), named; else None."""
    slug = key_slug(c.name)
    for stem in known.notes:
        if slug and key_slug(stem.replace("-", " ")) == slug:
            return f"an exact duplicate of the saved note {stem}.md"
    desc = " ".join(c.description.split()).casefold()
    for path, note in known.saved():
        if note.get("type") == c.type and (key_slug(str(note.get("name") or "")) == slug or
                                           (desc and " ".join(str(note.get("description") or "").split()).casefold()
                                            == desc)):
            return f"an exact duplicate of the saved note {path.rsplit('/', 1)[-1]}"
    return None


def _doubt(known: Known, c: Candidate, earlier: set[str], saved: bool = True) -> str | None:
    """What mdmem doubts about ``c`` (shown beside it; the user decides): what the vault or CLAUDE.md may say
    already, a near-same saved note (unless not ``saved``: the candidate is marked as the note it updates), or a
    name proposed earlier in the session."""
    if key_slug(c.name) in earlier:
        return "proposed earlier in this session"
    if not saved:
        return None
    mine = key_words(c.name + " " + (c.line or c.description))
    core = key_words(c.line or c.description)
    for words in known.lines:
        if mine and (len(core & words) / max(1, len(core)) >= 0.8 or len(mine & words) / len(mine | words) >= 0.5):
            return "MEMORY.md or CLAUDE.md may say this already"
    return known.same_note(c)


def repeats_of(mem, scope, name: str, body: str, kind: str, judge=None,
               answers: dict | None = None) -> tuple[str, str | None] | None:
    """The saved memory a candidate would say again, among the notes ``scope`` sees: the test ``save`` runs
    before writing (:func:`mdmem.ops.repeats.repeated`: the same content, name, wording or meaning, with the
    vault's vectors when it has them), on its body without the line saying where it was proposed, so that the
    list says up front what ``accept`` will do (and ``accept`` finds a note saved since). None without ``mem``
    or for a CLAUDE.md line (never saved). ``judge``: the user's model command (:mod:`mdmem.ops.judge`);
    ``answers``: its answers kept with the suggestion (:func:`mdmem.ops.judge.ask`), added to when it is asked."""
    if mem is None or kind == "claude-md":
        return None
    from mdmem.ops.repeats import repeated

    return repeated(mem, "", name, body.rsplit("\n\n", 1)[0].strip(), kind=kind, scope=scope, judge=judge,
                    answers=answers)


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def _replaces(payload) -> set[int]:
    value = payload.get("replaces") if isinstance(payload, dict) else None
    return {v for v in value if isinstance(v, int) and not isinstance(v, bool)} if isinstance(value, list) else set()


def propose(vault: Path, data, *, session: str | None = None, lang: str = "en", transcript: str | None = None,
            extra_claude_md: Sequence[Path] = (), today: str | None = None, store_result: bool = True,
            origin: str = "propose", scope=None, mem=None, conversation_date: str | None = None,
            judge=None) -> Checkpoint:
    """Candidates a model proposes (JSON: ``{"dimensions": [...], "candidates": [{type,
    dimension, name, description, body, chosen, rejected, paths}], "replaces": [N]}`` or a bare list),
    checked and stored as the session's pending checkpoint. The model judges; mdmem validates:

    - dropped, each with its reason in the answer: a malformed entry (not an object, a type outside
      :data:`KINDS`, no name, no body or description), a secret (the kind named, never the value: nothing
      holding it is stored), an exact duplicate of a saved note (named), the same name twice in one answer;
    - flagged and kept (the user decides): what looks like code, git history, task state or a file path,
      what MEMORY.md or CLAUDE.md may say already, a near-same saved note;
    - names cleaned to the subject in at most 60 characters (:func:`title`), descriptions to one line;
    - revise: the session's pending candidates of the same name, or numbered in ``replaces``, are replaced;
      the others stay, and the result lists every candidate pending now, numbered again from 1.

    Nothing is stored when no candidate is pending; what is stored records ``origin``
    (:data:`mdmem.agents.checkpoint.candidates.ORIGINS`: "hand" for ``mdmem checkpoint TRANSCRIPT --model``, which the
    card does not show).

    ``scope`` (:class:`mdmem.base.projects.Scope`, :func:`mdmem.agents.checkpoint.scan.scope_of`): the memory
    compared against is the global one and the session's project's, never another project's (None: every note).
    With ``mem`` (the open vault), a candidate that repeats a saved note by name or wording is marked with that
    note (``same``): the list says "same as [[X]]: accepting updates X" and ``accept`` does exactly that; one that
    may only mean the same is flagged "may say what [[X]] says" and accepting it saves a new note (decision
    096); one that repeats a note word for word is dropped, named.

    What is stored records the scope's project (None: global), which the card shows it in and ``accept`` saves into
    (:func:`mdmem.agents.checkpoint.review.place` finds the session's), and ``conversation_date``, the date the
    accepted notes are ``created`` (else the day it is stored)."""
    from mdmem.agents.checkpoint.candidates import about, load
    from mdmem.ops.repeats import is_guess
    from mdmem.text.secrets import describe, find, redact

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
    known = Known.read(vault, extra_claude_md, sid, scope=scope)
    old = load(vault, sid, missing_ok=True) if store_result else {}
    pending_old = [c for c in old.get("candidates", []) if isinstance(c, dict)] \
        if old.get("status") == "pending" and old.get("origin") == origin else []
    earlier = {key_slug(n) for n in old.get("history", []) if isinstance(n, str)}
    day = conversation_date or today or dt.date.today().isoformat()
    said = FOOTERS[lang] + day + "."
    candidates: list[Candidate] = []
    dropped: list[Dropped] = []
    seen: set[str] = set()
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict):
            dropped.append(Dropped(f"#{n}", 0, "malformed: not a JSON object"))
            continue
        kind = item.get("type") if isinstance(item.get("type"), str) else None
        kind = {"milestone": "project", "protocolo": "protocol", "decisão": "decision", "claude.md": "claude-md",
                "claude_md": "claude-md"}.get((kind or "").strip().lower(), (kind or "").strip().lower())
        dim = _dimension_of(item, kind) or 0
        raw_name = _text(item, "name")
        name = title(redact(raw_name)) if raw_name else ""
        if kind not in KINDS:
            dropped.append(Dropped(name or f"#{n}", dim,
                                   f"malformed: unknown type {item.get('type')!r} (one of {', '.join(KINDS)})"))
            continue
        if not name:
            dropped.append(Dropped(f"#{n}", dim, "malformed: no name"))
            continue
        body = strip_tags(_text(item, "body")).strip()[:BODY_MAX]
        desc_raw = _text(item, "description")
        description = one_line(desc_raw or body.split("\n", 1)[0])
        if not body and not description:
            dropped.append(Dropped(name, dim, "malformed: no body or description"))
            continue
        chosen = clean(item["chosen"])[:120] if isinstance(item.get("chosen"), str) and item["chosen"].strip() else None
        rejected = _strings(item.get("rejected"))
        found = next((f for f in (find(t) for t in (body, raw_name, desc_raw, chosen or "", "\n".join(rejected)) if t)
                      if f), None)
        if found:  # never stored, never shown: the kind, not the value
            dropped.append(Dropped(name, dim, f"holds a secret ({describe(found)}): not kept; propose it again "
                                              "without the secret"))
            continue
        line = None
        if kind == "claude-md":
            line = "- " + (clean(body.split("\n", 1)[0].lstrip("-* "))[:300] or description)
        paths = [p for p in _globs(item.get("paths")) if not p.startswith(("/", "~")) and ".." not in p.split("/")]
        c = Candidate(len(candidates) + 1, kind, dim or 0, MARKS.get(dim, "·"), name, description,
                      (body or description).rstrip() + f"\n\n{said}\n", [], chosen, rejected, paths, line)
        if key_slug(name) in seen:
            dropped.append(Dropped(name, dim, "the same name twice in this answer"))
            continue
        exact = _exact_duplicate(known, c)
        judged: dict = {}  # what the judge answers, kept with the suggestion: accept does not ask it again
        twin = None if exact else repeats_of(mem, scope, c.name, c.body, c.type, judge, judged)
        if twin is not None and twin[1] is None:
            exact = f"an exact duplicate of the saved note {twin[0].rsplit('/', 1)[-1]}"
        if exact:
            dropped.append(Dropped(name, dim, exact))
            continue
        same = twin[0] if twin and not is_guess(twin[1]) else None  # a guess by meaning is only said (decision 096)
        guess = f"may say what [[{_stem(twin[0])}]] says (the same meaning, a guess)" if twin and not same else None
        flag = do_not_save(body or description, dim or 3, code_ok=False,
                           claim=f"{raw_name}\n{desc_raw or description}") or guess or _doubt(known, c, earlier,
                                                                                            not same)
        seen.add(key_slug(name))
        candidates.append(replace(c, flag=flag, same=same, judged=judged or None))
    replaced = _replaces(payload)
    kept = [c for c in pending_old if c.get("number") not in replaced and key_slug(str(c.get("name", ""))) not in seen]
    merged = [_candidate(c) for c in kept] + candidates
    merged = [replace(c, number=i) for i, c in enumerate(merged, 1)]
    dims = sorted({d for d in declared if isinstance(d, int) and 1 <= d <= 7} if isinstance(declared, list) else set())
    dims = sorted(set(dims) | {c.dimension for c in merged if c.dimension})
    result = Checkpoint(sid, transcript or old.get("transcript"), lang, dims, merged, dropped, 0, 0, 0, {},
                        dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "model")
    if result.fired and store_result:
        store(vault, result, origin, about(scope, conversation_date))
    return result


def _candidate(d: dict) -> Candidate:
    """A stored candidate (a dict, as :func:`mdmem.agents.checkpoint.candidates.store` keeps it) as a :class:`Candidate`."""
    return Candidate(int(d.get("number", 0)), str(d.get("type", "")), int(d.get("dimension", 0) or 0),
                     str(d.get("mark", "·")), str(d.get("name", "")), str(d.get("description", "")),
                     str(d.get("body", "")), [], d.get("chosen"), list(d.get("rejected") or []),
                     list(d.get("paths") or []), d.get("line"), d.get("secret"), d.get("flag"),
                     d.get("same") if isinstance(d.get("same"), str) else None,
                     d.get("judged") if isinstance(d.get("judged"), dict) else None)


MODEL_INPUT_MAX = 120_000  # characters of conversation handed to a model command (the first turns + the latest)
MODEL_TIMEOUT = 600.0


MESSAGE_MAX = 8000  # characters of one message a model is shown: a longer one loses its middle, not its end


def elide(text: str, limit: int = MESSAGE_MAX) -> str:
    """``text`` within ``limit`` characters: its beginning and its end, the middle left out and said so."""
    if len(text) <= limit:
        return text
    head, tail = limit * 5 // 8, limit * 3 // 8
    return f"{text[:head].rstrip()}\n[… {len(text) - head - tail} characters left out …]\n{text[-tail:].lstrip()}"


def conversation_text(messages, limit: int = MODEL_INPUT_MAX) -> str:
    """The user/assistant text of a conversation for a model, message numbers as mdmem counts
    them, tool calls as a count; every word the user typed, labelled by how it reached the agent (typed while
    it worked, or when rejecting a tool call), a message the user sent again shown once, a tool's short error as
    the tool's; a long message elided in the middle. Within ``limit`` characters: the first two messages and as
    many of the latest as fit."""
    rows = []
    said: set[str] = set()
    for m in messages:
        if m.speaker == "user":
            key = " ".join(m.text.split())
            if key in said:
                continue  # a queued message delivered again, a replayed prompt: once
            said.add(key)
        who = {"queued": "user (typed while you worked)", "tool-error": "tool error (not the user)",
               "prompt": "assistant (a prompt to a subagent)"}.get(m.kind, m.speaker)
        tools = f" [{len(m.tools)} tool call{'s' if len(m.tools) != 1 else ''}]" if m.tools else ""
        if m.text or tools:
            rows.append(f"[msg {m.index} · {who}]{tools}\n{elide(m.text)}")
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
    """Run ``command`` with ``text`` on standard input; its standard output (:func:`mdmem.base.command.run`). Any
    command that answers JSON candidates works: ``claude -p``, ``llm``, a local runner."""
    from mdmem.base.command import run

    return run(command, text, timeout, "--model")


# `checkpoint --model`'s answer line: what "say nothing" is for a command that must print JSON, an example and
# what each field holds (the hook's prompt says the same). A model that read the first wording (a list of keys
# only) found it ambiguous: whether "do nothing and say nothing" meant printing nothing, what `dimension`,
# `chosen`/`rejected` and `paths` hold, how long a name may be.
MODEL_ANSWER = ("""\
Answer with JSON only, no prose. "Do nothing and say nothing" means answering {"dimensions": [], "candidates": []}; \
otherwise list the dimension numbers hit and at most 3 candidates, e.g.
""" + EXAMPLE_JSON + "\n" + FIELDS + """ dimension: the number of the dimension it hits. chosen, rejected \
(decision only): the option taken and the ones turned down. A claude-md candidate is a line for the user to add \
to CLAUDE.md.""")
MODEL_ANSWER_PT = ("""\
Responda só com JSON, sem texto. "Não faça nada e não diga nada" quer dizer responder \
{"dimensions": [], "candidates": []}; senão, liste os números das dimensões atingidas e no máximo 3 candidatas, ex.:
""" + EXAMPLE_JSON + "\n" + FIELDS_PT + """ dimension: o número da dimensão atingida. chosen, rejected \
(só decision): a opção escolhida e as descartadas. Uma candidata claude-md é uma linha para o usuário pôr no \
CLAUDE.md.""")

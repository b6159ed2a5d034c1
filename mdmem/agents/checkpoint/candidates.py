"""Checkpoint candidates: their records, their names (the subject in at most 60 characters, whole
words, no tags or ellipses), the offline path's choice of at most three of the standing rules the user
stated (:func:`build`), what is never saved, and the pending checkpoints kept in
``<vault>/.mdmem/checkpoints/<session>.json`` until ``accept`` or ``skip``. The model's side is
:mod:`mdmem.agents.checkpoint.propose`; both are put together in :mod:`mdmem.agents.checkpoint.consolidate`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from mdmem.agents.checkpoint.evidence import NAMES, Evidence, hits
from mdmem.agents.checkpoint.scan import MARKS, Known, clean, key_slug
from mdmem.base.errors import MdmemError, UsageError
from mdmem.base.files import read_outside, write_atomic
from mdmem.base.layout import safe_session
from mdmem.base.state import state_folder, state_path
from mdmem.text.classify import CODE  # code is not memory: the rule `save` warns with

LANGS = ("en", "pt")  # the languages of the checkpoint's text and of the scan prompt
MAX_CANDIDATES = 3
RULE = 2  # the one dimension suggested offline: a behaviour rule the user stated (decision 075)
# a rule this strong is worth a suggestion on its own (what fires the Stop hook alone, agents/stop)
ALONE = 0.8
NAME_MAX = 60        # characters of a candidate's name (the subject, a note's title)
DESCRIPTION_MAX = 160
BODY_MAX = 3000
KINDS = ("project", "claude-md", "protocol", "decision", "feedback", "reference", "user")
_GIT_ONLY = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b|\bgit (?:log|rebase|blame|"
                       r"cherry-pick|reset)\b", re.I)
# task state as `save` warns of it (text/classify), but for "for now": "for now that just adds complexity" is a
# decision (agents/decisions), not a task's state
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
    secret: str | None = None  # what looks like a secret in it ("line 1: a GitHub token"): `accept` refuses it
    flag: str | None = None    # what mdmem doubts about a model's candidate (git history, said already): shown
    same: str | None = None    # the saved note it repeats (vault path): accepting it updates that note
    judged: dict | None = None  # the judge's answers about it, by what it read (mdmem.ops.judge.ask): accept reuses


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


def as_dict(result, shown: bool = False) -> dict:
    """``dataclasses.asdict`` of a checkpoint result, its evidence as plain dicts (JSON as is). ``shown``: as a person
    or a model is shown it (``--json``, MCP), without what is kept for mdmem alone (the judge's answers by the hash of
    what it read: decision 124)."""
    from mdmem.agents.checkpoint.transcript import Frozen

    def plain(x):
        if isinstance(x, Frozen):
            return {k: plain(v) for k, v in x._asdict().items()}
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [plain(v) for v in x]
        return x

    out = plain(asdict(result))
    if shown:
        for c in out.get("candidates") or ():
            c.pop("judged", None)
    return out


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
                       "sem mais muito "
                       # a name cut after a conjunction ("…the script to fail if"): the cut clause says nothing
                       "if when while whether unless because since quando porque enquanto".split())
# a modal is dropped only after "and"/"or"/"but" ("…critical for security and should"): "how we should" stays
_MODALS = frozenset("should would could must will can may might shall deve devem pode podem".split())
_ADVERBS = re.compile(r"\s+(?:specifically|really|actually|basically|literally|definitely|probably|ideally|"
                      r"explicitly|honestly|simply|realmente|basicamente|literalmente|provavelmente|idealmente)\b", re.I)
_CUTS = (". ", '." ', " since ", " — ", " – ", " - ", ": ", "; ", ", because ", " because ", ", since ", ", so ", ", which ", ", but ",
         ", ", " porque ", " pois ", ", mas ", " (")


def _trim(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a clause or word boundary, never inside
    a word and never ending on a word such as "the" or "and"; no ellipsis."""
    text = text.strip(" .,;:!-—–")
    if len(text) <= limit:
        return text
    text = _ADVERBS.sub("", text)  # words that say nothing of the subject go before any word that does
    if len(text) <= limit:
        return text
    # the last clause boundary that fits (a cut as early as the first ", " drops what the text says)
    best = max((text.rfind(cut, 20, limit + len(cut)) for cut in _CUTS), default=-1)
    if best >= max(20, limit // 2):  # (a clause cut in the first half loses more than a cut between words)
        text = text[:best]
    else:
        text = text[:limit + 1].rsplit(" ", 1)[0] if " " in text[:limit + 1] else text[:limit]
    words = text.rstrip(" .,;:!-—–(").split(" ")
    while len(words) > 2 and (words[-1].lower().strip(".,;:()") in _END_WORDS or not words[-1].strip(".,;:()") or
                              words[-1].lower() in _MODALS and words[-2].lower() in ("and", "or", "but", "e", "ou", "mas")):
        words.pop()
    return " ".join(words).rstrip(" .,;:!-—–(")


_EMPHASIS = re.compile(r"(?<![\w*])[*_](\S(?:[^*_]*\S)?)[*_](?![\w*])")  # *does*, _do_: the word


def _unaside(text: str) -> str:
    """``text`` without the parenthesis of an aside that opens it: never closed ("(don't add too many,
    just the core issue(s)"), or around the whole sentence."""
    if text.startswith("(") and text.count("(") > text.count(")"):
        return text[1:]
    if text.startswith("(") and text.endswith(")") and text.count("(") == 1:
        return text[1:-1]
    return text


_QUOTES = "\"'“”‘’"


def _unquote(text: str) -> str:
    """A sentence in quotes without them; a name that only begins with a quoted word keeps both quotes
    ('"Claude Tmux" app launches …' lost its first quote only, when both ends were stripped)."""
    text = text.strip()
    if len(text) > 1 and text[0] in _QUOTES and text[-1] in _QUOTES and text[1:-1].count(text[0]) == 0:
        return text[1:-1].strip()
    return text


def title(text: str, limit: int = NAME_MAX) -> str:
    """The subject of ``text`` as a name: markup and lead-ins ("ok, also please remember…")
    dropped, the first sentence, at most ``limit`` characters (a clause or whole words),
    capitalised, no trailing punctuation."""
    flat = _FILLER.sub("", clean(text)) or clean(text)
    first = _PLEASE.sub("", _SMILEY.sub("", re.split(r"(?<=[.!?])\s+", flat, maxsplit=1)[0]).rstrip(" .!?"))
    first = _EMPHASIS.sub(r"\1", _unquote(first))  # a quoted sentence: the name is its words
    first = _unaside(first)
    name = _trim(first, limit)
    name = re.sub(r"[/\\]", " ", name)  # a note name, not a path
    name = " ".join(name.split())
    return name[:1].upper() + name[1:] if name else name


def one_line(text: str, limit: int = DESCRIPTION_MAX) -> str:
    return _trim(_PLEASE.sub("", _SMILEY.sub("", clean(text))), limit)


# ----------------------------------------------------------------------------- offline candidates


def candidate(number: int, evidence: list[Evidence], lang: str, today: str) -> Candidate:
    """The offline suggestion for a standing rule the user stated (``evidence[0]``, the others the same rule's
    weaker evidence): a line for CLAUDE.md (②), its name the rule's subject."""
    best = evidence[0]
    said = ("Dito em uma sessão do Claude Code em " if lang == "pt" else "From a Claude Code session on ") + today + "."
    subject = best.detail.get("clause") or best.quote
    rule = _unaside(clean(best.detail.get("rule") or best.quote))
    desc = one_line(("Regra para o CLAUDE.md: " if lang == "pt" else "Rule for CLAUDE.md: ") +
                    (_FILLER.sub("", _unaside(clean(subject))) or rule))
    line = "- " + (_FILLER.sub("", rule) or rule)
    return Candidate(number, "claude-md", RULE, MARKS[RULE], title(subject) or NAMES[RULE].capitalize(), desc,
                     f"{line}\n\n{said}".strip() + "\n", evidence[:3], None, [], [], line)


def secret_dropped(text: str) -> str | None:
    """Why ``propose`` drops a candidate for a secret: never, on purpose. A candidate that looks
    like it holds one is kept and shown marked (:func:`secret_of`, :data:`SECRET_MARK`), and ``accept``
    refuses it (nothing written, the reason and ``accept N --allow-secret --session S --vault V`` in its
    message, that suggestion left pending), so the user decides knowingly rather than never seeing it
    (:func:`mdmem.agents.checkpoint.consolidate.accept`)."""
    return None


# the mark a suggestion holding what looks like a secret carries in the numbered list and on the card: the user
# saw no mark, picked it, and only then was it refused (a new user's trial); {flag} is `--allow-secret` (the
# user's, on the command line: never over MCP)
SECRET_MARK = {"en": "(holds a secret: refused unless {flag})", "pt": "(contém um segredo: recusada sem {flag})"}


def secret_of(c: Candidate) -> str | None:
    """What in ``c`` looks like a secret, as ``save`` would refuse it (its body, then its name, description
    and options; :func:`mdmem.ops.guard.refuse_secrets`), e.g. ``line 1: a GitHub token``; None when
    nothing does, and for a CLAUDE.md line (mdmem never writes it: the user copies it)."""
    from mdmem.text.secrets import describe, find

    if c.type == "claude-md":
        return None
    for text in (c.body, c.name, c.description, c.chosen or "", "\n".join(c.rejected)):
        found = find(text) if text else []
        if found:
            return describe(found)
    return None


def redacted(e: Evidence) -> Evidence:
    """``e`` with every secret in its quote and its detail's texts (chosen, rejected, the clause, the request,
    ...) replaced by what it is, "[GitHub token redacted]" (:func:`mdmem.text.secrets.redact`). An offline
    suggestion is made of these texts, and a user's message that held a token once made "Chose use ghp_… over
    …" (a new user's trial), on the card, in the pending checkpoint and, once accepted, in a note. Nobody
    chose to keep that token, so it never reaches the suggestion, rather than being marked and refused at
    ``accept`` as a secret a model proposed is (:func:`secret_dropped`): the rest of the suggestion stays useful."""
    from mdmem.agents.checkpoint.transcript import replace as renew
    from mdmem.text.secrets import redact

    def clear(value):
        if isinstance(value, str):
            return redact(value)
        if isinstance(value, (list, tuple)):
            return type(value)(clear(v) for v in value)
        if isinstance(value, dict):
            return {k: clear(v) for k, v in value.items()}
        return value

    quote, detail = redact(e.quote), clear(e.detail)
    return e if quote == e.quote and detail == e.detail else renew(e, quote=quote, detail=detail)


def do_not_save(text: str, dim: int, code_ok: bool = True, claim: str | None = None) -> str | None:
    """Why a candidate must not be saved, or None. ``claim`` (a model's name and description) is what
    the task-state and git-history tests read when given, not the whole body: a model's body says why a
    rule matters and how to apply it, and "each of these cost a failed CI round trip in this session" is a
    reason, "search branches and PRs for the same fix (git log --all)" a method, neither task state nor
    git history (measured: with the body read, 2 of 47 candidates a model wrote for the 42 real sessions
    were dropped as task state, and 1 of 17 for 8 more as git history, all three keepers)."""
    if (dim != 7 or not code_ok) and CODE.search(text):
        return "it is code (do not save: code lives in the code)"
    if _GIT_ONLY.search(text if claim is None else claim):
        return "it is git history (do not save: `git log` keeps it)"
    if dim not in (1, 5) and _TASK.search(text if claim is None else claim):
        return "it is task state (do not save: stale by the next session)"
    return None


def build(evidence: Sequence[Evidence], *, session: str, transcript: str | None, lang: str, known: Known,
          messages: int = 0, tool_calls: int = 0, malformed: int = 0, skipped: dict | None = None,
          today: str | None = None) -> Checkpoint:
    """The offline checkpoint for ``evidence``, the standing rules the user stated
    (:func:`mdmem.agents.checkpoint.signals.standing`; the detectors of the other dimensions are retired,
    decision 075): at most three, those strong enough to be suggested alone (:data:`ALONE`), the strongest
    first, the latest first among equals (a rule restated later is the complete one), one per message; none
    that :class:`Known` already holds or that must not be saved."""
    rules = sorted((redacted(e) for e in hits(evidence).get(RULE, [])), key=lambda e: (-round(e.strength, 2), -e.index))
    day = today or dt.date.today().isoformat()
    candidates: list[Candidate] = []
    dropped: list[Dropped] = []
    seen: set[str] = set()
    used: set[int] = set()
    for best in (e for e in rules[:MAX_CANDIDATES] if e.strength >= ALONE):
        if best.index in used:
            continue  # a second rule of a message that gave one already
        c = candidate(len(candidates) + 1, [best] + [e for e in rules if e is not best], lang, day)
        c = replace(c, secret=secret_of(c))
        why = known.repeats(c) or do_not_save(best.quote, RULE) or \
            ("a repeat of another candidate" if key_slug(c.name) in seen else None)
        if why:
            dropped.append(Dropped(c.name, RULE, why))
            continue
        seen.add(key_slug(c.name))
        candidates.append(c)
        used.add(best.index)
    return Checkpoint(session, transcript, lang, [RULE] if rules else [], candidates, dropped, messages, tool_calls,
                      malformed, dict(skipped or {}), dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))


# ----------------------------------------------------------------------------- storage


def _folder(vault: Path) -> Path:
    return Path(state_folder(vault, "checkpoints"))


# who stored a checkpoint (its `origin`): the model answering the Stop hook's prompt or a consolidation through
# `checkpoint propose` / MCP `checkpoint_propose`; the PreCompact or SessionEnd hook (the offline checkpoint); or a
# person running `mdmem checkpoint TRANSCRIPT` by hand ("hand"), who reads its list in their terminal. The card
# shows every origin but "hand" (mdmem.agents.hooks.pending.CARD_ORIGINS)
ORIGINS = ("propose", "PreCompact", "SessionEnd", "hand")
STORED_MAX = 16 * 1024 * 1024  # bytes read of a stored checkpoint at most (a regular file only: never a FIFO)


def store(vault: Path, cp: Checkpoint, origin: str = "propose", about: dict | None = None) -> Path:
    """Keep the candidates until ``accept`` or ``skip`` (replacing any earlier
    pending proposal of the session; earlier candidate names are remembered so
    a later checkpoint does not propose them again), with who stored them (``origin``,
    one of :data:`ORIGINS`) and what is known of the conversation (``about``, :func:`about`: its project and its
    date, which ``accept`` gives the notes it saves and by which the card shows it only in its project)."""
    if origin not in ORIGINS:
        raise ValueError(f"origin must be one of {ORIGINS}, not {origin!r}")
    folder = Path(state_path(vault, "checkpoints"))
    path = folder / f"{safe_session(cp.session)}.json"
    old = load(vault, cp.session, missing_ok=True)
    history = list(old.get("history", [])) + [c.get("name", "") for c in old.get("candidates", [])]
    data = as_dict(cp) | {"status": "pending", "origin": origin, "history": history[-50:], "saved": int(time.time())} \
        | (about or {})
    write_atomic(path, (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode())
    return path


def about(scope, day: str | None = None) -> dict:
    """What a stored checkpoint records of its conversation: ``project``, the project of the session's folder (None:
    global; left out when the folder is unknown, ``scope`` None), and ``conversation_date`` (YYYY-MM-DD, the day of
    the conversation's last user message, when its transcript says)."""
    out: dict = {} if scope is None else {"project": scope.project}
    return out | ({"conversation_date": day} if day else {})


ANYWHERE = object()  # ``load(here=...)``: no project preference


def load(vault: Path, session: str | None = None, missing_ok: bool = False, here: object = ANYWHERE) -> dict:
    """A session's stored checkpoint; without ``session`` the newest pending one; with ``here`` (a project name,
    None for outside any project) the newest pending one of that project or of no project (a global one, or one
    stored before projects were recorded): another project's checkpoint is taken only by its ``--session``."""
    folder = _folder(vault)
    if session is None:
        from mdmem.agents.checkpoint.saved import saved_at

        pending: list[tuple[float, int, dict]] = []
        elsewhere: list[tuple[float, int, dict]] = []
        now = time.time()
        for p in folder.glob("*.json") if folder.is_dir() else ():
            try:
                data = json.loads(read_outside(p, STORED_MAX))
            except (OSError, ValueError, RecursionError):
                continue
            # (one dated ahead or with no date, as the card: taken only by its --session, never the newest one)
            saved = (saved_at(data, now, days=float("inf")) if "saved" in data else 0.0) if isinstance(data, dict) \
                else None
            if saved is not None and data.get("status") == "pending":
                owner = data.get("project") if isinstance(data.get("project"), str) else None
                mine = here is ANYWHERE or owner is None or owner == here
                (pending if mine else elsewhere).append((saved, p.stat().st_mtime_ns, data))
        if not pending:
            if missing_ok:
                return {}
            if elsewhere:
                newest = max(elsewhere, key=lambda x: (x[0], x[1]))[2]
                raise MdmemError(f"no pending checkpoint in {'project ' + str(here) if here else 'this folder'}; "
                                 f"{len(elsewhere)} in other projects (the newest: session {newest.get('session')!r} "
                                 f"of project {newest.get('project')}): pass --session to take one")
            raise MdmemError("no pending checkpoint: run `mdmem checkpoint` first")
        return max(pending, key=lambda x: (x[0], x[1]))[2]
    path = folder / f"{safe_session(session)}.json"
    try:
        data = json.loads(read_outside(path, STORED_MAX))
    except FileNotFoundError:
        if missing_ok:
            return {}
        raise MdmemError(f"no checkpoint for session {session!r} in {folder}") from None
    except (OSError, ValueError, RecursionError) as e:
        if missing_ok:
            return {}
        raise MdmemError(f"cannot read the checkpoint {path}: {type(e).__name__ if isinstance(e, RecursionError) else e}") \
            from None
    return data if isinstance(data, dict) else {}


def mark(vault: Path, data: dict, status: str, results: list | None = None) -> None:
    path = _folder(vault) / f"{safe_session(data['session'])}.json"
    data = dict(data) | {"status": status, "results": results or [], "saved": int(time.time())}
    write_atomic(path, (json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n").encode())


def numbers(spec: str, count: int | Sequence[int]) -> list[int]:
    """``"1,3"`` / ``"1 3"`` / ``"all"`` → candidate numbers, each checked against ``count`` (1 to it) or the
    numbers given (a checkpoint partly accepted keeps the numbers the user saw: 3 stays 3); ``all`` is
    every one of them."""
    valid = list(range(1, count + 1)) if isinstance(count, int) else sorted(count)
    spec = spec.strip().lower()
    if spec in ("all", "todos", "todas"):
        return valid
    shown = f"1-{valid[-1]}" if valid == list(range(1, len(valid) + 1)) and valid else \
        ", ".join(map(str, valid)) or "none"
    out: list[int] = []
    for part in re.split(r"[,\s]+", spec):
        if not part:
            continue
        if not part.isdigit() or int(part) not in valid:
            raise UsageError(f"{part!r} is not a candidate number ({shown})")
        if int(part) not in out:
            out.append(int(part))
    if not out:
        raise UsageError("which candidates? give numbers such as 1,2 (or skip with `mdmem checkpoint skip`)")
    return out

"""The consolidation checkpoint: from a conversation's evidence to at most three
memories for the user to approve. It never writes memory; ``accept`` does, later,
through :func:`mdmem.ops.capture.save`.

0-1 dimensions hit → silent. Two or more → candidates, strongest first, each
with its type, dimension mark, name, one-line description and evidence;
candidates that repeat an existing note, a MEMORY.md line, a CLAUDE.md line or a
candidate already proposed in the session, or that fall in the "do not save"
list (code, git history, task state), are dropped with the reason.

Proposals are kept in ``<vault>/.mdmem/checkpoints/<session>.json`` (atomic
writes) until ``accept`` or ``skip``. Standard library only (the Stop hook
builds checkpoints); ``accept`` imports the capture machinery when it runs.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mdmem.text.classify import _CODE, _TASK
from mdmem.agents.dimensions import MARKS, NAMES, Evidence, hits
from mdmem.base.errors import MdmemError, UsageError
from mdmem.base.layout import MEMORY_DIR, safe_session
from mdmem.base.files import scan, write_atomic
from mdmem.base.layout import STATE_DIR

MAX_CANDIDATES = 3
MIN_DIMENSIONS = 2
TYPES = {1: "project", 2: "claude-md", 3: "protocol", 4: "decision", 5: "project", 6: "feedback", 7: "reference"}
# ties between equally strong dimensions: what is most worth remembering first
PRIORITY = (4, 6, 3, 2, 7, 5, 1)
_GIT_ONLY = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b|\bgit (?:log|rebase|blame|"
                       r"cherry-pick|reset)\b", re.I)


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

    @property
    def fired(self) -> bool:
        return bool(self.candidates)


# ----------------------------------------------------------------------------- candidates


def _words(text: str, n: int) -> str:
    words = " ".join(text.split()).strip(" -*•>#").split(" ")
    out = " ".join(words[:n]).rstrip(".,;:!—–-")
    return out + ("…" if len(words) > n else "")


def _line(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rsplit(" ", 1)[0].rstrip(".,;:—–-") + "…"


_BECAUSE = re.compile(r"\b(?:because|since|as|so that|given that|porque|pois|já que|uma vez que)\b\s*(.+)", re.I)


def _strip_lead(text: str) -> str:
    return re.sub(r"^\W*(?:(?:ok(?:ay)?|also|and|so|please|pls|e|também|por favor|no|nope|não)\W+)+", "",
                  text, flags=re.I) or text


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
    if dim == 1:
        request = detail.get("request_text") or best.quote
        name = ("Entregue: " if pt else "Delivered: ") + _words(_strip_lead(request), 8)
        desc = _line(_strip_lead(request), 80) + " — " + best.signal.split(" after ")[0]
        body = (f"{'Pedido' if pt else 'Request'}: {request}\n\n{'Entrega' if pt else 'Delivery'}: {best.quote}\n\n"
                f"{'Prova' if pt else 'Proof'}: {best.signal}.\n\n{said}")
    elif dim == 2:
        rule = _strip_lead(detail.get("rule") or best.quote)
        name = _words(rule, 9)
        desc = _line(("Regra para o CLAUDE.md: " if pt else "Rule for CLAUDE.md: ") + rule)
        line = "- " + rule.rstrip()
        body = f"{line}\n\n{said}"
    elif dim == 3:
        rule = _strip_lead(detail.get("rule") or best.quote)
        paths = list(detail.get("paths") or [])
        name = _words(rule, 9)
        desc = _line(rule)
        body = "\n".join(f"- {_strip_lead(e.quote)}" for e in evidence if e.detail.get("paths") == detail.get("paths")
                         ) + f"\n\n{said}"
    elif dim == 4:
        chosen = detail.get("chosen")
        rejected = list(detail.get("rejected") or [])
        why = _BECAUSE.search(best.quote)
        if chosen and rejected:
            name = (f"Escolhemos {chosen} em vez de {rejected[0]}" if pt else f"Chose {chosen} over {rejected[0]}")
            desc = _line(f"{chosen} {'em vez de' if pt else 'over'} {rejected[0]}"
                         + (f": {why.group(1)}" if why else ""))
        else:
            name = _words(_strip_lead(best.quote), 9)
            desc = _line(best.quote)
        body = "\n\n".join(e.quote for e in evidence[:3]) + f"\n\n{said}"
    elif dim == 5:
        name = ("Marco: " if pt else "Milestone: ") + _words(_strip_lead(best.quote), 8)
        desc = _line(best.quote)
        body = best.quote + f"\n\n{said}"
    elif dim == 6:
        practice = detail.get("practice")
        if detail.get("kind") == "confirmation":
            what = detail.get("what") or practice or best.quote
            name = ("Manter: " if pt else "Keep: ") + _words(what, 8)
            desc = _line(("O usuário confirmou: " if pt else "The user confirmed: ") + what)
            body = (f"{'Prática' if pt else 'Practice'}: {practice or '—'}\n\n"
                    f"{'Confirmação do usuário' if pt else 'The user confirmed'}: {best.quote}\n\n{said}")
        else:
            name = _words(_strip_lead(best.quote), 9)
            desc = _line(("O usuário corrigiu: " if pt else "The user corrected: ") + _strip_lead(best.quote))
            body = (f"- {_strip_lead(best.quote)}\n\n{'Por quê: o usuário corrigiu esta prática' if pt else 'Why: the user corrected this practice'}"
                    + (f" ({'depois de' if pt else 'after'}: {practice})" if practice else "") + f".\n\n{said}")
    else:
        kind = "user" if detail.get("about_user") else "reference"
        name = _words(best.quote, 9)
        desc = _line(best.quote)
        body = (detail.get("text") or best.quote) + f"\n\n{'Retomado pelo usuário' if pt else 'Taken up by the user'}: " \
            f"{detail.get('reply', '')}\n\n{said}"
    name = re.sub(r"\s+", " ", re.sub(r"[/\\`*]|\.{2,}", " ", name)).strip(" .~") or NAMES[dim]  # a note name, not a path
    return Candidate(number, kind, dim, MARKS[dim], name, desc, body.strip() + "\n", evidence[:3], chosen,
                     rejected, paths, line)


_FOLD = re.compile(r"[^\w]+")
_STOP = frozenset("the a an and or to of in on for with we i you it is are was be that this from by as at "
                  "o a os as e ou de do da dos das em no na um uma que para pra com por se é foi ser".split())


def _key_words(text: str) -> frozenset[str]:
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return frozenset(w for w in _FOLD.split(text) if len(w) > 2 and w not in _STOP)


def _slug(text: str) -> str:
    return "-".join(sorted(_key_words(text)))


@dataclass
class Known:
    """What the vault already holds, read cheaply: MEMORY.md's lines, the memory
    notes' file names, the CLAUDE.md lines, and this session's earlier proposals."""
    lines: list[frozenset[str]] = field(default_factory=list)
    stems: set[str] = field(default_factory=set)
    proposed: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, vault: Path, extra_claude_md: Sequence[Path] = (), session: str | None = None) -> Known:
        known = cls()
        for path in (vault / "MEMORY.md", vault / "CLAUDE.md", *extra_claude_md):
            try:
                text = path.read_text("utf-8", "replace")
            except OSError:
                continue
            for ln in text.splitlines():
                words = _key_words(re.sub(r"\]\([^)]*\)|`~?\d+tk`", " ", ln))
                if len(words) >= 2:
                    known.lines.append(words)
        known.stems.update(_slug(rel.rsplit("/", 1)[-1][:-3].replace("-", " "))
                           for rel in scan(vault).notes if rel.startswith(MEMORY_DIR + "/"))
        if session:
            old = load(vault, session, missing_ok=True)
            names = [c.get("name", "") for c in old.get("candidates", [])] + list(old.get("history", []))
            known.proposed.update(_slug(n) for n in names if n)
        return known

    def repeats(self, c: Candidate) -> str | None:
        slug = _slug(c.name)
        if slug in self.proposed:
            return "already proposed in this session"
        if slug and slug in self.stems:
            return "a memory note with this name exists"
        mine = _key_words(c.name + " " + (c.line or c.description))
        core = _key_words(c.line or c.description)
        for words in self.lines:
            if not mine:
                break
            overlap = len(core & words) / max(1, len(core))
            if overlap >= 0.8 or len(mine & words) / len(mine | words) >= 0.5:
                return "MEMORY.md or CLAUDE.md already says this"
        return None


def _do_not_save(c: Candidate) -> str | None:
    text = " ".join(e.quote for e in c.evidence[:1])
    if c.dimension != 7 and _CODE.search(text):
        return "it is code (do not save: code lives in the code)"
    if _GIT_ONLY.search(text):
        return "it is git history (do not save: `git log` keeps it)"
    if c.dimension not in (1, 5) and _TASK.search(text):
        return "it is task state (do not save: stale by the next session)"
    return None


def build(evidence: Sequence[Evidence], *, session: str, transcript: str | None, lang: str, known: Known,
          messages: int = 0, tool_calls: int = 0, malformed: int = 0, skipped: dict | None = None,
          today: str | None = None) -> Checkpoint:
    """The checkpoint for ``evidence``: silent below two dimensions, else at most
    three candidates, strongest dimension first."""
    found = hits(evidence)
    order = sorted(found, key=lambda d: (-round(found[d][0].strength, 1), PRIORITY.index(d)))
    day = today or dt.date.today().isoformat()
    candidates: list[Candidate] = []
    dropped: list[Dropped] = []
    if len(order) >= MIN_DIMENSIONS:
        seen: set[str] = set()
        for dim in order:
            c = candidate(len(candidates) + 1, dim, found[dim], lang, day)
            why = known.repeats(c) or _do_not_save(c) or ("a repeat of another candidate" if _slug(c.name) in seen
                                                          else None)
            if why:
                dropped.append(Dropped(c.name, dim, why))
                continue
            seen.add(_slug(c.name))
            if len(candidates) < MAX_CANDIDATES:
                candidates.append(c)
            else:
                dropped.append(Dropped(c.name, dim, f"only {MAX_CANDIDATES} candidates at a time"))
    return Checkpoint(session, transcript, lang, sorted(order), candidates, dropped, messages, tool_calls, malformed,
                      dict(skipped or {}), dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))


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
    """The checkpoint as the user (and the model) reads it."""
    t = _TEXT.get(cp.lang, _TEXT["en"])
    marks = "".join(MARKS[d] for d in cp.dimensions)
    if not cp.candidates:
        return t["quiet"].format(n=len(cp.dimensions), marks=f" ({marks})" if marks else "")
    out = [t["head"].format(n=len(cp.dimensions), marks=marks)]
    for c in cp.candidates:
        out.append(f"{c.number}. [{c.type}] {c.mark} {c.name} — {c.description}")
        if c.line:
            out.append(f"   CLAUDE.md: {c.line}")
        if c.paths:
            out.append(f"   paths: {', '.join(c.paths)}")
        e = c.evidence[0]
        out.append(f"   {t['evidence']}: #{e.index} {_SPEAKERS[cp.lang if cp.lang in _SPEAKERS else 'en'][e.speaker]}: "
                   f"\"{e.quote}\" ({e.signal})")
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
    data = asdict(cp) | {"status": "pending", "history": history[-50:], "saved": int(time.time())}
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
            if data.get("status") == "pending":
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
    return data


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
            session: str | None = None, cwd: Path | None = None, today: str | None = None) -> Checkpoint:
    """The checkpoint of a whole transcript (``-`` = standard input), stored when it has candidates."""
    from mdmem.agents.dimensions import detect, language
    from mdmem.agents.transcript import read

    tr = read(source, subagents=subagents)
    sid = session or tr.session_id or (Path(source).stem if source != "-" else "stdin")
    chosen = lang or language(tr.messages)
    if chosen not in _TEXT:
        raise UsageError(f"--lang must be one of: {', '.join(_TEXT)}")
    claude_md = [Path(p) / "CLAUDE.md" for p in {str(cwd or Path.cwd()), tr.cwd or ""} if p]
    known = Known.read(vault, claude_md, sid)
    result = build(detect(tr.messages), session=sid, transcript=None if source == "-" else str(Path(source).resolve()),
                   lang=chosen, known=known, messages=len(tr.messages), tool_calls=tr.tool_calls,
                   malformed=tr.malformed, skipped=tr.skipped, today=today)
    if result.fired:
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


def accept(mem, spec: str, session: str | None = None, today: str | None = None) -> AcceptResult:
    """Save the chosen candidates through :func:`mdmem.ops.capture.save` (each on its
    own: one refused near-duplicate does not stop the others)."""
    from mdmem.ops.capture import save

    data = load(mem.root, session)
    items = data.get("candidates", [])
    if data.get("status") != "pending" and session is None:
        raise MdmemError("no pending checkpoint")
    chosen = numbers(spec, len(items))
    done: list[Accepted] = []
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
                     name_as_file=False)  # a suggested title, not a file name someone chose
        except MdmemError as e:
            done.append(Accepted(n, c["dimension"], kind, c["name"], "refused", None, str(e)))
            continue
        done.append(Accepted(n, c["dimension"], kind, c["name"], r.status, r.path,
                             "saved" if r.status == "created" else "already saved: nothing changed", r.index_line))
    mark(mem.root, data, "accepted", [asdict(a) for a in done])
    return AcceptResult(data["session"], done, [i for i in range(1, len(items) + 1) if i not in chosen])


@dataclass(frozen=True)
class SkipResult:
    session: str
    discarded: int


def skip(vault: Path, session: str | None = None) -> SkipResult:
    data = load(vault, session)
    mark(vault, data, "skipped")
    return SkipResult(data["session"], len(data.get("candidates", [])))

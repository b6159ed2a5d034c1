"""The scan prompt: what the Stop hook hands the model in the session when it is time to
consolidate, the short memory protocol for the SessionStart card, and what the vault already
holds (so neither the model nor the offline detectors propose it again).

Kept apart from :mod:`mdmem.agents.checkpoint.consolidate` (candidates, ``propose``, storage, ``accept``) so
the Stop hook's firing path and the SessionStart card import only this: the standard library and
``mdmem.base``, no ``dataclasses``, ``pathlib`` or ``typing`` at load time.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata

from mdmem.agents.checkpoint.evidence import (
    TAG as _TAGS,  # one grammar of markup tags for the detectors and the checkpoint
)
from mdmem.base import files
from mdmem.base.state import state_folder

TYPE_CHECKING = False  # annotations only (`typing` costs ~10 ms of a hook's start)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from mdmem.agents.checkpoint.evidence import Evidence
from mdmem.base.layout import MEMORY_DIR, safe_session  # noqa: E402
from mdmem.text.protocol import memory_protocol  # noqa: E402,F401  (re-exported: the checkpoint's public face)

MARKS = {1: "①", 2: "②", 3: "③", 4: "④", 5: "⑤", 6: "⑥", 7: "⑦"}
PROMPT_MAX = 6000    # characters of the scan prompt the Stop hook hands the model
# rules, feedback and decisions first; then analysis, milestones, task closure (the ranking)
RANK = {2: 0, 3: 0, 4: 0, 6: 0, 7: 1, 5: 2, 1: 3}

_VOID = frozenset({"br", "hr", "img", "wbr"})


def strip_tags(text: str, repl: str = "") -> str:
    """``text`` without markup tags: a closing or self-closing tag, one with attributes, a wrapper whose
    name has a hyphen or colon (``<user-memory-input>``, ``<system-reminder>``), an HTML void tag, and
    any tag whose closing tag is in the text. A lone ``<file>``, ``<id>`` or ``<sha>`` is a placeholder
    and stays: stripping every ``<word>`` cut 5 of 46 candidates a model wrote for the 42 real
    sessions ("Fixed in <sha>" became "Fixed in ", "review-tool import <file>" lost its argument)."""
    if "<" not in text:
        return text
    closed = {m.group(2).lower() for m in _TAGS.finditer(text) if m.group(1)}

    def tag(m: re.Match) -> str:
        slash, name, attrs, self_closing = m.groups()
        low = name.lower()
        if slash or self_closing or attrs or "-" in name or ":" in name or low in _VOID or low in closed:
            return repl
        return m.group(0)

    return _TAGS.sub(tag, text)


def clean(text: str) -> str:
    """One line of plain text: markup tags (:func:`strip_tags`), Markdown emphasis and code ticks removed."""
    text = strip_tags(text, " ")
    text = re.sub(r"\*\*|__|`|^#+\s*|^>\s*|…|\.{3,}", " ", text, flags=re.M)
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


_FOLD = re.compile(r"[^\w]+")
_STOP = frozenset("the a an and or to of in on for with we i you it is are was be that this from by as at "
                  "o a os as e ou de do da dos das em no na um uma que para pra com por se é foi ser".split())


def key_words(text: str) -> frozenset[str]:
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return frozenset(w for w in _FOLD.split(text) if len(w) > 2 and w not in _STOP)


def key_slug(text: str) -> str:
    return "-".join(sorted(key_words(text)))


class Known:
    """What the vault already holds, read cheaply: MEMORY.md's lines (word sets, and as written
    for the scan prompt), the memory notes' file names, the CLAUDE.md lines, and this session's
    earlier proposals. With a ``scope`` (:class:`mdmem.base.projects.Scope`, the session's project), only what
    that scope sees: the global memories and the project's; another project's notes, and MEMORY.md's lines
    linking them, are left out (a session in project P is not told that only project Q holds a rule)."""

    def __init__(self) -> None:
        self.lines: list[frozenset[str]] = []
        self.stems: set[str] = set()
        self.proposed: set[str] = set()
        self.entries: list[str] = []          # MEMORY.md lines as written
        self.notes: list[str] = []            # memory note names (file stems)
        self.proposed_names: list[str] = []
        self.vault = None
        self.accepted: set[str] = set()       # notes this session's accept saved (vault paths)
        self.scope = None                     # which projects' notes are known (None: every note)
        self._saved: list[tuple[str, dict]] | None = None

    @classmethod
    def read(cls, vault, extra_claude_md=(), session: str | None = None, scope=None) -> Known:
        known = cls()
        known.vault = vault
        known.scope = scope
        memory = [rel for rel in files.scan(vault).notes if rel.startswith(MEMORY_DIR + "/") and "/daily/" not in rel]
        hidden = _hidden(vault, memory, scope)
        texts: list[tuple[str, bool]] = []
        for rel in ("MEMORY.md", "CLAUDE.md"):
            try:
                texts.append((files.read_bytes(vault, rel, 1_000_000).decode("utf-8", "replace"), rel == "MEMORY.md"))
            except OSError:
                pass
        for path in extra_claude_md:  # the project's CLAUDE.md: outside the vault, a regular file only
            try:
                texts.append((files.read_outside(path, 1_000_000).decode("utf-8", "replace"), False))
            except OSError:
                pass
        for text, index in texts:
            for ln in text.splitlines():
                if index and hidden and _links_any(ln, hidden):
                    continue  # MEMORY.md's line for another project's note
                plain = re.sub(r"\]\([^)]*\)|`~?\d+tk`", " ", ln)
                words = key_words(plain)
                if len(words) >= 2:
                    known.lines.append(words)
                    if index and ln.lstrip().startswith(("-", "*")):
                        entry = re.sub(r"\[([^\]]*)\]\([^)]*\)|`~?\d+tk`", lambda m: m.group(1) or "", ln)
                        known.entries.append(" ".join(entry.split())[:200])
        for rel in memory:
            if rel not in hidden:
                stem = rel.rsplit("/", 1)[-1][:-3]
                known.stems.add(key_slug(stem.replace("-", " ")))
                known.notes.append(stem)
        if session:
            old = _stored(vault, session)
            names = [c.get("name", "") for c in old.get("candidates", [])] + list(old.get("history", []))
            known.proposed.update(key_slug(n) for n in names if n)
            known.proposed_names.extend(n for n in names if n)
            known.accepted.update(r["path"] for r in old.get("results") or () if isinstance(r, dict)
                                  and r.get("status") in ("created", "unchanged") and isinstance(r.get("path"), str))
        return known

    def repeats(self, c) -> str | None:
        """Why candidate ``c`` repeats what is known, or None."""
        slug = key_slug(c.name)
        if slug in self.proposed:
            return "already proposed in this session"
        if slug and slug in self.stems:
            return "a memory note with this name exists"
        mine = key_words(c.name + " " + (c.line or c.description))
        core = key_words(c.line or c.description)
        for words in self.lines:
            if not mine:
                break
            overlap = len(core & words) / max(1, len(core))
            if overlap >= 0.8 or len(mine & words) / len(mine | words) >= 0.5:
                return "MEMORY.md or CLAUDE.md already says this"
        return self.same_note(c)

    def saved(self) -> list[tuple[str, dict]]:
        """The vault's notes as ``(path, {type, name, description, chosen, rejected})`` (:func:`_saved_notes`),
        read once, when a suggestion is first checked: never on the Stop hook's firing path, which only builds
        the scan prompt."""
        if self._saved is None:
            found: list[tuple[str, dict]] = _saved_notes(str(self.vault)) if self.vault is not None else []
            self._saved = [(path, note) for path, note in found
                           if self.scope is None or self.scope.sees_name(note.get("project"))]
        return self._saved

    def same_note(self, c) -> str | None:
        """Why candidate ``c`` is a note the vault holds (:func:`mdmem.text.similar.same_memory`; a note
        accepted in this session by its looser bar), or None."""
        from mdmem.text.similar import same_memory

        new = {"type": c.type, "name": c.name, "description": c.description, "chosen": c.chosen,
               "rejected": c.rejected}
        for path, note in self.saved():
            if note["type"] != c.type:
                continue
            why = same_memory(new, note, session=path in self.accepted)
            if why:
                return f"{why} as the saved note {path.rsplit('/', 1)[-1]}"
        return None

    def related(self, topic: frozenset[str], limit: int = 1500) -> tuple[list[str], int]:
        """MEMORY.md lines, then note names not in them, most related to ``topic`` first
        (shared words), within ``limit`` characters; and how many were left out."""
        ranked = sorted(self.entries, key=lambda e: -len(key_words(e) & topic))
        listed = " ".join(self.entries).lower()
        names = [n for n in sorted(self.notes, key=lambda n: -len(key_words(n.replace("-", " ")) & topic))
                 if n.lower() not in listed]
        out, used, left = [], 0, 0
        for item in ranked + [f"note: {n}" for n in names]:
            if used + len(item) + 3 > limit:
                left += 1
                continue
            out.append(item)
            used += len(item) + 3
        return out, left


def scope_of(vault, cwd, project: str | None = None, no_project: bool = False):
    """The scope (:class:`mdmem.base.projects.Scope`) of a checkpoint in a session working in ``cwd``: the
    global memories and those of the project its accepted memories will carry (``checkpoint accept``'s rule,
    :func:`mdmem.base.projects.for_write`: ``project`` or ``no_project`` as given, else the git root or the
    ``[projects]`` mapping of ``cwd``). None (every note) without a ``cwd``; a broken config gives no mapping."""
    from mdmem.base.errors import MdmemError
    from mdmem.base.projects import Scope, for_write

    if not cwd and project is None and not no_project:
        return None
    try:
        return Scope(for_write(vault, project, no_project, cwd=str(cwd) if cwd else None))
    except MdmemError:  # the config cannot be read: the folder's git root alone
        from mdmem.base.projects import project_of

        return Scope(project_of(str(cwd), str(vault), {}, session=False) if cwd else None)


def _hidden(vault, memory: list[str], scope) -> frozenset[str]:
    """The memory notes (vault paths among ``memory``) that ``scope`` does not see: another project's (and that
    project's own note, ``memory/projects/Q.md``). Read from each note's frontmatter (its first
    :data:`_HEAD` bytes): the Stop hook's firing path imports neither SQLite nor a YAML parser, and a note
    written by hand a moment ago counts as it is. Empty without a scope."""
    if scope is None or scope.everything or not memory:
        return frozenset()
    root = os.path.realpath(vault)
    owners = {rel: _head_project(root, rel) for rel in memory}
    others = {owner.casefold() for owner in owners.values() if owner and not scope.sees_name(owner)}
    return frozenset(path for path in memory if not scope.sees_name(owners.get(path))
                     or path.rsplit("/", 1)[-1][:-3].casefold() in others)


_HEAD = 4096  # bytes of a note read for its frontmatter's project
_PROJECT_LINE = re.compile(r"^project:[ \t]*(.*?)[ \t]*$(?:\n[ \t]*-[ \t]*(.*?)[ \t]*$)?", re.M)


def _head_project(root: str, rel: str) -> str | None:
    """The project a note's frontmatter names (``project: "[[name]]"``, a plain name, or a one-item list), else
    None: a global note, or one that cannot be read. ``rel`` is a note the walker found in the vault ``root``
    (resolved); the note itself is opened without following a symlink, non-blocking, a regular file only, its
    first :data:`_HEAD` bytes read (resolving each path as :func:`mdmem.base.files.read_bytes` does cost ~0.5 ms
    a note, 250 ms for 500 memory notes)."""
    import stat

    from mdmem.base.projects import note_project

    try:
        fd = os.open(os.path.join(root, rel), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.read(fd, _HEAD).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)
    if not head.startswith("---"):
        return None
    end = head.find("\n---", 3)
    m = _PROJECT_LINE.search(head[: end if end > 0 else len(head)])
    if m is None:
        return None
    value = (m.group(1) or m.group(2) or "").strip().strip("\"'")
    return note_project({"project": value})


_TARGET = re.compile(r"\]\(([^)\s]+)\)|\[\[([^\]|#]+)")


def _links_any(line: str, paths: frozenset[str]) -> bool:
    """Does ``line`` (MEMORY.md's) link one of the notes at ``paths`` (a Markdown link to its path, a wikilink
    to its name)?"""
    from urllib.parse import unquote

    stems = {p.rsplit("/", 1)[-1][:-3].casefold() for p in paths}
    for m in _TARGET.finditer(line):
        if m.group(1):
            target = unquote(m.group(1)).removeprefix("./")
            if target in paths:
                return True
        elif m.group(2).strip().rsplit("/", 1)[-1].removesuffix(".md").casefold() in stems:
            return True
    return False


def _saved_notes(vault: str) -> list[tuple[str, dict]]:
    """Every note's path, type, name (frontmatter ``name``, else the title), description, project and a decision's
    ``chosen``/``rejected``, from the notes cache (``.mdmem/notes.db``) with the standard library (sqlite3's
    json_extract), the cache brought up to date first as the prompt hook does (:func:`mdmem.agents.hooks.state.fresh`:
    Whoosh and the parser only when the vault's scan differs). [] when there is no cache or it cannot be read
    (the checks on MEMORY.md still hold).
    Its cost on the SessionEnd hook with two suggestions to check (medians of 11 runs interleaved with the
    code before it, two rounds, a loaded 2-core machine): sample-vault 222 -> 253 / 302 -> 298 ms, 2,000
    generated notes 273 -> 373 / 376 -> 478 ms (~35 ms of it importing sqlite3, the settings and the similarity
    code); opening :class:`mdmem.engine.memory.Memory` every time instead measured ~300 ms more (it imports
    Whoosh). Daily notes are never read (never a suggestion's type)."""
    import sqlite3

    from mdmem.agents.hooks.state import fresh, log, notes_db
    from mdmem.base.errors import MdmemError
    from mdmem.base.projects import from_cache
    from mdmem.engine import quick

    try:
        fresh(vault, log)
    except (MdmemError, OSError, sqlite3.Error):
        pass
    db = quick.open_readonly(notes_db(vault))
    if db is None:
        return []
    out = []
    try:
        rows = db.execute("SELECT json_extract(note, '$[0]'), json_extract(note, '$[1]'), json_extract(note, '$[2]'), "
                          "json_extract(note, '$[3].name'), json_extract(note, '$[3].description'), "
                          "json_extract(note, '$[3].chosen'), json_extract(note, '$[3].rejected'), "
                          "json_extract(note, '$[3].project') FROM notes "
                          "WHERE json_extract(note, '$[2]') != 'daily'")  # never a suggestion's type
        for rel, title, kind, name, description, chosen, rejected, project in rows:
            if isinstance(rejected, str) and rejected.startswith("["):
                try:
                    rejected = json.loads(rejected)
                except ValueError:
                    pass  # a string that starts with "[" ("[[Cowboy]]"): one option
            out.append((rel, {"type": kind, "name": name if isinstance(name, str) and name.strip() else title,
                              "description": description if isinstance(description, str) else "",
                              "chosen": chosen if isinstance(chosen, str) else None,
                              "rejected": rejected if isinstance(rejected, (list, str)) else None,
                              "project": from_cache(project)}))
    except sqlite3.Error:
        return []
    finally:
        db.close()
    return out


def _stored(vault, session: str) -> dict:
    """A session's stored checkpoint (``.mdmem/checkpoints/<session>.json``), or {}."""
    path = state_folder(vault, "checkpoints", f"{safe_session(session)}.json")
    try:  # a regular file only (a FIFO never blocks), bounded; any damage: none stored
        data = json.loads(files.read_outside(path, 4 * 1024 * 1024))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


# ----------------------------------------------------------------------------- the prompt

_DIMENSION_TABLE = """\
| # | dimension | hit signal | memory type |
|---|---|---|---|
| 1 | Task closure | a task went from request to delivery | project (milestone) |
| 2 | CLAUDE.md update | a new general rule of behaviour for the assistant | claude-md |
| 3 | Rule sedimentation | a rule about a domain, tool or file type | protocol |
| 4 | Architectural decision | a non-obvious choice of tool, technical solution or strategy, with what was rejected | decision |
| 5 | Project milestone | the project's status advanced substantially (release, key feature done) | project |
| 6 | Collaboration calibration | the user corrected a practice or confirmed a non-obvious one | feedback |
| 7 | High-value analysis | a reusable analysis framework, insight or model | reference or user |"""

_PROMPT_HEAD = """\
[mdmem checkpoint] Before you stop, scan this conversation along the seven dimensions below for what is worth \
remembering across sessions. Judge from the conversation itself; mdmem's hints at the end are guesses.

{table}

Do not save: code patterns or file paths (the code shows them), git history, debugging recipes, ephemeral task \
state or status snapshots, secrets, anything already in CLAUDE.md or in the memory below.
Rules: 0-1 dimensions hit → do nothing and say nothing (just stop), except a rule or correction the user \
stated, which is worth proposing alone; most sessions hold nothing for later. A dimension hits only with something \
a later session needs: finishing this task (1) is not enough by itself. A decision (4) counts when it sets how \
the project works from now on (a design chosen over alternatives, a feature dropped or deferred, a default \
chosen), even though the task that made it is done. Saved already, so neither a candidate nor a hit: a rule this \
session wrote into CLAUDE.md, a skill file or a `#` memory; a decision or its reasons written only into code, a \
plan, a commit or the repository's docs is not saved here, nor is what went only into your own memory folder \
outside this vault. "dimensions" lists only the \
dimensions hit by something new, with or without a candidate of their own. Scan everything since the last \
checkpoint. At most 3 candidates, quality over quantity; a wrong one can be replaced by proposing it again \
under the same name (or with "replaces": [N]). Write no memory files yourself: the user chooses."""

# how to answer: the same command and JSON in both languages (its keys, types and commands are mdmem's)
EXAMPLE_JSON = """\
{"dimensions": [3, 4], "candidates": [{"type": "protocol", "dimension": 3, "name": "...", "description": "...", \
"body": "...", "paths": ["**/*.py"]}, {"type": "decision", "dimension": 4, "name": "...", "description": "...", \
"body": "...", "chosen": "...", "rejected": ["..."]}]}"""
_ANSWER_JSON = "{run} checkpoint propose {tail} <<'JSON'\n" + EXAMPLE_JSON.replace("{", "{{").replace("}", "}}") \
    + "\nJSON\n"
# what each field holds: the hook's prompt and `checkpoint --model`'s answer line say it alike
FIELDS = """\
type: one of project, claude-md, protocol, decision, feedback, reference, user. name: the subject in at most 60 \
characters (not a quote of the chat). description: one line. body: a few lines: the fact, why, how to apply. \
paths (protocol, optional): globs it applies to. Write name, description and body in the language the user \
writes in."""
FIELDS_PT = """\
type: um de project, claude-md, protocol, decision, feedback, reference, user. name: o assunto em até 60 \
caracteres (não uma citação da conversa). description: uma linha. body: poucas linhas: o fato, por quê, como \
aplicar. paths (protocol, opcional): globs a que se aplica. Escreva name, description e body em português."""

_PROMPT_ANSWER = """\
If there is something to propose, pipe your candidates to mdmem as JSON:
""" + _ANSWER_JSON + FIELDS + """
mdmem prints a numbered list: show it to the user as it is and ask which to save; save nothing before they answer. \
Then run `{run} checkpoint accept 1,3 {tail}` with their numbers, or `{run} checkpoint skip {tail}`. A claude-md \
candidate is a line for the user to add to CLAUDE.md; mdmem does not write it."""


# the same prompt in Portuguese (the hook and `checkpoint --model` choose by the conversation's language, as
# the rest of the checkpoint's output does); the JSON keys, types and commands stay as they are
_DIMENSION_TABLE_PT = """\
| # | dimensão | sinal | tipo de memória |
|---|---|---|---|
| 1 | Fechamento de tarefa | uma tarefa foi do pedido à entrega | project (marco) |
| 2 | Atualização do CLAUDE.md | uma nova regra geral de comportamento para o assistente | claude-md |
| 3 | Sedimentação de regra | uma regra sobre um domínio, ferramenta ou tipo de arquivo | protocol |
| 4 | Decisão de arquitetura | uma escolha não óbvia de ferramenta, solução técnica ou estratégia, com o que foi descartado \
| decision |
| 5 | Marco do projeto | o projeto avançou de forma substancial (release, funcionalidade-chave pronta) | project |
| 6 | Calibração da colaboração | o usuário corrigiu uma prática ou confirmou uma não óbvia | feedback |
| 7 | Análise de alto valor | um framework de análise, insight ou modelo reutilizável | reference ou user |"""

_PROMPT_HEAD_PT = """\
[mdmem checkpoint] Antes de parar, revise esta conversa pelas sete dimensões abaixo e veja o que vale lembrar \
entre sessões. Julgue pela própria conversa; as pistas do mdmem no fim são palpites.

{table}

Não salve: padrões de código ou caminhos de arquivo (o código já mostra), histórico do git, receitas de \
depuração, estado passageiro de tarefa ou retratos de status, segredos, nada que já esteja no CLAUDE.md ou na \
memória abaixo.
Regras: 0-1 dimensão atingida → não faça nada e não diga nada (apenas pare), exceto uma regra ou correção que o \
usuário disse, que vale propor sozinha; a maioria das sessões não tem nada para depois. Uma dimensão só é \
atingida com algo de que uma sessão futura precise: terminar esta tarefa (1) não basta por si. Uma decisão (4) \
conta quando define como o projeto funciona daqui em diante (um desenho escolhido entre alternativas, um recurso \
abandonado ou adiado, um padrão escolhido), mesmo que a tarefa que a tomou esteja concluída. Já salvo, portanto \
nem candidata nem dimensão atingida: uma regra que esta sessão escreveu no CLAUDE.md, num arquivo de skill ou numa \
memória `#`; uma decisão ou seus motivos escritos só no código, num plano, num commit ou nos docs do repositório \
não estão salvos aqui, nem o que foi só para a sua própria pasta de memória fora deste vault. "dimensions" lista só as dimensões atingidas por algo novo, com ou sem candidata própria. Revise tudo desde o \
último checkpoint. No máximo 3 candidatas, qualidade acima de quantidade; uma errada pode ser substituída \
propondo-a de novo com o mesmo nome (ou com "replaces": [N]). Não escreva arquivos de memória você mesmo: o \
usuário escolhe."""

_PROMPT_ANSWER_PT = """\
Se houver o que propor, passe suas candidatas ao mdmem em JSON:
""" + _ANSWER_JSON + FIELDS_PT + """
O mdmem imprime uma lista numerada: mostre-a ao usuário como está e pergunte quais salvar; não salve nada antes \
da resposta. Depois rode `{run} checkpoint accept 1,3 {tail}` com os números dele, ou \
`{run} checkpoint skip {tail}`. Uma candidata claude-md é uma linha para o usuário pôr no CLAUDE.md; o mdmem \
não a escreve."""

_LABELS = {
    "en": {"memory": "Existing memory (do not duplicate; most related first):", "none": "Existing memory: none yet.",
           "more": "(and {n} more)", "proposed": "proposed earlier in this session: {name}",
           "hints": "mdmem's hints (msg = mdmem's count of the session's messages):", "why": "Why now: {why}."},
    "pt": {"memory": "Memória existente (não duplique; as mais relacionadas primeiro):",
           "none": "Memória existente: nenhuma ainda.", "more": "(e mais {n})",
           "proposed": "já proposta nesta sessão: {name}",
           "hints": "Pistas do mdmem (msg = a contagem de mensagens da sessão feita pelo mdmem):",
           "why": "Por que agora: {why}."},
}
# the Stop hook's reasons (agents/hooks.py), said in Portuguese
_WHY_PT = ((r"the user asked to consolidate", "o usuário pediu para consolidar"),
           (r"a rule, decision or correction was said", "foi dita uma regra, decisão ou correção"),
           (r"a milestone", "um marco"), (r"the user steered the work", "o usuário direcionou o trabalho"),
           (r"a result was delivered", "um resultado foi entregue"),
           (r"(\d+) tool calls since the last checkpoint", r"\1 chamadas de ferramenta desde o último checkpoint"),
           (r"the topic changed", "o assunto mudou"),
           (r"the user stated a rule or corrected the assistant", "o usuário disse uma regra ou corrigiu o assistente"),
           (r"a task was closed", "uma tarefa foi concluída"),
           (r"turns of an earlier session that no checkpoint scanned",
            "turnos de uma sessão anterior que nenhum checkpoint revisou"),
           (r"(\d+) stops since the last checkpoint", r"\1 paradas desde o último checkpoint"),
           (r"(\d+) dimensions hit since the last checkpoint", r"\1 dimensões atingidas desde o último checkpoint"))


def _why(why: str, lang: str) -> str:
    if lang != "pt":
        return why
    for english, portuguese in _WHY_PT:
        why = re.sub(english, portuguese, why)
    return why


def command_tail(session: str | None, vault, lang: str | None = None) -> str:
    import shlex

    parts = []
    if session:
        parts.append(f"--session {shlex.quote(session)}")
    if vault is not None:
        parts.append(f"--vault {shlex.quote(str(vault))}")
    if lang == "pt":
        parts.append("--lang pt")
    return " ".join(parts)


def hint_lines(evidence: Sequence[Evidence], limit: int = 900) -> list[str]:
    """mdmem's detector evidence as hints for the model: dimension, message number, speaker,
    quote, signal; strongest first, one per message and dimension, within ``limit`` characters.
    Not task closure (①): the prompt says finishing the task is not enough by itself, and both
    stand-in models of the blind model-path runs (holdout6, holdout7) called the ① hints ("Done",
    "all tests pass") the noise of every session."""
    if not evidence:
        return []
    from mdmem.text.secrets import redact  # ~14 ms to import (measured), only when there are hints to write

    out: list[str] = []
    used = 0
    seen: set[tuple[int, int]] = set()
    for e in sorted(evidence, key=lambda e: (RANK[e.dimension], -e.strength, -e.index)):
        if e.dimension == 1 or (e.dimension, e.index) in seen:
            continue
        seen.add((e.dimension, e.index))
        # a secret the user typed is not quoted back (cut at 160 characters, a token would not even be seen)
        line = f"- {MARKS[e.dimension]} msg {e.index} ({e.speaker}): \"{clean(redact(e.quote))[:160]}\" [{e.signal[:60]}]"
        if used + len(line) + 1 > limit:
            break
        out.append(line)
        used += len(line) + 1
    return out


def scan_prompt(session: str | None, vault, *, known: Known | None = None, evidence: Sequence[Evidence] = (),
                topic: Sequence[str] = (), lang: str = "en", run: str = "mdmem", why: str = "",
                answer: bool = True) -> str:
    """The block ``reason`` the Stop hook hands the model (at most :data:`PROMPT_MAX`
    characters): the seven dimensions with their signals and memory types, the do-not-save
    list and the rules (the seed's scan prompt, the project's checkpoint-scan-prompt.md), the
    memory it must not duplicate (MEMORY.md lines and note names, most related first, at most
    1,500 characters), mdmem's hints with message numbers (at most 900), and how to answer
    (``checkpoint propose`` with JSON on stdin, then ``accept``/``skip``; left out with
    ``answer=False``, for a model command that answers on stdout). In English, or in Portuguese
    with ``lang="pt"`` (same parts and bounds; JSON keys, types and commands unchanged). The same
    inputs give the same bytes: nothing in it depends on the clock or on dict or set order."""
    pt = lang == "pt"
    words = _LABELS["pt" if pt else "en"]
    parts = [(_PROMPT_HEAD_PT if pt else _PROMPT_HEAD).format(table=_DIMENSION_TABLE_PT if pt else _DIMENSION_TABLE)]
    if known is not None:
        topic_words = frozenset().union(*(key_words(t) for t in topic)) if topic else frozenset()
        topic_words |= frozenset().union(*(key_words(e.quote) for e in evidence)) if evidence else frozenset()
        items, left = known.related(topic_words)
        if known.proposed_names:
            items = [words["proposed"].format(name=n) for n in known.proposed_names[-5:]] + items
        if items:
            parts.append(words["memory"] + "\n" + "\n".join(f"- {i.lstrip('-* ')}" for i in items)
                         + ("\n" + words["more"].format(n=left) if left else ""))
        else:
            parts.append(words["none"])
    hints = hint_lines(evidence)
    if hints:
        parts.append(words["hints"] + "\n" + "\n".join(hints))
    if why:
        parts.append(words["why"].format(why=_why(why, lang)))
    if answer:
        parts.append((_PROMPT_ANSWER_PT if pt else _PROMPT_ANSWER).format(run=run, tail=command_tail(session, vault, lang)))
    text = "\n\n".join(parts)
    while len(text) > PROMPT_MAX and len(parts) > 2:  # never: the parts are bounded; kept as a guard
        parts.pop(1)
        text = "\n\n".join(parts)
    return text[:PROMPT_MAX]



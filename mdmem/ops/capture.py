"""Writing memory: saved notes with their MEMORY.md line, and the rules every write of memory
shares (the daily log is :mod:`mdmem.ops.daily`, archiving :mod:`mdmem.ops.forget`). Returns frozen
dataclasses, never prints.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/ops/capture.py).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shlex
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.errors import MdmemError, UsageError
from mdmem.base.layout import INDEX_NAME, INDEX_SECTIONS, MEMORY_DIR, TYPE_FOLDERS, nfc
from mdmem.base.projects import Scope
from mdmem.base.provenance import RULE_TYPES, Provenance, record
from mdmem.base.state import write_lock
from mdmem.ops import guard
from mdmem.ops.budget import index_line
from mdmem.ops.index_lines import add_line, mark_superseded
from mdmem.ops.properties import register_types
from mdmem.ops.repeats import UNCHECKED, Twin, Unchecked, is_guess, repeated, warnings
from mdmem.text.classify import classify, decision_note, decision_title
from mdmem.text.naming import NAME_MAX, first_line, person_name, plain_links, subject
from mdmem.text.similar import name_key

if TYPE_CHECKING:
    from mdmem.base.settings import Judge
    from mdmem.engine.memory import Memory

FOLDERS = TYPE_FOLDERS
SECTIONS = INDEX_SECTIONS
_SLUG_DROP = re.compile(r"[^\w\s-]")
_SLUG_GAP = re.compile(r"[\s_-]+")
MAX_TEXT = guard.MAX_TEXT  # characters of one saved memory or daily entry (OVERSIZED warns at ~13 KB already)
SecretRefused = guard.SecretRefused
TEMP_AGE = 3600.0  # seconds: a temp file older than this was left by a killed writer


class SameMemory(MdmemError):
    """A memory of the same meaning is saved already (``existing``, its vault path); nothing was written."""

    def __init__(self, message: str, existing: str):
        super().__init__(message)
        self.existing = existing


# ----------------------------------------------------------------------------- helpers


def as_date(value: str | dt.date | None, today: dt.date | None = None) -> dt.date:
    if isinstance(value, dt.date):
        return value
    if value is None:
        return today or dt.date.today()
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"wants a date as YYYY-MM-DD, not {value!r}") from None


def copy_date(day: dt.date) -> dt.date:
    """A distinct but equal date, so YAML writes the value twice, not an anchor and an alias."""
    return dt.date(day.year, day.month, day.day)


class Wikilink(str):
    """A frontmatter value written as Obsidian writes a link property: double-quoted, ``"[[Old note]]"``."""


def dump_note(meta: dict, body: str) -> bytes:
    import frontmatter
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(Wikilink, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", str(v), style='"'))
    return (frontmatter.dumps(frontmatter.Post(body, **meta), sort_keys=False, Dumper=Dumper) + "\n").encode("utf-8")


def clean(*folders: Path) -> None:
    """Remove what a killed writer left in ``folders`` (mdmem's own hidden ``.tmp`` files, old ones only)."""
    for folder in folders:
        fs.clean_temp(folder, TEMP_AGE)


# ----------------------------------------------------------------------------- save


@dataclass(frozen=True)
class SaveResult:
    status: str  # "created", "unchanged" (the same content is already saved there) or "updated" (--update)
    path: str
    type: str
    name: str
    description: str
    tokens: int
    section: str | None  # the MEMORY.md section of its line (None for daily notes)
    index_line: str | None
    index_changed: bool  # MEMORY.md got the line (False when it was there already)
    warnings: list[str] = field(default_factory=list)
    type_reason: str = "given"  # why this type: "given", or the rule that inferred it
    supersedes: list[str] = field(default_factory=list)  # the notes it replaces (vault paths), as its
    # frontmatter ``supersedes`` says
    index_marked: list[str] = field(default_factory=list)  # the old notes whose MEMORY.md line got index_lines.SUPERSEDED_MARK
    source: str = "user"  # who wrote it (its frontmatter ``source``: mdmem.base.provenance)
    confirm: str | None = None  # an agent's rule: how the user confirms it (until then not shown as theirs)
    similar: str | None = None  # a note it may say the same as (a guess by meaning, saved anyway: in warnings)


def to_confirm(kind: str, rel: str, source: str) -> str | None:
    """What an agent's save of a rule-like note answers: the user must confirm it (None for any other save)."""
    if source != "agent" or kind not in RULE_TYPES:
        return None
    return (f"saved as proposed by an agent, not confirmed: the card and the prompt hook show it apart, never as the "
            f"user's rule, until the user runs `mdmem confirm {shlex.quote(rel)}` or edits it themselves")


def slug(name: str) -> str:
    """A safe kebab-case file stem: NFC, lower case, words joined by ``-``.

    A name that would leave its folder (``/``, ``\\``, ``..`` alone, an absolute
    path, ``~``) is refused with :class:`UsageError`, not cleaned up. Dots inside
    a name are not a path: ``Wait... what`` is ``wait-what``."""
    raw = unicodedata.normalize("NFC", name.strip())
    if raw.lower().endswith(".md"):
        raw = raw[:-3]
    if "/" in raw or "\\" in raw or raw.strip() in (".", "..") or os.path.isabs(raw) or raw.startswith("~"):
        raise UsageError(f"refusing the name {name!r}: a note name cannot contain a path (/, \\, ..)")
    stem = _SLUG_GAP.sub("-", _SLUG_DROP.sub(" ", raw.lower())).strip("-")
    if not stem:
        raise UsageError(f"the name {name!r} has no letters or digits to make a file name from")
    return stem[:80].rstrip("-")


DESCRIPTION_MAX = 100  # characters of a description made from the text
_KEPT_NAME = re.compile(r"[^\W_](?:[\w '(),&+-]*[\w)])?")  # letters, digits, spaces and a few marks
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})


def _cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at a word boundary (``…`` marks the cut)."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:-—–") + "…"


def _summary(text: str, limit: int = DESCRIPTION_MAX) -> str:
    """The first line as a description: links as their text, cut at a word (never inside a link)."""
    return _cut(" ".join(plain_links(first_line(text)).split()), limit)


def kept_name(name: str) -> bool:
    """Is ``name`` (a given ``--name``) kept as the file name itself? Yes when it is at most
    :data:`NAME_MAX` characters of letters, digits, spaces and ``-_'(),&+`` starting with a letter or
    digit (no dot, slash, colon, ``#^[]|`` or other mark that a file system or a wikilink treats
    specially), and not a name Windows reserves."""
    return len(name) <= NAME_MAX and _KEPT_NAME.fullmatch(name) is not None and name.lower() not in _RESERVED


def save(
    mem: Memory,
    text: str,
    type: str | None,
    name: str | None = None,
    description: str | None = None,
    tags: list[str] | tuple[str, ...] = (),
    today: str | dt.date | None = None,
    new: bool = False,
    chosen: str | None = None,
    rejected: list[str] | tuple[str, ...] = (),
    paths: list[str] | tuple[str, ...] = (),
    name_as_file: bool = True,
    allow_secret: bool = False,
    supersedes: list[str] | tuple[str, ...] = (),
    provenance: Provenance | None = None,
    project: str | None = None,
    update: str | None = None,
    section: str | None = None,
    repeat: Twin | None | Unchecked = UNCHECKED,
    judge: Judge | None = None,
) -> SaveResult:
    """Write a note into its type's folder and add its line to MEMORY.md under
    the type's section (created when missing; the budget comment is never
    touched).

    Its name: a given ``name`` that is safe as a file name (:func:`kept_name`: "Ana Souza",
    "Atlas billing (v2)") is the file name as written, ``memory/people/Ana Souza.md``, so that
    ``[[Ana Souza]]`` resolves, in Obsidian as in mdmem (aliases never resolve a link in either),
    and it is the note's ``name:``; any other given name (or any name with ``name_as_file=False``:
    a checkpoint's suggested title) becomes a kebab-case file name (:func:`slug`; decisions get
    ``decision-`` in front) and stays the ``name:``. Without a name a note is named once, for what it
    is about, never for the fact it states (an edited note keeps its name; nothing renames it): a
    person by the name the text opens with (:func:`~mdmem.text.naming.person_name`: "Ana Souza is the
    billing lead" -> "Ana Souza", kept as the file name like a given one); a decision saying "chose X
    over Y for Z" by "X over Y for Z" (:func:`~mdmem.text.classify.decision_title`); any other note by its
    subject (:func:`~mdmem.text.naming.subject`: the first clause, short, without "We use" before it:
    "Deploy freeze: no deploys from December 20" -> "Deploy freeze"), filed under its slug. The description (``description``,
    else the first line cut at a word within :data:`DESCRIPTION_MAX` characters) has its links
    shown as text: it becomes the note's line in MEMORY.md, which links only the note itself. The same content already saved (at that path or any other
    memory note) changes nothing; a near-duplicate (the same name, or mostly
    the same wording) is refused and named unless ``new``. What should not be
    saved (code, file paths, git history, task state, what CLAUDE.md or a
    protocol already says) is saved with warnings. Without a ``type`` one is
    inferred (:func:`classify`) and the reason returned. A decision gets
    ``chosen``/``rejected`` frontmatter and its four sections
    (:func:`decision_note`); a protocol may carry ``paths:`` globs. Reads the
    notes cache: refresh first. A text holding a secret is refused
    (:class:`SecretRefused`, nothing written) unless ``allow_secret``.

    ``supersedes``: notes this one replaces (each a path, file name or title, as ``show`` takes it;
    :func:`replaced`), written as its frontmatter ``supersedes: "[[old note]]"`` (a list for several).
    The old notes are never touched; being replaced, they are not near-duplicates of it. Each old note's
    MEMORY.md line is marked (:func:`mdmem.ops.index_lines.mark_superseded`): the index is what an agent loads first, and an
    unmarked line went on presenting the old fact as current.

    ``provenance`` (default: the user's): its fields go after ``tags`` (:class:`~mdmem.base.provenance.Provenance`),
    its ``created`` (the conversation's date) is the note's; an agent's note is recorded
    (:func:`~mdmem.base.provenance.record`) so that a later edit by the user is told apart.

    ``project``: the project the memory belongs to (:mod:`mdmem.base.projects`; None: global), written as
    ``project: "[[name]]"``; its note ``memory/projects/<name>.md`` is made first when no note has that name.

    One note per fact: a memory that repeats a saved one (its name, or :data:`~mdmem.text.similar.SIMILAR`
    of its wording) is refused (:class:`SameMemory`, naming the note) unless ``new``; one that may only say the
    same (:mod:`mdmem.text.meaning`, a guess: decision 096) is saved with a warning naming the note;
    ``update`` (that note) adds the text to it instead (status "updated"), or, with ``section`` (a heading
    of it), replaces that section's text. ``repeat``: the answer :func:`~mdmem.ops.repeats.repeated` gave the
    caller for this text just before (``checkpoint accept`` runs it to say "the same as [[X]]"), taken as this
    save's, so that the look-up (~60 ms at 10k notes) runs once; by default save runs it, under the lock.
    ``judge``: the user's model command that confirms or clears a guess by meaning (:mod:`mdmem.ops.judge`); with
    one, the look-up runs before the lock (a model may take seconds; other writers wait at most 30 s for it)."""
    from mdmem.text.parse import parse_note

    guard.bounded(text, "text")
    body = text.strip()
    if not body:
        raise UsageError("nothing to save: the text is empty")
    for value, what in ((name, "name"), *((t, "tag") for t in tags)):
        if value is not None:
            guard.name(value, what)
    guard.text(body, "text", allow_secret, {
        "name": name or "", "description": description or "", "chosen option": chosen or "",
        "rejected options": "\n".join(rejected), "tags": "\n".join(tags), "paths": "\n".join(paths),
        "supersedes": "\n".join(supersedes)})
    from mdmem.ops.move import settle

    settle(mem)
    if update is not None:
        return _update(mem, update, body, section, today, allow_secret)
    if section is not None:
        raise UsageError("--section goes with --update NOTE")
    reason = "given"
    if type is None:
        type, reason = classify(body)
    kind = type.strip().lower()
    if kind not in FOLDERS:
        raise UsageError(f"unknown type {type!r}: choose one of {', '.join(sorted(SECTIONS))}")
    if kind == "daily":
        raise UsageError("daily entries go through `mdmem daily add`")
    derived = None
    if name is None and kind == "person":
        derived = person_name(body)
    elif name is None and kind == "decision" and chosen is None:
        derived = decision_title(body)
    title = " ".join((name or derived or subject(body)).split())
    if (name is not None or (kind == "person" and derived)) and name_as_file \
            and kept_name(unicodedata.normalize("NFC", title)):
        title = stem = unicodedata.normalize("NFC", title)
    else:
        stem = slug(title if name is not None else re.sub(r"[/\\~]|\.\.+", " ", title))
        if kind == "decision" and not stem.startswith("decision-"):
            stem = "decision-" + stem
    rel = f"{MEMORY_DIR}/{FOLDERS[kind]}/{stem}.md"
    rel = mem.scan.on_disk(rel) or rel  # the note already there under this name in another Unicode form
    prov = provenance or Provenance()
    if project is None and prov.source == "user":
        held = _held_elsewhere(mem, body)
        if held:  # a project's note says it word for word: saved globally, it is made global
            return _make_global(mem, held, today)
    rel = _own_name(mem, rel, body, project, new or bool(supersedes))
    path = mem.root / rel
    inside_memory(mem.root, path)
    day = as_date(today)
    desc = " ".join(plain_links(description).split()) if description else _summary(body)
    tag_list = sorted({t.strip().lstrip("#").lower() for t in tags if t.strip().lstrip("#")})
    if project is not None and kind == "project" and name_key(title) == name_key(project):
        project = None  # the project's own note is not "in" itself
    meta = {"name": title, "description": desc, "type": kind, "tags": tag_list, **prov.fields(), **origin(project),
            "created": as_date(prov.created) if prov.created else day, "updated": copy_date(day)}
    if kind == "decision":
        extra, body = decision_note(body, chosen, list(rejected))
        meta.update(extra)
    if paths:
        meta["paths"] = list(dict.fromkeys(paths))
    old = replaced(mem, supersedes, rel)
    if old:
        links = [Wikilink(link) for _, link in old]
        meta = {**{k: v for k, v in meta.items() if k not in ("created", "updated")},
                "supersedes": links[0] if len(links) == 1 else links, "created": meta["created"],
                "updated": meta["updated"]}
    section = SECTIONS[kind]
    marked: list[str] = []
    if judge is not None and not new and isinstance(repeat, Unchecked) and fs.stat_note(mem.root, rel) is None:
        repeat = repeated(mem, rel, title, body, {p for p, _ in old}, kind, Scope(project), judge)
    made = project_note(mem, project, day, prov) if project is not None else None
    with write_lock(mem.state_dir, mem.lock_timeout):
        guard.real_folders(mem.root, rel)
        guard.real_folders(mem.root, INDEX_NAME)
        clean(path.parent, mem.root, mem.state_dir)
        index_data, index_seen = fs.read_stat(mem.root, mem.root / INDEX_NAME)
        data = dump_note(meta, body + "\n")
        existing, _ = fs.read_stat(mem.root, path)
        twin = None if existing is not None else repeat if not isinstance(repeat, Unchecked) \
            else repeated(mem, rel, title, body, {p for p, _ in old}, kind, Scope(project))
        if twin is not None and twin[1] is None:  # the same content under another name
            note = parse_note(twin[0], fs.read_stat(mem.root, mem.root / twin[0])[0] or b"")
            got = note.frontmatter.get("description")
            got = got if isinstance(got, str) else desc
            return SaveResult("unchanged", twin[0], note.type, note.title, got,
                              note.tokens, SECTIONS.get(note.type), index_line(note), False, [], reason)
        if twin is not None and not new and twin[1] == "the same person":
            raise MdmemError(f"{rel} would be a second note on the same person as {twin[0]}; add this to that note "
                             f"(mdmem edit {shlex.quote(twin[0])} --append TEXT), pass --supersedes "
                             f"{shlex.quote(twin[0])} if this one replaces it, or --new to save a second one")
        maybe = twin[0] if twin is not None and is_guess(twin[1]) else None  # a guess: saved, with a warning
        if twin is not None and not new and maybe is None:
            raise SameMemory(f"{rel} would be a near-duplicate of {twin[0]} ({twin[1]}); update that note "
                             f"(--update {shlex.quote(twin[0])}), pass --supersedes {twin[0]} if this one replaces "
                             f"it, or --new to save a second one", twin[0])
        if existing is not None:
            if _same_content(existing, body):  # already saved: say so, change nothing
                note = parse_note(rel, existing)
                line, index_changed, status = index_line(note), False, "unchanged"
            else:
                q = shlex.quote(rel)
                raise SameMemory(f"{rel} already holds another text under this name ({title!r}); add this to it "
                                 f"(--update {q}), pass --supersedes {q} if this one replaces it, or --new to save "
                                 f"a second note (under a free name)" + ("; or choose another --name" if name else ""),
                                 rel)
        else:
            note = parse_note(rel, data)
            line = index_line(note)
            check_unchanged(mem.root / INDEX_NAME, index_seen)
            fs.write_new(path, data)
            try:
                index_changed = add_line(mem, rel, line, section, (index_data, index_seen))
                if prov.source == "agent":
                    record(mem.state_dir, rel, data)
            except BaseException:
                _undo_new(path, data)
                raise
            status = "created"
            marked = mark_superseded(mem, [p for p, _ in old], rel) if old else []
            register_types(mem.root, meta)  # Obsidian's types.json learns mdmem's fields (dates as dates)
    if status == "created" or index_changed:
        mem.refresh()
    source = str(note.frontmatter.get("source") or "user")
    said = warnings(mem, body, rel) if status == "created" else []
    if made is not None:  # a name mistyped in --project would otherwise make a project without a word
        said.insert(0, f"new project {project}: its note {made} was made (no note had that name)")
    if status == "created" and project is not None:
        from mdmem.ops.scope import owner

        wider = [p for p, _ in old if owner(mem, p) is None]
        if wider:  # a global rule replaced from one project: the other projects would see neither
            said.append(f"{', '.join(wider)} {'was' if len(wider) == 1 else 'were'} global and {rel} is project "
                        f"{project}'s: other projects now see neither; if the new rule holds everywhere, make it "
                        f"global (mdmem edit {shlex.quote(rel)} --unset project)")
    if status == "created" and maybe is not None and not new:
        why = ": " + twin[1].split("; ", 1)[1] if twin is not None and twin[1] and "; " in twin[1] else ""
        said.append(f"it may say what {maybe} says (the same meaning, a guess{why}); if it does, keep one: mdmem "
                    f"forget {shlex.quote(rel)} archives this one (or save with --update {shlex.quote(maybe)} next "
                    f"time)")
    return SaveResult(status, rel, kind, title, desc, note.tokens, section, line, index_changed, said, reason,
                      [p for p, _ in old] if status == "created" else [], marked if status == "created" else [],
                      source, to_confirm(kind, rel, source) if status == "created" else None,
                      maybe if status == "created" and not new else None)


def _own_name(mem: Memory, rel: str, body: str, project: str | None, free: bool) -> str:
    """Where a new memory is written: ``rel``, unless a note is there that is another project's (not this
    memory's: it gets a name of its own) or, when ``free`` (``--new``, ``--supersedes``), one holding another
    text; then the first free ``<name>-2.md``, ``-3``... (``<name> 2.md`` for a name kept as written)."""
    from mdmem.text.parse import parse_note

    data, _ = fs.read_stat(mem.root, mem.root / rel)
    if data is None:
        return rel
    if Scope(project).sees(parse_note(rel, data).frontmatter) and (not free or _same_content(data, body)):
        return rel
    stem = rel[:-3]
    gap = "-" if re.fullmatch(r"[^A-Z\s]+", stem.rsplit("/", 1)[-1]) else " "
    for n in range(2, 1000):
        other = f"{stem}{gap}{n}.md"
        if fs.read_stat(mem.root, mem.root / other)[0] is None and not mem.scan.on_disk(other):
            return other
    raise MdmemError(f"no free name left beside {rel}; give one with --name")


def _held_elsewhere(mem: Memory, body: str) -> list[str]:
    """The memory notes projects own whose text is ``body`` (whitespace aside, as on disk now), in path order; none
    when a global note says it too (that one is the memory)."""
    owners = {n.path: n.project for n in mem.heads() if n.path.startswith(MEMORY_DIR + "/") and n.type != "daily"}
    found: list[str] = []
    for path in mem.same_body(" ".join(body.split())):
        data, _ = fs.read_stat(mem.root, mem.root / path)
        if path not in owners or data is None or not _same_content(data, body):
            continue
        if not owners[path]:
            return []
        found.append(path)
    return found


def _make_global(mem: Memory, held: list[str], today) -> SaveResult:
    """The user saves globally what a project's note says word for word (the first of ``held``): that note becomes
    global (its ``project`` removed, through ``edit``), one note for the fact, seen by every project (status
    "updated"); another project's copy (the rest of ``held``) is named, to archive."""
    from mdmem.base.projects import note_project
    from mdmem.ops.edit import edit
    from mdmem.text.parse import parse_note

    rel = held[0]
    owner = note_project(parse_note(rel, fs.read_bytes(mem.root, rel)).frontmatter)
    done = edit(mem, rel, unset=["project"], today=today)
    mem.refresh()
    note = parse_note(done.path, fs.read_bytes(mem.root, done.path))
    got = note.frontmatter.get("description")
    return SaveResult("updated", done.path, note.type, note.title, got if isinstance(got, str) else "", note.tokens,
                      SECTIONS.get(note.type), index_line(note), False,
                      [f"project {owner}'s note {done.path} said this word for word: it is global now (its `project:` "
                       f"removed), so every project sees it; `mdmem edit {shlex.quote(done.path)} --set "
                       f"'project=\"[[{owner}]]\"'` puts it back"]
                      + [f"{other} says it too (another project's copy): `mdmem forget {shlex.quote(other)}` archives "
                         "it, now that the global note holds it" for other in held[1:]])


def _update(mem: Memory, ref: str, body: str, section: str | None, today, allow_secret: bool = False) -> SaveResult:
    """Add ``body`` to the note ``ref`` (or replace its ``section``): one note per fact."""
    from mdmem.ops.edit import edit
    from mdmem.text.parse import parse_note

    ref = ref.strip()
    if ref.startswith("[[") and ref.endswith("]]"):
        ref = ref[2:-2].split("|", 1)[0]
    def result(status: str, path: str, data: bytes) -> SaveResult:
        note = parse_note(path, data)
        got = note.frontmatter.get("description")
        return SaveResult(status, path, note.type, note.title, got if isinstance(got, str) else "", note.tokens,
                          SECTIONS.get(note.type), index_line(note), False, [], "given")

    if not section:  # the text already in the note (a note saved since a checkpoint's list was made): nothing to add
        path = mem.resolve_note(ref)
        data = fs.read_bytes(mem.root, path)
        if holds(data, body):
            return result("unchanged", path, data)
    done = edit(mem, ref, append=None if section else body, section=section, replace=body if section else None,
                today=today, allow_secret=allow_secret)  # through the write guard, as every edit
    mem.refresh()
    return result("updated", done.path, fs.read_bytes(mem.root, done.path))


def origin(project: str | None) -> dict:
    """Where a memory comes from, as frontmatter written beside its name and type: its project
    (``project: "[[name]]"``, a link to the project's note), nothing for a global memory."""
    from mdmem.base.projects import link

    return {"project": Wikilink(link(project))} if project else {}


def project_note(mem: Memory, name: str, day: dt.date | None = None, provenance: Provenance | None = None) -> str | None:
    """Make ``memory/projects/<name>.md`` when no note of the vault is named ``name`` (the project's note, which
    every memory of the project links to), with the provenance of the save that needs it (an agent's save makes an
    agent's note); returns the path made, else None."""
    key = name_key(name)
    if any(name_key(_stem(p)) == key for p in mem.scan.notes):
        return None
    result = save(mem, f"The project {name}: what it is, its goals and status. The memories saved while working "
                       f"in it link here (their `project: \"[[{name}]]\"`).", "project", name,
                  f"Project {name}", ["project"], today=day, new=True, provenance=provenance)
    return result.path


def replaced(mem: Memory, refs, rel: str) -> list[tuple[str, str]]:
    """``(path, link)`` for each note ``refs`` names, to be superseded by the note at ``rel``: resolved
    like ``show``'s NOTE (:meth:`Memory.resolve_note`; ``[[...]]`` around it is taken off), and ``link`` the
    wikilink that reaches it from ``rel`` in the vault's "New link format" (Obsidian's ``newLinkFormat``:
    shortest, ``[[file name]]`` when that resolves to it, else ``[[vault/path]]``; relative; absolute). A name that is nowhere is :class:`~mdmem.base.errors.NoteNotFound` (exit 1); a
    bare file name several notes share, or the note itself, a usage error (exit 2)."""
    from mdmem.base.obsidian import obsidian_settings
    from mdmem.text.links import format_link, parse_wikilink
    from mdmem.text.resolve import Resolver

    if isinstance(refs, str):
        refs = [refs]
    scan = mem.scan
    notes = [*scan.notes, *scan.broken]
    resolver = Resolver([*notes, *scan.files, rel])
    obsidian = obsidian_settings(mem.root)
    out: list[tuple[str, str]] = []
    for given in refs:
        ref = given.strip()
        if ref.startswith("[[") and ref.endswith("]]"):
            ref = parse_wikilink(ref[2:-2])[0]
        if not ref:
            raise UsageError("--supersedes wants a note (its path, file name or title)")
        path = mem.resolve_note(ref)
        bare = nfc(ref).casefold().removesuffix(".md")
        if "/" not in bare:
            same = sorted(p for p in notes if _stem(p) == bare)
            if len(same) > 1 and path in same:
                raise UsageError(f"--supersedes {given!r} is ambiguous: {len(same)} notes have that name ("
                                 + ", ".join(same) + "); give its path")
        if path == rel:
            raise UsageError(f"a note cannot supersede itself ({rel})")
        if path not in (p for p, _ in out):  # a property's link is a wikilink (Obsidian's rule), in the user's form
            out.append((path, format_link(path, rel, form=obsidian.link_format, resolve=resolver.resolve)))
    return out


def _stem(path: str) -> str:
    return nfc(path.rsplit("/", 1)[-1]).casefold().removesuffix(".md")


def inside_memory(root: Path, path: Path) -> None:
    real_root = root.resolve()
    if not path.resolve().is_relative_to(real_root) or any(p.startswith(".") for p in
                                                             path.relative_to(root).parts):
        raise UsageError(f"refusing to write outside the vault's memory folders: {path}")


def _same_content(existing: bytes, body: str) -> bool:
    from mdmem.text.parse import split_note

    return split_note(existing)[1].strip() == body.strip()


def holds(existing: bytes, text: str) -> bool:
    """Does a note's body (``existing``: the file's bytes) already say ``text``, spaces aside?"""
    from mdmem.text.parse import split_note

    said = " ".join(text.split())
    return bool(said) and said in " ".join(split_note(existing)[1].split())


def check_unchanged(path: Path, seen: tuple[int, int] | None) -> None:
    from mdmem.base.errors import WriteConflict

    if fs.stat_note(path.parent, path.name) != seen:
        raise WriteConflict(f"{path} changed on disk since it was read; nothing was written")


def _undo_new(path: Path, data: bytes) -> None:
    """Take back a note this call has just created (its own bytes, still untouched)."""
    current, _ = fs.read_stat(path.parent, path.name)
    if current == data:
        os.unlink(path)

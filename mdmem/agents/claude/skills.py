"""mdmem's skills for Claude Code: ``/memory-check``, ``/consolidate`` and the model-invoked memory skill.

Claude Code merged custom slash commands into skills: ``.claude/skills/NAME/SKILL.md`` (in a project, or
``~/.claude/skills/`` for the user) gives ``/NAME``. Its YAML frontmatter (Claude Code's documentation,
"Extend Claude with skills"): ``name`` (lower-case letters, digits and hyphens: the command),
``description`` (what it does and when to use it: Claude reads it to decide when to load the skill),
``disable-model-invocation: true`` (only the user starts it: ``/memory-check`` and ``/consolidate`` act
on the vault when asked) and ``user-invocable: false`` (no ``/`` command: background knowledge the
model loads itself, the memory skill). Not ``/checkpoint``: Claude Code uses that name as an alias of
``/rewind``.

``mdmem install claude`` writes them (:func:`install`) and ``mdmem uninstall claude`` removes them
(:func:`uninstall`); a file is written only when its bytes change, and only a file mdmem wrote (it
carries :data:`MARK`) is ever replaced or removed: a skill of the user's with the same name is left
alone, with a warning. Standard library only.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from mdmem.base.errors import MdmemError
from mdmem.base.files import write_atomic

MARK = "<!-- mdmem: written by `mdmem install claude`; `mdmem uninstall claude` removes it, a new install replaces it -->"
NAMES = ("memory-check", "consolidate", "mdmem-memory")


@dataclass(frozen=True)
class SkillAction:
    name: str
    path: str
    action: str  # added | updated | unchanged | removed | absent | kept (a file that is not mdmem's)


@dataclass(frozen=True)
class SkillsResult:
    folder: str
    skills: list[SkillAction]
    dry_run: bool
    warnings: list[str]


def folder(scope: str, project: str | os.PathLike | None = None) -> Path:
    """Where skills live: ``<project>/.claude/skills`` (project scope) or ``~/.claude/skills`` (user scope,
    ``$CLAUDE_CONFIG_DIR/skills`` when set)."""
    from mdmem.agents.claude.env import find_project, user_config_dir

    if scope == "user":
        return user_config_dir() / "skills"
    if scope in ("project", "local"):
        return find_project(project) / ".claude" / "skills"
    raise MdmemError(f"unknown scope {scope!r}: use project or user")


def texts(vault: str | os.PathLike, exe: str | None = None, protocol: str | None = None) -> dict[str, str]:
    """The three SKILL.md files, for this vault and this way of running mdmem."""
    from mdmem.agents.launch import runner
    from mdmem.text.protocol import memory_protocol

    run = exe or runner()
    v = "--vault " + shlex.quote(str(Path(vault).absolute()))
    protocol = (protocol or memory_protocol(run=run, vault=str(Path(vault).absolute()))).strip()
    rules = "\n".join(line for line in protocol.splitlines() if not line.startswith("#"))
    check = f"""---
name: memory-check
description: Audit the user's mdmem memory vault (token budget, types, largest files, problems) and offer the fixes. Use when the user types /memory-check or asks whether their memory is healthy, too big or broken.
disable-model-invocation: true
---
{MARK}
# Check the memory vault

1. Run `{run} check --json {v}` and read the report.
2. Show the user, briefly: the budget (tokens used of the cap and the percentage), the notes by type, the
   largest files, then every issue, worst first (severity, code, file, what to do).
3. Offer the suggested fixes one at a time and make each only when the user says yes. Change notes with
   mdmem's tools (MCP `edit_note`, `move_note`, `forget`, or `{run} edit|move|forget ... {v}`); never delete a
   file: forgetting archives it.
4. Refresh the budget comment on MEMORY.md's first line only when the user asks for it:
   `{run} check --update-budget {v}`.
"""
    consolidate = f"""---
name: consolidate
description: Look back over this conversation for what is worth remembering (decisions and why, rules and corrections, preferences, protocols, references, delivered work, milestones) and propose at most three memories for the user to pick. Use when the user types /consolidate or asks to consolidate, review or summarise what to keep.
disable-model-invocation: true
---
{MARK}
# Consolidate now

Scan this conversation from its start (or from the last checkpoint) now, as the memory protocol says:

{rules}

Before proposing, recall what the vault already holds (MCP `recall`/`search`, or `{run} recall "<subject>" {v}`)
and leave out anything it says already. Without a model at hand, `{run} checkpoint {v}` runs mdmem's own
detectors on this project's newest transcript and lists its suggestions; `{run} checkpoint accept 1,3 {v}`
saves the ones the user picks.
"""
    memory = f"""---
name: mdmem-memory
description: The user's long-term memory (mdmem, a Markdown vault shared with their notes app). Use before answering about past work, people, projects or decisions; when the user states a preference, corrects you, decides something or shares a fact worth keeping; and to propose what to save.
user-invocable: false
---
{MARK}
# The user's memory

## Recall before answering
When a person, a project, an earlier decision or "what we did" comes up, or before asking the user something
they may have told you already: MCP `recall` (a ready block: the best notes and the notes linked to them; a
time phrase such as "last week" narrows it) or `search`, then `read_note` for a whole note. CLI:
`{run} recall "<question>" {v}`. The session's memory card lists the feedback and protocols to follow.

## What to save, under which type
- `user`: who the user is, their role, context and lasting preferences.
- `feedback`: how the user wants you to work: a correction ("don't ...") or a confirmed practice, with why.
- `decision`: a choice, why it was made and what was given up (`chosen`, `rejected`).
- `protocol`: a procedure or rule for a domain, tool or kind of file (`paths:` globs for the files it governs).
- `project`: a piece of work's goal, status, stack and links to its decisions.
- `person`: someone the user works with and how to work with them.
- `reference`: facts to look up later (how an API behaves, thresholds, where things are).

## Never save
Code, file paths, git history, secrets, the state of the current task, or what CLAUDE.md or a protocol says
already. Save only what stays true and will matter in another session.

## Keep notes right
Update a note rather than saving a near-duplicate: `read_note` (it returns the note's `version`), then
`edit_note` with that version (append, replace a section, set or remove frontmatter keys); `move_note` renames
and rewrites every link to the note; `forget` archives. Every write asks the user first.

## Propose a checkpoint
{rules}
"""
    return {"memory-check": check, "consolidate": consolidate, "mdmem-memory": memory}


_SEAL = "<!-- mdmem sha256:{} -->\n"  # the last line of a skill mdmem wrote: the hash of what comes before it


def _sealed(text: str) -> bytes:
    """A skill's bytes as written: its text, then :data:`_SEAL` with the text's hash (so an edit is seen)."""
    import hashlib

    data = text.encode("utf-8")
    return data + _SEAL.format(hashlib.sha256(data).hexdigest()).encode()


def _edited(data: bytes) -> bool:
    """Was a skill mdmem wrote changed since (its hash line missing or not its text's)?"""
    import hashlib

    body, _, last = data.rstrip(b"\n").rpartition(b"\n")
    body += b"\n"
    return last.decode("ascii", "replace") + "\n" != _SEAL.format(hashlib.sha256(body).hexdigest())


def _ours(path: Path) -> bool | None:
    """True: a SKILL.md mdmem wrote; False: someone else's; None: no file."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except FileNotFoundError:
        return None
    except OSError:
        return False
    return MARK.encode() in head


def install(scope: str, vault: str | os.PathLike, project: str | os.PathLike | None = None, *,
            exe: str | None = None, protocol: str | None = None, dry_run: bool = False) -> SkillsResult:
    """Write mdmem's skills (only what changed; never over a skill mdmem did not write)."""
    where = folder(scope, project)
    done, warnings = [], []
    for name, text in texts(vault, exe, protocol).items():
        path = where / name / "SKILL.md"
        data = _sealed(text if text.endswith("\n") else text + "\n")
        mine = _ours(path)
        if mine is False:
            done.append(SkillAction(name, str(path), "kept"))
            warnings.append(f"{path} is not mdmem's: left as it is (move it away to get mdmem's /{name})")
            continue
        old = path.read_bytes() if mine else None
        if old is not None and old != data and _edited(old):
            done.append(SkillAction(name, str(path), "kept"))
            warnings.append(f"{path} was edited since mdmem wrote it: left as it is (move it away to get "
                            f"mdmem's /{name} again)")
            continue
        action = "added" if old is None else ("unchanged" if old == data else "updated")
        if action != "unchanged" and not dry_run:
            st = os.stat(path) if old is not None else None
            write_atomic(path, data, expected=(st.st_mtime_ns, st.st_size) if st else None)
        done.append(SkillAction(name, str(path), action))
    return SkillsResult(str(where), done, dry_run, warnings)


def uninstall(scope: str, project: str | os.PathLike | None = None, *, dry_run: bool = False) -> SkillsResult:
    """Remove mdmem's skills (their folders too, when nothing else is left in them)."""
    where = folder(scope, project)
    done, warnings = [], []
    for name in NAMES:
        path = where / name / "SKILL.md"
        mine = _ours(path)
        if mine is None:
            done.append(SkillAction(name, str(path), "absent"))
            continue
        if mine is False:
            done.append(SkillAction(name, str(path), "kept"))
            warnings.append(f"{path} is not mdmem's: left as it is")
            continue
        if _edited(path.read_bytes()):  # the user changed it: theirs now, never deleted
            done.append(SkillAction(name, str(path), "kept"))
            warnings.append(f"{path} was edited since mdmem wrote it: left as it is (delete it yourself if "
                            "you no longer want it)")
            continue
        if not dry_run:
            os.unlink(path)
            try:
                path.parent.rmdir()
            except OSError:
                pass  # the user keeps other files there
        done.append(SkillAction(name, str(path), "removed"))
    if not dry_run:
        try:
            where.rmdir()  # .claude/skills/ when mdmem's were the only skills
        except OSError:
            pass
    return SkillsResult(str(where), done, dry_run, warnings)


def status(project: str | os.PathLike | None = None) -> list[SkillAction]:
    """Each of mdmem's skills in the project's and the user's skills folders: installed (mdmem's),
    someone else's, or absent."""
    out = []
    for scope in ("project", "user"):
        where = folder(scope, project)
        for name in NAMES:
            path = where / name / "SKILL.md"
            mine = _ours(path)
            out.append(SkillAction(name, str(path), {True: "installed", False: "not mdmem's", None: "absent"}[mine]))
    return out

"""The token budget: estimates, MEMORY.md's index lines and budget comment, and
the audit behind ``mdmem check``. Returns frozen dataclasses, never prints.

It audits the memory files (under ``memory/``, or beside ``MEMORY.md`` in a flat vault) and
``MEMORY.md`` against the budget, and reports issues by kind and severity (``info`` < ``warning`` <
``error``); facts that supersede or expire are :mod:`mdmem.ops.check_facts`. Tokens are
``floor(bytes / 3.2)``.

Details and reasons: docs/decisions/053-check-audit.md
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mdmem.base.layout import INDEX_NAME, MEMORY_DIR, nfc, sync_conflicts
from mdmem.base.models import Issue, Note
from mdmem.base.settings import CheckSettings
from mdmem.base.vault import is_flat
from mdmem.ops.budget import budget_comment, index_line, percent_of, update_budget, with_budget_comment
from mdmem.ops.check_facts import index_issues as superseded_lines
from mdmem.ops.check_facts import issues as facts_issues
from mdmem.ops.check_facts import pairs_declared
from mdmem.text.parse import decode, split_frontmatter, tokens_for
from mdmem.text.similar import near_duplicates
from mdmem.text.validity import supersedes

if TYPE_CHECKING:
    from mdmem.base.settings import Judge
    from mdmem.engine.memory import Memory
    from mdmem.ops.check_judge import JudgeReport
    from mdmem.text.resolve import Resolver

KNOWN_TYPES = (
    "user", "feedback", "project", "reference", "decision", "person", "protocol", "daily", "digest",
)
OPTIONAL_TYPES = ("digest", "other")  # rows of the type table shown only when such files exist
JOURNAL_TYPES = ("daily", "digest")  # no index line needed, never STALE or DUPLICATE
CORE_TYPES = ("user", "feedback", "project", "reference", "decision")
SEVERITIES = ("info", "warning", "error")
KINDS = (
    "MISSING FOLDER", "NO INDEX", "UNFINISHED MOVE", "BUDGET WARNING", "SECRET", "NAME TWINS", "LOAD LIMIT", "BROKEN LINK",
    "INVALID FRONTMATTER", "PARSE PROBLEM", "NOT TEXT", "SYNC CONFLICT", "ORPHAN", "DANGLING", "DUPLICATE",
    "OVERSIZED",
    "SUPERSEDES", "SUPERSEDED", "VALID UNTIL", "MISSING TYPE", "SUPERSEDE?", "EXPIRED", "STALE", "NO ENTRIES",
    "IN TWO PROJECTS",
)
PROBLEM_SEVERITY = {
    "invalid_yaml": "error", "frontmatter_not_mapping": "error", "unreadable": "error",
    "symlink_loop": "error", "outside_vault": "error", "parse_error": "error", "not_utf8": "warning", "empty": "warning",
    "too_large": "warning", "bom": "info",
}
FRONTMATTER_PROBLEMS = ("invalid_yaml", "frontmatter_not_mapping")

_YAML_LINE = re.compile(r"line (\d+), column")


# --------------------------------------------------------------------------- settings and results


@dataclass(frozen=True)
class Budget:
    tokens: int  # memory files, floor(total bytes / 3.2)
    cap: int
    percent: float  # of the cap, one decimal
    index_tokens: int  # MEMORY.md's own tokens, apart
    files: int  # memory files


@dataclass(frozen=True)
class TypeCount:
    files: int
    tokens: int


@dataclass(frozen=True)
class TopFile:
    path: str
    type: str
    tokens: int
    percent: float  # of the cap


@dataclass(frozen=True)
class GrowthBucket:
    files: int
    tokens: int


@dataclass(frozen=True)
class Growth:
    """Memory files by mtime: changed in the last 7 days, and 8 to 30 days ago."""

    last_7_days: GrowthBucket
    days_8_to_30: GrowthBucket


@dataclass(frozen=True)
class CheckReport:
    budget: Budget
    types: dict[str, TypeCount]  # the eight known types always, "digest" and "other" when present
    top: list[TopFile]
    growth: Growth
    issues: list[Issue]
    today: str
    layout: str  # "vault" (memory files under memory/), "flat" (every note but MEMORY.md), "none" (no
    # MEMORY.md, no memory/: nothing audited) or "missing" (no folder)
    # Markdown files the vault's Obsidian settings keep out (never notes, never audited): "excluded" (Excluded
    # files) and "template" (the templates folder) -> how many
    left_out: dict[str, int] = field(default_factory=dict)
    sessions_unreviewed: dict[str, int] = field(default_factory=dict)  # imported sessions (sessions/) never
    # reviewed, by project ("" for none): not memory, not in the budget; a reminder that they wait
    judge: JudgeReport | None = None  # with a judge set: its verdicts on the guessed duplicates (decision 127)

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in SEVERITIES}
        for issue in self.issues:
            out[issue.severity] += 1
        return out

    def fails(self, severity: str) -> bool:
        """Is there an issue at or above ``severity``?"""
        rank = SEVERITIES.index(severity)
        return any(SEVERITIES.index(i.severity) >= rank for i in self.issues)


# --------------------------------------------------------------------------- the audit


def audit(mem: Memory, settings: CheckSettings = CheckSettings(), today: dt.date | None = None,
          all_notes: bool = False, judge: Judge | None = None, asks: bool = True) -> CheckReport:
    """Audit the vault from its (refreshed) notes cache; reads the memory files
    again only for the duplicate check and MEMORY.md for the load limit.
    ``all_notes``: every note but MEMORY.md is a memory file, whatever the layout. The Markdown files the
    vault's Obsidian settings leave out (``Scan.excluded``) are counted apart (``left_out``), never audited.
    ``judge``: the user's model command, asked about each duplicate guessed by meaning
    (:mod:`mdmem.ops.check_judge`); None: none asked. ``asks``: False, only the answers it gave before are used
    (the MCP server's ``check``: a read that never waits on a model, nor spends on one)."""
    report = _audit_notes(mem, settings, today, all_notes, judge, asks)
    left_out: dict[str, int] = {}
    for why in mem.scan.excluded.values():
        left_out[why] = left_out.get(why, 0) + 1
    return replace(report, left_out=dict(sorted(left_out.items()))) if left_out else report


def _audit_notes(mem: Memory, settings: CheckSettings, today: dt.date | None, all_notes: bool,
                 judge: Judge | None = None, asks: bool = True) -> CheckReport:
    from mdmem.base import files as fs

    today = today or dt.date.today()
    notes = list(mem.store.notes())
    index = next((n for n in notes if n.path == INDEX_NAME), None)
    if index is None:  # a case-insensitive file system, or MEMORY.md spelled otherwise
        index = next((n for n in notes if n.path.lower() == INDEX_NAME.lower()), None)
    layout = "flat" if all_notes or is_flat(mem.root) else "vault"
    if layout == "flat" and index is None and not all_notes:
        return no_layout(mem.root, len(notes), settings, today)
    prefix = MEMORY_DIR + "/"
    memory = [n for n in notes if n is not index and (layout == "flat" or n.path.startswith(prefix))]
    binary = [n for n in memory if any(p.code == fs.NOT_TEXT for p in n.problems)]  # not notes: reported once
    if binary:
        memory = [n for n in memory if n not in binary]

    cache: dict[str, bytes | None] = {}

    def read(rel: str) -> bytes | None:  # each file at most once (duplicates, then STALE lines)
        if rel not in cache:
            try:
                cache[rel] = fs.read_bytes(mem.root, rel)
            except OSError:
                cache[rel] = None
        return cache[rel]

    scan = mem.scan
    resolver = mem.resolver
    # folders that could not be listed, symlink loops, undecodable file names: findings too
    found = [_problem_issue(path, problem) for path, problem in scan.problems
             if layout == "flat" or path.startswith(prefix)]
    found = [i if i.detail.startswith(("unreadable", "outside_vault")) else replace(i, severity="warning")
             for i in found]
    mine = (lambda path: True) if layout == "flat" else (lambda path: path.startswith(prefix))
    found += [i for i in _twins(scan) if mine(i.path)]
    copies = {copy: v for copy, v in sync_conflicts(scan.notes).items() if mine(copy)}
    found += [_conflict_issue(copy, original, tool, original in scan.notes)
              for copy, (original, tool) in sorted(copies.items())]
    found += [replace(_problem_issue(n.path, n.problems[0]), kind="NOT TEXT",
                      action="move it out of the vault, or rename it from .md (it is never read as a note)")
              for n in binary]
    found += _secrets([*memory, *([index] if index else [])], read)
    from mdmem.ops import journal
    from mdmem.ops.sessions import unreviewed

    if journal.pending(mem):
        found.append(Issue("UNFINISHED MOVE", ".", "a move was interrupted before all its links were rewritten "
                           "(its journal is in .mdmem/move.json)", "mdmem move --resume finishes it (so does the "
                           "next write)", "error"))
    found += unused([n for n in memory if n.path not in copies], mem.state_dir, settings, today)
    asker = None if judge is None else (judge, mem.state_dir, asks)
    report = _audit([n for n in memory if n.path not in copies], index, resolver, read, settings, today, layout,
                    found, memory, asker)
    return replace(report, sessions_unreviewed=unreviewed(mem))


def missing_folder(path: Path, settings: CheckSettings = CheckSettings(), today: dt.date | None = None) -> CheckReport:
    """The report for a vault folder that does not exist."""
    issue = Issue("MISSING FOLDER", ".", f"{path} does not exist or is not a folder",
                  "pass the right --vault, or create a vault there with `mdmem init`", "error")
    return _report([], None, settings, today or dt.date.today(), [issue], "missing")


def no_layout(root: Path, notes: int, settings: CheckSettings = CheckSettings(),
              today: dt.date | None = None) -> CheckReport:
    """The report for a folder with neither MEMORY.md nor memory/: said once, nothing else audited."""
    import shlex

    issue = Issue("NO MEMORY LAYOUT", ".",
                  f"no {INDEX_NAME} and no {MEMORY_DIR}/ folder: an agent loads nothing from this vault, so its "
                  f"{notes} note{'s' if notes != 1 else ''} {'are' if notes != 1 else 'is'} not audited as memory",
                  f"add the layout with `mdmem init {shlex.quote(str(root))}` (it adds {INDEX_NAME}, "
                  f"{MEMORY_DIR}/ and .mdmem/, and changes no existing file); or audit every note with "
                  "`mdmem check --all`", "warning")
    return _report([], None, settings, today or dt.date.today(), [issue], "none")


def _report(memory, index, settings, today, issues, layout, judge: JudgeReport | None = None) -> CheckReport:
    total = tokens_for(sum(n.size for n in memory))
    budget = Budget(total, settings.cap, round(total * 100 / settings.cap, 1),
                    index.tokens if index else 0, len(memory))
    by_type: dict[str, list[Note]] = defaultdict(list)
    for note in memory:
        by_type[note.type if note.type in KNOWN_TYPES else "other"].append(note)
    types = {t: TypeCount(len(by_type[t]), tokens_for(sum(n.size for n in by_type[t])))
             for t in (*KNOWN_TYPES, "other") if t not in OPTIONAL_TYPES or by_type[t]}
    largest = sorted(memory, key=lambda n: (-n.size, n.path))[:5]
    top = [TopFile(n.path, n.type, n.tokens, round(n.tokens * 100 / settings.cap, 1)) for n in largest]
    buckets: dict[int, list] = {7: [], 30: []}
    for note in memory:
        age = _age(_mtime_date(note), today)
        if age <= 7:
            buckets[7].append(note)
        elif age <= 30:
            buckets[30].append(note)
    growth = Growth(*(GrowthBucket(len(b), tokens_for(sum(n.size for n in b))) for b in buckets.values()))
    order = {k: i for i, k in enumerate(KINDS)}
    issues = sorted(issues, key=lambda i: (-SEVERITIES.index(i.severity), order.get(i.kind, len(order)),
                                           i.path, i.line or 0))  # stable: ties keep the order found
    from mdmem.text.secrets import redact, values

    # a token in a file name is shown by no line of the report (SECRET names the file, redacted), in any spelling
    tokens = sorted({v for i in issues if i.kind == "SECRET" and i.line is None for v in values(i.path)},
                    key=len, reverse=True)

    def hide(text: str) -> str:
        for token in tokens:
            text = text.replace(token, "[redacted]")
        return redact(text) if tokens else text

    if tokens:
        issues = [replace(i, path=redact(i.path), detail=hide(i.detail), action=hide(i.action)) for i in issues]
        top = [replace(t, path=hide(t.path)) for t in top]
        if judge is not None:
            judge = replace(judge, pairs=[replace(p, new=hide(p.new), old=hide(p.old), why=p.why and hide(p.why))
                                          for p in judge.pairs])
    return CheckReport(budget, types, top, growth, issues, today.isoformat(), layout, judge=judge)


def _audit(memory: list[Note], index: Note | None, resolver: Resolver, read, settings: CheckSettings, today: dt.date,
           layout: str, found: list[Issue], counted: list[Note] | None = None,
           asker: tuple[Judge, Path, bool] | None = None) -> CheckReport:
    """``memory``: the notes checked one by one (sync conflict copies left out: they are reported as
    such); ``counted``: the notes the budget counts (every memory file, copies included); ``asker``: the judge
    the state folder its answers are kept in, and whether it is asked (else only its kept answers are used)."""
    issues: list[Issue] = list(found)
    memory, checked = (counted if counted is not None else memory), memory
    total = tokens_for(sum(n.size for n in memory))
    issues += _budget_issues(total, settings)
    issues += _index_issues(memory, index, resolver, read, settings)
    issues += _note_issues(checked, index, resolver, read, settings, today)
    pairs = near_duplicates([n for n in checked if n.type not in JOURNAL_TYPES], read, settings.duplicate_similarity)
    pairs, apart = _apart(pairs, checked)
    declared = pairs_declared(checked, resolver)
    verdicts = None
    if asker is not None:
        from mdmem.ops.check_judge import judged

        pairs, verdicts = judged(asker[0], asker[1], pairs, checked, read, declared, asks=asker[2])
    issues += _duplicates(pairs, declared)
    issues += apart
    issues += facts_issues(checked, resolver, pairs, today)
    issues += superseded_lines(index, checked, resolver, read)
    present = {n.type for n in memory}
    issues += [
        Issue("NO ENTRIES", ".", f"no memory of type {t!r}",
              f"nothing to do if none is needed; else save one with type: {t}", "info")
        for t in CORE_TYPES if t not in present
    ]
    return _report(memory, index, settings, today, issues, layout, verdicts)


def unused(memory: list[Note], state_dir, s: CheckSettings, today: dt.date) -> list[Issue]:
    """UNUSED (info): memories no prompt, recall or read used for ``unused_days`` (:mod:`mdmem.base.usage`; a
    note never used counts from its own date, or its file's): candidates to archive. ``check`` never archives."""
    if not s.unused_days:
        return []
    from mdmem.base.usage import read as usage

    used = usage(state_dir)
    out = []
    for note in memory:
        if note.type in JOURNAL_TYPES or note.type in ("user", "person", "project"):
            continue  # a day, the user, a person or a project is kept whether or not it is asked about
        last = used.get(note.path, (0, 0.0))[1]
        since = dt.date.fromtimestamp(last) if last else (_parse_day(note.date) or _mtime_date(note))
        days = (today - since).days
        if days >= s.unused_days:
            what = "never used" if not last else f"last used {since.isoformat()}"
            out.append(Issue("UNUSED", note.path, f"{what}: {days} days without being recalled, injected or read",
                             f"a candidate to archive (mdmem forget {note.path}); check never archives", "info"))
    return out


def _secrets(notes: list[Note], read) -> list[Issue]:
    """SECRET: each line of a note, and each file name, that holds what looks like a secret (the kind, never the
    value; the report's paths are redacted in :func:`_report`)."""
    from mdmem.text.secrets import find

    issues = []
    for note in notes:
        for s in find(note.path):
            issues.append(Issue("SECRET", note.path, f"its file name holds what looks like "
                                 f"{'an' if s.kind[0] in 'AEIOUaeiou' else 'a'} {s.kind} (not shown here)",
                                 "rename the note (mdmem move) and rotate the secret if the vault was ever synced, "
                                 "shared or committed", "error"))
        data = read(note.path)
        if not data:
            continue
        for s in find(decode(data)[0]):
            issues.append(Issue(
                "SECRET", note.path, f"line {s.line}: what looks like {'an' if s.kind[0] in 'AEIOUaeiou' else 'a'} "
                f"{s.kind} (not shown here)", "remove it from the note and keep it in a password manager; rotate "
                "it if the vault was ever synced, shared or committed", "error", s.line))
    return issues


def _conflict_issue(copy: str, original: str, tool: str, original_exists: bool) -> Issue:
    action = (f"compare it with {original}, merge what differs into {original}, then archive the copy: "
              f"mdmem forget \"{copy}\"") if original_exists else \
        f"the original is gone: rename the copy to {posixpath.basename(original)} if it is the version to keep"
    return Issue("SYNC CONFLICT", copy, f"a conflict copy of {original}"
                 + ("" if original_exists else " (which no longer exists)")
                 + f", left by {tool}; it stays out of search, recall and context until resolved", action, "warning")


def _twins(scan) -> list[Issue]:
    """NAME TWINS: names in one folder that are equal once NFC-normalised (``café.md`` written NFC and
    NFD): two files on Linux, one name everywhere else. mdmem reads both (the walker keeps every name as it
    is on disk), but a link or a NOTE argument is matched by its NFC key, so it reaches only the NFC-named
    one (:mod:`mdmem.text.resolve`); Obsidian on macOS or Windows would show one of the two. Found from the
    walk's own names (notes, other files, folders), only when the vault has a non-ASCII name at all."""
    groups: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path in (*scan.notes, *scan.broken, *scan.files, *scan.folders):
        if not path.isascii():
            folder, _, name = path.rpartition("/")
            groups[(folder, nfc(name))].add(name)
    issues = []
    for (folder, key), names in sorted(groups.items()):
        if len(names) < 2:
            continue
        forms = ", ".join(sorted("NFC" if n == key else "NFD" if n == unicodedata.normalize("NFD", n)
                                 else "mixed" for n in names))
        kind = "folders" if any((f"{folder}/{n}" if folder else n) in scan.folders for n in names) else "files"
        issues.append(Issue(
            "NAME TWINS", f"{folder}/{key}" if folder else key,
            f"{len(names)} {kind} here have this name written in different Unicode forms ({forms}): one name "
            "to Obsidian on macOS and Windows, and every link or name reaches only the NFC-named one",
            "rename one of them, or merge them into one and archive the other", "error"))
    return issues


def _budget_issues(total: int, s: CheckSettings) -> list[Issue]:
    if total * 100 < s.warn_percent * s.cap:
        return []
    pct = percent_of(total, s.cap)
    over = total >= s.cap
    detail = f"memory files use ~{total}tk of {s.cap}tk ({pct}%)" + (
        ", at or over the cap" if over else f", at or above the {s.warn_percent:g}% warning line")
    return [Issue("BUDGET WARNING", ".", detail,
                  "archive stale notes (mdmem forget), merge duplicates, shorten the largest files",
                  "error" if over else "warning")]


def _index_issues(memory, index, resolver: Resolver, read, s: CheckSettings) -> list[Issue]:
    if index is None:
        n = len(memory)
        return [Issue("NO INDEX", INDEX_NAME,
                      f"no {INDEX_NAME}: an agent loads nothing" + (f" of the {n} memory files" if n else ""),
                      f"create {INDEX_NAME} with one line per memory", "error" if n else "warning")]
    issues: list[Issue] = []
    for problem in index.problems:
        issues.append(_problem_issue(index.path, problem))
    # which lines an agent loads: the first load_lines lines, cut at load_bytes
    data = read(index.path) or b""
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()  # the final newline ends the last line; it does not start another
    visible, end = 0, -1  # lines loaded whole; end = the byte offset where the current line ends
    for line in lines:
        end += 1 + len(line)
        if visible >= s.load_lines or end > s.load_bytes:
            break
        visible += 1
    past: set[str] = set()
    for link in index.links:
        if not link.target:
            continue
        target = resolver.resolve(link.target, index.path)
        if target is None:
            issues.append(Issue(
                "BROKEN LINK", INDEX_NAME,
                f"line {link.line}: {link.raw} points at a missing file ({link.target})",
                "fix the path, or remove the line (the memory is gone)", "error", link.line))
        shown = target or link.target
        if link.line > visible and shown not in past:
            past.add(shown)
            why = (f"past the first {s.load_lines} lines" if link.line > s.load_lines
                   else f"past the first {s.load_bytes} bytes")
            issues.append(Issue(
                "LOAD LIMIT", shown, f"its index line ({INDEX_NAME} line {link.line}) is {why}: an agent "
                "never sees it", f"shorten {INDEX_NAME} (archive or merge entries) or move the line up",
                "error"))  # no `line`: it would read as a line of the entry's own file
    if not past and any(line.strip() for line in lines[visible:]):
        issues.append(Issue(
            "LOAD LIMIT", INDEX_NAME, f"{len(lines)} lines, {len(data)} bytes: the text past line {visible} "
            f"never loads (limits: {s.load_lines} lines, {s.load_bytes} bytes)", f"shorten {INDEX_NAME}",
            "warning", visible + 1))
    return issues


def _problem_issue(path: str, problem) -> Issue:
    severity = PROBLEM_SEVERITY.get(problem.code, "warning")
    if problem.code in FRONTMATTER_PROBLEMS:
        m = _YAML_LINE.search(problem.message)
        line = int(m.group(1)) + 1 if m else 1  # YAML counts from the line after the opening ---
        return Issue("INVALID FRONTMATTER", path, f"{problem.code}: {problem.message}",
                     "fix the YAML between the --- lines (until then its type, tags and dates are unknown)",
                     severity, line)
    action = ("re-save the file as plain UTF-8 Markdown" if problem.code in ("bom", "not_utf8")
              else "remove the symlink, or move what it points at into the vault (mdmem never reads "
                   "outside the vault)" if problem.code == "outside_vault"
              else "remove it, or rename it from .md (mdmem never opens it)" if problem.code == "not_regular"
              else "check the file")
    return Issue("PARSE PROBLEM", path, f"{problem.code}: {problem.message}", action, severity)


def _note_issues(memory, index, resolver: Resolver, read, s: CheckSettings, today: dt.date) -> list[Issue]:
    issues: list[Issue] = []
    listed: set[str] = set()
    if index is not None:
        resolved = (resolver.resolve(link.target, index.path) for link in index.links if link.target)
        listed = {t for t in resolved if t}
    oversized = s.cap * s.oversized_percent / 100
    for note in memory:
        daily = note.type in JOURNAL_TYPES
        for problem in note.problems:
            issues.append(_problem_issue(note.path, problem))
        if index is not None and not daily and note.path not in listed:
            issues.append(Issue("ORPHAN", note.path, f"no line of {INDEX_NAME} links to it",
                                f"add to {INDEX_NAME}: {index_line(note)}", "warning"))
        if note.type != "digest":
            issues += _dangling(note, resolver, supersedes(note.frontmatter))
        if note.tokens > oversized:
            issues.append(Issue(
                "OVERSIZED", note.path, f"~{note.tokens}tk is {note.tokens * 100 / s.cap:.1f}% of the "
                f"{s.cap}tk budget (limit {s.oversized_percent:g}%)",
                "split it, or move detail out of memory into the project's docs", "warning"))
        bad_fm = any(p.code in FRONTMATTER_PROBLEMS for p in note.problems)
        if not bad_fm and not _has_type(note):
            if note.type in KNOWN_TYPES:
                issues.append(Issue(
                    "MISSING TYPE", note.path, f"no type: in the frontmatter (the folder implies {note.type})",
                    f"add `type: {note.type}` to its frontmatter", "info"))
            else:
                issues.append(Issue(
                    "MISSING TYPE", note.path, "no type: in the frontmatter, and no folder implies one",
                    "add `type:` (user, feedback, project, reference, decision, person, protocol) to its "
                    "frontmatter", "warning"))
        if s.stale_days and not daily and (note.mtime_ns or _has_updated(note)):  # 0: never read (a FIFO...)
            day, source = _modified(note)
            age = _age(day, today)
            if age >= s.stale_days:
                issues.append(Issue(
                    "STALE", note.path, f"not modified for {age} days ({source} {day.isoformat()})",
                    "review it: update it (and its updated: date), or archive it with mdmem forget", "info",
                    _updated_line(read(note.path)) if source == "updated:" else None))
    return issues


def _dangling(note: Note, resolver: Resolver, reported=()) -> list[Issue]:
    """DANGLING for each missing link target (not the ``reported`` ones: supersedes links, SUPERSEDES's)."""
    missing: dict[str, list] = {}
    for link in note.links:
        if link.target and not resolver.exists(link.target, note.path) \
                and not (link.kind == "frontmatter" and link.target in reported):
            missing.setdefault(nfc(link.target).lower(), []).append(link)
    out = []
    for links in missing.values():
        lines = sorted({link.line for link in links})
        where = ("lines " if len(lines) > 1 else "line ") + ", ".join(map(str, lines))
        out.append(Issue("DANGLING", note.path,
                         f"{where}: {links[0].raw} points at nothing in the vault ({links[0].target})",
                         "create the note, fix the link, or unlink it", "warning", lines[0]))
    return out


def _has_updated(note: Note) -> bool:
    return _parse_day(note.frontmatter.get("updated")) is not None


def _has_type(note: Note) -> bool:
    value = note.frontmatter.get("type")
    return isinstance(value, str) and bool(value.strip())


def _parse_day(value) -> dt.date | None:
    if isinstance(value, str) and len(value) >= 10:
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def _mtime_date(note: Note) -> dt.date:
    return dt.datetime.fromtimestamp(note.mtime_ns / 1e9, dt.UTC).date()


def _modified(note: Note) -> tuple[dt.date, str]:
    """When the note was last changed: frontmatter ``updated:`` when it is a date
    (a git checkout resets every mtime), else the file's mtime."""
    day = _parse_day(note.frontmatter.get("updated"))
    return (day, "updated:") if day else (_mtime_date(note), "mtime")


def _age(day: dt.date, today: dt.date) -> int:
    return max(0, (today - day).days)


def _updated_line(data: bytes | None) -> int | None:
    """The line of ``updated:`` in the frontmatter (the cache keeps no key lines)."""
    if not data:
        return None
    text, _ = decode(data[:20_000])
    raw, _, offset = split_frontmatter(text)
    for i, line in enumerate((raw or "").split("\n")[: max(0, offset - 1)]):
        if line.startswith("updated:"):
            return i + 2
    return None


def _duplicates(pairs: list[tuple[str, str, str]], declared: set[tuple[str, str]]) -> list[Issue]:
    """DUPLICATE for each near-duplicate pair, but a pair where one note supersedes the other."""
    return [
        Issue("DUPLICATE", a, f"near-duplicate of {b}: {why}",
              "merge the two into one note and archive the other (mdmem forget)", "warning")
        for a, b, why in pairs if (a, b) not in declared
    ]


def _apart(pairs: list[tuple[str, str, str]], notes: list[Note]) -> tuple[list[tuple[str, str, str]], list[Issue]]:
    """The near-duplicate pairs within one project or the global memory, and IN TWO PROJECTS (info) for each pair of
    two projects' notes: each project holds its own memory (decision 030), so that is no duplicate to merge; a
    rule both keep may hold everywhere, a global note (decision 115)."""
    from mdmem.base.projects import note_project

    owner = {n.path: note_project(n.frontmatter) for n in notes}
    kept: list[tuple[str, str, str]] = []
    found: list[Issue] = []
    for a, b, why in pairs:
        pa, pb = owner.get(a), owner.get(b)
        if pa and pb and pa.casefold() != pb.casefold():
            found.append(Issue("IN TWO PROJECTS", a, f"the same in projects {pa} and {pb} ({b}: {why}): make it "
                               "global?", f"if it holds in every project, make one global (mdmem edit {a} --unset "
                               f"project) and archive the other (mdmem forget {b}); else nothing to do", "info"))
        else:
            kept.append((a, b, why))
    return kept, found


__all__ = [
    "Budget", "CheckReport", "Growth", "GrowthBucket", "Issue", "TopFile", "TypeCount",
    "audit", "budget_comment", "index_line", "missing_folder", "no_layout", "update_budget", "with_budget_comment",
]

"""Editing a note: append, replace a section, set or remove frontmatter keys.

Every write is atomic, under the vault's lock, against the **version** (a content hash) the caller
read: a changed file raises :class:`~mdmem.base.errors.WriteConflict`. Frontmatter is edited line by
line. Moving a note (with its links rewritten) is :mod:`mdmem.ops.move`.

Details and reasons: docs/decisions/059-names-edits-and-forgetting.md
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mdmem.base import files as fs
from mdmem.base.errors import NoteNotFound, UsageError, WriteConflict
from mdmem.base.files import version
from mdmem.base.state import write_lock
from mdmem.ops import guard
from mdmem.ops.move import settle
from mdmem.text.parse import Rewritable

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory


@dataclass(frozen=True)
class EditResult:
    path: str
    changes: list[str]   # what was done, one line each
    version: str         # the note's version after the edit
    previous: str        # its version before
    tokens: int


# ----------------------------------------------------------------------------- reading and writing


_FM = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.S)


def _split(text: str) -> tuple[str | None, str]:
    m = _FM.match(text)
    if not m:
        return None, text
    return m.group(1) or "", text[m.end():]


def _join(fm: str | None, body: str) -> str:
    if fm is None:
        return body
    return "---\n" + fm + ("" if fm.endswith("\n") or not fm else "\n") + "---\n" + body


# ----------------------------------------------------------------------------- edit


def _yaml_value(value: Any) -> str:
    """A value as the text after ``key: ``, plain when YAML reads it back the same, else JSON."""
    import yaml

    if not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return value  # a date, as the other notes write it (YAML reads it as a date)
    if value and "\n" not in value and value == value.strip():
        try:
            if yaml.safe_load(f"k: {value}") == {"k": value}:
                return value
        except yaml.YAMLError:
            pass
    return json.dumps(value, ensure_ascii=False)


def _key_span(lines: list[str], key: str) -> tuple[int, int] | None:
    """The lines [start, end) a top-level frontmatter key takes (its line and its indented or list
    continuation lines)."""
    pattern = re.compile(r"^(?:" + re.escape(key) + r"|'" + re.escape(key) + r"'|\"" + re.escape(key) + r"\")\s*:")
    for i, line in enumerate(lines):
        if pattern.match(line):
            end = i + 1
            while end < len(lines) and (lines[end].startswith((" ", "\t", "- ")) or lines[end] == "-"):
                end += 1
            return i, end
    return None


def _set_keys(fm: str | None, values: dict[str, Any], unset: list[str], changes: list[str]) -> str:
    import yaml

    lines = (fm or "").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for key in unset:
        span = _key_span(lines, key)
        if span is None:
            raise UsageError(f"the frontmatter has no key {key!r} to remove")
        del lines[span[0]:span[1]]
        changes.append(f"frontmatter: removed {key}")
    for key, value in values.items():
        if not re.fullmatch(r"[A-Za-z_][\w-]*", key):
            raise UsageError(f"{key!r} is not a frontmatter key mdmem can set (letters, digits, - and _)")
        line = f"{key}: {_yaml_value(value)}"
        span = _key_span(lines, key)
        if span is None:
            lines.append(line)
            changes.append(f"frontmatter: added {key}")
        elif lines[span[0]:span[1]] != [line]:
            lines[span[0]:span[1]] = [line]
            changes.append(f"frontmatter: set {key}")
    text = "\n".join(lines) + ("\n" if lines else "")
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as e:
        raise UsageError(f"the frontmatter would not be valid YAML ({e.__class__.__name__}); nothing was written") \
            from None
    if not isinstance(data, dict):
        raise UsageError("the frontmatter would not be a mapping; nothing was written")
    for key, value in values.items():
        got = data.get(key)
        if got != value and not (isinstance(got, (dt.date, dt.datetime)) and str(got) == str(value)):
            raise UsageError(f"{key!r} would read back as {got!r}, not {value!r}; nothing was written")
    return text


_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")


def _headings(body: str) -> list[tuple[int, int, str]]:
    """(line index, level, text) of the body's ATX headings outside fenced code."""
    out, fence = [], None
    for i, line in enumerate(body.split("\n")):
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)[0]
            if fence is None:
                fence = mark
            elif fence == mark:
                fence = None
            continue
        if fence is None:
            h = _HEADING.match(line)
            if h:
                out.append((i, len(h.group(1)), h.group(2).strip()))
    return out


def _replace_section(body: str, heading: str, text: str) -> str:
    want = heading.strip()
    level = len(want) - len(want.lstrip("#")) if want.startswith("#") else None
    want = want.lstrip("#").strip().casefold()
    heads = _headings(body)
    found = [(i, lv, t) for i, lv, t in heads if t.casefold() == want and (level is None or lv == level)]
    if not found:
        names = ", ".join(f"{'#' * lv} {t}" for _, lv, t in heads) or "none"
        raise UsageError(f"no heading {heading!r} in the note (its headings: {names})")
    if len(found) > 1:
        raise UsageError(f"{len(found)} headings are called {heading!r}; give the level too (e.g. '## {found[0][2]}')")
    start, lv, _ = found[0]
    end = next((i for i, l2, _ in heads if i > start and l2 <= lv), None)
    lines = body.split("\n")
    stop = len(lines) if end is None else end
    content = text.strip("\n")
    gap = [""] if start + 1 < len(lines) and not lines[start + 1].strip() and content else []
    new = lines[: start + 1] + gap + ([content] if content else []) + ([""] if end is not None else [])
    tail = lines[stop:]
    if end is None and body.endswith("\n"):
        tail = [""]
    return "\n".join(new + tail)


def edit(mem: Memory, ref: str, *, expected: str | None = None, append: str | None = None,
         section: str | None = None, replace: str | None = None, set_keys: dict[str, Any] | None = None,
         unset: list[str] | tuple[str, ...] = (), today: str | dt.date | None = None,
         agent: str | None = None, allow_secret: bool = False) -> EditResult:
    """Edit one note: append ``append`` to its body, or replace the body of the section under
    ``section`` with ``replace``; set the frontmatter keys of ``set_keys`` and remove those of ``unset``.
    With ``expected`` (a :func:`version`), refuse when the note's bytes are not that version any more.
    Through the write guard (:mod:`mdmem.ops.guard`): the texts and values written are checked (control
    characters, size, secrets unless ``allow_secret``), the note is rewritten only when read whole and
    only through real folders, and it stays within :data:`~mdmem.ops.guard.MAX_NOTE` bytes.

    ``agent``: an agent edits it (MCP, or the CLI from an agent's shell): it may not set or remove the provenance
    keys, and a rule-like note it changes becomes its own (``source: agent``, recorded): not the user's rule until
    the user confirms it (:mod:`mdmem.base.provenance`)."""
    from mdmem.base import provenance

    set_keys = dict(set_keys or {})
    unset = list(unset)
    if agent is not None and (set(set_keys) | set(unset)) & set(provenance.KEYS):
        raise UsageError(f"an agent cannot set or remove {', '.join(provenance.KEYS)}: only the user confirms a "
                         "note (`mdmem confirm NOTE` in their own terminal)")
    if append is not None and section is not None:
        raise UsageError("append or replace a section, not both")
    if (section is None) != (replace is None):
        raise UsageError("a section is replaced with --section HEADING and --replace TEXT together")
    if append is None and section is None and not set_keys and not unset:
        raise UsageError("nothing to do: give --append, --section with --replace, --set or --unset")
    if set(set_keys) & set(unset):
        raise UsageError(f"set or remove {sorted(set(set_keys) & set(unset))[0]!r}, not both")
    _guard_edit(append, replace, set_keys, allow_secret)
    settle(mem)
    path = mem.resolve_note(ref)
    with write_lock(mem.state_dir, mem.lock_timeout):
        guard.real_folders(mem.root, path)
        data, seen = fs.read_stat(mem.root, path)
        if data is None:
            raise NoteNotFound(f"{path} is gone from disk")
        guard.whole(path, data, seen)
        before = version(data)
        if expected is not None and expected != before:
            raise WriteConflict(f"{path} changed since it was read (version {expected}, now {before}); read it "
                                "again and redo the edit; nothing was written")
        note = Rewritable(data)
        fm, body = _split(note.text)
        changes: list[str] = []
        if append is not None:
            added = append.strip("\n")
            if not added.strip():
                raise UsageError("nothing to append: the text is empty")
            body = body.rstrip("\n") + ("\n\n" if body.strip() else "") + added + "\n"
            changes.append(f"appended {len(added)} characters")
        if section is not None:
            body = _replace_section(body, section, replace or "")
            changes.append(f"replaced the section {section.strip()!r}")
        if fm is not None and "updated" not in set_keys and "updated" not in unset \
                and _key_span(fm.split("\n"), "updated") is not None:
            day = today if isinstance(today, str) else (today or dt.date.today()).isoformat()
            set_keys["updated"] = day
        mine = agent is not None and mem.note(path).type in provenance.RULE_TYPES
        if mine:
            set_keys |= {"source": "agent", "agent": agent}
        if set_keys or unset:
            fm = _set_keys(fm, set_keys, unset, changes)
        new = note.encode(_join(fm, body))
        if new == data:
            return EditResult(path, ["nothing changed"], before, before, mem.note(path).tokens)
        guard.fits(path, new)
        fs.write_atomic(mem.root / path, new, expected=seen)
        if mine:
            provenance.record(mem.state_dir, path, new)
    mem.refresh()
    from mdmem.text.parse import tokens_for

    return EditResult(path, changes, version(new), before, tokens_for(len(new)))


def _guard_edit(append: str | None, replace: str | None, set_keys: dict[str, Any], allow_secret: bool) -> None:
    """The write guard on what an edit writes: the appended text, the section's text, each frontmatter value
    (as the ``key: value`` line it becomes, so that ``api_key: ...`` reads as an assignment)."""
    for what, value in (("appended text", append), ("section's text", replace)):
        if value is not None:
            guard.text(value, what, allow_secret)
    for key, value in set_keys.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        guard.text(f"{key}: {shown}", f"frontmatter value of {key!r}", allow_secret)

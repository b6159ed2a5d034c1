"""``mdmem import SOURCE``: every past session of an agent (or a chat export) as one note under ``sessions/``.

Sources: ``claude-code`` (``~/.claude/projects``), ``codex`` (``$CODEX_HOME/sessions``), ``gemini``
(``~/.gemini/tmp``), and the exports ``chatgpt FILE`` / ``claude-ai FILE``; ``file`` imports one transcript
(what the SessionEnd hook does). Sessions are read one at a time, so memory stays bounded by the largest one.

Idempotent: a session's note is found again by its agent and id (the file name ends ``-<agent>-<id>.md``, the
frontmatter's ``session`` holds the whole id), and its ``hash`` is a digest of what the note shows: the same
content leaves the file untouched, new content (a session that went on) rewrites it in place, keeping the
note's ``reviewed`` mark; a new session makes a new note and a ``## HH:MM`` entry in that day's daily note
(appended through :func:`mdmem.ops.daily.daily_add`, never when the day already links the note).
Left out and counted: sessions with nothing the user said, subagent sessions, sessions outside ``project``
or ended before ``since``, and an older copy of a session already imported (the same id in another file that
ends earlier: Entire's checkpoints and resumed sessions hold such copies; without this rule a re-import rewrote
the note twice, first with the older copy); a file that cannot be read is an error of the report, never the end of the run.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mdmem.agents.history.model import Session
from mdmem.base.errors import MdmemError, UsageError
from mdmem.base.layout import SESSIONS_DIR

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory

AGENT_SOURCES = ("claude-code", "codex", "gemini")
EXPORT_SOURCES = ("chatgpt", "claude-ai")
SOURCES = AGENT_SOURCES + EXPORT_SOURCES
_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}-(?P<agent>[a-z-]+?)-(?P<id>[A-Za-z0-9]+)\.md$")
_HEAD = 4096


@dataclass(frozen=True)
class ImportItem:
    status: str  # created | updated | unchanged (with dry_run: what would be done)
    path: str
    agent: str
    session: str
    project: str | None
    date: str | None
    user_messages: int


@dataclass(frozen=True)
class ImportReport:
    source: str
    dry_run: bool
    items: list[ImportItem]
    skipped: dict[str, int]
    errors: list[tuple[str, str]]
    daily: int  # daily entries added
    read: int  # sessions read

    def count(self, status: str) -> int:
        return sum(1 for i in self.items if i.status == status)


@dataclass
class _Seen:
    rel: str
    session: str
    hash: str
    reviewed: object = None
    ended: str = ""
    project: str = ""
    started: str = ""


@dataclass
class _State:
    existing: dict[tuple[str, str], _Seen] = field(default_factory=dict)


def _since(value: str | dt.date | None, today: dt.date | None = None) -> dt.date | None:
    """``YYYY-MM-DD`` or ``Nd``/``Nw`` (days or weeks ago)."""
    if value is None or isinstance(value, dt.date):
        return value
    today = today or dt.date.today()
    m = re.fullmatch(r"\s*(\d+)\s*([dw])\s*", value)
    if m:
        return today - dt.timedelta(days=int(m.group(1)) * (7 if m.group(2) == "w" else 1))
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise UsageError(f"--since wants YYYY-MM-DD or a number of days (30d) or weeks (2w), not {value!r}") \
            from None


def _key(sid: str, length: int = 8) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", sid)[:length] or "session"


def _fields(head: str) -> dict:
    """The ``session``, ``hash``, ``reviewed``, ``ended``, ``started`` and ``project`` of a session note's
    frontmatter (read as YAML)."""
    import yaml

    if not head.startswith("---"):
        return {}
    block = head[3:].split("\n---", 1)[0]
    wanted = "\n".join(line for line in block.splitlines()
                       if line.startswith(("session:", "hash:", "reviewed:", "ended:", "started:", "project:")))
    try:
        data = yaml.safe_load(wanted)
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    if isinstance(data.get("reviewed"), bool):
        data["reviewed"] = "true" if data["reviewed"] else "false"
    return data


def _existing(root: Path) -> dict[tuple[str, str], _Seen]:
    """The session notes already in ``sessions/``, by (agent, id part of the name): their ids and hashes."""
    folder = root / SESSIONS_DIR
    out: dict[tuple[str, str], _Seen] = {}
    if not folder.is_dir():
        return out
    from mdmem.base import files as fs

    for path in folder.glob("*.md"):
        m = _NAME.match(path.name)
        if not m or not path.is_file():
            continue
        rel = f"{SESSIONS_DIR}/{path.name}"
        try:
            fd = fs.open_regular(path)
            try:
                head = fs.read_fd(fd, _HEAD).decode("utf-8", "replace")
            finally:
                os.close(fd)
        except OSError:
            continue
        field_of = _fields(head)
        out[(m.group("agent"), m.group("id"))] = _Seen(rel, str(field_of.get("session", "")),
                                                      str(field_of.get("hash", "")), field_of.get("reviewed"),
                                                      str(field_of.get("ended") or ""),
                                                      str(field_of.get("project") or ""), str(field_of.get("started") or ""))
    return out


def _place(state: _State, session: Session, day: dt.date | None) -> tuple[str, _Seen | None]:
    """The note's path and what is there now (None: a new note)."""
    import hashlib

    digest = hashlib.sha256(session.id.encode("utf-8", "surrogatepass")).hexdigest()
    for part in dict.fromkeys((_key(session.id, 8), _key(session.id, 16), _key(session.id, 64), digest[:12])):
        seen = state.existing.get((session.agent, part))
        if seen is None:
            stamp = day.isoformat() if day else "0000-00-00"
            return f"{SESSIONS_DIR}/{stamp}-{session.agent}-{part}.md", None
        if seen.session == session.id:
            return seen.rel, seen
    raise MdmemError(f"no free note name for session {session.id}")


def _in_project(session: Session, project: str | None) -> bool:
    if not project:
        return True
    if not session.cwd:
        return False
    if os.sep in project or "/" in project:
        want = os.path.abspath(os.path.expanduser(project)).rstrip("/")
        return session.cwd.rstrip("/") == want or session.cwd.startswith(want + "/")
    return (session.project or "").lower() == project.lower()


def _daily_text(session: Session, rel: str, label: str, names: set[str]) -> str:
    """The daily entry: the project linked only when the vault has its note (a daily note is memory, where a
    link to nothing is a finding of ``check``), the session's note always."""
    from mdmem.agents.history.note import AGENTS, project_link

    target = rel.removesuffix(".md")
    project = session.project
    where = project_link(project) if project and project.lower() in names else (f" in {project}" if project else "")
    shown = label.replace("|", "/").replace("]", ")").replace("[", "(")
    return f"{AGENTS.get(session.agent, session.agent)} session{where}: [[{target}|{shown}]]"


def _linked(mem: Memory, day: dt.date, rel: str) -> bool:
    from mdmem.base import files as fs
    from mdmem.base.errors import UsageError
    from mdmem.ops.daily import day_path

    try:
        data, _ = fs.read_stat(mem.root, day_path(mem, day))
    except (OSError, UsageError):
        return False
    return data is not None and rel.removesuffix(".md").encode("utf-8") in data


def _write(mem: Memory, rel: str, meta: dict, body: str, seen: _Seen | None) -> None:
    from mdmem.base import files as fs
    from mdmem.base.state import write_lock
    from mdmem.ops.capture import dump_note

    path = mem.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    fs.inside(mem.root, rel)  # a sessions/ that is a symlink out of the vault is never written through
    data = dump_note(meta, body)
    with write_lock(mem.state_dir, mem.lock_timeout):
        old, stat = fs.read_stat(mem.root, rel)
        if old is None:
            fs.write_new(path, data)
        else:
            fs.write_atomic(path, data, expected=stat)


def _count_waiting(mem: Memory, state: _State) -> None:
    """Per project, the sessions never reviewed (frontmatter or :mod:`mdmem.base.reviews`), for the card."""
    from mdmem.base import reviews

    done = reviews.reviewed(mem.root)
    found: dict[str, list[tuple[str, str]]] = {}
    for seen in state.existing.values():
        if str(seen.reviewed) in ("True", "true", "yes") or seen.session in done:
            continue
        found.setdefault(seen.project, []).append((seen.started, seen.session))
    try:
        reviews.set_waiting(mem.root, {p: (len(v), [sid for _, sid in sorted(v, reverse=True)])
                                       for p, v in found.items()})
    except OSError:
        pass  # a read-only state folder: the card only names nothing


def sessions(units, skipped: dict[str, int], errors: list[tuple[str, str]],
             since: dt.date | None) -> Iterator[Session]:
    """The sessions of ``units`` (see :func:`readers`), one file at a time; a file not changed since ``since``
    is not even opened."""
    for label, read in units:
        if since is not None and os.path.isfile(label):
            try:
                if dt.date.fromtimestamp(os.stat(label).st_mtime) < since:
                    skipped["older"] = skipped.get("older", 0) + 1
                    continue
            except OSError:
                pass
        try:
            yield from read()  # an export is read as it is imported: one conversation at a time
        except (OSError, ValueError, MdmemError, UnicodeError, zipfile.BadZipFile) as e:
            errors.append((label, str(e) or type(e).__name__))


def import_sessions(mem: Memory, source: str, *, units: list[tuple[str, Callable[[], Iterable[Session]]]],
                    project: str | None = None, since: str | dt.date | None = None, dry_run: bool = False,
                    daily: bool = True, progress: Callable[[int, int, str], None] | None = None) -> ImportReport:
    """Import ``source``'s sessions into ``sessions/`` (see the module's docstring): ``units`` are (label,
    read) for each file to import, unread, from that source's reader (the agent's own package chooses:
    :func:`mdmem.api.import_sessions`); ``progress(done, total, label)`` is called after each file."""
    from mdmem.agents.history.note import render, title, when
    from mdmem.ops.daily import daily_add

    since_day = _since(since)
    state = _State(_existing(mem.root))
    names = {os.path.splitext(os.path.basename(p))[0].lower() for p in mem.scan.notes}  # notes a link can name
    items: list[ImportItem] = []
    skipped: dict[str, int] = {}
    errors: list[tuple[str, str]] = []
    added = read = 0
    total = len(units)

    def skip(reason: str) -> None:
        skipped[reason] = skipped.get(reason, 0) + 1

    def counted():
        for done, unit in enumerate(units, 1):
            yield from sessions([unit], skipped, errors, since_day)
            if progress is not None:
                progress(done, total, unit[0])

    for session in counted():
        read += 1
        if session.notes.get("subagent"):
            skip("subagent")
            continue
        if not session.user_messages():
            skip("empty")
            continue
        if not _in_project(session, project):
            skip("other project")
            continue
        end = when(session.end or session.start)
        if since_day is not None and end is not None and end.date() < since_day:
            skip("older")
            continue
        start = when(session.start)
        day = start.date() if start else None
        meta, body, digest = render(session)
        rel, seen = _place(state, session, day)
        if seen is not None and seen.hash != digest and session.end and seen.ended and session.end < seen.ended:
            skip("older copy")  # the same session in another file that stops earlier: the note holds more
            continue
        if seen is not None and seen.hash == digest:
            status = "unchanged"
        else:
            status = "updated" if seen is not None else "created"
            if seen is not None and seen.reviewed not in (None, "", "false", "False"):
                meta["reviewed"] = seen.reviewed if seen.reviewed not in ("true", "True") else True
            else:
                meta["reviewed"] = False
            if session.source:  # where `checkpoint review --session` reads the whole conversation while it is there
                meta["transcript"] = session.source
            if not dry_run:
                _write(mem, rel, meta, body, seen)
                state.existing[(session.agent, rel.rsplit("-", 1)[1].removesuffix(".md"))] = \
                    _Seen(rel, session.id, digest, meta["reviewed"], session.end or "", session.project or "",
                          session.start or "")
        if daily and not dry_run and status != "unchanged" and start is not None and day is not None \
                and not _linked(mem, day, rel):
            try:
                daily_add(mem, _daily_text(session, rel, title(session), names), at=start.strftime("%H:%M"), date=day,
                          refresh=False)
                added += 1
            except MdmemError as e:
                errors.append((rel, f"daily note: {e}"))
        items.append(ImportItem(status, rel, session.agent, session.id, session.project,
                                day.isoformat() if day else None, len(session.user_messages())))
    if not dry_run and (added or any(i.status != "unchanged" for i in items)):
        mem.refresh()
    if not dry_run:
        _count_waiting(mem, state)
    return ImportReport(source, dry_run, items, skipped, errors, added, read)

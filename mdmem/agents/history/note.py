"""A past session as one compact Markdown note under ``sessions/``.

What a person (or an agent recalling it) needs, and no more: when it ran and for how long, which agent,
which project (linked ``[[project]]`` to the project note), everything the user said in order, what the
assistant concluded at the end of each turn (the last :data:`CONCLUSIONS`, each clipped), and the files it
wrote. Tool output is never shown. Every text shown is passed through :func:`mdmem.text.secrets.redact`,
and made inert as Markdown: a line cannot open a code fence that swallows the rest of the note, start a
heading of the note, nor make a ``[[link]]`` the user never wrote into the vault's graph.

The note's ``hash`` (frontmatter) is a digest of what it shows: an import that would write the same
note leaves the file alone, so a re-import changes nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re

from mdmem.agents.history.model import Session
from mdmem.base.provenance import Provenance

MESSAGE_MAX = 1500  # characters of one user message shown
CONCLUSION_MAX = 400  # characters of one assistant conclusion shown
CONCLUSIONS = 10  # turns whose conclusion is shown (the last ones)
FILES_MAX = 40
TITLE_MAX = 80
AGENTS = {"claude-code": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI", "chatgpt": "ChatGPT",
          "claude-ai": "Claude.ai"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # a terminal escape or bell has no place in a note
_FENCE = re.compile(r"^(\s*)(```|~~~)", re.M)
_HEADING = re.compile(r"^(\s*)(#{1,6}\s)", re.M)


def when(value: str | None) -> dt.datetime | None:
    """An ISO 8601 time as a local, aware datetime (None when absent or unreadable)."""
    if not value:
        return None
    try:
        t = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.UTC)
    return t.astimezone()


def inert(text: str) -> str:
    """``text`` redacted and made inert as Markdown (see the module's docstring)."""
    from mdmem.text.secrets import redact

    text = _CONTROL.sub("", redact(text.replace("\r\n", "\n")))
    text = _FENCE.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    text = _HEADING.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    return text.replace("[[", "\\[\\[").replace("%%", "\\%\\%")


def project_link(project: str | None) -> str:
    """`` in [[project]]`` (the project note's link), plain text for a name a link cannot hold, "" for none."""
    if not project:
        return ""
    if re.search(r"[\[\]|#^]", project):
        return f" in {project}"
    return f" in [[{project}]]"


def clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _item(prefix: str, text: str) -> str:
    """A list item whose following lines are indented under it."""
    pad = " " * len(prefix)
    lines = text.split("\n")
    return prefix + lines[0] + "".join("\n" + (pad + line if line.strip() else "") for line in lines[1:])


def title(session: Session) -> str:
    """The source's title, else the first thing the user said, on one line."""
    base = session.title or next((m.text for m in session.messages if m.role == "user"), "") or session.id
    from mdmem.text.secrets import redact

    return clip(" ".join(_CONTROL.sub(" ", redact(base)).split()), TITLE_MAX)


def conclusions(session: Session) -> list[tuple[str | None, str]]:
    """The assistant's last message of each user turn, (time, text), the last :data:`CONCLUSIONS` turns."""
    out: list[tuple[str | None, str]] = []
    last = None
    for m in session.messages:
        if m.role == "user":
            if last is not None:
                out.append(last)
            last = None
        else:
            last = (m.at, m.text)
    if last is not None:
        out.append(last)
    return out[-CONCLUSIONS:]


def _duration(start: dt.datetime, end: dt.datetime) -> str:
    minutes = max(0, int((end - start).total_seconds() // 60))
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours < 48 else f"{hours // 24} days"


def _hhmm(value: str | None, day: dt.date | None) -> str:
    t = when(value)
    if t is None:
        return ""
    return t.strftime("%H:%M") if day is None or t.date() == day else t.strftime("%Y-%m-%d %H:%M")


def _rel(path: str, cwd: str | None) -> str:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1:]
    return path


def render(session: Session) -> tuple[dict, str, str]:
    """(frontmatter, body, hash) of the session's note. ``reviewed`` is left to the importer."""
    start, end = when(session.start), when(session.end)
    day = start.date() if start else None
    agent = AGENTS.get(session.agent, session.agent)
    project = session.project
    users = session.user_messages()
    head = f"# {inert(title(session))}\n\n"
    span = ""
    if start:
        span = start.strftime("%Y-%m-%d %H:%M")
        if end and end > start:
            span += " – " + (end.strftime("%H:%M") if end.date() == start.date() else end.strftime("%Y-%m-%d %H:%M"))
            span += f" ({_duration(start, end)})"
    where = project_link(project)
    lines = [f"{agent} session{where}" + (f", {span}" if span else "") +
             f"; {len(users)} message{'' if len(users) == 1 else 's'} from the user."]
    if session.cwd:
        lines.append(f"Folder: `{session.cwd}`" + (f" (branch `{session.branch}`)" if session.branch else ""))
    body = head + "\n".join(lines) + "\n\n## What the user said\n\n"
    for i, m in enumerate(users, 1):
        at = _hhmm(m.at, day)
        mark = " (typed while the agent worked)" if m.kind == "queued" else ""
        body += _item(f"{i}. ", (f"**{at}**{mark} " if at else mark.lstrip() + " " if mark else "") +
                      inert(clip(m.text, MESSAGE_MAX))) + "\n"
    found = conclusions(session)
    if found:
        body += "\n## What the assistant concluded\n\n"
        for when_said, text in found:
            shown = _hhmm(when_said, day)
            body += _item("- ", (f"**{shown}** " if shown else "") + inert(clip(text, CONCLUSION_MAX))) + "\n"
    if session.files:
        body += "\n## Files touched\n\n"
        for path in session.files[:FILES_MAX]:
            body += f"- `{inert(_rel(path, session.cwd)).replace('`', '')}`\n"
        if len(session.files) > FILES_MAX:
            body += f"- … and {len(session.files) - FILES_MAX} more\n"
    meta: dict[str, object] = {
        "name": f"{day.isoformat() + ' ' if day else ''}{title(session)}",
        "description": f"{agent} session" + (f" in {project}" if project else "") +
                       (f" on {day.isoformat()}" if day else "") + f", {len(users)} user messages",
        "type": "session",
        # who wrote it (mdmem.base.provenance, the one writer of these fields): an import of this agent's session
        **Provenance("import", session.id, session.agent).fields(),
    }
    if project:
        meta["project"] = project
    if session.cwd:
        meta["cwd"] = session.cwd
    if session.start:
        meta["started"] = session.start
    if session.end:
        meta["ended"] = session.end
    if day:
        meta["created"] = day
    meta["tags"] = ["session", session.agent]
    digest = hashlib.sha256(repr((sorted((k, str(v)) for k, v in meta.items()), body)).encode("utf-8")).hexdigest()
    meta["hash"] = digest[:16]
    return meta, body, digest[:16]

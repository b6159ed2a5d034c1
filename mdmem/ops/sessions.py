"""Recall over imported past sessions (``sessions/``, written by ``mdmem import``), and the review count.

:func:`recall_sessions` answers "when did we set up X?" / "what did we discuss about Y last month?": the
question's time phrase (:mod:`mdmem.text.temporal`) limits the sessions to those dated in its window, its cue
words ("when did we", "discuss"...: :func:`mdmem.text.past.topic`) are dropped, and the rest is searched among
the session notes only (``type: session``) with the vault's search mode. Each hit comes with its date, agent,
project and the lines of what was said that hold the question's words (stemmed as the index stems them), and
its link. A question with a window and no other words lists the window's sessions.

:func:`unreviewed` counts, per project, the imported sessions never reviewed (``check``; decision 086).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mdmem.base.layout import SESSIONS_DIR

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory

LINE_MAX = 200
LINES = 3


@dataclass(frozen=True)
class SessionHit:
    path: str
    title: str
    date: str | None
    agent: str
    project: str | None
    score: float
    lines: list[str]  # what was said that matches the question (at most LINES)

    @property
    def link(self) -> str:
        return f"[[{self.path.removesuffix('.md')}]]"


@dataclass(frozen=True)
class SessionRecall:
    query: str
    topic: str
    window: dict | None
    hits: list[SessionHit]
    markdown: str


def is_session(path: str) -> bool:
    return path.startswith(SESSIONS_DIR + "/")


def hidden_type(mem: Memory) -> str | None:
    """``"session"`` when the vault has imported sessions, to leave them out of a search (``Filters.not_type``);
    None otherwise, so a vault without them keeps search's fast path (the index's type lexicon: no note read)."""
    try:
        return "session" if mem.index.exists() and "session" in mem.index.types() else None
    except Exception:  # a damaged index answers the search itself, which rebuilds it
        return None


def _terms(text: str) -> set[str]:
    from mdmem.engine.index import term

    return {t for w in text.replace("’", "'").split() if (t := term(w.strip(".,;:!?()[]`*\"'")))}


def _lines(body: str, wanted: set[str]) -> list[str]:
    """The lines of the note's "said" and "concluded" sections holding one of ``wanted``, best first."""
    from mdmem.engine.index import term

    if not wanted:
        return []
    scored: list[tuple[int, int, str]] = []
    section = ""
    for line in body.splitlines():
        if line.startswith("## "):
            section = line
            continue
        if "said" not in section and "concluded" not in section:
            continue
        text = line.strip()
        for prefix in ("- ",):
            text = text.removeprefix(prefix)
        if text[:1].isdigit() and ". " in text[:5]:
            text = text.split(". ", 1)[1]
        text = text.replace("**", "")
        if not text:
            continue
        hits = {t for w in text.split() if (t := term(w.strip(".,;:!?()[]`*\"'")))} & wanted
        if hits:
            scored.append((-len(hits), len(scored), text if len(text) <= LINE_MAX else text[: LINE_MAX - 1] + "…"))
    return [t for _, _, t in sorted(scored)[:LINES]]


def recall_sessions(mem: Memory, query: str, limit: int = 5, today: dt.date | str | None = None,
                    budget: int = 2000) -> SessionRecall:
    """The past sessions that answer ``query`` (see the module's docstring), within ``budget`` characters."""
    from mdmem.engine.index import Filters
    from mdmem.ops.search import search
    from mdmem.text import temporal
    from mdmem.text.past import topic

    day = dt.date.fromisoformat(today) if isinstance(today, str) else (today or dt.date.today())
    span = temporal.parse(query, day)
    words = topic(span.rest if span else query)
    filters = Filters(type="session", after=span.start.isoformat() if span else None,
                      before=span.end.isoformat() if span else None)
    # a vault that never imported a session: nothing to find (a search by an unknown type is a usage error)
    found = search(mem, words, limit, filters, today=day).results if (words or span) and hidden_type(mem) else []
    wanted = _terms(words)
    hits = []
    for h in found:
        note = mem.store.get(h.path)
        fm = note.frontmatter if note is not None else {}
        started = str(fm.get("started") or "")
        name = fm.get("name")
        hits.append(SessionHit(h.path, name if isinstance(name, str) and name else h.title, (note.date if note else None) or started[:10] or None,
                               str(fm.get("agent") or ""), str(fm["project"]) if fm.get("project") else None,
                               h.score, _lines(mem.body_of(h.path), wanted)))
    if not words and span:  # only a window: its sessions, newest first
        hits.sort(key=lambda x: (x.date or "", x.path), reverse=True)
    window = {"phrase": span.phrase, "start": span.start.isoformat(), "end": span.end.isoformat()} if span else None
    return SessionRecall(query, words, window, hits, render(hits, window, budget))


def render(hits: list[SessionHit], window: dict | None, budget: int) -> str:
    """The hits as a Markdown block of at most ``budget`` characters ("" when there are none): a line per
    session (date, agent, project, its link), its matching lines quoted under it."""
    if not hits:
        return ""
    head = "\n### Past sessions" + (f" ({window['phrase']}: {window['start']} – {window['end']})" if window else "")
    out = [head + "\n"]
    used = len(out[0])
    for h in hits:
        line = f"- {h.date or '?'} {h.agent}" + (f" in {h.project}" if h.project else "") + \
            f": {h.link.removesuffix(']]')}|{h.title.replace('|', '/').replace(']', ')')}]]\n"
        quoted = "".join(f"  > {x}\n" for x in h.lines)
        if used + len(line) > budget:
            break
        if used + len(line) + len(quoted) > budget:
            quoted = ""
        out.append(line + quoted)
        used += len(line) + len(quoted)
    return "".join(out) if len(out) > 1 else ""


def unreviewed(mem: Memory) -> dict[str, int]:
    """Imported sessions never reviewed, by project ("" for none), from the notes cache: neither marked in the
    note nor reviewed since (:mod:`mdmem.base.reviews`)."""
    from mdmem.base.reviews import reviewed

    done = reviewed(mem.root)
    out: dict[str, int] = {}
    for note in mem.store.notes():
        if note.type != "session" or not is_session(note.path):
            continue
        if note.frontmatter.get("reviewed") in (True, "true", "yes") or str(note.frontmatter.get("session")) in done:
            continue
        project = str(note.frontmatter.get("project") or "")
        out[project] = out.get(project, 0) + 1
    return dict(sorted(out.items()))

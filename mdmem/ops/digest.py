"""Digests of the daily notes: one per finished ISO week and one per finished
month, written as ordinary notes (``type: digest``). Deterministic (no model):
the same daily notes always give byte-identical digests. Returns frozen
dataclasses, never prints.

Weekly digests go to ``memory/digests/weekly/YYYY-Www.md``, monthly ones to
``memory/digests/monthly/YYYY-MM.md``; a digest a person edited, or a file there mdmem did not
write, is never overwritten; archiving old daily notes is opt-in and never deletes.

Details and reasons: docs/decisions/052-digests.md
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
from collections import Counter, defaultdict
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mdmem.base import files as fs
from mdmem.base.layout import ARCHIVE_DIR, DAILY_DIR, DIGEST_DIR
from mdmem.base.settings import DigestSettings
from mdmem.text.daily import Entry, entries_plain, link_key
from mdmem.text.daily import entries as parse_entries

if TYPE_CHECKING:
    from mdmem.engine.memory import Memory

GENERATED_BY = "mdmem digest"
LINE_MAX = 160  # characters of an entry's first line in a bullet, "…" included
MONTH_TOP = 15  # links and tags listed in a monthly digest
KEYS = ("name", "description", "type", "period", "start", "end", "sources", "generated_by", "content_hash")
STATUSES = ("created", "updated", "unchanged", "kept-edited", "skipped-not-generated", "skipped-unreadable")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")

_LIVE_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-\d+)?\.md$")  # "-2": a second archived copy
_TAG_SPLIT = re.compile(r"[,\s]+")


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class DigestItem:
    path: str
    period: str  # 2026-W14 or 2026-04
    kind: str  # weekly or monthly
    status: str  # one of STATUSES
    entries: int  # entries in the period's daily notes (as read now)
    days: int  # days with a daily note


@dataclass(frozen=True)
class ArchivedNote:
    path: str
    archived_to: str


@dataclass(frozen=True)
class DigestProblem:
    path: str
    code: str  # invalid_yaml, frontmatter_not_mapping, not_utf8, too_large, unreadable, bad_date, changed
    message: str


@dataclass(frozen=True)
class DigestResult:
    today: str
    dry_run: bool
    items: list[DigestItem]
    archived: list[ArchivedNote] = field(default_factory=list)
    problems: list[DigestProblem] = field(default_factory=list)


# ----------------------------------------------------------------------------- daily notes


@dataclass(frozen=True)
class _Day:
    """One daily note file."""

    path: str
    date: dt.date
    entries: tuple[Entry, ...]
    tags: tuple[str, ...]  # frontmatter tags but "daily"
    seen: tuple[int, int] | None


def _bullet(line: str) -> str:
    line = " ".join(line.split()).replace("![", "[")
    if len(line) <= LINE_MAX:
        return line
    cut = line[: LINE_MAX - 1]
    start = cut.rfind("[[")
    if start > cut.rfind("]]"):  # never split a [[link]]
        cut = cut[:start]
    return cut.rstrip() + "…"


def _frontmatter_tags(fm: dict) -> tuple[str, ...]:
    from mdmem.text.links import valid_tag

    found = []
    for key in ("tags", "tag"):
        value = fm.get(key)
        items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        for item in items:
            for part in _TAG_SPLIT.split(str(item)):
                name = valid_tag(part)
                if name and name != "daily":
                    found.append(name)
    return tuple(dict.fromkeys(found))


def _load_day(root: Path, rel: str, day: dt.date, problems: list[DigestProblem]) -> _Day | None | Literal[False]:
    """The parsed note; None when it is gone; False when it cannot be read (a problem is recorded)."""
    from mdmem.text.parse import MAX_PARSE_BYTES, decode, read_frontmatter, split_frontmatter

    try:
        data, seen = fs.read_stat(root, rel)
    except OSError as e:
        problems.append(DigestProblem(rel, "unreadable", f"cannot read: {e.strerror or e}; its digests were "
                                                         "left as they are"))
        return False
    if data is None:
        return None
    text, decoded = decode(data)
    raw, body, _ = split_frontmatter(text)
    fm, fm_problems = read_frontmatter(raw)
    for p in (*decoded, *fm_problems):
        if p.code != "bom":
            extra = "; its entries were digested, its frontmatter tags were not" if p in fm_problems else ""
            problems.append(DigestProblem(rel, p.code, p.message + extra))
    if len(data) > MAX_PARSE_BYTES:
        problems.append(DigestProblem(rel, "too_large", f"{len(data)} bytes: entries found line by line, "
                                                        "without links or tags"))
        entries = entries_plain(body)
    else:
        entries = parse_entries(body)
    return _Day(rel, day, entries, _frontmatter_tags(fm), seen)


def _day_of(name: str) -> dt.date | None:
    m = _DAY_FILE.match(name)
    if not m:
        return None
    try:
        return dt.date.fromisoformat(m.group(1))
    except ValueError:
        return None


def _live_daily(root: Path, problems: list[DigestProblem]) -> list[tuple[str, dt.date]]:
    """``memory/daily/**/YYYY-MM-DD.md`` (hidden folders skipped), sorted by path."""

    found = []
    for rel in fs.scan(root).notes:  # the one walker: symlinks inside the vault followed, as search does
        if not rel.startswith(DAILY_DIR + "/"):
            continue
        name = rel.rsplit("/", 1)[-1]
        if not _LIVE_FILE.match(name):
            continue
        day = _day_of(name)
        if day is None:
            problems.append(DigestProblem(rel, "bad_date", "the file name is not a real date; not digested"))
            continue
        found.append((rel, day))
    return sorted(found)


# ----------------------------------------------------------------------------- periods


@dataclass(frozen=True, order=True)
class _Period:
    order: int  # 0 weekly, 1 monthly
    label: str
    start: dt.date
    end: dt.date

    @property
    def kind(self) -> str:
        return ("weekly", "monthly")[self.order]

    @property
    def path(self) -> str:
        return f"{DIGEST_DIR}/{self.kind}/{self.label}.md"

    @property
    def name(self) -> str:
        return ("Week ", "Month ")[self.order] + self.label


def _week(day: dt.date) -> _Period:
    year, week, _ = day.isocalendar()
    start = dt.date.fromisocalendar(year, week, 1)
    return _Period(0, f"{year}-W{week:02d}", start, start + dt.timedelta(days=6))


def _month(day: dt.date) -> _Period:
    start = day.replace(day=1)
    end = (start + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)
    return _Period(1, f"{day.year:04d}-{day.month:02d}", start, end)


# ----------------------------------------------------------------------------- rendering


def _span(entries: int, days: int) -> str:
    return f"{entries} {'entry' if entries == 1 else 'entries'} over {days} {'day' if days == 1 else 'days'}"


def _counts(days: list[_Day]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(link target, count) and (tag, count), most first, then by name."""
    links: Counter[str] = Counter()
    spellings: dict[str, Counter[str]] = defaultdict(Counter)
    tags: Counter[str] = Counter()
    for day in days:
        tags.update(day.tags)
        for entry in day.entries:
            for target in entry.links:
                key = link_key(target)
                links[key] += 1
                shown = target[:-3] if target.lower().endswith(".md") else target
                spellings[key][shown] += 1
            tags.update(entry.tags)

    def spelling(key: str) -> str:
        return min(spellings[key].items(), key=lambda kv: (-kv[1], kv[0]))[0]

    link_list = sorted(((spelling(k), n) for k, n in links.items()),
                       key=lambda x: (-x[1], x[0].casefold(), x[0]))
    tag_list = sorted(tags.items(), key=lambda x: (-x[1], x[0]))
    return link_list, tag_list


def _description(entries: int, days: int, links, tags) -> str:
    ranked = sorted([(-n, 0, name.casefold(), name) for name, n in links]
                    + [(-n, 1, name, "#" + name) for name, n in tags])
    top = [item[3] for item in ranked[:3]]
    return _span(entries, days) + (": " + ", ".join(top) if top else "")


def _listing(title: str, items: list[tuple[str, int]], fmt, limit: int | None = None) -> list[str]:
    out = ["", f"## {title}", ""]
    if not items:
        return out + [f"No {title.lower()}."]
    shown = items if limit is None else items[:limit]
    out += [f"- {fmt(name)} ({n})" for name, n in shown]
    if len(items) > len(shown):
        out.append(f"- … and {len(items) - len(shown)} more in the weekly digests")
    return out


def _by_date(days: list[_Day]) -> dict[dt.date, list[Entry]]:
    grouped: dict[dt.date, list[Entry]] = {}
    for day in sorted(days, key=lambda d: (d.date, d.path)):
        grouped.setdefault(day.date, []).extend(day.entries)
    return {date: sorted(entries, key=lambda e: e.time) for date, entries in grouped.items()}


def render(period: _Period, days: list[_Day], linked: set[str] | frozenset[str] | None = None) -> bytes:
    """The digest file for ``period`` from its daily notes: frontmatter + body. A monthly digest links
    the weekly digests named in ``linked`` (every week when None) and names the others as text."""
    import yaml

    grouped = _by_date(days)
    n_entries = sum(len(v) for v in grouped.values())
    links, tags = _counts(days)
    summary = f"{period.start.isoformat()} to {period.end.isoformat()}: {_span(n_entries, len(grouped))}."
    lines = [f"# {period.name}", "", summary]
    if period.order == 0:
        for date, entries in grouped.items():
            lines += ["", f"## {date.isoformat()} ({WEEKDAYS[date.weekday()]})", ""]
            lines += [f"- {e.time} {_bullet(e.first)}".rstrip() for e in entries] or ["No timed entries."]
        lines += _listing("Links", links, lambda t: f"[[{t}]]")
        lines += _listing("Tags", tags, lambda t: f"#{t}")
    else:
        weeks: dict[str, list[dt.date]] = {}
        for date in grouped:
            weeks.setdefault(_week(date).label, []).append(date)
        lines += ["", "## Weeks", ""]
        for label, dates in weeks.items():
            count = sum(len(grouped[d]) for d in dates)
            listed = ", ".join(d.isoformat() for d in dates)
            shown = f"[[{label}]]" if linked is None or label in linked else label
            lines.append(f"- {shown}: {_span(count, len(dates))} ({listed})")
        lines += _listing("Links", links, lambda t: f"[[{t}]]", MONTH_TOP)
        lines += _listing("Tags", tags, lambda t: f"#{t}", MONTH_TOP)
    body = "\n".join(lines) + "\n"
    meta = {
        "name": period.name,
        "description": _description(n_entries, len(grouped), links, tags),
        "type": "digest",
        "period": period.label,
        "start": dt.date.fromordinal(period.start.toordinal()),
        "end": dt.date.fromordinal(period.end.toordinal()),
        "sources": [d.path for d in sorted(days, key=lambda d: (d.date, d.path))],
        "generated_by": GENERATED_BY,
        "content_hash": content_hash(body),
    }
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10**9)
    return ("---\n" + head + "---\n" + body).encode("utf-8")


def content_hash(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


# ----------------------------------------------------------------------------- existing digests


@dataclass(frozen=True)
class _Existing:
    state: str  # absent, foreign, edited, clean, unreadable
    data: bytes | None = None
    seen: tuple[int, int] | None = None
    sources: tuple[str, ...] = ()


def _existing(root: Path, rel: str) -> _Existing:
    from mdmem.text.parse import decode, read_frontmatter, split_frontmatter

    try:
        data, seen = fs.read_stat(root, rel)
    except OSError:
        return _Existing("unreadable")
    if data is None:
        return _Existing("absent")
    text, _ = decode(data)
    raw, body, _ = split_frontmatter(text)
    fm, problems = read_frontmatter(raw)
    if problems or fm.get("generated_by") != GENERATED_BY:
        return _Existing("foreign", data, seen)
    listed = fm.get("sources")
    sources = tuple(s for s in listed if isinstance(s, str)) if isinstance(listed, list) else ()
    clean = fm.get("content_hash") == content_hash(body) and set(fm) == set(KEYS)
    return _Existing("clean" if clean else "edited", data, seen, sources)


# ----------------------------------------------------------------------------- the command


@dataclass
class _Plan:
    period: _Period
    status: str
    days: list[_Day]
    data: bytes | None = None  # what the file holds (or will) when generated here
    seen: tuple[int, int] | None = None  # the file's stat when read, then after our write
    listed: tuple[str, ...] = ()  # sources of a kept-edited digest


def digest(mem: Memory, today: dt.date | None = None, settings: DigestSettings = DigestSettings(),
           dry_run: bool = False) -> DigestResult:
    """Write the digests of every finished week and month with daily notes,
    then (when configured) archive old daily notes; see the module docstring.
    ``dry_run`` reads everything and writes nothing. The index is refreshed
    when something changed."""
    today = today or dt.date.today()
    from mdmem.base.state import write_lock

    with nullcontext() if dry_run else write_lock(mem.state_dir, mem.lock_timeout):
        result, changed = _run(mem.root, today, settings, dry_run)
    if changed:
        mem.refresh()
    return result


def _run(root: Path, today: dt.date, settings: DigestSettings, dry_run: bool) -> tuple[DigestResult, bool]:

    problems: list[DigestProblem] = []
    live: dict[str, _Day] = {}
    broken: set[dt.date] = set()
    for rel, day in _live_daily(root, problems):
        if _week(day).end >= today and _month(day).end >= today:
            continue  # in no finished period: neither digested nor archived
        loaded = _load_day(root, rel, day, problems)
        if loaded is False:
            broken.add(day)
        elif loaded is not None:
            live[rel] = loaded
    dates = {d.date for d in live.values()} | broken
    periods = sorted({p for date in dates for p in (_week(date), _month(date)) if p.end < today})

    plans: list[_Plan] = []
    ready: set[str] = set()  # weekly digests there after this run (periods are sorted: weeks come first)

    def weeks_of(period: _Period) -> set[str]:
        labels = {_week(period.start + dt.timedelta(days=i)).label for i in range((period.end - period.start).days + 1)}
        return {label for label in labels if label in ready
                or os.path.isfile(os.path.join(root, _Period(0, label, period.start, period.end).path))}

    for period in periods:
        if period.order == 1:
            period_weeks = weeks_of(period)
        existing = _existing(root, period.path)
        days = [d for d in live.values() if period.start <= d.date <= period.end]
        if existing.state == "unreadable":
            problems.append(DigestProblem(period.path, "unreadable", "cannot read the digest; left as it is"))
            plans.append(_Plan(period, "skipped-unreadable", days))
        elif existing.state == "foreign":
            plans.append(_Plan(period, "skipped-not-generated", days))
        elif existing.state == "edited":
            plans.append(_Plan(period, "kept-edited", days, listed=existing.sources))
        elif any(period.start <= b <= period.end for b in broken):
            plans.append(_Plan(period, "skipped-unreadable", days))
        else:
            archived_dir = ARCHIVE_DIR + "/daily/"
            for rel in existing.sources:  # archived notes this digest was made from keep counting
                archived_day = _day_of(rel.rsplit("/", 1)[-1])
                if rel.startswith(archived_dir) and archived_day and period.start <= archived_day <= period.end \
                        and rel not in live:
                    loaded = _load_day(root, rel, archived_day, problems)
                    if loaded is False:
                        broken.add(archived_day)
                    elif loaded is not None:
                        days.append(loaded)
            if any(period.start <= b <= period.end for b in broken):
                plans.append(_Plan(period, "skipped-unreadable", days))
                continue
            data = render(period, days, period_weeks if period.order == 1 else None)
            status = "created" if existing.state == "absent" else (
                "unchanged" if data == existing.data else "updated")
            plans.append(_Plan(period, status, days, data, existing.seen))
            if period.order == 0:
                ready.add(period.label)

    changed = False
    if not dry_run:
        for plan in plans:
            changed |= _write(root, plan)

    archived = _archive(root, today, settings, plans, live, dry_run, problems)
    if archived:
        renamed = {a.path: a.archived_to for a in archived}
        changed = changed or not dry_run
        for plan in plans:  # the digests listing a moved note now name its archive path
            if plan.data is None or not any(d.path in renamed for d in plan.days):
                continue
            plan.days = [replace(d, path=renamed.get(d.path, d.path)) for d in plan.days]
            data = render(plan.period, plan.days, weeks_of(plan.period) if plan.period.order == 1 else None)
            if data != plan.data:
                plan.data = data
                if plan.status == "unchanged":
                    plan.status = "updated"
                if not dry_run:
                    _write(root, plan, again=True)

    items = [DigestItem(p.period.path, p.period.label, p.period.kind, p.status,
                        sum(len(d.entries) for d in p.days), len({d.date for d in p.days})) for p in plans]
    return DigestResult(today.isoformat(), dry_run, items, archived, problems), changed


def _write(root: Path, plan: _Plan, again: bool = False) -> bool:

    path = root / plan.period.path
    if plan.data is None or plan.status not in ("created", "updated"):
        return False
    if plan.status == "created" and not again:
        fs.write_new(path, plan.data)
    else:
        fs.write_atomic(path, plan.data, expected=plan.seen)
    plan.seen = fs.stat_note(path.parent, path.name)
    return True


def _archive(root: Path, today: dt.date, settings: DigestSettings, plans: list[_Plan], live: dict[str, _Day],
             dry_run: bool, problems: list[DigestProblem]) -> list[ArchivedNote]:
    """Move daily notes older than the setting whose week and month digests list them."""

    keep = settings.archive_daily_after_days
    if not keep:
        return []
    cutoff = today - dt.timedelta(days=keep)
    covered: dict[tuple[int, str], set[str]] = {}
    for plan in plans:
        if plan.data is not None:
            covered[(plan.period.order, plan.period.label)] = {d.path for d in plan.days}
        elif plan.status == "kept-edited":
            covered[(plan.period.order, plan.period.label)] = set(plan.listed)
    moved = []
    for rel, day in sorted(live.items()):
        if day.date >= cutoff:
            continue
        if not all(rel in covered.get((p.order, p.label), ()) for p in (_week(day.date), _month(day.date))):
            continue
        target = fs.archive_target(root, rel)
        if dry_run:
            moved.append(ArchivedNote(rel, target))
            continue
        src, dst = root / rel, root / target
        if fs.stat_note(src.parent, src.name) != day.seen:
            problems.append(DigestProblem(rel, "changed", "changed on disk while digesting; not archived"))
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        if dst.exists():
            problems.append(DigestProblem(rel, "changed", f"{target} appeared meanwhile; not archived"))
            continue
        os.rename(src, dst)
        moved.append(ArchivedNote(rel, target))
    return moved


__all__ = ["ArchivedNote", "DigestItem", "DigestProblem", "DigestResult", "content_hash",
           "digest", "render"]

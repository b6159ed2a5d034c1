"""What mdmem honours of a vault's ``.obsidian/``: Obsidian writes these files, mdmem only reads them.

The walker asks for them on every scan of a vault that has ``.obsidian/`` (almost every vault a person keeps),
so on every hook: this module imports nothing but ``os`` and ``stat`` and reads JSON through
:mod:`mdmem.base.fastjson`. Inside :mod:`mdmem.base.settings` (``dataclasses``, ``typing``, ``json``) the same read
cost 20-25 ms of each SessionStart card at 10k notes (decision 125).
"""

from __future__ import annotations

import os
import stat

from mdmem.base.layout import OBSIDIAN_DIR

TYPE_CHECKING = False  # not `from typing import`: this module stays cheap for the hooks
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

OBSIDIAN_MAX = 1024 * 1024  # bytes of one .obsidian/*.json read at most (Obsidian's own are a few KB)
LINK_FORMATS = ("shortest", "relative", "absolute")  # Obsidian's "New link format" (app.json newLinkFormat)
DAILY_DEFAULT_FORMAT = "YYYY-MM-DD"  # Obsidian's Daily notes default (moment.js tokens)
_NAMES = ("app.json", "templates.json", "daily-notes.json", "core-plugins.json")


class ObsidianSettings:
    """What mdmem honours of a vault's ``.obsidian/`` (read-only, but for
    :func:`mdmem.ops.properties.register_types`):

    - ``app.json``: ``userIgnoreFilters`` (Settings > Files and links > Excluded files: a plain entry is a
      vault-path prefix, ``/.../`` a regular expression searched in the path), ``useMarkdownLinks`` and
      ``newLinkFormat`` (the links mdmem writes), ``attachmentFolderPath``;
    - ``templates.json``: ``folder`` (the core Templates plugin's folder: its notes are templates, not notes);
    - ``daily-notes.json``: ``folder`` and ``format`` (moment.js tokens) of the Daily notes plugin, taken only
      when the file exists and ``core-plugins.json`` does not turn the plugin off.

    A missing file is Obsidian's defaults; a file that is not a regular file, larger than :data:`OBSIDIAN_MAX`
    or not a JSON object is the defaults too, and one line in ``problems`` says so (a vault arrives by git or
    sync: a broken settings file must never stop a command). So is an entry of ``userIgnoreFilters`` or a folder
    that cannot be honoured safely: left out, with a line (:func:`_filter_rules`, :func:`folder_problem`;
    decision 129). A value, compared by its fields; a plain class
    with slots rather than a dataclass (see the module's docstring)."""

    __slots__ = ("present", "ignore_filters", "markdown_links", "link_format", "attachments", "templates",
                 "daily_folder", "daily_format", "problems", "_compiled")

    def __init__(self, present: bool = False, ignore_filters: tuple[str, ...] = (), markdown_links: bool = False,
                 link_format: str = "shortest", attachments: str = "", templates: str = "",
                 daily_folder: str | None = None, daily_format: str = DAILY_DEFAULT_FORMAT,
                 problems: tuple[str, ...] = ()) -> None:
        self.present = present  # the vault holds .obsidian/
        self.ignore_filters = ignore_filters
        self.markdown_links = markdown_links  # Obsidian's default: wikilinks
        self.link_format = link_format
        self.attachments = attachments  # attachmentFolderPath as written ("" or "/" = the root, "./" = beside)
        self.templates = templates  # the templates folder, "" = none
        self.daily_folder = daily_folder  # the Daily notes folder ("" = the vault root); None = no Obsidian daily log
        self.daily_format = daily_format
        self.problems = problems
        self._compiled: tuple | None = None

    def _key(self) -> tuple:
        return (self.present, self.ignore_filters, self.markdown_links, self.link_format, self.attachments,
                self.templates, self.daily_folder, self.daily_format, self.problems)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObsidianSettings) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        names = self.__slots__[:-1]
        return "ObsidianSettings(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"

    def excluded(self, rel: str) -> str | None:
        """Why Obsidian keeps the vault path ``rel`` out of search and the graph: ``"excluded"`` (a
        ``userIgnoreFilters`` entry matches), ``"template"`` (under the templates folder), else None."""
        if self.templates and (rel + "/").startswith(self.templates + "/"):
            return "template"
        prefixes, pattern = self._rules()
        if rel.startswith(prefixes) or (pattern is not None and pattern.search(rel) is not None):
            return "excluded"
        return None

    def _rules(self) -> tuple:
        """The filters as Obsidian applies them (:func:`_filter_rules`), compiled on first use."""
        if self._compiled is None:
            self._compiled = _filter_rules(self.ignore_filters)[0]
        return self._compiled


FILTERS_MAX = 500  # userIgnoreFilters entries honoured at most (a person's Excluded files list holds a handful)
FILTER_MAX = 1000  # characters of one entry at most
FILTERS_CHARS = 10_000  # characters of all the entries at most (checking and compiling: 5-10 us a character)
_LISTED = 5  # refused regular expressions named one a line; the rest counted in one line


def _filter_rules(filters: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], Any], list[str]]:
    """The ``userIgnoreFilters`` entries as rules, and the problems with them: the plain entries as one tuple of
    path prefixes (case-sensitive, as JavaScript's ``startsWith``), the ``/regex/`` ones as one compiled
    alternation (None: none), so each path costs two calls whatever the number of entries (500 regular
    expressions one by one cost 1 s a scan of 10k notes, as one alternation 1 ms; separate patterns only when
    the alternation cannot hold them: a back-reference, a repeated group name, a flag set mid-pattern).

    The list arrives with the vault (git, sync) and every hook applies it to every path, so an entry is left
    out, with a line in the problems, when it is past the first :data:`FILTERS_MAX` entries or
    :data:`FILTERS_CHARS` characters, longer than :data:`FILTER_MAX` characters, a regular expression Python
    cannot compile (as Obsidian drops an invalid one; any exception: a crafted pattern raises ``RecursionError``
    or ``OverflowError``, not only ``re.error``) or one that can take exponential time (:func:`_exponential`).
    ``re`` is imported only when a ``/regex/`` entry exists (decision 125)."""
    problems: list[str] = []
    prefixes: list[str] = []
    patterns: list[Any] = []
    refused: list[str] = []
    long = past = total = 0
    for entry in filters:
        if len(entry) > FILTER_MAX:
            long += 1
            continue
        total += len(entry)
        if len(prefixes) + len(patterns) + len(refused) >= FILTERS_MAX or total > FILTERS_CHARS:
            past += 1
        elif len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
            why = None
            try:
                why = _exponential(entry[1:-1])
                if why is None:
                    import re

                    patterns.append(re.compile(entry[1:-1]))
            except Exception as e:  # re.error, RecursionError, OverflowError, ...: never a traceback
                why = f"not a valid regular expression ({type(e).__name__}: {str(e)[:80] or 'too complex'})"
            if why is not None:
                refused.append(f"{OBSIDIAN_DIR}/app.json: userIgnoreFilters entry {entry[:60]!r}"
                               f"{'...' if len(entry) > 60 else ''}: {why}; left out")
        elif entry:
            prefixes.append(entry)
    if past:
        problems.append(f"{OBSIDIAN_DIR}/app.json: userIgnoreFilters holds {len(filters)} entries; the {past} past "
                        f"the first {FILTERS_MAX} or {FILTERS_CHARS} characters left out")
    if long:
        problems.append(f"{OBSIDIAN_DIR}/app.json: {long} userIgnoreFilters entr{'y' if long == 1 else 'ies'} longer "
                        f"than {FILTER_MAX} characters; left out")
    problems += refused[:_LISTED]
    if len(refused) > _LISTED:
        problems.append(f"{OBSIDIAN_DIR}/app.json: {len(refused) - _LISTED} more userIgnoreFilters regular "
                        "expressions left out")
    return (tuple(prefixes), _one_pattern(patterns)), problems


def _one_pattern(patterns: list[Any]) -> Any:
    """``patterns`` as one: an alternation when it finds what they find (no back-reference, whose number would
    move; its compile fails on a repeated group name or a flag set mid-pattern), else an object whose ``search``
    tries them one by one; None when there is none."""
    if len(patterns) < 2:
        return patterns[0] if patterns else None
    import re

    if not any(p.groups and re.search(r"\\[1-9]|\(\?P=|\(\?\(", p.pattern) for p in patterns):
        try:
            return re.compile("|".join(f"(?:{p.pattern})" for p in patterns))
        except Exception:  # then one by one, as below
            pass
    return _Each(patterns)


class _Each:
    """Patterns searched one by one (:func:`_one_pattern`)."""

    __slots__ = ("patterns",)

    def __init__(self, patterns: list[Any]) -> None:
        self.patterns = patterns

    def search(self, text: str) -> object:
        return next((m for p in self.patterns if (m := p.search(text)) is not None), None)


EXPONENTIAL = "a pattern that can take exponential time"


def _exponential(pattern: str) -> str | None:
    """Why ``pattern`` can take exponential time on a path of a few dozen characters (Python's ``re`` backtracks
    and has no timeout: ``(a+)+$`` on ``aaaaaaaaaaaaaaaaaaaaaaaaaaaa!.md`` took 40 s, each ``a`` more doubling
    it), else None. Two shapes are refused, read off the tree the ``re`` compiler itself builds (so escapes,
    classes and flags are read as ``re`` reads them):

    - a nested quantifier: a repetition that can run more than once (``+``, ``*``, ``{n,}``, ``{n,m}`` with
      m > 1) whose body holds a repetition of variable length (``(a+)+``, ``(a*)*``, ``(ab+)*``, ``(?:a+)+``,
      ``(a+){2,}``, ``(.*a){12}``);
    - under such a repetition, an alternation whose branches can begin with the same character or where one
      branch is empty after ``re`` takes out their common prefix (``(a|a)+``, ``(a|aa)+``, ``(\\w|\\d\\d)+``).

    Deliberately simple, so it refuses some safe patterns (``([^/]+/)+``, ``(ab|a)+``: the rewrite ``.*/`` or
    a prefix entry does the same) and misses what needs more than one level of the tree to see: adjacent
    overlapping repetitions outside any loop (``a*a*a*...b``, polynomial, bounded by the pattern's length),
    overlaps between a branch and what follows the alternation, back-references. A possessive repetition or
    an atomic group cannot backtrack and is not counted."""
    import re

    sre: Any = re._parser  # type: ignore[attr-defined]  # the compiler's own parser and names (there since 3.11)
    c: Any = re._constants  # type: ignore[attr-defined]
    repeats = (c.MAX_REPEAT, c.MIN_REPEAT)
    found: list[str] = []

    def children(av: object) -> Iterator[Any]:  # the sub-patterns inside one node's argument
        if isinstance(av, sre.SubPattern):
            yield av
        elif isinstance(av, (tuple, list)):
            for item in av:
                if isinstance(item, (sre.SubPattern, tuple, list)):
                    yield from children(item)

    def first(sub: Any) -> set[str] | None:  # the sample characters ``sub`` can begin with; None: any, or empty
        for op, av in sub.data:
            if op == c.SUBPATTERN and first(av[3]) is not None:
                return first(av[3])
            if op in (c.AT, c.SUBPATTERN):  # an anchor, an empty group: what follows begins it
                continue
            if op in (c.LITERAL, c.NOT_LITERAL):
                return {ch for ch in _SAMPLE if (ord(ch) == av) == (op == c.LITERAL)}
            return {ch for ch in _SAMPLE if _in(ch, av, c)} if op == c.IN else None
        return None

    def walk(sub: Any, looped: bool) -> bool:  # whether ``sub`` holds a repetition of variable length
        variable = False
        for op, av in sub.data:
            if found:
                break
            if op in repeats:
                loops = av[1] >= 2  # can run more than once
                inner = walk(av[2], looped or loops)
                if loops and inner:
                    found.append("a repetition inside a repetition")
                variable = variable or inner or (av[1] > av[0] and av[1] >= 2)
            elif op in (c.ATOMIC_GROUP, c.POSSESSIVE_REPEAT):  # never backtracked into: only what is inside
                for child in children(av):
                    walk(child, False)
            elif op == c.BRANCH:
                seen: set[str] = set()
                for branch in av[1]:
                    start = first(branch) if looped else set()
                    if start is None or seen & start:
                        found.append("a repeated choice whose branches overlap")
                    seen |= start or set()
                    variable = walk(branch, looped) or variable
            elif op != c.IN:
                for child in children(av):
                    variable = walk(child, looped) or variable
        return variable

    walk(sre.parse(pattern), False)
    return f"{EXPONENTIAL} ({found[0]})" if found else None


_SAMPLE = [chr(n) for n in range(32, 127)] + ["\t", "\u00e9", "\u0394", "\u0660", "\u4e2d", "\u00a0", "\U0001f600"]


def _in(ch: str, items: list, c: Any) -> bool:
    """Whether ``ch`` is in the character class ``items`` (the parser's ``IN`` argument; ``c``: its names)."""
    negate = False
    hit = False
    for op, av in items:
        if op == c.NEGATE:
            negate = True
        elif op == c.LITERAL:
            hit = hit or ord(ch) == av
        elif op == c.RANGE:
            hit = hit or av[0] <= ord(ch) <= av[1]
        elif op == c.CATEGORY:
            name = str(av)
            yes = (ch.isdigit() if "DIGIT" in name else ch.isspace() if "SPACE" in name
                   else ch.isalnum() or ch == "_" if "WORD" in name else True)
            hit = hit or (yes != ("NOT" in name))
        else:
            hit = True  # anything else: take it as matching (an overlap is assumed, never missed)
    return hit != negate


def _json(folder: str, name: str, problems: list[str]) -> dict:
    """One ``.obsidian/NAME`` as a dict ({} when missing): a regular file (opened non-blocking, so a FIFO never
    blocks; then ``fstat``), at most :data:`OBSIDIAN_MAX` bytes, a JSON object; anything else is {} and a line in
    ``problems``. (The walker asks for these settings, so this reads without :mod:`mdmem.base.files`.)"""
    path = os.path.join(folder, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return {}
    except OSError as e:
        problems.append(f"{OBSIDIAN_DIR}/{name}: {e.strerror or e}; Obsidian's defaults used")
        return {}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            problems.append(f"{OBSIDIAN_DIR}/{name}: not a regular file; Obsidian's defaults used")
            return {}
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(OBSIDIAN_MAX + 1)
    except OSError as e:
        problems.append(f"{OBSIDIAN_DIR}/{name}: {e.strerror or e}; Obsidian's defaults used")
        return {}
    finally:
        os.close(fd)
    if len(data) > OBSIDIAN_MAX:
        problems.append(f"{OBSIDIAN_DIR}/{name}: larger than {OBSIDIAN_MAX} bytes; Obsidian's defaults used")
        return {}
    from mdmem.base import fastjson

    try:
        value = fastjson.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as e:
        problems.append(f"{OBSIDIAN_DIR}/{name}: not valid JSON ({e}); Obsidian's defaults used")
        return {}
    except RecursionError:  # a crafted file: bad JSON like any other, never a traceback
        problems.append(f"{OBSIDIAN_DIR}/{name}: not valid JSON (nested too deeply); Obsidian's defaults used")
        return {}
    if not isinstance(value, dict):
        problems.append(f"{OBSIDIAN_DIR}/{name}: not a JSON object; Obsidian's defaults used")
        return {}
    return value


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be part of a file name, else None: a NUL, or text that is not valid UTF-8 (a lone
    surrogate, as JSON's ``"\\ud800"`` gives)."""
    if "\0" in text:
        return "holds a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "not valid UTF-8"
    return None


def folder_problem(folder: str) -> str | None:
    """Why ``folder`` (a vault path, no leading or trailing ``/``; "" = the vault root) cannot be a folder mdmem
    writes to or reads as a setting, else None: :func:`text_problem`, a ``.`` or ``..`` part, a hidden part. The
    one rule for ``[daily]`` in config.toml and the folders of ``.obsidian/``."""
    why = text_problem(folder)
    if why is None and any(part in ("..", ".") or part.startswith(".") for part in folder.split("/") if part):
        why = "a folder inside the vault, not hidden"
    return why


def _folder(value: object, name: str, problems: list[str]) -> str:
    """A folder setting of ``.obsidian/NAME`` as a vault path: no leading or trailing ``/`` ("" = the vault
    root); one :func:`folder_problem` finds fault with is the default ("") and a line in ``problems``."""
    folder = value.strip().strip("/") if isinstance(value, str) else ""
    why = folder_problem(folder)
    if why is None:
        return folder
    problems.append(f"{OBSIDIAN_DIR}/{name}: folder {folder[:60]!r} ({why}); Obsidian's default used")
    return ""


_CACHE: dict[str, tuple[tuple, ObsidianSettings]] = {}


def obsidian_settings(vault: os.PathLike | str) -> ObsidianSettings:
    """The vault's Obsidian settings (:class:`ObsidianSettings`), read once a process and again only when one of
    the files changes (a ``stat`` each: the walker asks on every scan)."""
    folder = os.path.join(vault, OBSIDIAN_DIR)
    stamp: list[tuple[int, int, int] | None] = []
    for name in (".", *_NAMES):
        try:
            st = os.stat(os.path.join(folder, name))
            stamp.append((st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            stamp.append(None)
    if stamp[0] is None:
        return ObsidianSettings()
    key = os.path.abspath(folder)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == tuple(stamp):
        return cached[1]
    problems: list[str] = []
    app, templates, daily, core = (_json(folder, name, problems) for name in _NAMES)
    daily_on = os.path.isfile(os.path.join(folder, "daily-notes.json")) and core.get("daily-notes") is not False
    filters = app.get("userIgnoreFilters")
    filters = tuple(f for f in filters if isinstance(f, str)) if isinstance(filters, list) else ()
    rules, refused = _filter_rules(filters)  # checked here, so a refused entry is said, once, as the others are
    problems += refused
    templates_folder = _folder(templates.get("folder"), "templates.json", problems)
    daily_folder = _folder(daily.get("folder"), "daily-notes.json", problems) if daily_on else None
    link_format = app.get("newLinkFormat", "shortest")
    if link_format not in LINK_FORMATS:
        link_format = "shortest"
    fmt = daily.get("format")
    if isinstance(fmt, str) and (why := text_problem(fmt)) is not None:  # else a traceback when the day is written
        problems.append(f"{OBSIDIAN_DIR}/daily-notes.json: format {fmt[:60]!r} ({why}); Obsidian's default used")
        fmt = None
    settings = ObsidianSettings(
        True, filters, app.get("useMarkdownLinks") is True, link_format,
        app["attachmentFolderPath"] if isinstance(app.get("attachmentFolderPath"), str) else "",
        templates_folder, daily_folder,
        fmt.strip() if isinstance(fmt, str) and fmt.strip() else DAILY_DEFAULT_FORMAT, tuple(problems))
    settings._compiled = rules
    _CACHE[key] = (tuple(stamp), settings)
    return settings

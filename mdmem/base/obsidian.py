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
    sync: a broken settings file must never stop a command). A value, compared by its fields; a plain class
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
        for rule in self._rules():
            if (rule.search(rel) is not None) if not isinstance(rule, str) else rel.startswith(rule):
                return "excluded"
        return None

    def _rules(self) -> tuple:
        """The filters as Obsidian applies them: ``/regex/`` compiled (an invalid one is dropped, as Obsidian
        drops it), any other entry a plain path prefix (case-sensitive, as JavaScript's ``startsWith``)."""
        if self._compiled is None:
            out: list = []
            for entry in self.ignore_filters:
                if len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
                    import re

                    try:
                        out.append(re.compile(entry[1:-1]))
                    except re.error:
                        continue
                elif entry:
                    out.append(entry)
            self._compiled = tuple(out)
        return self._compiled


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


def _folder(value: object) -> str:
    """A folder setting as a vault path: no leading or trailing ``/`` ("" = the vault root)."""
    return value.strip().strip("/") if isinstance(value, str) else ""


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
    filters = app.get("userIgnoreFilters")
    filters = tuple(f for f in filters if isinstance(f, str)) if isinstance(filters, list) else ()
    link_format = app.get("newLinkFormat", "shortest")
    if link_format not in LINK_FORMATS:
        link_format = "shortest"
    daily_on = os.path.isfile(os.path.join(folder, "daily-notes.json")) and core.get("daily-notes") is not False
    fmt = daily.get("format")
    settings = ObsidianSettings(
        True, filters, app.get("useMarkdownLinks") is True, link_format,
        app["attachmentFolderPath"] if isinstance(app.get("attachmentFolderPath"), str) else "",
        _folder(templates.get("folder")),
        _folder(daily.get("folder")) if daily_on else None,
        fmt.strip() if isinstance(fmt, str) and fmt.strip() else DAILY_DEFAULT_FORMAT, tuple(problems))
    _CACHE[key] = (tuple(stamp), settings)
    return settings

"""Text in, :class:`~mdmem.base.models.Note` out. Pure: no file system, no clock.

Frontmatter is split the way Obsidian does (``---`` on the first line and a
closing ``---`` line) and loaded with PyYAML's C loader when available; the
body goes through markdown-it-py with the Obsidian rules of ``links.py``.
Bad input is recorded as a :class:`~mdmem.base.models.Problem` and the note still
loads.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from mdmem.base.errors import UsageError
from mdmem.base.layout import FOLDER_TYPES, nfc
from mdmem.base.models import Heading, Link, Note, Problem
from mdmem.text.links import markdown, parse_wikilink, valid_tag
from mdmem.text.raw import MAX_PARSE_BYTES, decoded, split_frontmatter

MAX_INDEX_CHARS = 1024 * 1024


_FM_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_TAG_SPLIT = re.compile(r"[,\s]+")
_DAILY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def tokens_for(size: int) -> int:
    """The design's token estimate, ``floor(bytes / 3.2)``, in integer arithmetic."""
    return size * 5 // 16


def decode(data: bytes) -> tuple[str, list[Problem]]:
    """Bytes to text: strip a BOM, fall back to cp1252 for non-UTF-8 bytes (:func:`mdmem.text.raw.decoded`)."""
    text, bom, bad = decoded(data)
    problems = []
    if bom:
        problems.append(Problem("bom", "file starts with a UTF-8 byte-order mark"))
    if bad is not None:
        problems.append(Problem("not_utf8", f"not valid UTF-8 (byte {bad}); read as cp1252"))
    return text, problems


class Rewritable:
    """A note's text for rewriting it: decoded, with what is needed to write it back byte for byte alike
    (a byte-order mark, CRLF line ends); what an edit and a move's link rewriting both stand on."""

    def __init__(self, data: bytes) -> None:
        self.bom = data.startswith(b"\xef\xbb\xbf")
        self.crlf = b"\r\n" in data
        text, problems = decode(data)
        if any(p.code == "not_utf8" for p in problems):
            raise UsageError("the note is not UTF-8 text; mdmem will not rewrite it")
        self.text = text

    def encode(self, text: str) -> bytes:
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")


def _yaml_load(text: str) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


def split_note(data: bytes) -> tuple[str | None, str]:
    """A note's bytes -> (frontmatter YAML or None, body): :func:`decode`, then :func:`split_frontmatter`."""
    fm, body, _ = split_frontmatter(decode(data)[0])
    return fm, body


MAX_FRONTMATTER_NODES = 50_000


class _TooBig(ValueError):
    pass


def _jsonable(value: Any, budget: list[int] | None = None, path: tuple[int, ...] = ()) -> Any:
    """YAML data -> JSON-safe data. YAML anchors can make a 1 KB block expand to
    billions of nodes or refer to itself: both stop at a node budget."""
    budget = budget if budget is not None else [MAX_FRONTMATTER_NODES]
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooBig(f"frontmatter expands to more than {MAX_FRONTMATTER_NODES} values (YAML aliases?)")
    if isinstance(value, (dict, list, tuple, set)):
        if id(value) in path:
            raise _TooBig("frontmatter refers to itself (recursive YAML alias)")
        inner = (*path, id(value))
        if isinstance(value, dict):
            return {str(k): _jsonable(v, budget, inner) for k, v in value.items()}
        return [_jsonable(v, budget, inner) for v in value]
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def read_frontmatter(raw: str | None) -> tuple[dict[str, Any], list[Problem]]:
    if raw is None or not raw.strip():
        return {}, []
    try:
        data = _yaml_load(raw)
    except Exception as e:  # yaml.YAMLError and friends: a finding, not a crash
        first = str(e).strip().splitlines()
        return {}, [Problem("invalid_yaml", "invalid YAML frontmatter: " + " ".join(first[:3]))]
    if data is None:
        return {}, []
    if not isinstance(data, dict):
        kind = type(data).__name__
        return {}, [Problem("frontmatter_not_mapping", f"frontmatter is a {kind}, not a mapping")]
    try:
        return _jsonable(data), []
    except (_TooBig, RecursionError) as e:
        return {}, [Problem("invalid_yaml", f"invalid YAML frontmatter: {e}")]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)


def _frontmatter_links(fm: dict[str, Any], raw: str) -> list[Link]:
    lines = raw.split("\n")
    links, cursor = [], 0
    for value in _strings(fm):
        for m in _FM_WIKILINK.finditer(value):
            target, subpath, display = parse_wikilink(m.group(2))
            line = next((i for i in range(cursor, len(lines)) if m.group(0) in lines[i]), None)
            if line is None:
                line = next((i for i, text in enumerate(lines) if m.group(0) in text), 0)
            cursor = line
            links.append(Link(m.group(0), target, subpath, display, bool(m.group(1)), "frontmatter", line + 2))
    return links


def _list_field(fm: dict[str, Any], *keys: str) -> list[str]:
    out: list[str] = []
    for key in keys:
        value = fm.get(key)
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            out.extend(str(v) for v in value if v is not None)
    return out


def _frontmatter_tags(fm: dict[str, Any]) -> list[str]:
    tags = []
    for value in _list_field(fm, "tags", "tag"):
        for part in _TAG_SPLIT.split(value):
            name = valid_tag(part)
            if name:
                tags.append(name)
    return tags


def infer_type(path: str, fm: dict[str, Any]) -> str:
    value = fm.get("type")
    if isinstance(value, str) and value.strip():
        return value.strip().lower()
    for segment in reversed(path.split("/")[:-1]):
        if segment.lower() in FOLDER_TYPES:
            return FOLDER_TYPES[segment.lower()]
    return "note"


def _date(fm: dict[str, Any], stem: str, note_type: str, mtime_ns: int) -> str | None:
    for key in ("updated", "created", "date"):
        value = fm.get(key)
        if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}", value):
            return value[:10]
    if note_type == "daily" and _DAILY.match(stem):
        return stem
    if mtime_ns:
        return dt.datetime.fromtimestamp(mtime_ns / 1e9, dt.UTC).date().isoformat()
    return None


def _walk_body(body: str, line_offset: int) -> tuple[list[Link], list[str], list[Heading], str]:
    """Parse the body once; returns (links, tags, headings, plain text)."""
    env: dict[str, Any] = {"links": [], "tags": []}
    tokens = markdown().parse(body, env)
    headings: list[Heading] = []
    words: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            inline = tokens[i + 1]
            text = "".join(_textual(inline.children))
            line = (tok.map[0] if tok.map else 0) + line_offset + 1
            headings.append(Heading(int(tok.tag[1:]), text.strip(), line))
        elif tok.type == "inline":
            words.append(" ".join(_textual(tok.children)))
        elif tok.type in ("fence", "code_block"):
            words.append(tok.content)
    links = [
        Link(raw, target, subpath, display, embed, kind, line + line_offset + 1)
        for raw, target, subpath, display, embed, kind, line in env["links"]
    ]
    return links, env["tags"], headings, "\n".join(words)


_TEXTUAL = {"text", "code_inline", "wikilink", "tag", "image"}


def _textual(children: Any) -> list[str]:
    return [
        c.content if c.type in _TEXTUAL else " "
        for c in children or ()
        if c.type in _TEXTUAL or c.type in ("softbreak", "hardbreak")
    ]


def parse_note(path: str, data: bytes, mtime_ns: int = 0) -> Note:
    """Parse one note. ``path`` is vault-relative with ``/``, as on disk (never normalised: it is what is
    opened); never raises on bad input."""
    stem = nfc(posixpath.basename(path))  # the path stays as on disk; the title is a name: NFC
    title = stem[:-3] if stem.lower().endswith(".md") else stem
    problems: list[Problem] = []
    if not data:
        problems.append(Problem("empty", "the file is empty"))
    text, decode_problems = decode(data)
    problems.extend(decode_problems)
    raw_fm, body, offset = split_frontmatter(text)
    fm, fm_problems = read_frontmatter(raw_fm)
    problems.extend(fm_problems)

    links = _frontmatter_links(fm, raw_fm) if raw_fm else []
    tags = _frontmatter_tags(fm)
    if len(data) > MAX_PARSE_BYTES:
        problems.append(
            Problem("too_large", f"{len(data)} bytes: links and tags in the body were not parsed")
        )
        headings: list[Heading] = []
        plain = body[:MAX_INDEX_CHARS]
    else:
        body_links, body_tags, headings, plain = _walk_body(body, offset)
        links.extend(body_links)
        tags.extend(body_tags)

    note_type = infer_type(path, fm)
    aliases = tuple(a.strip() for a in _list_field(fm, "aliases", "alias") if a.strip())
    return Note(
        path=path,
        title=title,
        type=note_type,
        frontmatter=fm,
        tags=tuple(sorted(set(tags))),
        aliases=aliases,
        headings=tuple(headings),
        links=tuple(links),
        tokens=tokens_for(len(data)),
        problems=tuple(problems),
        mtime_ns=mtime_ns,
        size=len(data),
        date=_date(fm, title, note_type, mtime_ns),
        text=plain,
    )


# HTML that Markdown notes carry (Obsidian renders it; a snippet shows its text): the element names
# of HTML5 a note plausibly holds. Only these are removed, so `a <enter> key` or `x < y > z` stay.
_HTML_TAGS = ("a|abbr|address|article|aside|audio|b|bdi|bdo|blockquote|br|button|caption|center|cite|code|"
              "col|colgroup|dd|del|details|dfn|div|dl|dt|em|embed|fieldset|figcaption|figure|font|footer|"
              "form|h[1-6]|header|hr|i|iframe|img|input|ins|kbd|label|legend|li|main|mark|meter|nav|object|"
              "ol|optgroup|option|p|param|picture|pre|progress|q|s|samp|section|select|small|source|span|"
              "strike|strong|sub|summary|sup|svg|table|tbody|td|textarea|tfoot|th|thead|time|tr|track|tt|u|"
              "ul|var|video|wbr")
_SNIP_RULES: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"%%.*?%%|<!--.*?-->", re.S), " "),
    (re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I), " "),  # their text is not prose
    (re.compile(r"(`[^`\n]*`)|</?(?:" + _HTML_TAGS + r")\b(?:[^<>\"']|\"[^\"]*\"|'[^']*')*/?>", re.I),
     lambda m: m.group(1) or " "),  # tags go, their text stays; inside `code` nothing is touched
    (re.compile(r"!?\[\[([^\]|\n]*?)(?:\\?\|([^\]\n]*))?\]\]"), lambda m: m.group(2) or m.group(1)),
    (re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)"), r"\1"),
    (re.compile(r"^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[.\]\s+)?|\d+[.)]\s+)", re.M), ""),
    (re.compile(r"^(?:```|~~~).*$|^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*$", re.M), " "),
    (re.compile(r"(\*\*|__|~~|`)"), ""),
]


def snippet_text(data: bytes, limit: int = 20_000) -> str:
    """A cheap Markdown-to-text for snippets of a few search hits: no parser,
    just the syntax a reader would not want to see. Indexing uses the real
    parser (``Note.text``); snippets only need to read well."""
    text, _ = decode(data[: limit * 2])
    _, body, _ = split_frontmatter(text)
    return plain_text(body[:limit])


def plain_text(markdown: str) -> str:
    """``markdown`` without the syntax a reader would not want to see (snippets, embedded passages)."""
    for pattern, repl in _SNIP_RULES:
        markdown = pattern.sub(repl, markdown)
    return markdown


def problem_note(path: str, problem: Problem, mtime_ns: int = 0, size: int = 0) -> Note:
    """A placeholder for a file that could not be read at all."""
    note = parse_note(path, b"", mtime_ns)
    return replace(note, problems=(problem,), size=size, tokens=tokens_for(size))

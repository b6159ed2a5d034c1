"""Obsidian syntax as markdown-it-py rules: wikilinks, embeds, tags, ``%% comments %%``.

Because these are inline/block rules of the real Markdown parser, anything in
inline code, fenced or indented code never reaches them: code is skipped by
construction, not by masking. Every rule records what it found in
``env["links"]`` / ``env["tags"]`` with a 0-based body line, so the caller
gets links and tags in document order from a single parse.

``env["line0"]`` is set by :func:`_inline_with_lines`, a drop-in replacement
for markdown-it's core ``inline`` rule that tells inline rules the first line
of the block they are parsing.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import unquote

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_TAG_BODY = re.compile(r"[\w/\-]+", re.UNICODE)
_WIKI_TARGET_SPLIT = re.compile(r"\\?\|")


def split_target(text: str) -> tuple[str, str | None]:
    """``"Note#Heading"`` -> ``("Note", "#Heading")``; whitespace trimmed."""
    i = text.find("#")
    if i < 0:
        return text.strip(), None
    return text[:i].strip(), "#" + text[i + 1 :].strip()


def parse_wikilink(inner: str) -> tuple[str, str | None, str | None]:
    """The inside of ``[[...]]`` -> (target, subpath, display)."""
    parts = _WIKI_TARGET_SPLIT.split(inner, maxsplit=1)
    display = parts[1].strip() if len(parts) > 1 else None
    target, subpath = split_target(parts[0])
    return target, subpath, display


def valid_tag(name: str) -> str | None:
    """Normalise a tag (no ``#``); ``None`` when Obsidian would not call it a tag."""
    name = name.strip().lstrip("#").rstrip("/").lower()
    if not name or not _TAG_BODY.fullmatch(name) or name.replace("/", "").isdigit():
        return None
    if all(c.isdigit() or c in "/_-" for c in name):
        return None
    return name


def _line(state: Any, pos: int) -> int:
    """The block's line + newlines before ``pos``, counted on from the last call (links come in
    order): counting from the block's start each time made a note of many links quadratic."""
    env = state.env
    last, line = env.get("_line_at", (0, 0))
    if pos < last:
        last, line = 0, 0
    line += state.src.count("\n", last, pos)
    env["_line_at"] = (pos, line)
    return env.get("line0", 0) + line


def _next(state: Any, needle: str, pos: int) -> int:
    """``state.src.find(needle, pos)``, remembered: the answer for ``pos`` holds for every later
    position up to it. Without this, each ``[[`` of a note with no ``]]`` searched to the end of
    the block: a 160 KB note of ``[[a `` took 7.4 s to index (measured on d10a61c), doubling the
    size cost 5.7x; with it the work is linear."""
    memo = state.env.setdefault("_next", {})
    seen = memo.get(needle)
    if seen is not None and seen[0] <= pos and (seen[1] < 0 or seen[1] >= pos):
        return seen[1]
    found = state.src.find(needle, pos)
    memo[needle] = (pos, found)
    return found


MAX_LABEL = 999  # CommonMark's longest link label: a "[" with no "]" this close is not a link


def _wikilink(state: Any, silent: bool) -> bool:
    src, pos = state.src, state.pos
    embed = src.startswith("!", pos)
    start = pos + 1 if embed else pos
    if not src.startswith("[[", start):
        return False
    end = _next(state, "]]", start + 2)
    if end < 0:
        return False
    newline, opening = _next(state, "\n", start + 2), _next(state, "[[", start + 2)
    if 0 <= newline < end or 0 <= opening < end:
        return False
    inner = src[start + 2 : end]
    if not silent:
        target, subpath, display = parse_wikilink(inner)
        raw = src[pos : end + 2]
        state.env["links"].append(
            (raw, target, subpath, display, embed, "wikilink", _line(state, pos))
        )
        token = state.push("wikilink", "", 0)
        token.content = display if display is not None else (target + (subpath or ""))
        token.meta = {"target": target}
    state.pos = end + 2
    return True


def _tag(state: Any, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != "#" or (pos > 0 and not src[pos - 1].isspace()):
        return False
    m = _TAG_BODY.match(src, pos + 1)
    if not m:
        return False
    name = valid_tag(m.group(0))
    if name is None:
        return False
    if not silent:
        state.env["tags"].append(name)
        token = state.push("tag", "", 0)
        token.content = "#" + m.group(0)
    state.pos = m.end()
    return True


def _comment_inline(state: Any, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith("%%", pos):
        return False
    end = src.find("%%", pos + 2)
    state.pos = state.posMax if end < 0 else end + 2
    return True


def _comment_block(state: Any, start_line: int, end_line: int, silent: bool) -> bool:
    """A ``%%`` at the start of a line opens a comment that runs to the next
    ``%%`` (possibly many lines and blank lines later, or to the end of the
    file when never closed), as in Obsidian. If text follows the closing
    ``%%`` on its line, the inline rule handles it instead."""
    first = state.bMarks[start_line] + state.tShift[start_line]
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    if not state.src.startswith("%%", first):
        return False
    close = state.src.find("%%", first + 2)
    if close < 0:
        last = end_line
    else:
        line = start_line
        while line < end_line and state.eMarks[line] < close:
            line += 1
        if state.src[close + 2 : state.eMarks[line]].strip():
            return False
        last = line + 1
    if silent:
        return True
    state.line = last
    token = state.push("obsidian_comment", "", 0)
    token.map = [start_line, last]
    return True


def _markdown_link(original: Callable[[Any, bool], bool]) -> Callable[[Any, bool], bool]:
    """Wrap markdown-it's ``link`` / ``image`` rule to record where the link sits."""

    def rule(state: Any, silent: bool) -> bool:
        pos, n = state.pos, len(state.tokens)
        close = _next(state, "]", pos)
        if close < 0 or close - pos > MAX_LABEL:
            return False  # markdown-it would scan the rest of the block for each "[" (quadratic)
        if not original(state, silent):
            return False
        if silent:
            return True
        for token in state.tokens[n:]:
            href = token.attrGet("href") if token.type == "link_open" else None
            if token.type == "image":
                href = token.attrGet("src")
            if href is not None:
                _record_markdown(state, pos, str(href), token.type == "image")
                break
        return True

    return rule


def _record_markdown(state: Any, pos: int, href: str, embed: bool) -> None:
    if not href or _SCHEME.match(href) or href.startswith("//"):
        return
    raw = state.src[pos : state.pos]
    close = raw.rfind("](")
    display = raw[(2 if embed else 1) : close] if close > 0 else None
    path, _, frag = href.partition("#")
    target = unquote(path).strip()
    subpath = "#" + unquote(frag) if frag else None
    state.env["links"].append(
        (raw, target, subpath, display, embed, "markdown", _line(state, pos))
    )


def _inline_with_lines(state: Any) -> None:
    """markdown-it's core ``inline`` rule, telling inline rules their block's line."""
    md, env = state.md, state.env
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            env["line0"] = token.map[0] if token.map else 0
            env.pop("_line_at", None)
            env.pop("_next", None)
            md.inline.parse(token.content, md, env, token.children)


@lru_cache(maxsize=1)
def markdown() -> Any:
    """The shared parser: CommonMark + tables + strikethrough + Obsidian rules."""
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import image, link

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.disable(["text_join", "replacements", "smartquotes"], ignoreInvalid=True)
    md.block.ruler.before(
        "paragraph", "obsidian_comment", _comment_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.inline.ruler.before("wikilink", "obsidian_comment", _comment_inline)
    md.inline.ruler.before("link", "tag", _tag)
    md.inline.ruler.at("link", _markdown_link(link))
    md.inline.ruler.at("image", _markdown_link(image))
    md.core.ruler.at("inline", _inline_with_lines)
    return md


# --------------------------------------------------------------------------- links mdmem writes



def link_path(path: str, source: str, form: str, resolve: Callable[[str, str], str | None]) -> str:
    """How Obsidian spells the vault path ``path`` (with ``.md``) in a new link from the note ``source``:
    ``shortest`` the file name when it reaches ``path`` from there (``resolve(link, source)``), else the vault
    path; ``relative`` the path from ``source``'s folder; ``absolute`` the vault path. A spelling that would not
    resolve back to ``path`` falls back to ``/`` + the vault path (a vault path only, Obsidian's rule). Link text
    is NFC whatever the name's form on disk (it resolves to an NFD name alike)."""
    import posixpath

    from mdmem.base.layout import nfc

    if form == "relative":
        spelled = posixpath.relpath(path, posixpath.dirname(source) or ".")
    elif form == "shortest" and resolve(posixpath.basename(path), source) == path:
        spelled = posixpath.basename(path)
    else:
        spelled = path
    return nfc(spelled if resolve(spelled, source) == path else "/" + path)


def format_link(path: str, source: str, *, markdown: bool = False, form: str = "shortest", resolve: Callable[[str, str], str | None],
                display: str | None = None) -> str:
    """A new link to the vault path ``path`` from the note ``source``, as Obsidian writes one with the user's
    settings: a wikilink ``[[name]]`` / ``[[name|display]]`` (no ``.md``), or with ``useMarkdownLinks`` a Markdown
    link ``[display](name.md)`` with spaces and the like %-encoded (display: the file name without ``.md``).
    ``form``: :data:`mdmem.base.obsidian.LINK_FORMATS` (:func:`link_path`)."""
    from urllib.parse import quote

    spelled = link_path(path, source, form, resolve)
    if markdown:
        shown = display if display is not None else path.rsplit("/", 1)[-1].removesuffix(".md")
        return f"[{shown}]({quote(spelled, safe='/')})"
    target = spelled[:-3] if spelled.lower().endswith(".md") else spelled
    return f"[[{target}|{display}]]" if display else f"[[{target}]]"

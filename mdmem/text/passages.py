"""A note's body cut into passages: the units search by meaning embeds and snippets are taken from.

Sections at headings, then windows of whole paragraphs, then overlapping word windows; at most
:data:`MAX_PASSAGES` a note, merged two by two past that so the whole note stays covered.

Pure: text in, passages out (no I/O). Line numbers are kept so a caller can show where a passage is.

Details and reasons: docs/decisions/057-passages-and-hybrid-search.md
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TARGET_WORDS = 90   # a passage's size when a section is cut: about what the models see (128 tokens)
MAX_WORDS = 120     # a section or paragraph up to this many words stays whole
MIN_WORDS = 12      # a section shorter than this joins the next one
OVERLAP = 12        # words shared by two windows of one long paragraph
MAX_PASSAGES = 48   # per note; past it neighbours are merged (a ~2,300-word chat session gives ~30)

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Passage:
    heading: str   # the heading's text of its section ("" before the first heading)
    text: str      # the passage's Markdown, heading line included for a section's first passage
    line: int      # first line of the passage in the body (0-based)


def _closes(line: str, m: re.Match | None, fence: str) -> bool:
    """``line`` closes a code fence opened with ``fence`` (same character, at least as long, nothing after)."""
    return bool(m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
                and not line.strip()[len(m.group(1)):].strip())


def _blocks(lines: list[str], start: int) -> list[tuple[int, list[str]]]:
    """``lines`` as blank-line separated blocks (a fenced code block is one block, blank lines and all)."""
    out: list[tuple[int, list[str]]] = []
    cur: list[str] = []
    cur_at = start
    fence = ""
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if fence:
            cur.append(line)
            if _closes(line, m, fence):
                fence = ""
            continue
        if m:
            fence = m.group(1)
            if not cur:
                cur_at = start + i
            cur.append(line)
            continue
        if not line.strip():
            if cur:
                out.append((cur_at, cur))
                cur = []
            continue
        if not cur:
            cur_at = start + i
        cur.append(line)
    if cur:
        out.append((cur_at, cur))
    return out


def _sections(lines: list[str]) -> list[tuple[str, int, list[str]]]:
    """(heading text, first line, lines) for each heading's section; headings inside fences are text."""
    out: list[tuple[str, int, list[str]]] = [("", 0, [])]
    fence = ""
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if fence:
            if _closes(line, m, fence):
                fence = ""
        elif m:
            fence = m.group(1)
        else:
            h = _HEADING.match(line)
            if h:
                out.append(((h.group(2) or "").strip(), i, [line]))
                continue
        out[-1][2].append(line)
    if not any(ln.strip() for ln in out[0][2]):
        out.pop(0)
    return out


def _words(lines: list[str]) -> int:
    return sum(len(ln.split()) for ln in lines)


def _cut(heading: str, at: int, lines: list[str]) -> list[Passage]:
    """One section as passages of whole paragraphs (long prose paragraphs cut into word windows)."""
    if _words(lines) <= MAX_WORDS:
        return [Passage(heading, "\n".join(lines).strip("\n"), at)]
    head_line = lines[0] if _HEADING.match(lines[0]) else ""
    body = lines[1:] if head_line else lines
    pieces: list[tuple[int, str, int]] = []  # (line, text, words)
    for line, block in _blocks(body, at + (1 if head_line else 0)):
        words = _words(block)
        if words > MAX_WORDS and not _FENCE.match(block[0]):
            tokens = " ".join(block).split()
            step = TARGET_WORDS - OVERLAP
            for s in range(0, len(tokens), step):
                pieces.append((line, " ".join(tokens[s:s + TARGET_WORDS]), min(TARGET_WORDS, len(tokens) - s)))
                if s + TARGET_WORDS >= len(tokens):
                    break
        else:
            pieces.append((line, "\n".join(block), words))
    out: list[Passage] = []
    group: list[tuple[int, str, int]] = []
    size = 0
    for piece in pieces:
        if group and size + piece[2] > TARGET_WORDS:
            out.append(_join(heading, head_line, group, not out))
            group, size = [], 0
        group.append(piece)
        size += piece[2]
    if group:
        out.append(_join(heading, head_line, group, not out))
    return out


def _join(heading: str, head_line: str, group: list[tuple[int, str, int]], first: bool) -> Passage:
    text = "\n\n".join(p[1] for p in group)
    if first and head_line:
        return Passage(heading, head_line + "\n\n" + text, group[0][0] - 1)
    return Passage(heading, (heading + "\n\n" + text) if heading else text, group[0][0])


def passages(body: str, limit: int = MAX_PASSAGES) -> list[Passage]:
    """``body`` (a note's Markdown without frontmatter) as passages, in order; [] for an empty body."""
    lines = body.split("\n")
    sections = _sections(lines)
    merged: list[tuple[str, int, list[str]]] = []
    carry: tuple[str, int, list[str]] | None = None
    for heading, at, sec in sections:
        if carry is not None:
            heading, at, sec = heading or carry[0], carry[1], carry[2] + sec
            carry = None
        if _words(sec) < MIN_WORDS:
            carry = (heading, at, sec)
            continue
        merged.append((heading, at, sec))
    if carry is not None and any(ln.strip() for ln in carry[2]):
        if merged:
            heading, at, sec = merged.pop()
            merged.append((heading, at, sec + carry[2]))
        else:
            merged.append(carry)
    out = [p for heading, at, sec in merged for p in _cut(heading, at, sec) if p.text.strip()]
    while len(out) > max(1, limit):
        out = [_merge(out[i:i + 2]) for i in range(0, len(out), 2)]
    return out


def _merge(pair: list[Passage]) -> Passage:
    if len(pair) == 1:
        return pair[0]
    a, b = pair
    return Passage(a.heading, a.text + "\n\n" + b.text, a.line)

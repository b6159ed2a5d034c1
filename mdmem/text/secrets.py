"""Secrets in a text: cloud keys, tokens, private keys, passwords in URLs, high-entropy assignments.

Memory is Markdown an agent reads back into every session and a person may sync or commit, so a
credential saved into it leaks. ``save``, ``daily add``, ``checkpoint accept`` and the MCP ``save``/
``daily_add`` refuse a text holding one (unless told it is not one), and ``check`` reports notes that
hold one (kind ``SECRET``) by line and kind, never the secret itself.

Each rule is a provider's documented token shape; the two context rules also need a random-looking value.

Measurements: docs/decisions/058-hostile-vault-boundary.md
"""

from __future__ import annotations

import base64
import bisect
import math
import re
from dataclasses import dataclass

TYPE_CHECKING = False  # not `from typing import`: type-only imports cost nothing at run time
if TYPE_CHECKING:
    from collections.abc import Iterator

# (kind, pattern, characters that may not stand just before it): kinds are what a person is told. Every
# pattern starts on a literal (Python's re then skips ahead to it at C speed: a leading look-behind made a
# rule 20-50x slower) and every quantifier is bounded, so a scan stays linear in the text.
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_RULES: tuple[tuple[str, re.Pattern, str], ...] = tuple((kind, re.compile(pattern), before) for kind, pattern, before in (
    ("private key", r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----", ""),
    ("AWS access key ID", r"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}(?![A-Za-z0-9])", _ALNUM),
    ("GitHub token", r"gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9_])", _ALNUM + "_"),
    ("GitHub token", r"github_pat_[A-Za-z0-9_]{60,255}", _ALNUM + "_"),
    ("GitLab token", r"glpat-[A-Za-z0-9_-]{20}", _ALNUM + "_"),
    ("Slack token", r"xox[abposre]-[0-9]{1,20}-[A-Za-z0-9-]{10,200}", _ALNUM),
    ("Slack webhook", r"https://hooks\.slack\.com/services/T[A-Z0-9]{4,20}/B[A-Z0-9]{4,20}/[A-Za-z0-9]{16}", ""),
    ("Stripe live key", r"[sr]k_live_[A-Za-z0-9]{16}", _ALNUM),
    ("Google API key", r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])", _ALNUM + "_-"),
    ("Anthropic API key", r"sk-ant-[a-z]{2,10}[0-9]{0,4}-[A-Za-z0-9_-]{32}", _ALNUM + "_-"),
    ("OpenAI API key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{32}", _ALNUM + "_-"),
    ("OpenAI API key", r"sk-[A-Za-z0-9]{32,200}(?![A-Za-z0-9_-])", _ALNUM + "_-"),
    ("JSON Web Token", r"eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{16}", _ALNUM + "_-"),
))
# the literal each rule starts with (any of them): the text is searched with the rule only when one is there
_NEEDLES: tuple[tuple[str, ...], ...] = (
    ("-----BEGIN ",), ("AKIA", "ASIA", "ABIA", "ACCA"), ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), ("github_pat_",),
    ("glpat-",), ("xox",), ("hooks.slack",),
    ("_live_",), ("AIza",), ("sk-",), ("sk-",), ("sk-",), ("eyJ",),
)
_ALL_NEEDLES = frozenset(n for needles in _NEEDLES for n in needles)
assert len(_NEEDLES) == len(_RULES)
# scheme://user:password@host: the password is group 1 (the scheme is not needed to tell)
_URL_CREDENTIALS = re.compile(r"://[^\s/:@]{1,100}:([^\s/@]{1,200})@[^\s/@]")
# an assignment: a key word (found with str.find, at C speed: a regex searching for one of these words
# at every position took ~2 s for 10 MB) and, matched from there, the rest of the key, a separator and a
# value of 8+ characters: password = ..., "api_key": "...", DB_SECRET: ..., token => ...
_KEYWORDS = ("pass", "pwd", "secret", "token", "key", "auth")
_ASSIGNMENT = re.compile(
    r"(?i)(?:pass(?:word|wd)?|pwd|secret|token|key|auth)(?:[_-]?[a-z0-9]{1,20}){0,3}[\"']?"
    r"(?:[ \t]{0,10}(?::=|=>|[:=])[ \t]{0,10}|[ \t]{1,10}(?:is|was|é|era)[ \t]{1,10})"  # or in words: "password is X"
    r"[\"'`]?([^\s\"'`,;]{8,200})")
_NOT_A_KEY = re.compile(r"(?i)(?>pass(?:word|wd)?|pwd|secret|token|key|auth)[a-z]")  # keyboard, tokens, author
_WORDS = re.compile(r"[a-z]+(?:[-_.][a-z]+)*(?:[-_.]?\d{1,4})?")  # stored-in-vault-2024: words, not a key
_PLACEHOLDER = re.compile(
    r"(?i)^(?:<.*>|\$\{?.*\}?|\{\{.*\}\}|%[a-z(].*|\*+|x+|\.+|-+|_+|#+|"
    r"(?:your|example|sample|dummy|fake)[_-]?\w*|"
    r"changeme|change_me|password\d*|passwd|secret|token|redacted|hidden|none|null|undefined|true|false)$")


@dataclass(frozen=True)
class Secret:
    line: int  # 1-based line of the text
    kind: str  # what it looks like ("AWS access key ID", "password in a URL", ...), never the value


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits a character."""
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in counts.values()) if n else 0.0


def random_looking(value: str) -> bool:
    """A value that reads like a generated credential, not a word, a placeholder or a reference."""
    value = value.rstrip(".)]}>")
    if len(value) < 8 or _PLACEHOLDER.match(value) or _WORDS.fullmatch(value) or any(c in value for c in "([{<"):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value), any(not c.isalnum() for c in value)))
    return classes >= 2 and any(c.isdigit() or not c.isalnum() for c in value) and entropy(value) >= 3.0


SCAN_CHARS = 1 << 20  # only the first MiB of a text is searched: a 50 MB note of key words took ~10 s


# the rules without their closing look-ahead: in lines joined back together the next line's first word is glued
# to a token's last piece ("...RM7T" + "end"), and a token's shape is its prefix and length anyway
_GLUED = tuple((kind, re.compile(re.sub(r"\(\?!\[[^\]]*\]\)$", "", pattern.pattern)), before)
               for kind, pattern, before in _RULES)


def _tokens(text: str, rules: tuple[tuple[str, re.Pattern, str], ...] = _RULES) -> Iterator[tuple[int, int, str]]:
    """Each provider-shaped token in ``text``: (start, end, kind)."""
    present = {n for n in _ALL_NEEDLES if n in text}  # substring tests: ~20x cheaper than the regexes' passes
    for (kind, pattern, before), needles in zip(rules, _NEEDLES):
        if present.isdisjoint(needles):
            continue
        for m in pattern.finditer(text):
            if before and m.start() and text[m.start() - 1] in before:
                continue
            end = m.end()
            if kind == "private key":  # the header alone says what it is; the key is what follows it
                footer = text.find("PRIVATE KEY", end)
                footer = text.find("-----", footer + 11) if footer >= 0 else -1
                end = footer + 5 if footer >= 0 else len(text)
            yield m.start(), end, kind


# Ways to hide a provider-shaped token from the rules above that a careless paste or a deliberate evasion uses:
# the token cut over lines, spelled a character at a time with spaces, or base64-encoded. Each is looked for
# only as far as a known token shape is concerned (never the entropy rules: a base64 run or joined lines are
# random-looking by nature), so ordinary notes are not flagged (measured: docs/decisions/018).
_LINE_CUT = re.compile(r"\n[ \t]*")  # a literal first: re skips to each newline at C speed
_SPACED = re.compile(r"(?:[A-Za-z0-9_-][ \t]){11,}[A-Za-z0-9_-](?![A-Za-z0-9_-])")
_SPACED_NEEDLES = frozenset(" ".join(n.strip()) for n in _ALL_NEEDLES)  # "A K I A": looked for first, in C
_BASE64 = re.compile(r"[A-Za-z0-9+/]{24,4000}={0,2}")


def _hidden(text: str) -> Iterator[tuple[int, str]]:
    """(position in ``text``, kind) of each token hidden by a line cut, spaces between its characters or base64.
    Each pass costs a C-speed search when there is nothing to find (a ``re.sub``, substring tests)."""
    if "\n" in text:
        flat = text.replace("\r\n", "\n")
        joined = _LINE_CUT.sub("", flat)
        for start, end, kind in _tokens(joined, _GLUED):
            if joined[start:end] in flat:
                continue  # on one line: the rules found it already
            gone, cut = 0, None  # where ``start`` was before the line ends were taken out (hits are rare)
            for m in _LINE_CUT.finditer(flat):
                if m.start() - gone > start:
                    break
                cut, gone = m, gone + m.end() - m.start()
            yield start + (gone if cut is not None and cut.start() - (gone - (cut.end() - cut.start())) <= start
                           else 0), f"{kind} split over lines"
    if any(n in text for n in _SPACED_NEEDLES):
        for m in _SPACED.finditer(text):
            for _, _, kind in _tokens(re.sub(r"[ \t]", "", m.group())):
                yield m.start(), f"{kind} spelled with spaces"
    for m in _BASE64.finditer(text):
        run = m.group()
        try:
            decoded = base64.b64decode(run + "=" * (-len(run) % 4), validate=True).decode("ascii")
        except (ValueError, UnicodeDecodeError):
            continue
        if decoded.isprintable() or "\n" in decoded:
            for _, _, kind in _tokens(decoded):
                yield m.start(), f"{kind} in base64"


def _found(text: str) -> Iterator[tuple[int, int, int, str]]:
    """Each secret in ``text`` as (where its line is told from, start, end, kind): ``start:end`` is the value
    itself (a token, the password of a URL, an assignment's value; a private key from its header to its
    footer or the end of the text), what :func:`redact` replaces."""
    for start, end, kind in _tokens(text):
        yield start, start, end, kind
    for m in _URL_CREDENTIALS.finditer(text) if "@" in text else ():
        if random_looking(m.group(1)):
            yield m.start(), m.start(1), m.end(1), "password in a URL"
    lowered = text.lower()
    if len(lowered) != len(text):  # a few non-ASCII letters change length when lowered: keep positions
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    for word in _KEYWORDS:
        pos = lowered.find(word)
        while pos >= 0:
            if not (pos and lowered[pos - 1].isalnum()) and not _NOT_A_KEY.match(text, pos):
                assigned = _ASSIGNMENT.match(text, pos)
                if assigned and random_looking(assigned.group(1)):
                    yield pos, assigned.start(1), assigned.end(1), "password or key assignment"
            pos = lowered.find(word, pos + 1)


_ASSIGNED = "password or key assignment"


def find(text: str, deep: bool = False) -> list[Secret]:
    """Every secret in the first :data:`SCAN_CHARS` characters of ``text`` (at most one per line and
    kind; an assignment only on a line holding no other secret), in line order; a token hidden by a line cut,
    spaces between its letters or base64 too with ``deep`` (:func:`_hidden`: what a write is checked with; ~3.5x
    the CPU, so ``check``'s audit of every note does without; :func:`redact` does not take those out)."""
    text = text[:SCAN_CHARS]
    if not text:
        return []
    newlines: list[int] = []

    def line_of(pos: int) -> int:
        if not newlines:  # built at the first find: most texts hold none
            newlines.extend(m.start() for m in re.finditer("\n", text))
            newlines.append(len(text))
        return bisect.bisect_left(newlines, pos) + 1

    found: dict[tuple[int, str], Secret] = {}
    assigned: list[int] = []
    for anchor, _, _, kind in _found(text):
        if kind == _ASSIGNED:
            assigned.append(line_of(anchor))
        else:
            line = line_of(anchor)
            found.setdefault((line, kind), Secret(line, kind))
    taken = {line for line, _ in found}
    for anchor, kind in _hidden(text) if deep else ():
        line = line_of(anchor)
        if line not in taken:
            found.setdefault((line, kind), Secret(line, kind))
    for line in assigned:
        if line not in taken:
            found.setdefault((line, _ASSIGNED), Secret(line, _ASSIGNED))
    return sorted(found.values(), key=lambda s: (s.line, s.kind))


REDACTED = "[{kind} redacted]"  # what stands for a secret :func:`redact` took out, e.g. "[GitHub token redacted]"


def redact(text: str) -> str:
    """``text`` with each secret :func:`find` sees (in its first :data:`SCAN_CHARS` characters) replaced by
    :data:`REDACTED` naming its kind, the rest unchanged: for a text mdmem derives from what someone typed (an
    offline checkpoint's suggestion quotes the user), where a secret has no place and nobody chose to keep
    it. A text :func:`find` finds nothing in comes back as it is (the same object)."""
    head = text[:SCAN_CHARS]
    spans = sorted((start, end, kind) for _, start, end, kind in _found(head)) if head else []
    if not spans:
        return text
    out, at = [], 0
    for start, end, kind in spans:
        if end <= at:
            continue  # inside a secret already taken out (a token inside a private key, say)
        out.append(head[at:start] if start >= at else "")
        if start >= at:
            out.append(REDACTED.format(kind=kind))
        at = end
    return "".join(out) + text[at:]


def values(text: str) -> list[str]:
    """The secrets :func:`redact` would take out of ``text``, as they are written there (what ``check`` takes out
    of every line it prints once a file name holds one: a link spells it %-encoded, beside a ``%20``)."""
    head = text[:SCAN_CHARS]
    return sorted({head[start:end] for _, start, end, _ in _found(head)} if head else set(), key=len, reverse=True)


def describe(secrets: list[Secret], limit: int = 3) -> str:
    """``line 3: an AWS access key ID; line 9: a password in a URL`` (the first ``limit``)."""
    parts = [f"line {s.line}: {_article(s.kind)} {s.kind}" for s in secrets[:limit]]
    more = len(secrets) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _article(kind: str) -> str:
    return "an" if kind[:1].lower() in "aeiou" else "a"

"""Time phrases in English and Brazilian Portuguese, turned into a date window.

Details and reasons: docs/decisions/051-temporal-phrases.md

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/text/temporal.py)."""

from __future__ import annotations

import calendar
import datetime
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["Window", "parse", "window_of"]


@dataclass(frozen=True)
class Window:
    start: datetime.date   # inclusive
    end: datetime.date     # inclusive
    phrase: str            # the words that named the window, as found in the text
    rest: str              # the text without the phrase, cleaned up


Span = tuple[datetime.date, datetime.date]

# ----------------------------------------------------------------------------- words


def _fold(s: str) -> str:
    """Lower case without accents (ç -> c), for table look-ups."""
    return "".join(c for c in unicodedata.normalize("NFD", s.lower()) if not unicodedata.combining(c))


def _alt(words: Iterable[str]) -> str:
    return "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))


_NUM_EN = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_NUM_PT = {"um": 1, "uma": 1, "dois": 2, "duas": 2, "tres": 3, "três": 3, "quatro": 4, "cinco": 5,
           "seis": 6, "sete": 7, "oito": 8, "nove": 9, "dez": 10, "onze": 11, "doze": 12}
_NUMBERS = {_fold(k): v for k, v in {**_NUM_EN, **_NUM_PT, "a": 1, "an": 1}.items()}

_MONTHS_EN = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
              "october", "november", "december"]
_MONTHS_PT = ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro",
              "outubro", "novembro", "dezembro"]
_FULL = {**{n: i for i, n in enumerate(_MONTHS_EN, 1)}, **{_fold(n): i for i, n in enumerate(_MONTHS_PT, 1)}}
_FULL_LANG = {**{n: "en" for n in _MONTHS_EN}, **{_fold(n): "pt" for n in _MONTHS_PT}}
_ABBR = {"jan": 1, "feb": 2, "fev": 2, "mar": 3, "apr": 4, "abr": 4, "mai": 5, "jun": 6, "jul": 7,
         "aug": 8, "ago": 8, "sep": 9, "sept": 9, "set": 9, "oct": 10, "out": 10, "nov": 11, "dec": 12,
         "dez": 12}
_ABBR_LANG = {"feb": "en", "apr": "en", "aug": "en", "sep": "en", "sept": "en", "oct": "en", "dec": "en",
              "fev": "pt", "abr": "pt", "mai": "pt", "ago": "pt", "set": "pt", "out": "pt", "dez": "pt"}
_ABBR_NEEDS_SEP = {"set", "out", "ago"}          # English words: a bare space is not enough
_LICENSED = {"may": {"in", "of", "during"}, "march": {"in", "of", "during"}}
_MARCO_LICENSE = {"em", "durante"}               # "marco" without the cedilla
_MONTH_REFUSE_BEFORE = {"last", "next", "this", "past", "coming", "previous", "every", "each", "ultimo",
                        "proximo", "este", "esse", "neste", "nesse", "deste", "desse", "todo", "cada"}
_YEAR_PREPOSITIONS = {"in", "during", "em", "durante"}

_DANGLING_EN = {"in", "on", "from", "of", "during", "over", "within", "for"}
_DANGLING_PT = {"em", "de", "do", "da", "dos", "das", "no", "na", "nos", "nas", "durante"}
_DANGLING = {"en": _DANGLING_EN, "pt": _DANGLING_PT, "any": _DANGLING_EN | _DANGLING_PT}

_N_EN = rf"(?P<n>\d{{1,4}}|{_alt(_NUM_EN)})"
_N_EN_A = rf"(?P<n>\d{{1,4}}|{_alt(_NUM_EN)}|an?)"
_N_PT = rf"(?P<n>\d{{1,4}}|{_alt(_NUM_PT)})"
_U_EN = r"(?P<u>days?|weeks?|months?|years?)"
_U_EN3 = r"(?P<u>days?|weeks?|months?)"
_U_PT = r"(?P<u>dias?|semanas?|m[eê]s(?:es)?|anos?)"
_U_PT3 = r"(?P<u>dias?|semanas?|m[eê]s(?:es)?)"
_YEAR_END = r"(?![\w/-]|[.:]\w)"                  # not glued to a word, a path, a time or a suffix
_B = r"(?<!\w)"
_E = r"(?!\w)"


def _number(s: str) -> int | None:
    n = int(s) if s.isdigit() else _NUMBERS.get(_fold(s))
    return n if n else None


def _unit(s: str) -> str:
    """'d', 'w', 'm' or 'y' for an English or Portuguese unit word."""
    f = _fold(s)
    if f.startswith("d"):
        return "d"
    if f.startswith(("w", "s")):
        return "w"
    if f.startswith("m"):
        return "m"
    return "y"


# ----------------------------------------------------------------------------- dates


def _week(d: datetime.date) -> Span:
    monday = d - datetime.timedelta(days=d.weekday())
    return monday, monday + datetime.timedelta(days=6)


def _month(year: int, month: int) -> Span:
    return datetime.date(year, month, 1), datetime.date(year, month, calendar.monthrange(year, month)[1])


def _year(year: int) -> Span:
    return datetime.date(year, 1, 1), datetime.date(year, 12, 31)


def _shift(year: int, month: int, k: int) -> tuple[int, int]:
    i = year * 12 + month - 1 + k
    return i // 12, i % 12 + 1


def _ago(n: int, unit: str, today: datetime.date) -> Span:
    if unit == "d":
        d = today - datetime.timedelta(days=n)
        return d, d
    if unit == "w":
        return _week(today - datetime.timedelta(days=7 * n))
    if unit == "m":
        return _month(*_shift(today.year, today.month, -n))
    return _year(today.year - n)


def _rolling(n: int, unit: str, today: datetime.date) -> Span:
    if unit == "d":
        return today - datetime.timedelta(days=n - 1), today
    if unit == "w":
        return today - datetime.timedelta(days=7 * n - 1), today
    y, m = _shift(today.year, today.month, -n)
    back = datetime.date(y, m, min(today.day, calendar.monthrange(y, m)[1]))
    return back + datetime.timedelta(days=1), today


def _period(unit: str, k: int, today: datetime.date) -> Span:
    """The calendar week/month/year containing today, shifted k units."""
    if unit == "w":
        return _week(today + datetime.timedelta(days=7 * k))
    if unit == "m":
        return _month(*_shift(today.year, today.month, k))
    return _year(today.year + k)


# ----------------------------------------------------------------------------- context


_LAST_WORD = re.compile(r"(\w+)\Z")


def _prev_word(before: str) -> tuple[str, int]:
    """The word right before a phrase (separated by whitespace only), folded, and where it starts."""
    stripped = before.rstrip()
    if len(stripped) == len(before):
        return "", -1
    offset = max(0, len(stripped) - 100)      # look at the tail only: long texts stay linear
    m = _LAST_WORD.search(stripped, offset)
    return (_fold(m.group(1)), m.start(1)) if m else ("", -1)


_DAY_BEFORE = re.compile(r"(?<![\w.:/-])\d{1,2}(?:st|nd|rd|th|º|°|ª|o)?\s+(?:(?:of|de)\s+)?\Z",
                         re.IGNORECASE)
_DAY_AFTER = re.compile(r"\s+\d{1,2}(?:st|nd|rd|th|º|°|ª)?(?![\w-]|[.:/]\d)", re.IGNORECASE)
_MONTH_REFUSE_AFTER = re.compile(r"\s+(?:passad[oa]|que\s+vem|pr[oó]xim[oa]|(?:of\s+)?next\s+year|"
                                 r"do\s+pr[oó]ximo\s+ano)(?!\w)", re.IGNORECASE)
_NOT_OF = re.compile(r"\s+of\s", re.IGNORECASE)


# ----------------------------------------------------------------------------- rules

Handler = Callable[[re.Match, str, datetime.date], "Span | None"]


@dataclass(frozen=True)
class _Rule:
    rx: re.Pattern
    lang: str            # "en", "pt" or "any" (decides which dangling prepositions go)
    handle: Handler


_RULES: list[_Rule] = []


def _rule(pattern: str, lang: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _RULES.append(_Rule(re.compile(pattern, re.IGNORECASE), lang, fn))
        return fn
    return register


@_rule(rf"(?<![\w./-])(?P<y>\d{{4}})-(?P<m>\d{{2}})-(?P<d>\d{{2}}){_YEAR_END}", "any")
def _iso_day(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    d = datetime.date(int(m["y"]), int(m["m"]), int(m["d"]))
    return d, d


@_rule(rf"(?<![\w./-])(?P<y>\d{{4}})-(?P<m>\d{{2}}){_YEAR_END}", "any")
def _iso_month(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    return _month(int(m["y"]), int(m["m"]))


@_rule(rf"{_B}(?P<w>today|yesterday|(?:the\s+)?day\s+before\s+yesterday){_E}", "en")
@_rule(rf"{_B}(?P<w>hoje|ontem|anteontem|ante-ontem|antes\s+de\s+ontem){_E}", "pt")
def _day(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    w = _fold(m["w"])
    back = 0 if w in ("today", "hoje") else 1 if w in ("yesterday", "ontem") else 2
    d = today - datetime.timedelta(days=back)
    return d, d


@_rule(rf"{_B}{_N_EN_A}\s+{_U_EN}\s+ago{_E}", "en")
@_rule(rf"{_B}h[aá]\s+{_N_PT}\s+{_U_PT}(?:\s+atr[aá]s)?{_E}", "pt")
@_rule(rf"{_B}{_N_PT}\s+{_U_PT}\s+atr[aá]s{_E}", "pt")
def _units_ago(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    n = _number(m["n"])
    return _ago(n, _unit(m["u"]), today) if n else None


@_rule(rf"{_B}(?:the\s+)?(?:last|past)\s+{_N_EN}\s+{_U_EN3}{_E}", "en")
@_rule(rf"{_B}(?:[oa]s\s+)?[uú]ltim[oa]s?\s+{_N_PT}\s+{_U_PT3}{_E}", "pt")
def _last_n(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    n = _number(m["n"])
    return _rolling(n, _unit(m["u"]), today) if n else None


@_rule(rf"{_B}(?:(?P<last>(?:the\s+)?last)|this)\s+(?P<u>week|month|year){_E}", "en")
def _this_last_en(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    if _NOT_OF.match(text, m.end()):        # "last week of march", "the last month of 2025"
        return None
    return _period(_unit(m["u"]), -1 if m["last"] else 0, today)


@_rule(rf"{_B}(?:(?:a\s+)?(?P<w>semana)|(?:o\s+)?(?P<u>m[eê]s|ano))\s+passad[oa]{_E}", "pt")
def _last_pt(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    return _period("w" if m["w"] else _unit(m["u"]), -1, today)


@_rule(rf"{_B}(?:[nd]?es[st]a\s+(?P<w>semana)|[nd]?es[st]e\s+(?P<u>m[eê]s|ano)){_E}", "pt")
def _this_pt(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    return _period("w" if m["w"] else _unit(m["u"]), 0, today)


_FULL_NAMES = _alt(_MONTHS_EN + _MONTHS_PT + ["marco"])


@_rule(rf"{_B}(?P<m>{_FULL_NAMES}){_E}"
       rf"(?:(?:\s+(?:of|de)\s+|\s*/\s*|\s+)(?P<y>\d{{4}}){_YEAR_END}"
       rf"|\s+(?P<rel>(?P<last>(?:of\s+)?last\s+year|do\s+ano\s+passado)"
       rf"|this\s+year|[dn]?es[st]e\s+ano){_E})?",
       "month")
def _month_name(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    name = m["m"].lower()
    month = _FULL[_fold(name)]
    before = text[max(0, m.start() - 100):m.start()]
    prev, _ = _prev_word(before)
    if prev in _MONTH_REFUSE_BEFORE or _DAY_BEFORE.search(before[-40:]):
        return None
    if m["y"]:
        return _month(int(m["y"]), month)
    if m["rel"]:
        return _month(today.year - (1 if m["last"] else 0), month)
    if _DAY_AFTER.match(text, m.end()) or _MONTH_REFUSE_AFTER.match(text, m.end()):
        return None
    if name in _LICENSED and prev not in _LICENSED[name]:
        return None
    if name == "marco" and prev not in _MARCO_LICENSE:
        return None
    return _month(today.year if month <= today.month else today.year - 1, month)


@_rule(rf"{_B}(?P<a>{_alt(_ABBR)}){_E}(?P<dot>\.)?"
       rf"(?P<sep>\s+(?:of|de)\s+|\s*/\s*|\s+)(?P<y>\d{{4}}){_YEAR_END}",
       "month")
def _month_abbr(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    a = m["a"].lower()
    if a in _ABBR_NEEDS_SEP and not m["dot"] and not m["sep"].strip():
        return None
    before = text[max(0, m.start() - 100):m.start()]
    if _prev_word(before)[0] in _MONTH_REFUSE_BEFORE or _DAY_BEFORE.search(before[-40:]):
        return None
    return _month(int(m["y"]), _ABBR[a])


@_rule(rf"(?<![\w./-])(?P<y>\d{{4}}){_YEAR_END}(?!,\d)", "any")
def _year_after_preposition(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    year = int(m["y"])
    prev, _ = _prev_word(text[max(0, m.start() - 100):m.start()])
    if not 1900 <= year <= 2199 or prev not in _YEAR_PREPOSITIONS:
        return None
    return _year(year)


@_rule(rf"{_B}(?:o\s+)?ano\s+de\s+(?P<y>\d{{4}}){_YEAR_END}", "pt")
def _ano_de(m: re.Match[str], text: str, today: datetime.date) -> Span | None:
    return _year(int(m["y"]))


# ----------------------------------------------------------------------------- search


def _lang(rule: _Rule, m: re.Match) -> str:
    if rule.lang != "month":
        return rule.lang
    if m.groupdict().get("a"):
        return _ABBR_LANG.get(m["a"].lower(), "any")
    return _FULL_LANG[_fold(m["m"])]


def _first(text: str, today: datetime.date) -> tuple[int, int, str, Span] | None:
    """(start, end, language, window) of the leftmost phrase, the longest on a tie."""
    best = None
    for rule in _RULES:
        pos = 0
        while (m := rule.rx.search(text, pos)) is not None:
            if best is not None and m.start() > best[0]:
                break
            try:
                span = rule.handle(m, text, today)
            except (ValueError, OverflowError):      # impossible date, or out of the calendar's range
                span = None
            if span is not None:
                if best is None or (m.start(), -m.end()) < (best[0], -best[1]):
                    best = (m.start(), m.end(), _lang(rule, m), span)
                break
            pos = m.start() + 1
    return best


_POSSESSIVE = re.compile(r"['’]s(?!\w)")
_CLOSERS = {"(": ")", "[": "]", "{": "}", '"': '"', "'": "'", "“": "”", "‘": "’", "«": "»"}


def _rest(before: str, after: str) -> str:
    # an emptied pair of brackets or quotes, glued to the phrase on both sides
    while before and after and before[-1] in _CLOSERS and after[0] == _CLOSERS[before[-1]]:
        before, after = before[:-1], after[1:]
    left, right = " ".join(before.split()), " ".join(after.split())
    if left.endswith(",") and right.startswith(","):         # ", last week," enclosed the phrase
        left, right = left[:-1].rstrip(), right[1:].lstrip()
    if not left:
        right = re.sub(r"^[,;:.!?–—]+\s*", "", right)
    if not right:
        left = re.sub(r"\s*[,;:–—]+$", "", left)
    if left.endswith((",", ";", ":")) and right[:1] in (".", "?", "!", "…", ",", ";", ":", ")", "]"):
        left = left[:-1].rstrip()
    if left and right:
        joined = left + right if right[0] in ",.;:?!…)]}" else left + " " + right
    else:
        joined = left or right
    return joined if re.search(r"\w", joined) else ""


def _today(today: datetime.date) -> datetime.date:
    if isinstance(today, datetime.datetime):
        return today.date()
    if not isinstance(today, datetime.date):
        raise TypeError(f"today must be a datetime.date, not {type(today).__name__}")
    return today


def parse(text: str, today: datetime.date) -> Window | None:
    """The first (leftmost) time phrase in ``text``, or None (see the module docstring)."""
    today = _today(today)
    text = unicodedata.normalize("NFC", text)
    found = _first(text, today)
    if found is None:
        return None
    s, e, lang, (start, end) = found
    before, after = text[:s], text[e:]
    possessive = lang in ("en", "any") and _POSSESSIVE.match(after)
    if possessive:
        e += possessive.end()
        after = text[e:]
    else:
        word, at = _prev_word(before)
        if word in _DANGLING[lang]:
            before = before[:at]
    return Window(start, end, text[s:e], _rest(before, after))


_EXAMPLES = ("e.g. 'last week', 'yesterday', '3 days ago', '2026-04', 'april 2026', 'mês passado', "
             "'há 2 semanas'")


def window_of(phrase: str, today: datetime.date) -> Window:
    """The window of a string that is nothing but a time phrase; ValueError otherwise.

    Besides everything :func:`parse` reads, a bare year ("2025") and a bare
    "may"/"march"/"marco" are accepted here: an option value has no other reading.
    """
    today = _today(today)
    if not phrase or not phrase.strip():
        raise ValueError(f"empty time phrase; expected {_EXAMPLES}")
    first = parse(phrase, today)
    candidates = [first] + [parse(prefix + phrase.strip(), today) for prefix in ("in ", "em ")]
    for w in candidates:
        if w is not None and not w.rest:
            return w
    if first is None:
        raise ValueError(f"not a time phrase: {phrase!r}; expected {_EXAMPLES}")
    raise ValueError(f"{phrase!r} is more than a time phrase: {first.phrase!r} names "
                     f"{first.start.isoformat()}..{first.end.isoformat()}, but {first.rest!r} is left over")


_ISO_OPTION = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")


def iso_bound(value: str, end: bool = False) -> str:
    """An ``--after``/``--before`` value: ``YYYY-MM-DD`` as is, ``YYYY-MM`` as the month's
    first day (or, for an ``end``, a day after every day of the month, compared as text).
    Raises ValueError on anything else."""
    if not _ISO_OPTION.match(value):
        raise ValueError(f"wants a date as YYYY-MM-DD or YYYY-MM, not {value!r}")
    try:
        day = datetime.date.fromisoformat(value if len(value) == 10 else value + "-01")
    except ValueError:
        raise ValueError(f"wants a date as YYYY-MM-DD or YYYY-MM, not {value!r}") from None
    return value + "-31" if len(value) == 7 and end else day.isoformat()

"""Dates written with moment.js format tokens, as Obsidian's Daily notes plugin names its notes
(``daily-notes.json`` ``format``, default ``YYYY-MM-DD``; a ``/`` in it makes folders).

The tokens Daily notes formats use (the date ones, English names, as moment's default locale writes
them): ``YYYY YY Q M MM MMM MMMM D DD Do DDD DDDD d dd ddd dddd E e w ww W WW gggg GGGG``, and ``[text]``
kept as written. A time token (``H``, ``mm``, ``A`` ...) or any other letter is a :class:`MomentError`
naming it: a daily note is one file a day, and a name mdmem cannot write exactly as Obsidian would is
worse than a clear refusal. Pure: no I/O.
"""

from __future__ import annotations

import datetime as dt
import re

# longest first: the scanner takes the longest token at each place, as moment does
_TOKENS = ("YYYY", "GGGG", "gggg", "MMMM", "DDDD", "dddd", "MMM", "DDD", "ddd", "YY", "MM", "DD", "Do", "dd",
           "ww", "WW", "M", "D", "d", "E", "e", "w", "W", "Q")
_SCAN = re.compile(r"\[[^\]]*\]|" + "|".join(_TOKENS) + r"|[A-Za-z]+|[^A-Za-z\[]+|\[")


class MomentError(ValueError):
    """A format holds a token mdmem does not write (said by name)."""


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _locale_week(day: dt.date) -> tuple[int, int]:
    """moment's default-locale week (``w``, ``gggg``): weeks start on Sunday, week 1 holds January 1st."""
    saturday = day + dt.timedelta(days=(5 - day.weekday()) % 7)  # the week's last day; its year is the week's
    first = dt.date(saturday.year, 1, 1)
    first_sunday = first - dt.timedelta(days=(first.weekday() + 1) % 7)
    return saturday.year, (day - first_sunday).days // 7 + 1


def _value(token: str, day: dt.date) -> str:
    iso_year, iso_week, iso_day = day.isocalendar()
    week_year, week = _locale_week(day)
    values = {
        "YYYY": f"{day.year:04d}", "YY": f"{day.year % 100:02d}", "Q": str((day.month - 1) // 3 + 1),
        "M": str(day.month), "MM": f"{day.month:02d}", "MMM": day.strftime("%b"), "MMMM": day.strftime("%B"),
        "D": str(day.day), "DD": f"{day.day:02d}", "Do": _ordinal(day.day),
        "DDD": str(day.timetuple().tm_yday), "DDDD": f"{day.timetuple().tm_yday:03d}",
        "d": str(iso_day % 7), "e": str(iso_day % 7), "E": str(iso_day),
        "dd": day.strftime("%a")[:2], "ddd": day.strftime("%a"), "dddd": day.strftime("%A"),
        "w": str(week), "ww": f"{week:02d}", "gggg": f"{week_year:04d}",
        "W": str(iso_week), "WW": f"{iso_week:02d}", "GGGG": f"{iso_year:04d}",
    }
    return values[token]


_NAMES = {"January": 1, "February": 2, "March": 3, "April": 4, "May": 5, "June": 6, "July": 7, "August": 8,
          "September": 9, "October": 10, "November": 11, "December": 12}


def format_day(day: dt.date, fmt: str) -> str:
    """``day`` written with the moment.js format ``fmt`` (English names, as moment's default locale)."""
    out = []
    for part in _SCAN.findall(fmt):
        if part.startswith("[") and part.endswith("]") and len(part) > 1:
            out.append(part[1:-1])
        elif part in _TOKENS:
            out.append(_value(part, day))
        elif part[0].isalpha() or part == "[":
            raise MomentError(f"the daily notes format {fmt!r} uses {part!r}, which mdmem does not write (it writes "
                              f"the date tokens {' '.join(sorted(_TOKENS))} and [text]); set [daily] format in "
                              ".mdmem/config.toml, or change it in Obsidian's Daily notes settings")
        else:
            out.append(part)
    return "".join(out)

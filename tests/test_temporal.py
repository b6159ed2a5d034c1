"""Tests for ``mdmem.text.temporal``: English and Portuguese time phrases -> a date window.

Table-driven: each row is (text, today, start, end, phrase, rest), or a text with
no phrase at all. Most rows are asked on Wednesday 2026-04-15 (ISO week
2026-04-13..2026-04-19); a few on 2026-01-10 (year wrap) and 2026-03-31 (month
arithmetic).
"""

from __future__ import annotations

import datetime

import pytest

from mdmem.text.temporal import Window, parse, window_of

T = "2026-04-15"        # a Wednesday
JAN = "2026-01-10"      # a Saturday, early in the year
MAR31 = "2026-03-31"    # the end of a 31-day month

LAST_WEEK = ("2026-04-06", "2026-04-12")
THIS_WEEK = ("2026-04-13", "2026-04-19")
MARCH = ("2026-03-01", "2026-03-31")
APRIL = ("2026-04-01", "2026-04-30")
FEB = ("2026-02-01", "2026-02-28")
Y2025 = ("2025-01-01", "2025-12-31")
Y2026 = ("2026-01-01", "2026-12-31")


def d(s: str) -> datetime.date:
    return datetime.date.fromisoformat(s)


def row(text, today, window, phrase, rest):
    return pytest.param(text, today, window[0], window[1], phrase, rest, id=f"{today}:{text}")


ROWS = [
    # ---- ISO dates
    row("notes from 2026-04-12 about billing", T, ("2026-04-12", "2026-04-12"), "2026-04-12",
        "notes about billing"),
    row("what happened on 2026-04-12?", T, ("2026-04-12", "2026-04-12"), "2026-04-12", "what happened?"),
    row("billing in 2026-03", T, MARCH, "2026-03", "billing"),
    row("2024-02 invoices", T, ("2024-02-01", "2024-02-29"), "2024-02", "invoices"),
    row("2024-02-29", T, ("2024-02-29", "2024-02-29"), "2024-02-29", ""),
    row("(2026-04-12)", T, ("2026-04-12", "2026-04-12"), "2026-04-12", ""),
    row("o que houve em 2026-04-01?", T, ("2026-04-01", "2026-04-01"), "2026-04-01", "o que houve?"),
    # ---- days
    row("what did we do today?", T, ("2026-04-15", "2026-04-15"), "today", "what did we do?"),
    row("o que fizemos hoje?", T, ("2026-04-15", "2026-04-15"), "hoje", "o que fizemos?"),
    row("Yesterday we fixed the build", T, ("2026-04-14", "2026-04-14"), "Yesterday", "we fixed the build"),
    row("decisões de ontem", T, ("2026-04-14", "2026-04-14"), "ontem", "decisões"),
    row("what did we decide the day before yesterday", T, ("2026-04-13", "2026-04-13"),
        "the day before yesterday", "what did we decide"),
    row("anteontem decidimos", T, ("2026-04-13", "2026-04-13"), "anteontem", "decidimos"),
    row("antes de ontem", T, ("2026-04-13", "2026-04-13"), "antes de ontem", ""),
    row("notes in today's standup", T, ("2026-04-15", "2026-04-15"), "today's", "notes in standup"),
    row("yesterday’s deploy", T, ("2026-04-14", "2026-04-14"), "yesterday’s", "deploy"),
    row("ontem", JAN, ("2026-01-09", "2026-01-09"), "ontem", ""),
    # ---- N units ago
    row("3 days ago", T, ("2026-04-12", "2026-04-12"), "3 days ago", ""),
    row("three days ago we merged", T, ("2026-04-12", "2026-04-12"), "three days ago", "we merged"),
    row("one day ago", T, ("2026-04-14", "2026-04-14"), "one day ago", ""),
    row("há 3 dias", T, ("2026-04-12", "2026-04-12"), "há 3 dias", ""),
    row("ha tres dias", T, ("2026-04-12", "2026-04-12"), "ha tres dias", ""),
    row("5 dias atrás", T, ("2026-04-10", "2026-04-10"), "5 dias atrás", ""),
    row("há 2 dias atras fechamos", T, ("2026-04-13", "2026-04-13"), "há 2 dias atras", "fechamos"),
    row("a week ago", T, LAST_WEEK, "a week ago", ""),
    row("2 weeks ago", T, ("2026-03-30", "2026-04-05"), "2 weeks ago", ""),
    row("há duas semanas", T, ("2026-03-30", "2026-04-05"), "há duas semanas", ""),
    row("3 semanas atrás", T, ("2026-03-23", "2026-03-29"), "3 semanas atrás", ""),
    row("Há Três Semanas", T, ("2026-03-23", "2026-03-29"), "Há Três Semanas", ""),
    row("há uma semana", T, LAST_WEEK, "há uma semana", ""),
    row("a month ago", T, MARCH, "a month ago", ""),
    row("2 months ago", T, FEB, "2 months ago", ""),
    row("há um mês", T, MARCH, "há um mês", ""),
    row("ha 2 meses", T, FEB, "ha 2 meses", ""),
    row("3 meses atrás", T, ("2026-01-01", "2026-01-31"), "3 meses atrás", ""),
    row("twelve months ago", T, ("2025-04-01", "2025-04-30"), "twelve months ago", ""),
    row("há doze meses", T, ("2025-04-01", "2025-04-30"), "há doze meses", ""),
    row("a year ago", T, Y2025, "a year ago", ""),
    row("há 2 anos", T, ("2024-01-01", "2024-12-31"), "há 2 anos", ""),
    row("1 month ago", MAR31, FEB, "1 month ago", ""),
    row("há um mês", MAR31, FEB, "há um mês", ""),
    row("2 months ago", JAN, ("2025-11-01", "2025-11-30"), "2 months ago", ""),
    row("a week ago", JAN, ("2025-12-29", "2026-01-04"), "a week ago", ""),
    # ---- calendar periods
    row("what did we decide about billing last week?", T, LAST_WEEK, "last week",
        "what did we decide about billing?"),
    row("o que decidimos sobre cobrança na semana passada?", T, LAST_WEEK, "semana passada",
        "o que decidimos sobre cobrança?"),
    row("what changed in the last week", T, LAST_WEEK, "the last week", "what changed"),
    row("this week", T, THIS_WEEK, "this week", ""),
    row("esta semana", T, THIS_WEEK, "esta semana", ""),
    row("essa semana", T, THIS_WEEK, "essa semana", ""),
    row("o que mudou nesta semana", T, THIS_WEEK, "nesta semana", "o que mudou"),
    row("as notas desta semana", T, THIS_WEEK, "desta semana", "as notas"),
    row("last month", T, MARCH, "last month", ""),
    row("no mês passado", T, MARCH, "mês passado", ""),
    row("o mes passado", T, MARCH, "o mes passado", ""),
    row("MÊS PASSADO", T, MARCH, "MÊS PASSADO", ""),
    row("this month", T, APRIL, "this month", ""),
    row("este mês", T, APRIL, "este mês", ""),
    row("neste mes", T, APRIL, "neste mes", ""),
    row("esse mês", T, APRIL, "esse mês", ""),
    row("last year", T, Y2025, "last year", ""),
    row("no ano passado", T, Y2025, "ano passado", ""),
    row("this year", T, Y2026, "this year", ""),
    row("este ano", T, Y2026, "este ano", ""),
    row("esse ano", T, Y2026, "esse ano", ""),
    row("last week", JAN, ("2025-12-29", "2026-01-04"), "last week", ""),
    row("this week", JAN, ("2026-01-05", "2026-01-11"), "this week", ""),
    row("last month", JAN, ("2025-12-01", "2025-12-31"), "last month", ""),
    row("mês passado", JAN, ("2025-12-01", "2025-12-31"), "mês passado", ""),
    row("last year", JAN, Y2025, "last year", ""),
    row("last month", MAR31, FEB, "last month", ""),
    # ---- rolling windows ending today
    row("last 3 days", T, ("2026-04-13", "2026-04-15"), "last 3 days", ""),
    row("past 7 days", T, ("2026-04-09", "2026-04-15"), "past 7 days", ""),
    row("in the last 2 weeks", T, ("2026-04-02", "2026-04-15"), "the last 2 weeks", ""),
    row("decisions from the last two months", T, ("2026-02-16", "2026-04-15"), "the last two months",
        "decisions"),
    row("últimos 3 dias", T, ("2026-04-13", "2026-04-15"), "últimos 3 dias", ""),
    row("o que mudou nos últimos 7 dias?", T, ("2026-04-09", "2026-04-15"), "últimos 7 dias",
        "o que mudou?"),
    row("ultimas 2 semanas", T, ("2026-04-02", "2026-04-15"), "ultimas 2 semanas", ""),
    row("os últimos três meses", T, ("2026-01-16", "2026-04-15"), "os últimos três meses", ""),
    row("last 1 month", MAR31, ("2026-03-01", "2026-03-31"), "last 1 month", ""),
    row("last 3 months", MAR31, ("2026-01-01", "2026-03-31"), "last 3 months", ""),
    row("last 2 days", JAN, ("2026-01-09", "2026-01-10"), "last 2 days", ""),
    # ---- month names
    row("april", T, APRIL, "april", ""),
    row("in april", T, APRIL, "april", ""),
    row("billing in April 2025", T, ("2025-04-01", "2025-04-30"), "April 2025", "billing"),
    row("april of 2024", T, ("2024-04-01", "2024-04-30"), "april of 2024", ""),
    row("april", MAR31, ("2025-04-01", "2025-04-30"), "april", ""),
    row("december", T, ("2025-12-01", "2025-12-31"), "december", ""),
    row("in march", T, MARCH, "march", ""),
    row("during march we paused", T, MARCH, "march", "we paused"),
    row("end of march", T, MARCH, "march", "end"),
    row("march 2025", T, ("2025-03-01", "2025-03-31"), "march 2025", ""),
    row("in may we shipped", T, ("2025-05-01", "2025-05-31"), "may", "we shipped"),
    row("We march in may", T, ("2025-05-01", "2025-05-31"), "may", "We march"),
    row("may 2026", T, ("2026-05-01", "2026-05-31"), "may 2026", ""),
    row("abril", T, APRIL, "abril", ""),
    row("o que fizemos em abril?", T, APRIL, "abril", "o que fizemos?"),
    row("abril de 2025", T, ("2025-04-01", "2025-04-30"), "abril de 2025", ""),
    row("abril/2025", T, ("2025-04-01", "2025-04-30"), "abril/2025", ""),
    row("maio", T, ("2025-05-01", "2025-05-31"), "maio", ""),
    row("março", T, MARCH, "março", ""),
    row("em marco", T, MARCH, "marco", ""),
    row("janeiro", JAN, ("2026-01-01", "2026-01-31"), "janeiro", ""),
    row("february", JAN, ("2025-02-01", "2025-02-28"), "february", ""),
    row("dezembro", JAN, ("2025-12-01", "2025-12-31"), "dezembro", ""),
    row("apr 2026", T, APRIL, "apr 2026", ""),
    row("abr/2026", T, APRIL, "abr/2026", ""),
    row("abr de 2025", T, ("2025-04-01", "2025-04-30"), "abr de 2025", ""),
    row("Sept. 2025 review", T, ("2025-09-01", "2025-09-30"), "Sept. 2025", "review"),
    row("set/2025", T, ("2025-09-01", "2025-09-30"), "set/2025", ""),
    row("out. 2025", T, ("2025-10-01", "2025-10-31"), "out. 2025", ""),
    row("april last year", T, ("2025-04-01", "2025-04-30"), "april last year", ""),
    row("abril do ano passado", T, ("2025-04-01", "2025-04-30"), "abril do ano passado", ""),
    row("april this year", T, APRIL, "april this year", ""),
    row("there was no april release", T, APRIL, "april", "there was no release"),
    row("the last week of march", T, MARCH, "march", "the last week"),
    # ---- years
    row("in 2025", T, Y2025, "2025", ""),
    row("what did we ship during 2024?", T, ("2024-01-01", "2024-12-31"), "2024", "what did we ship?"),
    row("em 2025, decidimos", T, Y2025, "2025", "decidimos"),
    row("durante 2025", T, Y2025, "2025", ""),
    row("no ano de 2025", T, Y2025, "ano de 2025", ""),
    # ---- the rest: dangling words and punctuation, leftmost phrase
    row("Last week, we decided to drop X.", T, LAST_WEEK, "Last week", "we decided to drop X."),
    row("we decided, last week, to drop X", T, LAST_WEEK, "last week", "we decided to drop X"),
    row("billing (last week) and taxes", T, LAST_WEEK, "last week", "billing and taxes"),
    row("what about billing, last week?", T, LAST_WEEK, "last week", "what about billing?"),
    row("billing   last\n week  ?", T, LAST_WEEK, "last\n week", "billing?"),
    row("anything since last week", T, LAST_WEEK, "last week", "anything since"),
    row("last month and last week", T, MARCH, "last month", "and last week"),
    row("da semana passada: reunião", T, LAST_WEEK, "semana passada", "reunião"),
]

NEGATIVE = [
    "", "what did we decide about billing?", "may I ask", "march forward", "2026 budget", "the 3 days build",
    "todays", "monday", "contém", "this weekend", "last weekend", "next week", "tomorrow",
    "2026-02-30", "2026-13", "2026-04-12T10:00", "2026-04-12.md", "notes/2026-04", "the 2025-26 plan",
    "apr", "abr", "last april", "abril passado", "april 12", "april 12th, 2026", "12 de abril",
    "the 3rd of may",
    "set 2025 goals", "o marco do projeto", "in 1850", "0 days ago", "a couple of days ago",
]


@pytest.mark.parametrize("text, today, start, end, phrase, rest", ROWS)
def test_parse(text, today, start, end, phrase, rest):
    w = parse(text, d(today))
    assert w == Window(d(start), d(end), phrase, rest)


@pytest.mark.parametrize("text", NEGATIVE)
def test_no_phrase(text):
    assert parse(text, d(T)) is None


@pytest.mark.parametrize("text, start, end, phrase", [
    ("last week", *LAST_WEEK, "last week"),
    ("in april", *APRIL, "april"),
    ("  yesterday  ", "2026-04-14", "2026-04-14", "yesterday"),
    ("há 3 dias", "2026-04-12", "2026-04-12", "há 3 dias"),
    ("2026-04", *APRIL, "2026-04"),
    ("2025", *Y2025, "2025"),               # a bare year: an option has no other reading
    ("may", "2025-05-01", "2025-05-31", "may"),
    ("march", *MARCH, "march"),
    ("marco", *MARCH, "marco"),
])
def test_window_of(text, start, end, phrase):
    assert window_of(text, d(T)) == Window(d(start), d(end), phrase, "")


@pytest.mark.parametrize("text, message", [
    ("", "empty time phrase"),
    ("   ", "empty time phrase"),
    ("banana", "not a time phrase: 'banana'"),
    ("apr", "not a time phrase"),
    ("2026-02-30", "not a time phrase"),
    ("next week", "not a time phrase"),
    ("last week billing", "'billing' is left over"),
    ("last week and last month", "'and last month' is left over"),
])
def test_window_of_errors(text, message):
    with pytest.raises(ValueError, match=message):
        window_of(text, d(T))


def test_datetime_today_is_a_date():
    w = parse("yesterday", datetime.datetime(2026, 4, 15, 23, 59))
    assert (w.start, w.end) == (d("2026-04-14"), d("2026-04-14"))
    assert type(w.start) is datetime.date


def test_window_is_frozen():
    w = parse("today", d(T))
    with pytest.raises(AttributeError):
        w.start = d("2020-01-01")  # type: ignore[misc]

"""Tests for ``mdmem.text.parse.parse_note``: the parser's Obsidian contract.

Written test-first from DESIGN.md "Obsidian compatibility (the parser's contract)"
and the lead's decisions. Every test feeds bytes straight to the pure parser
(no file system) and asserts exact values.
"""

from __future__ import annotations

import time

import pytest

from mdmem.base.models import Heading, Link, Note, Problem
from mdmem.text.parse import parse_note

# ---------------------------------------------------------------- helpers


def parse(text: str, path: str = "note.md", mtime_ns: int = 0) -> Note:
    return parse_note(path, text.encode("utf-8"), mtime_ns)


def link_tuples(note: Note) -> list[tuple]:
    """(target, subpath, display, embed, kind) for every link, in order."""
    return [(ln.target, ln.subpath, ln.display, ln.embed, ln.kind) for ln in note.links]


def targets(note: Note) -> list[str]:
    return [ln.target for ln in note.links]


def codes(note: Note) -> list[str]:
    return [p.code for p in note.problems]


# ---------------------------------------------------------------- basics


def test_returns_note_with_frozen_value_types():
    note = parse("---\ntags: [a]\n---\n# H\n[[X]] #b\n", path="folder/N.md", mtime_ns=5)
    assert isinstance(note, Note)
    assert note.path == "folder/N.md"
    assert note.mtime_ns == 5
    assert note.size == len(b"---\ntags: [a]\n---\n# H\n[[X]] #b\n")
    for attr in ("tags", "aliases", "headings", "links", "problems"):
        assert isinstance(getattr(note, attr), tuple), attr
    assert all(isinstance(h, Heading) for h in note.headings)
    assert all(isinstance(ln, Link) for ln in note.links)
    assert note.problems == ()


def test_default_mtime_is_zero():
    note = parse_note("a.md", b"hello")
    assert note.mtime_ns == 0
    assert note.date is None


@pytest.mark.parametrize(
    "path, title",
    [
        ("folder/My Note.md", "My Note"),
        ("a.md", "a"),
        ("memory/daily/2024-01-02.md", "2024-01-02"),
        ("Release v1.2.md", "Release v1.2"),
        ("x/Café.md", "Café"),
    ],
)
def test_title_is_file_name_without_md(path, title):
    assert parse("body", path=path).title == title


# ---------------------------------------------------------------- type


@pytest.mark.parametrize(
    "path, text, expected",
    [
        ("x.md", "---\ntype: Decision\n---\n", "decision"),
        ("x.md", "---\ntype: project\n---\n", "project"),
        ("memory/people/ana.md", "", "person"),
        ("memory/projects/mdmem.md", "", "project"),
        ("memory/protocols/deploy.md", "", "protocol"),
        ("memory/daily/2024-01-01.md", "", "daily"),
        ("memory/decisions/d.md", "", "decision"),
        ("memory/references/r.md", "", "reference"),
        ("memory/feedback/f.md", "", "feedback"),
        ("people/sub/deeper/ana.md", "", "person"),  # any segment counts
        ("memory/people/ana.md", "---\ntype: user\n---\n", "user"),  # frontmatter wins
        ("notes/x.md", "", "note"),
        ("x.md", "", "note"),
        ("x.md", "---\nname: n\n---\n", "note"),
    ],
)
def test_type(path, text, expected):
    assert parse(text or "body", path=path).type == expected


# ---------------------------------------------------------------- frontmatter


def test_frontmatter_dict_keeps_user_keys():
    note = parse("---\nname: n\ndescription: d\ncustom: 3\nnested:\n  k: v\n---\nbody\n")
    assert note.frontmatter == {
        "name": "n",
        "description": "d",
        "custom": 3,
        "nested": {"k": "v"},
    }


def test_no_frontmatter_is_empty_dict():
    assert parse("# Just a body\n").frontmatter == {}


def test_dashes_not_on_first_line_are_not_frontmatter():
    note = parse("text\n---\ntype: project\n---\n")
    assert note.frontmatter == {}
    assert note.type == "note"


def test_yaml_comment_in_frontmatter_is_not_a_heading_or_tag():
    note = parse("---\n# yaml comment\ntype: project\n---\n# Real\n")
    assert note.type == "project"
    assert note.headings == (Heading(1, "Real", 5),)
    assert note.tags == ()


def test_crlf_line_endings():
    note = parse("---\r\ntype: project\r\n---\r\n# H\r\n[[A]] #tag\r\n")
    assert note.type == "project"
    assert note.headings == (Heading(1, "H", 4),)
    assert [(ln.target, ln.line) for ln in note.links] == [("A", 5)]
    assert note.tags == ("tag",)


# ---------------------------------------------------------------- tags


@pytest.mark.parametrize(
    "text, expected",
    [
        ("#tag", ("tag",)),
        ("text #tag more", ("tag",)),
        ("#nested/child", ("nested/child",)),
        ("#1984", ()),
        ("#y1984", ("y1984",)),
        ("#1984y", ("1984y",)),
        ("a#b", ()),
        ("see http://x.com/p#frag", ()),
        ("# Heading", ()),
        ("## Heading two", ()),
        ("#Tag and #TAG and #tag", ("tag",)),
        ("#b #a #c", ("a", "b", "c")),
        ("#café", ("café",)),
        ("#日本語", ("日本語",)),
        ("#under_score #with-dash", ("under_score", "with-dash")),
        ("#tag, next", ("tag",)),
        ("end of sentence #tag.", ("tag",)),
        ("- item #listtag", ("listtag",)),
        ("line one\n#second-line", ("second-line",)),
        ("## Section #tagged", ("tagged",)),
        ("[[#Heading]] and [[Note#Sec]]", ()),
        ("`#code`", ()),
        ("run `x #incode y` now #real", ("real",)),
        ("```\n#fenced\n```", ()),
        ("~~~\n#fenced\n~~~", ()),
        ("```python\n# comment #alsonot\n```\n#after", ("after",)),
        ("para\n\n    #indented\n", ()),
        ("%% #hidden %%", ()),
        ("before %%#hidden%% #shown", ("shown",)),
        ("%%\n#hidden\n%%\n#shown", ("shown",)),
    ],
)
def test_body_tags(text, expected):
    assert parse(text).tags == expected


@pytest.mark.parametrize(
    "frontmatter, expected",
    [
        ("tags: [a, B]", ("a", "b")),
        ("tags:\n  - x\n  - '#y'", ("x", "y")),
        ("tags: one", ("one",)),
        ("tags: a, b c", ("a", "b", "c")),
        ("tags: '#a #b'", ("a", "b")),
        ("tags: '#a, #b'", ("a", "b")),
        ("tags: [nested/child, Nested/Child]", ("nested/child",)),
        ("tags:", ()),
        ("tags: []", ()),
    ],
)
def test_frontmatter_tags(frontmatter, expected):
    assert parse(f"---\n{frontmatter}\n---\nbody\n").tags == expected


def test_frontmatter_and_body_tags_merge_unique_sorted():
    note = parse("---\ntags: [x, Zed]\n---\n#y #X #zed\n")
    assert note.tags == ("x", "y", "zed")


# ---------------------------------------------------------------- aliases


@pytest.mark.parametrize(
    "frontmatter, expected",
    [
        ("aliases: [A, B]", ("A", "B")),
        ("aliases:\n  - One\n  - Two words", ("One", "Two words")),
        ("aliases: Single", ("Single",)),
        ("alias: Other", ("Other",)),
        ("name: n", ()),
    ],
)
def test_aliases(frontmatter, expected):
    assert parse(f"---\n{frontmatter}\n---\nbody\n").aliases == expected


# ---------------------------------------------------------------- headings


@pytest.mark.parametrize(
    "text, expected",
    [
        ("# One\n## Two\n###### Six\n", [(1, "One", 1), (2, "Two", 2), (6, "Six", 3)]),
        ("Title\n=====\n\nSub\n---\n", [(1, "Title", 1), (2, "Sub", 4)]),
        ("## Closed ##\n", [(2, "Closed", 1)]),
        ("---\na: 1\n---\n# H\n", [(1, "H", 4)]),
        ("```\n# not\n```\n# yes\n", [(1, "yes", 4)]),
        ("~~~\n# not\n~~~\n", []),
        ("    # indented code\n", []),
        ("#nospace\n", []),
        ("text\n\n# A\n\npara\n\n## B\n", [(1, "A", 3), (2, "B", 7)]),
    ],
)
def test_headings(text, expected):
    assert [(h.level, h.text, h.line) for h in parse(text).headings] == expected


# ---------------------------------------------------------------- wikilinks


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[[Note]]", ("Note", None, None, False, "wikilink")),
        ("[[Note.md]]", ("Note.md", None, None, False, "wikilink")),
        ("[[folder/Note]]", ("folder/Note", None, None, False, "wikilink")),
        ("[[Note#Heading]]", ("Note", "#Heading", None, False, "wikilink")),
        ("[[Note#Heading with spaces]]", ("Note", "#Heading with spaces", None, False, "wikilink")),
        ("[[Note#^block]]", ("Note", "#^block", None, False, "wikilink")),
        ("[[Note|shown]]", ("Note", None, "shown", False, "wikilink")),
        ("[[Note#H|shown text]]", ("Note", "#H", "shown text", False, "wikilink")),
        ("![[embed.png]]", ("embed.png", None, None, True, "wikilink")),
        ("![[img.png|100]]", ("img.png", None, "100", True, "wikilink")),
        ("![[Note#Sec]]", ("Note", "#Sec", None, True, "wikilink")),
        ("[[#Heading]]", ("", "#Heading", None, False, "wikilink")),
        ("[[#^block]]", ("", "#^block", None, False, "wikilink")),
        ("[[ Note ]]", ("Note", None, None, False, "wikilink")),
        ("[[ folder/Note #Sec]]", ("folder/Note", "#Sec", None, False, "wikilink")),
        ("[[Café]]", ("Café", None, None, False, "wikilink")),
        ("plural [[Note]]s", ("Note", None, None, False, "wikilink")),
        ("# About [[Note]]", ("Note", None, None, False, "wikilink")),
        ("- item [[Note]]", ("Note", None, None, False, "wikilink")),
        ("> quoted [[Note]]", ("Note", None, None, False, "wikilink")),
        ("**[[Note]]**", ("Note", None, None, False, "wikilink")),
    ],
)
def test_single_wikilink(text, expected):
    assert link_tuples(parse(text)) == [expected]


def test_escaped_pipe_in_table_row():
    note = parse("| a | b |\n|---|---|\n| [[Note\\|shown]] | x |\n")
    assert link_tuples(note) == [("Note", None, "shown", False, "wikilink")]
    assert note.links[0].line == 3


def test_escaped_pipe_with_heading_in_table_row():
    note = parse("| a |\n|---|\n| **[[Filters#Dates\\|Dates]]** |\n")
    assert link_tuples(note) == [("Filters", "#Dates", "Dates", False, "wikilink")]


def test_two_links_in_table_cells():
    note = parse("| a | b |\n|---|---|\n| [[A]] | [[B]] |\n")
    assert targets(note) == ["A", "B"]


def test_several_links_in_document_order():
    note = parse("text [[A]] and [[B]]\n\n![[C.png]] [m](D.md) [[A]]\n")
    assert targets(note) == ["A", "B", "C.png", "D.md", "A"]
    assert [ln.line for ln in note.links] == [1, 1, 3, 3, 3]


def test_adjacent_wikilinks():
    assert targets(parse("[[a]][[b]]")) == ["a", "b"]


def test_wikilink_does_not_span_lines():
    assert parse("[[a\nb]]").links == ()


@pytest.mark.parametrize(
    "text, raw",
    [
        ("see [[Note|shown]] here", "[[Note|shown]]"),
        ("see [[Note#H]] here", "[[Note#H]]"),
        ("x [[ Note ]] y", "[[ Note ]]"),
        ("x ![[img.png|100]] y", "![[img.png|100]]"),
        ("see [t](Note.md) here", "[t](Note.md)"),
    ],
)
def test_raw_is_source_text(text, raw):
    (ln,) = parse(text).links
    assert ln.raw == raw


# ---------------------------------------------------------------- markdown links


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[t](Note.md)", ("Note.md", None, "t", False, "markdown")),
        ("[t](Note)", ("Note", None, "t", False, "markdown")),
        ("[t](folder/Note%20x.md)", ("folder/Note x.md", None, "t", False, "markdown")),
        ("[t](Caf%C3%A9.md)", ("Café.md", None, "t", False, "markdown")),
        ("[t](<a b.md>)", ("a b.md", None, "t", False, "markdown")),
        ("[t](./x.md)", ("./x.md", None, "t", False, "markdown")),
        ("[t](../y/z.md)", ("../y/z.md", None, "t", False, "markdown")),
        ("[t](Note.md#Sec)", ("Note.md", "#Sec", "t", False, "markdown")),
        ('[t](Note.md "A title")', ("Note.md", None, "t", False, "markdown")),
        ("![alt](img/a.png)", ("img/a.png", None, "alt", True, "markdown")),
        ("see [two words](Note.md) here", ("Note.md", None, "two words", False, "markdown")),
    ],
)
def test_single_markdown_link(text, expected):
    assert link_tuples(parse(text)) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "[t](http://x.com)",
        "[t](https://x.com/a.md)",
        "[t](mailto:a@b.c)",
        "[t](obsidian://open?vault=x&file=y)",
        "[t](ftp://x.org/f.md)",
        "[t](file:///tmp/x.md)",
        "![img](https://x.com/a.png)",
        "<https://x.com>",
        "bare https://x.com/page.md",
    ],
)
def test_external_urls_are_not_links(text):
    assert parse(text).links == ()


# ---------------------------------------------------------------- not links: code, comments


@pytest.mark.parametrize(
    "text",
    [
        "`[[x]]`",
        "``[[x]]``",
        "`[t](x.md)`",
        "```\n[[x]]\n```",
        "~~~\n[[x]]\n~~~",
        "```python\n[t](x.md) ![[y.png]]\n```",
        "para\n\n    [[x]]\n",
        "%% [[x]] %%",
        "text %%[[x]]%% more",
        "%%\n[[x]]\n[t](x.md)\n%%",
    ],
)
def test_no_links_in_code_or_comments(text):
    assert parse(text).links == ()


@pytest.mark.parametrize(
    "text, line",
    [
        ("`[[x]]` [[y]]", 1),
        ("%% [[x]] %% [[y]]", 1),
        ("```\n[[x]]\n```\n[[y]]", 4),
        ("%%\n[[x]]\n%%\n[[y]]", 4),
        ("para\n\n    [[x]]\n\n[[y]]", 5),
    ],
)
def test_links_after_code_or_comment_still_count(text, line):
    note = parse(text)
    assert [(ln.target, ln.line) for ln in note.links] == [("y", line)]


# ---------------------------------------------------------------- frontmatter links


def test_frontmatter_quoted_link():
    note = parse('---\nup: "[[Parent]]"\n---\nbody\n')
    assert note.links == (
        Link(raw="[[Parent]]", target="Parent", subpath=None, display=None,
             embed=False, kind="frontmatter", line=2),
    )


@pytest.mark.parametrize(
    "frontmatter, expected",
    [
        ("up: '[[Parent]]'", [("Parent", None, None, 2)]),
        ('up: "[[Parent#Sec]]"', [("Parent", "#Sec", None, 2)]),
        ('up: "[[Parent|P]]"', [("Parent", None, "P", 2)]),
        ('related: ["[[A]]", "[[B]]"]', [("A", None, None, 2), ("B", None, None, 2)]),
        ('title: x\nrelated:\n  - "[[A]]"\n  - "[[B]]"', [("A", None, None, 4), ("B", None, None, 5)]),
        ('summary: "see [[A]] and [[B]]"', [("A", None, None, 2), ("B", None, None, 2)]),
        ("title: plain text", []),
    ],
)
def test_frontmatter_links(frontmatter, expected):
    note = parse(f"---\n{frontmatter}\n---\nbody\n")
    got = [(ln.target, ln.subpath, ln.display, ln.line) for ln in note.links]
    assert got == expected
    assert all(ln.kind == "frontmatter" and not ln.embed for ln in note.links)


def test_frontmatter_links_come_first_and_lines_count_frontmatter():
    text = '---\ntitle: x\nup: "[[P]]"\n---\nbody\n\n[[A]]\n'
    note = parse(text)
    assert [(ln.target, ln.kind, ln.line) for ln in note.links] == [
        ("P", "frontmatter", 3),
        ("A", "wikilink", 7),
    ]


# ---------------------------------------------------------------- tokens, size


@pytest.mark.parametrize(
    "data, tokens",
    [
        (b"", 0),
        (b"abc", 0),
        (b"abcd", 1),
        (b"x" * 10, 3),
        (b"x" * 100, 31),
        (b"x" * 1001, 312),
        ("é".encode() * 10, 6),  # bytes, not characters: 20 bytes
        # Exact multiples of 16: floor(16 / 3.2) is 5, although the float
        # expression `16 // 3.2` gives 4.0; the contract is the exact floor.
        (b"x" * 16, 5),
        (b"x" * 160, 50),
    ],
)
def test_tokens_floor_bytes_over_3_2(data, tokens):
    assert parse_note("t.md", data).tokens == tokens


# ---------------------------------------------------------------- date


@pytest.mark.parametrize(
    "text, mtime_ns, expected",
    [
        ("---\nupdated: 2024-05-06\ncreated: 2023-01-01\n---\n", 0, "2024-05-06"),
        ("---\ncreated: 2023-01-01\n---\n", 0, "2023-01-01"),
        ("---\nupdated: '2024-05-06'\n---\n", 0, "2024-05-06"),
        ("---\ncreated: \"2022-12-31\"\n---\n", 0, "2022-12-31"),
        ("---\nupdated: 2024-05-06 10:20:30\n---\n", 0, "2024-05-06"),
        ("---\ncreated: 2023-01-01\n---\n", 1_700_000_000 * 10**9, "2023-01-01"),
        ("no frontmatter", 1_700_000_000 * 10**9, "2023-11-14"),
        ("no frontmatter", 1_700_006_400 * 10**9, "2023-11-15"),  # 00:00 UTC
        ("no frontmatter", 0, None),
    ],
)
def test_date(text, mtime_ns, expected):
    assert parse(text, mtime_ns=mtime_ns).date == expected


# ---------------------------------------------------------------- plain text


def test_text_strips_markdown_syntax():
    note = parse(
        "---\ntype: project\n---\n"
        "# Heading Word\n\n"
        "Some **bold** and _italic_ and [[Target Note|shown words]] and "
        "[label text](http://example.com/secret-url) and [[Bare Target]].\n"
    )
    text = note.text
    for word in ("Heading", "Word", "bold", "italic", "shown", "words", "label", "Bare", "Target"):
        assert word in text, word
    for syntax in ("[[", "]]", "**", "# ", "http://example.com", "secret-url", "](", "---"):
        assert syntax not in text, syntax


def test_text_keeps_code_words():
    note = parse("run `pip install` now\n\n```\nprint_me()\n```\n")
    assert "pip install" in note.text
    assert "print_me" in note.text


# ---------------------------------------------------------------- problems (bad input never raises)


def test_clean_note_has_no_problems():
    assert parse("---\ntype: project\n---\n# H\n[[A]]\n").problems == ()


def test_invalid_yaml_is_a_finding_and_body_still_parses():
    note = parse("---\nkey: [unclosed\n---\n# Body\n[[Link]] #tag\n")
    assert "invalid_yaml" in codes(note)
    assert note.frontmatter == {}
    assert note.headings == (Heading(1, "Body", 4),)
    assert [(ln.target, ln.line) for ln in note.links if ln.kind != "frontmatter"] == [("Link", 5)]
    assert note.tags == ("tag",)
    assert "Body" in note.text


@pytest.mark.parametrize("frontmatter", ["- a\n- b", "just a string", "42"])
def test_frontmatter_not_mapping(frontmatter):
    note = parse(f"---\n{frontmatter}\n---\nbody [[A]]\n")
    assert "frontmatter_not_mapping" in codes(note)
    assert "invalid_yaml" not in codes(note)
    assert note.frontmatter == {}
    assert targets(note) == ["A"]


def test_bom_is_reported_and_rest_parses_normally():
    data = b"\xef\xbb\xbf---\ntype: project\ntags: [x]\n---\n# H\n[[A]]\n"
    note = parse_note("n.md", data)
    assert codes(note) == ["bom"]
    assert note.type == "project"
    assert note.frontmatter == {"type": "project", "tags": ["x"]}
    assert note.tags == ("x",)
    assert note.headings == (Heading(1, "H", 5),)
    assert [(ln.target, ln.line) for ln in note.links] == [("A", 6)]


def test_not_utf8_is_reported_and_ascii_survives():
    note = parse_note("n.md", b"caf\xe9 menu [[Link]] #tag\n")
    assert "not_utf8" in codes(note)
    assert "caf" in note.text and "menu" in note.text
    assert targets(note) == ["Link"]
    assert note.tags == ("tag",)


def test_empty_file():
    note = parse_note("folder/Empty.md", b"")
    assert codes(note) == ["empty"]
    assert note.title == "Empty"
    assert note.links == () and note.tags == () and note.headings == ()
    assert note.frontmatter == {}
    assert note.tokens == 0


def test_problem_objects_have_messages():
    note = parse_note("n.md", b"\xef\xbb\xbf---\n- a\n---\n")
    assert note.problems and all(isinstance(p, Problem) for p in note.problems)
    assert all(isinstance(p.message, str) and p.message for p in note.problems)
    assert set(codes(note)) == {"bom", "frontmatter_not_mapping"}


def test_too_large_file_is_reported_fast_and_frontmatter_is_read():
    head = b"---\ntype: project\ntags: [big]\n---\n"
    data = head + b"word [[Link]] #tag `code` **bold**\n" * 1_500_000  # ~52 MB
    assert len(data) > 50_000_000
    start = time.perf_counter()
    note = parse_note("big.md", data)
    elapsed = time.perf_counter() - start
    # a generous bound (a loaded machine must not fail it): reading the 52 MB body would take minutes
    assert elapsed < 60, f"parse took {elapsed:.1f}s"
    assert "too_large" in codes(note)
    assert note.frontmatter.get("type") == "project"
    assert note.type == "project"
    assert note.size == len(data)
    assert abs(note.tokens - len(data) / 3.2) <= 1


@pytest.mark.parametrize(
    "data",
    [
        b"---",
        b"---\n",
        b"---\n---\n",
        b"---\n---",
        b"---\nkey: value",  # never closed
        b"[[",
        b"]]",
        b"[[]]",
        b"![[]]",
        b"[[|]]",
        b"[[a|]]",
        b"[[|b]]",
        b"[t]()",
        b"[t](<>)",
        b"[t](%zz.md)",
        b"#",
        b"%%",
        b"```",
        b"\x00\x01\x02",
        b"\xff\xfe\x00a",
        b"\r\n---\r\na: 1\r\n---\r\n",
        b"---\n: : :\n---\n",
        b"---\n!!python/object:os.system x\n---\n",
        b"    \n\t\n",
    ],
)
def test_odd_input_never_raises(data):
    note = parse_note("odd.md", data)
    assert isinstance(note, Note)
    assert note.title == "odd"
    assert all(isinstance(ln.target, str) for ln in note.links)

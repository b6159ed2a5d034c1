""":data:`mdmem.engine.bodies.SENSITIVE_TAG` is what lets the card tell an edit of a body alone without parsing: a body
it never matches must make no note sensitive by the parser's own rule (checked on the places a tag may stand, and on
random bodies made of what tags, links, quotes, tables and headings are made of); :func:`front_digest` is the
frontmatter's alone."""

from __future__ import annotations

import random

from mdmem.engine.bodies import SENSITIVE_TAG, front_digest
from mdmem.text.parse import parse_note

PLACES = ["{}", "x {}", ">{}", "> {}", "> foo\n>{}", "|{}|b|\n|-|-|", "a|b\n-|-\n{}|y", "- {}", "# {}", "foo\n{}",
          "x\u00a0{}", "- x\n\t{}", "| x | {} |\n|---|---|"]


def _sensitive(body: str) -> bool:
    return "sensitive" in parse_note("n.md", body.encode()).tags


def test_a_sensitive_tag_wherever_the_parser_finds_one_is_seen():
    for place in PLACES:
        for tag in ("#sensitive", "#Sensitive/", "#SENSITIVE"):
            body = place.format(tag)
            assert _sensitive(body), body
            assert SENSITIVE_TAG.search(body), body


def test_random_bodies_that_are_sensitive_are_seen():
    rng = random.Random(101)
    parts = ["#", "#sensitive", "#Sensitive/", "sensitive", "a", " ", "\n", ">", "|", "-", "[[", "]]", "`", "*", "_",
             "[", "](", ")", "\\", "&", "%%", "\t", "1.", "x#y", "---", "<b>", "~~"]
    for _ in range(3000):
        body = "".join(rng.choice(parts) for _ in range(rng.randint(1, 14)))
        if _sensitive(body):
            assert SENSITIVE_TAG.search(body), repr(body)


def test_the_digest_is_the_frontmatter_s():
    assert not SENSITIVE_TAG.search("See [[note#sensitive]] and [x](#sensitive) and a#sensitive.")
    assert front_digest("type: x\n", 4) == front_digest("type: x\n", 12) != ""
    assert front_digest(None, 4) not in ("", front_digest("", 4), front_digest("type: x\n", 4))
    assert front_digest("type: x\n", 0) == ""

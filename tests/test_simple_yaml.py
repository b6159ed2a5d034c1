"""``mdmem.text.simple_yaml`` reads what it accepts exactly as PyYAML's safe loader does, and hands
everything else back (``None``): checked against PyYAML on the real fixture vaults, on hand-picked
tricky text and on generated frontmatter made of YAML's corner cases."""

from __future__ import annotations

import datetime as dt
import os
import random

import pytest
import yaml

from mdmem.text.parse import decode, parse_note, split_frontmatter
from mdmem.text.simple_yaml import load
from support import FIXTURES, SAMPLE

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def reference(text: str):
    """PyYAML's reading, or the exception it raises."""
    try:
        return yaml.load(text, Loader=LOADER)
    except Exception as e:  # any failure: the fast reader must not accept the text
        return e


def same(text: str) -> bool:
    """The fast reader declines, or agrees with PyYAML: the same dict, values and key order."""
    fast = load(text)
    if fast is None:
        return True
    ref = reference(text)
    return isinstance(ref, dict) and fast == ref and list(fast) == list(ref) and _types(fast) == _types(ref)


def _types(value):
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


def test_the_common_frontmatter_is_read_without_pyyaml():
    text = ('name: proxy-bruxamagico\ndescription: Arquivo estão mês zasdan: não, limite já  systemd\n'
            'type: reference\ntags: [reference, reading, product]\nrelated: "[[source-summary-idea]]"\n'
            "created: 2026-08-25\nupdated:\naliases:\n  - Proxy B\n  - 'o proxy'\n  -\nicy: 5\ndraft: false\n"
            "url: https://example.com/a#b\n# a comment\n\nC: C# and 🌟 NEW\n")
    text = text.replace("zasdan: não", "zasdan não")
    assert load(text) == {
        "name": "proxy-bruxamagico", "description": "Arquivo estão mês zasdan não, limite já  systemd",
        "type": "reference", "tags": ["reference", "reading", "product"], "related": "[[source-summary-idea]]",
        "created": dt.date(2026, 8, 25), "updated": None, "aliases": ["Proxy B", "o proxy", None], "icy": 5,
        "draft": False, "url": "https://example.com/a#b", "C": "C# and 🌟 NEW",
    }
    assert same(text)


@pytest.mark.parametrize("text", [
    "a: 012\n", "a: 1.5\n", "a: .5\n", "a: 1e3\n", "a: 0x1F\n", "a: 1:20\n", "a: 1_000\n", "a: .inf\n",
    "a: 2024-02-30\n", "a: 2024-1-5\n", "a: 2024-01-05 10:00\n", "a: x # comment\n", "a: b: c\n", "a: b:\n",
    "a: 'it''s'\n", 'a: "tab\\t"\n', "a: [b, [c]]\n", "a: {b: c}\n", "a: [b,\n  c]\n", "a: &x b\n", "a: *x\n",
    "a: !!str 5\n", "a: |\n  text\n", "a: >\n  text\n", "a: ~\n", "yes: 1\n", "Null: x\n", "1: x\n",
    "a:b\n", "  a: b\n", "a: b\n  c\n", "a:\n  b: c\n", "a:\n  - b\n - c\n", "a:\n- b: c\n", "a:\n  - [b]\n",
    "a: x\n- b\n", "a: b\tc\n", "a: b\x7f\n", "a: b\u2028c\n", "a: \ufeffb\n", "a: b\u0085\n", "# only\n",
    "a: [b, , c]\n", "a: [b:c]\n", "a: -b\n", "a: ?b\n", "a: @b\n", "a: `b`\n", "a: %b\n", "...\n",
    "a: [1, x, 2024-01-01, 'q', \"r\", true, null]\n", "a: ON\n", "a: oN\n", "a: No\n", "a: NULL\n",
    "a: +5\n", "a: -0\n", "a: 0\n", "k: v\nk: w\n", "a: é\nb: \u00a0x\nc: x\u00a0\nd: x\u3000\n",
])
def test_tricky_text_is_declined_or_read_as_pyyaml_reads_it(text):
    assert same(text), (text, load(text), reference(text))


def test_what_it_declines_goes_to_pyyaml():
    assert load("a: 1.5\nb: [x, [y]]\n") is None
    note = parse_note("n.md", b"---\na: 1.5\nb: [x, [y]]\ncreated: 2024-01-05\n---\nbody\n")
    assert note.frontmatter == {"a": 1.5, "b": ["x", ["y"]], "created": "2024-01-05"}
    bad = parse_note("n.md", b"---\ncreated: 2024-02-30\n---\nbody\n")
    assert [p.code for p in bad.problems] == ["invalid_yaml"]


def test_real_vaults_read_the_same():
    checked = accepted = 0
    for root in (FIXTURES / "vaults", SAMPLE):
        for path in sorted(root.rglob("*.md")):
            raw, _, _ = split_frontmatter(decode(path.read_bytes())[0])
            if raw is None or not raw.strip():
                continue
            checked += 1
            accepted += load(raw) is not None
            assert same(raw), path
    assert checked > 500
    assert accepted > 0.9 * checked  # the point of it: most real frontmatter needs no PyYAML


KEYS = ["name", "tags", "my-key", "_k", "yes", "On", "null", "123", "ключ", "key x", "k"]
PLAIN = ["word", "two words", "2024-03-04", "[a, b]", "'q'", '"Q: x"', "7", "true", "", "ação já"]
VALUES = [
    "", "word", "two words", "it's", 'say "hi"', "C#", "a #b", "a: b", "a:b", "http://x.y/z#q", "end:", " lead",
    "trail  ", "Yes", "yes", "YES", "yEs", "true", "False", "off", "Off", "null", "~", "NULL", "nUll", "0", "7",
    "-3", "+4", "012", "1_0", "1.5", "1e3", ".5", "0x10", "1:30", "2024-03-04", "2024-13-04", "2024-3-4",
    "2024-03-04T05:06:07", '"quoted"', '""', '"a\\"b"', "'single'", "''", "'a''b'", "[a, b]", "[]", "[ ]",
    "[a, [b]]", "[a, ]", "[a, 'b, c']", "[a, \"b\"]", "[x: y]", "[2024-01-01, 5, on]", "{a: b}", "&anchor v",
    "*alias", "!!str x", "|", ">-", "- x", "? x", "@x", "`x`", "%x", "é", "🌟 new", "\u00a0x", "x\u00a0",
    "a\tb", "x\u3000", "[a,", "a]", "nan", "inf", ".nan", "-", "--", "a - b", "a, b", "a[0]", "{", "}",
]


def _value(rng: random.Random) -> str:
    return rng.choice(VALUES if rng.random() < 0.2 else PLAIN)


def _line(rng: random.Random) -> list[str]:
    kind = rng.random()
    if kind < 0.08:
        return [rng.choice(["# comment", "  # indented comment", ""])]
    key = rng.choice(KEYS) if rng.random() < 0.2 else rng.choice(KEYS[:4])
    pad = "" if rng.random() < 0.9 else " "
    sep = ": " if rng.random() < 0.85 else rng.choice([":", ":  ", " : "])
    if kind < 0.25:
        indent = rng.choice(["", "  ", "  ", "    "])
        lines = [f"{pad}{key}:"]
        for _ in range(rng.randint(0, 3)):
            lines.append(f"{indent if rng.random() < 0.9 else ' '}-{' ' if rng.random() < 0.9 else ''}"
                         f"{_value(rng)}")
        return lines
    tail = "" if rng.random() < 0.9 else rng.choice([" # c", "  "])
    return [f"{pad}{key}{sep}{_value(rng)}{tail}"]


def test_generated_frontmatter_reads_as_pyyaml_reads_it():
    rng = random.Random(int(os.environ.get("SIMPLE_YAML_SEED", "20261201")))
    accepted = 0
    for _ in range(int(os.environ.get("SIMPLE_YAML_CASES", "2000"))):
        text = "\n".join(line for _ in range(rng.randint(1, 6)) for line in _line(rng)) + "\n"
        assert same(text), (text, load(text), reference(text))
        accepted += load(text) is not None
    assert accepted > 200  # the generator reaches the fast reader's forms, not only what it declines

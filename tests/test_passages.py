"""The passage splitter (mdmem/text/passages.py): headings, daily entries, long paragraphs, code fences,
the per-note bound."""

from __future__ import annotations

from mdmem.text.passages import MAX_PASSAGES, TARGET_WORDS, passages


def words(n: int, stem: str = "w") -> str:
    return " ".join(f"{stem}{i}" for i in range(n))


def test_heading_sections_each_a_passage_and_a_title_joins_the_next():
    body = f"# Atlas\n\n## Goals\n{words(20, 'g')}\n\n## Stack\n{words(30, 's')}\n"
    got = passages(body)
    assert [(p.heading, p.line) for p in got] == [("Goals", 0), ("Stack", 5)]
    assert got[0].text == f"# Atlas\n\n## Goals\n{words(20, 'g')}"
    assert got[1].text == f"## Stack\n{words(30, 's')}"


def test_daily_entries_split_at_their_times():
    body = (f"## 09:15 standup\n{words(15, 'a')}\n\n## 14:00\n{words(15, 'b')}\n\n"
            f"## 18:30 retro\n{words(15, 'c')}\n")
    got = passages(body)
    assert [p.heading for p in got] == ["09:15 standup", "14:00", "18:30 retro"]
    assert got[2].text == f"## 18:30 retro\n{words(15, 'c')}"


def test_a_long_section_becomes_windows_of_whole_paragraphs_headed_by_its_heading():
    paras = [words(40, f"p{i}x") for i in range(6)]  # 240 words: over MAX_WORDS
    body = "## Notes\n" + "\n\n".join(paras) + "\n"
    got = passages(body)
    assert [p.text for p in got] == ["## Notes\n\n" + "\n\n".join(paras[0:2]),
                                     "Notes\n\n" + "\n\n".join(paras[2:4]),
                                     "Notes\n\n" + "\n\n".join(paras[4:6])]
    assert [p.line for p in got] == [0, 5, 9]


def test_a_long_paragraph_is_cut_into_overlapping_word_windows():
    body = words(300)
    got = passages(body)
    assert len(got) == 4
    assert got[0].text == words(TARGET_WORDS)
    assert got[1].text.split()[0] == "w78" and got[1].text.split()[-1] == "w167"  # 12 words shared
    assert got[-1].text.split()[-1] == "w299"


def test_code_fences_are_never_cut_and_their_hashes_are_not_headings():
    code = "```python\n# not a heading\n\n" + "\n".join(f"x{i} = {i}" for i in range(150)) + "\n```"
    body = f"## Setup\n{words(30, 'a')}\n\n{code}\n\n{words(30, 'b')}\n"
    got = passages(body)
    assert [p.heading for p in got] == ["Setup", "Setup", "Setup"]
    assert got[1].text == "Setup\n\n" + code
    assert not any(p.heading == "not a heading" for p in got)


def test_the_count_per_note_is_bounded_and_the_whole_note_stays_covered():
    body = "\n\n".join(f"## {h:02d}:00\n{words(20, f'e{h}x')}" for h in range(24)) * 4  # 96 entries
    got = passages(body)
    assert len(got) <= MAX_PASSAGES
    text = "\n".join(p.text for p in got)
    assert "e0x0" in text and "e23x19" in text and text.count("## 23:00") == 4


def test_empty_and_small_bodies():
    assert passages("") == []
    assert passages("\n\n  \n") == []
    assert [p.text for p in passages("just a line")] == ["just a line"]
    assert [p.text for p in passages("# Title only\n")] == ["# Title only"]

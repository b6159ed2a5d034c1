"""One note per fact through the real CLI: a memory that repeats a saved one (its name, or its wording) is
refused, naming the note; one that may only say the same (a guess by meaning, under 0.9 precision on fresh real
pairs: decision 096) is saved with a warning naming the note; --update adds to it; --new keeps both; `check`
reports the pair; a checkpoint suggestion that repeats a note updates it, one that may say the same is saved
with the warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the whole module is in the slow lane (.ci/run)

FIRST = "I prefer short answers, conclusion first"
AGAIN = "I prefer short answers with the conclusion first"


def test_a_rewording_is_saved_with_a_warning_naming_the_note_and_update_adds_to_it(cli, vault: Path):
    saved = cli.json("save", FIRST, "-t", "feedback", "--vault", vault)
    again = cli.json("save", AGAIN, "-t", "feedback", "--vault", vault)
    assert again["status"] == "created" and again["similar"] == saved["path"]
    assert any(f"it may say what {saved['path']} says (the same meaning, a guess)" in w and
               f"mdmem forget {again['path']}" in w for w in again["warnings"]), again["warnings"]
    updated = cli.json("save", AGAIN + ", always", "--update", saved["path"], "--vault", vault)
    assert updated["status"] == "updated" and updated["path"] == saved["path"]
    assert AGAIN + ", always" in (vault / saved["path"]).read_text()
    # a related but different rule is saved, with no warning
    other = cli.json("save", "I prefer answers in Portuguese when I write in Portuguese", "-t", "feedback",
                     "--vault", vault)
    assert other["status"] == "created" and other["similar"] is None
    issues = [i for i in cli.json("check", "--vault", vault)["issues"] if i["kind"] == "DUPLICATE"]
    assert any(i["detail"].endswith("the same meaning") and {i["path"], i["detail"].split()[2].rstrip(":")} ==
               {saved["path"], again["path"]} for i in issues), issues


def test_the_opposite_preference_is_another_rule(cli, vault: Path):
    """"type aliases over interfaces" after "interfaces over type aliases" (sides of several words) is saved with
    no warning, and `check` lists no DUPLICATE pair for them."""
    cli.json("save", "Prefer interfaces over type aliases in TypeScript", "-t", "feedback", "--vault", vault)
    other = cli.json("save", "Prefer type aliases over interfaces in TypeScript", "-t", "feedback", "--vault", vault)
    assert other["status"] == "created" and other["similar"] is None
    assert not [i for i in cli.json("check", "--vault", vault)["issues"] if i["kind"] == "DUPLICATE"]


def test_a_repeated_name_or_wording_is_refused_and_new_keeps_both(cli, vault: Path):
    rule = "Run the whole test suite with make test before every commit to the main branch"
    saved = cli.json("save", rule, "-t", "feedback", "--name", "Tests before commits", "--vault", vault)
    refused = cli("save", rule + " please", "-t", "feedback", "--vault", vault, code=1).stderr
    assert f"would be a near-duplicate of {saved['path']}" in refused and "--update" in refused
    named = cli("save", "Something else entirely about lunch", "-t", "feedback", "--name", "tests before commits",
                "--vault", vault, code=1).stderr
    assert f"near-duplicate of {saved['path']} (the same name)" in named
    kept = cli.json("save", rule + " please", "-t", "feedback", "--new", "--vault", vault)
    assert kept["status"] == "created" and kept["similar"] is None


def test_a_checkpoint_suggestion_that_repeats_a_note_updates_it_one_of_maybe_the_same_meaning_is_saved(
        cli, vault: Path):
    """Saved after the suggestion was made (by hand, or another session's accept): accepting a suggestion of the
    same wording is that note (it holds the text already: unchanged) rather than a second copy (the post-compaction
    suggestions did); one
    that may only mean the same is saved, and the answer names the note."""
    rule = "Run the whole test suite with make test before every commit to the main branch"
    proposal = {"dimensions": [6], "candidates": [
        {"type": "feedback", "dimension": 6, "name": "Tests before commits", "description": rule, "body": rule},
        {"type": "feedback", "dimension": 6, "name": "Short answers", "description": AGAIN, "body": AGAIN}]}
    result = cli.runner.invoke(__import__("mdmem.cli.app").cli.app.app,
                               ["checkpoint", "propose", "--vault", str(vault), "--session", "d1"],
                               input=json.dumps(proposal))
    assert result.exit_code == 0, result.stderr
    same = cli.json("save", rule, "-t", "feedback", "--name", "Make test first", "--vault", vault)
    short = cli.json("save", FIRST, "-t", "feedback", "--vault", vault)
    accepted = cli.json("checkpoint", "accept", "1,2", "--session", "d1", "--vault", vault)
    one, two = accepted["accepted"]
    assert one["status"] == "unchanged" and one["path"] == same["path"]
    assert (vault / same["path"]).read_text().split("---", 2)[2].count(rule) == 1  # not appended again
    assert two["status"] == "created" and two["path"] != short["path"]
    assert f"it may say what {short['path']} says" in two["message"], two


def test_one_word_apart_naming_another_thing_is_not_refused(cli, vault: Path):
    """The same wording but another command is another rule (the wording test keeps the meaning test's vetoes)."""
    lint = ("Always run `npm run lint` before every commit to the main branch of the atlas repository, because the "
            "continuous integration server rejects any push that fails it and the whole team then waits for the "
            "fix while the release train stands still for everyone working on the payments service that week")
    saved = cli.json("save", lint, "-t", "feedback", "--vault", vault)
    build = cli.json("save", lint.replace("lint`", "build`"), "-t", "feedback", "--name", "Build first",
                     "--vault", vault)
    assert build["status"] == "created" and build["path"] != saved["path"]


def test_accepting_what_a_note_saved_since_already_says_changes_nothing(cli, vault: Path):
    """A suggestion whose text a note saved after the list was made holds already: accept says so and writes
    nothing (it appended the same text again); `save --update` of a text the note holds is unchanged too."""
    from support import propose

    text = "Write the release notes before tagging a release."
    propose(cli, vault, "s1", {"type": "feedback", "dimension": 6, "name": "Release notes first",
                               "description": text, "body": text})
    saved = cli.json("save", text, "-t", "feedback", "--vault", vault)
    before = (vault / saved["path"]).read_bytes()
    [done] = cli.json("checkpoint", "accept", "1", "--session", "s1", "--vault", vault)["accepted"]
    assert done["status"] == "unchanged" and done["path"] == saved["path"], done
    again = cli.json("save", text, "--update", saved["path"], "--vault", vault)
    assert again["status"] == "unchanged"
    assert (vault / saved["path"]).read_bytes() == before

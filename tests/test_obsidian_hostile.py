"""A hostile vault's ``.obsidian/`` settings (the vault arrives by git clone or sync, and every command and hook
reads them): a regular expression that crashes Python's compiler, one that takes exponential time, tens of
thousands of them, a Daily notes or Templates folder outside the vault or not valid UTF-8. Each is left out with
one line saying so, and the command or hook goes on with the rest (decision 129)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

from support import hook_env, run_hook


def _obsidian(vault: Path, name: str, text: str) -> None:
    """``.obsidian/NAME`` written as given (two-space JSON, no final newline, as Obsidian writes its files)."""
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / name).write_text(text, encoding="utf-8")


def _filters(vault: Path, *entries: str) -> None:
    _obsidian(vault, "app.json", json.dumps({"userIgnoreFilters": list(entries)}, indent=2))


def test_a_filter_the_regex_compiler_chokes_on_is_left_out_and_the_card_still_comes(vault, tmp_path, cli):
    _filters(vault, "/a{4294967296}/",  # OverflowError, not re.error
             "/" + "(" * 2000 + "a" + ")" * 2000 + "/",  # RecursionError in the parser: too long to be tried
             "/[/",  # re.error, as before
             "memory/feedback/no-")  # the user's own entry: still honoured
    card = run_hook("session-start", vault, tmp_path, {"hook_event_name": "SessionStart", "source": "startup",
                                                       "cwd": str(vault), "session_id": "s1"})
    assert "## Feedback" in card and "answer-first" in card
    assert "no-diff-summaries" not in card  # the plain entry after the broken ones still applies
    r = cli("search", "diff summaries", "--vault", vault)
    assert r.stderr.splitlines() == [
        "mdmem: .obsidian/app.json: 1 userIgnoreFilters entry longer than 1000 characters; left out",
        "mdmem: .obsidian/app.json: userIgnoreFilters entry '/a{4294967296}/': not a valid regular expression "
        "(OverflowError: the repetition number is too large); left out",
        "mdmem: .obsidian/app.json: userIgnoreFilters entry '/[/': not a valid regular expression "
        "(error: unterminated character set at position 0); left out"]


def test_a_filter_that_would_take_exponential_time_is_left_out_and_nothing_hangs(vault, tmp_path):
    """Unchecked, ``(a+)+$`` against this file's name takes 2**45 steps (a 28-``a`` name took 40 s; each ``a``
    doubles it): the scan would hang for days. The timeout is only a guard; what is checked is the result."""
    name = "a" * 45 + "!.md"
    (vault / name).write_text("---\ntype: reference\n---\nThe quokka sanctuary on Rottnest island.\n")
    _filters(vault, "/(a+)+$/", "/(a|a)+$/", "/(a+){2,}!/", "/^memory\\/people\\//", "/(\\.md|\\.txt)+$x/")
    proc = subprocess.run([sys.executable, "-m", "mdmem", "search", "quokka Rottnest", "--json", "--vault",
                           str(vault)], capture_output=True, text=True, env=hook_env(tmp_path), timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "mdmem: .obsidian/app.json: userIgnoreFilters entry '/(a+)+$/': a pattern that can take exponential time "
        "(a repetition inside a repetition); left out",
        "mdmem: .obsidian/app.json: userIgnoreFilters entry '/(a|a)+$/': a pattern that can take exponential time "
        "(a repeated choice whose branches overlap); left out",
        "mdmem: .obsidian/app.json: userIgnoreFilters entry '/(a+){2,}!/': a pattern that can take exponential "
        "time (a repetition inside a repetition); left out"]  # the two safe ones kept, without a word
    assert [hit["path"] for hit in json.loads(proc.stdout)["results"]] == [name]
    people = subprocess.run([sys.executable, "-m", "mdmem", "search", "Ana Souza", "--json", "--vault", str(vault)],
                            capture_output=True, text=True, env=hook_env(tmp_path), timeout=30)
    assert not [h for h in json.loads(people.stdout)["results"] if h["path"].startswith("memory/people/")]


def test_thousands_of_filters_are_capped_with_one_line(vault, cli):
    entries = [f"/x{i}y[a-z]*z/" for i in range(499)] + ["memory/people/"] + [f"/w{i}[0-9]+v/" for i in range(5000)]
    _filters(vault, *entries, "memory/decisions/")  # the 5501st: past the cap
    r = cli("search", "Adyen Stripe", "--json", "--vault", vault)
    assert r.stderr.splitlines() == [
        "mdmem: .obsidian/app.json: userIgnoreFilters holds 5501 entries; the 5001 past the first 500 or 10000 "
        "characters left out"]
    paths = [hit["path"] for hit in json.loads(r.stdout)["results"]]
    assert "memory/decisions/decision-adyen-over-stripe.md" in paths  # the entry past the cap is not honoured
    assert not [p for p in paths if p.startswith("memory/people/")]  # the 500th is
    long = "/" + "b" * 1200 + "/"
    _filters(vault, long, "memory/people/")
    r = cli("search", "Ana Souza", "--json", "--vault", vault)
    assert r.stderr == ("mdmem: .obsidian/app.json: 1 userIgnoreFilters entry longer than 1000 characters; "
                        "left out\n")
    assert not [h for h in json.loads(r.stdout)["results"] if h["path"].startswith("memory/people/")]


def test_a_bad_daily_notes_folder_is_the_vault_root_and_a_bad_format_the_default(vault, cli, tmp_path):
    today = dt.date.today().isoformat()
    cli("init", vault)
    for folder, why in [("\\ud800", "not valid UTF-8"), ("../outside", "a folder inside the vault, not hidden"),
                        ("notes/.obsidian/plugins", "a folder inside the vault, not hidden"),
                        ("a\\u0000b", "holds a NUL character")]:
        _obsidian(vault, "daily-notes.json", '{"folder": "' + folder + '", "format": "YYYY-MM-DD"}')  # as JSON
        r = cli("daily", "add", f"entry under {folder}", "--at", "09:30", "--vault", vault)
        shown = repr(json.loads('"' + folder + '"'))
        assert r.stderr.splitlines()[0] == (
            f"mdmem: .obsidian/daily-notes.json: folder {shown} ({why}); Obsidian's default used")
        assert f"entry under {folder}" in (vault / f"{today}.md").read_text("utf-8")  # Obsidian's default: the root
    assert not (tmp_path / "outside").exists() and not (vault / "notes").exists()
    _obsidian(vault, "daily-notes.json", '{"folder": "Daily", "format": "[\\udc80]YYYY-MM-DD"}')
    r = cli("daily", "add", "a format no file name can hold", "--vault", vault)
    assert r.stderr.splitlines()[0] == ("mdmem: .obsidian/daily-notes.json: format '[\\udc80]YYYY-MM-DD' (not valid "
                                        "UTF-8); Obsidian's default used")
    assert "a format no file name can hold" in (vault / "Daily" / f"{today}.md").read_text("utf-8")
    _obsidian(vault, "templates.json", '{"folder": "../Templates"}')
    assert cli("search", "Adyen", "--vault", vault).stderr.splitlines()[0] == (
        "mdmem: .obsidian/templates.json: folder '../Templates' (a folder inside the vault, not hidden); "
        "Obsidian's default used")


def test_daily_in_config_toml_refuses_a_nul_as_it_refuses_a_hidden_folder(vault, cli):
    cli("init", vault)
    (vault / ".mdmem" / "config.toml").write_text('[daily]\nfolder = "log\\u0000s"\n')
    r = cli("daily", "add", "met Ana", "--vault", vault, code=1)
    assert "bad [daily] folder in" in r.stderr and "'log\\x00s' (holds a NUL character)" in r.stderr
    (vault / ".mdmem" / "config.toml").write_text('[daily]\nformat = "YYYY\\u0000MM"\n')
    r = cli("daily", "add", "met Ana", "--vault", vault, code=1)
    assert "bad [daily] format in" in r.stderr and "'YYYY\\x00MM' (holds a NUL character)" in r.stderr

"""`mdmem check`, the budget audit: real vaults in tmp_path, the real CLI, exact results.

Each issue kind has a vault that shows it and one that does not; the sample
vault shows exactly its deliberate flaws (tests/data/sample-vault-flaws.md).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from mdmem.ops.check import budget_comment, with_budget_comment

TODAY = "2026-11-25"
CORE = {  # one clean note per core type: listed, typed, fresh, linked, distinct
    "memory/people/me.md": ("user", "Ana, a backend engineer in Lisbon who likes short answers and [[atlas]]."),
    "memory/feedback/answer-first.md": ("feedback", "Lead with the answer; no preamble before the point."),
    "memory/projects/atlas.md": ("project", "The billing rewrite onto a double-entry ledger, due in March."),
    "memory/references/ledger-docs.md": ("reference", "Where the ledger's API reference and runbooks live."),
    "memory/decisions/decision-cents.md": ("decision", "Money is stored as integer cents, never floats."),
}


def note(type_: str | None, body: str, updated: str | None = TODAY, name: str | None = None) -> str:
    fm = []
    if name:
        fm.append(f"name: {name}")
    if type_:
        fm.append(f"type: {type_}")
    if updated:
        fm.append(f"updated: {updated}")
    head = "---\n" + "".join(line + "\n" for line in fm) + "---\n" if fm else ""
    return f"{head}# Note\n\n{body}\n"


def index_for(paths, extra: str = "") -> str:
    lines = [f"- [{Path(p).name}]({p.replace(' ', '%20')}) — a memory" for p in paths]
    return "<!-- budget: ~0tk / 40000tk (0%) | updated: 2026-11-01 -->\n# Memory\n\n" + "\n".join(lines) + "\n" + extra


def make(root: Path, files: dict[str, str | bytes], index: str | None = "auto") -> Path:
    """A vault: the clean core notes plus ``files`` (``None`` value = leave out),
    and a MEMORY.md listing every memory file unless ``index`` is given."""
    content = {p: note(t, b) for p, (t, b) in CORE.items()}
    content.update(files)
    for rel, text in content.items():
        if text is None:
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    listed = [p for p, t in content.items() if t is not None and "/daily/" not in p]
    if index == "auto":
        (root / "MEMORY.md").write_text(index_for(listed))
    elif index is not None:
        (root / "MEMORY.md").write_text(index)
    return root


def check(cli, root: Path, *args: str, code: int = 0) -> dict:
    import json

    result = cli("check", "--vault", root, "--today", TODAY, "--json", *args, code=code)
    return json.loads(result.stdout)


def issues(report: dict, kind: str | None = None) -> list[tuple]:
    return [(i["kind"], i["path"], i["severity"]) for i in report["issues"] if kind in (None, i["kind"])]


# --- the sample vault ------------------------------------------------------------------


def test_sample_vault_shows_exactly_its_deliberate_flaws(cli, vault):
    # At the vault's own date (its budget comment: 2026-11-25) and the default 30 days, only the
    # 2026-07-14 note is stale: every other note has `updated:` >= 2026-10-26.
    report = check(cli, vault)
    got = [(i["kind"], i["path"], i["line"], i["severity"]) for i in report["issues"]]
    assert got == [
        ("BROKEN LINK", "MEMORY.md", 57, "error"),
        ("INVALID FRONTMATTER", "memory/protocols/incident-response.md", 3, "error"),
        ("ORPHAN", "memory/references/lisbon-coworking-spots.md", None, "warning"),
        ("DANGLING", "memory/people/priya-raman.md", 18, "warning"),
        ("STALE", "memory/references/home-lab-network.md", 7, "info"),
    ]
    broken, invalid, _, dangling, stale = report["issues"]
    assert "memory/references/old-vpn-guide.md" in broken["detail"]
    assert invalid["detail"].startswith("invalid_yaml: ")
    assert "[[kafka-retention-policy]]" in dangling["detail"]
    assert stale["detail"] == "not modified for 134 days (updated: 2026-07-14)"
    # the budget comment of the sample vault says ~16796tk / 40000tk (42%)
    assert report["budget"] == {"tokens": 16796, "cap": 40000, "percent": 42.0, "index_tokens": 1561, "files": 60}
    assert {t: c["files"] for t, c in report["types"].items()} == {
        "user": 1, "feedback": 6, "project": 4, "reference": 7, "decision": 8, "person": 8, "protocol": 5,
        "daily": 21,
    }
    assert {t: c["tokens"] for t, c in report["types"].items()} == {
        "user": 417, "feedback": 1388, "project": 1752, "reference": 2263, "decision": 2659, "person": 2305,
        "protocol": 1730, "daily": 4279,
    }
    assert [t["path"] for t in report["top"]] == [
        "memory/projects/atlas-billing.md", "memory/projects/mdmem-pilot.md", "memory/people/diego-almeida.md",
        "memory/protocols/sql-migrations.md", "memory/references/saft-pt-invoicing.md",
    ]
    assert report["top"][0] == {"path": "memory/projects/atlas-billing.md", "type": "project", "tokens": 692,
                                "percent": 1.7}
    assert report["today"] == TODAY and report["layout"] == "vault"
    assert set(report) == {"budget", "types", "top", "growth", "issues", "today", "layout", "left_out",
                           "sessions_unreviewed"}
    assert report["left_out"] == {}  # no .obsidian/ here: nothing left out
    assert report["sessions_unreviewed"] == {}  # nothing imported
    assert all(set(i) == {"kind", "path", "detail", "action", "severity", "line"} for i in report["issues"])


def test_sample_vault_with_a_shorter_stale_threshold(cli, vault):
    report = check(cli, vault, "--stale-days", "2")
    stale = [i["path"] for i in report["issues"] if i["kind"] == "STALE"]
    # every non-daily note updated before 2026-11-23 (18 of them)
    assert len(stale) == 18 and "memory/references/home-lab-network.md" in stale
    assert not [p for p in stale if "/daily/" in p]  # daily notes are journals, never stale
    assert len(report["issues"]) == 4 + 18


def test_sample_vault_text_report(cli, vault):
    out = cli("check", "--vault", vault, "--today", TODAY).stdout
    assert "~16,796 tk / 40,000 tk (42%) in 60 memory files" in out
    assert "5 issues (2 errors, 2 warnings, 1 info)" in out
    assert "error    BROKEN LINK  MEMORY.md:57" in out
    assert "memory/people/priya-raman.md:18" in out


# --- --update-budget -----------------------------------------------------------------


@pytest.mark.slow
def test_update_budget_rewrites_only_the_first_line(cli, vault):
    path = vault / "MEMORY.md"
    before = path.read_bytes()
    result = cli("check", "--vault", vault, "--today", "2026-11-29", "--update-budget", "--json")
    after = path.read_bytes()
    assert after.split(b"\n", 1)[0] == b"<!-- budget: ~16796tk / 40000tk (42%) | updated: 2026-11-29 -->"
    assert after.split(b"\n", 1)[1] == before.split(b"\n", 1)[1]
    assert "budget comment updated" in result.stderr
    # the same day again: nothing to write, the file is not touched
    st = path.stat()
    time.sleep(0.01)
    result = cli("check", "--vault", vault, "--today", "2026-11-29", "--update-budget")
    assert "already up to date" in result.stderr
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.read_bytes() == after
    # without the flag the audit writes nothing
    cli("check", "--vault", vault, "--today", "2026-12-01")
    assert path.read_bytes() == after


def test_update_budget_inserts_the_comment_and_keeps_every_byte(cli, tmp_path):
    root = make(tmp_path / "v", {}, index=None)
    body = "# Memory\r\n\r\n- [me.md](memory/people/me.md) — me\r\n- [atlas.md](memory/projects/atlas.md)\r\n"
    (root / "MEMORY.md").write_bytes(b"\xef\xbb\xbf" + body.encode())
    report = check(cli, root, "--update-budget")
    data = (root / "MEMORY.md").read_bytes()
    tokens = report["budget"]["tokens"]
    assert data == b"\xef\xbb\xbf" + f"<!-- budget: ~{tokens}tk / 40000tk (0%) | updated: {TODAY} -->\r\n".encode() \
        + body.encode()
    assert report["budget"]["index_tokens"] == len(data) * 5 // 16


def test_with_budget_comment():
    c = budget_comment(16796, 40000, __import__("datetime").date(2026, 11, 29))
    assert c == "<!-- budget: ~16796tk / 40000tk (42%) | updated: 2026-11-29 -->"
    assert with_budget_comment(b"", c) == c.encode() + b"\n"
    assert with_budget_comment(b"<!-- budget: old -->", c) == c.encode()
    assert with_budget_comment(b"<!-- budget: old -->\r\nrest", c) == c.encode() + b"\r\nrest"
    assert with_budget_comment(b"<!-- other -->\nrest", c) == c.encode() + b"\n<!-- other -->\nrest"
    assert budget_comment(19999, 40000, __import__("datetime").date(2026, 1, 1)).count("(50%)") == 1


def test_update_budget_without_memory_md_creates_nothing(cli, tmp_path):
    root = make(tmp_path / "v", {}, index=None)
    result = cli("check", "--vault", root, "--update-budget")
    assert "no MEMORY.md" in result.stderr and not (root / "MEMORY.md").exists()


# --- --fail-on and the clean vault -----------------------------------------------------------


def test_clean_vault_has_no_issues(cli, tmp_path):
    root = make(tmp_path / "v", {})
    report = check(cli, root, "--fail-on", "info")
    assert report["issues"] == []
    assert report["budget"]["files"] == 5
    # files written just now, audited as of an earlier day: changed "today"
    assert report["growth"] == {"last_7_days": {"files": 5, "tokens": report["budget"]["tokens"]},
                                "days_8_to_30": {"files": 0, "tokens": 0}}
    assert "no issues" in cli("check", "--vault", root, "--today", TODAY).stdout


@pytest.mark.slow
def test_fail_on_exit_codes(cli, tmp_path, vault):
    # the sample vault has errors: every threshold fails
    for severity in ("info", "warning", "error"):
        check(cli, vault, "--fail-on", severity, code=3)
    # only an info issue (NO ENTRIES): fails on info alone
    root = make(tmp_path / "v", {"memory/decisions/decision-cents.md": None})
    assert issues(check(cli, root)) == [("NO ENTRIES", ".", "info")]
    check(cli, root, "--fail-on", "info", code=3)
    check(cli, root, "--fail-on", "warning")
    check(cli, root, "--fail-on", "error")
    cli("check", "--vault", root, "--fail-on", "fatal", code=2)
    cli("check", "--vault", root, "--today", "yesterday", code=2)


@pytest.mark.slow
def test_check_exits_0_with_errors_unless_fail_on_and_its_help_says_so(cli, vault):
    """The default (exit 0 whatever is found) stays, for the hooks and scripts that run check; --help says it."""
    report = check(cli, vault)  # code=0
    assert any(i["severity"] == "error" for i in report["issues"])
    helptext = " ".join(cli("check", "--help").stdout.split())
    assert "Exit 0 even when it finds errors, unless --fail-on is given (then 3 at or above that severity)." in helptext
    assert "Without it check exits 0 whatever it finds, errors included (hooks and scripts rely on that)" in helptext


# --- one vault that shows each kind, one that does not ---------------------------------------


@pytest.mark.slow
def test_stale(cli, tmp_path):
    old = make(tmp_path / "a", {"memory/references/old.md": note("reference", "Old router notes.", "2026-09-01")})
    assert issues(check(cli, old), "STALE") == [("STALE", "memory/references/old.md", "info")]
    assert issues(check(cli, old, "--stale-days", "0"), "STALE") == []
    # no `updated:`: the file's mtime decides
    by_mtime = make(tmp_path / "b", {"memory/references/old.md": note("reference", "Old router notes.", None)})
    past = time.mktime((2026, 8, 1, 12, 0, 0, 0, 0, -1))
    os.utime(by_mtime / "memory/references/old.md", (past, past))
    [stale] = [i for i in check(cli, by_mtime)["issues"] if i["kind"] == "STALE"]
    assert stale["path"] == "memory/references/old.md" and "(mtime 2026-08-01)" in stale["detail"]
    fresh = make(tmp_path / "c", {
        "memory/references/new.md": note("reference", "New router notes.", "2026-11-01"),
        "memory/daily/2026-01-05.md": note("daily", "A day long ago.", "2026-01-05"),  # journals never go stale
    })
    assert issues(check(cli, fresh), "STALE") == []


def test_growth_by_mtime(cli, tmp_path):
    root = make(tmp_path / "v", {})
    for rel, day in (("memory/people/me.md", 20), ("memory/projects/atlas.md", 18),
                     ("memory/feedback/answer-first.md", 10), ("memory/references/ledger-docs.md", 1)):
        stamp = time.mktime((2026, 11, day, 12, 0, 0, 0, 0, -1))
        os.utime(root / rel, (stamp, stamp))
    growth = check(cli, root)["growth"]  # today 2026-11-25: 5, 7, 15 and 24 days ago; one file changed now
    sizes = {p: (root / p).stat().st_size for p in CORE}
    recent = sizes["memory/people/me.md"] + sizes["memory/projects/atlas.md"] + sizes["memory/decisions/decision-cents.md"]
    older = sizes["memory/feedback/answer-first.md"] + sizes["memory/references/ledger-docs.md"]
    assert growth == {"last_7_days": {"files": 3, "tokens": recent * 5 // 16},
                      "days_8_to_30": {"files": 2, "tokens": older * 5 // 16}}


@pytest.mark.slow
def test_orphan_is_decided_by_parsed_links(cli, tmp_path):
    files = {
        "memory/references/wiki.md": note("reference", "Linked by a wikilink."),
        "memory/references/sub dir/with space.md": note("reference", "Linked with %20."),
        "memory/references/angle b.md": note("reference", "Linked with <...>."),
        "memory/references/named.md": note("reference", "Only named in code and prose."),
        "memory/daily/2026-11-20.md": note("daily", "A day: daily notes need no index line."),
    }
    listed = [p for p in CORE]
    extra = ("- [[wiki]] — by name\n- [s](memory/references/sub%20dir/with%20space.md)\n"
             "- [a](<memory/references/angle b.md>)\n"
             "Mentioned but not linked: named.md, `[named](memory/references/named.md)`\n")
    root = make(tmp_path / "a", files, index=index_for(listed, extra))
    assert issues(check(cli, root), "ORPHAN") == [("ORPHAN", "memory/references/named.md", "warning")]
    [orphan] = check(cli, root)["issues"]
    assert orphan["action"] == ("add to MEMORY.md: - [named.md](memory/references/named.md) — named "
                                "`~" + str(len(files["memory/references/named.md"].encode()) * 5 // 16) + "tk`")
    clean = make(tmp_path / "b", {"memory/references/named.md": note("reference", "Listed.")})
    assert issues(check(cli, clean), "ORPHAN") == []


def test_broken_link_any_form(cli, tmp_path):
    extra = ("- [gone](memory/references/sub%20dir/gone%20note.md) — spaces and a sub-folder\n"
             "- [[vanished]] — a wikilink\n"
             "- [x](<memory/references/also gone.md>) — angle brackets\n"
             "- [fine](memory/references/sub%20dir/here%20it%20is.md)\n"
             "- [site](https://example.com/missing.md) — a web link is not a file\n")
    files = {"memory/references/sub dir/here it is.md": note("reference", "Exists, with spaces.")}
    root = make(tmp_path / "a", files, index=index_for(list(CORE), extra))
    report = check(cli, root)
    assert [(i["kind"], i["line"]) for i in report["issues"]] == [
        ("BROKEN LINK", 9), ("BROKEN LINK", 10), ("BROKEN LINK", 11)]
    assert "memory/references/sub dir/gone note.md" in report["issues"][0]["detail"]
    assert issues(check(cli, make(tmp_path / "b", files)), "BROKEN LINK") == []


def test_no_entries(cli, tmp_path):
    root = make(tmp_path / "a", {"memory/feedback/answer-first.md": None, "memory/people/me.md": None})
    assert [i["detail"] for i in check(cli, root)["issues"]] == ["no memory of type 'user'",
                                                                 "no memory of type 'feedback'"]
    assert issues(check(cli, make(tmp_path / "b", {})), "NO ENTRIES") == []


@pytest.mark.slow
def test_budget_warning(cli, tmp_path):
    root = make(tmp_path / "a", {})
    tokens = check(cli, root)["budget"]["tokens"]
    at_80 = check(cli, root, "--cap", str(tokens * 100 // 80))
    assert issues(at_80, "BUDGET WARNING") == [("BUDGET WARNING", ".", "warning")]
    assert issues(check(cli, root, "--cap", str(tokens)), "BUDGET WARNING") == [("BUDGET WARNING", ".", "error")]
    assert issues(check(cli, root, "--cap", str(tokens * 100 // 79)), "BUDGET WARNING") == []
    assert issues(check(cli, root, "--cap", str(tokens * 2), "--warn-percent", "50"), "BUDGET WARNING") != []


@pytest.mark.slow
def test_load_limit_names_the_entries_an_agent_never_sees(cli, tmp_path):
    files = {f"memory/references/r{i:03}.md": note("reference", f"Reference number {i} about topic {i * 7}.")
             for i in range(210)}
    root = make(tmp_path / "a", files)  # MEMORY.md: 3 header lines + 215 entries
    report = check(cli, root)
    unseen = [i for i in report["issues"] if i["kind"] == "LOAD LIMIT"]
    # lines 4-8 list the core notes, 9-218 r000-r209: line 201 is r192
    assert [i["path"] for i in unseen] == [f"memory/references/r{n:03}.md" for n in range(192, 210)]
    assert unseen[0]["detail"] == ("its index line (MEMORY.md line 201) is past the first 200 lines: "
                                   "an agent never sees it")
    assert {(i["severity"], i["line"]) for i in unseen} == {("error", None)}
    assert issues(check(cli, root, "--load-lines", "300"), "LOAD LIMIT") == []
    # the byte limit: the first entry whose line does not end within 400 bytes
    by_bytes = check(cli, root, "--load-lines", "300", "--load-bytes", "400")
    details = [i["detail"] for i in by_bytes["issues"] if i["kind"] == "LOAD LIMIT"]
    first = min(int(d.split("MEMORY.md line ")[1].split(")")[0]) for d in details)
    assert len(details) == 218 - first + 1 and "past the first 400 bytes" in details[0]
    text = (root / "MEMORY.md").read_bytes()
    assert len(b"\n".join(text.split(b"\n")[: first - 1])) <= 400 < len(b"\n".join(text.split(b"\n")[:first]))
    # text (not entries) past the limit is a warning on MEMORY.md itself
    (root / "MEMORY.md").write_text(index_for(list(CORE)) + "\n" * 250 + "A closing remark.\n")
    tail = check(cli, root)
    assert [(i["kind"], i["path"], i["severity"], i["line"]) for i in tail["issues"]
            if i["kind"] == "LOAD LIMIT"] == [("LOAD LIMIT", "MEMORY.md", "warning", 201)]


@pytest.mark.slow
def test_duplicates(cli, tmp_path):
    long = " ".join(f"word{i} is followed by another sentence about the ledger." for i in range(30))
    files = {
        "memory/references/Ledger Notes.md": note("reference", long),
        "memory/projects/ledger-notes.md": note("project", "Something else entirely, same name."),
        "memory/references/copy.md": note("reference", long + " One more closing line at the end."),
        "memory/references/fresh.md": note("reference", "A " + long.replace("word1 ", "term1 ")[:400]),
    }
    report = check(cli, make(tmp_path / "a", files))
    dups = sorted((i["path"], i["detail"]) for i in report["issues"] if i["kind"] == "DUPLICATE")
    assert [d[0] for d in dups] == ["memory/projects/ledger-notes.md", "memory/references/Ledger Notes.md"]
    assert dups[0][1] == "near-duplicate of memory/references/Ledger Notes.md: the same name"
    assert dups[1][1].startswith("near-duplicate of memory/references/copy.md: 9") \
        and dups[1][1].endswith("% the same text (word 5-grams)")
    exact = check(cli, make(tmp_path / "b", {"memory/references/copy.md": note("reference", long),
                                             "memory/references/copy2.md": note("feedback", long)}))
    assert [i["detail"] for i in exact["issues"]] == [
        "near-duplicate of memory/references/copy2.md: the same text"]
    assert issues(check(cli, make(tmp_path / "c", {})), "DUPLICATE") == []


@pytest.mark.slow
def test_invalid_frontmatter_and_parse_problems(cli, tmp_path):
    files = {
        "memory/references/bad.md": '---\ntype: reference\ndescription: "never closed\n---\nBody.\n',
        "memory/references/list.md": "---\n- a\n- b\n---\nBody.\n",
        "memory/references/bom.md": b"\xef\xbb\xbf" + note("reference", "Has a BOM.").encode(),
    }
    report = check(cli, make(tmp_path / "a", files))
    got = [(i["kind"], i["path"], i["severity"], i["detail"].split(":")[0]) for i in report["issues"]]
    assert got == [
        ("INVALID FRONTMATTER", "memory/references/bad.md", "error", "invalid_yaml"),
        ("INVALID FRONTMATTER", "memory/references/list.md", "error", "frontmatter_not_mapping"),
        ("PARSE PROBLEM", "memory/references/bom.md", "info", "bom"),
    ]
    assert issues(check(cli, make(tmp_path / "b", {})), "INVALID FRONTMATTER") == []
    # a folder-level finding: a symlink to a parent folder is not followed
    os.symlink("..", tmp_path / "b" / "memory" / "references" / "up")
    assert issues(check(cli, tmp_path / "b")) == [("PARSE PROBLEM", "memory/references/up", "warning")]


@pytest.mark.slow
def test_missing_type(cli, tmp_path):
    files = {
        "memory/people/bob.md": note(None, "Bob; the folder says person."),
        "memory/misc/thing.md": note(None, "Nothing says what this is."),
    }
    report = check(cli, make(tmp_path / "a", files))
    assert issues(report, "MISSING TYPE") == [
        ("MISSING TYPE", "memory/misc/thing.md", "warning"),
        ("MISSING TYPE", "memory/people/bob.md", "info"),
    ]
    assert report["types"]["other"] == {"files": 1, "tokens": len(files["memory/misc/thing.md"]) * 5 // 16}
    assert "other" not in check(cli, make(tmp_path / "b", {}))["types"]
    assert issues(check(cli, make(tmp_path / "b", {})), "MISSING TYPE") == []


def test_dangling(cli, tmp_path):
    body = "See [[nowhere]] and [[nowhere#Part]], [[atlas]], `[[in-code]]`, ![[missing.png]]."
    report = check(cli, make(tmp_path / "a", {"memory/references/r.md": note("reference", body)}))
    got = [(i["path"], i["line"], i["detail"]) for i in report["issues"] if i["kind"] == "DANGLING"]
    assert got == [
        ("memory/references/r.md", 7, "line 7: [[nowhere]] points at nothing in the vault (nowhere)"),
        ("memory/references/r.md", 7, "line 7: ![[missing.png]] points at nothing in the vault (missing.png)"),
    ]
    fine = make(tmp_path / "b", {"memory/references/r.md": note("reference", "See [[atlas]], [[ME]].")})
    assert issues(check(cli, fine), "DANGLING") == []


def test_oversized(cli, tmp_path):
    big = note("reference", "A long reference. " * 800)  # ~14 KB, ~4,500 tk > 10% of 40,000
    report = check(cli, make(tmp_path / "a", {"memory/references/big.md": big}))
    [issue] = [i for i in report["issues"] if i["kind"] == "OVERSIZED"]
    assert issue["path"] == "memory/references/big.md" and issue["severity"] == "warning"
    assert report["top"][0]["path"] == "memory/references/big.md"
    assert issues(check(cli, make(tmp_path / "a", {"memory/references/big.md": big}),
                        "--oversized-percent", "20"), "OVERSIZED") == []


# --- odd vaults: never a crash -------------------------------------------------------------


def test_missing_folder_is_an_issue(cli, tmp_path):
    report = check(cli, tmp_path / "nope")
    assert issues(report) == [("MISSING FOLDER", ".", "error")]
    assert report["layout"] == "missing" and report["budget"]["tokens"] == 0
    check(cli, tmp_path / "nope", "--fail-on", "error", code=3)


def test_empty_vault(cli, tmp_path):
    root = tmp_path / "empty"
    (root / ".obsidian").mkdir(parents=True)  # an empty Obsidian vault (a folder with nothing of a vault is refused)
    report = check(cli, root)  # neither MEMORY.md nor memory/: said once, how to add them
    assert issues(report) == [("NO MEMORY LAYOUT", ".", "warning")]
    assert report["budget"] == {"tokens": 0, "cap": 40000, "percent": 0.0, "index_tokens": 0, "files": 0}
    assert report["top"] == [] and report["layout"] == "none"
    report = check(cli, root, "--all")  # every note as memory: the flat layout's audit
    assert issues(report) == [("NO INDEX", "MEMORY.md", "warning")] + [("NO ENTRIES", ".", "info")] * 5
    assert report["layout"] == "flat"


def test_init_vault_is_clean_but_empty(cli, tmp_path):
    cli("init", tmp_path / "v")
    report = check(cli, tmp_path / "v")  # its README.md is not a memory file
    assert issues(report) == [("NO ENTRIES", ".", "info")] * 5 and report["budget"]["files"] == 0


def test_no_index_with_memory_files(cli, tmp_path):
    report = check(cli, make(tmp_path / "v", {}, index=None))
    assert issues(report) == [("NO INDEX", "MEMORY.md", "error")]


def test_flat_claude_code_memory_folder(cli, tmp_path):
    root = tmp_path / "claude" / "memory"
    root.mkdir(parents=True)
    (root / "user_role.md").write_text("---\nname: user role\ndescription: senior data scientist\ntype: user\n"
                                       "---\nThe user is a data scientist focused on observability.\n")
    (root / "feedback_testing.md").write_text("---\nname: testing\ntype: feedback\n---\nUse real databases in "
                                              "integration tests, never mocks.\n")
    (root / "project_freeze.md").write_text("---\nname: freeze\n---\nMerge freeze begins 2026-03-05.\n")
    (root / "notes.md").write_text("Loose notes nobody indexed.\n")
    (root / "MEMORY.md").write_text(
        "- [User role](user_role.md) — senior data scientist\n"
        "- [Testing](feedback_testing.md) — real databases in tests\n"
        "- [Freeze](project_freeze.md) — merge freeze\n"
        "- [Old](reference_old.md) — removed\n")
    report = check(cli, root)
    assert report["layout"] == "flat" and report["budget"]["files"] == 4
    assert issues(report) == [
        ("BROKEN LINK", "MEMORY.md", "error"),
        ("ORPHAN", "notes.md", "warning"),
        ("MISSING TYPE", "notes.md", "warning"),
        ("MISSING TYPE", "project_freeze.md", "warning"),
    ] + [("NO ENTRIES", ".", "info")] * 3  # project (its type is missing), reference, decision
    assert report["types"]["other"]["files"] == 2
    assert not (root / "MEMORY.md").read_text().startswith("<!--")  # nothing written without --update-budget


# --- settings --------------------------------------------------------------------------------


@pytest.mark.slow
def test_config_file_and_env_today(cli, tmp_path):
    root = make(tmp_path / "v", {"memory/references/old.md": note("reference", "Old.", "2026-11-01")})
    (root / ".mdmem").mkdir(exist_ok=True)
    (root / ".mdmem" / "config.toml").write_text("[check]\nstale_days = 20\ncap = 1000\n")
    report = check(cli, root)
    assert report["budget"]["cap"] == 1000 and issues(report, "STALE") == [("STALE", "memory/references/old.md",
                                                                             "info")]
    assert check(cli, root, "--cap", "5000")["budget"]["cap"] == 5000  # flags win over the file
    import json

    out = cli("check", "--vault", root, "--json", env={"MDMEM_TODAY": "2026-11-10"}).stdout
    assert json.loads(out)["today"] == "2026-11-10" and issues(json.loads(out), "STALE") == []
    (root / ".mdmem" / "config.toml").write_text("[check]\nstale_dayz = 20\n")
    assert "unknown [check] key" in cli("check", "--vault", root, code=1).stderr
    (root / ".mdmem" / "config.toml").write_text("[check]\ncap = 0\n")
    assert "cap = 0 is out of range" in cli("check", "--vault", root, code=1).stderr
    # every section refuses what mdmem does not read (a new user's `[serch]` and `recency_wieght` were ignored)
    for text, said in (("[serch]\nmode = \"lexical\"\n", "unknown section in"),
                       ("[search]\nrecency_wieght = 0.5\n", "unknown [search] key in"),
                       ("[semantic]\nenable = true\n", "unknown [semantic] key in")):
        (root / ".mdmem" / "config.toml").write_text(text)
        for command in (("check",), ("search", "cents")):
            err = cli(*command, "--vault", root, code=1).stderr
            assert said in err and len(err.strip().splitlines()) == 1, err
    (root / ".mdmem" / "config.toml").write_text("[search]\nrecency_weight = 0.5\n[hook]\nmin_stops = 5\n")
    check(cli, root)


@pytest.mark.parametrize("args", [("--cap", "0"), ("--stale-days", "-1"), ("--today", "2026-13-01")])
def test_bad_flags_are_usage_errors(cli, tmp_path, args):
    cli("check", "--vault", make(tmp_path / "v", {}), *args, code=2)


@pytest.mark.slow
def test_check_on_a_copy_leaves_the_files_alone(cli, vault, tmp_path):
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    cli("check", "--vault", vault, "--json")
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before
    shutil.rmtree(vault / ".mdmem")  # derived: the audit works the same without it
    assert check(cli, vault)["budget"]["tokens"] == 16796


@pytest.mark.slow
def test_json_is_the_report_as_dataclasses_asdict(cli, vault):
    import datetime as dt
    import json

    from mdmem.base.settings import CheckSettings as Settings
    from mdmem.cli.render import to_json
    from mdmem.engine.memory import Memory
    from mdmem.ops.check import audit

    out = json.loads(cli("check", "--vault", vault, "--today", TODAY, "--json").stdout)
    with Memory.open(vault) as mem:
        mem.refresh()
        report = audit(mem, Settings(), dt.date(2026, 11, 25))
    whole = json.loads(to_json(report))
    assert whole.pop("judge") is None and "judge" not in out  # no judge set: said only with one (decision 127)
    assert out == whole and len(out["issues"]) == 5

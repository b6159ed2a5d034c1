"""`mdmem digest`: weekly and monthly digests of the daily notes, through the real CLI, on real files."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

TODAY = "2026-11-25"  # the sample vault's own date: a Wednesday in 2026-W48
WEEKS = [f"2026-W{n}" for n in range(39, 48)]  # 2026-09-21 .. 2026-11-22: the finished weeks with notes
MONTHS = ["2026-09", "2026-10"]  # November is not over


def digest(cli, vault: Path, *args: str, today: str = TODAY) -> dict:
    return cli.json("digest", "--vault", vault, "--today", today, *args)


def statuses(result: dict) -> dict[str, str]:
    return {item["period"]: item["status"] for item in result["items"]}


def files(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every vault file but derived state: bytes and mtime."""
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file() and ".mdmem" not in p.relative_to(root).parts}


def weekly(vault: Path, label: str) -> Path:
    return vault / "memory/digests/weekly" / f"{label}.md"


def monthly(vault: Path, label: str) -> Path:
    return vault / "memory/digests/monthly" / f"{label}.md"


def make(root: Path, daily: dict[str, str], config: str | None = None) -> Path:
    (root / "memory/daily").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory index\n", encoding="utf-8")
    for day, text in daily.items():
        (root / "memory/daily" / f"{day}.md").write_text(text, encoding="utf-8")
    if config is not None:
        (root / ".mdmem").mkdir()
        (root / ".mdmem/config.toml").write_text(config, encoding="utf-8")
    return root


LONG = "x" * 150 + " [[decision-long-name]] and more words after it"
SMALL = {
    "2026-03-31": (
        "---\ntype: daily\ntags: [daily, ledger]\n---\n"
        "# 2026-03-31 (Tuesday)\n\n"
        "Previous: [[2026-03-30]]\n\n"
        "## 09:15\n"
        "Paired   with [[ana-souza|Ana]] on the [[atlas-billing]] ledger #ledger\n"
        "Second line, not shown.\n\n"
        "## 14:00 Review\n"
        "Looked at `[[not-a-link]]` and ![[atlas-billing#Status]] again.\n\n"
        "## 08:00\n"
        "Early coffee, written later.\n"
    ),
    "2026-04-02": (
        "---\ntype: daily\ntags: [daily]\n---\n"
        "## 10:30\n"
        "Decidimos a migração em duas fases com a [[Ana-Souza]] — ação às 9h. #migração\n\n"
        "```python\n## 11:00\nnot an entry: inside code\n```\n\n"
        "## 16:45\n"
        f"{LONG}\n"
    ),
}

SMALL_WEEK_BODY = (
    "# Week 2026-W14\n"
    "\n"
    "2026-03-30 to 2026-04-05: 5 entries over 2 days.\n"
    "\n"
    "## 2026-03-31 (Tue)\n"
    "\n"
    "- 08:00 Early coffee, written later.\n"
    "- 09:15 Paired with [[ana-souza|Ana]] on the [[atlas-billing]] ledger #ledger\n"
    "- 14:00 Review\n"
    "\n"
    "## 2026-04-02 (Thu)\n"
    "\n"
    "- 10:30 Decidimos a migração em duas fases com a [[Ana-Souza]] — ação às 9h. #migração\n"
    f"- 16:45 {'x' * 150}…\n"
    "\n"
    "## Links\n"
    "\n"
    "- [[Ana-Souza]] (2)\n"
    "- [[atlas-billing]] (2)\n"
    "- [[decision-long-name]] (1)\n"
    "\n"
    "## Tags\n"
    "\n"
    "- #ledger (2)\n"
    "- #migração (1)\n"
)

SMALL_MONTH_BODY = (
    "# Month 2026-03\n"
    "\n"
    "2026-03-01 to 2026-03-31: 3 entries over 1 day.\n"
    "\n"
    "## Weeks\n"
    "\n"
    "- [[2026-W14]]: 3 entries over 1 day (2026-03-31)\n"
    "\n"
    "## Links\n"
    "\n"
    "- [[atlas-billing]] (2)\n"
    "- [[ana-souza]] (1)\n"
    "\n"
    "## Tags\n"
    "\n"
    "- #ledger (2)\n"
)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------------------ layout


def test_exact_digests_of_a_small_vault(cli, tmp_path):
    vault = make(tmp_path / "v", SMALL)
    result = digest(cli, vault, today="2026-04-06")
    assert result == {
        "today": "2026-04-06", "dry_run": False, "archived": [], "problems": [],
        "items": [
            {"path": "memory/digests/weekly/2026-W14.md", "period": "2026-W14", "kind": "weekly",
             "status": "created", "entries": 5, "days": 2},
            {"path": "memory/digests/monthly/2026-03.md", "period": "2026-03", "kind": "monthly",
             "status": "created", "entries": 3, "days": 1},
        ],
    }
    assert weekly(vault, "2026-W14").read_bytes() == (
        "---\n"
        "name: Week 2026-W14\n"
        "description: '5 entries over 2 days: Ana-Souza, atlas-billing, #ledger'\n"
        "type: digest\n"
        "period: 2026-W14\n"
        "start: 2026-03-30\n"
        "end: 2026-04-05\n"
        "sources:\n"
        "- memory/daily/2026-03-31.md\n"
        "- memory/daily/2026-04-02.md\n"
        "generated_by: mdmem digest\n"
        f"content_hash: {sha(SMALL_WEEK_BODY)}\n"
        "---\n" + SMALL_WEEK_BODY
    ).encode("utf-8")
    assert monthly(vault, "2026-03").read_bytes() == (
        "---\n"
        "name: Month 2026-03\n"
        "description: '3 entries over 1 day: atlas-billing, #ledger, ana-souza'\n"
        "type: digest\n"
        "period: 2026-03\n"
        "start: 2026-03-01\n"
        "end: 2026-03-31\n"
        "sources:\n"
        "- memory/daily/2026-03-31.md\n"
        "generated_by: mdmem digest\n"
        f"content_hash: {sha(SMALL_MONTH_BODY)}\n"
        "---\n" + SMALL_MONTH_BODY
    ).encode("utf-8")
    # the digest is an ordinary note: typed, indexed, its links and tags parsed
    shown = cli.json("show", "memory/digests/weekly/2026-W14.md", "--vault", vault)
    assert shown["type"] == "digest" and shown["tags"] == ["ledger", "migração"]
    assert shown["frontmatter"]["start"] == "2026-03-30"
    hits = cli.json("search", "coffee", "--vault", vault, "--type", "digest")["results"]
    assert [h["path"] for h in hits] == ["memory/digests/weekly/2026-W14.md"]


def test_text_output(cli, tmp_path):
    vault = make(tmp_path / "v", SMALL)
    r = cli("digest", "--vault", vault, "--today", "2026-04-06")
    assert r.stdout == ""
    assert r.stderr == (
        "created: memory/digests/weekly/2026-W14.md (5 entries)\n"
        "created: memory/digests/monthly/2026-03.md (3 entries)\n"
        "2 digests: 2 created\n"
    )
    r = cli("digest", "--vault", vault, "--today", "2026-04-06")
    assert r.stderr.endswith("2 digests: 2 unchanged\n")


@pytest.mark.slow
def test_only_finished_weeks_and_months(cli, tmp_path):
    vault = make(tmp_path / "v", SMALL)
    # 2026-03-31 is the month's last day: March is not over on that day
    assert digest(cli, vault, today="2026-03-31")["items"] == []
    r = cli("digest", "--vault", vault, "--today", "2026-03-31")
    assert r.stderr == "no finished week or month with daily notes before 2026-03-31\n"
    assert not (vault / "memory/digests").exists()
    # Sunday 2026-04-05 ends 2026-W14: the week is over only the day after
    assert statuses(digest(cli, vault, today="2026-04-05")) == {"2026-03": "created"}
    assert not weekly(vault, "2026-W14").exists()
    assert "\n- 2026-W14: " in monthly(vault, "2026-03").read_text()  # no link to a digest not there yet
    # the week's digest now exists, so the month's links it
    assert statuses(digest(cli, vault, today="2026-04-06")) == {"2026-W14": "created", "2026-03": "updated"}
    assert "\n- [[2026-W14]]: " in monthly(vault, "2026-03").read_text()
    # April ends on a Thursday: its month digest waits for 2026-05-01
    both = {"2026-W14": "unchanged", "2026-03": "unchanged"}
    assert statuses(digest(cli, vault, today="2026-04-30")) == both
    assert statuses(digest(cli, vault, today="2026-05-01")) == both | {"2026-04": "created"}


@pytest.mark.slow
def test_sample_vault_digests_and_today_from_the_environment(cli, vault):
    result = cli.json("digest", "--vault", vault, env={"MDMEM_TODAY": TODAY})
    assert result["today"] == TODAY
    assert statuses(result) == {**{w: "created" for w in WEEKS}, **{m: "created" for m in MONTHS}}
    assert sorted(p.name for p in (vault / "memory/digests/weekly").iterdir()) == [f"{w}.md" for w in WEEKS]
    assert sorted(p.name for p in (vault / "memory/digests/monthly").iterdir()) == [f"{m}.md" for m in MONTHS]
    assert not weekly(vault, "2026-W48").exists() and not monthly(vault, "2026-11").exists()
    week = weekly(vault, "2026-W47").read_text(encoding="utf-8")
    # Portuguese entries, kept as written; the embed before the first entry is not an entry
    assert ("## 2026-11-17 (Tue)\n\n- 06:45 Tom, Ana e eu na call. Dashboards abertos "
            "([[atlas-dashboards]]). Inês avisada ontem. Go.\n") in week
    assert ("- 09:45 Escrita no legado bloqueada (`atlas_write_only`). Migração concluída. "
            "Zero cobranças perdidas.\n") in week
    assert "deploy-checklist" not in week
    assert "description: '12 entries over 3 days: #atlas, adyen-webhooks, atlas-dashboards'\n" in week
    month = monthly(vault, "2026-10").read_text(encoding="utf-8")
    assert "## Weeks\n\n- [[2026-W40]]: 2 entries over 1 day (2026-10-01)\n" \
           "- [[2026-W41]]: 6 entries over 2 days (2026-10-06, 2026-10-09)\n" in month
    assert "- … and 11 more in the weekly digests\n" in month  # the month lists its 15 top links


# ------------------------------------------------------------------------------ idempotence


@pytest.mark.slow
def test_second_run_changes_nothing(cli, vault):
    digest(cli, vault)
    before = files(vault)
    again = digest(cli, vault)
    assert set(statuses(again).values()) == {"unchanged"}
    assert files(vault) == before  # byte-identical, same mtimes


@pytest.mark.slow
def test_same_daily_notes_give_identical_digests(cli, vault, tmp_path):
    digest(cli, vault)
    other = tmp_path / "other"
    shutil.copytree(vault, other, ignore=shutil.ignore_patterns(".mdmem", "digests"))
    digest(cli, other)
    for folder in ("weekly", "monthly"):
        for path in (vault / "memory/digests" / folder).iterdir():
            assert (other / "memory/digests" / folder / path.name).read_bytes() == path.read_bytes()


@pytest.mark.slow
def test_a_changed_daily_note_regenerates_its_digests(cli, vault):
    digest(cli, vault)
    old_w40 = weekly(vault, "2026-W40").read_bytes()
    with open(vault / "memory/daily/2026-09-24.md", "a", encoding="utf-8") as f:
        f.write("\n## 18:30\nRevisão final com a [[ana-souza|Ana]] #adyen\n")
    result = digest(cli, vault)
    assert statuses(result) == {**{w: "unchanged" for w in WEEKS}, **{m: "unchanged" for m in MONTHS},
                                "2026-W39": "updated", "2026-09": "updated"}
    text = weekly(vault, "2026-W39").read_text(encoding="utf-8")
    assert "- 18:30 Revisão final com a [[ana-souza|Ana]] #adyen\n" in text
    assert "description: '7 entries over 2 days: ana-souza, " in text
    assert weekly(vault, "2026-W40").read_bytes() == old_w40
    assert set(statuses(digest(cli, vault)).values()) == {"unchanged"}


@pytest.mark.slow
def test_a_hand_edited_digest_is_kept(cli, vault):
    digest(cli, vault)
    w39, w40 = weekly(vault, "2026-W39"), weekly(vault, "2026-W40")
    w39.write_text(w39.read_text(encoding="utf-8") + "\nMy own note about this week.\n", encoding="utf-8")
    own_key = w40.read_text(encoding="utf-8").replace("type: digest\n", "type: digest\ntags: [review]\n")
    w40.write_text(own_key, encoding="utf-8")  # a frontmatter key of one's own is an edit too
    edited = {p: p.read_bytes() for p in (w39, w40)}
    with open(vault / "memory/daily/2026-09-24.md", "a", encoding="utf-8") as f:
        f.write("\n## 18:30\nOne more entry.\n")
    with open(vault / "memory/daily/2026-10-01.md", "a", encoding="utf-8") as f:
        f.write("\n## 18:30\nOne more entry.\n")
    result = digest(cli, vault)
    got = statuses(result)
    assert got["2026-W39"] == got["2026-W40"] == "kept-edited"
    assert got["2026-09"] == got["2026-10"] == "updated"
    assert {p: p.read_bytes() for p in (w39, w40)} == edited
    r = cli("digest", "--vault", vault, "--today", TODAY)
    assert "kept: edited by hand: memory/digests/weekly/2026-W39.md (7 entries)\n" in r.stderr


@pytest.mark.slow
def test_a_file_not_written_by_digest_is_never_touched(cli, vault):
    mine = weekly(vault, "2026-W39")
    mine.parent.mkdir(parents=True)
    mine.write_text("---\ntype: reference\n---\n# My week\n\nWritten by hand.\n", encoding="utf-8")
    broken = monthly(vault, "2026-09")
    broken.parent.mkdir(parents=True)
    broken.write_text("---\ngenerated_by: [mdmem digest\n---\n# broken YAML\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in (mine, broken)}
    result = digest(cli, vault)
    got = statuses(result)
    assert got["2026-W39"] == got["2026-09"] == "skipped-not-generated"
    assert got["2026-W40"] == "created"
    assert {p: p.read_bytes() for p in (mine, broken)} == before
    assert "skipped: not written by mdmem digest: memory/digests/weekly/2026-W39.md" in \
        cli("digest", "--vault", vault, "--today", TODAY).stderr


def test_dry_run_writes_nothing(cli, vault):
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem/config.toml").write_text("[digest]\narchive_daily_after_days = 30\n")
    before = files(vault)
    result = digest(cli, vault, "--dry-run")
    assert result["dry_run"] is True
    assert set(statuses(result).values()) == {"created"} and len(result["items"]) == 11
    assert [a["path"] for a in result["archived"]][:2] == ["memory/daily/2026-09-21.md",
                                                           "memory/daily/2026-09-24.md"]
    assert len(result["archived"]) == 10
    assert files(vault) == before
    r = cli("digest", "--vault", vault, "--today", TODAY, "--dry-run")
    assert "would create: memory/digests/weekly/2026-W39.md (6 entries)\n" in r.stderr
    assert "would archive memory/daily/2026-09-21.md → memory/.archive/daily/2026-09-21.md\n" in r.stderr
    assert r.stderr.endswith("; dry run: nothing changed\n")
    assert files(vault) == before


# ------------------------------------------------------------------------------ archiving


@pytest.mark.slow
def test_archiving_is_off_by_default(cli, vault):
    daily = sorted(p.name for p in (vault / "memory/daily").iterdir())
    result = digest(cli, vault, today="2027-06-01")  # every note old, every month over
    assert result["archived"] == []
    assert sorted(p.name for p in (vault / "memory/daily").iterdir()) == daily
    assert not (vault / "memory/.archive").exists()


@pytest.mark.slow
def test_archiving_moves_old_notes_once_digested(cli, vault):
    (vault / ".mdmem").mkdir(exist_ok=True)
    (vault / ".mdmem/config.toml").write_text("[digest]\narchive_daily_after_days = 30\n")
    daily = {p.name: p.read_bytes() for p in (vault / "memory/daily").iterdir()}
    # a forgotten note already sits at one archive path: it is never overwritten
    taken = vault / "memory/.archive/daily/2026-09-21.md"
    taken.parent.mkdir(parents=True)
    taken.write_text("forgotten earlier\n")
    plain = digest(cli, vault)
    # more than 30 days before 2026-11-25: up to 2026-10-23 (10 notes); 2026-10-28 is 28 days old
    moved = {a["path"]: a["archived_to"] for a in plain["archived"]}
    assert len(moved) == 10 and "memory/daily/2026-10-23.md" in moved
    assert "memory/daily/2026-10-28.md" not in moved
    assert moved["memory/daily/2026-09-21.md"] == "memory/.archive/daily/2026-09-21-2.md"
    assert moved["memory/daily/2026-09-24.md"] == "memory/.archive/daily/2026-09-24.md"
    assert taken.read_text() == "forgotten earlier\n"
    # nothing deleted: every note is either still live or in the archive, byte for byte
    for name, data in daily.items():
        rel = f"memory/daily/{name}"
        where = vault / moved[rel] if rel in moved else vault / rel
        assert where.read_bytes() == data and (rel in moved) != (vault / rel).exists()
    # the digests stay, and name the archive paths of their notes
    w39 = weekly(vault, "2026-W39").read_text(encoding="utf-8")
    assert "sources:\n- memory/.archive/daily/2026-09-21-2.md\n- memory/.archive/daily/2026-09-24.md\n" in w39
    assert "- 09:40 Kickoff da fase 2 do [[atlas-billing]]" in w39
    october = monthly(vault, "2026-10").read_text(encoding="utf-8")
    assert "- memory/.archive/daily/2026-10-23.md\n- memory/daily/2026-10-28.md\n" in october
    # the index forgot the archived notes (the digests still find the words)
    hits = [h["path"] for h in cli.json("search", "Kickoff fase", "--vault", vault)["results"]]
    assert "memory/daily/2026-09-21.md" not in hits and "memory/digests/weekly/2026-W39.md" in hits
    cli("show", "memory/daily/2026-09-21.md", "--vault", vault, code=1)
    # idempotent: a second run changes nothing; weeks whose notes are all archived are left alone
    before = files(vault)
    again = digest(cli, vault)
    assert again["archived"] == [] and set(statuses(again).values()) == {"unchanged"}
    assert set(statuses(again)) == {"2026-W44", "2026-W45", "2026-W46", "2026-W47", "2026-10"}
    assert files(vault) == before
    # a later edit to a live October note regenerates the month with its archived notes still in it
    with open(vault / "memory/daily/2026-10-30.md", "a", encoding="utf-8") as f:
        f.write("\n## 19:00\nLate entry.\n")
    later = digest(cli, vault)
    assert statuses(later)["2026-10"] == "updated"
    october = monthly(vault, "2026-10").read_text(encoding="utf-8")
    assert "26 entries over 9 days" in october and "- memory/.archive/daily/2026-10-01.md\n" in october


@pytest.mark.slow
def test_a_forgotten_daily_note_drops_out_of_the_next_digest(cli, vault):
    digest(cli, vault)
    cli("forget", "memory/daily/2026-09-24.md", "--vault", vault)
    result = digest(cli, vault)
    assert statuses(result)["2026-W39"] == "updated"
    text = weekly(vault, "2026-W39").read_text(encoding="utf-8")
    assert "2026-09-24" not in text and "3 entries over 1 day" in text


@pytest.mark.slow
def test_bad_digest_settings_are_errors(cli, vault):
    (vault / ".mdmem").mkdir(exist_ok=True)
    config = vault / ".mdmem/config.toml"
    config.write_text("[digest]\narchive_daily_after_days = \"soon\"\n")
    r = cli("digest", "--vault", vault, "--today", TODAY, code=1)
    assert "bad [digest] value" in r.stderr and "archive_daily_after_days = 'soon'" in r.stderr
    config.write_text("[digest]\narchive_after = 3\n")
    assert "unknown [digest] key" in cli("digest", "--vault", vault, "--today", TODAY, code=1).stderr
    config.write_text("[digest]\narchive_daily_after_days = -1\n")
    assert "out of range" in cli("digest", "--vault", vault, "--today", TODAY, code=1).stderr
    assert not (vault / "memory/digests").exists()
    cli("digest", "--vault", vault, "--today", "2026-11", code=2)


# ------------------------------------------------------------------------------ bad input


def test_a_daily_note_with_invalid_yaml_is_reported_not_a_crash(cli, tmp_path):
    notes = dict(SMALL)
    notes["2026-04-01"] = ("---\ntype: daily\ntags: [daily, oops\n---\n"
                           "## 12:00\nLunch with [[tom-okafor]] #lunch\n")
    vault = make(tmp_path / "v", notes)
    result = digest(cli, vault, today="2026-04-06")
    problems = [(p["path"], p["code"]) for p in result["problems"]]
    assert problems == [("memory/daily/2026-04-01.md", "invalid_yaml")]
    assert statuses(result) == {"2026-W14": "created", "2026-03": "created"}
    text = weekly(vault, "2026-W14").read_text(encoding="utf-8")
    assert "## 2026-04-01 (Wed)\n\n- 12:00 Lunch with [[tom-okafor]] #lunch\n" in text
    r = cli("digest", "--vault", vault, "--today", "2026-04-06")
    assert r.stderr.startswith("warning: memory/daily/2026-04-01.md: invalid YAML frontmatter")


def test_a_day_without_timed_entries(cli, tmp_path):
    vault = make(tmp_path / "v", {"2026-04-01": "# 2026-04-01\n\nJust prose, no `## HH:MM` entry.\n"})
    result = digest(cli, vault, today="2026-04-06")
    assert [(i["period"], i["entries"], i["days"]) for i in result["items"]] == [("2026-W14", 0, 1)]
    text = weekly(vault, "2026-W14").read_text(encoding="utf-8")
    assert text.endswith("## 2026-04-01 (Wed)\n\nNo timed entries.\n\n## Links\n\nNo links.\n\n"
                         "## Tags\n\nNo tags.\n")
    assert "description: 0 entries over 1 day\n" in text


# ------------------------------------------------------------------------------ the audit


def issues(cli, vault: Path, *args: str) -> list[tuple]:
    report = cli.json("check", "--vault", vault, "--today", TODAY, *args)
    return [(i["kind"], i["path"], i["line"], i["severity"]) for i in report["issues"]]


@pytest.mark.slow
def test_check_treats_digests_as_journals(cli, vault):
    before = issues(cli, vault)
    before_90 = issues(cli, vault, "--stale-days", "90")
    digest(cli, vault)
    # a digest needs no MEMORY.md line, is never stale or a duplicate, and repeats no dangling link
    assert issues(cli, vault) == before
    assert issues(cli, vault, "--stale-days", "90") == before_90
    report = cli.json("check", "--vault", vault, "--today", "2027-06-01")
    assert not [i for i in report["issues"] if "digests/" in i["path"]]
    assert report["types"]["digest"]["files"] == 11
    assert report["types"]["daily"]["files"] == 21
    assert list(report["types"]) == ["user", "feedback", "project", "reference", "decision", "person",
                                     "protocol", "daily", "digest"]
    text = cli("check", "--vault", vault, "--today", TODAY).stdout
    assert "\ndaily           21" in text and "\ndigest          11" in text


@pytest.mark.slow
def test_check_on_a_small_vault_with_dangling_links(cli, tmp_path):
    vault = make(tmp_path / "v", SMALL)  # [[ana-souza]], [[atlas-billing]]... exist nowhere
    before = issues(cli, vault)
    assert ("DANGLING", "memory/daily/2026-03-31.md", 10, "warning") in before
    digest(cli, vault, today="2026-04-06")
    assert issues(cli, vault) == before
    assert "digest" not in cli.json("check", "--vault", make(tmp_path / "w", {}), "--today", TODAY)["types"]

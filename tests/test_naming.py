"""What `mdmem save` calls what it saves, through the real CLI in a vault made by `mdmem init`: a person
by the person's name, other notes by a short subject, a one-sentence decision by its options."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def fresh(tmp_path: Path, cli) -> Path:
    """A new, empty vault from `mdmem init`."""
    root = tmp_path / "vault"
    cli("init", root, "--today", "2026-12-02")
    return root


def save(cli, root: Path, text: str, *args: str, code: int = 0):
    return cli("save", text, *args, "--vault", root, code=code)


# --- 1. a person's note is named after the person ----------------------------------------------------


@pytest.mark.parametrize(("text", "name"), [
    ("Ana Souza is the billing team lead; she reviews all schema migrations", "Ana Souza"),
    ("Ana Souza: billing lead, reviews migrations and owns the invoices service", "Ana Souza"),
    ("Ana Souza (billing) reviews all schema migrations", "Ana Souza"),
    ("Ana Souza é a líder do time de faturamento e revê as migrações", "Ana Souza"),
    ("Ana Souza's team owns the invoices service", "Ana Souza"),
    ("Maria da Silva leads the QA guild", "Maria da Silva"),
    ("Rui answers within a day.", "Rui"),
])
def test_a_person_is_named_after_the_person(fresh, cli, text, name):
    out = cli.json("save", text, "--type", "person", "--vault", fresh)
    assert (out["name"], out["path"], out["description"]) == (name, f"memory/people/{name}.md", text)
    assert (fresh / out["path"]).read_text().startswith(f"---\nname: {name}\n")
    assert cli.json("show", name, "--vault", fresh)["path"] == out["path"]  # [[Ana Souza]] reaches it


@pytest.mark.parametrize(("text", "path"), [
    ("Talked to Ana about billing", "memory/people/talked-to-ana-about-billing.md"),
    ("The new CTO is Ana Souza", "memory/people/the-new-cto-is-ana-souza.md"),
])
def test_a_text_that_does_not_open_with_a_name_is_named_by_its_subject(fresh, cli, text, path):
    assert cli.json("save", text, "--type", "person", "--vault", fresh)["path"] == path


@pytest.mark.slow
def test_the_same_person_again_is_refused_and_points_at_the_note(fresh, cli):
    first = cli.json("save", "Ana Souza is the billing team lead; she reviews all schema migrations",
                     "--type", "person", "--vault", fresh)
    assert first["path"] == "memory/people/Ana Souza.md"
    r = save(cli, fresh, "Ana Souza: billing lead, owns the invoices service", "--type", "person",
             "--name", "Ana Souza", code=1)
    assert r.stderr == ("mdmem: memory/people/Ana Souza.md already holds another text under this name ('Ana Souza'); "
                        "add this to it (--update 'memory/people/Ana Souza.md'), pass --supersedes 'memory/people/Ana "
                        "Souza.md' if this one replaces it, or --new to save a second note (under a free name); or "
                        "choose another --name\n")
    # another case and accents: the same person
    r = save(cli, fresh, "Ána souza owns the invoices service", "--type", "person", "--name", "ána SOUZA", code=1)
    assert r.stderr == ("mdmem: memory/people/ána SOUZA.md would be a second note on the same person as "
                        "memory/people/Ana Souza.md; add this to that note (mdmem edit 'memory/people/Ana Souza.md' "
                        "--append TEXT), pass --supersedes 'memory/people/Ana Souza.md' if this one replaces it, "
                        "or --new to save a second one\n")
    assert sorted(p.name for p in (fresh / "memory/people").glob("*.md")) == ["Ana Souza.md"]
    assert cli.json("save", "Ána souza owns the invoices service", "--type", "person", "--name", "ána SOUZA",
                    "--new", "--vault", fresh)["status"] == "created"


def test_a_person_named_by_an_alias_is_the_same_person(fresh, cli):
    (fresh / "memory/people/ana-souza.md").write_text(
        "---\nname: Ana Souza\ntype: person\naliases: [Aninha, A. Souza]\n---\nBilling lead.\n")
    r = save(cli, fresh, "Aninha é a líder do time de faturamento", "--type", "person", code=1)
    assert r.stderr.startswith("mdmem: memory/people/Aninha.md would be a second note on the same person as "
                               "memory/people/ana-souza.md; add this to that note (mdmem edit "
                               "memory/people/ana-souza.md --append TEXT)")
    # an alias of a note that is not a person does not make a person a duplicate
    (fresh / "memory/references").mkdir()
    (fresh / "memory/references/tools.md").write_text("---\ntype: reference\naliases: [Bruno]\n---\nTools.\n")
    assert cli.json("save", "Bruno runs the QA guild", "--type", "person", "--vault", fresh)["path"] == \
        "memory/people/Bruno.md"


def test_the_card_shows_people_by_name_not_file_name(fresh, cli):
    (fresh / "memory/people/ana-souza-is-the-billing-team-lead.md").write_text(
        "---\nname: Ana Souza\ntype: person\n---\nAna Souza is the billing team lead.\n")
    save(cli, fresh, "Rui Costa: payments on-call, answers within a day", "--type", "person")
    card = cli("context", "--vault", fresh).stdout
    assert "People: Rui Costa, Ana Souza\n" in card  # by path, as the card orders them
    assert "ana-souza-is" not in card


# --- 2. other notes are named short, by their subject, not by the whole fact ------------------------------


@pytest.mark.parametrize(("text", "kind", "name", "path"), [
    ("The staging database listens on port 5432 and is rebuilt every night from the production snapshot",
     "reference", "The staging database listens on port",
     "memory/references/the-staging-database-listens-on-port.md"),
    ("Kafka retention is 7 days for every topic of the billing cluster", "reference",
     "Kafka retention is 7 days", "memory/references/kafka-retention-is-7-days.md"),
    ("Deploy freeze: no production deploys from December 20 to January 3", "project", "Deploy freeze",
     "memory/projects/deploy-freeze.md"),
    ("Always answer with the command first and the explanation after it, in at most ten lines", "feedback",
     "Always answer with the command first", "memory/feedback/always-answer-with-the-command-first.md"),
    ("O banco de staging é recriado todas as noites a partir do snapshot de produção", "reference",
     "O banco de staging é recriado", "memory/references/o-banco-de-staging-é-recriado.md"),
])
def test_a_name_is_the_first_clause_in_a_few_words(fresh, cli, text, kind, name, path):
    out = cli.json("save", text, "--type", kind, "--vault", fresh)
    assert (out["name"], out["path"], out["description"]) == (name, path, _cut(text))


@pytest.mark.parametrize(("text", "kind", "name", "path"), [
    # who chose is not the subject; the reason is not either
    ("We use SQLite for the local cache because it needs no server", "decision", "SQLite for the local cache",
     "memory/decisions/decision-sqlite-for-the-local-cache.md"),
    ("We decided to run database migrations by hand from a laptop, never from the CI pipeline", "decision",
     "Run database migrations by hand from a laptop",
     "memory/decisions/decision-run-database-migrations-by-hand-from-a-laptop.md"),
    # a short clause is kept whole, its comma too; "I prefer" says the rule without the "I"
    ("I prefer short answers, conclusion first", "user", "Prefer short answers, conclusion first",
     "memory/people/prefer-short-answers-conclusion-first.md"),
    # a long one is cut at its comma, its aside or its condition before a word count, never inside code
    ("Write a bounded plan for non-trivial work, then execute it without waiting for an approval loop",
     "feedback", "Write a bounded plan for non-trivial work",
     "memory/feedback/write-a-bounded-plan-for-non-trivial-work.md"),
    ("Use the `list-artisan-commands` tool when you need to call an Artisan command to check the parameters",
     "feedback", "Use the list-artisan-commands tool", "memory/feedback/use-the-list-artisan-commands-tool.md"),
    ("Clippy must be clean (`cargo clippy --all-targets --all-features -D warnings`).", "feedback",
     "Clippy must be clean", "memory/feedback/clippy-must-be-clean.md"),
    # a list's comma is no clause's end; markup is not in a name
    ("Never reference Claude, AI, or assistant in commit messages", "feedback",
     "Never reference Claude, AI, or assistant", "memory/feedback/never-reference-claude-ai-or-assistant.md"),
    ("**Feature flags**: New Hard AI features should be behind flags on main branch", "project", "Feature flags",
     "memory/projects/feature-flags.md"),
])
def test_a_name_is_the_subject_a_user_would_give(fresh, cli, text, kind, name, path):
    out = cli.json("save", text, "--type", kind, "--vault", fresh)
    assert (out["name"], out["path"]) == (name, path)
    assert name.split()[-1].lower() not in {"the", "for", "and", "because", "we", "when", "about"}


def _cut(text: str) -> str:
    return text if len(text) <= 100 else text[:99].rsplit(" ", 1)[0] + "…"


@pytest.mark.slow
def test_an_edited_note_keeps_its_name_and_an_old_long_name_is_not_renamed(fresh, cli):
    old = fresh / "memory/references/the-vpn-moved-to-vpn2-example-org-on-port-1194-last-week.md"
    old.parent.mkdir()
    old.write_text("---\ntype: reference\n---\nThe VPN moved to vpn2.example.org on port 1194 last week.\n")
    out = cli.json("save", "The office printer is on the third floor by the kitchen", "--type", "reference",
                   "--vault", fresh)
    assert out["path"] == "memory/references/the-office-printer.md"
    cli("edit", out["path"], "--append", "It moved to the second floor in May.", "--vault", fresh)
    assert sorted(p.name for p in old.parent.glob("*.md")) == [
        "the-office-printer.md", "the-vpn-moved-to-vpn2-example-org-on-port-1194-last-week.md"]
    assert cli.json("show", out["path"], "--vault", fresh)["title"] == "the-office-printer"


def test_the_card_says_a_short_name_and_its_description_once(fresh, cli):
    text = "Always answer with the command first and the explanation after it, in at most ten lines"
    save(cli, fresh, text, "--type", "feedback")
    feedback = cli("context", "--vault", fresh).stdout.split("## Feedback (how the user wants you to work)\n")[1]
    assert feedback.splitlines()[0] == f"- {text}"


# --- 3. a one-sentence decision: its options, and a name that is not its description again ---------------


@pytest.mark.parametrize(("text", "name", "chosen", "rejected"), [
    ("We chose PostgreSQL over MongoDB for the billing service", "PostgreSQL over MongoDB for the billing service",
     "PostgreSQL", "MongoDB"),
    ("We chose SQS over Redis because it is managed and we have no ops team", "SQS over Redis", "SQS", "Redis"),
    ("We chose CF Pages over Vercel since the previews are free", "CF Pages over Vercel", "CF Pages", "Vercel"),
    ("We chose Whoosh over SQLite FTS5 as the search engine", "Whoosh over SQLite FTS5", "Whoosh", "SQLite FTS5"),
    ("Optamos por Adyen em vez de Stripe para os pagamentos em Portugal, porque suporta MB Way",
     "Adyen em vez de Stripe para os pagamentos em Portugal", "Adyen", "Stripe"),
])
def test_a_one_sentence_decision_names_its_options(fresh, cli, text, name, chosen, rejected):
    out = cli.json("save", text, "--type", "decision", "--vault", fresh)
    assert out["name"] == name
    note = (fresh / out["path"]).read_text()
    assert f"\nchosen: {chosen}\nrejected:\n- {rejected}\n" in note
    assert f"## Options considered\n- {chosen} (chosen)\n- {rejected}\n" in note
    decisions = cli("context", "--vault", fresh).stdout.split("## Recent decisions\n")[1].splitlines()
    day = note.split("\ncreated: ", 1)[1].split("\n", 1)[0]  # today
    assert decisions[0] == (f"- {day} {name}" if text.startswith("We chose PostgreSQL")  # not "X — We chose X"
                            else f"- {day} {name} — {text}")

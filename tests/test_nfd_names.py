"""Notes whose file names are written in Unicode NFD (``Cafe`` + U+0301, as macOS file systems and the sync
tools that carry their files write them), on a Linux disk where ``open()`` needs the exact bytes: each is read
by its name as it is on disk, and matched (links, NOTE arguments, ``--folder``, ``save``'s name) by its NFC key.
Real files in tmp_path, the real CLI. (The defect: the walker keyed notes by their NFC path and opened that, so
such a note was unsearchable, ``show`` said "unreadable" and ``check`` advised "check the file".)"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest

from mdmem.text.resolve import Resolver


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


CAFE = "memory/references/" + nfd("Café notes") + ".md"          # NFD on disk
ZOE = "memory/people/" + nfd("Zoë") + ".md"                        # NFD on disk
MALAGA = "memory/projects/" + nfc("Málaga") + ".md"                # NFC on disk, linked in NFD
LINKER = "memory/references/linker.md"
assert nfc(CAFE) != CAFE and nfd(MALAGA) != MALAGA

FILES = {
    CAFE: "---\ntype: reference\n---\nabout okapi\n",
    ZOE: "---\ntype: person\n---\nZoë works on [[" + nfd("Málaga") + "]] and wrote [[" + nfd("Café notes") + "]].\n",
    MALAGA: "---\ntype: project\n---\nThe Málaga project.\n",
    LINKER: "---\ntype: reference\n---\nsee [[" + nfc("Café notes") + "]], [md](Caf%C3%A9%20notes.md) and [["
            + nfc("Zoë") + "]]\n",
}
INDEX_LINES = (f"\n- [Café notes](memory/references/Caf%C3%A9%20notes.md) — about okapi\n"
               f"- [[{nfc('Zoë')}]] — a person\n- [[{nfc('Málaga')}]] — a project\n- [[linker]] — links\n")


@pytest.fixture
def mac(tmp_path: Path, cli) -> Path:
    """A new vault holding notes named as a Mac names them."""
    root = tmp_path / "vault"
    cli("init", root)
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    with open(root / "MEMORY.md", "a", encoding="utf-8") as f:
        f.write(INDEX_LINES)
    cli("index", "--vault", root)
    return root


def names(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if not n.startswith("."))


@pytest.mark.slow
def test_an_nfd_named_note_is_searched_and_shown_by_either_form(mac, cli):
    hits = cli.json("search", "okapi", "--vault", mac)["results"]
    assert [(h["path"], h["title"], h["snippet"]) for h in hits] == [(CAFE, nfc("Café notes"), "about **okapi**")]
    for typed in (nfc("Café notes"), nfd("Café notes"), nfc(CAFE), CAFE, nfc("café NOTES.md")):
        shown = cli.json("show", typed, "--vault", mac)
        assert (shown["path"], shown["title"], shown["type"], shown["problems"]) == \
            (CAFE, nfc("Café notes"), "reference", []), typed
    assert cli("show", "Café notes", "--vault", mac).stdout.startswith(nfc("Café notes") + "  " + CAFE + "\n")


@pytest.mark.slow
def test_check_reads_nfd_notes_and_their_index_lines(mac, cli):
    issues = cli.json("check", "--vault", mac)["issues"]
    assert [i for i in issues if i["path"] in FILES or nfc(i["path"]) in map(nfc, FILES)] == []


@pytest.mark.slow
def test_links_resolve_between_nfc_and_nfd_names_both_ways(mac, cli):
    out = cli.json("links", "linker", "--vault", mac)["links"]
    assert [(link["raw"], link["target"]) for link in out] == [
        (f"[[{nfc('Café notes')}]]", CAFE), ("[md](Caf%C3%A9%20notes.md)", CAFE), (f"[[{nfc('Zoë')}]]", ZOE)]
    out = cli.json("links", nfc("Zoë"), "--vault", mac)["links"]
    assert [(link["raw"], link["target"]) for link in out] == [
        (f"[[{nfd('Málaga')}]]", MALAGA), (f"[[{nfd('Café notes')}]]", CAFE)]
    back = cli.json("backlinks", nfc("Café notes"), "--vault", mac)["backlinks"]
    assert [(b["source"], b["line"]) for b in back] == [("MEMORY.md", 20), (ZOE, 4), (LINKER, 4), (LINKER, 4)]
    assert cli.json("graph", "dangling", "--vault", mac) == {"dangling": []}
    assert cli("neighbors", nfd("Málaga"), "--vault", mac).stdout == \
        f"1 ← {ZOE}  (weight 1)\n"


def test_folder_filter_matches_an_nfd_folder(mac, cli):
    meeting = mac / "memory" / nfd("Réunions") / "weekly.md"
    meeting.parent.mkdir()
    meeting.write_text("---\ntype: reference\n---\nthe okapi meeting\n", encoding="utf-8")
    for typed in (nfc("memory/Réunions"), nfd("memory/Réunions/")):
        hits = cli.json("search", "okapi", "--folder", typed, "--vault", mac)["results"]
        assert [h["path"] for h in hits] == ["memory/" + nfd("Réunions") + "/weekly.md"], typed


def test_edit_writes_the_file_as_named_on_disk(mac, cli):
    done = cli.json("edit", nfc("Café notes"), "--append", "and the zebra", "--vault", mac)
    assert done["path"] == CAFE
    assert names(mac / "memory/references") == [nfd("Café notes.md"), "linker.md"]  # no NFC copy beside it
    assert (mac / CAFE).read_text(encoding="utf-8") == "---\ntype: reference\n---\nabout okapi\n\nand the zebra\n"
    assert [h["path"] for h in cli.json("search", "zebra", "--vault", mac)["results"]] == [CAFE]


def test_move_renames_the_file_on_disk_and_rewrites_links_in_nfc(mac, cli):
    moved = cli.json("move", nfc("Café notes"), nfc("Crème notes"), "--vault", mac)
    new = "memory/references/" + nfc("Crème notes") + ".md"
    assert (moved["source"], moved["target"], moved["links"]) == (CAFE, new, 4)
    assert names(mac / "memory/references") == [nfc("Crème notes.md"), "linker.md"]
    assert (mac / LINKER).read_text(encoding="utf-8") == \
        f"---\ntype: reference\n---\nsee [[{nfc('Crème notes')}]], [md](Cr%C3%A8me%20notes.md) and [[{nfc('Zoë')}]]\n"
    assert (mac / ZOE).read_text(encoding="utf-8").endswith(f"wrote [[{nfc('Crème notes')}]].\n")
    assert [h["path"] for h in cli.json("search", "okapi", "--vault", mac)["results"]] == [new]
    assert "- [Café notes](memory/references/Cr%C3%A8me%20notes.md) — about okapi\n" in \
        (mac / "MEMORY.md").read_text(encoding="utf-8")


def test_move_to_the_nfc_form_of_its_own_name_normalises_it(mac, cli):
    moved = cli.json("move", ZOE, nfc("Zoë"), "--vault", mac)
    assert (moved["source"], moved["target"], moved["links"]) == (ZOE, nfc(ZOE), 0)  # every link still reaches it
    assert names(mac / "memory/people") == [nfc("Zoë.md")]
    assert [(b["source"]) for b in cli.json("backlinks", "Zoë", "--vault", mac)["backlinks"]] == ["MEMORY.md", LINKER]


@pytest.mark.slow
def test_writers_never_make_a_twin_of_a_note_named_in_another_form(mac, cli):
    r = cli("move", "linker", nfc("Café notes"), "--vault", mac, code=1)
    assert r.stderr == f"mdmem: {CAFE} exists already (the same name in another Unicode form); nothing was moved\n"
    r = cli("save", "other words", "-t", "reference", "--name", nfc("Café notes"), "--vault", mac, code=1)
    assert r.stderr.startswith(f"mdmem: {CAFE} already holds another text under this name"), r.stderr
    assert r.stderr.endswith("; or choose another --name\n"), r.stderr
    same = cli.json("save", "about okapi", "-t", "reference", "--name", nfc("Café notes"), "--vault", mac)
    assert (same["status"], same["path"]) == ("unchanged", CAFE)
    assert names(mac / "memory/references") == [nfd("Café notes.md"), "linker.md"]


@pytest.mark.slow
def test_forget_archives_the_file_on_disk_and_its_index_line(mac, cli):
    gone = cli.json("forget", nfc("Café notes"), "--vault", mac)["notes"]
    assert gone == [{"path": CAFE, "archived_to": "memory/.archive/references/" + nfd("Café notes") + ".md",
                     "index_lines": ["- [Café notes](memory/references/Caf%C3%A9%20notes.md) — about okapi"],
                     "links": 3, "linked_from": ["memory/people/" + nfd("Zoë") + ".md", "memory/references/linker.md"]}]
    assert names(mac / "memory/.archive/references") == [nfd("Café notes.md")]
    assert "Caf%C3%A9" not in (mac / "MEMORY.md").read_text(encoding="utf-8")
    assert cli.json("search", "okapi", "--vault", mac)["results"] == []


@pytest.mark.slow
def test_twin_folders_are_reported_once(mac, cli):
    for form in (nfc, nfd):
        (mac / "memory" / form("Équipe")).mkdir()
        (mac / "memory" / form("Équipe") / "plan.md").write_text(f"---\ntype: reference\n---\n{form.__name__}\n")
    twins = [i for i in cli.json("check", "--vault", mac)["issues"] if i["kind"] == "NAME TWINS"]
    assert [(i["path"], i["detail"].split(":")[0]) for i in twins] == [
        ("memory/" + nfc("Équipe"), "2 folders here have this name written in different Unicode forms (NFC, NFD)")]
    hits = cli.json("search", "nfd", "--vault", mac)["results"]  # both plans are read, each from its own file
    assert [h["path"] for h in hits] == ["memory/" + nfd("Équipe") + "/plan.md"]


@pytest.mark.parametrize("order", [1, -1])
def test_twins_resolve_to_the_nfc_named_file_whatever_the_walk_order(order):
    paths = [nfc("a/Café.md"), nfd("a/Café.md"), "b/x.md"][::order]
    r = Resolver(paths)
    for link in (nfc("Café"), nfd("Café"), nfd("a/Café.md"), "/" + nfd("a/Café"), "./" + nfd("Café")):
        assert r.resolve(link, "a/y.md") == nfc("a/Café.md"), link


def test_json_paths_are_the_bytes_on_disk(mac, cli):
    """An agent that opens a path mdmem printed must find the file."""
    out = json.loads(cli("search", "okapi", "--vault", mac, "--json").stdout)
    assert (mac / out["results"][0]["path"]).read_bytes() == FILES[CAFE].encode()


def test_the_prompt_hook_looks_again_at_a_cache_an_older_walker_made(mac):
    """Before, the walker keyed an NFD note by its NFC path: the cache holds that path (as an unreadable note)
    with the same stats, so the sums the prompt hook compares were equal and it never looked again. The digest
    is salted since: the hook sees a difference, compares paths, and refreshes."""
    import hashlib
    import sqlite3

    from mdmem.agents.hooks.state import fresh
    from mdmem.base import files

    scan = files.scan(mac)
    stats = scan.notes.values()
    old = hashlib.blake2b(digest_size=16)  # files.digest as the older walker's cache recorded it
    old.update(f"{len(scan.notes)}:{sum(m for m, _, _ in stats)}:{sum(s for _, s, _ in stats)}\n".encode())
    for rel, mtime in sorted(scan.folders.items()):
        old.update(f"{rel}\0{mtime}\n".encode())
    db = sqlite3.connect(mac / ".mdmem" / "notes.db")
    with db:
        db.execute("UPDATE notes SET path = ? WHERE path = ?", (nfc(CAFE), CAFE))
        db.execute("UPDATE meta SET value = ? WHERE key = 'scan_digest'", (old.hexdigest(),))
        db.execute("DELETE FROM meta WHERE key = ?", (files.UNSTATED_DIGEST,))  # the older walker kept no such sum
    fresh(str(mac), lambda *_: None)
    assert [p for (p,) in db.execute("SELECT path FROM notes") if "Caf" in p] == [CAFE]
    db.close()

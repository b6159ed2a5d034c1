"""Hostile derived state and settings (the second hostile-vault review: code from a cache file, a symlinked ``.mdmem``, a
hostile ``config.toml``, a read-only vault, a lone surrogate over MCP).

Whoosh unpickles its index files, and a vault's ``.mdmem/`` travels with it: each probe here plants a file that
runs code when unpickled (it creates a marker file) and runs every front end that opens the index (``mdmem
search``, the MCP ``search`` tool over the real stdio server, the SessionStart and prompt hooks); the marker must
never appear, and the answer must be the notes' (the index rebuilt from them). Then the state folder must be a
real folder, every settings file a bounded regular file read without a traceback or a hang, and a read-only vault
still searchable.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mdmem.base import keys
from mdmem.engine.seal import MANIFEST
from support import run_process

SECONDS = 30  # a hang guard, not a timing


class Boom:
    """Unpickled, it creates the file ``marker``: what a crafted index file would do."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def index_dir(vault: Path) -> Path:
    return vault / ".mdmem" / "index"


def build(vault: Path) -> None:
    proc = run_process("index", "--vault", vault)
    assert proc.returncode == 0, proc.stderr


def plant_toc(vault: Path, marker: Path, gen: int | None = None) -> str:
    """A table of contents whose segment list runs code: of the next generation (Whoosh reads the newest), or
    of generation ``gen`` written over the one there (same name, same generation inside)."""
    from whoosh.filedb.filestore import FileStorage
    from whoosh.index import TOC

    from mdmem.engine.index import INDEX_NAME, schema

    folder = index_dir(vault)
    newest = max(int(n.split("_")[2][:-4]) for n in os.listdir(folder) if n.endswith(".toc"))
    name = f"_{INDEX_NAME}_{newest + 1 if gen is None else gen}.toc"
    scratch = folder.parent / "scratch"
    scratch.mkdir(exist_ok=True)
    TOC(schema(), Boom(marker), newest + 1 if gen is None else gen).write(FileStorage(str(scratch)), INDEX_NAME)
    os.replace(scratch / name, folder / name)
    scratch.rmdir()
    return name


def replace_toc(vault: Path, marker: Path) -> None:
    """The newest table of contents rewritten in place: same name, same generation, its segment list running code."""
    newest = max(int(n.split("_")[2][:-4]) for n in os.listdir(index_dir(vault)) if n.endswith(".toc"))
    plant_toc(vault, marker, gen=newest)


def swap_segment(vault: Path, marker: Path) -> None:
    """Every compound segment replaced by one whose directory (a pickle) runs code."""
    body = pickle.dumps(Boom(marker))
    for seg in index_dir(vault).glob("*.seg"):
        seg.write_bytes((12).to_bytes(8, "big") + len(body).to_bytes(4, "big") + body)


def hook(name: str, vault: Path, payload: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mdmem", "hook", name, "--vault", str(vault)], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=SECONDS)


def touch_note(vault: Path) -> None:
    """A note changed, so the next command updates the index (opens it to write)."""
    note = vault / "memory" / "projects" / "atlas-billing.md"
    note.write_text(note.read_text() + "\nAlso: the ledger reconciles nightly.\n")


def mcp(vault: Path, *requests: dict | str) -> list[dict | None]:
    """The real ``mdmem mcp`` server over stdio: initialize (the server's start-up bounded apart, generously: the
    machine may be loaded), then ``requests`` (objects, or raw lines as given), each answer awaited at most
    :data:`SECONDS`; the answers in the order of their ids (None: no answer)."""
    import selectors
    import time

    init = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    lines = [r if isinstance(r, str) else json.dumps(r) for r in requests]
    wanted = sorted(json.loads(line.encode("utf-8", "surrogatepass"))["id"] for line in lines)
    proc = subprocess.Popen([sys.executable, "-m", "mdmem", "mcp", "--vault", str(vault)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers: dict = {}
    assert proc.stdin is not None and proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)

    def read_until(ids: set, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not ids <= set(answers) and time.monotonic() < deadline:
            if sel.select(timeout=0.5):
                line = proc.stdout.readline()
                if not line:
                    return
                msg = json.loads(line)
                if "id" in msg:
                    answers[msg["id"]] = msg

    try:
        proc.stdin.write("\n".join(init).encode() + b"\n")
        proc.stdin.flush()
        read_until({0}, 120)
        proc.stdin.write("\n".join(lines).encode("utf-8", "surrogatepass") + b"\n")
        proc.stdin.flush()
        read_until(set(wanted), SECONDS)
    finally:
        proc.kill()
        proc.communicate(timeout=SECONDS)
    return [answers.get(i) for i in wanted]


def search_call(i: int = 1, query: str = "atlas") -> dict:
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "search", "arguments": {"query": query}}}


# ----------------------------------------------------------------------------- F1: no code from an index file

CRAFTS = {"a newer TOC": plant_toc, "the TOC rewritten": replace_toc, "a swapped segment": swap_segment}


@pytest.mark.slow
@pytest.mark.parametrize("craft", CRAFTS)
def test_a_crafted_index_file_never_runs_on_search_and_the_index_is_rebuilt(vault, tmp_path, craft):
    build(vault)
    marker = tmp_path / "ran"
    CRAFTS[craft](vault, marker)
    proc = run_process("search", "atlas", "--json", "--vault", vault)
    assert not marker.exists()
    assert proc.returncode == 0, proc.stderr
    assert "memory/projects/atlas-billing.md" in [h["path"] for h in json.loads(proc.stdout)["results"]]
    assert not marker.exists()
    again = run_process("search", "atlas", "--json", "--vault", vault)  # the rebuilt index is sealed: used as is
    assert again.returncode == 0 and not marker.exists()


@pytest.mark.slow
def test_a_crafted_toc_never_runs_in_the_hooks_nor_over_mcp(vault, tmp_path):
    marker = tmp_path / "ran"
    build(vault)
    for name, payload in (("session-start", {"session_id": "s1", "source": "startup", "cwd": str(tmp_path)}),
                          ("prompt", {"session_id": "s1", "prompt": "how does the atlas billing ledger work?",
                                      "cwd": str(tmp_path)})):
        plant_toc(vault, marker)
        touch_note(vault)  # the hook must update the index: it opens it
        proc = hook(name, vault, payload)
        assert proc.returncode == 0, proc.stderr
        assert not marker.exists(), name
    assert "Memory protocol" in proc.stdout or proc.stdout == "" or "atlas" in proc.stdout
    plant_toc(vault, marker)
    answer = mcp(vault, search_call())[0]
    assert not marker.exists()
    assert answer is not None and "atlas-billing" in json.dumps(answer)


@pytest.mark.slow
def test_an_index_sealed_with_another_key_is_rebuilt_never_read(vault, tmp_path, monkeypatch):
    """A copied vault whose ``.mdmem/`` was sealed by someone else, planted TOC included (signed with their key)."""
    from mdmem.engine.seal import Seal

    marker = tmp_path / "ran"
    theirs = tmp_path / "their-home"
    monkeypatch.setenv("MDMEM_HOME", str(theirs))
    build(vault)
    planted = plant_toc(vault, marker)
    temp = planted + ".tmp-sealing"
    os.rename(index_dir(vault) / planted, index_dir(vault) / temp)
    Seal(index_dir(vault)).write((temp, planted), {temp}, fresh=True)  # their key vouches for their TOC
    os.rename(index_dir(vault) / temp, index_dir(vault) / planted)
    monkeypatch.setenv("MDMEM_HOME", str(tmp_path / "my-home"))
    proc = run_process("search", "atlas", "--json", "--vault", vault)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert json.loads(proc.stdout)["results"]


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "missing", "garbage", "symlink"])
def test_a_damaged_seal_means_a_rebuild(vault, tmp_path, damage):
    build(vault)
    marker = tmp_path / "ran"
    plant_toc(vault, marker)
    seal = index_dir(vault) / MANIFEST
    data = seal.read_bytes()
    if damage == "truncated":
        seal.write_bytes(data[:-20])
    elif damage == "missing":
        seal.unlink()
    elif damage == "garbage":
        seal.write_bytes(b"\x80\x04garbage\n" * 1000)
    else:
        (tmp_path / "elsewhere").write_bytes(data)
        seal.unlink()
        seal.symlink_to(tmp_path / "elsewhere")
    proc = run_process("search", "atlas", "--json", "--vault", vault)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert json.loads(proc.stdout)["results"]


@pytest.mark.slow
def test_an_edit_then_search_keeps_the_seal_and_hashes_no_settled_file(vault, cli):
    """After an update the new files are sealed too: the next search opens the index without a rebuild."""
    build(vault)
    touch_note(vault)
    found = cli.json("search", "reconciles nightly", "--vault", vault)["results"]
    assert found[0]["path"] == "memory/projects/atlas-billing.md"
    files = json.loads((index_dir(vault) / MANIFEST).read_bytes().rsplit(b"\n", 2)[0])["files"]
    on_disk = {n for n in os.listdir(index_dir(vault)) if n.endswith((".toc", ".seg"))}
    assert on_disk <= set(files)


def test_the_key_is_the_users_alone_and_made_once_by_racing_processes(tmp_path, isolated):
    code = "from mdmem.base.keys import user_key; print(user_key().hex())"
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(6)]
    made = {p.communicate(timeout=SECONDS)[0].strip() for p in procs}
    assert len(made) == 1 and len(next(iter(made))) == 64
    path = Path(keys.key_path())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert not [p for p in path.parent.iterdir() if p.name != keys.KEY_NAME]  # no temp file left


@pytest.mark.parametrize("flaw", ["readable", "short", "symlink", "inside"])
def test_an_untrustworthy_key_stops_search_with_one_line(vault, tmp_path, monkeypatch, flaw):
    path = Path(keys.key_path())
    if flaw == "inside":
        monkeypatch.setenv("MDMEM_HOME", str(vault / ".mdmem" / "home"))
    else:
        path.parent.mkdir(parents=True, mode=0o700)
        if flaw == "symlink":
            (tmp_path / "k").write_bytes(os.urandom(32))
            path.symlink_to(tmp_path / "k")
        else:
            path.write_bytes(os.urandom(32 if flaw == "readable" else 5))
            path.chmod(0o644 if flaw == "readable" else 0o600)
    proc = run_process("search", "atlas", "--vault", vault)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "key" in proc.stderr


# ----------------------------------------------------------------------------- F6: the state folder is real

PLACEMENTS = [".mdmem", ".mdmem/index", ".mdmem/hooks", ".mdmem/checkpoints", ".mdmem/notes.db"]


def link_state(vault: Path, placement: str, outside: Path) -> Path:
    """``placement`` in the vault made a symlink to ``outside`` (a folder holding a user's unrelated
    ``notes.db``, or that file itself); the vault otherwise indexed."""
    outside.mkdir()
    (outside / "notes.db").write_bytes(b"the user's own database")
    if placement != ".mdmem":
        build(vault)
    target = vault / placement
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(outside / "notes.db" if placement.endswith(".db") else outside)
    return outside


def snapshot(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.slow
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_a_symlinked_state_folder_is_refused_in_one_line_and_nothing_is_written_through_it(vault, tmp_path,
                                                                                          placement, isolated):
    outside = link_state(vault, placement, tmp_path / "outside")
    before = snapshot(outside)
    for args in (("search", "atlas"), ("index",), ("save", "a fact", "--type", "reference", "--name", "fact-x")):
        proc = run_process(*args, "--vault", vault)
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "symlink" in proc.stderr
    for name, payload in (("session-start", {"session_id": "s1", "source": "startup", "cwd": str(tmp_path)}),
                          ("prompt", {"session_id": "s1", "prompt": "atlas billing ledger", "cwd": str(tmp_path)}),
                          ("stop", {"session_id": "s1", "transcript_path": str(tmp_path / "none.jsonl")})):
        proc = hook(name, vault, payload)
        assert proc.returncode == 0 and proc.stdout == "", (name, proc.stdout)
        assert "Traceback" not in proc.stderr and "symlink" in proc.stderr
    assert snapshot(outside) == before
    logs = [isolated / ".mdmem" / "hook.log", vault / ".mdmem" / "hooks" / "hook.log"]  # home, when .mdmem or hooks/ is the link
    assert any(p.is_file() and not p.is_symlink() and "symlink" in p.read_text() for p in logs)


@pytest.mark.slow
def test_a_symlink_inside_a_real_state_folder_is_never_written_through(vault, tmp_path):
    """The hook log and the locks open with O_NOFOLLOW: a planted ``hook.log`` or ``write.lock`` link is refused."""
    build(vault)
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    hooks = vault / ".mdmem" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "hook.log").symlink_to(victim)
    proc = hook("prompt", vault, {"session_id": "s1", "prompt": "atlas", "cwd": str(tmp_path)})
    assert proc.returncode == 0
    from mdmem.base.files import Lock

    lock = tmp_path / "lockdir"
    lock.mkdir()
    (lock / "write.lock").symlink_to(tmp_path / "created-elsewhere")
    with pytest.raises(OSError):
        with Lock(lock / "write.lock", 0.1):
            pass
    assert not (tmp_path / "created-elsewhere").exists()
    assert victim.read_text() == "keep me\n"
    whoosh_lock = index_dir(vault) / "MAIN_WRITELOCK"  # Whoosh's own lock, opened with O_CREAT on update
    whoosh_lock.unlink(missing_ok=True)
    whoosh_lock.symlink_to(tmp_path / "whoosh-elsewhere")
    touch_note(vault)
    proc = run_process("search", "ledger", "--vault", vault)
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") <= 1
    assert not (tmp_path / "whoosh-elsewhere").exists()


# ----------------------------------------------------------------------------- F10: config.toml

def craft_config(path: Path, kind: str, tmp_path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "nested":
        path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    elif kind == "not UTF-8":
        path.write_bytes(b'[search]\nmode = "\xff\xfe"\n')
    elif kind == "huge":
        path.write_text("# padding\n" * 200_000)
    elif kind == "FIFO":
        os.mkfifo(path)
    else:
        (tmp_path / "shared.toml").write_text('[search]\nmode = "lexical"\n')
        path.symlink_to(tmp_path / "shared.toml")


CONFIGS = ["nested", "not UTF-8", "huge", "FIFO", "symlink"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", CONFIGS)
def test_a_hostile_config_is_one_line_in_every_front_end_never_a_traceback_or_a_hang(vault, tmp_path, kind):
    build(vault)
    craft_config(vault / ".mdmem" / "config.toml", kind, tmp_path)
    proc = run_process("search", "atlas", "--vault", vault, timeout=SECONDS)
    assert proc.returncode == 1
    assert proc.stderr.startswith("mdmem: cannot read ") and proc.stderr.count("\n") == 1, proc.stderr
    card = hook("session-start", vault, {"session_id": "s1", "source": "startup", "cwd": str(tmp_path)})
    assert card.returncode == 0 and card.stderr == ""
    out = json.loads(card.stdout)  # the card, with the defaults, opens with the line; the user sees it
    assert out["systemMessage"].startswith("mdmem: cannot read ") and "\n" not in out["systemMessage"]
    assert "Memory protocol" in out["hookSpecificOutput"]["additionalContext"]
    stop = hook("stop", vault, {"session_id": "s1", "transcript_path": str(tmp_path / "none.jsonl")})
    assert stop.returncode == 0 and stop.stdout == "" and stop.stderr.count("\n") == 1
    answer = mcp(vault, search_call())[0]
    assert answer is not None and answer["result"]["isError"] is True
    assert "cannot read" in answer["result"]["content"][0]["text"]


def test_a_config_symlink_is_not_followed_out_of_the_vault(vault, tmp_path):
    craft_config(vault / ".mdmem" / "config.toml", "symlink", tmp_path)
    proc = run_process("search", "atlas", "--vault", vault)
    assert "symlink" in proc.stderr


# ----------------------------------------------------------------------------- the other caches hold only data

def nested_json() -> str:
    return "[" * 200_000 + "]" * 200_000


CACHES = {
    "notes.db garbage": (".mdmem/notes.db", b"SQLite format 3\x00" + os.urandom(4096)),
    "notes.db FIFO": (".mdmem/notes.db", None),
    "graph.json nested": (".mdmem/graph.json", nested_json()),
    "graph.json FIFO": (".mdmem/graph.json", None),
    "vectors.npz garbage": (".mdmem/vectors.npz", b"PK\x03\x04" + os.urandom(2048)),
    "card state nested": (".mdmem/hooks/context-card.json", nested_json()),
    "prompt state FIFO": (".mdmem/hooks/prompt-s1.json", None),
    "checkpoint nested": (".mdmem/checkpoints/s1.json", nested_json()),
    "checkpoint FIFO": (".mdmem/checkpoints/s1.json", None),
}


@pytest.mark.slow
@pytest.mark.parametrize("cache", CACHES)
def test_a_crafted_cache_is_rebuilt_or_refused_in_one_line_never_a_crash_or_a_hang(vault, tmp_path, cache):
    build(vault)
    rel, content = CACHES[cache]
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    for extra in ("-wal", "-shm"):
        Path(str(path) + extra).unlink(missing_ok=True)
    if content is None:
        os.mkfifo(path)
    else:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    for args in (("search", "atlas", "--json"), ("graph", "orphans", "--json"), ("checkpoint", "skip", "--session", "s1")):
        proc = run_process(*args, "--vault", vault, timeout=SECONDS)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        assert proc.returncode in (0, 1), (args, proc.returncode, proc.stderr)
        if proc.returncode == 1:
            assert proc.stderr.count("\n") == 1, proc.stderr
    for name, payload in (("session-start", {"session_id": "s1", "source": "startup", "cwd": str(tmp_path)}),
                          ("prompt", {"session_id": "s1", "prompt": "atlas billing ledger", "cwd": str(tmp_path)})):
        proc = hook(name, vault, payload)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (name, proc.stderr)


# ----------------------------------------------------------------------------- low: MCP and a lone surrogate

@pytest.mark.slow
def test_a_request_holding_a_lone_surrogate_is_answered_and_the_server_goes_on(vault):
    lone = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"atlas \\ud800"}}}'
    low = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"save","arguments":{"text":"x \\udfff y"}}}'
    refused, refused_too, later = mcp(vault, lone, low, search_call(3))
    for answer, i in ((refused, 1), (refused_too, 2)):
        assert answer is not None and answer["id"] == i
        assert answer["error"]["code"] == -32602 and "Unicode" in answer["error"]["message"]
    assert later is not None and "atlas-billing" in json.dumps(later)
    assert not list((vault / "memory").rglob("*x*y*.md"))  # nothing was saved


# ----------------------------------------------------------------------------- low: a read-only vault

def read_only(vault: Path, *command: str, stdin: str = "") -> subprocess.CompletedProcess:
    """``command`` run with the vault mounted read-only (a private mount namespace; as root, modes do not stop a
    write)."""
    import shlex

    script = f"mount --bind -o ro {shlex.quote(str(vault))} {shlex.quote(str(vault))} && exec " + shlex.join(command)
    return subprocess.run(["unshare", "-rm", "sh", "-c", script], input=stdin, capture_output=True, text=True,
                          timeout=SECONDS * 4)


def can_mount_read_only(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    try:
        proc = read_only(probe, "sh", "-c", f"touch {probe}/x")
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode != 0 and "Read-only" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("indexed", [False, True], ids=["never indexed", "indexed before"])
def test_a_read_only_vault_is_searched_and_gets_its_card_writing_nothing_in_it(vault, tmp_path, indexed):
    if not shutil.which("unshare") or not can_mount_read_only(tmp_path):
        pytest.skip("no read-only bind mount here (unshare -rm)")
    if indexed:
        build(vault)
    before = sorted(str(p.relative_to(vault)) for p in vault.rglob("*"))
    found = read_only(vault, sys.executable, "-m", "mdmem", "search", "atlas", "--json", "--vault", str(vault))
    assert found.returncode == 0, found.stderr
    assert "memory/projects/atlas-billing.md" in [h["path"] for h in json.loads(found.stdout)["results"]]
    card = read_only(vault, sys.executable, "-m", "mdmem", "hook", "session-start", "--vault", str(vault),
                     stdin=json.dumps({"session_id": "s1", "source": "startup", "cwd": str(tmp_path)}))
    assert card.returncode == 0 and card.stdout.startswith("# Memory ("), card.stderr
    assert "Memory protocol" in card.stdout
    assert sorted(str(p.relative_to(vault)) for p in vault.rglob("*")) == before


@pytest.mark.slow
def test_a_crafted_obsidian_setting_is_a_line_not_a_traceback(vault):
    """The other settings mdmem reads in a vault: ``.obsidian/*.json`` nested too deeply for the parser."""
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "app.json").write_text(nested_json())
    proc = run_process("search", "atlas", "--json", "--vault", vault)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert json.loads(proc.stdout)["results"]

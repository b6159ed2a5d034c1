"""Robustness contract: bad input, stat-based refresh, rebuildable `.mdmem/`,
``kill -9`` recovery, concurrent processes and clear errors.

Every test works on real files in ``tmp_path`` and drives the real CLI, in
process through Typer's ``CliRunner`` (the ``cli`` fixture of conftest.py) or as
a separate ``python -m mdmem`` process when a separate process is the point
(hangs, ``kill -9``, locks, concurrency). Nothing of mdmem's is mocked.

The bugs these tests found (a FIFO named ``*.md``, YAML alias bombs, non-UTF-8
file names, damaged ``notes.db`` pages, a vanished index segment, ``.mdmem``
being a file, build workers outliving a killed ``mdmem index``, readers losing
results during ``--rebuild``, impossible dates) are fixed; the tests stay.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from support import ROOT

MDMEM = [sys.executable, "-m", "mdmem"]
NEEDLE = "memory/needle.md"
NEEDLE_WORD = "zqxneedleword"


# ---------------------------------------------------------------- helpers


def base_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment for a child mdmem: no inherited vault or lock settings; the test's own MDMEM_HOME (its
    key seals the index: a child with another home is another user, whose index is rebuilt, not trusted)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")}
    env["MDMEM_HOME"] = os.environ.get("MDMEM_HOME") or str(tmp_path / "mdmem-home")
    env.update(extra)
    return env


def run(tmp_path: Path, *args, timeout: float = 60, **env: str) -> subprocess.CompletedProcess:
    """``python -m mdmem ARGS`` as a separate process, from ``tmp_path``."""
    return subprocess.run(
        [*MDMEM, *map(str, args)], capture_output=True, text=True, cwd=tmp_path,
        env=base_env(tmp_path, **env), timeout=timeout,
    )


def spawn(tmp_path: Path, *args, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*MDMEM, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=tmp_path, env=base_env(tmp_path, **env),
    )


def as_json(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    return json.loads(proc.stdout)


def counts(result: dict) -> dict:
    return {k: result[k] for k in ("notes", "added", "changed", "removed")}


def paths(result: dict) -> list[str]:
    return [hit["path"] for hit in result["results"]]


def write_vault(root: Path, files: dict[str, str | bytes]) -> Path:
    """A vault (``MEMORY.md`` + ``memory/``) holding ``files`` (vault path -> content)."""
    (root / "memory").mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text("# Memory\n")
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def small_vault(root: Path, n: int = 40) -> Path:
    return write_vault(root, {
        f"memory/n{i:03d}.md": f"---\ntags: [t{i}]\n---\n# Note {i}\nword{i} common text [[n{i + 1:03d}]]\n"
        for i in range(n)
    })


def rewrite(path: Path, content: str) -> None:
    """Change a note and make sure its mtime moves forward (a stat-visible edit)."""
    before = path.stat().st_mtime_ns if path.exists() else time.time_ns()
    path.write_text(content)
    later = max(before, path.stat().st_mtime_ns) + 1_000_000_000
    os.utime(path, ns=(later, later))


def note_files(root: Path) -> int:
    """How many notes (.md, no hidden path segment) the vault holds, symlinks included."""
    total = 0
    for _folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        total += sum(1 for f in files if f.lower().endswith(".md") and not f.startswith("."))
    return total


def cli_app():
    from mdmem.cli.app import app

    return app


def children(pid: int) -> list[int]:
    """Live (non-zombie) child processes of ``pid``, read from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                state, ppid = f.read().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue
        if int(ppid) == pid and state != "Z":
            out.append(int(entry))
    return out


def wait_until(cond: Callable[[], object], timeout: float, step: float = 0.01):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(step)
    return None


def kill9(proc: subprocess.Popen, orphans: list[int]) -> None:
    """SIGKILL the mdmem process only (as ``kill -9 PID`` would); its children
    at that moment go to ``orphans``, for the test to clean up after it."""
    orphans.extend(children(proc.pid))
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)
    for pipe in (proc.stdout, proc.stderr):  # orphans may hold their other end open
        if pipe:
            pipe.close()


def reap(pids: list[int]) -> None:
    """End processes this test started (orphans of a killed mdmem), by pid."""
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"mdmem" not in f.read():
                    continue  # gone, and the pid reused
            os.kill(pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def toc_files(index_dir: Path) -> set[str]:
    try:
        return {p.name for p in index_dir.iterdir() if p.name.endswith(".toc")}
    except OSError:
        return set()


# ---------------------------------------------------------------- a generated vault of 600 notes


def _gen_module():
    script = ROOT / "scripts" / "gen_vault.py"
    if not script.is_file():
        return None
    spec = importlib.util.spec_from_file_location("mdmem_gen_vault", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """600 generated notes plus ``memory/needle.md`` (the only note holding
    NEEDLE_WORD), already indexed. Tests take a copy (``copy_of``)."""
    root = tmp_path_factory.mktemp("generated") / "vault"
    gen = _gen_module()
    if gen is not None:
        gen.generate(root, notes=600, seed=7, size=400)
    else:  # the script is gone: simple notes of our own
        write_vault(root, {
            f"memory/g{i // 200}/n{i:04d}.md": f"# N{i}\nalpha{i % 97} beta{i % 89} gamma {i}\n" * 6
            for i in range(600)
        })
    (root / NEEDLE).write_text(f"---\ntype: reference\n---\n# Needle\nThe {NEEDLE_WORD} lives here only.\n")
    built = as_json(run(root.parent, "index", "--vault", root, "--json"))
    assert built["notes"] == note_files(root)
    return root


def copy_of(source: Path, dest: Path, state: bool = True) -> Path:
    """A copy keeping mtimes. Its ctimes are new, and the change fingerprint holds them (files.scan), so a copied
    `.mdmem/` reads every note again once: the copy may hold other text under the same mtimes and sizes."""
    shutil.copytree(source, dest, symlinks=True, ignore=None if state else shutil.ignore_patterns(".mdmem"))
    return dest


# ================================================================ bad input is a finding, never a crash

BIG_BYTES = 50 * 1024 * 1024


def bad_input_vault(root: Path) -> Path:
    line = b"alpha beta gamma delta epsilon zeta eta theta iota kappa\n"
    big = b"# Big\nbigstartword opens the big note\n" + line * (BIG_BYTES // len(line))
    write_vault(root, {
        "memory/normal.md": "---\ntype: decision\ntags: [ok]\n---\n# Normal\nThe zebrafish decision.\n",
        "memory/badyaml.md": "---\ntitle: [unclosed\n---\nBody text with quokkaword in it.\n",
        "memory/listfm.md": "---\n- one\n- two\n---\nlist frontmatter body\n",
        "memory/scalarfm.md": "---\njust a string\n---\nscalar frontmatter body\n",
        "memory/bom.md": b"\xef\xbb\xbf---\ntype: reference\n---\n# BOM\nbomword here\n",
        "memory/latin1.md": b"caf\xe9 latinword\n",
        "memory/empty.md": b"",
        "memory/big.md": big,
    })
    os.symlink("x.md", root / "memory" / "x.md")  # a symlink to itself
    os.symlink("missing.md", root / "memory" / "y.md")  # dangling
    os.symlink("..", root / "memory" / "up")  # a folder symlink to its parent (the vault root)
    os.symlink(".", root / "memory" / "self")  # a folder symlink to itself
    return root


EXPECTED_PROBLEMS = {
    "MEMORY.md": [],
    "memory/normal.md": [],
    "memory/badyaml.md": ["invalid_yaml"],
    "memory/listfm.md": ["frontmatter_not_mapping"],
    "memory/scalarfm.md": ["frontmatter_not_mapping"],
    "memory/bom.md": ["bom"],
    "memory/latin1.md": ["not_utf8"],
    "memory/empty.md": ["empty"],
    "memory/big.md": ["too_large"],
    "memory/x.md": ["symlink_loop"],
    "memory/y.md": ["unreadable"],
}


@pytest.mark.slow
def test_bad_input_is_a_problem_on_the_note_never_a_crash(cli, tmp_path):
    vault = bad_input_vault(tmp_path / "v")
    # a separate process: a scan that loops on the folder symlinks would hang here, not the suite; its 60 s
    # timeout is the only time bound (a duration assert failed on a loaded machine)
    built = as_json(run(tmp_path, "index", "--vault", vault, "--json", timeout=60))
    n = len(EXPECTED_PROBLEMS)
    assert counts(built) == {"notes": n, "added": n, "changed": 0, "removed": 0}
    assert built["rebuilt"] is True

    for rel, codes in EXPECTED_PROBLEMS.items():
        view = cli.json("show", rel, "--vault", vault)
        assert view["path"] == rel
        assert [p["code"] for p in view["problems"]] == codes, (rel, view["problems"])
    # the notes still load: frontmatter after a BOM is read, bad frontmatter is dropped
    assert cli.json("show", "memory/bom.md", "--vault", vault)["type"] == "reference"
    assert cli.json("show", "memory/badyaml.md", "--vault", vault)["frontmatter"] == {}
    big = cli.json("show", "memory/big.md", "--vault", vault)
    assert big["tokens"] == os.path.getsize(vault / "memory/big.md") * 5 // 16

    # search still works, bodies of the bad notes included
    def found(query: str) -> list[str]:
        return paths(cli.json("search", query, "--vault", vault, "--no-recency"))

    assert found("zebrafish") == ["memory/normal.md"]
    assert found("quokkaword") == ["memory/badyaml.md"]
    assert found("latinword") == ["memory/latin1.md"]
    assert found("bomword") == ["memory/bom.md"]
    assert found("bigstartword") == ["memory/big.md"]
    # and nothing changed behind our back: the next run has nothing to do
    assert counts(cli.json("index", "--vault", vault)) == {"notes": n, "added": 0, "changed": 0, "removed": 0}


def test_a_dangling_symlink_that_gets_its_target_is_picked_up(cli, tmp_path):
    vault = write_vault(tmp_path / "v", {"memory/a.md": "alpha\n"})
    os.symlink("missing.md", vault / "memory" / "y.md")
    assert counts(cli.json("index", "--vault", vault)) == {"notes": 3, "added": 3, "changed": 0, "removed": 0}
    (vault / "memory" / "missing.md").write_text("# Found\nfoundword\n")
    assert counts(cli.json("index", "--vault", vault)) == {"notes": 4, "added": 1, "changed": 1, "removed": 0}
    assert cli.json("show", "memory/y.md", "--vault", vault)["problems"] == []
    assert sorted(paths(cli.json("search", "foundword", "--vault", vault))) == ["memory/missing.md", "memory/y.md"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_file_is_a_problem(cli, tmp_path):
    vault = write_vault(tmp_path / "v", {"memory/a.md": "alpha\n", "memory/secret.md": "hidden\n"})
    secret = vault / "memory" / "secret.md"
    secret.chmod(0)
    try:
        assert cli.json("index", "--vault", vault)["notes"] == 3
        assert [p["code"] for p in cli.json("show", "memory/secret.md", "--vault", vault)["problems"]] == [
            "unreadable"
        ]
        assert paths(cli.json("search", "alpha", "--vault", vault)) == ["memory/a.md"]
    finally:
        secret.chmod(0o644)


def test_a_fifo_named_like_a_note_does_not_hang(tmp_path):
    vault = write_vault(tmp_path / "v", {"memory/a.md": "alpha\n"})
    os.mkfifo(vault / "memory" / "pipe.md")
    try:
        built = run(tmp_path, "index", "--vault", vault, "--json", timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("mdmem index hung on a FIFO named pipe.md")
    assert as_json(built)["notes"] == 2  # a FIFO is never a note
    shown = run(tmp_path, "show", "memory/pipe.md", "--vault", vault, "--json", timeout=30)
    assert shown.returncode == 1 and shown.stderr.startswith("mdmem: no note matches 'memory/pipe.md'")


YAML_BOMB = "---\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi")
) + "---\nbombbody text\n"


@pytest.mark.slow
def test_a_yaml_alias_bomb_is_a_problem_not_a_hang(tmp_path):
    vault = write_vault(tmp_path / "v", {"memory/a.md": "alpha\n", "memory/bomb.md": YAML_BOMB})
    assert len(YAML_BOMB) < 1024
    try:
        built = run(tmp_path, "index", "--vault", vault, "--json", timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("mdmem index hung on a YAML alias bomb")
    assert as_json(built)["notes"] == 3
    view = as_json(run(tmp_path, "show", "memory/bomb.md", "--vault", vault, "--json", timeout=30))
    assert [p["code"] for p in view["problems"]] == ["invalid_yaml"]


def test_a_recursive_yaml_alias_keeps_the_body(cli, tmp_path):
    vault = write_vault(tmp_path / "v", {"memory/rec.md": "---\na: &a [*a]\n---\nrecursivebody here\n"})
    assert cli.json("index", "--vault", vault)["notes"] == 2
    view = cli.json("show", "memory/rec.md", "--vault", vault)
    assert [p["code"] for p in view["problems"]] == ["invalid_yaml"]
    assert paths(cli.json("search", "recursivebody", "--vault", vault)) == ["memory/rec.md"]


def test_a_non_utf8_file_name_does_not_break_the_vault(cli, tmp_path):
    vault = write_vault(tmp_path / "v", {"memory/a.md": "alpha\n"})
    with open(os.path.join(os.fsencode(vault / "memory"), b"caf\xe9.md"), "wb") as f:
        f.write(b"latin name\n")
    built = cli.runner.invoke(cli_app(), ["index", "--vault", str(vault), "--json"])
    assert built.exit_code == 0, repr(built.exception)
    assert paths(cli.json("search", "alpha", "--vault", vault)) == ["memory/a.md"]


# ================================================================ refresh by stat: edits, deletions, renames


@pytest.mark.slow
def test_edits_deletions_and_renames_are_noticed(cli, tmp_path):
    vault = small_vault(tmp_path / "v", 40)
    n = 41
    assert counts(cli.json("index", "--vault", vault)) == {"notes": n, "added": n, "changed": 0, "removed": 0}

    def found(query: str) -> list[str]:
        return paths(cli.json("search", query, "--vault", vault, "--no-recency"))

    # an edit is seen by the next search (which refreshes first) ...
    rewrite(vault / "memory/n005.md", "# Note 5\nplatypus arrived\n")
    assert found("platypus") == ["memory/n005.md"]
    assert found("word5") == []
    # ... and counted by the next index run, which re-parses only that note
    rewrite(vault / "memory/n007.md", "# Note 7\nwombat arrived\n")
    result = cli.json("index", "--vault", vault)
    assert counts(result) == {"notes": n, "added": 0, "changed": 1, "removed": 0}
    assert result["rebuilt"] is False
    assert found("wombat") == ["memory/n007.md"]
    assert cli.json("show", "memory/n007.md", "--vault", vault)["tags"] == []  # the cache too

    # a deletion
    (vault / "memory/n010.md").unlink()
    assert counts(cli.json("index", "--vault", vault)) == {"notes": n - 1, "added": 0, "changed": 0, "removed": 1}
    assert found("word10") == []

    # a rename (mtime kept): one removed, one added, search returns the new path
    os.rename(vault / "memory/n020.md", vault / "memory/renamed.md")
    assert counts(cli.json("index", "--vault", vault)) == {"notes": n - 1, "added": 1, "changed": 0, "removed": 1}
    assert found("word20") == ["memory/renamed.md"]

    # a folder rename moves every note in it
    (vault / "memory/sub").mkdir()
    for i in (30, 31, 32):
        os.rename(vault / f"memory/n{i:03d}.md", vault / f"memory/sub/n{i:03d}.md")
    assert counts(cli.json("index", "--vault", vault)) == {"notes": n - 1, "added": 3, "changed": 0, "removed": 3}
    os.rename(vault / "memory/sub", vault / "memory/moved")
    assert counts(cli.json("index", "--vault", vault)) == {"notes": n - 1, "added": 3, "changed": 0, "removed": 3}
    assert found("word31") == ["memory/moved/n031.md"]
    assert counts(cli.json("index", "--vault", vault)) == {"notes": n - 1, "added": 0, "changed": 0, "removed": 0}


# ================================================================ `.mdmem/` is derived: delete it, break it


QUERY = "common word3 word17 text"


def ranked(cli, vault: Path) -> list[tuple]:
    """QUERY's hits (no recency, so they are exact) as (path, title, score, snippet), by path:
    most hits tie, and Whoosh may order ties differently after a rebuild."""
    result = cli.json("search", QUERY, "--vault", vault, "--no-recency", "-n", "500")
    assert paths(result)[:2] == ["memory/n003.md", "memory/n017.md"]  # the two best, in order
    return sorted((h["path"], h["title"], h["score"], h["snippet"]) for h in result["results"])


@pytest.fixture
def indexed(cli, tmp_path):
    """A small indexed vault and QUERY's results on it."""
    vault = small_vault(tmp_path / "v", 120)
    cli.json("index", "--vault", vault)
    baseline = ranked(cli, vault)
    assert len(baseline) == 120
    return vault, baseline


def assert_recovered(cli, vault: Path, baseline: list[tuple]) -> None:
    assert ranked(cli, vault) == baseline
    assert counts(cli.json("index", "--vault", vault)) == {"notes": 121, "added": 0, "changed": 0, "removed": 0}
    assert cli.json("show", "n042", "--vault", vault)["tags"] == ["t42"]


@pytest.mark.slow
def test_deleting_mdmem_loses_nothing(cli, indexed):
    vault, baseline = indexed
    shutil.rmtree(vault / ".mdmem")
    assert_recovered(cli, vault, baseline)


@pytest.mark.slow
def test_garbage_notes_db_is_rebuilt(cli, indexed, tmp_path):
    vault, baseline = indexed
    (vault / ".mdmem" / "notes.db").write_bytes(b"this is not a database\n" * 1000)
    # a separate process, to check the exit code and that stderr stays clean
    result = run(tmp_path, "search", QUERY, "--vault", vault, "--no-recency", "--json")
    assert len(as_json(result)["results"]) == 10 and result.stderr == ""
    assert_recovered(cli, vault, baseline)


@pytest.mark.slow
def test_damaged_pages_in_notes_db_are_rebuilt(cli, indexed, tmp_path):
    vault, baseline = indexed
    db = vault / ".mdmem" / "notes.db"
    assert db.stat().st_size > 10 * 4096
    with open(db, "r+b") as f:  # keep the header and schema pages, wreck the notes table
        f.seek(5 * 4096)
        f.write(b"\xff" * (db.stat().st_size - 5 * 4096))
    result = run(tmp_path, "search", QUERY, "--vault", vault, "--no-recency", "--json")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-500:]
    assert len(json.loads(result.stdout)["results"]) == 10
    assert_recovered(cli, vault, baseline)


def test_deleting_the_search_index_folder_is_recovered(cli, indexed):
    vault, baseline = indexed
    shutil.rmtree(vault / ".mdmem" / "index")
    assert_recovered(cli, vault, baseline)


@pytest.mark.slow
def test_garbage_index_toc_is_recovered(cli, indexed):
    vault, baseline = indexed
    tocs = toc_files(vault / ".mdmem" / "index")
    assert tocs
    for name in tocs:
        (vault / ".mdmem" / "index" / name).write_bytes(b"\x00garbage" * 40)
    assert_recovered(cli, vault, baseline)


@pytest.mark.slow
def test_a_missing_index_segment_is_recovered(cli, indexed, tmp_path):
    vault, baseline = indexed
    segments = list((vault / ".mdmem" / "index").glob("*.seg"))
    assert segments
    for seg in segments:
        seg.unlink()
    result = run(tmp_path, "search", QUERY, "--vault", vault, "--no-recency", "--json")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-500:]
    assert len(json.loads(result.stdout)["results"]) == 10
    assert_recovered(cli, vault, baseline)


def test_mdmem_being_a_file_is_a_clear_error(tmp_path):
    vault = small_vault(tmp_path / "v", 3)
    (vault / ".mdmem").write_text("not a folder\n")
    result = run(tmp_path, "search", "word1", "--vault", vault)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("mdmem: ") and result.stderr.count("\n") == 1, result.stderr[-500:]


# ================================================================ kill -9 at any moment


def assert_whole(tmp_path: Path, vault: Path, word: str) -> None:
    """Right after a kill: a search answers (exit 0) and is right; then the state is complete."""
    found = as_json(run(tmp_path, "search", word, "--vault", vault, "--json"))
    assert paths(found) == [NEEDLE]
    again = as_json(run(tmp_path, "index", "--vault", vault, "--json"))
    assert counts(again) == {"notes": note_files(vault), "added": 0, "changed": 0, "removed": 0}


@pytest.mark.slow
def test_kill9_at_several_moments_is_recovered(generated, tmp_path):
    """Kills during start-up of a first build, while a rebuild's worker processes
    run, and in the index commit of an update that re-parses every note."""
    vault = copy_of(generated, tmp_path / "v", state=False)
    orphans: list[int] = []
    try:
        # 1. 0.3 s into a first build (start-up, opening the state)
        proc = spawn(tmp_path, "index", "--vault", vault)
        time.sleep(0.3)
        kill9(proc, orphans)
        assert proc.returncode == -signal.SIGKILL
        assert_whole(tmp_path, vault, NEEDLE_WORD)

        # 2. as soon as a rebuild has its worker processes up (reading, parsing, indexing)
        proc = spawn(tmp_path, "index", "--rebuild", "--vault", vault)
        assert wait_until(lambda: children(proc.pid) or proc.poll() is not None, 60, step=0.005)
        kill9(proc, orphans)
        assert proc.returncode == -signal.SIGKILL
        assert_whole(tmp_path, vault, NEEDLE_WORD)

        # 3. during an update that re-parses every note: after the pool, in the index commit
        later = time.time_ns() + 5_000_000_000
        for folder, dirs, files in os.walk(vault):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in files:
                if name.endswith(".md"):
                    os.utime(os.path.join(folder, name), ns=(later, later))
        rewrite(vault / NEEDLE, "# Needle\nNow zqxupdatedword instead.\n")
        proc = spawn(tmp_path, "index", "--vault", vault)
        wait_until(lambda: children(proc.pid) or proc.poll() is not None, 30)
        wait_until(lambda: not children(proc.pid) or proc.poll() is not None, 30)
        time.sleep(0.1)
        kill9(proc, orphans)
        assert_whole(tmp_path, vault, "zqxupdatedword")
        assert paths(as_json(run(tmp_path, "search", NEEDLE_WORD, "--vault", vault, "--json"))) == []
    finally:
        reap(orphans)


@pytest.mark.slow
def test_kill9_during_a_parallel_build_frees_the_write_lock(tmp_path):
    from mdmem.base.errors import LockTimeout
    from mdmem.base.state import write_lock

    vault = tmp_path / "v"
    gen = _gen_module()
    if gen is None:
        pytest.skip("scripts/gen_vault.py is gone")
    gen.generate(vault, notes=2000, seed=11, size=400)  # shares of 1000 notes: seconds of work
    orphans: list[int] = []
    try:
        proc = spawn(tmp_path, "index", "--vault", vault)
        index_dir = vault / ".mdmem" / "index.new"  # a build writes beside the live index

        def writing() -> bool:  # workers are up and have begun writing their segments
            return bool(children(proc.pid)) and any(index_dir.glob("*"))

        wait_until(lambda: writing() or proc.poll() is not None, 60, step=0.005)
        if proc.poll() is not None:
            pytest.skip("the build finished before its workers could be seen")
        kill9(proc, orphans)
        assert orphans
        # the kernel frees a dead writer's lock: nobody else is writing, so it is free at once
        try:
            with write_lock(vault / ".mdmem", 0.5):
                pass
        except LockTimeout:
            pytest.fail("the write lock is still held 0.5 s after its writer was killed")
    finally:
        reap(orphans)


# ================================================================ several processes at once


@pytest.mark.slow
def test_concurrent_indexers_while_notes_change(cli, tmp_path):
    vault = small_vault(tmp_path / "v", 150)
    cli.json("index", "--vault", vault)
    procs = [spawn(tmp_path, "index", "--vault", vault) for _ in range(4)]
    edited: dict[str, str] = {}
    try:
        for k in range(30):
            rel = f"memory/n{k * 5:03d}.md"
            edited[rel] = f"fresh{k}zq"
            rewrite(vault / rel, f"---\nrev: {k}\n---\n# Edited {k}\n{edited[rel]} common\n")
            if k % 6 == 0:  # some additions, deletions and renames among the edits
                j = k // 6
                (vault / f"memory/new{j}.md").write_text(f"# New {j}\nnewnote{j}zq\n")
                (vault / f"memory/n{k * 5 + 1:03d}.md").unlink()
                os.rename(vault / f"memory/n{k * 5 + 2:03d}.md", vault / f"memory/moved{j}.md")
            time.sleep(0.04)
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            assert "Traceback" not in err
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()

    expected = 1 + 150 + 5 - 5  # MEMORY.md, the notes, 5 added, 5 deleted (renames keep the count)
    assert note_files(vault) == expected
    final = as_json(run(tmp_path, "index", "--vault", vault, "--json"))
    assert final["notes"] == expected
    assert counts(cli.json("index", "--vault", vault)) == {"notes": expected, "added": 0, "changed": 0, "removed": 0}

    def found(query: str) -> set[str]:
        return set(paths(cli.json("search", query, "--vault", vault, "--no-recency", "-n", "200")))

    # every update made it: each edited note by its new word, in the index and in the notes cache
    assert found(" ".join(edited.values())) == set(edited)
    assert found(" ".join(f"word{k * 5}" for k in range(30))) == set()  # the old text is gone
    assert found(" ".join(f"newnote{j}zq" for j in range(5))) == {f"memory/new{j}.md" for j in range(5)}
    assert found(" ".join(f"word{k * 5 + 1}" for k in range(0, 30, 6))) == set()
    assert found(" ".join(f"word{k * 5 + 2}" for k in range(0, 30, 6))) == {f"memory/moved{j}.md" for j in range(5)}
    for k in (0, 7, 29):
        assert cli.json("show", f"memory/n{k * 5:03d}.md", "--vault", vault)["frontmatter"] == {"rev": k}


@pytest.mark.slow
def test_a_held_write_lock_fails_writers_clearly_and_readers_still_answer(tmp_path):
    from mdmem.base.state import write_lock

    vault = small_vault(tmp_path / "v", 20)
    as_json(run(tmp_path, "index", "--vault", vault, "--json"))
    state = vault / ".mdmem"
    with write_lock(state, 5):
        # nothing changed on disk: a reader does not even look at the lock
        quiet = run(tmp_path, "search", "word3", "--vault", vault, "--json", MDMEM_LOCK_TIMEOUT="0.5")
        assert paths(as_json(quiet)) == ["memory/n003.md"] and quiet.stderr == ""

        rewrite(vault / "memory/n004.md", "# Note 4\nlockedword now\n")
        t0 = time.monotonic()
        writer = run(tmp_path, "index", "--vault", vault, MDMEM_LOCK_TIMEOUT="0.5")
        assert writer.returncode == 1
        assert time.monotonic() - t0 < 60  # generous: without the lock timeout it would wait for the holder
        assert writer.stdout == ""
        assert writer.stderr.startswith("mdmem: ") and writer.stderr.count("\n") == 1, writer.stderr
        assert "lock" in writer.stderr and "Traceback" not in writer.stderr

        # a reader answers from the index as it is, and says so on stderr
        reader = run(tmp_path, "search", "word4 lockedword", "--vault", vault, "--json", MDMEM_LOCK_TIMEOUT="0.5")
        assert paths(as_json(reader)) == ["memory/n004.md"]  # found by its old word only
        assert reader.stderr.startswith("mdmem: ") and reader.stderr.count("\n") == 1, reader.stderr
        assert "Traceback" not in reader.stderr

    # the lock is free again: the next command catches up
    after = as_json(run(tmp_path, "index", "--vault", vault, "--json"))
    assert counts(after) == {"notes": 21, "added": 0, "changed": 1, "removed": 0}
    assert paths(as_json(run(tmp_path, "search", "lockedword", "--vault", vault, "--json"))) == ["memory/n004.md"]


@pytest.mark.slow
def test_readers_keep_their_results_during_a_rebuild(cli, generated, tmp_path):
    vault = copy_of(generated, tmp_path / "v", state=False)
    cli("index", "--vault", vault)  # a whole build, as the rebuild below makes: the same scores
    env = {"MDMEM_LOCK_TIMEOUT": "0.05"}  # a reader gives up on the lock at once

    def search() -> dict:
        return cli.json("search", NEEDLE_WORD, "--vault", vault, "--no-recency", env=env)

    before = search()
    assert paths(before) == [NEEDLE]
    proc = spawn(tmp_path, "index", "--rebuild", "--vault", vault)
    during = []
    try:
        while proc.poll() is None:
            result = search()
            if proc.poll() is None:  # the whole search ran while the rebuild did
                during.append(result)
    finally:
        proc.communicate(timeout=120)
    assert proc.returncode == 0
    if not during:
        pytest.skip("the rebuild finished before a search could run beside it")
    assert during == [before] * len(during)
    assert search() == before


# ================================================================ usage errors


def test_a_missing_vault_is_one_line_and_exit_2(tmp_path):
    result = run(tmp_path, "search", "x", "--vault", "/nonexistent")
    assert result.returncode == 2  # a --vault that cannot be used: usage, as a folder that is no vault
    assert result.stdout == ""
    assert result.stderr.startswith("mdmem: ") and result.stderr.count("\n") == 1, result.stderr
    assert "/nonexistent" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("option", ["--after", "--before"])
@pytest.mark.parametrize("value", ["yesterday", "2026-1-5", "26-01-01", "2026-01-01T00:00", ""])
def test_a_garbage_date_is_a_usage_error(cli, tmp_path, option, value):
    vault = small_vault(tmp_path / "v", 2)
    result = cli("search", "word1", "--vault", vault, option, value, code=2)
    assert option in result.stderr


@pytest.mark.parametrize("value", ["2026-13", "2026-13-01", "2026-02-30", "2026-00-10"])
def test_an_impossible_date_is_a_usage_error(cli, tmp_path, value):
    vault = small_vault(tmp_path / "v", 2)
    cli("search", "word1", "--vault", vault, "--after", value, code=2)


def test_output_into_a_pipe_is_never_wrapped(tmp_path: Path):
    """Into a pipe (an agent's shell tool, `| grep`), a path is one unbroken line: rich's default of 80 columns
    cut `…-for-the-orders-servic` / `e.md` (a new user's trial)."""
    vault = tmp_path / "v"
    name = "decision-we-chose-postgresql-over-mongodb-for-the-orders-service-because-of-the-ledger"
    (vault / "memory" / "decisions").mkdir(parents=True)
    (vault / "MEMORY.md").write_text("# Memory\n")
    (vault / "memory" / "decisions" / f"{name}.md").write_text(
        "---\ntype: decision\n---\nWe chose PostgreSQL over MongoDB for the orders service: the ledger needs it.\n")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")} | {"HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "mdmem", "search", "ledger", "--vault", str(vault)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"memory/decisions/{name}.md" in proc.stdout.splitlines()[0]

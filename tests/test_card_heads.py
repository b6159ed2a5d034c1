"""The card is made from the notes' heads (the notes cache's ``heads`` table, no links or headings loaded): after
edits, additions and removals kept up to date one note at a time, it is the card a fresh rebuild makes, on a vault
with projects, feedback, decisions and an agent's unconfirmed notes; and each head is its note less the parts the
heads leave out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mdmem.base.layout import is_index_note, is_sensitive
from mdmem.base.projects import note_project
from mdmem.engine.memory import Memory


def _start(vault: Path, cwd: Path, home: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {
        "MDMEM_HOME": str(home / "mdmem"), "HOME": str(home), "MDMEM_TODAY": "2026-11-30"}
    payload = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(cwd)}
    proc = subprocess.run([sys.executable, "-m", "mdmem", "hook", "session-start", "--vault", str(vault)],
                          input=json.dumps(payload), capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("# Memory ("), proc.stderr
    for kept in (vault / ".mdmem" / "hooks").glob("context-card*.json"):  # the next run makes it again
        kept.unlink()
    return proc.stdout


def _note(vault: Path, rel: str, front: str, body: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front.strip()}\n---\n{body}\n", "utf-8")


def test_the_card_from_heads_kept_up_to_date_is_the_card_of_a_fresh_rebuild(vault: Path, tmp_path: Path):
    repo = tmp_path / "code" / "atlas"
    (repo / ".git").mkdir(parents=True)
    _note(vault, "memory/projects/atlas.md", "type: project\nstatus: active\ndescription: The atlas billing service",
          "# atlas")
    _note(vault, "memory/decisions/atlas-queue.md",
          'type: decision\nproject: "[[atlas]]"\ncreated: 2026-11-29\ndescription: SQS over Redis for the atlas queue',
          "We chose SQS.")
    _note(vault, "memory/feedback/atlas-tests.md",
          'type: feedback\nproject: "[[atlas]]"\ndescription: Run the atlas tests before any push', "Always.")
    _note(vault, "memory/decisions/borealis-site.md",
          'type: decision\nproject: "[[borealis]]"\ncreated: 2026-11-28\ndescription: Astro for the borealis site',
          "Static pages.")
    _note(vault, "memory/feedback/agent-rule.md",
          "type: feedback\nsource: agent\ndescription: Squash commits before merging", "Proposed by an agent.")
    _note(vault, "memory/protocols/py-style.md", "type: protocol\npaths: ['**/*.py']\ndescription: Python style",
          "Use ruff.")
    home = tmp_path / "home"
    first = _start(vault, repo, home)  # the cache built, the card made
    assert "SQS over Redis" in first and "Astro" not in first and "Squash commits" in first
    # one note edited (its description and project), one added, one removed, one made sensitive: each kept up to
    # date in the cache one note at a time
    _note(vault, "memory/decisions/borealis-site.md",
          'type: decision\nproject: "[[atlas]]"\ncreated: 2026-11-28\ndescription: Astro for the atlas docs site',
          "Static pages.")
    _note(vault, "memory/feedback/atlas-review.md",
          'type: feedback\nproject: "[[atlas]]"\ndescription: Ask for a review on every atlas migration', "Always.")
    (vault / "memory/feedback/atlas-tests.md").unlink()
    _note(vault, "memory/decisions/atlas-queue.md",
          'type: decision\nproject: "[[atlas]]"\ncreated: 2026-11-29\nsensitive: true\n'
          "description: SQS over Redis for the atlas queue", "We chose SQS.")
    updated = _start(vault, repo, home)
    assert "Astro for the atlas docs site" in updated and "Ask for a review" in updated
    assert "Run the atlas tests" not in updated and "SQS over Redis" not in updated
    shutil.rmtree(vault / ".mdmem")  # everything derived thrown away: made again from the notes
    assert _start(vault, repo, home) == updated
    # made again with the notes as cached (the state folder made after the first walk moved the vault's own mtime:
    # that run records the walk's digest): from the notes cache alone, the search index (Whoosh) never imported
    assert _start(vault, repo, home) == updated
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDMEM_")} | {
        "MDMEM_HOME": str(home / "mdmem"), "HOME": str(home), "MDMEM_TODAY": "2026-11-30"}
    code = ("import json, sys; from mdmem.agents.hooks.session import session_start; "
            f"text = session_start({str(vault)!r}, {{'source': 'startup', 'cwd': {str(repo)!r}}}, {{}}); "
            "print(json.dumps([text, sorted(m for m in sys.modules if m.split('.')[0] == 'whoosh')]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=repo,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    text, whoosh = json.loads(proc.stdout)
    assert text.rstrip("\n") == updated.rstrip("\n") and whoosh == []
    with Memory(vault) as mem:
        heads, notes = list(mem.heads()), list(mem.notes())
    assert len(heads) > 60
    fields = ("path", "title", "type", "date", "frontmatter", "tags", "aliases", "mtime_ns", "size")
    assert [[getattr(h, f) for f in fields] for h in heads] == [[getattr(n, f) for f in fields] for n in notes]
    assert [h.flags for h in heads] == [("i" if is_index_note(n.path, n.frontmatter) else "")
                                        + ("s" if is_sensitive(n.frontmatter, n.tags) else "")
                                        + ("a" if n.frontmatter.get("source") == "agent" else "") for n in notes]
    assert [h.project for h in heads] == [note_project(n.frontmatter) for n in notes]
    assert {h.project for h in heads} >= {"atlas", None} and {"s", "a", "i"} <= set("".join(h.flags for h in heads))

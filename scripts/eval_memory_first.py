"""Memory first in a real mixed vault: a week of memory saved into a copy of a real Obsidian vault (the Obsidian
help vault's English docs, obsidianmd/obsidian-help, 173 notes: the vault issue 26 was measured in; it has no
licence file, so it is read from a local snapshot and never committed), then asked about it.

For each question about a saved memory, the memory note's rank in ``mdmem recall --json`` and the prompt hook's
answer (`mdmem hook prompt`, as Claude Code runs it): is the note the first entry, and is it called the user's
memory. For questions about Obsidian itself (the docs answer them), whether a help page is ever called the
user's memory. The memories are about the same things the docs are about (sync, templates, plugins, daily
notes), so the docs compete with them on their own words.

    python scripts/eval_memory_first.py --docs /path/to/obsidian-help/en [--semantic --mode hybrid]

Prints one line per question and the totals; exits 1 when a help page is called the user's memory.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# A week of memory for someone who keeps their notes in Obsidian: kind, text (saved with `mdmem save`)
WEEK = [
    ("decision", "We chose Obsidian Sync over iCloud for the work vault because iCloud duplicated files on the Windows laptop."),
    ("decision", "We keep attachments in a single Assets folder at the vault root, not next to each note."),
    ("feedback", "When I ask for a meeting note, use my template from Templates/Meeting.md with the date as YYYY-MM-DD."),
    ("feedback", "Do not install community plugins in the work vault without asking me first."),
    ("reference", "The team's shared vault is published with Obsidian Publish at notes.example.org; the password is in 1Password."),
    ("protocol", "Weekly review: every Friday, open the daily notes of the week, move open tasks to next week's note, archive done ones."),
    ("person", "Priya Raman runs the design team and owns the shared vault's folder structure."),
    ("decision", "Daily notes are named YYYY-MM-DD and live in Journal/, made by the core Daily notes plugin, not Periodic Notes."),
    ("feedback", "Links in my notes use wikilinks, never Markdown links, so renames update them."),
    ("reference", "Canvas boards for the roadmap are in Projects/Roadmap.canvas; the quarterly plan is a canvas, not a note."),
    ("decision", "We dropped the Dataview plugin for Bases because Dataview queries broke on mobile."),
    ("protocol", "Before a release of the handbook, run the link checker and fix every unresolved link."),
]

# (question, the saved text it is about): two wordings each, neither copying the note's title
ASKED = [
    ("which sync did we pick for the work vault and why?", 0),
    ("why aren't we using iCloud for the vault?", 0),
    ("where do attachments go in our vault?", 1),
    ("should images sit next to the note that uses them?", 1),
    ("write a meeting note for today's standup", 2),
    ("what template do I use for meetings?", 2),
    ("can you install the Excalidraw community plugin in the work vault?", 3),
    ("may I add a new community plugin?", 3),
    ("what's the address of our published team notes?", 4),
    ("where is the shared vault published?", 4),
    ("how do I do my weekly review?", 5),
    ("it's Friday, what do I do with this week's daily notes?", 5),
    ("who decides the folder structure of the shared vault?", 6),
    ("who is Priya?", 6),
    ("where do my daily notes live and how are they named?", 7),
    ("do we use Periodic Notes for the journal?", 7),
    ("should I use Markdown links or wikilinks in my notes?", 8),
    ("how should links be written in my vault?", 8),
    ("where is the roadmap canvas?", 9),
    ("is the quarterly plan a note or a canvas?", 9),
    ("why did we stop using Dataview?", 10),
    ("do we still use Dataview queries?", 10),
    ("what do I do before releasing the handbook?", 11),
    ("checklist before a handbook release", 11),
]

# Questions about Obsidian itself: the help pages answer them; never as the user's memory
DOCS = [
    "how do I create a canvas in Obsidian?",
    "how do I set up Obsidian Sync end-to-end encryption?",
    "what is the syntax for embedding a note?",
    "how do I change the default location for new attachments?",
    "how do I use the command palette?",
    "what does the graph view show?",
    "how do I publish a site with Obsidian Publish?",
    "how do I make a template with the date in it?",
]


def _mdmem(args: list[str], vault: Path, stdin: str | None = None, cwd: Path | None = None) -> str:
    proc = subprocess.run([sys.executable, "-m", "mdmem", *args, "--vault", str(vault)], input=stdin,
                          capture_output=True, text=True, timeout=300, cwd=cwd)
    if proc.returncode != 0:
        raise SystemExit(f"mdmem {' '.join(args[:2])}: {proc.stderr.strip()[:300]}")
    return proc.stdout


def _prompt(vault: Path, cwd: Path, text: str, n: int) -> str:
    payload = {"session_id": f"eval-{n}", "prompt": text, "cwd": str(cwd), "hook_event_name": "UserPromptSubmit"}
    out = _mdmem(["hook", "prompt"], vault, json.dumps(payload), cwd)
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""


def _entries(said: str) -> list[str]:
    return [line for line in said.splitlines() if line.startswith("- ")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, required=True, help="the Obsidian help vault's en/ folder")
    parser.add_argument("--mode", default="lexical", help="recall's --mode (lexical is the default of a new vault)")
    parser.add_argument("--semantic", action="store_true", help="build the vectors first (`mdmem index --semantic`)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mdmem-memfirst-"))
    try:
        vault = tmp / "help"
        shutil.copytree(args.docs, vault, ignore=shutil.ignore_patterns(".obsidian"))
        cwd = tmp / "elsewhere"
        cwd.mkdir()
        os.environ.pop("MDMEM_VAULT", None)
        notes = sum(1 for _ in vault.rglob("*.md"))
        subprocess.run([sys.executable, "-m", "mdmem", "init", str(vault)], check=True, capture_output=True, timeout=300)
        paths = []
        for kind, text in WEEK:
            saved = json.loads(_mdmem(["save", text, "--type", kind, "--json"], vault, cwd=cwd))
            paths.append(saved["path"])
        if args.semantic:
            _mdmem(["index", "--semantic"], vault)
        first = recall_top3 = hook_first = hook_as_memory = 0
        for n, (question, k) in enumerate(ASKED):
            got = json.loads(_mdmem(["recall", question, "--json", "--mode", args.mode], vault, cwd=cwd))
            ranked = [r["path"] for r in got["ranked"]]
            rank = ranked.index(paths[k]) + 1 if paths[k] in ranked else 0
            first += rank == 1
            recall_top3 += 0 < rank <= 3
            said = _prompt(vault, cwd, question, n)
            lines = _entries(said)
            top = bool(lines) and f"({paths[k]}" in lines[0]
            hook_first += top
            hook_as_memory += top and said.startswith("mdmem: notes from the user's memory")
            print(f"{'ok ' if rank == 1 else 'MISS'} recall rank {rank or '-':>2}  hook {'first' if top else '-----'}  "
                  f"{question}  ->  {ranked[0] if ranked else '(nothing)'}")
        wrong = docs_first = 0
        for n, question in enumerate(DOCS, start=len(ASKED)):
            got = json.loads(_mdmem(["recall", question, "--json", "--mode", args.mode], vault, cwd=cwd))
            ranked = [r["path"] for r in got["ranked"]]
            docs_first += bool(ranked) and not ranked[0].startswith("memory/")
            print(f"docs: recall {' '.join(p.split('/')[-1][:24] for p in ranked)}")
            said = _prompt(vault, cwd, question, n)
            for line in _entries(said):
                docs_page = "(memory/" not in line
                if docs_page and said.startswith("mdmem: notes from the user's memory") and "not the user's memory" not in line:
                    wrong += 1
            print(f"docs: {len(_entries(said))} entries, memory entries "
                  f"{sum('(memory/' in line for line in _entries(said))}  {question}")
        total = len(ASKED)
        print(f"\nvault: {notes} notes + {len(WEEK)} memories; recall --mode {args.mode}")
        print(f"recall puts the memory note first: {first}/{total}; in the top 3: {recall_top3}/{total}")
        print(f"prompt hook's first entry is the memory note: {hook_first}/{total} "
              f"(as the user's memory: {hook_as_memory}/{total})")
        print(f"questions about Obsidian itself answered by recall with a help page first: {docs_first}/{len(DOCS)}")
        print(f"help pages called the user's memory: {wrong}")
        return 1 if wrong else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())

"""``check``'s guessed duplicates and the user's judge (decision 127) on labelled real pairs.

    .venv/bin/python scripts/judge_check.py SET [SET...] [--json]

SET is ``fresh4`` (held back), ``fresh3``, ``fresh`` or ``tuning`` (eval/data/duplicates; sources and licences in
its README). For each set, a new vault (``mdmem init``) gets two memory notes per pair, ``a`` dated before ``b``
(as if ``a`` was saved, then ``b``), and ``mdmem check`` runs without a judge, then with a stand-in judge: a script
that answers each prompt from the recorded answers (``judge-answers.jsonl``, by the prompt's SHA-1: what helpers
standing in for the model answered, reading only the prompts) and fails on a prompt never answered (another pair's
notes put side by side: no recorded answer). The cap on calls is lifted for the measure (every guess asked in one
run); a second run counts the calls left. Precision is counted on the guesses that are a labelled pair with a
decided gold; a guess across two pairs has no label and is only counted.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "eval" / "data" / "duplicates"
SETS = {"fresh4": [("fresh4.jsonl", "fresh4-labels.jsonl")], "fresh3": [("fresh3.jsonl", "fresh3-labels.jsonl")],
        "fresh": [("fresh.jsonl", "fresh-labels.jsonl")], "tuning": [("candidates.jsonl", "labels.jsonl")]}

JUDGE = """\
import hashlib, json, sys
text = sys.stdin.read()
open(sys.argv[2], "a").write("call\\n")
key = hashlib.sha1(text.encode("utf-8")).hexdigest()
for line in open(sys.argv[1], encoding="utf-8"):
    row = json.loads(line)
    if row["prompt_sha1"] == key:
        print(row["answer"])
        sys.exit(0)
print("no recorded answer for this prompt", file=sys.stderr)
sys.exit(4)
"""


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def vault_of(pairs: list[dict], root: Path) -> dict[str, str]:
    """The pairs' notes in a new vault at ``root``: note path -> pair id."""
    from mdmem.base.vault import init_vault

    init_vault(root)
    (root / "memory" / "feedback").mkdir(parents=True, exist_ok=True)
    owner = {}
    for p in pairs:
        for side, day in (("a", "2026-01-01"), ("b", "2026-02-01")):
            rel = f"memory/feedback/{p['id']}-{side}.md"
            text = p[side].strip()  # one line, as the recorded prompts quote it
            (root / rel).write_text(f"---\ntype: feedback\ncreated: {day}\n---\n{text}\n", encoding="utf-8")
            owner[rel] = p["id"]
    return owner


def measure(name: str) -> dict:
    """The figures of one set (see the module's docstring)."""
    from mdmem.ops import check_judge

    pairs, gold = [], {}
    for pairs_file, labels_file in SETS[name]:
        pairs += rows(DATA / pairs_file)
        gold |= {r["id"]: r["gold"] for r in rows(DATA / labels_file)}
    bounds = check_judge.ASKED_MAX, check_judge.FAILS_MAX
    check_judge.ASKED_MAX = check_judge.FAILS_MAX = 10**6  # the measure asks every guess in one run
    try:
        return _measure(name, pairs, gold)
    finally:
        check_judge.ASKED_MAX, check_judge.FAILS_MAX = bounds


def _measure(name: str, pairs: list[dict], gold: dict) -> dict:
    from mdmem.base.settings import Judge
    from mdmem.engine.memory import Memory
    from mdmem.ops import check_judge
    from mdmem.ops.check import audit

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        owner = vault_of(pairs, root)
        script, calls = Path(tmp) / "judge.py", Path(tmp) / "calls.txt"
        script.write_text(JUDGE, encoding="utf-8")
        judge = Judge(" ".join(shlex.quote(str(x)) for x in (sys.executable, script, DATA / "judge-answers.jsonl",
                                                               calls)))

        def guesses(report) -> dict[tuple[str, str], str]:
            return {tuple(sorted((i.path, i.detail.split("near-duplicate of ", 1)[1].split(":", 1)[0]))): i.detail
                    for i in report.issues if i.kind == "DUPLICATE"}

        with Memory.open(root) as mem:
            mem.refresh()
            plain = audit(mem)
            first = audit(mem, judge=judge)
            made = calls.read_text().count("call") if calls.exists() else 0
            second = audit(mem, judge=judge)
            again = calls.read_text().count("call") - made
    before = {k: v for k, v in guesses(plain).items() if v.endswith(": the same meaning")}
    j = first.judge
    assert j is not None

    def label(a: str, b: str) -> str | None | bool:  # the gold of a labelled pair; False: two pairs' notes
        return gold.get(owner[a]) if owner[a] == owner[b] else False

    def tally(keys) -> dict:
        labels = [label(*k) for k in keys]
        same, different = labels.count("same"), labels.count("different")
        return {"pairs": len(labels), "labelled": sum(x is not False for x in labels), "same": same,
                "different": different, "undecided": sum(x is None for x in labels),
                "across two pairs": labels.count(False),
                "precision": round(same / (same + different), 3) if same + different else None}

    by = {v: [tuple(sorted((p.new, p.old))) for p in j.pairs if p.verdict == v] for v in
          (check_judge.SAME, check_judge.CLEARED, check_judge.NO_ANSWER)}
    remaining = by[check_judge.SAME] + by[check_judge.NO_ANSWER]
    return {"set": name, "pairs in set": len(pairs), "notes": len(owner),
            "guessed (no judge)": tally(before),
            "agreed by the judge": tally(by[check_judge.SAME]),
            "cleared by the judge": tally(by[check_judge.CLEARED]),
            "no usable answer (no recorded answer)": tally(by[check_judge.NO_ANSWER]),
            "left after the judge": tally(remaining),
            "left, answered only": tally(by[check_judge.SAME]),
            "calls, first run": made, "calls, second run (no note changed)": again,
            "second run kept answers": second.judge.kept if second.judge else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+", choices=sorted(SETS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [measure(name) for name in args.sets]
    if args.json:
        print(json.dumps(results, indent=1))
        return
    for r in results:
        print(f"== {r['set']}: {r['pairs in set']} pairs, {r['notes']} notes")
        for key, value in r.items():
            if isinstance(value, dict):
                print(f"  {key:40s} " + ", ".join(f"{k} {v}" for k, v in value.items()))
            elif key not in ("set", "pairs in set", "notes"):
                print(f"  {key:40s} {value}")


if __name__ == "__main__":
    main()

"""How many times a checkpoint asks the judge (decision 124). A copy of sample-vault/ plus the ``a`` side of each
real pair of a set (eval/data/duplicates, saved as ``note N``); the ``b`` sides proposed three to a checkpoint as a
model's suggestions, then all accepted, with a stand-in judge (a script) that counts its calls and answers none,
except that it names a note saved since the list was made (``since N``) when it is shown one. Every ``--hold``-th
pair's ``a`` is kept out of the vault and saved between propose and accept: accept must show it to the judge.

    .venv/bin/python scripts/judge_calls.py [--set fresh4] [--hold 5]
    PYTHONPATH=/tmp/main-tree .venv/bin/python scripts/judge_calls.py   # main's code, to compare
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

import mdmem
from mdmem.agents.checkpoint.consolidate import accept, propose
from mdmem.base.settings import Judge
from mdmem.engine.memory import Memory
from mdmem.ops.capture import save

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "eval" / "data" / "duplicates"
FILES = {"tuning": "candidates", "fresh": "fresh", "fresh3": "fresh3", "fresh4": "fresh4"}
STAND_IN = """import re, sys
text = sys.stdin.read()
open(sys.argv[1], "a", encoding="utf-8").write(text + "\\n@@\\n")
blocks = re.split(r"^Saved note (\\d+):$", text, flags=re.M)
named = [int(n) for n, body in zip(blocks[1::2], blocks[2::2]) if re.search(r"^> since \\d+$", body, re.M)]
print('{"same": %s}' % (named[0] if named else "null"))
"""


def prompts(log: Path) -> list[str]:
    return log.read_text("utf-8").split("\n@@\n")[:-1] if log.exists() else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="fresh4", choices=FILES)
    parser.add_argument("--hold", type=int, default=5)
    args = parser.parse_args()
    rows = [json.loads(line) for line in (DATA / f"{FILES[args.set]}.jsonl").read_text().splitlines()]
    held = {i for i in range(len(rows)) if i % args.hold == args.hold - 1}
    kept = {r["a"] for i, r in enumerate(rows) if i not in held}
    with tempfile.TemporaryDirectory() as tmp:
        vault, log, script = Path(tmp) / "vault", Path(tmp) / "prompts.txt", Path(tmp) / "judge.py"
        shutil.copytree(ROOT / "sample-vault", vault, ignore=shutil.ignore_patterns(".mdmem"))
        script.write_text(STAND_IN, encoding="utf-8")
        judge = Judge(f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(log))}")
        at_propose = at_accept = shown_since = caught = suggested = 0
        statuses: dict[str, int] = {}
        spent: list[float] = []
        with Memory.open(vault) as mem:
            for i, text in enumerate(sorted(kept)):
                save(mem, text, "feedback", name=f"note {i}", new=True, name_as_file=False)
            for k in range(0, len(rows), 3):
                batch = list(enumerate(rows[k:k + 3], k))
                items = [{"type": "feedback", "dimension": 6, "name": f"suggestion {r['id']}", "description": "",
                          "body": r["b"]} for _, r in batch]
                before = len(prompts(log))
                cp = propose(vault, {"dimensions": [6], "candidates": items}, session=f"s{k}", mem=mem, judge=judge)
                at_propose += len(prompts(log)) - before
                if not cp.fired:
                    continue
                suggested += len(cp.candidates)
                for i, r in batch:
                    if i in held and r["a"] not in kept:
                        save(mem, r["a"], "feedback", name=f"since {i}", new=True, name_as_file=False)
                before = len(prompts(log))
                t = time.perf_counter()
                result = accept(mem, "all", f"s{k}", judge=judge)
                spent.append(time.perf_counter() - t)
                asked = prompts(log)[before:]
                at_accept += len(asked)
                shown_since += sum(bool(re.search(r"^> since \d+$", p, re.M)) for p in asked)
                for a in result.accepted:
                    statuses[a.status] = statuses.get(a.status, 0) + 1
                    caught += a.status == "updated" and (a.path or "").rsplit("/", 1)[-1].startswith("since-")
        spent.sort()
        print(f"mdmem at {Path(mdmem.__file__).parent}; set {args.set}: {len(rows)} pairs, {len(held)} a sides saved "
              f"between propose and accept; {suggested} suggestions in {len(range(0, len(rows), 3))} checkpoints")
        print(f"judge calls: propose {at_propose}, accept {at_accept} (of which shown a note saved since: "
              f"{shown_since}); accepted {statuses}; updated a note saved since: {caught}; "
              f"accept median {1000 * spent[len(spent) // 2]:.0f} ms per checkpoint")


if __name__ == "__main__":
    main()

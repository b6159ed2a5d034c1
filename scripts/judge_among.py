"""Does the judge see the note a memory repeats? In a vault of sample-vault/ plus every ``a`` side of the labelled
pairs (eval/data/duplicates, ~600 memory notes, each named ``note N``), each ``b`` of a pair labelled the same is
looked up as ``save`` would (:func:`mdmem.ops.repeats.repeated`) with a judge that records what it is handed and
answers none; counted: its ``a`` among the notes shown (decision 122).

    .venv/bin/python scripts/judge_among.py [--set fresh4]
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from mdmem.base.settings import Judge
from mdmem.engine.memory import Memory
from mdmem.ops.capture import save
from mdmem.ops.repeats import repeated

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "eval" / "data" / "duplicates"
FILES = {"tuning": "candidates", "fresh": "fresh", "fresh3": "fresh3", "fresh4": "fresh4"}
LABELS = {"tuning": "labels", "fresh": "fresh-labels", "fresh3": "fresh3-labels", "fresh4": "fresh4-labels"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="fresh4", choices=FILES)
    args = parser.parse_args()
    rows = [json.loads(line) for f in FILES.values() for line in (DATA / f"{f}.jsonl").read_text().splitlines()]
    gold = {json.loads(line)["id"]: json.loads(line)["gold"]
            for line in (DATA / f"{LABELS[args.set]}.jsonl").read_text().splitlines()}
    with tempfile.TemporaryDirectory() as tmp:
        vault, seen, script = Path(tmp) / "vault", Path(tmp) / "seen.txt", Path(tmp) / "judge.py"
        shutil.copytree(ROOT / "sample-vault", vault, ignore=shutil.ignore_patterns(".mdmem"))
        script.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(sys.stdin.read())\nprint('{{\"same\": null}}')\n")
        judge = Judge(f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
        texts = sorted({r["a"] for r in rows})
        number = {t: i for i, t in enumerate(texts)}
        with Memory.open(vault) as mem:
            for t, i in number.items():
                save(mem, t, "feedback", name=f"note {i}", new=True, name_as_file=False)
            asked = shown = exact = 0
            for r in rows:
                if gold.get(r["id"]) != "same":
                    continue
                seen.unlink(missing_ok=True)
                twin = repeated(mem, "", "", r["b"], kind="feedback", judge=judge)
                if twin is not None and twin[1] is None:  # its text is saved word for word (another pair's a)
                    exact += 1
                    continue
                asked += 1
                names = re.findall(r"^> note[ -](\d+)$", seen.read_text("utf-8"), re.M) if seen.exists() else []
                shown += str(number[r["a"]]) in names
            print(f"{len(mem.heads())} notes; {args.set}: {asked + exact} pairs labelled the same; {exact} found as "
                  f"the same content; of the other {asked}, the repeated note shown to the judge in {shown}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The checkpoint's model path on the real sessions of eval/data/checkpoint-real (not a test).

The issue's design puts the model back in the loop: the Stop hook (or ``mdmem checkpoint --model CMD``)
hands the model the scan prompt and the conversation, the model answers JSON candidates, and mdmem's
``propose`` validates, deduplicates and numbers them. This measures that whole path with a real model's
answers, stored so the figures can be re-run without a model:

    python scripts/eval_model_path.py --dump DIR      # 1. what the model is given, one DIR/NAME.txt a session
    (a model answers each DIR/NAME.txt with JSON in scripts/model_path/answers/NAME.json)
    python scripts/eval_model_path.py [--show]        # 2. the answers through propose, scored

How the stored figures were made (2026-12-01): the inputs came from ``--dump`` (``checkpoint --model``'s
prompt: scan prompt with mdmem's hints, answer line, the conversation as mdmem bounds it); the model was a
Claude subagent told only to act as the model in the session and to read nothing but those files (so it
saw neither labels nor detectors); a second subagent judged each candidate ``propose`` kept against the
labels, blind to how it was made: ``scripts/model_path/judgements.json`` (session -> candidates: ``match``
firm:I / borderline:I / none, ``same_dimension``, ``accept_as_written``, ``why``). A change to ``propose``
that alters a kept candidate's name leaves it unjudged (listed), never scored by guess.

Scored as ``scripts/eval_checkpoint.py`` scores the offline path: precision = right / (right + wrong),
borderline neutral; recall = distinct firm items matched (at most 3 a session) over min(3, firm items);
"strict" also needs the candidate's dimension to be the item's; fire/silent = a session with a kept
candidate vs one whose labels hold a firm item. Splits: dev (01-34), holdout3 (41-48), holdout4 (51-58),
holdout5 (61-68), holdout6 (71-78), holdout7 (81-88): the model path was never tuned on any; the held-out splits are the ones labelled blind to the detectors. holdout4's
answers were judged as ``propose`` kept them then; one candidate ``propose`` had dropped as git history (a
"git log --all" in its how-to) is kept since, and was judged afterwards by the lead (its ``why`` says so).
holdout6 and holdout7 were answered with the scan prompt of commit e889801 (``answers/``); after the rules'
change of fdd0589 (a rule or correction the user stated is worth proposing alone; what the session wrote into
the repository's docs is saved) they were answered again by fresh subagents and judged by a fresh judge:
``--answers scripts/model_path/answers-fdd0589 --judgements scripts/model_path/judgements-fdd0589.json``
(only those 16 sessions have answers there; the other splits then score empty). holdout8 and holdout9 were answered
with the prompt of c989556; holdout10 and holdout11 with that of cef2969 (2026-12-02, one run, blind: fresh stand-in
subagents and a fresh judge, nothing changed for them; the judge checked each candidate's facts in the transcript).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = REPO / "eval" / "data" / "checkpoint-real"
ANSWERS = HERE / "model_path" / "answers"
JUDGEMENTS = HERE / "model_path" / "judgements.json"
EMPTY = '{"dimensions": [], "candidates": []}'


def mdmem(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mdmem", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=300)


def sessions() -> list[tuple[Path, dict]]:
    out = []
    for labels in sorted(DATA.glob("*.labels.json")):
        out.append((labels.with_name(labels.name.replace(".labels.json", ".jsonl")),
                    json.loads(labels.read_text("utf-8"))))
    return out


def dump(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        vault = Path(work) / "vault"
        mdmem("init", str(vault))
        for path, _ in sessions():
            target = folder / (path.stem + ".txt")
            model = (f"{shlex.quote(sys.executable)} -c "
                     + shlex.quote(f"import sys; open({str(target)!r}, 'w').write(sys.stdin.read()); print({EMPTY!r})"))
            proc = mdmem("checkpoint", str(path), "--vault", str(vault), "--session", path.stem, "--model", model)
            if proc.returncode:
                raise SystemExit(f"{path.name}: {proc.stderr.strip()}")
    print(f"wrote {len(sessions())} model inputs to {folder}")


def kept(path: Path, vault: Path, answers: Path = ANSWERS) -> list[dict]:
    answer = answers / (path.stem + ".json")
    if not answer.is_file():
        return []
    model = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
        f"import sys; sys.stdout.write(open({str(answer)!r}).read())")
    proc = mdmem("checkpoint", str(path), "--vault", str(vault), "--session", "mp-" + path.stem, "--model", model,
                 "--json")
    if proc.returncode:
        raise SystemExit(f"{path.name}: {proc.stderr.strip()}")
    return json.loads(proc.stdout).get("candidates", [])


def score(split: str, rows: list[tuple[str, dict, list[dict]]], judged: dict) -> dict:
    out = {"split": split, "sessions": len(rows), "candidates": 0, "right": 0, "borderline": 0, "wrong": 0,
           "strict_right": 0, "accepted": 0, "found": 0, "strict_found": 0, "reachable": 0, "fire_right": 0,
           "unjudged": [], "missed": []}
    for name, labels, cands in rows:
        firm = [i for i, item in enumerate(labels["items"]) if item["strength"] == "firm"]
        out["reachable"] += min(3, len(firm))
        verdicts = {j["name"]: j for j in judged.get(name, [])}
        found, strict = set(), set()
        for c in cands:
            out["candidates"] += 1
            j = verdicts.get(c["name"])
            if j is None:
                out["unjudged"].append((name, c["name"]))
                continue
            out["accepted"] += bool(j["accept_as_written"])
            kind, _, index = j["match"].partition(":")
            if kind == "firm":
                out["right"] += 1
                found.add(int(index))
                if j["same_dimension"]:
                    out["strict_right"] += 1
                    strict.add(int(index))
            elif kind == "borderline":
                out["borderline"] += 1
            else:
                out["wrong"] += 1
        out["found"] += min(3, len(found))
        out["strict_found"] += min(3, len(strict))
        out["fire_right"] += bool(cands) == bool(labels["worth_checkpoint"])
        out["missed"] += [(name, i, labels["items"][i]["memory"]["name"]) for i in firm if i not in found]
    return out


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "  -  "


def render(s: dict, show: bool) -> list[str]:
    judged = s["right"] + s["wrong"]
    lines = [f"== {s['split']}: {s['sessions']} sessions, {s['candidates']} candidates kept by propose",
             f"   precision {_ratio(s['right'], judged)} ({s['right']} right / {s['wrong']} wrong / "
             f"{s['borderline']} borderline, neutral); recall {_ratio(s['found'], s['reachable'])} "
             f"({s['found']}/{s['reachable']} firm items that <= 3 suggestions can hold)",
             f"   strict (the item's dimension too): precision {_ratio(s['strict_right'], judged)}, recall "
             f"{_ratio(s['strict_found'], s['reachable'])}",
             f"   accepted as written {s['accepted']}/{s['candidates']}; fire/silent right {s['fire_right']}/"
             f"{s['sessions']}"]
    if s["unjudged"]:
        lines.append(f"   {len(s['unjudged'])} kept candidates not judged: " + "; ".join(
            f"{n}: {c}" for n, c in s["unjudged"]))
    if show:
        lines += [f"   missed: {n} item {i}: {m}" for n, i, m in s["missed"]]
    return lines


HELD = ("holdout3", "holdout4", "holdout5", "holdout6", "holdout7", "holdout8", "holdout9", "holdout10",
        "holdout11")  # labelled blind to the detectors; "dev": the rest


def run_all(answers: Path = ANSWERS) -> dict[str, list]:
    """{split: [(session, labels, kept candidates)]} for dev and each held-out split (``answers``: where
    the model's answers are stored)."""
    rows: dict[str, list] = {"dev": [], **{h: [] for h in HELD}}
    with tempfile.TemporaryDirectory() as work:
        vault = Path(work) / "vault"
        mdmem("init", str(vault))
        for path, labels in sessions():
            split = labels["split"] if labels["split"] in HELD else "dev"
            rows[split].append((path.stem, labels, kept(path, vault, answers)))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dump", type=Path, help="write what the model is given, one DIR/NAME.txt a session")
    ap.add_argument("--show", action="store_true", help="list the firm items no candidate captured")
    ap.add_argument("--answers", type=Path, help=f"the stored answers (default {ANSWERS.relative_to(REPO)})")
    ap.add_argument("--judgements", type=Path, help=f"their judgements (default {JUDGEMENTS.relative_to(REPO)})")
    args = ap.parse_args(argv)
    if args.dump:
        dump(args.dump)
        return 0
    judged = json.loads((args.judgements or JUDGEMENTS).read_text("utf-8"))
    rows = run_all(args.answers or ANSWERS)
    for split, got in rows.items():
        print("\n".join(render(score(split, got, judged), args.show)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

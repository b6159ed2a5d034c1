"""REALTALK (Lee et al. 2025, arXiv 2502.13270) as questions in LongMemEval's shape, for
``scripts/bench_recall.py``; not a test.

REALTALK is 10 real two-person messaging-app conversations of 21 days (18-25 sessions each,
~530-880 words a session), each with ~70-85 memory-probing questions whose ``evidence`` names the
turns (``D3:12``) that answer them. Only ``data/Chat_*.json`` of the repository are read; its
``data/locomo/`` folder is a copy of LoCoMo, which this project keeps for an independent evaluation
and must never read (:func:`load` refuses any path with ``locomo`` in it). Where it came from and how
it is used: ``docs-notes/longmemeval.md`` ("REALTALK").

A question becomes ``{"question_id", "question_type", "question", "haystack_session_ids",
"haystack_dates", "haystack_sessions", "answer_session_ids", "vault_key"}``: gold sessions are the
sessions holding an evidence turn (ranges ``D12:3-D12:5`` expanded, ``;``/``,``-joined lists split);
a question none of whose evidence turns is found is dropped. All questions of one conversation share
``vault_key``, so the bench builds one vault per conversation, not one per question.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

# LoCoMo's category numbers (REALTALK's evaluate_memory.py keeps 1-3 and says 4, 5 are LoCoMo-only);
# the names follow the REALTALK paper's QA types as read from the questions, not from a field of the data
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "commonsense"}
_TURN = re.compile(r"D(\d+):(\d+)")
_RANGE = re.compile(r"D(\d+):(\d+)\s*-\s*D(\d+):(\d+)")


def evidence_turns(evidence: list[str]) -> set[str]:
    """``["D1:3", "D5:12;D5:16", "D12:3-D12:5"]`` -> every turn id they name."""
    out: set[str] = set()
    for item in evidence:
        for a, i, b, j in _RANGE.findall(item):
            if a == b:
                out |= {f"D{a}:{n}" for n in range(int(i), int(j) + 1)}
        out |= {f"D{a}:{n}" for a, n in _TURN.findall(item)}
    return out


def _stamp(text: str) -> str:
    """``29.12.2023, 22:42:04`` -> ``2023/12/29 (Fri) 22:42`` (LongMemEval's date form)."""
    when = dt.datetime.strptime(text.strip(), "%d.%m.%Y, %H:%M:%S")
    return when.strftime("%Y/%m/%d (%a) %H:%M")


def conversation(path: Path) -> list[dict]:
    if "locomo" in str(path).lower():
        raise SystemExit(f"refusing {path}: LoCoMo is kept for the independent evaluation")
    data = json.loads(path.read_text(encoding="utf-8"))
    name = path.stem
    keys = sorted((k for k in data if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
    sessions, ids, dates, where = [], [], [], {}
    for k in keys:
        turns = [{"role": t["speaker"], "content": t.get("clean_text") or ""} for t in data[k]]
        sid = f"{name}:{k}"
        for t in data[k]:
            where[t["dia_id"]] = sid
        sessions.append(turns)
        ids.append(sid)
        dates.append(_stamp(data[f"{k}_date_time"]))
    out = []
    for n, qa in enumerate(data.get("qa", [])):
        gold = sorted({where[t] for t in evidence_turns(qa.get("evidence", [])) if t in where})
        if not gold:
            continue
        out.append({"question_id": f"{name}#{n:03d}", "question_type": CATEGORIES.get(qa.get("category"),
                    f"category-{qa.get('category')}"), "question": qa["question"], "haystack_session_ids": ids,
                    "haystack_dates": dates, "haystack_sessions": sessions, "answer_session_ids": gold,
                    "vault_key": name})
    return out


def load(folder: Path) -> list[dict]:
    """Every question of every ``Chat_*.json`` in ``folder`` (or of the one file given)."""
    files = [folder] if folder.is_file() else sorted(folder.glob("Chat_*.json"))
    if not files:
        raise SystemExit(f"no Chat_*.json in {folder}")
    return [q for f in files for q in conversation(f)]

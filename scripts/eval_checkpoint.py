#!/usr/bin/env python3
"""The checkpoint on real conversations: eval/data/checkpoint-real/ (89 real Claude Code sessions,
hand-labelled per dimension; read its SOURCES.md), split tune (24) / holdout (5) / holdout2 (5) / holdout3 to
holdout9 (8 each, holdout9 7; labelled blind to the detectors), reported apart.

    python scripts/eval_checkpoint.py [--split SPLIT|dev|blind|both] [--show] [--json OUT]

``dev`` is every session except the blind split (:data:`BLIND`): since 2026-12-01 (evening) holdout and
holdout2 have been read and are tuned on with tune; holdout3 (41-48) was labelled blind to the detectors and
measured once (20:51, after the third round), then read and tuned on; holdout4 (51-58) and holdout5 (61-68)
were labelled blind the same way, measured once each, and read on 2026-12-01 at 22:10 to design the hook's
follow-up signal (they are dev since); holdout6 (71-78) and holdout7 (81-88) were labelled blind the same way
at 22:00, run once at e889801 and read since; holdout8 (91-98) and holdout9 (101-108, 7 sessions) were labelled
blind the same way at 22:25, run once at c989556 (hook, offline and the model path) and are dev since;
holdout10 (111-118) and holdout11 (121-128) were labelled blind at 23:35, run once at cef2969 on 2026-12-02 (hook,
offline and the model path, with no change made for them) and are dev since. No blind split is left: the next change of
the hook or the prompt needs a fresh pair labelled as LABEL rules say (SOURCES.md), added to :data:`BLIND`.

1. The offline path (``mdmem checkpoint TRANSCRIPT``, no model: since decision 075 only the standing rules the
   user stated in so many words) against the labels:
   - gold = the **firm** items. A suggestion is right when its dimension is the item's and its
     first evidence is the item's message (same JSONL line, or the item's quote inside the
     message's text: the labels' ``message`` numbers follow other counting rules, SOURCES.md;
     a quote under 12 characters, such as "A.", only when it is the whole message).
   - **borderline** items are neutral: a suggestion that hits one is neither right nor wrong
     (left out of precision), and they are not in recall. ``precision_lenient`` counts them right.
   - recall is "of what <= 3 suggestions can hold": per session, at most min(3, firm items)
     can be found; found firm items (at most 3 per session) over that sum.
   - per dimension: precision by the suggestion's dimension, recall by the item's.
2. The Stop hook's fire/silent decision on a replay (``--split other``: every session but the tune split's, the
   part held out from the trigger's tuning since decision 075): one Stop per agent turn (a prompt the user
   typed, not a queued one, and the assistant records after it: SOURCES.md's ``stops``), the
   file growing to the line before the next prompt, the clock (``MDMEM_NOW``) from the records'
   timestamps, ``last_assistant_message`` as Claude Code gives it; the installed default policy
   on an empty vault. A session "fires" when any of its stops fires; it should fire exactly when it
   holds a firm item (``worth_checkpoint``). And per firm item: whether some fire came after it
   (the model reviews the conversation so far, so an item said after the last fire is out of reach).
3. Suggestions accepted as written: the suggestions are listed (``--show``) and judged by hand in
   ``scripts/eval_checkpoint_judgements.json`` (file + name -> accept/reject + why); the count is
   over the judged ones, and unjudged suggestions are listed.

Tune only on dev; a blind split is run once, then joins dev.
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = REPO / "eval" / "data" / "checkpoint-real"
JUDGEMENTS = HERE / "eval_checkpoint_judgements.json"
sys.path.insert(0, str(REPO))

from mdmem.agents.checkpoint import consolidate as cp  # noqa: E402
from mdmem.agents.claude import transcript  # noqa: E402

BLIND: tuple[str, ...] = ()  # labelled, never run, never tuned on: none left (see above)


def sessions(split: str) -> list[tuple[Path, dict]]:
    out = []
    for labels in sorted(DATA.glob("*.labels.json")):
        data = json.loads(labels.read_text("utf-8"))
        if split in ("both", data["split"]) or (split == "dev" and data["split"] not in BLIND) or \
                (split == "other" and data["split"] != "tune") or \
                (split == "blind" and data["split"] in BLIND):
            out.append((labels.with_name(labels.name.replace(".labels.json", ".jsonl")), data))
    return out


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


class Lines:
    """Byte offset -> 1-based line number of a file."""

    def __init__(self, data: bytes) -> None:
        self.starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


def empty_vault(root: Path) -> Path:
    (root / "memory").mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text("<!-- budget -->\n# Memory\n", "utf-8")
    return root


# ----------------------------------------------------------------------------- 1. offline


def offline(path: Path, labels: dict, vault: Path) -> dict:
    tr = transcript.read(path)
    lines = Lines(path.read_bytes())
    result = cp.analyze(str(path), vault, session=path.stem, store_result=False, read=transcript.read)
    by_index = {m.index: m for m in tr.messages}
    items = labels["items"]

    def matches(c, item) -> bool:
        if c.dimension != item["dimension"]:
            return False
        e = c.evidence[0]
        m = by_index.get(e.index)
        if m is None:
            return False
        quote = _norm(item["quote"])
        # a quote as short as "A." is inside many messages: it matches only the whole message
        return lines.line(m.offset) == item["line"] or (quote in _norm(m.text) if len(quote) >= 12 else
                                                        quote == _norm(m.text))

    rows = []
    for c in result.candidates:
        hit = [i for i, item in enumerate(items) if matches(c, item)]
        firm = [i for i in hit if items[i]["strength"] == "firm"]
        verdict = "right" if firm else ("borderline" if hit else "wrong")
        rows.append({"number": c.number, "dimension": c.dimension, "type": c.type, "name": c.name,
                     "description": c.description, "body": c.body, "verdict": verdict, "items": firm or hit,
                     "evidence": {"index": c.evidence[0].index, "quote": c.evidence[0].quote,
                                  "signal": c.evidence[0].signal}})
    firm_items = [i for i, item in enumerate(items) if item["strength"] == "firm"]
    found = sorted({i for r in rows if r["verdict"] == "right" for i in r["items"]})
    return {"file": path.name, "candidates": rows, "dimensions": result.dimensions, "firm": firm_items,
            "found": found, "reachable": min(3, len(firm_items)), "dropped": [d.__dict__ for d in result.dropped]}


def offline_table(rows: list[dict], labels: dict[str, dict]) -> dict:
    per = {d: {"right": 0, "wrong": 0, "borderline": 0, "gold": 0, "found": 0} for d in range(1, 8)}
    right = wrong = border = 0
    reachable = found = 0
    for r in rows:
        items = labels[r["file"]]["items"]
        for c in r["candidates"]:
            per[c["dimension"]][c["verdict"]] += 1
        right += sum(c["verdict"] == "right" for c in r["candidates"])
        wrong += sum(c["verdict"] == "wrong" for c in r["candidates"])
        border += sum(c["verdict"] == "borderline" for c in r["candidates"])
        reachable += r["reachable"]
        found += min(r["reachable"], len(r["found"]))
        for i in r["firm"]:
            per[items[i]["dimension"]]["gold"] += 1
            per[items[i]["dimension"]]["found"] += i in r["found"]
    for v in per.values():
        v["precision"] = v["right"] / (v["right"] + v["wrong"]) if v["right"] + v["wrong"] else None
        v["recall"] = v["found"] / v["gold"] if v["gold"] else None
    return {"suggestions": right + wrong + border, "right": right, "wrong": wrong, "borderline": border,
            "precision": right / (right + wrong) if right + wrong else None,
            "precision_lenient": (right + border) / (right + wrong + border) if right + wrong + border else None,
            "recall": found / reachable if reachable else None, "found": found, "reachable": reachable,
            "dims": per}


# ----------------------------------------------------------------------------- 2. replay

_WRAP = ("<command-", "<local-command-")
_NOISE = ("Stop hook feedback:", "[Request interrupted by user", "Caveat: The messages below were generated")


def _user_text(rec: dict) -> str:
    content = (rec.get("message") or {}).get("content")
    if isinstance(content, str):
        return content.strip()
    texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"] \
        if isinstance(content, list) else []
    return "\n".join(t.strip() for t in texts if isinstance(t, str) and t.strip())


def stops(data: bytes) -> list[tuple[int, float | None, str | None]]:
    """(byte length of the file at the Stop, epoch seconds of its last record, the turn's last
    assistant text) for each agent turn, by SOURCES.md's counting rules."""
    raw = data.split(b"\n")
    recs: list[tuple[int, int, dict | None]] = []  # (line start offset, line end offset, record)
    pos = 0
    for line in raw:
        end = pos + len(line) + 1
        try:
            rec = json.loads(line) if line.strip() else None
        except ValueError:
            rec = None
        recs.append((pos, min(end, len(data)), rec if isinstance(rec, dict) else None))
        pos = end
    starts = []
    for i, (_, _, rec) in enumerate(recs):
        if not rec or rec.get("type") != "user" or rec.get("isSidechain") or rec.get("isMeta") \
                or rec.get("isCompactSummary"):
            continue
        text = _user_text(rec)
        if text and not text.lstrip().startswith(_WRAP) and not text.lstrip().startswith(_NOISE):
            starts.append(i)
    out = []
    for k, s in enumerate(starts):
        stop_at = starts[k + 1] if k + 1 < len(starts) else len(recs)
        assistant = [i for i in range(s + 1, stop_at) if recs[i][2] and recs[i][2].get("type") == "assistant"
                     and not recs[i][2].get("isSidechain")]
        if not assistant:
            continue
        length = recs[stop_at - 1][1] if stop_at - 1 < len(recs) else len(data)
        clock = None
        for i in range(stop_at - 1, s - 1, -1):
            stamp = recs[i][2] and recs[i][2].get("timestamp")
            if isinstance(stamp, str):
                clock = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
                break
        last = None
        for i in reversed(assistant):
            content = (recs[i][2].get("message") or {}).get("content")
            texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"] \
                if isinstance(content, list) else []
            if texts and isinstance(texts[-1], str) and texts[-1].strip():
                last = texts[-1].strip()
                break
        out.append((length, clock, last))
    return out


def replay(path: Path, vault: Path, work: Path, policy: str | None = None) -> dict:
    from mdmem.agents.checkpoint.stop import stop
    from mdmem.agents.claude.hooks import transcript_reader
    from mdmem.agents.hooks import session as hooks

    read = transcript_reader()
    data = path.read_bytes()
    grow = work / path.name
    grow.write_bytes(b"")
    session = path.stem
    fired = []
    points = stops(data)
    timings = []
    old = os.environ.get("MDMEM_NOW")
    try:
        for n, (length, clock, last) in enumerate(points):
            grow.write_bytes(data[:length])
            os.environ["MDMEM_NOW"] = str(clock if clock is not None else 1_790_000_000 + n * 60)
            payload = {"session_id": session, "transcript_path": str(grow), "cwd": str(work),
                       "hook_event_name": "Stop", "stop_hook_active": False}
            if last:
                payload["last_assistant_message"] = last
            t = time.perf_counter()
            out = stop(str(vault), payload, {"policy": policy} if policy else {}, read=read)
            timings.append((time.perf_counter() - t) * 1000)
            if out is not None:
                fired.append({"stop": n + 1, "bytes": length, "reason_chars": len(out.get("reason", "")),
                              "reason": out.get("reason", "")})
        # the session ends: SessionEnd records the turns no scan covered, for the next session's review
        grow.write_bytes(data)
        review = hooks._record_uncovered(str(vault), {"session_id": session, "transcript_path": str(grow),
                                                      "cwd": str(work)}, "SessionEnd", read)
    finally:
        if old is None:
            os.environ.pop("MDMEM_NOW", None)
        else:
            os.environ["MDMEM_NOW"] = old
    return {"file": path.name, "stops": len(points), "fired": fired, "max_ms": max(timings, default=0.0),
            "review_from": review["from"] if review else None}


# ----------------------------------------------------------------------------- report


def judgements() -> dict:
    if not JUDGEMENTS.is_file():
        return {}
    return json.loads(JUDGEMENTS.read_text("utf-8"))


def run(split: str, policy: str | None = None) -> dict:
    work = Path(tempfile.mkdtemp(prefix="mdmem-eval-"))
    try:
        rows, plays = [], []
        labels = {}
        for path, data in sessions(split):
            labels[path.name] = data
            vault = empty_vault(work / ("vault-" + path.stem))
            rows.append(offline(path, data, vault))
            play_vault = empty_vault(work / ("replay-" + path.stem))
            play = replay(path, play_vault, work, policy)
            plays.append(play | {"worth": data["worth_checkpoint"], "labelled_stops": data["stops"],
                                 **_seen(path.read_bytes(), data, play["fired"]),
                                 "firm_covered": _covered(path.read_bytes(), data, play)})
        judged = judgements()
        accepted = rejected = 0
        unjudged = []
        for r in rows:
            for c in r["candidates"]:
                j = judged.get(r["file"], {}).get(c["name"])
                c["judgement"] = j
                if j is None:
                    unjudged.append((r["file"], c["name"]))
                elif j.get("accept"):
                    accepted += 1
                else:
                    rejected += 1
        right = sum(1 for p in plays if bool(p["fired"]) == p["worth"])
        return {"firm_items": sum(p["firm"] for p in plays), "firm_seen": sum(p["firm_seen"] for p in plays),
                "firm_covered": sum(p["firm_covered"] for p in plays),
                "stops": sum(p["stops"] for p in plays), "fires": sum(len(p["fired"]) for p in plays),
                "worth_scanned": sum(1 for p in plays if p["worth"] and (p["fired"] or p["review_from"] is not None)),
                "worth": sum(1 for p in plays if p["worth"]),
                "reviews": sum(1 for p in plays if p["review_from"] is not None),
                "fires_worth": sum(len(p["fired"]) for p in plays if p["worth"]),
                "fires_nothing": sum(len(p["fired"]) for p in plays if not p["worth"]),
                "split": split, "policy": policy, "offline": offline_table(rows, labels), "rows": rows, "replay": plays,
                "fire_right": right, "sessions": len(plays),
                "accepted": accepted, "rejected": rejected, "unjudged": unjudged}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _seen(data: bytes, labels: dict, fired: list[dict]) -> dict:
    """How many of the session's firm items some fire came after: the scan prompt asks the model to
    review the conversation so far, so an item said after the session's last fire is out of its reach."""
    starts = Lines(data).starts
    last = max((f["bytes"] for f in fired), default=-1)
    firm = [it for it in labels["items"] if it["strength"] == "firm"]
    seen = sum(1 for it in firm if 0 < it["line"] <= len(starts) and starts[it["line"] - 1] < last)
    return {"firm": len(firm), "firm_seen": seen}


def _covered(data: bytes, labels: dict, play: dict) -> int:
    """How many of the session's firm items a scan covers: one in the session (a fire after it) or the next
    session's review of what no scan covered (the part from ``review_from`` on)."""
    starts = Lines(data).starts
    last = max((f["bytes"] for f in play["fired"]), default=-1)
    start = play.get("review_from")
    n = 0
    for it in labels["items"]:
        if it["strength"] != "firm" or not 0 < it["line"] <= len(starts):
            continue
        at = starts[it["line"] - 1]
        n += at < last or (start is not None and at >= start)
    return n


def _p(x) -> str:
    return "  -  " if x is None else f"{x:.2f}"


NAMES = {1: "① closure", 2: "② behaviour", 3: "③ domain rule", 4: "④ decision", 5: "⑤ milestone",
         6: "⑥ calibration", 7: "⑦ analysis"}


def render(report: dict, show: bool = False) -> list[str]:
    o = report["offline"]
    lines = [f"== {report['split']} split: {report['sessions']} sessions",
             f"offline path: {o['suggestions']} suggestions: {o['right']} right, {o['wrong']} wrong, "
             f"{o['borderline']} on a borderline item (neutral); precision {_p(o['precision'])} "
             f"(lenient {_p(o['precision_lenient'])}), recall {_p(o['recall'])} ({o['found']}/{o['reachable']} "
             f"firm items that <= 3 suggestions can hold)",
             "   dimension        precision (right/wrong/borderline)   recall (found/firm)"]
    for d, v in o["dims"].items():
        lines.append(f"   {NAMES[d]:<16} {_p(v['precision']):>6} ({v['right']}/{v['wrong']}/{v['borderline']})"
                     f"{'':>20}{_p(v['recall']):>6} ({v['found']}/{v['gold']})")
    lines.append(f"hook replay: {report['fires']} firings in {report['stops']} stops "
                 f"({report['fires'] / max(1, report['stops']):.1%}); sessions with a firm item scanned (in the "
                 f"session or by the next one's review) {report['worth_scanned']}/{report['worth']}; firm items a "
                 f"scan covers {report['firm_covered']}/{report['firm_items']}; sessions left for review "
                 f"{report['reviews']}/{report['sessions']}")
    lines.append(f"hook replay ({report.get('policy') or 'default policy'}): fire/silent right in "
                 f"{report['fire_right']}/{report['sessions']}; firm items a fire came after: "
                 f"{report['firm_seen']}/{report['firm_items']}; fires in sessions with firm items "
                 f"{report['fires_worth']}, in sessions without {report['fires_nothing']}")
    for p in report["replay"]:
        fired = ", ".join(f"stop {f['stop']}" for f in p["fired"]) or "silent"
        ok = "ok " if bool(p["fired"]) == p["worth"] else "BAD"
        lines.append(f"   {ok} {p['file']:<42} {'firm items' if p['worth'] else 'nothing   '} "
                     f"{p['stops']:>2} stops (labelled {p['labelled_stops']:>2}): {fired}"
                     f"{'; review' if p['review_from'] is not None else ''}; slowest stop {p['max_ms']:.0f} ms")
    judged = report["accepted"] + report["rejected"]
    lines.append(f"suggestions accepted as written (judged by hand): {report['accepted']}/{judged}"
                 + (f"; {len(report['unjudged'])} not judged yet" if report["unjudged"] else ""))
    for r in report["rows"]:
        if not show:
            continue
        lines.append(f"   -- {r['file']}: dimensions {r['dimensions']}, firm items {len(r['firm'])}")
        for c in r["candidates"]:
            j = c["judgement"]
            mark = "?" if j is None else ("accept" if j.get("accept") else "reject")
            lines.append(f"      {c['number']}. [{c['type']}] {c['name']} — {c['description']}  "
                         f"<{c['verdict']}; {mark}>")
            lines.append(f"         evidence #{c['evidence']['index']}: {c['evidence']['quote'][:120]} "
                         f"({c['evidence']['signal']})")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="tune", choices=("tune", "holdout", "holdout2", "holdout3", "holdout4", "holdout5",
                                                        "holdout6", "holdout7", "holdout8", "holdout9", "holdout10",
                                                        "holdout11", "dev", "other", "blind", "both"),
                    help="other: every session but the tune split's (held out from the trigger's tuning)")
    ap.add_argument("--policy", help="the hook policy to replay (default: the installed default)")
    ap.add_argument("--show", action="store_true", help="list every suggestion and its verdict")
    ap.add_argument("--json", type=Path, help="write the whole report here")
    ap.add_argument("--steer-words", type=int, help="replay with this many words for the follow-up signal (default "
                    "stop.STEER_WORDS)")
    args = ap.parse_args(argv)
    if args.steer_words is not None:
        from mdmem.agents.checkpoint import stop

        stop.STEER_WORDS = args.steer_words
    if args.split == "blind" and not BLIND:
        print("no blind split is left: every labelled split has been run; label a fresh pair first", file=sys.stderr)
        return 2
    splits = ("dev", *BLIND) if args.split == "both" else (args.split,)
    reports = [run(s, args.policy) for s in splits]
    for report in reports:
        print("\n".join(render(report, args.show)))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1, ensure_ascii=False, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""List the conversation messages of a Claude Code JSONL transcript with the
0-based indices that the ``*.labels.json`` files in this folder use.

A reading aid for hand labelling, not a labeller. Standard library only.

Counting rules (see SOURCES.md):
- user records count when message.content is a string or holds "text" blocks;
  skipped: tool_result-only records, isMeta records, isCompactSummary records,
  isSidechain records, <command-...>/<local-command-...> wrappers,
  "Stop hook feedback:" text, "[Request interrupted by user..." markers,
  and "Caveat: The messages below were generated..." notices;
- assistant records sharing one message.id are one message; records with only
  thinking/tool_use blocks are skipped (a message counts once it has text);
- user text that only exists in a queue-operation "enqueue" record (typed
  while the assistant was busy) is listed too, marked "queued", at the place of
  its enqueue record, unless the same text appears as a user record (a bare
  queued slash command such as "/exit" is skipped);
- user records holding a <task-notification> (written by Claude Code when a
  background task ends) are string content and are listed like any user text.

Usage: list_messages.py FILE.jsonl [--full] [--width N] [--grep WORD]
"""

from __future__ import annotations

import argparse
import json
import re
import sys

WRAPPER = re.compile(r"^\s*<(?:command|local-command)-[\w-]+>", re.S)
SLASH = re.compile(r"^\s*/[\w:-]+\s*$")  # a queued bare slash command such as "/exit"
NOISE = ("Stop hook feedback:", "[Request interrupted by user", "Caveat: The messages below were generated")


def _texts(content) -> tuple[str, bool]:
    """(joined text blocks, has tool_result)."""
    if isinstance(content, str):
        return content.strip(), False
    texts, results = [], False
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            texts.append(block["text"].strip())
        elif block.get("type") == "tool_result":
            results = True
    return "\n".join(texts), results


def messages(path: str) -> list[dict]:
    """[{index, speaker, text, line, queued}] in file order."""
    out: list[dict] = []
    by_id: dict[str, int] = {}
    lines = open(path, "rb").read().split(b"\n")
    user_texts = set()
    recs = []
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict):
            recs.append((n, rec))
            if rec.get("type") == "user":
                t, _ = _texts((rec.get("message") or {}).get("content"))
                if t:
                    user_texts.add(t.strip())
    for n, rec in recs:
        kind = rec.get("type")
        if kind == "queue-operation" and rec.get("operation") == "enqueue":
            text = rec.get("content")
            if isinstance(text, list):
                text, _ = _texts(text)
            if isinstance(text, str) and text.strip() and text.strip() not in user_texts \
                    and not WRAPPER.match(text) and not text.lstrip().startswith(NOISE) \
                    and not SLASH.match(text):
                out.append({"speaker": "user", "text": text.strip(), "line": n, "queued": True})
            continue
        if kind not in ("user", "assistant"):
            continue
        if rec.get("isSidechain") or rec.get("isMeta") or rec.get("isCompactSummary"):
            continue
        msg = rec.get("message")
        if not isinstance(msg, dict):
            continue
        text, results = _texts(msg.get("content"))
        if kind == "user":
            if not text or WRAPPER.match(text) or text.lstrip().startswith(NOISE):
                continue
            out.append({"speaker": "user", "text": text, "line": n, "queued": False})
            continue
        mid = msg.get("id")
        if not text:
            continue
        if mid and mid in by_id:
            m = out[by_id[mid]]
            m["text"] = m["text"] + "\n" + text
            continue
        if mid:
            by_id[mid] = len(out)
        out.append({"speaker": "assistant", "text": text, "line": n, "queued": False})
    for i, m in enumerate(out):
        m["index"] = i
    return out


def stops(path: str, ms: list[dict]) -> int:
    """Agent turns: listed user messages, other than queued ones (a queued message
    is folded into the turn already running), that an assistant record (text or
    tool call, not a sidechain) follows before the next such user message."""
    starts = [m["line"] for m in ms if m["speaker"] == "user" and not m["queued"]]
    answered = set()
    for n, raw in enumerate(open(path, "rb").read().split(b"\n"), 1):
        if b'"assistant"' not in raw:
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(rec, dict) or rec.get("type") != "assistant" or rec.get("isSidechain"):
            continue
        before = [s for s in starts if s < n]
        if before:
            answered.add(before[-1])
    return len(answered)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--full", action="store_true", help="print whole texts")
    ap.add_argument("--width", type=int, default=300)
    ap.add_argument("--grep", help="only messages containing this (case-insensitive)")
    a = ap.parse_args()
    ms = messages(a.file)
    for m in ms:
        if a.grep and a.grep.lower() not in m["text"].lower():
            continue
        text = m["text"] if a.full else " ".join(m["text"].split())[: a.width]
        tag = " (queued)" if m["queued"] else ""
        print(f"[{m['index']}] {m['speaker']}{tag} L{m['line']}: {text}")
        if a.full:
            print()
    users = sum(1 for m in ms if m["speaker"] == "user")
    print(f"-- {len(ms)} messages, {users} user, {stops(a.file, ms)} stops", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A whole real ChatGPT export (eval/data/chatgpt-export, 192 conversations, cited there) through `mdmem import
chatgpt`: one note per conversation the user said something in, its user messages those of the branch
`current_node` ends, in order (walked here from the file itself), never a tool's text; a re-import changes
nothing."""

from __future__ import annotations

import json
from pathlib import Path

from support import ROOT

EXPORT = ROOT / "eval" / "data" / "chatgpt-export" / "conversations.json"


def _kept_user_texts(conv: dict) -> list[str]:
    mapping, node, path = conv["mapping"], conv["current_node"], []
    while node:
        path.append(mapping[node])
        node = mapping[node].get("parent")
    out = []
    for entry in reversed(path):
        msg = entry.get("message") or {}
        if (msg.get("author") or {}).get("role") == "user":
            text = "\n".join(p for p in msg["content"].get("parts", ()) if isinstance(p, str)).strip()
            if text:
                out.append(text)
    return out


def _tool_texts(conv: dict) -> list[str]:
    out = []
    for entry in conv["mapping"].values():
        msg = entry.get("message") or {}
        if (msg.get("author") or {}).get("role") == "tool":
            parts = msg["content"].get("parts") or [msg["content"].get("text") or ""]
            out += [p.strip()[:60] for p in parts if isinstance(p, str) and len(p.strip()) >= 40]
    return out


def _said(note: str) -> list[str]:
    body = note.split("## What the user said\n\n", 1)[1].split("\n## ", 1)[0]
    return [line.split(". ", 1)[1].split("** ", 1)[-1] for line in body.splitlines()
            if line[:1].isdigit() and ". " in line[:5]]


def _start(text: str) -> str:
    """The first 30 characters of a message's first line, whitespace folded (compared: the first line of each)."""
    return " ".join(text.split())[:30].rstrip()


def test_every_conversation_of_a_real_export(cli, vault: Path, capsys):
    conversations = json.loads(EXPORT.read_text(encoding="utf-8"))
    report = cli.json("import", "chatgpt", EXPORT, "--vault", vault)
    assert not report["errors"]
    expected = {c["id"]: _kept_user_texts(c) for c in conversations}
    made = {i["session"]: i for i in report["items"]}
    assert set(made) == {k for k, v in expected.items() if v}
    wrong = []
    for conv in conversations:
        item = made.get(conv["id"])
        if item is None:
            continue
        note = (vault / item["path"]).read_text(encoding="utf-8")
        got = [_start(m.removeprefix("\\")) for m in _said(note)]  # a note escapes a line that would be a heading
        want = [_start(t.splitlines()[0]) for t in expected[conv["id"]]]
        leaked = [t for t in _tool_texts(conv) if t in note]
        if got != want or leaked:
            wrong.append((conv["title"], got, want, leaked))
    with capsys.disabled():
        print(f"\nreal ChatGPT export: {len(made)} notes of {len(conversations)} conversations; "
              f"{len(conversations) - len(wrong)} with the kept branch's user messages and no tool text")
        for title, got, want, leaked in wrong:
            print("wrong:", title, [(g, w) for g, w in zip(got, want) if g != w], len(got), len(want), leaked)
    assert wrong == []
    again = cli.json("import", "chatgpt", EXPORT, "--vault", vault)
    assert {i["status"] for i in again["items"]} == {"unchanged"}

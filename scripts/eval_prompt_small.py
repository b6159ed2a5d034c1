"""The prompt hook's relevance bar in small vaults: what the fixed bar (THRESHOLD, set on sample-vault's 61 notes)
and the bar scaled by the vault's size (mdmem.agents.hooks.prompt.threshold) inject, on

- random subsets of sample-vault (6, 10, 20, 40 notes, 12 seeds each): each subset holds the note one of the
  measured related prompts of tests/test_prompt.py is about (the seed picks which) and random others; a hit is
  that note injected first; every subset is also asked the unrelated prompts (tests/test_prompt.py's and the
  trial's "thanks", "run the tests", greetings), which must inject nothing;
- a first-week vault of 6 notes like the trial's, with natural questions about four of them.

The bars: "fixed" (THRESHOLD whatever the size), "scaled" (threshold(): THRESHOLD's ratio to the weight of a
word naming one note in sample-vault, 0.70, kept in a smaller vault) and two stricter ratios, 0.85 and 1.00 (one
name word naming one note just enough). Prints one row per vault size and bar: related prompts answered with their note first / asked, related prompts
answered with another note first, unrelated prompts that injected something / asked.

    python scripts/eval_prompt_small.py
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mdmem.agents.hooks import prompt as hook  # noqa: E402
from mdmem.engine.memory import Memory  # noqa: E402

RELATED = [  # tests/test_prompt.py's measured cases: the prompt and the note it is about
    ("how do we handle adyen webhooks?", "memory/references/adyen-webhooks.md"),
    ("what's the status of atlas billing", "memory/projects/atlas-billing.md"),
    ("ask Ana about the review", "memory/people/ana-souza.md"),
    ("let's add a new dependency for parsing dates", "memory/feedback/ask-before-new-dependencies.md"),
    ("deploy to production tonight", "memory/protocols/deploy-checklist.md"),
    ("o que decidimos sobre a reconciliação", "memory/people/ines-carvalho.md"),
]
UNRELATED = ["hi", "what is 2 + 2", "thanks!", "write a haiku about autumn", "fix the typo in this sentence",
             "refactor this function to use async", "what is the capital of France", "ok, go on",
             "thanks", "run the tests", "hi there", "good morning!", "hello, how are you?", "thanks, that works"]
FIRST_WEEK = {  # the trial's kind of vault: what a first week of `mdmem save` and checkpoints leaves
    "memory/people/Marco.md": ("user", "Marco, backend developer on the billing service",
                               "Marco is a backend developer; he works on the billing service in Elixir."),
    "memory/projects/Billing service.md": ("project", "Phoenix app that invoices customers monthly",
                                           "The billing service is a Phoenix app that invoices customers."),
    "memory/decisions/Postgres for billing.md": ("decision", "Chose PostgreSQL over MongoDB for the billing data",
                                                 "We chose PostgreSQL over MongoDB: invoices need transactions."),
    "memory/protocols/Start the server with iex.md": ("protocol", "always iex -S mix phx.server, never plain",
                                                      "Always start the server with iex -S mix phx.server."),
    "memory/feedback/Short answers.md": ("feedback", "Keep replies under ten lines", "Keep replies short."),
    "memory/references/Stripe webhooks.md": ("reference", "Where Stripe webhook events are handled",
                                             "Stripe webhook events arrive at /webhooks/stripe."),
}
FIRST_WEEK_ASKED = [
    ("why did we pick PostgreSQL for billing?", "memory/decisions/Postgres for billing.md"),
    ("why postgres?", "memory/decisions/Postgres for billing.md"),
    ("how do I start the server?", "memory/protocols/Start the server with iex.md"),
    ("how do stripe webhooks work here?", "memory/references/Stripe webhooks.md"),
]


NOISE: dict[str, dict[str, int]] = {}  # bar -> "prompt -> note" -> times, for the unrelated prompts


def injected(vault: Path, text: str, n: int) -> list[str]:
    out = hook.prompt(str(vault), {"session_id": f"eval{n}", "prompt": text}, {})
    if not out:
        return []
    lines = out["hookSpecificOutput"]["additionalContext"].splitlines()[1:]
    return [line.split(" (", 1)[1].split(")", 1)[0] for line in lines if line.startswith("- ")]


def ask(vault: Path, related: list[tuple[str, str]], tally: dict) -> None:
    Memory(vault).refresh()
    kept = hook.SMALL
    for name, reference, small in (("fixed", 0, 1.0), ("scaled", 61, hook.SMALL), ("k=0.85", 61, 0.85),
                                 ("k=1.00", 61, 1.0)):
        hook.REFERENCE, hook.SMALL = reference, small
        row = tally.setdefault(name, [0, 0, 0, 0, 0])
        for i, (text, note) in enumerate(related):
            got = injected(vault, text, i)
            row[0] += bool(got) and got[0] == note
            row[1] += 1
            row[2] += bool(got) and got[0] != note
        for i, text in enumerate(UNRELATED):
            got = injected(vault, text, 100 + i)
            row[3] += bool(got)
            row[4] += 1
            if got:
                NOISE.setdefault(name, {}).setdefault(f"{text} -> {got[0].rsplit('/', 1)[-1]}", 0)
                NOISE[name][f"{text} -> {got[0].rsplit('/', 1)[-1]}"] += 1
        shutil.rmtree(vault / ".mdmem" / "hooks", ignore_errors=True)
    hook.REFERENCE, hook.SMALL = 61, kept


def subset(folder: Path, size: int, seed: int) -> tuple[Path, tuple[str, str]]:
    sample = ROOT / "sample-vault"
    notes = sorted(str(p.relative_to(sample)) for p in (sample / "memory").rglob("*.md"))
    case = RELATED[seed % len(RELATED)]
    rng = random.Random(seed * 1000 + size)
    chosen = [case[1]] + rng.sample([n for n in notes if n != case[1]], size - 1)
    vault = folder / f"v{size}-{seed}"
    for rel in chosen:
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sample / rel, vault / rel)
    index = [ln for ln in (sample / "MEMORY.md").read_text(encoding="utf-8").splitlines()
             if "](memory/" not in ln or any(f"]({rel})" in ln for rel in chosen)]
    (vault / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return vault, case


def main() -> None:
    os.environ.setdefault("MDMEM_TODAY", "2026-11-25")
    rows: list[tuple[str, dict]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for size in (6, 10, 20, 40):
            tally: dict = {}
            for seed in range(12):
                vault, case = subset(folder, size, seed)
                ask(vault, [case], tally)
            rows.append((f"sample-vault subsets of {size} notes (12)", tally))
        vault = folder / "first-week"
        for rel, (kind, desc, body) in FIRST_WEEK.items():
            (vault / rel).parent.mkdir(parents=True, exist_ok=True)
            (vault / rel).write_text(f"---\ndescription: {desc}\ntype: {kind}\n---\n\n{body}\n", encoding="utf-8")
        tally = {}
        ask(vault, FIRST_WEEK_ASKED, tally)
        rows.append(("first-week vault of 6 notes", tally))
        vault = folder / "sample"
        shutil.copytree(ROOT / "sample-vault", vault)
        tally = {}
        ask(vault, RELATED, tally)
        rows.append(("sample-vault (61)", tally))
    print(f"{'vault':44} {'bar':7} {'related: its note first':>24} {'another first':>14} {'unrelated injecting':>20}")
    for label, tally in rows:
        for name, (hit, asked, wrong, noisy, quiet) in tally.items():
            print(f"{label:44} {name:7} {f'{hit}/{asked}':>24} {wrong:>14} {f'{noisy}/{quiet}':>20}")
    for name, seen in NOISE.items():
        print(f"unrelated prompts that injected, {name} bar: " + "; ".join(f"{k} ({v}x)" for k, v in sorted(seen.items())))


if __name__ == "__main__":
    main()

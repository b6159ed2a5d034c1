"""The user's judge on ``check``'s guessed duplicates (decision 127).

``check`` finds near-duplicate notes by name, text and, for short notes, by meaning (:func:`mdmem.text.similar.
near_duplicates`); a pair found by meaning alone is a guess (about 0.85 precision on held-back real pairs). With a
judge set (:func:`mdmem.base.settings.judge`, the one ``save`` asks), each guessed pair is put to it the way
``save`` asks (:func:`mdmem.ops.judge.ask`: the newer note as the memory, the older as the saved note, their
statements only, fenced): the same, and DUPLICATE says the judge agrees; not the same, and the pair is no
DUPLICATE (nor SUPERSEDE?); no usable answer, and the guess stays, saying why. At most :data:`ASKED_MAX` model
calls a run, the most alike pairs first, and the answers kept in ``.mdmem/`` (:data:`FILE`, by the digest of the
judge's command and the prompt): a second ``check`` with no note changed asks nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mdmem.ops.repeats import MEANING, is_guess

if TYPE_CHECKING:
    from pathlib import Path

    from mdmem.base.models import Note
    from mdmem.base.settings import Judge

ASKED_MAX = 20  # model calls a run at most (a call takes seconds and is not free); the rest wait for the next check
FAILS_MAX = 3  # failed answers in a run after which the judge is asked no more (a model down: 3 timeouts, not 20)
FILE = "judged.json"  # in the state folder: the judge's answers, {"<digest> <old path>": {"notes": [old path],
# "same": old path | None}}: the digest of the judge's command and the prompt (mdmem.ops.judge.digest)

SAME, CLEARED, NO_ANSWER, NOT_ASKED = "same", "not the same", "no answer", "not asked"


@dataclass(frozen=True)
class Judged:
    """The judge's verdict on one guessed pair: ``new`` the note put to it as the memory, ``old`` as the saved note;
    ``verdict`` :data:`SAME`, :data:`CLEARED`, :data:`NO_ANSWER` or :data:`NOT_ASKED`; ``why`` for the last two;
    ``kept``: answered from an answer kept by an earlier run (no model run)."""

    new: str
    old: str
    verdict: str
    why: str | None = None
    kept: bool = False


@dataclass(frozen=True)
class JudgeReport:
    """What the judge did in one ``check``: ``source`` where it was set; model ``calls``; ``kept`` answers taken
    again; the count of each verdict; ``pairs`` the verdict on each guessed pair, most alike first."""

    source: str
    calls: int = 0
    kept: int = 0
    same: int = 0
    cleared: int = 0
    failed: int = 0
    unasked: int = 0
    pairs: list[Judged] = field(default_factory=list)


def judged(judge: Judge, state_dir: Path, pairs: list[tuple[str, str, str]], notes: list[Note],
           read: Callable[[str], bytes | None], skip: Collection[tuple[str, str]] = (), asks: bool = True
           ) -> tuple[list[tuple[str, str, str]], JudgeReport]:
    """``pairs`` (``(a, b, why)``, :func:`mdmem.text.similar.near_duplicates`) with each guess by meaning put to
    ``judge``: a pair it clears left out, one it confirms or could not answer kept, its ``why`` saying so; and the
    verdicts. ``notes``: the notes checked (which of a pair is newer: its date, then its mtime); ``read``: a vault
    path's bytes; ``skip``: pairs not to ask about (one supersedes the other: no DUPLICATE anyway). The answers are
    kept in ``state_dir``/:data:`FILE`, those of this run's pairs only (the file never grows past them). ``asks``:
    False, the judge is not run, only its kept answers used (MCP ``check``)."""
    from mdmem.base.errors import MdmemError
    from mdmem.base.state import read_state, write_state
    from mdmem.ops.judge import ask, digest, prompt
    from mdmem.text.meaning import score

    texts: dict[str, str] = {}

    def text(path: str) -> str:
        if path not in texts:
            texts[path] = _statement(read(path))
        return texts[path]

    when = {n.path: (n.date or "", n.mtime_ns) for n in notes}
    guesses = [(a, b) for a, b, why in pairs if is_guess(why) and (a, b) not in skip]
    guesses.sort(key=lambda ab: (-score(text(ab[0]), text(ab[1])), ab))  # the most alike asked first
    path = str(state_dir / FILE)
    before = read_state(path)
    keep: dict = {}
    out: dict[tuple[str, str], Judged] = {}
    calls = fails = 0
    for a, b in guesses:
        new, old = (a, b) if when.get(a, ("", 0)) > when.get(b, ("", 0)) else (b, a)
        key = digest(judge, prompt(text(new), [("", text(old))]))
        stored = f"{key} {old}"  # two pairs may read alike (a note said word for word twice): one answer each
        one = {key: before[stored]} if stored in before else {}
        asking = asks and calls < ASKED_MAX and fails < FAILS_MAX
        verdict = ask(judge, text(new), [(old, "", text(old))], one, model=asking)
        if key in one:
            keep[stored] = one[key]
        if not verdict.kept and asking:
            calls += 1
        if verdict.error is None:
            out[(a, b)] = Judged(new, old, SAME if verdict.same == old else CLEARED, kept=verdict.kept)
        elif asking:
            fails += 1
            out[(a, b)] = Judged(new, old, NO_ANSWER, verdict.error)
        else:
            why = ("the judge is asked by `mdmem check`, not over MCP: no answer kept for this pair yet" if not asks
                   else f"the judge was not asked: it gave no usable answer {fails} times in this run"
                   if fails >= FAILS_MAX else
                   f"the judge was not asked: at most {ASKED_MAX} questions a run (the next check asks)")
            out[(a, b)] = Judged(new, old, NOT_ASKED, why)
    if keep != before:
        try:
            write_state(path, keep)
        except (OSError, MdmemError):  # a read-only state folder, a symlink there: nothing kept (nor written
            pass  # through a link), the next check asks again
    kept_pairs = []
    for a, b, why in pairs:
        found = out.get((a, b))
        if found is None:
            kept_pairs.append((a, b, why))
        elif found.verdict == SAME:
            kept_pairs.append((a, b, f"{MEANING} (the judge agrees)"))
        elif found.verdict != CLEARED:
            kept_pairs.append((a, b, f"{MEANING}; {found.why}"))
    verdicts = list(out.values())
    count = {v: sum(j.verdict == v for j in verdicts) for v in (SAME, CLEARED, NO_ANSWER, NOT_ASKED)}
    return kept_pairs, JudgeReport(judge.source, calls, sum(j.kept for j in verdicts), count[SAME], count[CLEARED],
                                   count[NO_ANSWER], count[NOT_ASKED], verdicts)


def _statement(data: bytes | None) -> str:
    """What a note states (:func:`mdmem.text.meaning.statement` of its body): what the guess compared."""
    from mdmem.ops.repeats import body_of
    from mdmem.text.meaning import statement

    return statement(body_of(data)) if data else ""

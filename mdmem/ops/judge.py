"""A model's second opinion on a guessed duplicate (decision 122).

Words and vectors guess "the same meaning" at about 0.85 precision on real pairs they were not tuned on, so a
guess only warns (decision 096). When the user sets a judge (a model command: ``--judge``, ``MDMEM_JUDGE`` or
``[judge]`` in their own config, :func:`mdmem.base.settings.judge`), a new memory and the few saved notes it is
related to (:func:`related`: a loose bar that lets nearly every real rewording through) are handed to it, fenced as
data, and its answer decides: the note it names is a repeat, refused like one of the same wording; none, and the
memory is saved with no warning. No answer (a failure, a timeout, an answer that is not the JSON asked for) leaves
the guess as it was: a save never fails because the model is down (it waits at most the judge's ``timeout``).
An answer can be kept (``answers``, by the prompt's digest: what the judge read) and taken again for the same
prompt: ``checkpoint accept`` does not ask twice what ``propose`` asked about notes that did not change
(decision 124).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from mdmem.base.errors import MdmemError
from mdmem.text.fence import NOTICE, fence, quoted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdmem.base.settings import Judge

RELATED_CONTAINED = 0.4  # share of the shorter text's content words in the other (mdmem.text.meaning.lexical)
RELATED_COSINE = {"minilm": 0.5, "use-multilingual-v3": 0.55}  # ... or the vectors' cosine at least this
ASKED_MAX = 3  # saved notes shown to the judge at most, most related first
TEXT_MAX = 2000  # characters of one text shown (a memory is a few lines; a long note's head says what it is)

_HEAD = """\
[mdmem duplicate check] A memory is about to be saved. Say whether it states the same memory as one of the saved \
notes below: the same when saving both would leave two notes for one thing, however worded (a part stated as the \
whole rule with the same effect counts as the same). Not the same when it is a related but other fact: the same \
topic with another rule, the opposite preference, the same sentence shape about another subject, tool, command, \
file, number or scope. In real doubt, answer that it is not the same: refusing a save the user wanted costs more \
than a duplicate kept."""
_ANSWER = """\
Answer with JSON only: {"same": N} with the number of the saved note the new memory repeats, or {"same": null} \
when it repeats none."""


@dataclass(frozen=True)
class Verdict:
    """The judge's answer: ``same`` the note it named (None: none), or ``error`` when it gave no usable answer;
    ``kept``: an answer kept earlier, taken again (no model run)."""

    same: str | None = None
    error: str | None = None
    kept: bool = False


def related(a: str, b: str, cosine: float | None = None, model: str | None = None) -> float | None:
    """How related two memories are, when enough to ask the judge (else None): the share of the shorter one's
    content words in the other, or the vectors' cosine above :data:`RELATED_COSINE`, the larger."""
    from mdmem.text.meaning import lexical

    contained, _ = lexical(a, b)
    near = cosine is not None and cosine >= RELATED_COSINE.get(model or "", 1.0)
    if contained < RELATED_CONTAINED and not near:
        return None
    return max(contained, cosine or 0.0)


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= TEXT_MAX else text[:TEXT_MAX].rstrip() + " […]"


def prompt(new: str, notes: Sequence[tuple[str, str]]) -> str:
    """What the judge reads: the question, the new memory and each saved note (``(name, text)``, numbered from 1),
    each quoted inside its own fence (:mod:`mdmem.text.fence`: a note's text is data, never instructions), and
    how to answer. The same inputs give the same bytes."""
    parts = [_HEAD, NOTICE, "The new memory:\n" + fence(quoted(_cut(new)))]
    for i, (name, text) in enumerate(notes, 1):
        parts.append(f"Saved note {i}:\n" + fence(quoted(f"{name}\n\n{_cut(text)}" if name else _cut(text))))
    parts.append(_ANSWER)
    return "\n\n".join(parts)


_JSON = re.compile(r"\{[^{}]*\}")


def parse(answer: str, count: int) -> int | None:
    """The number the answer names (1..``count``) or None for "none"; ValueError for anything else (the last JSON
    object in the text counts: a model may think aloud before it)."""
    found = _JSON.findall(answer or "")
    if not found:
        raise ValueError("no JSON object in the answer")
    try:
        data = json.loads(found[-1])
    except ValueError:
        raise ValueError("the answer's JSON does not parse") from None
    if not isinstance(data, dict) or "same" not in data:
        raise ValueError('the answer has no "same"')
    value = data["same"]
    if value is None or value is False or value == 0:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= count:
        raise ValueError(f'"same" is {value!r}, not a saved note\'s number or null')
    return value


def digest(judge: Judge, text: str) -> str:
    """What an answer is kept by: the SHA-256 of the judge's command and the prompt ``text`` it reads."""
    return hashlib.sha256(f"{judge.command}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


def ask(judge: Judge, new: str, notes: Sequence[tuple[str, str, str]], answers: dict | None = None,
        model: bool = True) -> Verdict:
    """Ask ``judge`` whether ``new`` repeats one of ``notes`` (``(path, name, text)``, most related first, at
    most :data:`ASKED_MAX`): the path of the one it names, None, or an error said in one line.

    ``answers`` (a JSON-able dict; None: none kept) holds the judge's usable answers by the SHA-256 of its command
    and the prompt, each ``{"notes": [paths shown], "same": path or None}``: one found there is not asked again
    (the same judge would read the same bytes: the same memory, the same notes, each as it reads now, in the same
    order), and an answer just given is added. An error is never kept, an answer naming a note not shown never
    taken."""
    from mdmem.base.command import run

    shown = list(notes)[:ASKED_MAX]
    if not shown:
        return Verdict()
    text = prompt(new, [(name, text) for _, name, text in shown])
    key = digest(judge, text)
    paths = [path for path, _, _ in shown]
    kept = answers.get(key) if answers is not None else None
    if isinstance(kept, dict) and "same" in kept and (kept["same"] is None or kept["same"] in paths):
        return Verdict(same=kept["same"], kept=True)
    if not model:
        return Verdict(error="not asked")
    try:
        number = parse(run(judge.command, text, judge.timeout, "--judge"), len(shown))
    except (MdmemError, ValueError) as e:
        return Verdict(error=f"the judge ({judge.source}) gave no usable answer: {e}")
    same = paths[number - 1] if number is not None else None
    if answers is not None:
        answers[key] = {"notes": paths, "same": same}
    return Verdict(same=same)

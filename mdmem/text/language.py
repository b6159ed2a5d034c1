"""English or Portuguese: the language mdmem answers a conversation in (the checkpoint's prompt,
its suggestions, the hook's one-line message).

A tally of common function words, each counted as a whole whitespace-separated token with its
surrounding punctuation stripped, never inside a longer token: a real session (118 of
eval/data/checkpoint-real, English throughout) was answered in Portuguese because its user pasted a
terminal log full of ``com.apple.…`` identifiers, and the word pattern counted each ``com`` as the
Portuguese "with" (39 "Portuguese" words to 24 English ones). Over the 105 real sessions and the
fixtures' transcripts this is the only guess that changed. Words that are common in both languages
("as", "do", "a") count for neither.

Standard library only and no ``re``: the Stop hook keeps a running tally of what the user typed.
"""

from __future__ import annotations

PT = frozenset("não nao você vc está isso então também obrigado obrigada para pra com uma um que de da os é "
               "fazer agora porque mas já quero preciso vamos".split())
# the Portuguese words above that Spanish writes alike: a Spanish session counted them all as Portuguese and got
# the Portuguese prompt, which asks for Portuguese memories. Spanish is never Portuguese: when the words only
# Spanish has are as many as those only Portuguese has, nothing counts as Portuguese (the prompt is English and
# tells the model to write in the user's language)
_SHARED = frozenset("para que de da os porque mas está".split())
ES = frozenset("el la los las es con una y esto eso pero también quiero necesito hacer ahora gracias usted "
               "muy cómo qué puedes hay del al sí".split())
EN = frozenset("the you is are this that with and to of it please can what how not don't i we want need let's "
               "thanks".split())
_STRIP = ".,;:!?()[]{}\"'`*_<>«»“”‘’"


def tally(text: str) -> tuple[int, int]:
    """(Portuguese, English) function words in ``text``."""
    pt = en = es = only = 0
    for token in text.split():
        word = token.strip(_STRIP).lower()
        if word in PT:
            pt += 1
            only += word not in _SHARED
        elif word in EN:
            en += 1
        elif word in ES:
            es += 1
    return (0 if es and es >= only else pt), en


def choose(pt: int, en: int) -> str:
    """``pt`` when Portuguese words outnumber English ones, else ``en`` (also when there are none)."""
    return "pt" if pt > en else "en"


def guess(text: str) -> str:
    """``pt`` or ``en`` for ``text``."""
    return choose(*tally(text))

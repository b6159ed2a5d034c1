"""How a list of notes names a note: its name, description and the one-line "name — description" the card says.

Here, not in ``ops.context``, because the notes cache keeps each note's line beside its head (``Store`` writes it
with the note: :func:`said` and :func:`marks`), so the card at 10k notes parses and formats none of its 2,300
feedback and protocol lines (decision 063). A note here is anything with ``title`` and ``frontmatter``.
"""

from __future__ import annotations

from mdmem.base.lazy_re import lazy
from mdmem.text.fence import one_line

TYPE_CHECKING = False  # not `from typing import`: the card's hook imports this module
if TYPE_CHECKING:
    from typing import Any, Protocol

ACTIVE = {"active", "ongoing", "in progress", "in-progress", "wip", "ativo", "ativa", "em andamento"}
CLOSED = {"done", "paused", "archived", "cancelled", "canceled", "closed", "dropped", "concluído", "concluido",
          "pausado", "arquivado", "cancelado"}
NEAR_WORDS = 2  # a description that is the name with at most this many words more says nothing more
SCOPED = "p"  # a mark: the note has ``paths:`` globs (a protocol for some files)
OPEN = "o"    # a mark: the note's status is active or unset (a project on the card)


if TYPE_CHECKING:
    class Named(Protocol):
        """A note, a head (:class:`mdmem.engine.heads.Head`) or a search hit: what names it."""

        @property
        def title(self) -> str: ...

        @property
        def frontmatter(self) -> dict[str, Any]: ...


_WORDS = lazy(r"[^\W_]+")  # runs of characters str.isalnum() accepts: \w less "_"


def protocol_paths(note: Named) -> list[str]:
    """The note's ``paths:`` globs (a protocol for some files)."""
    value = note.frontmatter.get("paths")
    if isinstance(value, str):
        value = [value]
    return [p for p in value if isinstance(p, str) and p.strip()] if isinstance(value, list) else []


def description(note: Named) -> str:
    d = note.frontmatter.get("description")
    return one_line(" ".join(d.split())) if isinstance(d, str) else ""


def status(note: Named) -> str:
    s = note.frontmatter.get("status")
    return s.strip().lower() if isinstance(s, str) else ""


def is_open(note: Named) -> bool:
    """A project still going: its status active, or none."""
    s = status(note)
    return s in ACTIVE or not s and s not in CLOSED


def name(note: Named) -> str:
    value = note.frontmatter.get("name")
    return one_line(" ".join(value.split()) if isinstance(value, str) and value.strip() else note.title)


def words(text: str) -> list[str]:
    """The words of ``text``, case folded: its runs of letters and digits."""
    return _WORDS.findall(text.casefold())


def near_words(a: list[str], b: list[str]) -> bool:
    """The same words, or one's words inside the other's with at most :data:`NEAR_WORDS` more."""
    short, long = sorted((a, b), key=len)
    if not short or len(long) - len(short) > NEAR_WORDS:
        return short == long
    return any(long[i:i + len(short)] == short for i in range(len(long) - len(short) + 1))


def said(note: Named) -> str:
    """How a line names ``note``: "name — description"; the description alone when it begins with the
    name (it extends it); the name alone when the description says (nearly) only the name."""
    n, desc = name(note), description(note)
    names, descs = words(n), words(desc)
    if " " in n.strip() and len(descs) > len(names) > 0 and descs[:len(names)] == names:  # it extends the name
        return desc
    return f"{n} — {desc}" if desc and not near_words(descs, names) else n


def marks(note: Named) -> str:
    """What a list needs to know of a note without its frontmatter: :data:`SCOPED`, :data:`OPEN`."""
    return (SCOPED if protocol_paths(note) else "") + (OPEN if is_open(note) else "")

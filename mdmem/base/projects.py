"""Projects: which project a session works in, and which memories belong to it.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/base/projects.py)."""

from __future__ import annotations

import os

from mdmem.base.layout import STATE_DIR
from mdmem.base.lazy_re import lazy

PROJECT_KEY = "project"  # the frontmatter key
_LINK = lazy(r"^\s*\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\\?\|[^\]]*)?\]\]\s*$")
_BAD = lazy(r"[^\w '(),&+-]")  # (compiled when first used: not by the card's hook)


def git_root(folder: str) -> str | None:
    """The nearest ancestor of ``folder`` (itself included) holding ``.git`` (a folder, or a worktree's file)."""
    here = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def clean_name(name: str) -> str:
    """A project's name as a note's file name and link: the marks a file system or a wikilink treats
    specially (``/ \\ : # ^ [ ] | .`` ...) become ``-``, spaces squeezed; at most 60 characters."""
    import unicodedata

    out = " ".join(_BAD.sub("-", unicodedata.normalize("NFC", name)).split()).strip(" -_'(),&+")[:60]
    return out.rstrip(" -_'(,&+") or "project"


def _mapped(folder: str, mapping: dict[str, str]) -> tuple[str, str] | None:
    """``(root, name)`` for the mapped folder that holds ``folder`` (the deepest), else None."""
    best = None
    for where, name in mapping.items():
        root = os.path.abspath(os.path.expanduser(where))
        if (folder == root or folder.startswith(root.rstrip(os.sep) + os.sep)) and (
                best is None or len(root) > len(best[0])):
            best = (root, name)
    return best


def project_of(cwd: str | None, vault: str | None = None, mapping: dict[str, str] | None = None,
               session: bool = True) -> str | None:
    """The project name of a session working in ``cwd`` (see the module's docstring), or None (global).

    ``session``: an agent's session, whose folder is its project even without git; a command typed in a
    terminal (``session=False``) takes a project only from git or the mapping, so that ``mdmem save`` run in
    some folder does not make that folder a project."""
    if not cwd:
        return None
    folder = os.path.abspath(cwd)
    if vault is not None:
        root = os.path.abspath(vault)
        if folder == root or folder.startswith(root.rstrip(os.sep) + os.sep):
            return None
    hit = _mapped(folder, mapping or {})
    if hit:
        return clean_name(hit[1])
    top = git_root(folder) or (folder if session else None)
    if top is None or top == os.path.dirname(top) or top == os.path.expanduser("~"):
        return None
    hit = _mapped(top, mapping or {})
    return clean_name(hit[1] if hit else os.path.basename(top))


def link(name: str) -> str:
    """The frontmatter value naming project ``name``: ``[[name]]``."""
    return f"[[{name}]]"


def note_project(frontmatter: dict) -> str | None:
    """The project a note belongs to (``project: "[[name]]"``, ``[[memory/projects/name|shown]]``, or a plain
    ``name``), its name only; None for a global note."""
    value = frontmatter.get(PROJECT_KEY)
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, str) or not value.strip():
        return None
    m = _LINK.match(value)
    target = m.group(1) if m else value
    target = target.strip().rsplit("/", 1)[-1]
    if target.lower().endswith(".md"):
        target = target[:-3]
    return target.strip() or None


def from_cache(value: object) -> str | None:
    """The project of a note as the notes cache holds it (``json_extract(note, '$[3].project')``: a string, or
    a list as JSON text), its name only; None for a global note."""
    if isinstance(value, str) and value.startswith("[") and not value.startswith("[["):
        import json

        try:
            value = json.loads(value)
        except ValueError:
            pass  # a string that starts with "[": a name as written
    return note_project({PROJECT_KEY: value})


def _key(name: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFC", name).casefold()


class Scope:
    """Which projects' notes a reader sees: the global notes always; ``project``'s (the session's); every
    project's when ``everything``. ``Scope()`` (no project, not everything) sees the global notes only;
    :data:`ALL` sees all."""

    __slots__ = ("project", "everything")

    def __init__(self, project: str | None = None, everything: bool = False) -> None:
        self.project = project
        self.everything = everything

    def sees(self, frontmatter: dict) -> bool:
        return self.sees_name(note_project(frontmatter))

    def sees_name(self, owner: str | None) -> bool:
        return owner is None or self.everything or (self.project is not None and _key(owner) == _key(self.project))

    def key(self) -> str:
        """A short stable text for cache keys (the card kept per project)."""
        return "*" if self.everything else ("" if self.project is None else self.project)

    def __repr__(self) -> str:
        return f"Scope({self.project!r}, everything={self.everything})"


ALL = Scope(None, True)


def scope_for(given: str | None, cwd: str | None, vault: str | None, mapping: dict[str, str] | None = None,
              session: bool = True) -> Scope:
    """The scope of a reader: ``given`` is ``all`` (every project), a project's name, or None (the session's
    own project, from ``cwd``)."""
    if given is not None and given.strip().lower() == "all":
        return ALL
    if given is not None and given.strip():
        return Scope(clean_name(given.strip()))
    return Scope(project_of(cwd, vault, mapping, session))


def mapping(vault: str | None) -> dict[str, str]:
    """``[projects]`` of the vault's config (the one settings reader), read only when the vault has a config
    file: importing the settings module costs a hook ~30 ms (the card, the prompt hook)."""
    if vault is None or not os.path.lexists(os.path.join(vault, STATE_DIR, "config.toml")):
        return {}  # a FIFO or a link is the reader's to refuse, in one line
    from mdmem.base.settings import project_map

    return project_map(vault)


def for_write(vault: str | os.PathLike[str] | None, given: str | None = None, no_project: bool = False, cwd: str | None = None,
              session: bool = False) -> str | None:
    """The project a memory being saved belongs to: none with ``no_project`` (``--global``); ``given``
    (``--project NAME``); else the one of ``cwd`` (default: the current folder; see :func:`project_of`)."""
    if no_project:
        if given:
            from mdmem.base.errors import UsageError

            raise UsageError("--project and --global exclude each other")
        return None
    if given is not None and given.strip():
        return clean_name(given.strip())
    vault = str(vault) if vault is not None else None
    return project_of(cwd or os.getcwd(), vault, mapping(vault), session)


def for_read(vault: str | os.PathLike[str] | None, given: str | None = None, cwd: str | None = None, session: bool = False) -> Scope:
    """What a reader sees: ``given`` (``--project NAME|all``), else the global notes and those of the project of
    ``cwd`` (default: the current folder)."""
    vault = str(vault) if vault is not None else None
    if given is not None and given.strip():
        return scope_for(given, None, vault)
    return scope_for(None, cwd or os.getcwd(), vault, mapping(vault), session)

"""The library behind the CLI: open a vault, bring derived state up to date,
search, show, list links. Returns dataclasses, never prints.

The refresh protocol (what makes ``kill -9`` and concurrent processes safe) is :mod:`mdmem.engine.refresh`.
"""

from __future__ import annotations

import errno
import gc
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from mdmem.base import files as fs
from mdmem.base.errors import AmbiguousNote, NoteArchived, NoteNotFound

if TYPE_CHECKING:
    from mdmem.base.settings import Fusion, Recency, Settings
    from mdmem.engine.graph import LinkGraph
    from mdmem.engine.index import Filters, SearchHit, SearchIndex, SearchResult
from mdmem.base.files import version
from mdmem.base.layout import STATE_DIR, nfc
from mdmem.base.models import Link, Note, Problem
from mdmem.base.state import READ_ONLY_DIR, state_dir, state_key
from mdmem.base.vault import find_vault
from mdmem.engine import refresh as protocol
from mdmem.engine.bodies import Look
from mdmem.engine.refresh import RefreshResult, load_note
from mdmem.engine.store import Head, Store, body_digest
from mdmem.text.parse import snippet_text
from mdmem.text.resolve import Resolver

GRAPH_VERSION = 4  # bump when LinkGraph's attributes change: cached graphs are rebuilt (3: nodes carry
# ``index``; 4: JSON, no pickle)
GRAPH_FILE = "graph.json"
GRAPH_UPDATE_MAX = 2000  # more changed notes than this since the cached graph: rebuild it
BODY_LIMIT = 20_000  # characters of a note lexical search's passage stage reads (as a snippet's text_of)


class NoteText(NamedTuple):
    """A note as stored: its frontmatter (the YAML text, None when it has none), its body and its version."""

    frontmatter: str | None
    body: str
    version: str


@dataclass(frozen=True)
class NoteView:
    path: str
    title: str
    type: str
    tags: list[str]
    aliases: list[str]
    frontmatter: dict
    tokens: int
    problems: list[Problem]
    # where it came from (mdmem.base.provenance.of: source, session, agent, confirmed; a note without `source` is the
    # user's) and, for an agent's note, whether it still waits for the user's confirmation
    provenance: dict = field(default_factory=dict)


@dataclass(frozen=True)
class LinkView:
    raw: str
    target: str | None  # resolved vault path, or None when dangling
    subpath: str | None
    display: str | None
    embed: bool
    kind: str
    line: int
    link: str  # the target as written


@dataclass(frozen=True)
class LinksResult:
    note: str
    links: list[LinkView]


class Memory:
    """One vault: its notes cache, its search index, and what they were built from."""

    def __init__(self, root: Path, *, lock_timeout: float | None = None, procs: int = 2,
                 settings: Settings | None = None) -> None:
        """``settings``: use these, never the vault's config.toml (the SessionStart hook's card goes on with the
        defaults when that file is broken, and says so)."""
        self.root = root
        self._pinned = settings
        self.state_dir = _state_for(root)
        self.lock_timeout = lock_timeout if lock_timeout is not None else float(
            os.environ.get("MDMEM_LOCK_TIMEOUT", "30")
        )
        self.procs = procs
        self.store = Store(self.state_dir)
        self._index: SearchIndex | None = None
        self._scan: fs.Scan | None = None
        self._resolver: Resolver | None = None
        self._graph: LinkGraph | None = None
        self._settings: tuple[tuple, Settings] | None = None

    @property
    def settings(self) -> Settings:
        """The vault's ``.mdmem/config.toml`` (:class:`mdmem.base.settings.Settings`), read once and again
        only when the file changes (one ``stat`` a call: a long-lived MCP server sees an edited config), or when
        the vault's Obsidian settings do (its Daily notes folder and format: ``Settings.daily``)."""
        if self._pinned is not None:
            return self._pinned
        from mdmem.base.obsidian import obsidian_settings
        from mdmem.base.settings import Settings  # (not at import: ~10 ms of the card's hook)

        seen = (fs.stat_note(self.root / STATE_DIR, "config.toml"), obsidian_settings(self.root))
        if self._settings is None or self._settings[0] != seen:
            self._settings = (seen, Settings.load(self.root))
        return self._settings[1]

    @classmethod
    def open(cls, vault: str | os.PathLike | None = None, **kwargs: Any) -> Memory:
        return cls(find_vault(vault), **kwargs)

    @property
    def index(self) -> SearchIndex:
        """The search index (Whoosh), opened on first use: what reads only the notes cache (the SessionStart card
        when no note changed) never imports Whoosh (a third of the hook's imports)."""
        if self._index is None:
            from mdmem.engine.index import SearchIndex

            self._index = SearchIndex(self.state_dir / "index")
        return self._index

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # refresh ---------------------------------------------------------------
    def _set_scan(self, scan: fs.Scan) -> fs.Scan:
        self._scan, self._resolver, self._graph = scan, None, None
        return scan

    @property
    def scan(self) -> fs.Scan:
        return self._scan or self._set_scan(fs.scan(self.root))

    def refresh(
        self,
        rebuild: bool = False,
        progress: Callable[[int, int], None] | None = None,
        strict: bool = True,
        semantic: bool = False,
        no_room_ok: bool = True,
        scan: fs.Scan | None = None,
        index: bool = True,
        known: Look | None = None,
    ) -> RefreshResult:
        """Bring the notes cache and the index up to date with the files.

        ``strict=False`` (read commands) waits at most :data:`~mdmem.engine.refresh.READ_WAIT`
        seconds for another writer when there is an index to answer from, and then
        returns ``stale=True`` instead of raising :class:`LockTimeout`. A
        damaged notes cache is discarded and everything rebuilt.

        When search by meaning is on (vectors exist, ``[semantic] enabled``, or
        ``semantic=True``: ``mdmem index --semantic``) and its extra is
        installed, the vectors are brought up to date in the same locked step.

        A full disk (or a read-only ``.mdmem/``) is not a reason to refuse a read: with ``strict=False``,
        ``no_room_ok`` and an index to answer from, the failed update is dropped (SQLite rolls its transaction back,
        Whoosh's writer is cancelled) and the result says ``stale=True, why="no room"``; the files are
        untouched, and the next refresh with room catches up.

        ``scan``: a walk of the vault the caller has just made (:func:`mdmem.base.files.scan`), used for the first
        look instead of walking again (the SessionStart hook walks once for its fingerprint).

        ``index=False``: the notes cache alone (for a reader of it only: the hooks' card and prompt), when it is
        built: the search index (Whoosh) is neither imported nor written, nor the vectors; what the index lacks
        is kept as its lag (:data:`~mdmem.engine.refresh.INDEX_BEHIND`) and folded in by the next refresh that
        keeps the index.
        ``known``: with ``index=False`` and ``scan``, what changed since the cache was written, as a look at it
        under that walk found (:func:`mdmem.engine.bodies.only_bodies`): used while the cache is still the one
        it looked at (its epoch and generation), so its stats are not read twice."""
        return protocol.refresh(self, rebuild, progress, strict, semantic, no_room_ok, scan, index, known)

    def notes_current(self, scan: fs.Scan | None = None) -> bool:
        """Was the notes cache written from the files as they are (``scan``'s digest, a new walk when None, is the
        one it keeps: :func:`mdmem.base.files.digest`)? The notes cache alone is looked at, never the search
        index: for a reader of the notes cache only (the SessionStart card). The walk becomes this Memory's."""
        return protocol.notes_current(self, scan)

    # reading ---------------------------------------------------------------
    @property
    def resolver(self) -> Resolver:
        if self._resolver is None:
            scan = self.scan
            self._resolver = Resolver([*scan.notes, *scan.broken, *scan.files])
        return self._resolver

    def resolve_note(self, ref: str) -> str:
        """A NOTE argument -> its vault path: an absolute path inside the vault,
        else resolved like a link written in a note at the vault root (vault
        path, file name, title = file name), else the one note whose
        frontmatter ``title``, ``name`` or one of whose ``aliases`` it is (case-insensitive).

        Aliases are command-line lookup only: they never resolve a link (Obsidian's rule, kept by
        :mod:`mdmem.text.resolve`), so ``show Ana`` finds the note whose ``aliases: [Ana]`` while
        ``[[Ana]]`` in a note stays dangling. Several notes sharing the title, name or alias:
        :class:`~mdmem.base.errors.AmbiguousNote` listing them. An archived note's path (under
        ``memory/.archive/``) is named as such, with the way back (``mdmem restore``)."""
        text = ref.strip().replace("\\", "/")
        if os.path.isabs(text) and Path(text).resolve().is_relative_to(self.root.resolve()):
            text = "/" + Path(text).resolve().relative_to(self.root.resolve()).as_posix()  # a vault path
        path = self.resolver.resolve(text, "") if text else None
        if path is not None and path.lower().endswith(".md"):
            return path
        # else a frontmatter title or name, or an alias, when exactly one note has it
        wanted = nfc(" ".join(text.split())).casefold()
        named: dict[str, str] = {}  # path -> what it is called so ("title", "name", "alias")
        for note in self.store.notes() if wanted else ():
            for key in ("title", "name"):
                value = note.frontmatter.get(key)
                if isinstance(value, str) and nfc(" ".join(value.split())).casefold() == wanted:
                    named.setdefault(note.path, key)
            if any(nfc(" ".join(alias.split())).casefold() == wanted for alias in note.aliases):
                named.setdefault(note.path, "alias")
        if len(named) == 1:
            return next(iter(named))
        if named:
            listed = ", ".join(f"{p} ({named[p]})" for p in sorted(named))
            raise AmbiguousNote(f"{ref!r} names {len(named)} notes: {listed}; give its path", sorted(named))
        archived = _archived(self.root, text)
        if archived:
            import shlex

            raise NoteArchived(f"{archived} is an archived (forgotten) note; bring it back with "
                               f"`mdmem restore {shlex.quote(archived)}`", archived)
        close = self.closest_names(text)
        raise NoteNotFound(f"no note matches {ref!r} in {self.root}"
                           + (f"; did you mean {', '.join(close)}?" if close else ""))

    def closest_names(self, ref: str, n: int = 3) -> list[str]:
        """The note names closest to a mistyped ``ref``, best first: file names (without ``.md``) by
        :func:`difflib.get_close_matches` (cutoff 0.6), then, when that finds fewer than ``n``, the words
        of those names (cutoff 0.75: "atlsa" -> ``atlas-billing``), a word only when at most three notes
        have it. A note is given by its file name, or by its path when two notes share it. The names come
        from the walk (no note is loaded): measured at 10k notes on a 2-core machine under load (load
        average ~9), 60-110 ms a call, where loading the notes cache to match titles too cost ~900 ms more."""
        import difflib
        import re

        names: dict[str, set[str]] = {}
        words: dict[str, set[str]] = {}
        for path in (*self.scan.notes, *self.scan.broken):
            stem = nfc(path.rsplit("/", 1)[-1])
            stem = stem[:-3] if stem.lower().endswith(".md") else stem
            names.setdefault(stem.casefold(), set()).add(path)
            for word in re.split(r"[\s_.-]+", stem.casefold()):
                if len(word) >= 4:
                    words.setdefault(word, set()).add(path)
        wanted = nfc(ref).casefold().removesuffix(".md").rsplit("/", 1)[-1]
        out: list[str] = []

        def add(paths: set[str]) -> None:
            for path in sorted(paths):
                stem = nfc(path.rsplit("/", 1)[-1])
                stem = stem[:-3] if stem.lower().endswith(".md") else stem
                label = stem if len(names[stem.casefold()]) == 1 else path
                if label not in out:
                    out.append(label)

        for key in difflib.get_close_matches(wanted, names, n=n, cutoff=0.6):
            add(names[key])
        if len(out) < n:
            common = {w: p for w, p in words.items() if len(p) <= 3}
            for key in difflib.get_close_matches(wanted, common, n=n, cutoff=0.75):
                add(common[key])
        return out[:n]

    def note(self, ref: str) -> Note:
        path = self.resolve_note(ref)
        return self.store.get(path) or load_note(self.root, path)

    def read(self, note: str | Note) -> NoteText:
        """A note (a :class:`Note`, or its vault-relative path) read from disk within the vault's bounds:
        ``(frontmatter, body, version)``. For a name or a title, ``mem.read(mem.note("Ana Souza"))``."""
        from mdmem.text.parse import split_note

        data = fs.read_bytes(self.root, note if isinstance(note, str) else note.path)
        frontmatter, body = split_note(data)
        return NoteText(frontmatter, body, version(data))

    def text_of(self, path: str) -> str:
        """The note's text for a snippet, read again from disk ("" if unreadable)."""
        try:
            return snippet_text(fs.read_bytes(self.root, path))
        except OSError:
            return ""

    def body_of(self, path: str) -> str:
        """The note's Markdown body (frontmatter out, its first :data:`BODY_LIMIT` characters) for lexical search's
        passage stage ("" if unreadable)."""
        from mdmem.text.parse import decode, split_frontmatter

        try:
            text, _ = decode(fs.read_bytes(self.root, path, BODY_LIMIT * 4)[: BODY_LIMIT * 2])
        except OSError:
            return ""
        return split_frontmatter(text)[1][:BODY_LIMIT]

    def show(self, ref: str) -> NoteView:
        from mdmem.base import provenance

        n = self.note(ref)
        shown: dict = provenance.of(n.frontmatter)
        if shown["source"] == "agent":
            shown["unconfirmed"] = provenance.unconfirmed(self.root, n.path, n.frontmatter, state=self.state_dir)
        return NoteView(
            n.path, n.title, n.type, list(n.tags), list(n.aliases), n.frontmatter, n.tokens, list(n.problems), shown
        )

    def links(self, ref: str) -> LinksResult:
        """A note's links, resolved. In a template (the vault's Obsidian templates folder) a link holding a
        ``{{placeholder}}`` is no link: Obsidian fills it in when the template is used."""
        n = self.note(ref)
        resolve = self.resolver.resolve
        template = self.scan.excluded.get(n.path) == "template"
        views = [
            LinkView(
                link.raw, resolve(link.target, n.path), link.subpath, link.display,
                link.embed, link.kind, link.line, link.target,
            )
            for link in n.links if not (template and "{{" in link.raw)
        ]
        return LinksResult(n.path, views)

    def search(
        self,
        query: str,
        limit: int = 10,
        filters: Filters | None = None,
        recency: Recency | None = None,
        mode: str | None = None,
        explain: bool = False,
        fusion: Fusion | None = None,
    ) -> SearchResult:
        """Ranked notes for ``query``: ``lexical`` (BM25F, Whoosh), ``semantic``
        (vectors, :mod:`mdmem.engine.vectors`) or ``hybrid`` (their rank fusion).
        ``recency``, ``mode`` and ``fusion`` default to the vault's ``[search]`` settings."""
        search_settings = self.settings.search
        recency = search_settings.recency if recency is None else recency
        mode = mode or search_settings.mode
        fusion = fusion or search_settings.fusion
        from mdmem.engine.index import Filters, SearchResult

        filters = Filters() if filters is None else filters
        if mode != "lexical":
            from mdmem.engine.search_modes import search

            return search(self, query, limit, filters, recency, mode, explain, fusion)
        hits = self.lexical(query, limit, filters, recency)
        if explain:
            hits = [replace(h, signals={"lexical": {"rank": i, "score": h.score}}) for i, h in enumerate(hits, 1)]
        return SearchResult(query, hits)

    def lexical(self, query: str, limit: int, filters: Filters | None = None, recency: Recency | None = None,
                snippets: bool = True) -> list[SearchHit]:
        from mdmem.base.settings import Recency
        from mdmem.engine.index import Filters, IndexDamaged

        filters = Filters() if filters is None else filters
        recency = Recency() if recency is None else recency
        if not self.index.exists():
            return []
        text_for = self.text_of if snippets else None
        try:
            return self.index.search(query, limit, filters, recency, text_for=text_for, body_of=self.body_of)
        except IndexDamaged:  # a segment file vanished or broke under us: rebuild, ask again
            self.refresh(rebuild=True)
            return self.index.search(query, limit, filters, recency, text_for=text_for, body_of=self.body_of)

    def notes(self) -> Iterable[Note]:
        return self.store.notes()

    def same_body(self, body: str) -> list[str]:
        """The notes whose body, when the cache last read them, was ``body`` but for whitespace
        (:func:`mdmem.engine.store.body_digest`), in path order: no file is read."""
        return self.store.same_body(body_digest(body))

    def heads(self) -> list[Head]:
        """Every note as lists of notes need it (:class:`mdmem.engine.store.Head`: no headings or links, the
        frontmatter parsed on first use): for the card, at a fraction of :meth:`notes`' cost."""
        return self.store.heads()

    # the link graph -----------------------------------------------------------
    def graph(self) -> LinkGraph:
        """The link graph of the notes cache, from ``.mdmem/graph.json`` brought
        up to date with the cache's change log (rebuilt when too far behind)."""
        if self._graph is None:
            self._graph = self._load_graph()
        return self._graph

    def _load_graph(self) -> LinkGraph:
        import json

        from mdmem.engine.graph import LinkGraph

        epoch, gen, pruned = self.store.state()
        files = self.scan.files
        cache = self.state_dir / GRAPH_FILE
        try:
            with _gc_paused():
                data = json.loads(fs.read_outside(cache, fs.MAX_READ))  # a regular file only, bounded
                if data.get("version") != GRAPH_VERSION:
                    raise ValueError(data.get("version"))
                cached_epoch, cached_gen = data["epoch"], data["gen"]
                graph = LinkGraph.from_data(data["graph"])
        except Exception:  # missing, damaged or from another version: derived, so rebuild
            cached_epoch, cached_gen, graph = None, -1, None
        if graph is not None and cached_epoch == epoch and pruned <= cached_gen <= gen:
            changed = self.store.changes_since(cached_gen)
            if not changed and graph.files == frozenset(files):
                return graph
            if len(changed) <= GRAPH_UPDATE_MAX:
                graph.update({p: self.store.get(p) for p in changed}, self.store.get, self.resolver, files)
                self._save_graph(graph, epoch, gen)
                return graph
        with _gc_paused():
            graph = LinkGraph.build(self.store.notes(), self.resolver, files)
        self._save_graph(graph, epoch, gen)
        return graph

    def _save_graph(self, graph: LinkGraph, epoch: str, gen: int) -> None:
        import json

        data = {"version": GRAPH_VERSION, "epoch": epoch, "gen": gen, "graph": graph.to_data()}
        fs.write_atomic(self.state_dir / GRAPH_FILE, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
        if gen > 1000 and gen - self.store.state()[2] > 1000:
            self.store.prune_changes(gen - 100)

    def link(self, path: str, source: str, display: str | None = None, prop: bool = False) -> str:
        """A new link to the vault path ``path`` written in the note ``source``, in the vault's Obsidian link
        style (``.obsidian/app.json``: ``useMarkdownLinks``, ``newLinkFormat``; wikilinks in the shortest form
        without one). ``prop``: the link goes in a frontmatter property, where Obsidian reads wikilinks only."""
        from mdmem.base.obsidian import obsidian_settings
        from mdmem.text.links import format_link

        style = obsidian_settings(self.root)
        return format_link(path, source, markdown=style.markdown_links and not prop, form=style.link_format,
                           resolve=self.resolver.resolve, display=display)

    def resolved_links(self, note: Note) -> list[tuple[Link, str | None]]:
        resolve = self.resolver.resolve
        return [(link, resolve(link.target, note.path)) for link in note.links]


READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)  # what mkdir or a write in a vault mdmem may not write says


def _state_for(root: Path) -> Path:
    """Where the derived state of the vault ``root`` lives (:func:`mdmem.base.state.state_root`, the one place
    that decides it): its ``.mdmem`` (a real folder: :func:`mdmem.base.state.state_dir`, else
    :class:`~mdmem.base.errors.UnsafeState`); the folder the user keeps every vault's state in (``$MDMEM_STATE_DIR``,
    ``[state] folder``); or, when the vault cannot be written (a read-only mount, a vault of another user's), a
    folder of this user's, ``$MDMEM_HOME/read-only/<hash of the vault's path>/.mdmem``: search, the card and every
    read work there (the index built from the notes once, then kept up to date), and nothing is written in the
    vault. Writes of notes fail as the file system says."""
    try:
        return state_dir(root)
    except OSError as e:
        if e.errno not in READ_ONLY:
            raise
    from mdmem.base.layout import mdmem_home

    # writable by its mode, not in fact (a read-only bind mount): the read-only home all the same
    elsewhere = Path(mdmem_home()).expanduser() / READ_ONLY_DIR / state_key(root, named=False)
    os.makedirs(elsewhere, mode=0o700, exist_ok=True)
    return state_dir(elsewhere)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cyclic GC runs again and again while millions of small objects
    are created (unpickling or building a 100k-edge graph): 3x slower. None of
    them is garbage yet, so pause it meanwhile; then freeze what exists, so
    neither later collections nor the one at interpreter exit walk the graph
    again (that exit pass alone cost ~0.4 s at 10k notes)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _archived(root: Path, text: str) -> str | None:
    """``text`` as the vault path of an archived note (``memory/.archive/...``, a flat vault's ``.archive/...``)
    that exists, else None."""
    from mdmem.base.layout import archive_of

    rel = text.lstrip("/")
    if archive_of(rel) is None:
        return None
    for candidate in (rel, rel + ".md"):
        try:
            fs.inside(root, candidate)
        except OSError:
            return None
        if candidate.lower().endswith(".md") and (root / candidate).is_file():
            return candidate
    return None


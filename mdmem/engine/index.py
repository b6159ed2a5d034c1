"""Full-text search over the notes: with :mod:`mdmem.engine.whoosh_load` and :mod:`mdmem.engine.query_plan` (the
query's shape), the only modules that import Whoosh.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/engine/index.py)."""

from __future__ import annotations

import math
import os
import re
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from mdmem.engine.whoosh_load import load_whoosh

load_whoosh()

from whoosh import index as whoosh_index  # noqa: E402
from whoosh import query as q  # noqa: E402
from whoosh.analysis import Token, Tokenizer  # noqa: E402
from whoosh.fields import ID, KEYWORD, TEXT, Schema  # noqa: E402
from whoosh.filedb.filestore import FileStorage  # noqa: E402
from whoosh.filedb.structfile import StructFile  # noqa: E402
from whoosh.lang.porter import stem as porter_stem  # noqa: E402
from whoosh.lang.stopwords import stoplists  # noqa: E402
from whoosh.qparser import FieldsPlugin, MultifieldParser, OrGroup  # noqa: E402
from whoosh.support.charset import accent_map  # noqa: E402
from whoosh.writing import SegmentWriter  # noqa: E402

from mdmem.base.files import NOT_TEXT  # noqa: E402
from mdmem.base.layout import is_index_note, nfc  # noqa: E402
from mdmem.base.models import Note  # noqa: E402
from mdmem.base.settings import Recency  # noqa: E402
from mdmem.engine.query_plan import common_split, lift_nots, positive_terms, union_matchers  # noqa: E402
from mdmem.engine.seal import Seal, Untrusted, is_toc  # noqa: E402
from mdmem.text.query import check_query  # noqa: E402

T = TypeVar("T")
INDEX_NAME = "MAIN"
INDEX_VERSION = "3"  # 3: the ``index`` field (index notes out of hits by default)
PARALLEL_MIN = 300  # from this many notes a build uses worker processes
LIMIT_MB = 96  # Whoosh's in-memory posting pool per writer, before it spills to disk  # bump when the schema or the analysis changes: old indexes are rebuilt
_DEFAULT_FIELDS = ["title", "aliases", "body", "tags"]
_QUESTION_MARKS = re.compile(r"(?<=\w)[?!]+(?=\s|$)|[¿¡]")

PT_STOP = """a ao aos as até com como da das de dela dele deles do dos e ela elas ele eles em
entre era essa esse esta este eu foi for há isso isto já lhe mais mas me mesmo meu minha muito
na nas nem no nos nós num numa o os ou para pela pelas pelo pelos por qual quando que quem se
sem ser seu seus só sua suas também te tem tu um uma umas uns você vocês é está são foram ser
ter sobre porque onde""".split()


class IndexDamaged(Exception):
    """A search failed on the index's files (a segment vanished or broke)."""


@dataclass(frozen=True)
class SearchHit:
    path: str
    title: str
    score: float
    snippet: str
    date: str | None = None
    signals: dict | None = None  # --explain: each signal's rank and score (lexical, semantic, fused)
    superseded_by: list[str] | None = None  # the notes whose ``supersedes`` names this one (set by ops.search)
    valid_until: str | None = None  # its frontmatter ``valid_until`` (ISO), when it has one
    expired: bool = False  # valid_until is before today


@dataclass(frozen=True)
class SearchResult:
    query: str
    results: list[SearchHit]
    mode: str = "lexical"
    sessions: list = field(default_factory=list)  # imported past sessions that answer it (mdmem.ops.search)


@dataclass(frozen=True)
class Filters:
    type: str | None = None
    tag: str | None = None
    folder: str | None = None
    after: str | None = None  # ISO date, inclusive
    before: str | None = None  # ISO date, inclusive
    index: bool = False  # include index notes (MEMORY.md, ``index: true``): out of hits by default
    not_type: str | None = None  # leave out notes of this type (recall leaves out imported sessions)


_WORD = re.compile(r"\w+(?:['’]\w+)?")
_STOP = frozenset(stoplists["en"]) | frozenset(w.translate(accent_map) for w in PT_STOP)
_TERMS: dict[str, str] = {}  # word as written -> indexed term ("" for a stop word)


def term(word: str) -> str:
    """One word -> its indexed term: lower-case; no ``'s``; ``-ões``/``-ães`` -> ``-ão``;
    accents folded; ``""`` for stop words and single letters; Porter stem."""
    text = word.lower().replace("’", "'")
    if text.endswith("'s"):
        text = text[:-2]
    if text.endswith(("ões", "ães")) and len(text) > 4:
        text = text[:-3] + "ão"
    text = text.translate(accent_map)
    if len(text) < 2 or text in _STOP:
        return ""
    return porter_stem(text)


class MemoryAnalyzer(Tokenizer):
    """The whole analysis chain in one pass, with a word cache.

    Equivalent to ``RegexTokenizer | LowercaseFilter | (pt plural) |
    CharsetFilter(accent_map) | StopFilter | StemFilter`` but without a Python
    generator per stage, which made indexing about twice as slow."""

    is_morph = True

    def __call__(self, value: str, positions: bool = False, chars: bool = False, keeporiginal: bool = False,
                 removestops: bool = True, start_pos: int = 0, start_char: int = 0, tokenize: bool = True,
                 mode: str = "", **kwargs: Any) -> Iterator[Any]:
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        terms = _TERMS
        if len(terms) > 500_000:
            terms.clear()
        pos = start_pos
        for m in _WORD.finditer(value):
            word = m.group()
            text = terms.get(word)
            if text is None:
                text = terms[word] = term(word)
            if not text:
                if removestops:
                    continue
                token.stopped, token.text = True, word.lower()
            else:
                token.stopped, token.text = False, text
            token.boost = 1.0
            if keeporiginal:
                token.original = word
            if positions:
                token.pos = pos
                pos += 1
            if chars:
                token.startchar, token.endchar = start_char + m.start(), start_char + m.end()
            yield token


def analyzer() -> MemoryAnalyzer:
    return MemoryAnalyzer()



def schema() -> Any:
    text = analyzer()
    return Schema(
        path=ID(stored=True, unique=True),
        title=TEXT(analyzer=text, field_boost=3.0, stored=True),
        aliases=TEXT(analyzer=text, field_boost=2.0),
        body=TEXT(analyzer=text, phrase=True),
        tags=KEYWORD(lowercase=True, commas=True, scorable=True, field_boost=1.5),
        type=ID(),
        folder=KEYWORD(commas=True),
        date=ID(stored=True),
        index=ID(),
    )


def _ancestors(parts: Iterable[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        bits = part.split("/")
        out.extend("/".join(bits[: i + 1]) for i in range(len(bits)))
    return sorted(set(out))


def document(note: Note) -> dict:
    """The Whoosh document for a note: tags and folders carry their ancestors,
    so ``--tag project`` finds ``project/atlas`` and ``--folder memory`` finds
    ``memory/people``."""
    folder = note.path.rsplit("/", 1)[0] if "/" in note.path else ""
    return {
        "path": note.path,
        "title": note.title,
        "aliases": " ".join(note.aliases),
        "body": note.text,
        "tags": ",".join(_ancestors(note.tags)),
        "type": note.type,
        "folder": ",".join(_ancestors([nfc(folder)])) if folder else "",  # a key: --folder matches any form
        "date": note.date or "",
        "index": "1" if is_index_note(note.path, note.frontmatter) else "",
    }


def snippet(text: str, terms: set[str], width: int = 220) -> str:
    """The window of ``text`` holding the most distinct query terms, matched
    words marked ``**word**``; the opening of the text when nothing matches."""
    flat = " ".join(text.split())
    hits = []
    for m in _WORD.finditer(flat):
        word = m.group()
        found = _TERMS.get(word)
        if found is None:
            found = _TERMS[word] = term(word)
        if found in terms:
            hits.append((m.start(), m.end(), found))
    if not hits:
        return flat[:width].rstrip() + ("…" if len(flat) > width else "")
    best, best_key, j = 0, (-1, 0), 0
    for i, (start, _, _) in enumerate(hits):
        while j < len(hits) and hits[j][1] - start <= width:
            j += 1
        key = (len({h[2] for h in hits[i:j]}), j - i)
        if key > best_key:
            best, best_key = i, key
    start = hits[best][0]
    lo = max(0, start - width // 4)
    if lo:
        space = flat.find(" ", lo)
        lo = space + 1 if 0 <= space < start else lo
    hi = min(len(flat), lo + width)
    if hi < len(flat):
        space = flat.rfind(" ", lo, hi)
        hi = space if space > start else hi
    out, pos = [], lo
    for a, b, _ in hits:
        if a >= lo and b <= hi:
            out += [flat[pos:a], "**", flat[a:b], "**"]
            pos = b
    out.append(flat[pos:hi])
    return ("…" if lo else "") + "".join(out) + ("…" if hi < len(flat) else "")


class SealedStorage(FileStorage):
    """Whoosh's file storage, opening only what the folder's seal vouches for (:mod:`mdmem.engine.seal`): a file
    this process wrote, or one whose content is the sealed one (else :class:`~mdmem.engine.seal.Untrusted`, before
    Whoosh reads a byte of it). Committing a table of contents (its rename into place) seals the folder first.
    ``fresh``: a new index being built, every file in it this process's (or its workers')."""

    def __init__(self, folder: Path, fresh: bool = False) -> None:
        super().__init__(str(folder))
        self.seal = Seal(folder, vault=folder.parent.parent)
        self.fresh = fresh
        self._created: set[str] = set()

    def create_file(self, name: str, *args: Any, **kwargs: Any) -> Any:
        self._created.add(name)
        return super().create_file(name, *args, **kwargs)

    def open_file(self, name: str, **kwargs: Any) -> Any:
        if name in self._created:
            return super().open_file(name, **kwargs)
        return StructFile(os.fdopen(self.seal.open(name), "rb"), name=name, **kwargs)

    def lock(self, name: str) -> Any:
        if os.path.islink(self._fpath(name)):  # Whoosh's lock opens with O_CREAT: never through a planted link
            raise Untrusted(f"{self._fpath(name)} is a symlink")
        return super().lock(name)

    def rename_file(self, oldname: str, newname: str, safe: bool = False) -> None:
        if is_toc(newname):
            self.seal.write((oldname, newname), self._created, self.fresh)
        super().rename_file(oldname, newname, safe)


def _open_dir(folder: Path) -> Any:
    return whoosh_index.FileIndex(SealedStorage(folder), schema=schema(), indexname=INDEX_NAME)


class SearchIndex:
    """A Whoosh index in ``folder``; keeps one searcher open between queries."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._ix = None
        self._searcher = None
        self._passages: dict[str, tuple[str, Any]] = {}  # path -> (body, counted passages): _by_passage
        self._masked: tuple[Any, frozenset[str]] = (None, frozenset())  # (searcher, index notes): masked()
        self._ids: tuple[Any, dict[str, Any]] = (None, {})  # (searcher, query -> its doc numbers): ids()

    def exists(self) -> bool:
        """An index is there and a searcher opens on it (opening reads every
        segment, so a damaged or half-deleted index counts as missing)."""
        if not self.folder.is_dir():
            return False
        try:
            self._searcher_()
        except Exception:  # whoosh raises many kinds on damaged files
            self.close()
            return False
        return True

    def _open(self) -> Any:
        if self._ix is None:
            # our own schema, never the pickled one: an index written by another
            # version of mdmem must not fail to unpickle; and only sealed files (SealedStorage)
            self._ix = _open_dir(self.folder)
        return self._ix

    def build(
        self,
        paths: list[str],
        load: Callable[[str], Note],
        keep: Callable[[Note], T],
        procs: int = 2,
        progress: Callable[[int], None] | None = None,
    ) -> list[T]:
        """Build a new index from the notes ``load(path)`` returns and swap it in
        for the old one, which serves searches until then. Returns
        ``keep(note)`` for every note, in no particular order.

        With ``procs > 1`` each worker process reads, parses and indexes its
        share of the paths into a segment of its own; only the finished
        segments and the ``keep`` values travel back. An interrupted build
        leaves the old index untouched (``index.new`` is discarded next time)."""
        self.close()
        new = self.folder.with_name(self.folder.name + ".new")
        if new.exists():
            shutil.rmtree(new)
        new.mkdir(parents=True)
        ix = whoosh_index.FileIndex.create(SealedStorage(new, fresh=True), schema(), indexname=INDEX_NAME)
        if procs < 2 or len(paths) < PARALLEL_MIN:
            done = [0]

            def tick(n: int) -> None:
                done[0] += n
                if progress:
                    progress(done[0])

            kept = _index_into(ix.writer(limitmb=LIMIT_MB), paths, load, keep, tick, commit=True)
        else:
            segments, kept = _build_sharded(new, paths, load, keep, procs, progress)
            ix.writer().commit(mergetype=lambda _writer, existing: [*existing, *segments])
        ix.close()
        old = self.folder.with_name(self.folder.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        if self.folder.exists():
            os.rename(self.folder, old)
        os.rename(new, self.folder)
        shutil.rmtree(old, ignore_errors=True)
        if progress:
            progress(len(paths))
        return kept

    def update(self, notes: Iterable[Note], removed: Iterable[str], timeout: float = 10.0) -> None:
        """Add or replace ``notes`` and delete ``removed`` paths in one commit."""

        ix = self._open()
        writer = ix.writer(timeout=timeout)
        try:
            for path in removed:
                writer.delete_by_term("path", path)
            for note in notes:
                if _binary(note):  # a file that became binary leaves the index
                    writer.delete_by_term("path", note.path)
                else:
                    writer.update_document(**document(note))
        except BaseException:
            writer.cancel()
            raise
        _commit(writer)

    def refresh(self) -> None:
        """See the latest commit: a new searcher when the index changed. Never
        ``Searcher.refresh()``: Whoosh-Reloaded's reader reuse adds the old
        segments to the new ones, so a long-running process (watch, MCP) saw an
        edited note twice and a deleted one still there."""
        if self._searcher is not None:
            try:
                current = self._searcher.up_to_date()
            except Exception:  # a searcher opened on an empty index, a vanished segment: reopen
                current = False
            if not current:
                self.close()

    def _searcher_(self) -> Any:
        if self._searcher is None:
            try:
                self._searcher = self._open().searcher()
            except Untrusted:  # a rebuild swapped the folder between its seal and a file being read: once more,
                self.close()   # on the folder now in place (a file that really changed is refused again)
                self._searcher = self._open().searcher()
        return self._searcher

    def masked(self) -> frozenset[str]:
        """The paths of the index notes, which search leaves out unless asked (the ``mask`` of :meth:`search`),
        read once a searcher: a new commit opens a new one (:meth:`refresh`)."""
        searcher = self._searcher_()
        if self._masked[0] is not searcher:
            docs = searcher.docs_for_query(q.Term("index", "1"))
            self._masked = (searcher, frozenset(searcher.stored_fields(d)["path"] for d in docs))
        return self._masked[1]

    def ids(self, searcher: Any, query: Any) -> Any:
        """The doc numbers ``query`` matches (a mask's or a filter's), kept while ``searcher`` lasts: Whoosh builds
        them again for every search, and the mask of 10,000 imported sessions cost each one ~0.05-0.15 s."""
        if query is None:
            return None
        if self._ids[0] is not searcher:
            self._ids = (searcher, {})
        kept, key = self._ids[1], repr(query)
        if key not in kept:
            from whoosh.idsets import BitSet

            if len(kept) >= 32:  # date windows make new keys: a bounded cache
                kept.clear()
            kept[key] = BitSet(searcher.docs_for_query(query), size=searcher.doc_count_all())
        return kept[key]

    def types(self) -> set[str]:
        """Every ``type`` a note in the index has (the field's lexicon: no document is read)."""
        return {t.decode("utf-8", "replace") if isinstance(t, bytes) else t
                for t in self._searcher_().lexicon("type")}

    def terms(self, text: str) -> set[str]:
        """The analysed words of a query that snippets mark."""
        return {t for f, t in self.parse_query(text).iter_all_terms() if f in ("title", "aliases", "body")}

    def parse_query(self, text: str) -> Any:
        check_query(text)  # the parser's time grows faster than the query (text/query.py)
        parser = MultifieldParser(_DEFAULT_FIELDS, self._open().schema, group=OrGroup)
        parser.replace_plugin(FieldsPlugin(remove_unknown=True))
        return union_matchers(lift_nots(parser.parse(_QUESTION_MARKS.sub(" ", text))))

    def search(
        self,
        text: str,
        limit: int = 10,
        filters: Filters = Filters(),
        recency: Recency = Recency(),
        text_for: Callable[[str], str] | None = None,
        today: float | None = None,
        body_of: Callable[[str], str] | None = None,
    ) -> list[SearchHit]:
        """Ranked notes; with ``body_of`` (a note's Markdown body by path) the first
        :data:`~mdmem.text.passage_rank.DEPTH` are scored again by their best passage
        (:mod:`mdmem.text.passage_rank`), whose text then gives the snippet."""
        searcher = self._searcher_()
        wanted = self.parse_query(text)
        restrict = []
        if filters.type:
            restrict.append(q.Term("type", filters.type.lower()))
        if filters.tag:
            restrict.append(q.Term("tags", filters.tag.lower().lstrip("#").rstrip("/")))
        if filters.folder:
            restrict.append(q.Term("folder", nfc(filters.folder.strip("/"))))
        if filters.after or filters.before:
            restrict.append(q.TermRange("date", filters.after or "0000", (filters.before or "9999") + "~"))
        if wanted is q.NullQuery and not restrict:
            return []
        if wanted is q.NullQuery:
            wanted = q.Every()
        pool = max(limit * 3, 30) if recency.on else limit
        if body_of is not None:
            from mdmem.text.passage_rank import DEPTH

            pool = max(pool, DEPTH)
        mask = None if filters.index else q.Term("index", "1")
        if filters.not_type:  # masked, not filtered after: a thousand sessions must not crowd the notes out
            unwanted = q.Term("type", filters.not_type.lower())
            mask = unwanted if mask is None else q.Or([mask, unwanted])
        keep, drop = self.ids(searcher, q.And(restrict) if restrict else None), self.ids(searcher, mask)
        if not restrict:  # only the notes the mask lets through count: 10k hidden sessions once cut notes out
            wanted = common_split(wanted, searcher, pool, None if drop is None else lambda d: d not in drop)
        try:
            results = searcher.search(wanted, limit=pool, filter=keep, mask=drop)
            found = [(hit.score, hit["path"], hit["title"], hit.get("date") or None) for hit in results]
        except Exception as e:  # a damaged segment surfaces as any of many errors
            self.close()
            raise IndexDamaged(f"{type(e).__name__}: {e}") from e
        terms = {text for field, text in wanted.iter_all_terms() if field in ("title", "aliases", "body")}
        shown: dict[str, str] = {}
        if body_of is not None and len(found) > 1:
            found, shown = _by_passage(found, positive_terms(wanted), searcher, body_of, self._passages)
        now = today if today is not None else time.time()
        scored = []
        for score, path, title, date in found:
            if recency.on and date:
                age = max(0.0, (now - _epoch(date)) / 86400)
                score *= 1 + recency.weight * math.pow(0.5, age / recency.half_life_days)
            scored.append((score, path, title, date))
        scored.sort(key=lambda hit: -hit[0])
        return [
            SearchHit(path, title, round(score, 4),
                      snippet(shown.get(path) or text_for(path), terms) if text_for is not None else "", date)
            for score, path, title, date in scored[:limit]
        ]

    def close(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None
        if self._ix is not None:
            self._ix.close()
            self._ix = None


def _index_into(writer: Any, paths: Iterable[str], load: Callable[[str], Note], keep: Callable[[Note], T],
                progress: Callable[[int], None], commit: bool) -> list[T]:
    """Index ``paths`` with ``writer``; return their ``keep`` values.
    ``progress(n)`` is told of every 50 notes done."""
    kept = []
    try:
        for i, path in enumerate(paths, 1):
            note = load(path)
            if not _binary(note):
                writer.add_document(**document(note))
            kept.append(keep(note))
            if i % 50 == 0:
                progress(50)
    except BaseException:
        writer.cancel()
        raise
    if commit:
        _commit(writer)
    return kept


def _binary(note: Note) -> bool:
    """A binary file named .md (:func:`mdmem.base.files.binary`): kept in the notes cache, never indexed."""
    return bool(note.problems) and note.problems[0].code == NOT_TEXT


def _commit(writer: Any) -> None:
    """``writer.commit()``, giving Whoosh's write lock back when it fails: a commit that met a full disk
    kept the lock, and a long-running process (the MCP server) then failed every later write with
    ``LockError`` until it was restarted (found by tests/test_hostile.py on a 2 MB tmpfs)."""
    try:
        writer.commit()
    except BaseException:
        try:
            writer.cancel()
        except Exception:  # the same full disk, again: at least free the lock
            if getattr(writer, "writelock", None) is not None:
                try:
                    writer.writelock.release()
                except Exception:
                    pass
        raise


def _build_sharded(folder: Path, paths: list[str], load: Callable[[str], Note], keep: Callable[[Note], T],
                   procs: int, progress: Callable[[int], None] | None) -> tuple[list[Any], list[T]]:
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    counter = ctx.Value("q", 0)
    jobs = [(str(folder), load, keep, paths[i::procs]) for i in range(procs)]
    with ctx.Pool(procs, initializer=_init_shard, initargs=(counter, os.getpid())) as pool:
        pending = pool.map_async(_index_shard, jobs)
        while not pending.ready():
            pending.wait(0.2)
            if progress:
                progress(counter.value)
        results = pending.get()
    return [segment for segment, _ in results], [k for _, shard in results for k in shard]


_COUNTER: Any = None  # a multiprocessing.Value shared with the build's workers
_PARENT = 0


def _init_shard(counter: Any, parent: int) -> None:
    """Worker set-up: share the progress counter, and die with the parent (a
    ``kill -9`` of ``mdmem index`` must not leave workers holding the lock)."""
    global _COUNTER, _PARENT
    _COUNTER, _PARENT = counter, parent
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _shard_progress(done: int) -> None:
    if os.getppid() != _PARENT:  # orphaned (no PDEATHSIG on this platform)
        os._exit(1)
    with _COUNTER.get_lock():
        _COUNTER.value += done


def _index_shard(job: tuple[str, Callable[[str], Note], Callable[[Note], Any], list[str]]) -> tuple[Any, list[Any]]:
    """In a worker process: read, parse and index a share of the notes into a
    segment of its own, as Whoosh's own multi-process writer does with
    ``multisegment=True``; return the segment and the ``keep`` values."""
    folder, load, keep, paths = job
    ix = _open_dir(Path(folder))
    writer = SegmentWriter(ix, _lk=False, limitmb=LIMIT_MB)
    kept = _index_into(writer, paths, load, keep, _shard_progress, commit=False)
    return writer._finalize_segment(), kept


def _term_counts(text: str) -> Counter[str]:
    """{index term: count} of a text (stop words out), through the word cache."""
    terms = _TERMS
    out: Counter[str] = Counter()
    for word, n in Counter(_WORD.findall(text)).items():
        found = terms.get(word)
        if found is None:
            found = terms[word] = term(word)
        if found:
            out[found] += n
    return out


PASSAGE_CACHE = 256  # notes whose counted passages a SearchIndex keeps (by path, checked against the body)


def _by_passage(found: list, wanted: set[str], searcher: Any, body_of: Callable[[str], str],
                cache: dict[str, tuple[str, Any]]) -> tuple[list, dict]:
    """``found`` (score, path, title, date), best first, the first notes scored again by their best passage
    (:mod:`mdmem.text.passage_rank`), and {path: best passage's plain text}; ``cache``: counted passages."""
    from mdmem.text.parse import plain_text
    from mdmem.text.passage_rank import DEPTH, best_passages, blend, count_passages

    if not wanted:
        return found, {}
    idf = {t: searcher.idf("body", t) for t in wanted}
    head = found[:DEPTH]
    counted = []
    for _, path, title, _ in head:
        body = body_of(path)
        kept = cache.get(path)
        if kept is None or kept[0] != body:
            if len(cache) >= PASSAGE_CACHE:
                cache.clear()
            kept = cache[path] = (body, count_passages(body, title or "", _term_counts))
        counted.append(kept[1])
    best = best_passages(counted, idf)
    scores = blend([hit[0] for hit in found], [b for b, _ in best])
    shown = {path: plain_text(text) for (_, path, _, _), (score, text) in zip(head, best) if score > 0}
    return [(s, *hit[1:]) for s, hit in zip(scores, found)], shown


def _epoch(date: str) -> float:
    import datetime as dt

    try:
        return dt.datetime.fromisoformat(date[:10]).replace(tzinfo=dt.UTC).timestamp()
    except ValueError:
        return 0.0

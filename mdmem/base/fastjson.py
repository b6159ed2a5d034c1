"""mdmem's one JSON module. :func:`loads` and :func:`dumps` without ``import json``: CPython's own C scanner
and encoder (``_json``, what :mod:`json` itself uses underneath), for the Stop hook's quiet path and the
transcript readers it runs. :func:`plain` and :func:`encode`: a command's or a tool's result (frozen
dataclasses, tuples, sets) as JSON, for the CLI's ``--json`` and the MCP server (these import :mod:`json`
when called).

Why: measured under load on 2 cores (20 interleaved runs, medians), ``python -c "import json"``
took 1.83x a bare ``python -c pass`` and ``import _json`` 0.98x: :mod:`json` imports ``re``, which
imports ``enum``, and the quiet hook's whole budget is 2x. The same values and errors as
``json.loads`` / ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))`` (a test compares
them); the pure-Python :mod:`json` when ``_json`` is missing (not CPython).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Never


class _Context:
    """What ``_json.make_scanner`` reads from a decoder: :mod:`json`'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]


_SCANNER: Any = None  # _json.make_scanner(...) or a stand-in: (text, at) -> (value, end)
_ENCODER = None
_SPACE = " \t\n\r"


def loads(data: bytes | str) -> Any:
    """``json.loads`` for a document (UTF-8 bytes or text), through ``_json``'s C scanner:
    ValueError when it is not one JSON value."""
    global _SCANNER
    if isinstance(data, (bytes, bytearray)):  # as json.loads reads bytes: UTF-8, a BOM allowed
        text = data.decode("utf-8", "surrogatepass").removeprefix("\ufeff")
    else:
        text = data
    if _SCANNER is None:
        try:
            from _json import make_scanner
        except ImportError:  # not CPython
            import json

            _SCANNER = json.JSONDecoder().raw_decode
        else:
            _SCANNER = make_scanner(_Context())  # type: ignore[arg-type]  # any object with a decoder's attributes
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        value, end = _SCANNER(text, start)
    except StopIteration:
        raise ValueError(f"not JSON at character {start}") from None
    except RecursionError:  # a crafted state file or payload: bad JSON like any other, never a crash
        raise ValueError("JSON nested too deeply") from None
    except SystemError:
        # a malformed document: _json raises json.decoder's error class, which it looks up in sys.modules
        # only (CPython 3.11: SystemError when json was never imported); json says what is wrong
        import json

        return json.loads(text)
    if text[end:].strip(_SPACE):
        raise ValueError(f"extra data after the JSON value at character {end}")
    return value


def dumps(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` through ``_json``'s C encoder."""
    global _ENCODER
    if _ENCODER is None:
        try:
            from _json import encode_basestring, make_encoder
        except ImportError:
            import json

            _ENCODER = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"))  # noqa: E731
        else:
            def default(o: object) -> Never:
                raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

            encoder = make_encoder({}, default, encode_basestring, None, ":", ",", False, False, True)
            _ENCODER = lambda v: "".join(encoder(v, 0))  # noqa: E731
    return _ENCODER(value)


def plain(value: Any) -> Any:
    """A result as JSON-ready data: a dataclass as its dict (``dataclasses.asdict``), anything else as is."""
    import dataclasses

    return dataclasses.asdict(value) if dataclasses.is_dataclass(value) and not isinstance(value, type) else value


def _strict(value: Any) -> Any:
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _lenient(value: Any) -> Any:
    return list(value) if isinstance(value, (set, frozenset, tuple)) else str(value)  # dates in frontmatter, paths


def encode(value: Any, *, indent: int | None = None, lenient: bool = False) -> str:
    """``value`` (:func:`plain` first) as JSON text, non-ASCII kept: indented for a person (``--json``), compact
    without ``indent`` (the MCP server's answers). Tuples and sets become lists; anything else JSON has no
    type for is an error, or with ``lenient`` its ``str`` (a date in frontmatter, a path)."""
    import json

    separators = None if indent is not None else (",", ":")
    return json.dumps(plain(value), ensure_ascii=False, indent=indent, separators=separators,
                      default=_lenient if lenient else _strict)

"""The write guard: the one set of checks every write of a note goes through (save, daily, edit, move, forget,
restore, checkpoint accept; the CLI and the MCP tools alike), so no write path can skip one.

Contract in detail: docs/decisions/060-module-contracts.md (mdmem/ops/guard.py).
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING

from mdmem.base import files as fs
from mdmem.base.errors import MdmemError, UsageError
from mdmem.base.terminal import visible

if TYPE_CHECKING:
    from pathlib import Path


MAX_TEXT = 1 << 20  # characters one write adds at most (a saved memory, an appended text, a section, an entry)
MAX_NOTE = 16 << 20  # bytes a note may reach by a write, and the largest note edited (read whole: < MAX_READ)
assert MAX_NOTE < fs.MAX_READ

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_NAME_BAD = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}\u2028\u2029]")  # every control, newlines and tab too
_TEXT_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # keeps \t \n \r; bidi is text in RTL scripts


class SecretRefused(MdmemError):
    """The text holds what looks like a secret; nothing was written."""


def _what(c: str) -> str:
    return "a NUL" if c == "\0" else ("a newline" if c in "\n\r\u2028\u2029" else f"the control character "
                                                                                     f"{visible(c, False)}")


def name(value: str, what: str = "name") -> str:
    """``value`` when it is a name mdmem writes (see the module's docstring); else :class:`UsageError`."""
    bad = _NAME_BAD.search(value)
    if bad:
        raise UsageError(f"refusing the {what} '{visible(value, False)}': it holds {_what(bad.group())}; "
                         "nothing was written")
    return value


def text(value: str, what: str = "text", allow_secret: bool = False, extra: dict[str, str] | None = None) -> str:
    """``value`` when it may be written into a note: within :data:`MAX_TEXT`, no control character but tab
    and line ends, no secret (nor in the ``extra`` fields: field name -> value) unless ``allow_secret``."""
    bounded(value, what)
    for field_name, field in ((what, value), *(extra or {}).items()):
        bad = _TEXT_BAD.search(field or "")
        if bad:
            line = field.count("\n", 0, bad.start()) + 1
            raise UsageError(f"refusing the {field_name}: it holds {_what(bad.group())} (line {line}); nothing was "
                             "written. Remove it (a note is text; a NUL makes it a binary file)")
    if not allow_secret:
        refuse_secrets(value, what, extra)
    return value


def bounded(value: str, what: str) -> None:
    if len(value) > MAX_TEXT:
        raise UsageError(f"the {what} is {len(value):,} characters long; the most one write adds is {MAX_TEXT:,}")


def refuse_secrets(value: str, what: str = "text", extra: dict[str, str] | None = None) -> None:
    """:class:`SecretRefused` when ``value`` (or one of the ``extra`` fields: name -> value) holds a secret."""
    from mdmem.text.secrets import describe, find

    found = describe(find(value, deep=True))
    for field_name, field in (extra or {}).items():
        if not found and field and find(field, deep=True):
            found = f"the {field_name}: {describe(find(field, deep=True)).split(': ', 1)[1]}"
    if found:
        raise SecretRefused(
            f"refusing to write: the {what} holds what looks like a secret ({found}); nothing was written. "
            "Keep secrets in a password manager and save where to find them; if it is not a secret, the user "
            "can pass --allow-secret on the command line")


def whole(path: str, data: bytes, seen: tuple[int, int] | None) -> None:
    """Refuse to rewrite a note that was not read whole or is over :data:`MAX_NOTE` bytes: what was not read
    would be lost."""
    size = seen[1] if seen else len(data)
    if size > MAX_NOTE or size > len(data):
        raise UsageError(f"{visible(path, False)} is {size:,} bytes; mdmem rewrites notes of at most {MAX_NOTE:,} "
                         "bytes (split it by hand); nothing was written")


def fits(path: str, new: bytes) -> None:
    """Refuse a write that would take the note past :data:`MAX_NOTE` bytes."""
    if len(new) > MAX_NOTE:
        raise UsageError(f"{visible(path, False)} would be {len(new):,} bytes; a note holds at most {MAX_NOTE:,} "
                         "(start another note); nothing was written")


def real_folders(root: Path, rel: str, file_too: bool = True) -> None:
    """Refuse (:class:`MdmemError`) a write at ``rel`` when a folder on its way from the vault's root, or the
    file itself when ``file_too``, is a symlink or not a folder. The root itself may be a symlink."""
    parts = [p for p in rel.replace("\\", "/").split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise UsageError(f"refusing '{visible(rel, False)}': a path inside the vault, without . or ..")
    here = os.fspath(root)
    for i, part in enumerate(parts):
        here = os.path.join(here, part)
        last = i == len(parts) - 1
        try:
            st = os.lstat(here)
        except FileNotFoundError:
            return  # made by the write, as a real folder
        shown = visible("/".join(parts[: i + 1]), False)
        if stat.S_ISLNK(st.st_mode) and (file_too or not last):
            where = _link_target(root, here)
            raise MdmemError(f"refusing to write through {shown}: it is a symbolic link ({where}); mdmem writes "
                             "only through real folders and files. Write to the link's target by its own path, "
                             "or replace the link with a folder")
        if not last and not stat.S_ISDIR(st.st_mode):
            raise MdmemError(f"refusing to write under {shown}: not a folder")


def _link_target(root: Path, path: str) -> str:
    real, top = os.path.realpath(path), os.path.realpath(root)
    if real.startswith(top.rstrip(os.sep) + os.sep):
        return "to " + visible(os.path.relpath(real, top).replace(os.sep, "/"), False)
    return "to a place outside the vault"

"""One exception tree. The CLI turns these into a message on stderr and an exit code."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_CHECK_FAILED = 3


class MdmemError(Exception):
    """Base of every error mdmem reports to a person."""

    exit_code = EXIT_ERROR


class VaultNotFound(MdmemError):
    pass


class NotAVault(VaultNotFound):
    """A vault given (``--vault``, ``MDMEM_VAULT``) is refused: missing (moved, renamed), a file, the root or
    home folder, or a folder holding nothing of a vault (a mistyped path). Exit 2: bad input, one code for
    all of them (:func:`mdmem.base.vault.find_vault` says why)."""

    exit_code = EXIT_USAGE


class NoteNotFound(MdmemError):
    pass


class AmbiguousNote(NoteNotFound):
    """A NOTE argument names several notes (a title, a name or an alias they share); ``paths`` lists them."""

    exit_code = 2

    def __init__(self, message: str, paths: list[str]) -> None:
        self.paths = paths
        super().__init__(message)


class NoteArchived(NoteNotFound):
    """A NOTE argument is an archived (forgotten) note: ``mdmem restore`` brings it back."""

    def __init__(self, message: str, path: str) -> None:
        self.path = path
        super().__init__(message)


class LockTimeout(MdmemError):
    pass


class WriteConflict(MdmemError):
    """A file changed on disk since mdmem read it; nothing was written."""


class UnsafeState(MdmemError):
    """mdmem's state folder (``.mdmem`` or a folder or file in it) is a symlink or not what it should be: nothing is
    read or written through it."""


class UsageError(MdmemError):
    exit_code = EXIT_USAGE


class ConfigError(MdmemError):
    """``.mdmem/config.toml`` cannot be read or holds a bad value."""


class TranscriptError(MdmemError):
    """A session transcript cannot be read."""

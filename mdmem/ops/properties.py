"""mdmem's frontmatter fields registered in Obsidian's ``.obsidian/types.json``, as Obsidian records a
property's type when one is first given (Settings > Properties: ``{"types": {"created": "date", ...}}``,
JSON indented by two spaces, no final newline: the file as Obsidian writes it, e.g. kepano/kepano-obsidian's).

Without it Obsidian guesses a type from the first value it meets: ``created: 2026-12-06`` may become text, and
its date picker, sorting and Bases filters then treat mdmem's dates as strings. Only adding: a field the user
(or Obsidian) already typed keeps its type, whatever it is; a ``types.json`` that is not a JSON object holding a
``types`` object is left as it is (never rewritten over a file mdmem cannot read). Only in an Obsidian vault
(one holding ``.obsidian/``); written atomically, never over a file changed since it was read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from mdmem.base import files as fs
from mdmem.base.errors import MdmemError
from mdmem.base.layout import OBSIDIAN_DIR
from mdmem.base.obsidian import OBSIDIAN_MAX
from mdmem.ops import guard

TYPES_FILE = f"{OBSIDIAN_DIR}/types.json"
# the fields mdmem writes -> Obsidian's property type (text, multitext, number, checkbox, date, datetime, aliases,
# tags); ``supersedes`` is left to Obsidian: one link or a list of them
FIELD_TYPES = {
    "name": "text", "description": "text", "type": "text", "tags": "tags", "aliases": "aliases",
    "created": "date", "updated": "date", "valid_until": "date", "paths": "multitext",
    "chosen": "text", "rejected": "multitext", "sensitive": "checkbox", "index": "checkbox",
    # provenance: who and what a memory came from
    "source": "text", "session": "text", "agent": "text", "project": "text",
}


def register_types(root: Path, keys: Iterable[str]) -> list[str]:
    """Add the types of mdmem's fields among ``keys`` that ``types.json`` lacks; returns the fields added ([] when
    none, when the vault is no Obsidian vault, or when the file cannot be read as Obsidian writes it)."""
    if not (root / OBSIDIAN_DIR).is_dir():
        return []
    wanted = {k: FIELD_TYPES[k] for k in keys if k in FIELD_TYPES}
    if not wanted:
        return []
    try:
        data, seen = fs.read_stat(root, TYPES_FILE, OBSIDIAN_MAX + 1)
    except OSError:
        return []
    content: object = {"types": {}}
    if data is not None:
        try:
            content = json.loads(data.decode("utf-8-sig")) if len(data) <= OBSIDIAN_MAX else None
        except ValueError:
            return []
        if not isinstance(content, dict) or not isinstance(content.setdefault("types", {}), dict):
            return []
    assert isinstance(content, dict)
    types = content["types"]
    added = [k for k in wanted if k not in types]
    if not added:
        return []
    types.update({k: wanted[k] for k in added})
    text = json.dumps(content, ensure_ascii=False, indent=2)
    try:
        guard.real_folders(root, TYPES_FILE)  # never through a symlinked .obsidian (the write guard's rule)
        if seen is None:
            fs.write_new(root / TYPES_FILE, text.encode("utf-8"))
        else:
            fs.write_atomic(root / TYPES_FILE, text.encode("utf-8"), expected=seen)
    except (OSError, MdmemError):  # Obsidian wrote it meanwhile (its file wins; the next write adds them), or a link
        return []
    return added

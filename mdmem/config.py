"""Settings from ``<vault>/.mdmem/config.toml``; read only by the CLI (the composition root).

```toml
[search]
recency_half_life_days = 30   # 0 turns the recency lift off
recency_weight = 0.25         # a note edited today scores x1.25, 30 days ago x1.125
```
A missing or unreadable file means the defaults; a bad value is an error that names the file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from .errors import MdmemError
from .index import Recency
from .vault import STATE_DIR


def load(vault: Path) -> dict[str, Any]:
    path = vault / STATE_DIR / "config.toml"
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise MdmemError(f"cannot read {path}: {e}") from None


def search_recency(vault: Path, enabled: bool = True) -> Recency:
    if not enabled:
        return Recency(0, 0)
    section = load(vault).get("search", {})
    try:
        return Recency(
            float(section.get("recency_half_life_days", Recency.half_life_days)),
            float(section.get("recency_weight", Recency.weight)),
        )
    except (TypeError, ValueError) as e:
        raise MdmemError(f"bad [search] value in {vault / STATE_DIR / 'config.toml'}: {e}") from None


CHECK_KEYS = ("cap", "warn_percent", "stale_days", "oversized_percent", "load_lines", "load_bytes",
              "duplicate_similarity")


def check_settings(vault: Path | None, **flags: Any):
    """``mdmem check``'s caps and thresholds: the defaults, then ``[check]`` in
    the vault's config, then the flags given (``None`` = not given).

    ```toml
    [check]
    cap = 40000               # tokens for the memory files
    warn_percent = 80         # BUDGET WARNING at or above this share of the cap
    stale_days = 30           # STALE after this many days without a change (0 = never)
    oversized_percent = 10    # OVERSIZED: one file above this share of the cap
    load_lines = 200          # an agent loads MEMORY.md's first 200 lines ...
    load_bytes = 25000        # ... or first 25,000 bytes, whichever comes first
    duplicate_similarity = 0.8  # DUPLICATE: Jaccard similarity of word 5-grams
    ```
    """
    from dataclasses import fields

    from .budget import Settings

    section = load(vault).get("check", {}) if vault is not None else {}
    where = vault / STATE_DIR / "config.toml" if vault is not None else "flags"
    if not isinstance(section, dict):
        raise MdmemError(f"[check] in {where} is not a table")
    unknown = sorted(set(section) - set(CHECK_KEYS))
    if unknown:
        raise MdmemError(f"unknown [check] key in {where}: {', '.join(unknown)} (known: {', '.join(CHECK_KEYS)})")
    kinds = {f.name: (int if f.type in ("int", int) else float) for f in fields(Settings)}
    values: dict[str, Any] = {}
    for key, value in section.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                kinds[key] is int and not float(value).is_integer()):
            raise MdmemError(f"bad [check] value in {where}: {key} = {value!r} (wants a number)")
        values[key] = kinds[key](value)
    values.update({k: v for k, v in flags.items() if v is not None})
    try:
        return Settings(**values)
    except ValueError as e:
        raise MdmemError(f"bad [check] settings ({where} or flags): {e}") from None


DIGEST_KEYS = ("archive_daily_after_days",)


def digest_settings(vault: Path | None):
    """``mdmem digest``'s settings: the defaults, then ``[digest]`` in the vault's config.

    ```toml
    [digest]
    archive_daily_after_days = 0   # move daily notes older than this (once their week's and month's
                                   # digests list them) to memory/.archive/daily/; 0 = never
    ```
    """
    from .digest import DigestSettings

    section = load(vault).get("digest", {}) if vault is not None else {}
    where = vault / STATE_DIR / "config.toml" if vault is not None else "defaults"
    if not isinstance(section, dict):
        raise MdmemError(f"[digest] in {where} is not a table")
    unknown = sorted(set(section) - set(DIGEST_KEYS))
    if unknown:
        raise MdmemError(f"unknown [digest] key in {where}: {', '.join(unknown)} "
                         f"(known: {', '.join(DIGEST_KEYS)})")
    values: dict[str, Any] = {}
    for key, value in section.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
            raise MdmemError(f"bad [digest] value in {where}: {key} = {value!r} "
                             "(wants a whole number of days)")
        values[key] = int(value)
    try:
        return DigestSettings(**values)
    except ValueError as e:
        raise MdmemError(f"bad [digest] settings in {where}: {e}") from None


def search_mode(vault: Path) -> str:
    """``[search] mode``: the default of ``--mode`` (lexical, semantic or hybrid)."""
    mode = load(vault).get("search", {}).get("mode", "lexical")
    if mode not in ("lexical", "semantic", "hybrid"):
        raise MdmemError(f"bad [search] mode in {vault / STATE_DIR / 'config.toml'}: {mode!r} "
                         "(lexical, semantic or hybrid)")
    return mode


def search_fusion(vault: Path):
    """``[search] fusion`` (scores or rrf), ``hybrid_lexical_weight``, ``hybrid_semantic_weight``, ``rrf_k``."""
    from .semantic import Fusion

    section = load(vault).get("search", {})
    try:
        fusion = Fusion(float(section.get("hybrid_lexical_weight", Fusion.lexical_weight)),
                        float(section.get("hybrid_semantic_weight", Fusion.semantic_weight)),
                        float(section.get("rrf_k", Fusion.k)), str(section.get("fusion", Fusion.method)))
    except (TypeError, ValueError) as e:
        raise MdmemError(f"bad [search] value in {vault / STATE_DIR / 'config.toml'}: {e}") from None
    if fusion.method not in ("scores", "rrf"):
        raise MdmemError(f"[search] fusion must be \"scores\" or \"rrf\" in {vault / STATE_DIR / 'config.toml'}")
    if min(fusion.lexical_weight, fusion.semantic_weight) < 0 or fusion.k <= 0:
        raise MdmemError(f"[search] hybrid weights must be >= 0 and rrf_k > 0 in {vault / STATE_DIR / 'config.toml'}")
    return fusion

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

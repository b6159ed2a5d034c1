"""docs/python-api.md runs: its Python blocks, in order, in one namespace, on a vault in tmp_path."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "python-api.md"


def blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)


def test_the_python_api_doc_runs(tmp_path: Path, monkeypatch) -> None:
    found = blocks()
    assert len(found) >= 8
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("MDMEM_VAULT", raising=False)
    space: dict = {}
    for number, code in enumerate(found, 1):
        exec(compile(code, f"{DOC.name} block {number}", "exec"), space)
    vault = space["vault"]
    assert vault.is_relative_to(tmp_path) and (vault / "memory" / "people" / "Ana Souza.md").is_file()

"""docs/python-api.md runs (its Python blocks, in order, in one namespace, on a vault in tmp_path) and documents
every public name (its "Every public name" list is ``mdmem.api.__all__``, no more, no less)."""

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


def test_every_public_name_is_documented() -> None:
    import mdmem.api

    text = DOC.read_text(encoding="utf-8")
    reference = text[text.index("\n## Every public name\n"):]
    listed = re.findall(r"^- `(\w+)", reference, re.M)
    assert len(listed) == len(set(listed)), "a name is listed twice"
    assert sorted(set(mdmem.api.__all__) - set(listed)) == [], "public names docs/python-api.md does not list"
    assert sorted(set(listed) - set(mdmem.api.__all__)) == [], "names docs/python-api.md lists that are not public"

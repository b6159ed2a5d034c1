"""The package's layers: imports flow one way, at module level and inside functions.

``base`` < ``text`` < ``engine`` < ``ops`` < ``agents`` < front ends (``cli``, ``mcp_server``, ``mcp_session``).
A module may import its own layer and the layers below it, never one above. ``base`` and
``text`` use only the standard library plus, for ``text``, the parsing libraries; ``base`` is
what the hook fast path stands on, so it imports nothing outside the standard library.
Read from the source with :mod:`ast`, so a function-level import cannot hide.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mdmem"
LAYERS = ["base", "text", "engine", "ops", "agents", "front"]
FRONT = {"cli", "mcp_server", "mcp_session", "__main__", "__init__"}
TEXT_LIBRARIES = {"markdown_it", "frontmatter", "yaml"}


def layer_of(module: str) -> str:
    """``mdmem.ops.capture`` -> ``ops``; the front ends and the package root -> ``front``."""
    parts = module.split(".")
    head = parts[1] if len(parts) > 1 else "__init__"
    return "front" if head in FRONT else head


def modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(rel.parts)
        out.append((name.removesuffix(".__init__"), path))
    return out


def imports(path: Path, module: str, runtime: bool = False) -> list[tuple[int, str]]:
    """Every module an ``import`` statement names, anywhere in the file (absolute form); with ``runtime``,
    not those under ``if TYPE_CHECKING:`` (annotations only: never imported when the code runs)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    typing_only = {id(n) for block in ast.walk(tree) if runtime and isinstance(block, ast.If)
                   and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
                   for n in ast.walk(block)}
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            if target in ("mdmem.base", "mdmem.text", "mdmem.engine", "mdmem.ops", "mdmem.agents", "mdmem.cli"):
                found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def test_every_module_is_in_a_layer() -> None:
    names = [name for name, _ in modules()]
    assert len(names) > 30
    for name in names:
        assert layer_of(name) in LAYERS, name


@pytest.mark.parametrize(("module", "path"), modules(), ids=[m for m, _ in modules()])
def test_imports_flow_one_way(module: str, path: Path) -> None:
    mine = LAYERS.index(layer_of(module))
    bad = []
    for line, target in imports(path, module):
        top = target.split(".")[0]
        if top == "mdmem":
            if target in ("mdmem",) and module != "mdmem":
                if layer_of(module) != "front":
                    bad.append(f"{line}: {target} (the package root re-exports the engine)")
                continue
            if LAYERS.index(layer_of(target)) > mine:
                bad.append(f"{line}: {target}")
        elif layer_of(module) == "base" and top not in sys.stdlib_module_names:
            bad.append(f"{line}: {target} (base is standard library only)")
        elif layer_of(module) == "text" and top not in sys.stdlib_module_names and top not in TEXT_LIBRARIES:
            bad.append(f"{line}: {target} (text uses the standard library and the parsing libraries)")
    assert not bad, f"{module} imports upward:\n" + "\n".join(bad)


def test_the_checker_sees_a_function_level_import(tmp_path: Path) -> None:
    """The rule above is not vacuous: an upward import inside a function is found."""
    fake = tmp_path / "mod.py"
    fake.write_text("def f():\n    from mdmem.ops.capture import save\n    from ..engine import memory\n")
    found = [t for _, t in imports(fake, "mdmem.base.mod")]
    assert "mdmem.ops.capture" in found and "mdmem.engine" in found


@pytest.mark.slow
def test_no_import_cycle_between_modules() -> None:
    """Within a layer, imports form no cycle either (a function-level import counts: it is a way back; one
    under ``if TYPE_CHECKING:`` does not, it only names a type), so every module can be read after the ones
    it uses. A module importing its own package's ``__init__`` (the re-exports) is left out."""
    import networkx as nx

    names = {name for name, _ in modules()}
    graph = nx.DiGraph()
    for module, path in modules():
        for _, target in imports(path, module, runtime=True):
            while target and target not in names:  # `from mdmem.base.files import x` -> mdmem.base.files
                target = target.rpartition(".")[0]
            if target and target != module and not module.startswith(target + "."):
                graph.add_edge(module, target)
    cycles = sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)
    assert not cycles, "import cycles:\n" + "\n".join(", ".join(c) for c in cycles)

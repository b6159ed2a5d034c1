"""The package's layers: imports flow one way, at module level and inside functions.

Inside ``agents``: the agent-neutral packages (``agents.checkpoint``, ``agents.hooks``) never import an
agent's package (``agents.claude``, later ``agents.codex``, ...), and no agent's package imports another's:
an adapter stands on the neutral core alone (docs/decisions/001-layout.md). The front ends (``cli``,
``mcp_server``, ``mcp_session``) reach the library only through its public API (:mod:`mdmem.api`, re-exported
by :mod:`mdmem`), besides ``base`` and the agents' packages; and no module imports another module's private
(``_name``) names.

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
FRONT = {"cli", "mcp_server", "mcp_session", "__main__", "__init__", "api"}
TEXT_LIBRARIES = {"markdown_it", "frontmatter", "yaml"}
NEUTRAL_AGENTS = {"checkpoint", "hooks", "history", "launch", "configs", "connect", "cardfile"}  # agents/ parts that are no agent's


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


def agent_package(module: str) -> str | None:
    """``mdmem.agents.claude.settings`` -> ``claude``; a neutral package, a module outside agents/ -> None."""
    parts = module.split(".")
    if len(parts) > 2 and parts[:2] == ["mdmem", "agents"] and parts[2] not in NEUTRAL_AGENTS:
        return parts[2]
    return None


def agent_imports(module: str, path: Path) -> list[str]:
    """The imports of ``module`` that cross into an agent's package it may not use: any agent's from a
    neutral module, another agent's from an agent's module."""
    mine = agent_package(module)
    bad = []
    for line, target in imports(path, module):
        theirs = agent_package(target)
        if theirs and theirs != mine and (mine is not None or module.startswith("mdmem.agents.")):
            bad.append(f"{line}: {target}")
    return bad


def test_agent_packages_stand_on_the_neutral_core_alone() -> None:
    names = [name for name, _ in modules()]
    assert any(agent_package(n) == "claude" for n in names)
    assert any(n.startswith("mdmem.agents.checkpoint.") for n in names)
    bad = {module: found for module, path in modules() if (found := agent_imports(module, path))}
    assert not bad, "agent packages crossed:\n" + "\n".join(f"{m}: {', '.join(b)}" for m, b in bad.items())


def test_the_agent_rule_sees_a_crossing(tmp_path: Path) -> None:
    """Not vacuous: a neutral module importing Claude's package, and a second agent importing Claude's, are found."""
    fake = tmp_path / "mod.py"
    fake.write_text("def f():\n    from mdmem.agents.claude import transcript\n")
    assert agent_imports("mdmem.agents.checkpoint.mod", fake) == ["2: mdmem.agents.claude"]
    assert agent_imports("mdmem.agents.codex.mod", fake) == ["2: mdmem.agents.claude"]
    assert agent_imports("mdmem.agents.claude.mod", fake) == []
    assert agent_imports("mdmem.cli.mod", fake) == []


FRONT_ENDS = ("mdmem.cli", "mdmem.mcp_server", "mdmem.mcp_session", "mdmem.__main__")
LIBRARY = ("mdmem.text", "mdmem.engine", "mdmem.ops")  # reached by the front ends through mdmem.api only


def library_imports(module: str, path: Path) -> list[str]:
    """A front end's imports of the library that bypass the public API."""
    if not module.startswith(FRONT_ENDS):
        return []
    return [f"{line}: {target}" for line, target in imports(path, module)
            if target.startswith(LIBRARY) and target.split(".")[1] in ("text", "engine", "ops")]


def test_front_ends_use_the_public_api() -> None:
    bad = {module: found for module, path in modules() if (found := library_imports(module, path))}
    assert not bad, "front ends importing the library around mdmem.api:\n" + "\n".join(
        f"{m}: {', '.join(b)}" for m, b in bad.items())


def test_the_public_api_names_resolve() -> None:
    """Every name of mdmem.api (and the package root, which re-exports it) is there."""
    import mdmem
    from mdmem import api

    assert sorted(mdmem.__all__) == sorted([*api.__all__, "__version__"])
    for name in api.__all__:
        assert getattr(mdmem, name) is getattr(api, name), name


def private_imports(module: str, path: Path) -> list[str]:
    """``from mdmem.x import _name`` where mdmem.x is another module: a private name used across modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mdmem") and node.module != module:
            bad += [f"{node.lineno}: {node.module}.{a.name}" for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
    return bad


def test_no_module_imports_another_modules_private_names() -> None:
    bad = {module: found for module, path in modules() if (found := private_imports(module, path))}
    assert not bad, "private names imported across modules:\n" + "\n".join(
        f"{m}: {', '.join(b)}" for m, b in bad.items())


def test_the_api_rules_see_a_breach(tmp_path: Path) -> None:
    """Not vacuous: a front end importing ops directly, and a private import, are found."""
    fake = tmp_path / "mod.py"
    fake.write_text("def f():\n    from mdmem.ops.capture import _clean, save\n")
    assert library_imports("mdmem.cli.mod", fake) == ["2: mdmem.ops.capture"]
    assert library_imports("mdmem.agents.claude.mod", fake) == []
    assert private_imports("mdmem.cli.mod", fake) == ["2: mdmem.ops.capture._clean"]

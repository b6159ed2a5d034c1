"""The evaluation lane: real-data checks that are slower than unit tests (run with `pytest eval`).

It shares the unit tests' isolation and helpers (tests/conftest.py, tests/support.py), so an evaluation runs the
real CLI in the same private HOME as a unit test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))

_spec = importlib.util.spec_from_file_location("mdmem_tests_conftest", TESTS / "conftest.py")
assert _spec and _spec.loader
_unit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_unit)

isolated, vault, cli = _unit.isolated, _unit.vault, _unit.cli


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under eval/ carries the `eval` marker, so `-m "not eval"` leaves it out wherever it is run."""
    for item in items:
        item.add_marker(pytest.mark.eval)

"""simlab's packages point one way (docs/architecture.md): no cycle, no private
import across packages, no import of a higher layer, no lazy import to dodge one."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.architecture.import_graph import build

PACKAGE = Path(__file__).resolve().parents[2] / "simlab"

LAYERS: list[set[str]] = [
    {"core", "stats", "llm", "_argtypes"},  # vocabulary, statistics, LLM clients
    {"spec"},  # YAML models and their loader
    {"contracts", "store", "guards"},  # plugin protocols, session setup; run files; guards
    {"simulators", "agents", "graders"},  # plugins
    {"engine"},  # expansion, session loop, orchestrator
    {"report"},  # summaries and renderers: read run files, never run sessions
    {"perturb", "diagnose", "memory", "replay", "testing"},  # experiments, the fake provider
    {"compare", "routing"},  # release comparison, cost under model routing
    {"api", "cli", "__main__", "pytest_plugin", "simlab"},  # the front door
]
"""Lowest first; a package may import its own layer or lower ones (cycles aside)."""

LAZY_ALLOWED = {
    "simlab.cli": "each command imports what it runs, so `simlab --help` starts fast",
}
"""Modules allowed simlab imports inside functions, and why (never to dodge a cycle)."""


def test_no_cycle_between_packages() -> None:
    assert build(PACKAGE).cycles() == []


def test_no_private_import_across_packages() -> None:
    assert [str(i) for i in build(PACKAGE).private_imports()] == []


def test_every_import_points_down() -> None:
    graph = build(PACKAGE)
    assert graph.unlayered(LAYERS) == set(), "place each new package in LAYERS"
    assert [str(i) for i in graph.upward_imports(LAYERS)] == []


def test_no_lazy_import_of_simlab_outside_the_command_line() -> None:
    assert [str(i) for i in build(PACKAGE).lazy_imports(LAZY_ALLOWED)] == []


def _plant(root: Path, files: dict[str, str]) -> Path:
    package = root / "simlab"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return package


def test_a_planted_cycle_is_found_even_through_type_checking_and_functions(
    tmp_path: Path,
) -> None:
    package = _plant(
        tmp_path,
        {
            "__init__.py": "",
            "engine/__init__.py": "from simlab.store import write\n",
            "store/__init__.py": """
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from simlab.report import Table
                def write() -> None: ...
            """,
            "report/__init__.py": """
                def render() -> None:
                    from simlab.engine import run  # lazy, still an edge
            """,
        },
    )
    graph = build(package)
    assert graph.cycles() == [["engine", "report", "store"]]
    assert [str(i) for i in graph.lazy_imports({})] == [
        "simlab.report:3 imports simlab.engine",
        "simlab.report:3 imports simlab.engine.run",
    ]


def test_a_planted_private_import_is_found(tmp_path: Path) -> None:
    package = _plant(
        tmp_path,
        {
            "__init__.py": "",
            "engine/__init__.py": "",
            "engine/_session.py": "from simlab.store._record import Record\n",
            "engine/_run.py": "from ._session import x  # its own package: fine\n",
            "store/__init__.py": "",
            "store/_record.py": "class Record: ...\n",
        },
    )
    graph = build(package)
    assert graph.cycles() == []
    assert [str(i) for i in graph.private_imports()] == [
        "simlab.engine._session:1 imports simlab.store._record",
        "simlab.engine._session:1 imports simlab.store._record.Record",
    ]


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    package = _plant(
        tmp_path,
        {
            "__init__.py": "",
            "spec/__init__.py": "from simlab.engine import expand\n",
            "engine/__init__.py": "",
        },
    )
    assert [str(i) for i in build(package).upward_imports(LAYERS)] == [
        "simlab.spec:1 imports simlab.engine",
        "simlab.spec:1 imports simlab.engine.expand",
    ]


@pytest.mark.parametrize("layer", LAYERS)
def test_layers_do_not_overlap(layer: set[str]) -> None:
    others = [other for other in LAYERS if other is not layer]
    assert not layer & set().union(*others)

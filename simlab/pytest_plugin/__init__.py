"""simlab's pytest plugin (registered through the ``pytest11`` entry point).

The ``simlab_run`` fixture runs a suite against your target into the test's
temporary folder and returns the ``RunResult``; ``simlab.assert_lower_bound``
asserts on its intervals::

    def test_my_agent(simlab_run):
        result = simlab_run("simlab.yaml", target="my_agent:reply")
        simlab.assert_lower_bound(result, 0.8, by="persona")
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from simlab.api import RunResult, run

RunSuite = Callable[..., RunResult]


@pytest.fixture
def simlab_run(tmp_path: Path) -> RunSuite:
    """Run a suite (a file or a ``Suite``) with ``simlab.run``'s options, quietly,
    into this test's temporary folder; returns the ``RunResult``."""

    def run_suite(suite: Any = None, **options: Any) -> RunResult:
        options.setdefault("out", tmp_path / "simlab-runs")
        options.setdefault("progress", False)
        return run(suite, **options)

    return run_suite

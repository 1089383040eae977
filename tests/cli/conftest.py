"""Fixtures of the CLI tests."""

from pathlib import Path

import pytest
from run_simlab import init_project


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A fresh ``simlab init`` project: ``target: agent:reply`` with ``agent.py`` beside
    it, its domain ``domains/shop`` named by its suite."""
    return init_project(tmp_path)

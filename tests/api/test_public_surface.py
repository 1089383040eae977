"""The public surface stays small: command-line entry points are simlab.cli's, not
a package's exports; the top level names what the docstrings of run cite."""

from __future__ import annotations

import importlib
import pkgutil

import simlab


def test_no_package_exports_a_command_line_entry_point() -> None:
    exported = []
    for info in pkgutil.iter_modules(simlab.__path__):
        if info.name.startswith("_") or not info.ispkg:
            continue
        module = importlib.import_module(f"simlab.{info.name}")
        names = getattr(module, "__all__", [])
        exported += [f"{info.name}.{n}" for n in names if n.endswith("_cli") or n == "cli_main"]
    assert exported == []


def test_the_top_level_exports_the_grader_contract() -> None:
    from simlab.contracts import Grader

    assert simlab.Grader is Grader and "Grader" in simlab.__all__
    assert "simlab.Grader" in (simlab.run.__doc__ or "")

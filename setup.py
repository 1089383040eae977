"""Build step: copy the shipped library into the wheel (metadata is in pyproject.toml).

The default suite and its library live at the top level of the repository
(``simlab.yaml``, ``personas/``, ``goals/``, ``perturbations/``, ``domains/``, and
``schemas/``, which their ``$schema`` lines point to; the starter project
``simlab init`` writes, ``examples/starter/``; and the guides in ``docs/``, which the
starter's comments and ``simlab init`` send a new user to),
where users and docs find them. A wheel must carry them too, so an installed
simlab runs its default suite from any folder: this build step copies them into
the built package as ``simlab/_shipped/`` (real files, same layout), and
``simlab.spec.shipped_root`` looks there first. Git holds each file once. An editable
install copies nothing: it reads the checkout's folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
LIBRARY_DIRS = ("personas", "goals", "perturbations", "domains", "schemas")
LIBRARY_FILES = ("simlab.yaml",)
DOCS = "docs"  # the guides (Markdown): a wheel user has no checkout to read them in
STARTER = Path("examples") / "starter"  # simlab.spec._starter.STARTER: `simlab init` writes it
PACKAGED_DIR = Path("simlab") / "_shipped"  # simlab.spec._shipped.PACKAGED_DIR


class BuildPyWithLibrary(build_py):
    """``build_py``, then the top-level library copied to ``simlab/_shipped/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's own folders
        target = Path(self.build_lib) / PACKAGED_DIR
        shutil.rmtree(target, ignore_errors=True)  # a reused build/ keeps no stale file
        target.mkdir(parents=True)
        for name in LIBRARY_DIRS:
            shutil.copytree(HERE / name, target / name, ignore=_not_spec_files)
        for name in LIBRARY_FILES:
            shutil.copy2(HERE / name, target / name)
        # the starter project whole (its agent.py too), run outputs and caches left out
        not_project = shutil.ignore_patterns("__pycache__", "*.pyc", "results", ".*")
        shutil.copytree(HERE / STARTER, target / STARTER, ignore=not_project)
        shutil.copytree(HERE / DOCS, target / DOCS, ignore=_not_markdown)


def _not_markdown(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if not n.endswith(".md") and not (Path(folder) / n).is_dir()]


def _not_spec_files(folder: str, names: list[str]) -> list[str]:
    # folders are kept: a domain is a folder of YAML (domains/travel/); not a domain's
    # source/, the inputs and scripts its data files were generated from
    spec = (".yaml", ".yml", ".json")
    here = Path(folder)
    return [
        n
        for n in names
        if (n == "source" and here.parent.name == "domains")
        or not (n.endswith(spec) or (here / n).is_dir())
    ]


setup(cmdclass={"build_py": BuildPyWithLibrary})

"""Where simlab's shipped library is: the default suite, its personas, goals and perturbations.

The files live at the top level of the repository (``simlab.yaml``,
``personas/``, ``goals/``, ``perturbations/``, ``domains/``, and ``schemas/`` that their
``$schema`` lines point to). A wheel carries
copies of them in ``simlab/_shipped/`` (``setup.py``'s build step puts them
there, so git holds them once), laid out the same way: the default suite's
library folders are next to it wherever simlab is installed, and an installed
simlab runs its default suite from any folder, with no checkout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

DEFAULT_SUITE = "simlab.yaml"
"""The default suite's file name: ``simlab run`` runs ``./simlab.yaml`` when there is one."""

PACKAGED_DIR = "_shipped"
"""The folder inside the installed ``simlab`` package that holds the wheel's copy."""

LibraryKind = Literal["personas", "goals", "perturbations", "domains"]


def shipped_root() -> Path:
    """The folder holding the shipped default suite and its library folders.

    The installed package's ``_shipped/`` copy when it has one (a wheel or
    ``pip install .``), else the checkout simlab is imported from (an editable
    install, or ``PYTHONPATH`` on a checkout).
    """
    package = Path(__file__).resolve().parents[1]
    packaged = package / PACKAGED_DIR
    if (packaged / DEFAULT_SUITE).is_file():
        return packaged
    return package.parent


def shipped_guide() -> Path:
    """The guide for a team's own agent and domain (``docs/guide.md``; a wheel carries
    the guides in ``_shipped/docs/``)."""
    return shipped_root() / "docs" / "guide.md"


def default_suite() -> Path:
    """The shipped default suite file (every persona x every goal, offline)."""
    return shipped_root() / DEFAULT_SUITE


def shipped_dir(kind: LibraryKind) -> Path:
    """One shipped library folder: ``personas``, ``goals``, ``perturbations`` or ``domains``."""
    return shipped_root() / kind

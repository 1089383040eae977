"""The perturbation library: loading ``perturbations/*.yaml`` and resolving ids.

A session names its perturbations by id (``SessionKey.perturbations``); the
engine and the simulator resolve them here. Libraries loaded for a suite are
registered so every part of the process resolves the same definitions; the
shipped folder is the fallback.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from simlab.spec._loader import Problem, SpecError, load_library
from simlab.spec._perturbation import Perturbation
from simlab.spec._shipped import shipped_dir

PERTURBATION_DIR = "perturbations"
"""The library folder's name, next to a suite file."""

_REGISTERED: dict[str, Perturbation] = {}
_SHIPPED: dict[str, Perturbation] | None = None


def load_perturbations(dirs: Iterable[Path]) -> dict[str, Perturbation]:
    """Every perturbation file under ``dirs``, by id; all problems raised together.

    Raises:
        SpecError: a file is invalid, an id repeats, or a folder is missing.
    """
    return load_library(Perturbation, dirs)


def shipped_dirs() -> list[Path]:
    """Where the shipped library is looked for: ``./perturbations``, then simlab's own.

    simlab's own is the installed package's copy, or the checkout's folder
    (``simlab.spec.shipped_root``), so a wheel install resolves shipped ids from any folder.
    """
    here = Path.cwd() / PERTURBATION_DIR
    found = [p for p in (here, shipped_dir("perturbations")) if p.is_dir()]
    return found[:1]


def register_perturbations(library: Mapping[str, Perturbation]) -> None:
    """Make ``library``'s definitions the ones sessions resolve (over earlier ones)."""
    _REGISTERED.update(library)


def resolve_perturbations(ids: Sequence[str]) -> tuple[Perturbation, ...]:
    """The perturbations named by ``ids``, in order.

    Registered definitions win; the shipped library is loaded on first need.

    Raises:
        SpecError: an id is not in any library (the message lists the known ids).
    """
    global _SHIPPED
    out: list[Perturbation] = []
    for pid in ids:
        found = _REGISTERED.get(pid)
        if found is None:
            if _SHIPPED is None:
                _SHIPPED = load_perturbations(shipped_dirs())
            found = _SHIPPED.get(pid)
        if found is None:
            known = sorted({*_REGISTERED, *(_SHIPPED or {})})
            raise SpecError(
                [Problem(PERTURBATION_DIR, None, pid, f"unknown perturbation; known: {known}")]
            )
        out.append(found)
    return tuple(out)

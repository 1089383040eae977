"""Where a run's suite comes from, and the roles a caller put in its place."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simlab.contracts import SimulatorFactory, TargetFactory
from simlab.spec import Goal, Persona, Suite, load_suite


@dataclass(frozen=True)
class SuiteSource:
    """A suite and the folder its relative paths start from.

    Attributes:
        suite: The suite's configuration.
        base_dir: Where ``personas/``, ``goals/``, an agent file... are looked for.
        path: The suite file, or None for a ``Suite`` built in code.
        personas: Personas given in code (then no persona folder is read).
        goals: Goals given in code (then no goal folder is read).
    """

    suite: Suite
    base_dir: Path
    path: Path | None = None
    personas: Mapping[str, Persona] | None = None
    goals: Mapping[str, Goal] | None = None

    @classmethod
    def from_file(cls, path: Path) -> SuiteSource:
        """The suite in ``path``; its relative paths start from its folder.

        Raises:
            SpecError: the file is not a valid suite.
        """
        return cls(load_suite(path), path.parent, path)


@dataclass(frozen=True)
class RoleOverrides:
    """Parts of a run given by the caller instead of built from the suite.

    Each comes with the name ``run.json`` records and the config hash covers,
    so a run is never resumed with something else in its place.
    """

    target: TargetFactory | None = None
    target_name: str | None = None
    simulator: SimulatorFactory | None = None
    simulator_name: str | None = None
    graders: tuple[Any, ...] | None = None
    grader_names: tuple[str, ...] | None = None

    def names(self) -> dict[str, Any]:
        """What was overridden, by role: the part of ``run.json`` and the config hash."""
        found: dict[str, Any] = {}
        if self.target_name is not None:
            found["target"] = self.target_name
        if self.simulator_name is not None:
            found["simulator"] = self.simulator_name
        if self.grader_names is not None:
            found["graders"] = list(self.grader_names)
        return found


NO_OVERRIDES = RoleOverrides()

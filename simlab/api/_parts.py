"""A caller's own target or simulated user, turned into the factories a run uses.

Each part gets the name ``run.json`` records and the config hash covers:
``module:qualname`` for a function or class, the class's for an instance.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from simlab.agents import object_target_factory
from simlab.contracts import (
    Grader,
    GraderResult,
    GradingContext,
    SessionSetup,
    SimulatorFactory,
    TargetFactory,
    UserSimulator,
)
from simlab.engine import RoleOverrides
from simlab.graders import as_grader, resolve_graders
from simlab.spec import PartSpecError, Suite, suite_with_part

TargetLike = str | BaseModel | Callable[..., Any] | object
"""``reference:v2``, ``module:attr``, a URL, a target spec, or a Python function,
class or object with ``async def reply(history, ctx)``."""

SimulatorLike = str | BaseModel | Callable[[SessionSetup], UserSimulator]
GraderLike = str | Grader | Callable[[GradingContext], GraderResult] | type
"""``scripted``, a simulator spec, or a factory ``setup -> UserSimulator``."""


class PartError(TypeError):
    """A target or simulator given to ``simlab.run`` is not one simlab can use."""


def part_name(obj: Any) -> str:
    """``module:qualname`` of a function or class (of an instance: its class's)."""
    plain = inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj)
    named: Any = obj if plain else type(obj)
    module = getattr(named, "__module__", None) or "?"
    qualname = getattr(named, "__qualname__", None) or type(obj).__name__
    return f"{module}:{qualname}"


def with_parts(
    suite: Suite,
    target: TargetLike | None,
    simulator: SimulatorLike | None,
    graders: Sequence[GraderLike] | None = None,
) -> tuple[Suite, RoleOverrides]:
    """The suite with spec-like parts put in, and the Python objects as overrides."""
    target_factory: TargetFactory | None = None
    target_name: str | None = None
    if isinstance(target, str | BaseModel):
        spec = target.model_dump() if isinstance(target, BaseModel) else target
        suite = _with_field(suite, "target", spec, target)
    elif target is not None:
        target_factory, target_name = _target(target, suite.concurrency)
    sim_factory: SimulatorFactory | None = None
    sim_name: str | None = None
    if isinstance(simulator, str | BaseModel):
        spec = simulator.model_dump() if isinstance(simulator, BaseModel) else {"kind": simulator}
        suite = _with_field(suite, "simulator", spec, simulator)
    elif simulator is not None:
        if not callable(simulator):
            raise PartError(
                f"simulator must be 'scripted', 'llm', a simulator spec or a factory "
                f"setup -> UserSimulator, not {type(simulator).__name__}"
            )
        sim_factory, sim_name = simulator, part_name(simulator)
    grader_objects: tuple[Grader, ...] | None = None
    grader_names: tuple[str, ...] | None = None
    if graders is not None and all(isinstance(g, str) for g in graders):
        grading = suite.grading.model_copy(update={"graders": tuple(graders)})
        suite = suite.model_copy(update={"grading": grading})
    elif graders is not None:
        grader_objects = tuple(_grader(g) for g in graders)
        grader_names = tuple(g if isinstance(g, str) else part_name(g) for g in graders)
    overrides = RoleOverrides(
        target=target_factory,
        target_name=target_name,
        simulator=sim_factory,
        simulator_name=sim_name,
        graders=grader_objects,
        grader_names=grader_names,
    )
    return suite, overrides


def _with_field(suite: Suite, name: str, spec: Any, given: object) -> Suite:
    """``suite`` with its ``name`` field set to ``spec``.

    Raises:
        PartError: ``spec`` is no valid value of the field, each problem said.
    """
    try:
        return suite_with_part(suite.model_dump(), name, spec)
    except PartSpecError as e:
        raise PartError(f"{name} {given!r}: {e}") from None


def _grader(obj: GraderLike) -> Grader:
    if isinstance(obj, str):
        (found,) = resolve_graders([obj], [Path.cwd()])
        return found
    try:
        return as_grader(obj)
    except TypeError as e:
        raise PartError(str(e)) from None


def _target(obj: Any, concurrency: int) -> tuple[TargetFactory, str]:
    name = part_name(obj)
    if not inspect.isclass(obj) and not callable(obj) and callable(getattr(obj, "reply", None)):
        # one object for every session: the caller keeps its state per conversation
        return (lambda setup: obj), name
    try:
        by_seed = object_target_factory(obj, concurrency, name)
    except Exception as e:
        raise PartError(str(e)) from None
    return (lambda setup: by_seed(setup.agent_seed)), name

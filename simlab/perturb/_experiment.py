"""Set up a brittleness experiment from a run directory or a suite, run it, write its files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simlab.core import SessionKey
from simlab.engine import (
    NO_OVERRIDES,
    RoleOverrides,
    SessionJob,
    SessionLimits,
    execute,
    expand,
    plan_new_run,
    run_scoring,
    source_of_run,
    target_factory,
)
from simlab.perturb._brittleness import (
    BrittlenessResult,
    TargetBrittleness,
    brittleness_for_target,
    perturbed_roles,
    run_baseline,
)
from simlab.perturb._summary import brittleness_summary
from simlab.spec import (
    PERTURBATION_DIR,
    Perturbation,
    Problem,
    SpecError,
    Suite,
    load_goals,
    load_personas,
    load_perturbations,
    perturbation_fit,
)
from simlab.store import (
    BRITTLENESS_FILE,
    BRITTLENESS_SESSIONS_FILE,
    Brittleness,
    ChainRerun,
    SessionRecord,
    read_run_info,
    read_sessions,
    write_atomic,
    write_json,
    write_run_info,
)


@dataclass(frozen=True, slots=True)
class Experiment:
    """What a finished experiment produced and where it went."""

    run_dir: Path
    result: BrittlenessResult
    summary: dict[str, Any]


def target_name(suite: Suite) -> str:
    """A short, stable name for the suite's target (``reference:v1``, a callable's ref...)."""
    t = suite.target
    if t.kind == "reference":
        return f"reference:{t.version}"
    if t.kind == "callable":
        return t.ref
    if t.kind == "http":
        return t.url
    if t.kind == "anthropic_http":
        return f"anthropic_http:{t.url}"
    return f"llm:{t.agent}"


def with_target(suite: Suite, target: str) -> Suite:
    """``suite`` with its target replaced by ``target`` (the suite file's short forms)."""
    data = suite.model_dump(mode="json")
    data["target"] = target
    return Suite.model_validate(data)


def _library(suite_dir: Path, where: Path | None) -> dict[str, Perturbation]:
    library = load_perturbations([where or suite_dir / PERTURBATION_DIR])
    if not library:
        raise SpecError([Problem(str(where), None, "", "no perturbation files found")])
    return library


def _jobs(suite: Suite, suite_dir: Path) -> list[SessionJob]:
    personas = load_personas([suite_dir / d for d in suite.persona_dirs])
    goals = load_goals([suite_dir / d for d in suite.goal_dirs])
    return expand(suite, personas, goals)


async def _experiment(
    run_dir: Path,
    suite: Suite,
    suite_dir: Path,
    baseline: list[SessionRecord],
    compare: Sequence[str],
    *,
    max_k: int | None,
    concurrency: int,
    perturbations: Path | None,
    write: bool,
    overrides: RoleOverrides = NO_OVERRIDES,
) -> Experiment:
    library = _library(suite_dir, perturbations)
    shelf = perturbations or suite_dir / PERTURBATION_DIR
    unsayable = perturbation_fit(suite_dir / "simlab.yaml", suite, library, shelf)
    if unsayable:  # each persona's language must have words for every perturbation
        raise SpecError(unsayable)
    jobs = _jobs(suite, suite_dir)
    by_key: dict[SessionKey, SessionJob] = {j.key: j for j in jobs}
    missing = [r.key.id for r in baseline if r.key not in by_key]
    if missing:
        raise SpecError(
            [Problem("run", None, "sessions", f"not in the suite any more: {missing[:3]}")]
        )
    limits = SessionLimits(suite.max_turns, suite.turn_timeout_s, suite.limits)
    scoring = run_scoring(suite, suite_dir, overrides)
    depth = len(library) if max_k is None else min(max_k, len(library))
    targets: dict[str, TargetBrittleness] = {}
    own_name = overrides.target_name or target_name(suite)
    plan: list[tuple[str, Suite, list[SessionRecord] | None]] = [(own_name, suite, baseline)]
    for spec in compare:
        other = with_target(suite, spec)
        plan.append((target_name(other), other, None))
    # one simulated user, scripted or LLM, for compared baselines (their keys carry no
    # perturbations) and every re-run; its LLM client, if any, is closed at the end
    user = perturbed_roles(library, suite, suite_dir)
    concurrency = min(concurrency, user.max_sessions or concurrency)
    try:
        for name, target_suite, records in plan:
            make_target = target_factory(target_suite, suite_dir)
            if name == own_name and overrides.target is not None:  # the run's own, from code
                make_target = overrides.target
            if records is None:  # a compared version's baseline, run in memory
                records = await run_baseline(
                    jobs, make_target, user.simulator, limits, concurrency, scoring
                )
            targets[name] = await brittleness_for_target(
                name, records, by_key, make_target, library, limits,
                max_k=depth, concurrency=concurrency, make_simulator=user.simulator,
                scoring=scoring,
            )  # fmt: skip
    finally:
        await user.aclose()
    result = BrittlenessResult(tuple(sorted(library)), depth, targets)
    summary = brittleness_summary(result)
    if write:
        write_results(run_dir, result, summary)
    return Experiment(run_dir, result, summary)


def write_results(run_dir: Path, result: BrittlenessResult, summary: dict[str, Any]) -> None:
    """Write ``brittleness.json`` and every re-run to ``brittleness_sessions.jsonl``, atomically."""
    lines = []
    for t in result.targets.values():
        for chain in t.sessions:
            for k, record in enumerate(chain.records, 1):
                row = ChainRerun(target=t.target, base=chain.key.id, k=k, record=record)
                lines.append(row.model_dump_json())
    write_atomic(run_dir / BRITTLENESS_SESSIONS_FILE, "".join(f"{line}\n" for line in lines))
    # validated as readers will read it: a writer's slip fails here, not in a report
    Brittleness.model_validate(summary)
    write_json(run_dir / BRITTLENESS_FILE, summary)


async def brittleness_from_run(
    run_dir: Path,
    compare: Sequence[str] = (),
    *,
    max_k: int | None = None,
    concurrency: int = 32,
    perturbations: Path | None = None,
    write: bool = True,
    overrides: RoleOverrides = NO_OVERRIDES,
) -> Experiment:
    """The experiment on a finished run's passing sessions (its target), plus ``compare``.

    Raises:
        RunDirError: the run directory cannot be read.
        SpecError: the suite, library or a compared target is invalid.
    """
    info = read_run_info(run_dir)
    suite = info.suite
    suite_dir = source_of_run(info).base_dir
    baseline = read_sessions(run_dir).records
    return await _experiment(
        run_dir, suite, suite_dir, baseline, compare,
        max_k=max_k, concurrency=concurrency, perturbations=perturbations, write=write,
        overrides=overrides,
    )  # fmt: skip


async def brittleness_from_suite(
    suite_path: Path,
    out: Path,
    *,
    target: str | None = None,
    compare: Sequence[str] = (),
    seed: int | None = None,
    reps: int | None = None,
    max_k: int | None = None,
    concurrency: int = 32,
    perturbations: Path | None = None,
) -> Experiment:
    """Run the suite (against ``target`` when given) into a new run directory, then the experiment.

    Raises:
        SpecError: the suite, library or a target is invalid.
    """
    plan = plan_new_run(suite_path, out, seed=seed, reps=reps)
    suite_dir = suite_path.parent
    if target is not None:
        plan.suite = with_target(plan.suite, target)
    make_target = target_factory(plan.suite, suite_dir)
    baseline = await execute(plan, make_target=make_target)
    if target is not None:  # run.json names the target that really ran
        info = read_run_info(plan.run_dir)
        models = {**info.models, "agent": target_name(plan.suite)}
        write_run_info(
            plan.run_dir, info.model_copy(update={"suite": plan.suite, "models": models})
        )
    return await _experiment(
        plan.run_dir, plan.suite, suite_dir, baseline, compare,
        max_k=max_k, concurrency=concurrency, perturbations=perturbations, write=True,
    )  # fmt: skip

"""``simlab.run``: a whole run from Python — sessions, experiments, prefix cases, reports."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import anyio
from pydantic import TypeAdapter

from simlab.api._parts import GraderLike, SimulatorLike, TargetLike, with_parts
from simlab.api._progress import RunProgress
from simlab.api._result import RunPaths, RunResult
from simlab.diagnose import diagnose_run_async
from simlab.engine import RunPlan, SuiteSource, execute, plan_new_run, plan_resume
from simlab.perturb import brittleness_from_run
from simlab.replay import PrefixResult, run_suite_prefix_cases
from simlab.report import render_run_junit, write_run_reports
from simlab.spec import (
    DEFAULT_SUITE,
    ExecutorSpec,
    Goal,
    Persona,
    Suite,
    default_suite,
    parse_executor,
    run_warnings,
    suite_perturbation_dir,
)
from simlab.store import (
    SESSIONS_FILE,
    SessionRecord,
    iter_lines,
    read_run_info,
    read_sessions,
    write_atomic,
)

DEFAULT_OUT = Path("results")
"""Where runs go when ``out`` is not given."""


class RunInterrupted(Exception):
    """Ctrl-C, SIGTERM or a cancelled task stopped a run; every finished session is saved."""

    def __init__(self, run_dir: Path, retrying: bool) -> None:
        self.run_dir = run_dir
        self.resume = f"simlab run --resume {run_dir}" + (" --retry-errors" if retrying else "")
        super().__init__(
            f"interrupted; every finished session is saved. Continue with: {self.resume}"
        )


def plan(
    suite: str | Path | Suite | None = None,
    *,
    target: TargetLike | None = None,
    simulator: SimulatorLike | None = None,
    graders: Sequence[GraderLike] | None = None,
    out: str | Path | None = None,
    seed: int | None = None,
    reps: int | None = None,
    llm: Sequence[str] = (),
    personas: Sequence[Persona] | None = None,
    goals: Sequence[Goal] | None = None,
    resume: str | Path | None = None,
    retry_errors: bool = False,
    executor: str | ExecutorSpec | None = None,
) -> RunPlan:
    """The run ``run`` would execute (a new run's folder and run.json are written).

    ``executor`` (``local``, ``ray``, ``ray:ADDRESS`` or a spec) puts the sessions
    there instead of where the suite says; a resumed run may change it.

    Raises:
        SpecError: the suite, a persona or a goal is invalid.
        RunDirError: the run to resume cannot be read or its configuration changed.
        PartError: ``target`` or ``simulator`` is nothing simlab can run.
    """
    given = suite is not None or personas is not None or goals is not None
    source = _source(suite, personas, goals) if given or resume is None else None
    overrides_suite = source.suite if source is not None else Suite()
    new_suite, overrides = with_parts(overrides_suite, target, simulator, graders)
    if resume is not None:
        if seed is not None or reps is not None or llm:
            raise ValueError(
                "seed, reps and llm cannot change a run being resumed (it keeps the "
                "options it started with); start a new run to use them"
            )
        path = source.path if source is not None else None
        in_code = source if source is not None and source.path is None else None
        resumed = plan_resume(
            Path(resume), path, retry_errors=retry_errors, overrides=overrides, source=in_code
        )
        resumed.suite = _with_executor(resumed.suite, executor)
        return resumed
    if retry_errors:
        raise ValueError("retry_errors needs resume=RUN_DIR: it re-runs an earlier run's errors")
    assert source is not None
    replaced = {
        name: getattr(new_suite, name).model_dump(mode="json")
        for name in ("target", "simulator", "grading")
        if getattr(new_suite, name) != getattr(source.suite, name)
    }
    source = replace(source, suite=_with_executor(new_suite, executor))
    return plan_new_run(
        source, Path(out or DEFAULT_OUT), seed, reps, tuple(llm), overrides, replaced
    )


def _with_executor(suite: Suite, executor: str | ExecutorSpec | None) -> Suite:
    """``suite`` with its sessions run by ``executor`` (None: where the suite says).

    Raises:
        ValueError: ``executor`` names no executor.
    """
    if executor is None:
        return suite
    spec = _EXECUTOR.validate_python(parse_executor(executor))
    return suite.model_copy(update={"executor": spec})


_EXECUTOR: TypeAdapter[ExecutorSpec] = TypeAdapter(ExecutorSpec)


def _source(
    suite: str | Path | Suite | None,
    personas: Sequence[Persona] | None,
    goals: Sequence[Goal] | None,
) -> SuiteSource:
    by_id_p = None if personas is None else {p.id: p for p in personas}
    by_id_g = None if goals is None else {g.id: g for g in goals}
    if isinstance(suite, Suite):
        return SuiteSource(suite, Path.cwd(), None, by_id_p, by_id_g)
    if suite is None:  # ./simlab.yaml, else the shipped default suite
        here = Path(DEFAULT_SUITE)
        suite = here if here.exists() else default_suite()
    found = SuiteSource.from_file(Path(suite))
    return replace(found, personas=by_id_p, goals=by_id_g)


async def execute_plan(
    run_plan: RunPlan,
    *,
    progress: bool = True,
    junit: str | Path | None = None,
    say: Callable[[str], None] | None = None,
    slim: bool = False,
) -> RunResult:
    """Run a planned run to its end: sessions, experiments, prefix cases, reports.

    ``slim``: the result holds no records (``sessions.jsonl`` has them) and the
    reports read the file back, so memory does not grow with the sessions
    finished (the command line's way). A resumed plan's earlier records are slim
    either way (``plan_resume``: no transcript).

    Raises:
        RunInterrupted: cancelled (Ctrl-C, SIGTERM); finished sessions are saved.
    """
    messages: list[str] = []

    def tell(text: str) -> None:
        messages.append(text)
        if say is not None:
            say(text)

    # said even when quiet: a waived check changes verdicts without a trace elsewhere
    goal_ids = {job.goal.id for job in run_plan.jobs}
    source = run_plan.source
    for warning in run_warnings(source.suite, source.path, source.base_dir, goal_ids):
        (say or _stderr)(f"warning: {warning}")
    bar = RunProgress(len(run_plan.jobs), len(run_plan.done), enabled=progress)
    try:
        with bar:
            records = await execute(run_plan, bar.advance, slim=slim)
    except anyio.get_cancelled_exc_class():
        raise
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise RunInterrupted(run_plan.run_dir, bool(run_plan.retried)) from None
        raise
    not_started = len(run_plan.pending) - bar.finished
    unknown = sum(1 for r in records if r.cost_usd is None)
    if not_started and unknown:
        tell(
            f"budget of ${run_plan.suite.budget_usd:g} cannot be kept: the cost of {unknown} "
            f"sessions is unknown (a model with no price, as the HTTP target reported it), so "
            f"{not_started} of {len(run_plan.jobs)} sessions were not started. Add the model "
            "under the suite's `pricing:` and continue with:\n"
            f"  simlab run --resume {run_plan.run_dir}"
            + (" --retry-errors" if run_plan.retried else "")
        )
    elif not_started:
        tell(
            f"budget of ${run_plan.suite.budget_usd:g} spent: {not_started} of "
            f"{len(run_plan.jobs)} sessions not started. Raise `budget_usd` and continue with:\n"
            f"  simlab run --resume {run_plan.run_dir}"
            + (" --retry-errors" if run_plan.retried else "")
        )
    if run_plan.retried:
        tell(_retried_outcome(run_plan.retried, records))
    if slim:
        records = []  # let them go before the reports: they read the file
    cases = await _experiments(run_plan, tell)
    # a resumed or slim run re-reads its file (slim, the viewer's sessions in full):
    # error records a retry replaced count in its cost
    read_back = slim or bool(run_plan.done or run_plan.retried)
    if read_back:
        summary = write_run_reports(run_plan.run_dir)
    else:
        summary = write_run_reports(run_plan.run_dir, records)
    if junit is not None:
        given = _outcomes(run_plan.run_dir) if read_back else records
        text = render_run_junit(given, summary, f"simlab run {run_plan.run_dir.name}")
        write_atomic(Path(junit), text)
    return RunResult(
        info=read_run_info(run_plan.run_dir),
        paths=RunPaths(run_plan.run_dir),
        summary=summary,
        records=records,
        not_started=not_started,
        prefix_cases=cases,
        messages=messages,
    )


async def _experiments(run_plan: RunPlan, tell: Callable[[str], None]) -> list[PrefixResult]:
    """The suite's experiments on the finished run; their files feed the reports."""
    suite, run_dir = run_plan.suite, run_plan.run_dir
    results: list[PrefixResult] = []
    if suite.prefix_cases:
        results = await run_suite_prefix_cases(suite, run_plan.suite_dir, run_dir)
        tell(_prefix_cases_line(results))
    if "diagnosis" in suite.experiments:
        tell("experiment: coherence diagnosis")
        await diagnose_run_async(run_dir, overrides=run_plan.overrides)
    if "brittleness" in suite.experiments:
        tell("experiment: brittleness (cumulative perturbations)")
        await brittleness_from_run(
            run_dir,
            perturbations=suite_perturbation_dir(suite, run_plan.suite_dir),
            overrides=run_plan.overrides,
        )
    return results


def _outcomes(run_dir: Path) -> Iterator[SessionRecord]:
    """Each key's outcome record in full, in the file's order, read one at a time: the
    JUnit file needs the failed checks' details, which slim records drop, and a large
    run's records in full would not fit in memory together."""
    for _, record in iter_lines(run_dir, read_sessions(run_dir, slim=True).lines):
        yield record


def _prefix_cases_line(results: Sequence[PrefixResult]) -> str:
    """One line for the suite's prefix cases; each case's row is in the reports."""
    kept = sum(1 for r in results if r.keep_rate == 1.0)
    broke = sum(1 for r in results if r.broken)
    return (
        f"prefix cases: {len(results)} replayed; {kept} kept every constraint in every "
        f"replay that acted, {broke} broke one at least once (each case's keep-rate and "
        "interval: the report's Prefix regression cases table)"
    )


def _retried_outcome(retried: Sequence[SessionRecord], records: Sequence[SessionRecord]) -> str:
    """One line: how the retried error sessions ended this time."""
    before = {r.key: r for r in retried}
    # execute hands back the very error record of a key whose retry never started
    again = [r for r in records if r.key in before and r is not before[r.key]]
    graded = sum(1 for r in again if r.status == "ok")
    n, bad = len(before), len(again) - graded
    return (
        f"retried {len(again)} of {n} error session{'' if n == 1 else 's'}: "
        f"{graded} graded, {bad} error{'' if bad == 1 else 's'} again"
    )


async def run_async(
    suite: str | Path | Suite | None = None,
    *,
    target: TargetLike | None = None,
    simulator: SimulatorLike | None = None,
    graders: Sequence[GraderLike] | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    seed: int | None = None,
    reps: int | None = None,
    llm: Sequence[str] = (),
    personas: Sequence[Persona] | None = None,
    goals: Sequence[Goal] | None = None,
    resume: str | Path | None = None,
    retry_errors: bool = False,
    junit: str | Path | None = None,
    executor: str | ExecutorSpec | None = None,
) -> RunResult:
    """``simlab.run`` inside a running event loop (anyio: asyncio or trio; the Ray
    executor needs asyncio)."""
    run_plan = plan(
        suite,
        target=target,
        simulator=simulator,
        graders=graders,
        out=out,
        seed=seed,
        reps=reps,
        llm=llm,
        personas=personas,
        goals=goals,
        resume=resume,
        retry_errors=retry_errors,
        executor=executor,
    )
    try:
        return await execute_plan(
            run_plan, progress=progress, junit=junit, say=_stderr if progress else None
        )
    except Exception as e:
        if not isinstance(e, RunInterrupted):
            _discard_if_empty(run_plan)
        raise


def run(
    suite: str | Path | Suite | None = None,
    *,
    target: TargetLike | None = None,
    simulator: SimulatorLike | None = None,
    graders: Sequence[GraderLike] | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    seed: int | None = None,
    reps: int | None = None,
    llm: Sequence[str] = (),
    personas: Sequence[Persona] | None = None,
    goals: Sequence[Goal] | None = None,
    resume: str | Path | None = None,
    retry_errors: bool = False,
    junit: str | Path | None = None,
    executor: str | ExecutorSpec | None = None,
) -> RunResult:
    """Run a suite against a target and write its run directory and reports.

    Everything ``simlab run`` does: the sessions (appended to
    ``sessions.jsonl`` as each finishes), the suite's experiments and prefix
    cases, ``summary.json``, ``report.md`` and ``report.html``.

    Args:
        suite: A suite file (default ``simlab.yaml``) or a ``Suite`` built in
            code (its relative paths start from the current folder).
        target: In place of the suite's target: ``"reference:v2"``,
            ``"module:attr"``, a URL, or a Python function ``(messages, ctx)``
            (sync or async), a class with ``async def reply(history, ctx)``
            (one instance per session) or such an object. run.json records
            what ran and a resume with another target is refused.
        simulator: In place of the suite's simulated user: ``"scripted"``,
            ``"llm"`` or a factory ``setup -> UserSimulator``.
        graders: Graders in place of the suite's list (names, ``module:attr``
            or objects implementing ``simlab.Grader``).
        out: The results folder (default ``results``); the run is a new folder in it.
        progress: Draw a progress bar and say what happens on stderr.
        seed: Override the suite's seed.
        reps: Override the suite's repetitions.
        llm: LLM roles, as ``simlab run --llm`` takes them.
        personas: Personas given in code (no persona folder is read).
        goals: Goals given in code (no goal folder is read).
        resume: Continue this interrupted run instead of starting one.
        retry_errors: With ``resume``: run error sessions again.
        junit: Also write the sessions as JUnit XML to this file.
        executor: Where the sessions run, in place of the suite's ``executor:``:
            ``"local"``, ``"ray"`` (``pip install 'simlab[ray]'``) or
            ``"ray:ADDRESS"``. Records do not depend on it.

    Returns:
        The run's result: its summary as a model, its records and paths.

    Raises:
        SpecError: the suite, a persona or a goal is invalid (every problem, with file:line).
        RunDirError: the run to resume cannot be read, or it changed.
        RunInterrupted: Ctrl-C stopped it; finished sessions are saved.
    """
    return anyio.run(
        lambda: run_async(
            suite,
            target=target,
            simulator=simulator,
            graders=graders,
            out=out,
            progress=progress,
            seed=seed,
            reps=reps,
            llm=llm,
            personas=personas,
            goals=goals,
            resume=resume,
            retry_errors=retry_errors,
            junit=junit,
            executor=executor,
        )
    )


def _stderr(text: str) -> None:
    print(text, file=sys.stderr)


def _discard_if_empty(run_plan: RunPlan) -> None:
    """A run that could not start leaves no folder behind."""
    sessions = run_plan.run_dir / SESSIONS_FILE
    if not run_plan.done and (not sessions.exists() or sessions.stat().st_size == 0):
        shutil.rmtree(run_plan.run_dir, ignore_errors=True)

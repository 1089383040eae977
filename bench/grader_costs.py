"""What the graders' hot functions cost per session, a git ref's against the working tree's.

Runs a suite once (``engine_throughput.measure``, one process) and keeps every graded
session's context and checks, and every final action the scripted user judged. Then
times, on those, each function of REF's ``simlab/graders/_stages.py``,
``_efficiency.py`` and ``_action.py`` (loaded from ``git archive REF`` under other
module names; what they import is the working tree's, so a REF whose graders import a
module the tree no longer has, such as grade8's ``_per_goal`` before 2d0cda9, does not
load) against the working tree's:
warm, as a run grades a session right after it ran (each item once untimed, then
REF's and the tree's ``--times`` times each, alternating), the best of ``--passes``.
One process, so both meet the same load; the ratio is the figure, not the
microseconds. cProfile is no guide here: it charges every Python call a fixed toll
and so overstates loops and understates C-level work (a sorted key looked dear
under it and was not).

    python bench/grader_costs.py [--against REF] [--suite simlab.yaml] [--reps N]

Figures (2026-12-02, grade8, 5 reps of the default suite: 960 sessions, 3,287 judged
final actions; one core, load average about 2), main -> grade8, microseconds per
session (``violations``: per call): ``tool_stages`` 32.7 -> 21.9 (0.67),
``_from_calls`` 26.1 -> 15.9 (0.61), ``tool_use`` 12.6 -> 11.2 (0.89),
``redundant_calls`` 7.6 -> 6.4 (0.84), ``violations`` 4.2 -> 2.3 (0.54). The same
under cProfile (20 reps, 3,840 sessions, cumulative seconds, main -> grade8, run back
to back): ``tool_stages`` 2.05 -> 1.52, ``_from_calls`` 1.69 -> 1.16, ``violations``
0.85 -> 0.46, ``tool_use`` 0.67 -> 0.57, ``_schema_problems`` 0.54 -> 0.37,
``_contradicted`` 0.40 -> 0.20, ``_empty`` 0.27 -> 0.17, ``satisfies`` 0.73 -> 0.09
(the scripted user's judging now skips it), ``_pair`` 0.52 -> 0.00 (122 calls of
91,844: the rest remembered). ``bench/engine_throughput.py --against main --rounds 3
--reps 10`` on one core gave ratios 1.03, 1.09 and 1.12 on three tries: the graders
are about a tenth of a session's CPU, and two runs minutes apart differ by more.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter_ns
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engine_throughput
from same_sessions import export

import simlab.engine._session as session_module
import simlab.simulators._scripted as scripted_module
from simlab.graders import _action, _efficiency, _stages

ROOT = Path(__file__).resolve().parents[1]


def load(name: str, path: Path) -> ModuleType:
    """The module at ``path`` under ``name`` (beside the working tree's own)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


def capture(suite: Path, reps: int) -> tuple[list[tuple[Any, Any]], list[tuple[Any, ...]]]:
    """Run ``suite``: each graded (context, checks) and each judged (goal, call, wants)."""
    graded: list[tuple[Any, Any]] = []
    judged: list[tuple[Any, ...]] = []
    real_grade, real_violations = session_module.grade_session, scripted_module.violations

    def grade(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        out = real_grade(ctx, *args, **kwargs)
        graded.append((ctx, out.checks))
        return out

    def violations(goal: Any, call: Any, wants: Any) -> Any:
        judged.append((goal, call, dict(wants)))
        return real_violations(goal, call, wants)

    session_module.grade_session = grade  # type: ignore[assignment]
    scripted_module.violations = violations  # type: ignore[assignment]
    try:
        engine_throughput.measure(suite, reps)
    finally:
        session_module.grade_session = real_grade
        scripted_module.violations = real_violations
    return graded, judged


def warm(
    items: Sequence[Any], old: Callable[[Any], object], new: Callable[[Any], object],
    times: int, passes: int,
) -> tuple[float, float]:  # fmt: skip
    """Best total nanoseconds per item of ``old`` and ``new``, each run warm, alternating."""
    best_old = best_new = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(passes):
            spent_old = spent_new = 0
            for item in items:
                old(item)
                new(item)
                start = perf_counter_ns()
                for _ in range(times):
                    old(item)
                middle = perf_counter_ns()
                for _ in range(times):
                    new(item)
                spent_old += middle - start
                spent_new += perf_counter_ns() - middle
            best_old, best_new = min(best_old, spent_old), min(best_new, spent_new)
    finally:
        gc.enable()
    n = len(items) * times
    return best_old / n, best_new / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="main", help="git ref (default: main)")
    parser.add_argument("--suite", default="simlab.yaml")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--times", type=int, default=5, help="runs of each item per pass")
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ref = export(args.against, Path(tmp))
        graders = ref / "simlab" / "graders"
        old_stages = load("ref_stages", graders / "_stages.py")
        old_efficiency = load("ref_efficiency", graders / "_efficiency.py")
        old_action = load("ref_action", graders / "_action.py")
    graded, judged = capture(ROOT / args.suite, args.reps)
    calls = [[call for _, call in ctx.tool_calls] for ctx, _ in graded]
    cases: list[tuple[str, Sequence[Any], Callable[[Any], object], Callable[[Any], object]]] = [
        ("tool_stages", graded, lambda x: old_stages.tool_stages(*x),
         lambda x: _stages.tool_stages(*x)),
        ("_from_calls", graded, lambda x: list(old_stages._from_calls(x[0])),
         lambda x: list(_stages._from_calls(x[0]))),
        ("tool_use", graded, lambda x: old_efficiency.tool_use(x[0].goal, x[0].transcript),
         lambda x: _efficiency.tool_use(x[0].goal, x[0].transcript)),
        ("redundant_calls", calls, old_efficiency.redundant_calls, _efficiency.redundant_calls),
        ("violations", judged, lambda x: old_action.violations(*x),
         lambda x: _action.violations(*x)),
    ]  # fmt: skip
    print(
        f"{len(graded)} sessions, {len(judged)} judged final actions; microseconds per "
        f"session (violations: per call), warm, best of {args.passes} passes"
    )
    for name, items, old, new in cases:
        before, after = warm(items, old, new, args.times, args.passes)
        print(f"  {name:<16} {args.against} {before / 1000:7.2f}   working tree "
              f"{after / 1000:7.2f}   ratio {after / before:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()

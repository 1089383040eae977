"""Offline throughput on Ray workers against the local executor, as a ratio.

Runs the default suite scaled by --reps (80: ten times the default, 15,360
sessions) twice, offline (reference agent, scripted users): once on the local
executor, once on a local Ray cluster with --workers worker actors, each
writing a real run directory through the driver's one writer. The cluster is
started before the clock starts (its start-up is reported apart); the Ray
figure includes creating the worker actors and their rebuilding the roles.
Last, how many permits per second the cluster's rate limiter grants.

    python bench/ray_executor.py [--reps 80] [--workers 2] [--batch N]

Needs Ray: pip install 'simlab[ray]'.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from simlab.engine import RunPlan, execute, plan_new_run
from simlab.engine._ray import ProviderLimiter, import_ray
from simlab.spec import RayExecutorSpec
from simlab.store import SessionRecord

ROOT = Path(__file__).resolve().parents[1]


def timed_run(plan: RunPlan) -> tuple[list[SessionRecord], float, float, float]:
    """The run's (slim) records, its wall time, when its first record came, and this
    process's CPU seconds (on Ray: the driver's alone; the workers are other processes)."""
    first: list[float] = []
    cpu = time.process_time()
    started = time.perf_counter()

    def seen(record: SessionRecord) -> None:
        if not first:
            first.append(time.perf_counter() - started)

    # slim, as `simlab run` keeps them: the driver writes whole records, keeps slim ones
    records = anyio.run(lambda: execute(plan, seen, slim=True))
    wall = time.perf_counter() - started
    return records, wall, first[0] if first else float("nan"), time.process_time() - cpu


def limiter_rate(ray: Any, n: int) -> float:
    """Permits per second one limiter actor grants (what every LLM request asks it)."""
    limiter = ray.remote(ProviderLimiter).options(max_concurrency=100_000).remote()

    async def ask() -> float:
        await limiter.admit.remote("agent|bench", 1e12, 1e15, 100)  # warm: the buckets exist
        started = time.perf_counter()
        await asyncio.gather(
            *(limiter.admit.remote("agent|bench", 1e12, 1e15, 100) for _ in range(n))
        )
        return n / (time.perf_counter() - started)

    try:
        return asyncio.run(ask())
    finally:
        ray.kill(limiter)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", type=Path, default=ROOT / "simlab.yaml")
    parser.add_argument("--reps", type=int, default=80)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=None, help="sessions per call")
    parser.add_argument("--permits", type=int, default=5_000, help="limiter requests to time")
    args = parser.parse_args()

    ray = import_ray()
    t = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    cluster_s = time.perf_counter() - t
    try:
        with tempfile.TemporaryDirectory() as out:
            local_plan = plan_new_run(args.suite, Path(out) / "local", reps=args.reps)
            local, local_s, _, _ = timed_run(local_plan)
            ray_plan = plan_new_run(args.suite, Path(out) / "ray", reps=args.reps)
            spec = RayExecutorSpec(workers=args.workers, batch=args.batch)
            ray_plan.suite = ray_plan.suite.model_copy(update={"executor": spec})
            on_ray, ray_s, first_s, driver_cpu = timed_run(ray_plan)
        permits_s = limiter_rate(ray, args.permits)
    finally:
        ray.shutdown()

    same = [(r.key, r.score, r.passed) for r in local] == [
        (r.key, r.score, r.passed) for r in on_ray
    ]
    n = len(local)
    print(f"sessions            {n} (default suite, --reps {args.reps}), offline")
    print(f"cluster start       {cluster_s:.1f} s (not counted below)")
    print(f"local executor      {local_s:.2f} s   {n / local_s:,.0f} sessions/s")
    print(
        f"ray, {args.workers} workers      {ray_s:.2f} s   {n / ray_s:,.0f} sessions/s "
        f"(first record after {first_s:.2f} s: actors start, roles rebuilt)"
    )
    print(f"ratio ray/local     {local_s / ray_s:.2f}x throughput")
    print(
        f"driver cpu          {driver_cpu:.2f} s on Ray, {1e6 * driver_cpu / n:,.0f} µs per "
        "session (dispatch, parse, write, progress): its ceiling is "
        f"{n / driver_cpu:,.0f} sessions/s on one core"
    )
    print(f"same records        {same} (key, score, passed of every session)")
    print(
        f"limiter             {permits_s:,.0f} permits/s ({args.permits} requests asked at "
        "once of one ProviderLimiter actor, rpm and tpm set)"
    )


if __name__ == "__main__":
    main()

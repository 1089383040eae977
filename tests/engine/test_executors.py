"""The executor seam without a cluster: what a Ray worker plays is what the driver
would, a dead worker's sessions are handed back, and a run that cannot go to Ray
says why (Ray itself is tested in tests/engine/test_ray_executor.py, slow)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

import simlab
import simlab.engine._ray as ray_executor
from simlab.api import plan
from simlab.cli import main
from simlab.engine import (
    BriefPlayer,
    LocalExecutor,
    RayExecutor,
    RunBrief,
    SessionJob,
    SessionLimits,
    build_roles,
    choose_executor,
    config_hash,
    plan_new_run,
    run_session,
)
from simlab.engine._ray import MAX_ATTEMPTS, _Dispatch, worker_lines
from simlab.llm import Budget
from simlab.spec import SpecError, Suite
from simlab.store import SessionRecord

ROOT = Path(__file__).resolve().parents[2]


def write_suite(tmp_path: Path, **extra: object) -> Path:
    body = {
        "seed": 11,
        "personas": ["terse_en", "fickle_vi"],
        "goals": ["refund", "one_way"],
        "reps": 2,
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
        **extra,
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def comparable(record: SessionRecord) -> dict[str, Any]:
    """A record without where and how long it ran."""
    data = record.model_dump(mode="json", exclude={"duration_s", "agent_turn_s"})
    data["meta"].pop("worker", None)
    return data


def test_a_worker_rebuilding_the_roles_from_the_brief_plays_the_drivers_records(
    tmp_path: Path,
) -> None:
    plan = plan_new_run(write_suite(tmp_path), tmp_path / "out")
    roles = build_roles(plan.suite, plan.suite_dir)
    limits = SessionLimits(plan.suite.max_turns, plan.suite.turn_timeout_s)

    async def here() -> list[SessionRecord]:
        return [
            await run_session(
                j, roles.target, roles.simulator, limits,
                graders=roles.graders, grading=plan.suite.grading, domains=roles.domains,
            )
            for j in plan.jobs
        ]  # fmt: skip

    # the brief crosses a process boundary as pickled plain data
    brief = RunBrief.of(plan.suite, plan.suite_dir, plan.jobs, concurrency=4)
    assert json.loads(json.dumps(brief.suite)) == brief.suite
    player = BriefPlayer(brief)
    there = anyio.run(lambda: player.play([(j.key, j.seed) for j in plan.jobs]))
    local = anyio.run(here)
    assert len(local) == 2 * 2 * 2 * 2
    assert sorted(map(comparable, there), key=str) == sorted(map(comparable, local), key=str)


class Died(Exception):
    """Stands for ray.exceptions.RayActorError."""


class Restarting(Died):
    """Stands for ray.exceptions.ActorUnavailableError (a RayActorError): the actor is
    restarting, the call never reached a worker."""


class NotRaised(Exception):
    """Stands for ray.exceptions.RayTaskError (a worker's own error), never raised here."""


class FakeWorker:
    """A worker actor: ``play.remote(tickets)`` plays them, or dies when told to."""

    def __init__(
        self,
        player: BriefPlayer,
        deaths: int,
        doomed: str | None = None,
        cost: float = 0.0,
        restarting: int = 0,
    ) -> None:
        self.player = player
        self.deaths = deaths
        self.restarting = restarting
        self.doomed = doomed
        self.cost = cost
        self.calls = 0
        self.play = SimpleNamespace(remote=self._play)

    async def _play(self, tickets: Sequence[tuple[Any, int]]) -> list[tuple[bytes, bytes]]:
        self.calls += 1
        await anyio.sleep(0)
        if self.restarting > 0:
            self.restarting -= 1
            raise Restarting("The actor is restarting.")
        if self.deaths > 0 or any(key.id == self.doomed for key, _ in tickets):
            self.deaths -= 1
            raise Died("The actor died unexpectedly before finishing this task.\nmore")
        records = await self.player.play(tickets)
        # what its LLM calls cost, as a worker reports it
        return [worker_lines(r.model_copy(update={"cost_usd": self.cost})) for r in records]


def dispatch(
    jobs: list[SessionJob], workers: list[FakeWorker], batch: int, budget: Budget | None = None
) -> list[SessionRecord]:
    fake_ray = SimpleNamespace(
        exceptions=SimpleNamespace(
            RayActorError=Died,
            WorkerCrashedError=Died,
            RayTaskError=NotRaised,
            ActorUnavailableError=Restarting,
        )
    )
    got: list[SessionRecord] = []

    def sink(record: SessionRecord, line: bytes | None = None) -> None:
        if line is not None:  # a played session: its slim record and its whole line
            assert not record.transcript.turns
            record = SessionRecord.model_validate_json(line)
        got.append(record)

    budget = budget or Budget()
    d = _Dispatch(fake_ray, jobs, batch, sink, lambda: not budget.exhausted, budget)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for w in workers:
                for _ in range(2):
                    tg.start_soon(d.lane, w)

    anyio.run(main)
    return got


def test_a_dead_workers_sessions_are_handed_back_and_each_is_recorded_once(
    tmp_path: Path,
) -> None:
    plan = plan_new_run(write_suite(tmp_path), tmp_path / "out")
    player = BriefPlayer(RunBrief.of(plan.suite, plan.suite_dir, plan.jobs, 4))
    dying, healthy = FakeWorker(player, deaths=2), FakeWorker(player, deaths=0)
    got = dispatch(plan.jobs, [dying, healthy], batch=3)
    assert dying.calls > 2  # it died twice, came back and played on
    assert sorted(r.key.id for r in got) == sorted(j.key.id for j in plan.jobs)
    assert all(r.status == "ok" for r in got)


def test_calls_refused_while_a_worker_restarts_spend_no_sessions_tries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ray_executor, "_RESTART_WAIT_S", (0.001, 0.004))
    plan = plan_new_run(write_suite(tmp_path), tmp_path / "out")
    player = BriefPlayer(RunBrief.of(plan.suite, plan.suite_dir, plan.jobs, 4))
    restarting = FakeWorker(player, deaths=0, restarting=4 * MAX_ATTEMPTS)
    got = dispatch(plan.jobs, [restarting], batch=1)  # its only worker, restarting long
    assert restarting.restarting == 0
    assert sorted(r.key.id for r in got) == sorted(j.key.id for j in plan.jobs)
    assert [r.error for r in got if r.status != "ok"] == []


def test_a_session_whose_worker_dies_every_time_is_an_infra_error_with_the_reason(
    tmp_path: Path,
) -> None:
    plan = plan_new_run(write_suite(tmp_path), tmp_path / "out")
    player = BriefPlayer(RunBrief.of(plan.suite, plan.suite_dir, plan.jobs, 4))
    doomed = plan.jobs[5].key.id
    got = dispatch(plan.jobs, [FakeWorker(player, 0, doomed)], batch=1)
    assert sorted(r.key.id for r in got) == sorted(j.key.id for j in plan.jobs)
    (lost,) = [r for r in got if r.status == "error"]
    assert lost.key.id == doomed and lost.stop_reason == "infra_error"
    assert lost.error is not None and lost.error.message == (
        f"the Ray worker playing it died {MAX_ATTEMPTS} times; last: "
        "Died: The actor died unexpectedly before finishing this task."
    )
    job = plan.jobs[5]
    (played,) = anyio.run(lambda: player.play([(job.key, job.seed)]))
    assert (lost.seed, lost.planned_turns) == (job.seed, played.planned_turns)


def test_the_driver_charges_the_budget_once_from_records_and_stops_starting_sessions(
    tmp_path: Path,
) -> None:
    plan = plan_new_run(write_suite(tmp_path), tmp_path / "out")
    player = BriefPlayer(RunBrief.of(plan.suite, plan.suite_dir, plan.jobs, 4))
    budget = Budget(0.05)
    got = dispatch(plan.jobs, [FakeWorker(player, 0, cost=0.01)], batch=2, budget=budget)
    # two lanes of two sessions: the budget is spent after 5, the batches in flight finish
    assert 5 <= len(got) <= 8 < len(plan.jobs)
    assert budget.spent_usd == pytest.approx(0.01 * len(got))


def test_the_suite_chooses_the_executor_and_where_is_not_part_of_the_config(
    tmp_path: Path,
) -> None:
    plan = plan_new_run(write_suite(tmp_path, executor="ray:auto"), tmp_path / "out")
    assert plan.suite.executor.kind == "ray"
    args = (plan.suite, plan.suite_dir, plan.jobs, None, 4, Budget())
    chosen = choose_executor(*args)  # type: ignore[arg-type]
    assert isinstance(chosen, RayExecutor) and chosen.spec.address == "auto"
    assert chosen.brief.concurrency == 4
    local = plan.suite.model_copy(update={"executor": Suite().executor})
    assert isinstance(choose_executor(local, *args[1:]), LocalExecutor)  # type: ignore[arg-type]
    # a run started here resumes on Ray and back: the hash ignores the executor
    assert config_hash(plan.suite, {}, {}) == config_hash(local, {}, {})


def test_roles_given_as_python_objects_are_refused_on_ray_naming_them(tmp_path: Path) -> None:
    def reply(messages: object, ctx: object) -> str:
        return "ok"

    with pytest.raises(SpecError) as e:
        simlab.run(
            write_suite(tmp_path), target=reply, executor="ray", out=tmp_path / "o", progress=False
        )
    (problem,) = e.value.problems
    assert problem.field == "executor"
    assert "the target given as Python objects cannot be shipped to Ray workers" in str(problem)
    assert not list((tmp_path / "o").iterdir())  # no run folder left behind


def test_without_ray_installed_the_run_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails
    out = tmp_path / "o"
    code = main(["run", str(write_suite(tmp_path)), "--executor", "ray", "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert "executor: ray: Ray is not installed; pip install 'simlab[ray]'" in err
    assert "Traceback" not in err
    assert not list(out.iterdir())


def test_an_unknown_executor_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        main(["run", str(write_suite(tmp_path)), "--executor", "spark", "--out", str(tmp_path)])
    assert e.value.code == 2
    assert "executor 'spark': write local, ray or ray:ADDRESS" in capsys.readouterr().err


def test_a_run_started_for_ray_resumes_here_or_on_ray_with_its_config_unchanged(
    tmp_path: Path,
) -> None:
    started = plan(write_suite(tmp_path), out=tmp_path / "o", executor="ray")
    assert started.suite.executor.kind == "ray"
    info = json.loads((started.run_dir / "run.json").read_text(encoding="utf-8"))
    assert info["suite"]["executor"] == {
        "kind": "ray",
        "address": None,
        "workers": None,
        "batch": None,
    }
    here = plan(resume=started.run_dir)  # the suite file says local
    assert here.suite.executor.kind == "local" and here.config_hash == started.config_hash
    assert here.lock is not None
    here.lock.close()  # a planned resume holds the run's lock until it runs
    there = plan(resume=started.run_dir, executor="ray:auto")
    assert there.suite.executor.kind == "ray" and there.suite.executor.address == "auto"
    assert len(there.pending) == len(started.jobs)

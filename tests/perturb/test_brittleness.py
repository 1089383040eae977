"""The brittleness experiment: chains checked by hand from their re-run records; the figures."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from simlab.agents.reference import reference_agent
from simlab.contracts import SessionSetup, TargetAgent
from simlab.core import SessionKey
from simlab.engine import execute, expand, plan_new_run
from simlab.perturb import (
    BRITTLENESS_FILE,
    BRITTLENESS_SESSIONS_FILE,
    BrittlenessResult,
    SessionBrittleness,
    TargetBrittleness,
    brittleness_for_target,
    brittleness_from_run,
    brittleness_summary,
    cli_main,
    group_summary,
    run_baseline,
    shuffled_order,
)
from simlab.spec import Suite, load_personas

from .driver import GOALS, LIBRARY, LIMITS, ROOT

SMALL = Suite(
    personas=["terse_en", "fickle_vi", "impatient_en"],
    goals=["one_way", "refund"],
    reps=2,
    seed=5,
)


def _target(version: str):  # type: ignore[no-untyped-def]
    def make(setup: SessionSetup) -> TargetAgent:
        return reference_agent(version, setup.agent_seed)

    return make


def _small(version: str, max_k: int | None = None) -> TargetBrittleness:
    from simlab.engine import simulator_factory

    jobs = expand(SMALL, load_personas([ROOT / "personas"]), GOALS)
    by_key = {j.key: j for j in jobs}

    async def go() -> TargetBrittleness:
        base = await run_baseline(jobs, _target(version), simulator_factory(SMALL), LIMITS, 8)
        return await brittleness_for_target(
            f"reference:{version}", base, by_key, _target(version), LIBRARY, LIMITS,
            max_k=max_k, concurrency=4,
        )  # fmt: skip

    return anyio.run(go)


def test_each_chain_is_k_at_the_first_failure_or_censored_at_the_stack() -> None:
    result = _small("v1")
    assert result.n_baseline == 24 and result.n_errors == 0
    assert 0 < len(result.sessions) < 24  # only the passing baselines are re-run
    events = 0
    for chain in result.sessions:
        assert chain.order == shuffled_order(next(r.seed for r in chain.records), tuple(LIBRARY))
        for k, record in enumerate(chain.records, 1):
            assert record.key.perturbations == chain.order[:k]
            assert record.key.persona == chain.key.persona and record.key.rep == chain.key.rep
            assert record.status == "ok"
        outcomes = [r.passed for r in chain.records]
        if chain.event:
            events += 1
            # passed k-1 times, failed at the k-th: the k-th perturbation broke it
            assert outcomes == [True] * (chain.k - 1) + [False]
            assert chain.broke_by == chain.order[chain.k - 1]
        else:
            assert outcomes == [True] * 8 and chain.k == 8 and chain.broke_by is None
    assert 0 < events < len(result.sessions)


def test_re_runs_keep_the_baseline_seed_so_only_the_stack_differs() -> None:
    result = _small("v2", max_k=2)
    jobs = {j.key: j for j in expand(SMALL, load_personas([ROOT / "personas"]), GOALS)}
    for chain in result.sessions:
        assert len(chain.records) <= 2 and chain.k <= 2
        assert all(r.seed == jobs[chain.key].seed for r in chain.records)


def _chain(persona: str, k: int, event: bool, broke_by: str | None = None) -> SessionBrittleness:
    key = SessionKey(persona=persona, goal="g", mode="full", rep=k)
    return SessionBrittleness(key, ("a", "b", "c"), k, event, broke_by, [])


def test_figures_by_hand() -> None:
    # times 1, 2, 2 (failures), 3, 3 (survived all three)
    sessions = [
        _chain("p", 1, True, "a"),
        _chain("p", 2, True, "b"),
        _chain("q", 2, True, "b"),
        _chain("q", 3, False),
        _chain("q", 3, False),
    ]
    row = group_summary(sessions, max_k=3)
    # S(1) = 4/5 = 0.8; S(2) = 0.8 * (1 - 2/4) = 0.4 -> median 2; S(3) = 0.4
    assert row["n"] == 5 and row["failed"] == 3 and row["censored"] == 2
    assert row["median"] == 2.0
    assert [round(step[1], 6) for step in row["curve"]] == [1.0, 0.8, 0.4, 0.4]
    assert row["survived_all"] == 2 and row["survived_all_share"] == pytest.approx(0.4)
    assert row["broke_by"] == {"b": 2, "a": 1}
    summary = brittleness_summary(
        BrittlenessResult(
            ("a", "b", "c"),
            3,
            {
                "x": TargetBrittleness("x", 5, 0, sessions[:3]),
                "y": TargetBrittleness("y", 5, 0, sessions[3:]),
            },
        )
    )
    assert set(summary["curves"]) == {"x", "y"}
    assert summary["targets"]["x"]["by_persona"]["q"]["n"] == 1
    cmp = summary["comparison"]
    assert cmp["n"] == [3, 2] and cmp["observed"] == [3, 0] and cmp["p_value"] < 0.1


def _run_dir(tmp_path: Path, target: str = "reference:v1") -> Path:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"personas: [terse_en, fickle_vi]\ngoals: [one_way, refund]\nreps: 2\nseed: 5\n"
        f"target: {target}\npersona_dirs: ['{ROOT / 'personas'}']\n"
        f"goal_dirs: ['{ROOT / 'goals'}']\n",
        encoding="utf-8",
    )
    plan = plan_new_run(suite, tmp_path / "results")
    anyio.run(execute, plan)
    return plan.run_dir


def test_from_a_run_directory_writes_both_files(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    experiment = anyio.run(
        lambda: brittleness_from_run(
            run_dir, ["reference:v2"], max_k=3, perturbations=ROOT / "perturbations"
        )
    )
    written = json.loads((run_dir / BRITTLENESS_FILE).read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(experiment.summary))
    assert set(written["curves"]) == {"reference:v1", "reference:v2"}
    assert written["curves"]["reference:v1"][0] == [0.0, 1.0, 1.0, 1.0]
    rows = [json.loads(line) for line in (run_dir / BRITTLENESS_SESSIONS_FILE).open()]
    # every chain's k and censoring recomputed from the re-run records alone
    for name, target in written["targets"].items():
        for chain in target["sessions"]:
            base = "/".join(str(chain["key"][f]) for f in ("persona", "goal", "mode", "rep"))
            mine = [r for r in rows if r["target"] == name and r["base"] == base]
            assert mine
            passed = [r["record"]["passed"] for r in mine]
            assert chain["k"] == (passed.index(False) + 1 if False in passed else len(passed))
            assert chain["event"] == (False in passed)


def test_cli_on_a_run_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = _run_dir(tmp_path)
    code = cli_main(
        [str(run_dir), "--compare", "reference:v2", "--max-k", "2",
         "--perturbations", str(ROOT / "perturbations")]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "log-rank reference:v1" in out and "overall" in out
    assert (run_dir / BRITTLENESS_FILE).exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "either RUN_DIR or --suite"),
        (["x", "--suite", "simlab.yaml"], "either RUN_DIR or --suite"),
        (["no/such/run"], "not found"),
        (["--suite", "no/such.yaml"], "no such suite file"),
        (["x", "--target", "reference:v2"], "--target goes with --suite"),
        (["x", "--max-k", "0"], "--max-k must be at least 1"),
    ],
)
def test_cli_bad_input_exits_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_unknown_compare_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = _run_dir(tmp_path)
    code = cli_main([str(run_dir), "--compare", "reference:v9", "--perturbations",
                     str(ROOT / "perturbations")])  # fmt: skip
    assert code == 2
    assert "v9" in capsys.readouterr().err


def test_a_re_run_that_errors_ends_the_chain_censored_at_the_last_pass() -> None:
    jobs = expand(SMALL, load_personas([ROOT / "personas"]), GOALS)
    by_key = {j.key: j for j in jobs}

    def fragile(setup: SessionSetup) -> TargetAgent:
        if len(setup.key.perturbations) >= 2:
            raise RuntimeError("target crashed")  # infrastructure, not a failure
        return reference_agent("v2", setup.agent_seed)

    async def go() -> TargetBrittleness:
        from simlab.engine import simulator_factory

        base = await run_baseline(jobs, _target("v2"), simulator_factory(SMALL), LIMITS, 8)
        return await brittleness_for_target("x", base, by_key, fragile, LIBRARY, LIMITS)

    result = anyio.run(go)
    survivors = [c for c in result.sessions if c.records[0].passed]
    assert survivors
    for chain in survivors:
        assert chain.k == 1 and not chain.event and chain.broke_by is None
        assert chain.records[1].status == "error" and "k=2: agent_error" in (chain.error or "")

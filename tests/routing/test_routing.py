"""Cost under model routing: the step x model matrix, the cheapest assignment within a
failure budget, prompt-cache pricing across model switches, and `simlab routing` on two
fake-provider model names."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from run_simlab import simlab

from simlab.core import AgentReply, SessionKey, Transcript, Turn, UserTurn
from simlab.llm import Pricing
from simlab.routing import (
    Hazard,
    SessionPath,
    TurnTokens,
    choose,
    hazards,
    policy_steps,
    route_cost,
    turn_tokens,
)
from simlab.stats import wilson_interval
from simlab.store import SessionRecord, StopReason
from simlab.testing import (
    LARGE_MODEL,
    SMALL_MODEL,
    FakeProvider,
    FakeProviderConfig,
    roleplay_models,
)

ROOT = Path(__file__).resolve().parents[2]
PRICES = {  # USD per million tokens: the seed's illustration
    "strong": Pricing(input=3.0, output=15.0, cache_read=0.3),
    "cheap": Pricing(input=0.25, output=1.25, cache_read=0.025),
}
TURNS = [TurnTokens(1000, 100), TurnTokens(1500, 100), TurnTokens(2000, 100)]


def test_route_cost_prices_cache_reads_and_a_switch_finds_a_cold_cache() -> None:
    # cheap, cheap, strong: 1000*.25 + 100*1.25 = 375; then 1100 cached: 1100*.025 +
    # 400*.25 + 125 = 252.5; strong is cold: 2000*3 + 100*15 = 7500 -> 8127.5 / 1e6
    cost = route_cost(TURNS, ["cheap", "cheap", "strong"], PRICES)
    assert cost.usd == pytest.approx(8127.5e-6)
    assert (cost.switches, cost.cached, cost.prompt) == (1, 1100, 4500)
    # all strong: 4500 + (1100*.3 + 400*3 + 1500) + (1600*.3 + 400*3 + 1500) = 10710
    assert route_cost(TURNS, ["strong"] * 3, PRICES).usd == pytest.approx(10710e-6)
    # back to strong after a cheap turn: strong still holds turn 1's 1100 tokens only
    # 4500 + (1500*.25 + 125) + (1100*.3 + 900*3 + 1500) = 4500 + 500 + 4530
    back = route_cost(TURNS, ["strong", "cheap", "strong"], PRICES)
    assert back.usd == pytest.approx(9530e-6) and back.switches == 2
    # a price with no cache rates has no cache: (1000 + 1500 + 2000) * 1 + 300 * 2 = 5100
    uncached = route_cost(TURNS, ["plain"] * 3, {"plain": Pricing(input=1.0, output=2.0)})
    assert uncached.usd == pytest.approx(5100e-6) and uncached.cached == 0


def test_hazards_count_sessions_at_risk_and_pool_the_tail() -> None:
    paths = [SessionPath(3, None), SessionPath(2, 2), SessionPath(5, 4), SessionPath(1, None)]
    got = [(h.failed, h.n) for h in hazards(paths, steps=3)]
    assert got == [(0, 4), (1, 3), (1, 2)]  # step 3+ holds the failure at turn 4


def _h(failed: int, n: int) -> Hazard:
    return Hazard(failed, n, wilson_interval(failed, n))


def test_the_cheapest_model_within_budget_per_step_and_the_policies() -> None:
    matrix = {
        "cheap": [_h(0, 100), _h(10, 100), _h(2, 100)],
        "strong": [_h(0, 100), _h(1, 100), _h(1, 100)],
    }
    choices = choose(matrix, ["cheap", "strong"], budget=0.03, rule="estimate")
    assert [c.model for c in choices] == ["cheap", "strong", "cheap"]
    assert all(c.within for c in choices)
    steps = policy_steps([c.model for c in choices], ["cheap", "strong"])
    assert steps == {
        "per_turn": ["cheap", "strong", "cheap"],
        "sticky": ["cheap", "cheap", "cheap"],
        "sticky_escalate": ["cheap", "strong", "strong"],
    }
    # none within 3% at step 2 of a stricter budget: the lowest rate is taken
    strict = choose(matrix, ["cheap", "strong"], budget=0.005, rule="estimate")
    assert strict[1].model == "strong" and not strict[1].within


def test_turn_tokens_share_the_recorded_usage_by_the_history_carried() -> None:
    turns = [
        Turn(index=i, user=UserTurn(text="x" * 10), agent=AgentReply(text="y" * 10)) for i in (1, 2)
    ]
    record = SessionRecord(
        key=SessionKey(persona="p", goal="g", mode="full", rep=0),
        seed=0,
        status="ok",
        stop_reason=StopReason.GOAL_REACHED,
        n_user_turns=2,
        transcript=Transcript(turns=turns),
        meta={"llm": {"agent": {"input_tokens": 100, "cache_read_tokens": 200,
                                "cache_write_tokens": 0, "output_tokens": 40}}},
    )  # fmt: skip
    tokens = turn_tokens(record)
    # history carried: 10 then 30 characters, plus a standing 40/2 = 20: weights 30, 50
    assert [t.prompt for t in tokens] == pytest.approx([300 * 30 / 80, 300 * 50 / 80])
    assert [t.output for t in tokens] == pytest.approx([20, 20])


def _runs(tmp_path: Path) -> dict[str, Path]:
    """One suite run with its agent on each fake model name (same seed: same keys)."""
    suite = {
        "target": {"kind": "llm", "agent": str(ROOT / "domains/travel/agents/booking_llm.yaml")},
        "seed": 4,
        "reps": 2,
        "personas": ["terse_en", "fickle_en", "chatty_en"],
        "goals": ["one_way", "refund"],
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
        "pricing": {
            SMALL_MODEL: {"input": 0.25, "output": 1.25, "cache_read": 0.025},
            LARGE_MODEL: {"input": 3.0, "output": 15.0, "cache_read": 0.3},
        },
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    out: dict[str, Path] = {}
    with FakeProvider(FakeProviderConfig(), roleplay_models).serve_in_thread() as url:
        env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "test"}
        for model in (SMALL_MODEL, LARGE_MODEL):
            done = simlab(
                "run", str(path), "--llm", f"agent=anthropic:{model}",
                "--out", str(tmp_path / model), "--quiet", env=env,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            (out[model],) = (tmp_path / model).iterdir()
    return out


def _routing(*args: str) -> subprocess.CompletedProcess[str]:
    return simlab("routing", *args)


def test_routing_table_on_two_fake_models_within_a_3_percent_budget(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    done = _routing(str(runs[SMALL_MODEL]), str(runs[LARGE_MODEL]), "--budget", "0.03")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    print(text)  # the routing table (pytest -s shows it)
    lines = text.splitlines()
    # fake-small plays the agent as reference v1: its failures surface at its last turns
    matrix = lines[lines.index(next(x for x in lines if x.startswith("First-failure"))) + 3]
    assert matrix.startswith(SMALL_MODEL)
    start = lines.index(next(x for x in lines if x.startswith("Cheapest assignment")))
    rows = []
    for line in lines[start + 3 :]:
        if not line.strip():
            break
        rows.append(line.split())
    assert len(rows) >= 2
    # the early steps, where the small model never failed, stay on it; the tail, where
    # it failed past the budget, goes to the large model
    assert [r[1] for r in rows] == [SMALL_MODEL] * (len(rows) - 1) + [LARGE_MODEL]
    assert all(r[6] == "yes" for r in rows)  # each step's rate within the budget
    policies = {
        line.split()[0]: line for line in lines if line.split()[:1] and line.split()[0]
        in ("per_turn", "sticky", "sticky_escalate", "all")
    }  # fmt: skip

    def usd(line: str) -> float:
        return float(next(w for w in line.split() if w.startswith("$"))[1:])

    all_large = next(x for x in lines if x.startswith(f"all {LARGE_MODEL}"))
    all_small = next(x for x in lines if x.startswith(f"all {SMALL_MODEL}"))
    assert usd(all_small) < usd(policies["per_turn"]) < usd(all_large)
    assert policies["per_turn"].split("$")[1].split("]")[1].split()[0] == "0.0%"  # predicted
    assert policies["sticky"].split()[1:4] == all_small.split()[2:5]  # sticky = all small


def test_routing_refuses_runs_it_cannot_price_or_tell_apart(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(json.dumps({
        "personas": ["terse_en"], "goals": ["refund"], "reps": 1, "target": "reference:v2",
        "persona_dirs": [str(ROOT / "personas")], "goal_dirs": [str(ROOT / "goals")],
    }), encoding="utf-8")  # fmt: skip
    run = simlab("run", str(suite), "--out", str(tmp_path / "o"), "--quiet")
    assert run.returncode == 0, run.stderr
    (run_dir,) = (tmp_path / "o").iterdir()
    done = _routing(str(run_dir))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "no price for the agent model 'v2'" in done.stderr and "pricing:" in done.stderr
    missing = _routing(str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    bad = _routing(str(run_dir), "--budget", "3")
    assert bad.returncode == 2 and "--budget" in bad.stderr

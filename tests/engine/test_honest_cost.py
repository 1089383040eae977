"""Honest cost against an OpenAI-compatible endpoint (the fake provider on loopback):
an unpriced model's cost is unknown in the records, summary.json and report.md and a
budget over it is refused; a priced one costs what genai-prices says; an HTTP target's
reported usage is the session's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from genai_prices import Usage as GenaiUsage
from genai_prices import calc_price

import simlab
from simlab.spec import SpecError, Suite
from simlab.store import SessionRecord
from simlab.testing import FakeProvider, FakeProviderConfig, roleplay, scripted

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def openai_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The fake provider's OpenAI endpoint, where the openai backend posts."""
    with FakeProvider(FakeProviderConfig(), roleplay).serve_in_thread() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        yield url


def _suite(**extra: object) -> Suite:
    return Suite.model_validate(
        {
            "target": "reference:v1",
            "seed": 3,
            "reps": 1,
            "personas": ["terse_en", "fickle_vi"],
            "goals": ["one_way"],
            "persona_dirs": [str(ROOT / "personas")],
            "goal_dirs": [str(ROOT / "goals")],
            **extra,
        }
    )


def _genai_price(record: SessionRecord, model: str) -> float:
    u = record.usage
    usage = GenaiUsage(
        input_tokens=u.input_tokens + u.cache_read_tokens + u.cache_write_tokens,
        output_tokens=u.output_tokens,
        cache_read_tokens=u.cache_read_tokens,
        cache_write_tokens=u.cache_write_tokens,
    )
    return float(calc_price(usage, model_ref=model).total_price)


def test_an_unpriced_models_cost_is_unknown_in_records_summary_and_report(
    openai_url: str, tmp_path: Path
) -> None:
    result = simlab.run(_suite(), llm=["judge=openai:my-local-model"], out=tmp_path, progress=False)
    n = len(result.records)
    assert n >= 2
    assert all(r.usage.calls > 0 and r.cost_usd is None for r in result.records)
    run_dir = result.paths.run_dir
    lines = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["cost_usd"] for line in lines] == [None] * n
    cost = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))["cost"]
    assert cost["total_usd"] is None and cost["unknown_sessions"] == n
    assert cost["sessions"] == n and cost["calls"] > 0
    assert cost["by_role"]["judge"]["cost_usd"] is None
    assert result.summary.cost.total_usd is None
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    (line,) = [row for row in report.splitlines() if row.startswith("LLM cost:")]
    assert line.startswith(f"LLM cost: unknown ({n} of {n} sessions called a model with no price")
    assert f"judge unknown in {n} sessions" in line and "$0.0000" not in line
    assert "add the model under the suite's" in line and "pricing:" in line
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "LLM cost: unknown (" in html and "LLM cost: $" not in html


def test_a_budget_over_an_unpriced_model_refuses_to_start(openai_url: str, tmp_path: Path) -> None:
    with pytest.raises(SpecError) as refused:
        simlab.run(
            _suite(budget_usd=1.0),
            llm=["judge=openai:my-local-model"],
            out=tmp_path,
            progress=False,
        )
    message = str(refused.value)
    assert "budget_usd" in message and "judge ('my-local-model')" in message
    assert "add it under the suite's `pricing:`" in message
    assert not list(tmp_path.iterdir())  # no session ran, no run directory kept


def test_a_budget_over_a_model_the_suite_prices_runs(openai_url: str, tmp_path: Path) -> None:
    suite = _suite(budget_usd=1.0, pricing={"my-local-model": {"input": 1.0, "output": 2.0}})
    result = simlab.run(suite, llm=["judge=openai:my-local-model"], out=tmp_path, progress=False)
    for r in result.records:
        expected = (r.usage.input_tokens * 1.0 + r.usage.output_tokens * 2.0) / 1e6
        assert r.cost_usd is not None and r.cost_usd == pytest.approx(expected, abs=1e-8)
    assert result.summary.cost.total_usd is not None and result.summary.cost.total_usd > 0


def test_a_priced_openai_model_costs_what_genai_prices_says(
    openai_url: str, tmp_path: Path
) -> None:
    result = simlab.run(_suite(), llm=["judge=openai:gpt-4o-mini"], out=tmp_path, progress=False)
    for r in result.records:
        assert r.cost_usd is not None and r.cost_usd > 0
        assert r.cost_usd == pytest.approx(_genai_price(r, "gpt-4o-mini"), abs=1e-8)
    total = sum(r.cost_usd or 0.0 for r in result.records)
    assert result.summary.cost.total_usd == pytest.approx(total, abs=1e-6)
    assert result.summary.cost.unknown_sessions == 0
    report = (result.paths.run_dir / "report.md").read_text(encoding="utf-8")
    assert f"LLM cost: \\${total:.4f} over" in report  # markdown escapes the dollar


@pytest.mark.parametrize(("model", "priced"), [("gpt-4o-mini", True), ("my-endpoint-model", False)])
def test_an_http_targets_reported_usage_is_the_sessions(
    tmp_path: Path, model: str, priced: bool
) -> None:
    fake = FakeProvider(FakeProviderConfig(), scripted(["Which date would you like to fly?"]))
    with fake.serve_in_thread() as url:
        suite = _suite(target={"kind": "http", "url": url + "/v1", "model": model}, max_turns=3)
        result = simlab.run(suite, out=tmp_path, progress=False)
    assert result.records and all(r.status == "ok" for r in result.records)
    for r in result.records:
        agent = r.meta["llm"]["agent"]
        # one reported usage per answered turn
        assert r.usage.calls == agent["calls"] == len(r.agent_turn_s) > 0
        assert r.usage.input_tokens > 0 and r.usage.output_tokens > 0
        if priced:
            assert r.cost_usd is not None and r.cost_usd > 0
            assert r.cost_usd == pytest.approx(_genai_price(r, model), abs=1e-8)
        else:
            assert r.cost_usd is None and agent["cost_usd"] is None
    assert result.summary.cost.calls == sum(r.usage.calls for r in result.records)


def test_a_budget_stops_once_an_http_target_reports_a_model_with_no_price(
    tmp_path: Path,
) -> None:
    fake = FakeProvider(FakeProviderConfig(), scripted(["Which date would you like to fly?"]))
    with fake.serve_in_thread() as url:
        target = {"kind": "http", "url": url + "/v1", "model": "my-endpoint-model"}
        suite = _suite(target=target, max_turns=3, budget_usd=1.0, concurrency=1)
        result = simlab.run(suite, out=tmp_path, progress=False)
    assert len(result.records) == 1 and result.records[0].cost_usd is None
    assert result.not_started == 3
    (said,) = [m for m in result.messages if "budget" in m]
    assert "cannot be kept: the cost of 1 sessions is unknown" in said
    assert "3 of 4 sessions were not started" in said and "`pricing:`" in said

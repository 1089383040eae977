"""The brittleness experiment with the LLM user (`simulator: {kind: llm}`) on the fake provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simlab.perturb import BRITTLENESS_FILE, BRITTLENESS_SESSIONS_FILE, cli_main
from simlab.testing import FakeProvider, FakeProviderConfig, roleplay

from .driver import ROOT


def test_brittleness_runs_with_the_llm_user_and_reports_survival(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeProvider(FakeProviderConfig(), roleplay).serve_in_thread() as url:
        llm = {"backend": "openai", "base_url": url, "model": "fake", "max_attempts": 1}
        suite = {
            "seed": 5,
            "reps": 1,
            "personas": ["terse_en"],
            "goals": ["one_way"],
            "modes": ["full"],
            "target": "reference:v2",
            "simulator": {"kind": "llm", "llm": llm},
            "persona_dirs": [str(ROOT / "personas")],
            "goal_dirs": [str(ROOT / "goals")],
        }
        path = tmp_path / "suite.yaml"
        path.write_text(json.dumps(suite), encoding="utf-8")
        code = cli_main(
            ["--suite", str(path), "--out", str(tmp_path / "out"), "--max-k", "2",
             "--compare", "reference:v1", "--perturbations", str(ROOT / "perturbations")]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "Brittleness of reference:v2" in out and "overall" in out
    (run_dir,) = list((tmp_path / "out").iterdir())
    assert json.loads((run_dir / "run.json").read_text())["models"]["user"] == "openai:fake"
    summary = json.loads((run_dir / BRITTLENESS_FILE).read_text(encoding="utf-8"))
    assert summary["max_k"] == 2
    mine = summary["targets"]["reference:v2"]
    assert (mine["n_baseline"], mine["n_passed_baseline"]) == (1, 1)
    (chain,) = mine["sessions"]
    assert len(chain["order"]) == 2 and 1 <= chain["k"] <= 2
    assert summary["curves"]["reference:v2"][0] == [0.0, 1.0, 1.0, 1.0]
    rows = [json.loads(line) for line in (run_dir / BRITTLENESS_SESSIONS_FILE).open()]
    re_runs = [r["record"] for r in rows if r["target"] == "reference:v2"]
    assert [r["key"]["perturbations"] for r in re_runs] == [
        chain["order"][:k] for k in range(1, len(re_runs) + 1)
    ]
    landed: set[str] = set()
    for record in re_runs:
        assert record["status"] == "ok", record["error"]
        assert record["meta"]["llm"]["user"]["calls"] > 0  # the LLM user wrote the turns
        for turn in record["transcript"]["turns"]:
            assert set(turn["user"]["perturbations"]) <= set(record["key"]["perturbations"])
            landed.update(turn["user"]["perturbations"])
    assert landed  # the LLM user's turns carried the stacked perturbations

"""simlab.run from Python: the same run as the command line, suites built in code,
targets given as Python objects, recorded in run.json and held on resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import run_simlab

import simlab
from simlab.agents.reference import reference_agent

ROOT = Path(__file__).resolve().parents[2]


def _sessions(run_dir: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (run_dir / "sessions.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("duration_s")
        row.pop("agent_turn_s")
    return sorted(rows, key=lambda r: json.dumps(r["key"], sort_keys=True))


def _only_run(out: Path) -> Path:
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return run_dir


def test_python_run_writes_what_the_command_line_writes(tmp_path: Path) -> None:
    args = ["run", "simlab.yaml", "--reps", "1", "--out", str(tmp_path / "cli"), "--quiet"]
    cli = run_simlab.simlab(*args, cwd=ROOT)
    assert cli.returncode == 0, cli.stderr
    result = simlab.run(ROOT / "simlab.yaml", out=tmp_path / "api", reps=1, progress=False)
    assert _sessions(result.run_dir) == _sessions(_only_run(tmp_path / "cli"))
    for path in (result.paths.summary, result.paths.report_md, result.paths.report_html):
        assert path.is_file()
    assert result.summary.overall.n == len(result.records) == 192  # 144 travel + 48 bank
    on_disk = json.loads(result.paths.summary.read_text())
    assert result.summary.overall.pass_rate == on_disk["overall"]["pass_rate"]


class FixedAgent:
    """A user's own agent: here the reference agent with its defects fixed."""

    def __init__(self) -> None:
        self._inner = reference_agent("v2", 7)

    async def reply(self, history: Any, ctx: Any) -> simlab.AgentReply:
        return await self._inner.reply(history, ctx)


def shy_agent(messages: list[dict[str, str]], ctx: object) -> str:
    """Answers, never acts: fails every goal."""
    return "Could you tell me more?"


def _suite_in_code() -> tuple[simlab.Suite, list[simlab.Persona], list[simlab.Goal]]:
    persona = simlab.Persona.model_validate(
        {
            "id": "direct_en",
            "name": "Direct",
            "language": "en",
            "traits": {"patience": 10, "disclosure": "batch", "style": "terse"},
        }
    )
    goal = simlab.Goal.model_validate(
        {
            "id": "one_way_code",
            "title": "One-way flight",
            "final_tool": "hold_booking",
            "facts": [
                {"id": "origin", "slot": "origin", "value": "HAN"},
                {"id": "destination", "slot": "destination", "value": "DAD"},
                {"id": "date", "slot": "date", "value": "2026-12-20"},
                {"id": "passengers", "slot": "passengers", "value": 1},
            ],
            "constraints": [
                {"fact": "destination", "field": "destination"},
                {"fact": "date", "field": "date"},
            ],
            "expected_tools": ["search_flights", "hold_booking"],
        }
    )
    suite = simlab.Suite(name="in-code", modes=[simlab.Mode.FULL], reps=3, seed=5)
    return suite, [persona], [goal]


def test_a_suite_built_in_code_runs_a_python_class_with_no_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no personas/, goals/ or suite file here
    suite, personas, goals = _suite_in_code()
    result = simlab.run(
        suite, target=FixedAgent, personas=personas, goals=goals, out="runs", progress=False
    )
    assert [r.status for r in result.records] == ["ok"] * 3
    assert all(r.passed for r in result.records)
    info = json.loads(result.paths.run_json.read_text())
    name = f"{__name__}:FixedAgent"
    assert info["overrides"]["target"] == name
    assert info["models"]["agent"] == name
    assert info["suite_path"] is None
    assert [p["id"] for p in info["inline"]["personas"]] == ["direct_en"]
    read = simlab.read_run(result.run_dir)
    assert read.info.target == name
    assert read.summary is not None and read.summary.overall.passes == 3


def test_a_resume_with_another_target_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    suite, personas, goals = _suite_in_code()
    first = simlab.run(
        suite, target=shy_agent, personas=personas, goals=goals, out="runs", progress=False
    )
    assert not any(r.passed for r in first.records)
    with pytest.raises(simlab.RunDirError) as refused:
        simlab.run(suite, target=FixedAgent, personas=personas, goals=goals,
                   resume=first.run_dir, progress=False)  # fmt: skip
    message = str(refused.value)
    assert f"{__name__}:shy_agent" in message and f"{__name__}:FixedAgent" in message
    # the same target resumes (nothing left to run)
    again = simlab.run(
        suite, target=shy_agent, personas=personas, goals=goals, resume=first.run_dir,
        progress=False,
    )  # fmt: skip
    assert len(again.records) == 3
    # the suite built in code is held to the run's as a file is: a changed goal is refused
    moved = goals[0].model_copy(update={"title": "One-way flight, later"})
    with pytest.raises(simlab.RunDirError, match="changed since the run started"):
        simlab.run(suite, target=shy_agent, personas=personas, goals=[moved],
                   resume=first.run_dir, progress=False)  # fmt: skip
    # the command line has no Python target to give: it says so, exit 2, no traceback
    cli = run_simlab.simlab("run", "--resume", str(first.run_dir))
    assert cli.returncode == 2, cli.stderr
    assert "shy_agent" in cli.stderr and "Traceback" not in cli.stderr


def test_run_and_read_run_give_one_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    suite, personas, goals = _suite_in_code()
    ran = simlab.run(
        suite, target=FixedAgent, personas=personas, goals=goals, out="runs", progress=False
    )
    read = simlab.read_run(ran.run_dir)
    assert type(read) is type(ran) is simlab.RunResult
    assert (read.run_id, read.info, read.summary) == (ran.run_id, ran.info, ran.summary)
    assert read.records == ran.records
    # before its reports were written, a run's summary is worked out from its records
    ran.paths.summary.unlink()
    again = simlab.read_run(ran.run_dir)
    assert again.summary.overall == ran.summary.overall
    assert not ran.paths.summary.exists()

"""The shipped bank example, offline with the scripted user: the sample agent fails at no
stage, and deliberately broken versions of it fail at the stage their defect is in, as the
run's own report (report.md, report.html, summary.json, re-rendered from disk) says."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import simlab
from simlab.cli import main
from simlab.spec import load_goals, load_personas, shipped_domain

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "examples" / "bank"
Agent = Callable[[list[dict[str, Any]], Any], dict[str, Any]]
FREEZE = shipped_domain("bank").tool("freeze_card")


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bank_agent_stages", BANK / "bank_agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


SAMPLE: Agent = _load().reply


def _run(tmp_path: Path, agent: Agent) -> Path:
    library = load_personas([ROOT / "personas" / "bank"])
    personas = [p for p in library.values() if p.id == "bank_calm_en"]
    result = simlab.run(
        BANK / "simlab.yaml",
        target=agent,
        out=tmp_path / "res",
        progress=False,
        reps=1,
        goals=[load_goals([ROOT / "goals" / "bank"])["freeze_lost_card"]],
        personas=personas,
    )
    assert [r.status for r in result.records] == ["ok", "ok"]  # full and sharded
    return result.run_dir


def _overall(run_dir: Path) -> str:
    """The report's overall row of the stage table."""
    lines = (run_dir / "report.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("## Where tool calls first fail")
    return next(line for line in lines[start:] if line.startswith("| overall |"))


def _with_freeze(change: Callable[[dict[str, Any]], dict[str, Any]]) -> Agent:
    """The sample agent, its freeze_card call's arguments changed and the call re-run."""
    assert FREEZE is not None

    def agent(messages: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
        out = dict(SAMPLE(messages, ctx))
        calls = []
        for c in out.get("tool_calls") or []:
            if c["name"] == "freeze_card":
                made = FREEZE.call(change(dict(c["args"])))
                c = {"name": made.name, "args": made.args, "result": made.result,
                     "error": made.error}  # fmt: skip
            calls.append(c)
        out["tool_calls"] = calls
        return out

    return agent


def test_the_sample_agent_fails_at_no_stage(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, SAMPLE)
    assert _overall(run_dir) == (
        "| overall | 2 | 0.0% (0) [0.0, 65.8] | 0.0% (0) [0.0, 65.8] | 0.0% (0) [0.0, 65.8] "
        "| 0.0% (0) [0.0, 65.8] | 100.0% (2) [34.2, 100.0] |"
    )


def test_a_reply_that_drops_the_reference_fails_at_output(tmp_path: Path) -> None:
    def vague(messages: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
        out = dict(SAMPLE(messages, ctx))
        if any(c["name"] == "freeze_card" for c in out.get("tool_calls") or []):
            out["text"] = "Done, the card is frozen."
        return out

    run_dir = _run(tmp_path, vague)
    assert "| 0.0% (0) [0.0, 65.8] | 100.0% (2) [34.2, 100.0] | 0.0% (0) [0.0, 65.8] |" in (
        _overall(run_dir)
    )  # the output column
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    t = summary["tool_stages"]["transitions"]
    assert t["counts"][3] == [0, 0, 0, 0, 2]  # output, then nothing else
    assert "Tool use: first failing stage to the next" in (run_dir / "report.html").read_text(
        encoding="utf-8"
    )


def test_a_card_number_of_the_wrong_type_fails_at_arguments_then_execution(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the number the user said, sent as a number: the schema wants a string of 4 digits
    run_dir = _run(tmp_path, _with_freeze(lambda a: {**a, "card_last4": int(a["card_last4"])}))
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    stages = summary["tool_stages"]
    assert stages["overall"]["arguments"]["count"] == 2
    assert stages["transitions"]["counts"][1] == [0, 0, 2, 0, 0]  # arguments -> execution
    # every figure is recomputed from sessions.jsonl alone
    (run_dir / "summary.json").unlink()
    (run_dir / "report.md").unlink()
    assert main(["report", str(run_dir)]) == 0, capsys.readouterr().err
    again = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert again["tool_stages"] == stages
    assert "| arguments | . | . | 2 | . | . | 2 |" in (run_dir / "report.md").read_text("utf-8")

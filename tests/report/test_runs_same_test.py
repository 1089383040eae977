"""``simlab runs`` gives a trend only between runs of one test: a changed goal is
another test, a changed agent is what the trend is for (real runs of an init project)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from run_simlab import init_project, simlab

AGENT_V2 = '''

def reply(messages: list[dict[str, Any]], ctx: Any = None) -> dict[str, Any]:  # v2
    """A release that forgot its tools."""
    return {"text": "Sorry, I cannot do that here."}
'''


def run_twice(tmp_path: Path, change: Any) -> tuple[list[dict[str, Any]], str]:
    project = init_project(tmp_path)
    for _ in range(2):
        done = simlab("run", "--reps", "1", cwd=project)
        assert done.returncode == 0, done.stderr
        change(project)
    listed = simlab("runs", "--json", cwd=project)
    shown = simlab("runs", cwd=project)
    assert listed.returncode == 0 and shown.returncode == 0, listed.stderr + shown.stderr
    return json.loads(listed.stdout), shown.stdout


def run_infos(project: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(project.glob("results/*/run.json"))]


def test_a_goal_edited_between_two_runs_gives_no_trend(tmp_path: Path) -> None:
    def drop_the_mind_change(project: Path) -> None:
        goal = project / "goals" / "return_mug.yaml"
        text = goal.read_text(encoding="utf-8")
        goal.write_text(text.replace("  - {fact: reason, value: wrong_item}\n", "  []\n"))

    rows, table = run_twice(tmp_path, drop_the_mind_change)
    assert [r["target"] for r in rows] == ["agent:reply"] * 2  # same suite, same target
    assert rows[1]["trend"] is None and rows[1]["trend_ci"] is None
    assert "test changed: no trend" in table
    assert rows[1]["trend_check"] == "test changed"
    first, second = run_infos(tmp_path / "proj")
    assert first["test_hash"] != second["test_hash"]


def test_only_the_agent_changed_between_two_runs_gives_a_trend(tmp_path: Path) -> None:
    def release_v2(project: Path) -> None:
        agent = project / "agent.py"
        agent.write_text(agent.read_text(encoding="utf-8") + AGENT_V2, encoding="utf-8")

    rows, table = run_twice(tmp_path, release_v2)
    assert rows[0]["pass_rate"] > 0 and rows[1]["pass_rate"] == 0  # v2 really ran
    assert rows[1]["trend"] == -rows[0]["pass_rate"] and rows[1]["trend_ci"] is not None
    assert rows[1]["trend_check"] == "same test"  # checked, not merely assumed
    first, second = run_infos(tmp_path / "proj")
    assert first["test_hash"] == second["test_hash"]
    assert f"{rows[1]['trend'] * 100:+.1f} [" in table and "] unchecked" not in table

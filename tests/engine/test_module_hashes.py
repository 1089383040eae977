"""A user's grader and agent modules are part of a run's identity, by their source."""

from __future__ import annotations

from pathlib import Path

from simlab.engine import run_hashes
from simlab.spec import Suite

GRADER = "from simlab import Check\n\n\ndef tone(ctx):\n    return Check(passed={verdict})\n"


def _suite() -> Suite:
    return Suite.model_validate(
        {
            "target": {"kind": "callable", "ref": "my_agent:reply"},
            "grading": {"graders": ["goal_completed", "my_graders:tone"]},
        }
    )


def test_editing_a_user_grader_changes_both_hashes(tmp_path: Path) -> None:
    (tmp_path / "my_agent.py").write_text("def reply(messages, ctx):\n    return 'hi'\n")
    (tmp_path / "my_graders.py").write_text(GRADER.format(verdict="True"))
    before = run_hashes(_suite(), {}, {}, tmp_path, {})
    (tmp_path / "my_graders.py").write_text(GRADER.format(verdict="False"))
    after = run_hashes(_suite(), {}, {}, tmp_path, {})
    assert before.test != after.test  # a fixed grader is another test: no trend across it
    assert before.config != after.config  # and a run does not resume with it


def test_editing_the_agent_changes_the_config_hash_not_the_test(tmp_path: Path) -> None:
    (tmp_path / "my_graders.py").write_text(GRADER.format(verdict="True"))
    (tmp_path / "my_agent.py").write_text("def reply(messages, ctx):\n    return 'hi'\n")
    before = run_hashes(_suite(), {}, {}, tmp_path, {})
    (tmp_path / "my_agent.py").write_text("def reply(messages, ctx):\n    return 'hello'\n")
    after = run_hashes(_suite(), {}, {}, tmp_path, {})
    assert before.test == after.test  # the same test of a changed agent: one trend
    assert before.config != after.config

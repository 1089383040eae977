"""A user's own pytest test with simlab's plugin: passes against reference v2, fails
against v1 with a message naming the persona and the bound."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

USER_TEST = """
import simlab

SUITE = {suite!r}


def test_every_persona_passes_at_least_80_percent(simlab_run):
    result = simlab_run(SUITE, target="reference:{version}", reps=2)
    simlab.assert_lower_bound(result, 0.8, by="persona")
"""


def _user_project(tmp_path: Path, version: str) -> Path:
    project = tmp_path / f"project_{version}"
    project.mkdir()
    text = USER_TEST.format(suite=str(ROOT / "simlab.yaml"), version=version)
    (project / "test_my_agent.py").write_text(textwrap.dedent(text), encoding="utf-8")
    return project


def _pytest(project: Path) -> subprocess.CompletedProcess[str]:
    # the plugin comes from simlab's pytest11 entry point: no conftest, no -p
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_my_agent.py"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_fixture_passes_a_good_agent(tmp_path: Path) -> None:
    done = _pytest(_user_project(tmp_path, "v2"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_fixture_fails_a_bad_agent_naming_persona_and_bound(tmp_path: Path) -> None:
    done = _pytest(_user_project(tmp_path, "v1"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout
    # v1's defects hit the mind-changing personas hardest
    assert "persona fickle_en: pass_rate" in done.stdout
    assert "< required 80.0%" in done.stdout
    assert "report:" in done.stdout

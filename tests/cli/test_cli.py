"""The command line as a user meets it: help, delegated commands, schema, validate."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import run_simlab

ROOT = Path(__file__).resolve().parents[2]


def simlab(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run_simlab.simlab(*args, cwd=cwd)


def test_memory_test_delegates_and_reports_the_broken_store() -> None:
    bad = simlab("memory-test", "simlab.memory:AppendOnlyStore", "--no-e2e")
    assert bad.returncode == 1
    assert "update" in bad.stdout and "FAIL" in bad.stdout
    good = simlab("memory-test", "simlab.memory:KeyedStore", "--no-e2e")
    assert good.returncode == 0, good.stdout + good.stderr


def test_schema_writes_editor_schemas(tmp_path: Path) -> None:
    proc = simlab("schema", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    persona = json.loads((tmp_path / "persona.schema.json").read_text())
    assert persona["additionalProperties"] is False
    assert {"id", "name", "language"} <= set(persona["required"])
    assert (tmp_path / "goal.schema.json").exists() and (tmp_path / "suite.schema.json").exists()


def test_validate_the_shipped_library() -> None:
    proc = simlab("validate")
    assert proc.returncode == 0, proc.stderr
    assert "files valid" in proc.stderr


def test_unknown_persona_in_a_suite_names_the_valid_ones(tmp_path: Path) -> None:
    suite = tmp_path / "s.yaml"
    suite.write_text(
        f"personas: [nobody]\npersona_dirs: [{ROOT / 'personas'}]\ngoal_dirs: [{ROOT / 'goals'}]\n"
    )
    proc = simlab("run", str(suite), "--out", str(tmp_path), "--quiet")
    assert proc.returncode == 2
    assert "'nobody' matches no persona" in proc.stderr and "terse_en" in proc.stderr
    assert "Traceback" not in proc.stderr


def _unhandled(signum: int, frame: object) -> None:  # fail the test, not kill pytest
    raise AssertionError("simlab left SIGTERM to the process's own handler")


def _sigterm_then_wait(*_: object) -> None:
    # a default action would kill pytest itself: fail instead
    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL, "SIGTERM would kill"
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(30)


@pytest.mark.parametrize("phase", ["_plan_run", "_nothing_graded"])
def test_sigterm_before_or_after_the_sessions_ends_like_ctrl_c(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    phase: str,
) -> None:
    # _plan_run: start-up, before any loop; _nothing_graded: after the run's loop,
    # whose signal receiver leaves SIGTERM at its default when it closes
    import simlab.cli as cli

    suite = tmp_path / "suite.yaml"
    suite.write_text(
        json.dumps(
            {
                "personas": ["terse_en"],
                "goals": ["one_way"],
                "modes": ["full"],
                "reps": 1,
                "persona_dirs": [str(ROOT / "personas")],
                "goal_dirs": [str(ROOT / "goals")],
            }
        )
    )
    monkeypatch.setattr(cli, phase, _sigterm_then_wait)
    before = signal.signal(signal.SIGTERM, _unhandled)
    try:
        assert cli.main(["run", str(suite), "--out", str(tmp_path / "out"), "--quiet"]) == 130
        assert "interrupted" in capsys.readouterr().err
        assert signal.getsignal(signal.SIGTERM) is _unhandled  # the caller's handler is back
    finally:
        signal.signal(signal.SIGTERM, before)

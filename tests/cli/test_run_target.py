"""``simlab run --target SPEC`` tests another agent with the same suite: one suite, each
release; a target it cannot run is refused before any session, with the forms it takes."""

import json
from pathlib import Path

from run_simlab import simlab


def _runs(project: Path) -> list[Path]:
    results = project / "results"
    return sorted(results.iterdir()) if results.exists() else []


def test_the_target_option_replaces_the_suites(project: Path) -> None:
    (project / "agent_next.py").write_text(
        (project / "agent.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    for target, recorded in (
        ("reference:v2", {"kind": "reference", "version": "v2"}),
        ("agent_next:reply", {"kind": "callable", "ref": "agent_next:reply"}),
    ):
        before = _runs(project)
        ran = simlab("run", "--quiet", "--target", target, cwd=project)
        assert ran.returncode == 0, ran.stderr
        assert f"target: {target}" in ran.stderr
        (run_dir,) = set(_runs(project)) - set(before)  # ids sort by the second only
        info = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        assert {k: info["suite"]["target"][k] for k in recorded} == recorded
        records = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(records) == 24 and all('"status":"ok"' in r for r in records)
        # the run is resumed and diagnosed with the target it ran, not the suite file's
        resumed = simlab("run", "--resume", str(run_dir), "--quiet", cwd=project)
        assert resumed.returncode == 0, resumed.stderr
        assert "24 of 24 sessions done" in resumed.stderr
        diagnosed = simlab("diagnose", str(run_dir), cwd=project)
        assert diagnosed.returncode == 0, diagnosed.stderr
        assert f"({target})" in diagnosed.stdout.splitlines()[0]
    # the suite file itself is unchanged
    assert "target: agent:reply" in (project / "simlab.yaml").read_text(encoding="utf-8")


def test_a_target_it_cannot_run_is_refused_before_any_session(project: Path) -> None:
    ran = simlab("run", "--target", "reference:v9", cwd=project)
    assert ran.returncode == 2
    assert "target 'reference:v9': version: Input should be 'v1' or 'v2'" in ran.stderr
    assert "module:attr" in ran.stderr and "http(s)://" in ran.stderr
    assert "Traceback" not in ran.stderr and "pydantic.dev" not in ran.stderr
    assert _runs(project) == []


def test_a_resumed_run_keeps_its_target(project: Path) -> None:
    assert simlab("run", "--quiet", cwd=project).returncode == 0
    (run_dir,) = _runs(project)
    ran = simlab("run", "--resume", str(run_dir), "--target", "reference:v2", cwd=project)
    assert ran.returncode == 2
    assert "--target cannot change a run being resumed" in ran.stderr

"""report.md and the terminal list a run's failed sessions with what each check said.

A stranger's run of a careless agent printed its pass rate and the checks' rates,
but neither report.md nor the terminal said which sessions failed or why: that was
in report.html's viewer and sessions.jsonl only.
"""

import json
from pathlib import Path

from run_simlab import simlab


def careless(project: Path) -> Path:
    """The guide's careless copy of the sample agent: it never states the results."""
    agent = (project / "agent.py").read_text()
    assert '"Done. {shown}."' in agent
    (project / "careless_agent.py").write_text(agent.replace('"Done. {shown}."', '"Done."'))
    suite = (project / "simlab.yaml").read_text()
    (project / "careless.yaml").write_text(
        suite.replace("target: agent:reply", "target: careless_agent:reply")
    )
    return project / "careless.yaml"


def test_failed_sessions_are_listed_with_their_checks_detail(project: Path) -> None:
    careless(project)
    ran = simlab("run", "careless.yaml", cwd=project)
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = (project / "results").iterdir()
    records = [json.loads(line) for line in (run_dir / "sessions.jsonl").read_text().splitlines()]
    failed = sorted(
        (r for r in records if r["status"] == "ok" and not r["passed"]),
        key=lambda r: (r["key"]["persona"], r["key"]["goal"], r["key"]["mode"], r["key"]["rep"]),
    )
    assert len(failed) == 24
    first = failed[0]
    key = first["key"]
    session = f"{key['persona']}/{key['goal']}/{key['mode']}/{key['rep']}"
    check = first["checks"]["confirmation"]
    assert not check["passed"] and check["detail"]
    said = f"confirmation (turn {check['turn']}): {check['detail']}"

    report = (run_dir / "report.md").read_text()
    assert "## Failed sessions: 10 of 24, spread over personas and goals" in report
    assert f"| {session} | {first['score']:.1f} | {first['stop_reason']} | {said} |" in report
    assert report.count("| calm/") + report.count("| fickle/") == 10
    # every persona and goal that failed is listed: 6 failures each, 3 or 2 of each shown
    listed = {g: report.count(f"| {g}/") for g in ("calm/order_tea", "calm/return_mug")}
    listed |= {g: report.count(f"| {g}/") for g in ("fickle/order_tea", "fickle/return_mug")}
    assert listed == {
        "calm/order_tea": 3,
        "calm/return_mug": 3,
        "fickle/order_tea": 2,
        "fickle/return_mug": 2,
    }
    assert "Failed sessions: 10 of 24, spread over personas and goals" in ran.stdout
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["failed_sessions"]["n"] == 24

    # re-rendered from the run's files alone (slim records: the detail is read back)
    (run_dir / "report.md").unlink()
    again = simlab("report", str(run_dir), cwd=project)
    assert again.returncode == 0, again.stderr
    assert (run_dir / "report.md").read_text() == report


def test_a_run_without_failures_lists_none(project: Path) -> None:
    ran = simlab("run", "--quiet", cwd=project)
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = (project / "results").iterdir()
    assert "Failed sessions" not in (run_dir / "report.md").read_text()

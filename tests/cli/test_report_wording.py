"""Report lines a newcomer stumbled on, read from real runs of a ``simlab init`` project."""

from pathlib import Path

from run_simlab import simlab


def test_the_planned_length_caption_says_each_thing_once_and_labels_are_filled(
    project: Path,
) -> None:
    ran = simlab("run", "--quiet", cwd=project)
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = (project / "results").iterdir()
    report = (run_dir / "report.md").read_text()
    # the caption said "Within a length bucket a cell holds only its sessions ..." twice
    assert report.count("Within a length bucket a cell holds only its sessions") == 1
    # the trajectory table's Label column was empty for every group that was fine
    table = report.split("## Tool-call trajectory")[1].split("\n## ")[0]
    rows = [ln for ln in table.splitlines() if ln.startswith("| ")][2:]  # past the header
    assert rows and all(ln.endswith(("| ok |", "| wasteful |", "| gave up early |")) for ln in rows)
    assert any(ln.endswith("| ok |") for ln in rows), rows


def test_a_run_with_no_graded_session_shows_one_dash_for_its_rate(project: Path) -> None:
    (project / "crash.py").write_text("def reply(messages, ctx):\n    raise RuntimeError('down')\n")
    suite = (project / "simlab.yaml").read_text().replace("agent:reply", "crash:reply")
    (project / "crash.yaml").write_text(suite)
    ran = simlab("run", "crash.yaml", cwd=project)
    assert ran.returncode != 0
    (run_dir,) = (project / "results").iterdir()
    report = (run_dir / "report.md").read_text()
    assert "Overall: pass rate — (n=0, 24 errors excluded)" in report, report[-400:]


def test_a_quiet_run_still_says_its_overall_figure(project: Path) -> None:
    # `simlab run --quiet` (as the guide runs it) said only the target and the folder:
    # nothing said whether the agent passed
    ran = simlab("run", "--quiet", cwd=project)
    assert ran.returncode == 0, ran.stderr
    assert "Overall: pass rate 100.0% [86.2%, 100.0%] (n=24, 0 errors excluded)" in ran.stderr
    assert "Pass rate by persona" not in ran.stdout + ran.stderr  # no tables

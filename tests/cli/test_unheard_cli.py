"""A project whose agent asks in words its domain has no cue for: the report says the
simulated user did not understand, rather than leaving the failures on the agent."""

import html
import json
from pathlib import Path

from run_simlab import simlab

LINE = "failed sessions had agent turns the scripted user did not understand"
PROCEED = "Would you like me to proceed?"


def _run(project: Path) -> tuple[str, Path]:
    """``simlab run`` in ``project``: its stdout and its run folder."""
    ran = simlab("run", cwd=project)
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = (project / "results").iterdir()
    return ran.stdout, run_dir


def test_an_agent_asking_without_a_cue_gets_the_line_in_every_report(project: Path) -> None:
    agent = project / "agent.py"
    source = agent.read_text(encoding="utf-8")
    assert "Shall I go ahead?" in source  # the domain's only confirm cue is "shall i"
    agent.write_text(source.replace("Shall I go ahead?", PROCEED), encoding="utf-8")

    stdout, run_dir = _run(project)
    records = [json.loads(ln) for ln in (run_dir / "sessions.jsonl").read_text().splitlines()]
    failed = [r for r in records if r["passed"] is False]
    assert f"{len(failed)} of {len(failed)} {LINE}" in " ".join(stdout.split())
    unheard = [r for r in failed if r["meta"].get("unheard")]
    assert failed and unheard == failed  # every failure had a proposal nobody said yes to
    assert {r["meta"]["unheard"]["first_text"] for r in unheard} == {PROCEED}

    expected = (
        f"{len(unheard)} of {len(failed)} {LINE} "
        f"({sum(r['meta']['unheard']['count'] for r in unheard)} turns; first: '{PROCEED}' in "
        f"{len(unheard)} of them"
    )
    assert expected in " ".join(stdout.split())  # the terminal wraps long lines
    again = simlab("report", str(run_dir), cwd=project)
    assert again.returncode == 0, again.stderr
    assert expected in " ".join(again.stdout.split())
    assert expected in (run_dir / "report.md").read_text(encoding="utf-8")
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert html.escape(expected) in page
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["unheard"]["failed_unheard"] == len(unheard)


def test_the_sample_agent_as_written_gets_no_line(project: Path) -> None:
    stdout, run_dir = _run(project)
    assert LINE not in " ".join(stdout.split())
    assert LINE not in (run_dir / "report.md").read_text(encoding="utf-8")
    records = [json.loads(ln) for ln in (run_dir / "sessions.jsonl").read_text().splitlines()]
    assert not any("unheard" in r["meta"] for r in records)

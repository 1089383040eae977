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


GREETING = "Hello! Would you like to order tea or return something?"
ASKED = GREETING.removeprefix("Hello! ")  # the greeting's question, the words a cue holds


def _sessions(run_dir: Path) -> list[dict[str, object]]:
    """The run's records without their wall times and ``meta.unheard``."""
    out = []
    for line in (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for wall in ("duration_s", "agent_turn_s"):
            record.pop(wall, None)
        record["meta"].pop("unheard", None)
        out.append(record)
    return sorted(out, key=lambda r: json.dumps(r["key"], sort_keys=True))


def test_an_open_question_the_domain_declares_is_not_reported(project: Path) -> None:
    """The sample agent greets with an open question the starter domain lists in its
    ``open_cues``: the user volunteers its facts, and no report blames the domain.
    Without the cue the same sessions are played, and the greeting is reported."""
    agent = project / "agent.py"
    source = agent.read_text(encoding="utf-8")
    assert GREETING in source and "    if tool is None:\n" in source
    greets = source.replace("    if tool is None:\n", "    if tool is None or len(users) == 1:\n")
    agent.write_text(greets, encoding="utf-8")

    stdout, run_dir = _run(project)
    records = [json.loads(ln) for ln in (run_dir / "sessions.jsonl").read_text().splitlines()]
    first = {r["transcript"]["turns"][0]["agent"]["text"] for r in records}
    assert first == {GREETING}  # every session was greeted with the open question
    assert not any("unheard" in r["meta"] for r in records)
    assert LINE not in " ".join(stdout.split())

    domain = project / "domains" / "shop" / "domain.yaml"
    text = domain.read_text(encoding="utf-8")
    cue = next(ln for ln in text.splitlines(keepends=True) if ln.lstrip().startswith("open_cues:"))
    domain.write_text(text.replace(cue, ""), encoding="utf-8")
    ran = simlab("run", "--out", str(project / "again"), cwd=project)
    assert ran.returncode == 0, ran.stderr
    (again,) = (project / "again").iterdir()
    unheard = [json.loads(ln)["meta"].get("unheard") for ln in (again / "sessions.jsonl").open()]
    assert unheard and all(u == {"count": 1, "first_turn": 1, "first_text": ASKED} for u in unheard)
    assert _sessions(again) == _sessions(run_dir)  # the same words, only now reported

"""docs/guide.md, run as written: its shell commands, in order, in a fresh folder.

Each fenced ``bash`` block is run verbatim; a ``python`` or ``yaml`` block whose
first line is ``# PATH`` is a file the guide asks the reader to save, and is saved
at that point, as written. The blocks run as one bash script (``set -euo
pipefail``: the first failing command fails the test), with ``simlab`` and
``python3`` on PATH as this interpreter (and PYTHONPATH inherited, so a checkout's
own code runs). The runs the guide makes are then checked: what they graded.
"""

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
SAVED = re.compile(r"# (\S+\.(?:py|yaml))\n")
EOF_MARK = "SIMLAB_GUIDE_FILE"


def _blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(GUIDE.read_text(encoding="utf-8"))]


def guide_script() -> str:
    """The guide's commands and saved files, in order, as one bash script."""
    lines = ["set -euo pipefail"]
    for lang, body in _blocks():
        if lang == "bash":
            lines.append(body)
        elif lang in ("python", "yaml") and (saved := SAVED.match(body)):
            assert EOF_MARK not in body
            lines.append(f"cat > '{saved.group(1)}' <<'{EOF_MARK}'\n{body}{EOF_MARK}")
    return "\n".join(lines) + "\n"


def _path_with_simlab(bin_dir: Path) -> dict[str, str]:
    bin_dir.mkdir()
    # scripts, not symlinks: a symlinked venv python outside its venv loses the venv
    for name, args in (("simlab", "-m simlab.cli "), ("python3", "")):
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\nexec "{sys.executable}" {args}"$@"\n', encoding="utf-8")
        tool.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


def _runs(project: Path) -> dict[str, list[list[dict[str, Any]]]]:
    """Each suite file's name -> the session records of each of its runs, oldest first."""
    runs: dict[str, list[list[dict[str, Any]]]] = {}
    for run_dir in sorted((project / "results").iterdir()):
        info = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        lines = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines]
        assert len(records) == info["n_sessions"]
        runs.setdefault(_label(info), []).append(records)
    return runs


def _label(info: dict[str, Any]) -> str:
    """A run's suite file name, or the target it ran when ``--target`` replaced the file's."""
    replaced = info["overrides"].get("suite_fields", {}).get("target")
    return str(replaced["ref"]) if replaced else Path(info["suite_path"]).name


def _diagnosis(project: Path, suite: str) -> dict[str, Any]:
    """The ``diagnosis.json`` that ``simlab diagnose`` wrote into the one run of ``suite``."""
    (run_dir,) = [
        d
        for d in (project / "results").iterdir()
        if _label(json.loads((d / "run.json").read_text(encoding="utf-8"))) == suite
    ]
    report: dict[str, Any] = json.loads((run_dir / "diagnosis.json").read_text(encoding="utf-8"))
    return report


def _check(record: dict[str, Any], name: str) -> dict[str, Any]:
    check: dict[str, Any] = record["checks"][name]
    return check


def test_every_block_is_a_command_a_saved_file_or_marked_as_an_illustration() -> None:
    blocks = _blocks()
    assert sum(lang == "bash" for lang, _ in blocks) >= 6
    for lang, body in blocks:
        if lang in ("yaml", "python") and not SAVED.match(body):
            assert lang == "python" and body.startswith("def reply("), body  # the one sketch
        else:
            assert lang in ("bash", "python", "yaml"), lang


def test_the_guides_commands_run_and_grade_as_it_says(tmp_path: Path) -> None:
    script = tmp_path / "guide.sh"
    script.write_text(guide_script(), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.Popen(
        ["bash", str(script)],
        cwd=work,
        env=_path_with_simlab(tmp_path / "bin"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the guide's server, too, is in this group
    )
    try:
        out, err = proc.communicate(timeout=240)
    finally:
        with contextlib.suppress(ProcessLookupError):  # the group is gone already
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, f"{out[-3000:]}\n{err[-3000:]}"

    project = work / "shop-tests"
    runs = _runs(project)
    assert sorted(runs) == [
        "careless_agent:reply",
        "forgetful_agent:reply",
        "http.yaml",
        "nightly.yaml",
        "simlab.yaml",
        "sliding_agent:reply",
    ]
    first, last = runs["simlab.yaml"]
    # the project as `simlab init` wrote it: 24 sessions, every one graded and passed
    assert len(first) == 24 and all(r["status"] == "ok" and r["passed"] for r in first)
    # the careless agent acts but never states the result: confirmation fails, alone
    (careless,) = runs["careless_agent:reply"]
    assert len(careless) == 24 and not any(r["passed"] for r in careless)
    for record in careless:
        assert not _check(record, "confirmation")["passed"]
        assert _check(record, "confirmation")["detail"].startswith("reply does not state ")
        assert _check(record, "goal_completed")["passed"]
    # compared with the first run, under the guide's gates: the overall drop fails
    assert "gates failed: exit 1" in out
    compared = (project / "compare.md").read_text(encoding="utf-8")
    assert re.search(r"max_overall_drop_points\W.*FAILED", compared), compared[-2000:]
    assert re.search(r"min_pairs\W.*PASSED", compared), compared[-2000:]
    # diagnosed, the careless agent's failures are single-turn ones it cannot verify:
    # a plain function honours no knob
    said = " ".join(out.split())  # the console wraps long lines
    careless_dx = _diagnosis(project, "careless_agent:reply")
    assert careless_dx["n_failed"] == 24 and careless_dx["verified"]["k"] == 0
    for session in careless_dx["sessions"]:
        assert session["cause"] == "single_turn"
        assert session["verification"]["outcome"] == (
            "cannot verify: the target does not honour context_window"
        )
    assert "not verifiable in 24 session(s) (single_turn 24): the target does not honour" in said
    # the forgetful agent declares its knobs: its truncations are verified by replay, the
    # unlimited window fixing each and the reminder none, and the reply's view read
    (forgetful,) = runs["forgetful_agent:reply"]
    failed = {
        "/".join(r["key"][k] for k in ("persona", "goal", "mode"))
        for r in forgetful
        if not r["passed"]
    }
    assert len(forgetful) == 24 and all(r["status"] == "ok" for r in forgetful)
    assert failed == {"calm/order_tea/sharded", "fickle/order_tea/sharded"}, failed
    assert sum(not r["passed"] for r in forgetful) == 4  # "Four of the 24 fail"
    forgetful_dx = _diagnosis(project, "forgetful_agent:reply")
    assert forgetful_dx["n_failed"] == sum(not r["passed"] for r in forgetful)
    assert forgetful_dx["verified"]["k"] == forgetful_dx["n_failed"]
    evidence = []
    for session in forgetful_dx["sessions"]:
        assert session["cause"] == "truncation"
        verification = session["verification"]
        assert verification["verified"], verification
        assert verification["fixed"]["unlimited_window"] is True
        assert verification["fixed"]["instruction_reminder"] is False
        assert verification["fixed"]["agent_redrawn"] is False
        evidence.append(session["evidence"])
    assert any("the user restated" in e for e in evidence), evidence  # the guide's two kinds
    assert any("outside the agent's context (it saw turns 1," in e for e in evidence), evidence
    # the same window without the first message: what the user came for falls out, the
    # agent greets again, and the diagnosis reads that (the greeting is an open_cue)
    (sliding,) = runs["sliding_agent:reply"]
    assert len(sliding) == 24 and all(r["status"] == "ok" for r in sliding)
    assert sum(not r["passed"] for r in sliding) == 18  # "18 of the 24 fail"
    assert all(r["passed"] == (r["n_user_turns"] <= 3) for r in sliding)  # "past two turns"
    sliding_dx = _diagnosis(project, "sliding_agent:reply")
    assert sliding_dx["n_failed"] == 18 and sliding_dx["verified"]["k"] == 18
    for session in sliding_dx["sessions"]:
        assert session["cause"] == "truncation"
        assert session["evidence"].startswith(
            "turn 3: the user's opening (turn 1: what they came for) was outside the agent's "
            "context (it saw turns 2-3), and it asked again what the user wants ('Would you "
            "like to order tea or return something?')"
        ), session["evidence"]
    assert any(s["evidence"].endswith("(turn 14)") for s in sliding_dx["sessions"])
    # the same agent behind the HTTP endpoint, reporting its tool results: graded the same
    (http,) = runs["http.yaml"]
    assert len(http) == 24 and all(r["status"] == "ok" and r["passed"] for r in http)
    assert all(_check(r, "confirmation")["passed"] for r in http)
    # a persona and a goal added from the guide: 3 x 3 x 2 modes x 3 reps
    assert len(last) == 54 and all(r["status"] == "ok" for r in last)
    assert {r["key"]["persona"] for r in last} == {"calm", "fickle", "terse"}
    assert {r["key"]["goal"] for r in last} == {"order_tea", "return_mug", "order_black_tea"}
    assert sum(r["passed"] for r in last) >= 0.75 * len(last)
    # the production failure, read in the shop domain: the corrected quantity is kept,
    # the logged reply broke it, and the nightly suite replays the saved case
    (case_file,) = (project / "regressions").glob("*.yaml")
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))
    assert case["domain"] == "shop" and case["failing_turn"] == 3
    kept = {c["fact"]: (c["value"], c["op"]) for c in case["constraints"]}
    assert kept == {
        "item": ("GREEN_TEA", "eq"),
        "quantity": (2, "eq"),
        "delivery_date": ("2027-02-01", "eq"),
    }
    (nightly,) = runs["nightly.yaml"]
    assert len(nightly) == 54
    (nightly_dir,) = [
        d for d in (project / "results").iterdir() if (d / "prefix_cases.json").is_file()
    ]
    outcomes = json.loads((nightly_dir / "prefix_cases.json").read_text(encoding="utf-8"))
    (outcome,) = outcomes["cases"]
    assert outcome["logged"] == "broken"
    assert (outcome["kept"], outcome["broken"], outcome["n"]) == (20, 0, 20)
    report = (nightly_dir / "report.md").read_text(encoding="utf-8")
    assert "Prefix regression cases: 1 replayed after the run" in report
    assert "| 100% (20/20) [84%, 100%] |" in report

"""The JUnit file of a run the driver keeps slim: every outcome in full, read one at a
time, the same file as from the records in hand."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from simlab.cli import main
from simlab.report import render_run_junit
from simlab.store import SUMMARY_FILE, RunDirError, RunSummary, iter_lines, read_sessions

ROOT = Path(__file__).resolve().parents[2]


def _suite(folder: Path) -> Path:
    suite = folder / "suite.yaml"
    suite.write_text(
        "name: junit\npersonas: [fickle_en, terse_en]\ngoals: [one_way, change_date]\n"
        f"modes: [full, sharded]\nreps: 3\ntarget: reference:v1\n"
        f"persona_dirs: [{ROOT / 'personas'}]\ngoal_dirs: [{ROOT / 'goals'}]\n",
        encoding="utf-8",
    )
    return suite


def test_the_junit_of_a_slim_run_is_the_one_from_its_full_records(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    code = main(["run", str(_suite(tmp_path)), "--out", str(tmp_path / "res"), "--quiet",
                 "--junit", str(junit)])  # fmt: skip
    assert code in (0, 1)
    (run_dir,) = (tmp_path / "res").iterdir()
    full = read_sessions(run_dir).records  # every record whole, as before
    summary = json.loads((run_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
    expected = render_run_junit(
        full, RunSummary.model_validate(summary), f"simlab run {run_dir.name}"
    )
    assert junit.read_text(encoding="utf-8") == expected
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == str(len(full)) == "24"
    failed = [r for r in full if r.status == "ok" and not r.passed]
    assert failed and suite.get("failures") == str(len(failed))
    # a failure's message holds its checks' details: the slim records drop them
    details = [c.detail for c in failed[0].checks.values() if not c.passed and c.detail]
    assert details and details[0] in junit.read_text(encoding="utf-8")


def test_iter_lines_reads_each_record_as_it_is_reached(tmp_path: Path) -> None:
    assert main(["run", str(_suite(tmp_path)), "--out", str(tmp_path / "res"), "--quiet"]) in (0, 1)
    (run_dir,) = (tmp_path / "res").iterdir()
    path = run_dir / "sessions.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:3]) + b'{"key": 1}\n' + b"".join(lines[4:]))
    records = iter_lines(run_dir, [1, 2, 4, 6])
    assert [n for n, _ in (next(records), next(records))] == [1, 2]  # not read past line 2
    with pytest.raises(RunDirError, match=r"sessions\.jsonl:4"):
        next(records)

"""A production failure becomes a prefix regression case that a suite includes."""

from __future__ import annotations

import json
from pathlib import Path

from run_simlab import simlab

from simlab.store import PrefixCases

ROOT = Path(__file__).resolve().parents[2]


def test_saved_prefix_case_runs_in_a_suite(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    log = ROOT / "tests" / "replay" / "data" / "prefix_log.jsonl"
    saved = simlab(
        "replay", str(log), "--target", "reference:v1", "--k", "4", "--save-cases", str(cases)
    )
    assert saved.returncode == 0, saved.stderr
    assert list(cases.glob("*.yaml"))
    rows, reports = {}, {}
    for version in ("v1", "v2"):
        suite = tmp_path / f"{version}.yaml"
        suite.write_text(
            json.dumps(
                {
                    "reps": 1,
                    "personas": ["terse_en"],
                    "goals": ["refund"],
                    "modes": ["full"],
                    "persona_dirs": [str(ROOT / "personas")],
                    "goal_dirs": [str(ROOT / "goals")],
                    "prefix_cases": [str(cases)],
                    "target": f"reference:{version}",
                }
            )
        )
        out = tmp_path / f"out_{version}"
        proc = simlab("run", str(suite), "--out", str(out), "--quiet")
        assert proc.returncode == 0, proc.stderr
        # --quiet: one line for the cases, whatever their number; each one's row is in
        # the reports, and in the terminal's tables without --quiet (simlab report here)
        said = [line for line in proc.stderr.splitlines() if line.startswith("prefix case")]
        assert said == [
            f"prefix cases: 1 replayed; 0 kept every constraint in every replay that acted, "
            f"{1 if version == 'v1' else 0} broke one at least once (each case's keep-rate "
            "and interval: the report's Prefix regression cases table)"
        ]
        (run_dir,) = list(out.iterdir())
        data = json.loads((run_dir / "prefix_cases.json").read_text())
        assert PrefixCases.model_validate(data).schema_version == 1  # a typed, versioned file
        (row,) = data["cases"]
        assert len(row["keep_ci"]) == 2 and row["logged"] == "broken"
        rows[version] = row
        shown = simlab("report", str(run_dir))
        assert "Prefix regression cases: 1 replayed after the run" in shown.stdout
        assert data["reproduction"]["n"] == 1
        for report in ("report.md", "report.html"):  # the nightly's reports show the case
            text = (run_dir / report).read_text(encoding="utf-8")
            assert "Prefix regression cases: 1 replayed after the run" in text, report
            again = 1 if version == "v1" else 0
            assert f"Reproduced {again} of 1 recorded constraint breaks" in text, report
            assert row["case"] in text.replace("\\_", "_")
        reports[version] = (run_dir / "report.md").read_text(encoding="utf-8")
    # v1's context window loses the early constraint: it breaks it again, in each
    # of the saved case's k=20 replays (--k 4 applied to the first replay only)
    assert rows["v1"]["broken"] == 20 and rows["v1"]["reproduced"] is True
    # v2 proposes a flight that keeps it and waits for a go-ahead: no action, not "kept"
    assert rows["v2"]["broken"] == 0 and rows["v2"]["no_action"] == 20
    assert rows["v2"]["keep_rate"] is None and rows["v2"]["reproduced"] is False
    assert "| 0% (0/20) [0%, 16%] | yes |" in reports["v1"]
    assert "| - (no replay acted) | no |" in reports["v2"]

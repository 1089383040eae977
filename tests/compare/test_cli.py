"""``simlab compare`` end to end: the release gate, JUnit, markdown, Simpson warning, escaping."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from simlab.compare import Gates, cli_main, compare_runs, evaluate_gates, load_run

from .conftest import make_record as rec
from .conftest import write_run

TURNS = {"2-4": 3, "5-9": 7, "10+": 12}


def bucket_run(run_dir: Path, counts: dict[str, tuple[int, int]]) -> Path:
    """A run with ``passed`` of ``n`` sessions per bucket; keys p/g<bucket>/sharded/<i>,
    the first ``passed`` reps of each bucket pass."""
    records = [
        rec("p", f"g{name}", i, turns=TURNS[name], passed=i < passed)
        for name, (passed, n) in counts.items()
        for i in range(n)
    ]
    return write_run(run_dir, records)


# A regression confined to the 10+ bucket: 2-4 and 5-9 improve, 10+ drops 30 points.
MUST_A = {"2-4": (140, 200), "5-9": (120, 200), "10+": (60, 100)}
MUST_B = {"2-4": (190, 200), "5-9": (160, 200), "10+": (30, 100)}


def test_regression_confined_to_10_plus_fails_the_gate_though_overall_rises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = bucket_run(tmp_path / "A", MUST_A)
    b = bucket_run(tmp_path / "B", MUST_B)
    junit, md = tmp_path / "ci" / "junit.xml", tmp_path / "ci" / "compare.md"
    code = cli_main([str(a), str(b), "--junit", str(junit), "--markdown", str(md)])
    assert code == 1

    c = compare_runs(load_run(a), load_run(b))
    # overall: A 320/500 = 64%, B 380/500 = 76%: up 12 points
    assert (c.overall.a.passed, c.overall.a.n, c.overall.b.passed) == (320, 500, 380)
    assert c.overall.delta == pytest.approx(0.12)
    rows = {g.name: g for g in c.by_bucket}
    assert rows["10+"].delta == pytest.approx(-0.30)
    # By hand: Wilson(60, 100) = [0.50200, 0.69060], Wilson(30, 100) = [0.21895, 0.39585];
    # lo = -0.30 - sqrt(0.08105^2 + 0.09060^2) = -0.42156, hi = -0.30 + sqrt(0.09585^2 +
    # 0.09800^2) = -0.16292.
    assert rows["10+"].delta_ci == pytest.approx((-0.42156, -0.16292), abs=1e-4)
    # paired: reps 30..59 of 10+ passed in A and fail in B; McNemar p = 2 / 2^30
    assert (rows["10+"].paired.regressed, rows["10+"].paired.fixed) == (30, 0)
    assert rows["10+"].mcnemar.p_value == pytest.approx(2.0**-29)
    assert len(c.regressions) == 30

    status = {r.name: r.status for r in evaluate_gates(c, Gates())}
    assert status == {
        "max_bucket_drop_points[2-4]": "passed",
        "max_bucket_drop_points[5-9]": "passed",
        "max_bucket_drop_points[10+]": "failed",
        "max_overall_drop_points": "passed",
        "no_new_safety_violations": "passed",
        "min_pairs": "passed",
    }

    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("6", "1")
    failed = [tc for tc in suite.iter("testcase") if tc.find("failure") is not None]
    assert [tc.get("name") for tc in failed] == ["max_bucket_drop_points[10+]"]
    failure = failed[0].find("failure")
    assert failure is not None
    assert "lower bound under -5 points" in (failure.get("message") or "")
    assert "[-42.2, -16.3]" in (failure.text or "")

    text = md.read_text()
    assert "**Gates: FAILED (1 of 6): max_bucket_drop_points[10+]**" in text
    assert "| max_bucket_drop_points[10+] | FAILED |" in text
    assert "| 10+ | 60.0% (60/100) [50.2, 69.1] | 30.0% (30/100) [21.9, 39.6] |" in text
    # regressions link to B's transcript lines, relative to the markdown's folder
    assert "[../B/sessions.jsonl:431](../B/sessions.jsonl#L431)" in text  # rep 30 of 10+
    out = capsys.readouterr().out
    assert "Gates: FAILED" in out and "max_bucket_drop_points[10+]" in out


def test_same_runs_pass_every_gate(tmp_path: Path) -> None:
    a = bucket_run(tmp_path / "A", MUST_B)
    b = bucket_run(tmp_path / "B", MUST_B)
    gates = tmp_path / "gates.yaml"
    # No change, but the gates read lower bounds: 10+ (30/100 twice) reaches about -12.5
    # points, overall (380/500 twice) about -5.3, so the limits must sit beyond them.
    gates.write_text("max_bucket_drop_points: 15\nmax_overall_drop_points: 6\nmin_pairs: 500\n")
    assert cli_main([str(a), str(b), "--gates", str(gates), "--quiet"]) == 0


def test_issue_simpson_example_warns_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = bucket_run(tmp_path / "A", {"2-4": (88, 96), "5-9": (61, 92), "10+": (22, 64)})
    b = bucket_run(tmp_path / "B", {"2-4": (170, 185), "5-9": (40, 60), "10+": (3, 15)})
    md = tmp_path / "c.md"
    code = cli_main([str(a), str(b), "--markdown", str(md)])
    assert code == 1  # 10+ (3/15) cannot rule out a 5-point drop
    text = md.read_text()
    assert "> **Warning.** Simpson&#x27;s paradox" not in text  # apostrophes are left alone
    assert "> **Warning.** Simpson's paradox: overall +14.1 points, but 10+ -14.4 points." in text
    assert "| 2-4 | 91.7% (88/96)" in text and "| 38.1% | 71.2% |" in text
    out = capsys.readouterr().out
    assert "Simpson's paradox" in out
    c = compare_runs(load_run(a), load_run(b))
    assert (len(c.pairing.pairs), len(c.pairing.only_b)) == (96 + 60 + 15, 185 - 96)
    assert len(c.pairing.only_a) == 32 + 49


def test_bad_gates_file_names_every_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = bucket_run(tmp_path / "A", {"2-4": (1, 2)})
    gates = tmp_path / "gates.yaml"
    gates.write_text("max_bucket_drop_pts: 5\nmin_pairs: many\n")
    assert cli_main([str(a), str(a), "--gates", str(gates)]) == 2
    err = capsys.readouterr().err
    assert f"{gates}:1" in err and "max_bucket_drop_pts" in err
    assert f"{gates}:2" in err and "min_pairs" in err
    assert cli_main([str(a), str(tmp_path / "missing")]) == 2
    assert "not found" in capsys.readouterr().err


def test_safety_gate_fails_on_a_new_violation(tmp_path: Path) -> None:
    a = write_run(tmp_path / "A", [rec(rep=0, checks={"canary:leak": True})])
    b = write_run(tmp_path / "B", [rec(rep=0, checks={"canary:leak": False})])
    junit = tmp_path / "j.xml"
    gates = tmp_path / "g.yaml"
    gates.write_text("max_bucket_drop_points: null\nmax_overall_drop_points: null\n")
    assert cli_main([str(a), str(b), "--gates", str(gates), "--junit", str(junit), "--quiet"]) == 1
    root = ET.parse(junit).getroot()
    cases = {tc.get("name"): tc for tc in root.iter("testcase")}
    assert cases["no_new_safety_violations"].find("failure") is not None
    assert cases["max_overall_drop_points"].find("skipped") is not None


def test_untrusted_text_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evil = "<script>alert(1)</script>|[bold]x"
    a = write_run(tmp_path / "A", [rec(evil, "g", 0, checks={"safety:x": True})])
    b = write_run(
        tmp_path / "B",
        [rec(evil, "g", 0, passed=False, checks={"safety:x": False}), rec("q", error="\x00<b>|")],
    )
    md, junit = tmp_path / "c.md", tmp_path / "j.xml"
    assert cli_main([str(a), str(b), "--markdown", str(md), "--junit", str(junit)]) == 1
    text = md.read_text()
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;\\|" in text
    assert "<b>" not in text
    root = ET.parse(junit).getroot()  # parses: control characters were replaced
    failure = next(
        tc for tc in root.iter("testcase") if tc.get("name") == "no_new_safety_violations"
    )
    assert evil in (failure.find("failure").text or "")  # type: ignore[union-attr]
    out = capsys.readouterr().out
    assert "[bold]x" in out  # printed as text, not read as rich markup

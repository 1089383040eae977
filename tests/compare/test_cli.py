"""``simlab compare`` end to end: the release gate, JUnit, markdown, Simpson warning, escaping."""

from __future__ import annotations

import io
import math
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from simlab.compare import (
    Gates,
    cli_main,
    compare_runs,
    evaluate_gates,
    load_run,
    newcombe_interval,
    render_junit,
    render_terminal,
    verdict,
)
from simlab.report import PIPED_WIDTH, stdout_console
from simlab.stats import fisher_exact, holm

from .conftest import make_record as rec
from .conftest import write_run

REPO = Path(__file__).resolve().parents[2]
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
    # Same keys in both runs: the paired interval. By hand: Wilson(60, 100) = [0.50200,
    # 0.69060], Wilson(30, 100) = [0.21895, 0.39585]; table 30 both pass, 30 regressed,
    # 0 fixed, 40 both fail: phi = (30*40 - 100/2) / sqrt(60*40*30*70) = 0.51225;
    # lo = -0.30 - sqrt(0.08105^2 + 0.09060^2 - 2*phi*0.08105*0.09060) = -0.38517,
    # hi = -0.30 + sqrt(0.09585^2 + 0.09800^2 - 2*phi*0.09585*0.09800) = -0.20425.
    assert rows["10+"].interval == "paired" and rows["10+"].shared.n == 100
    assert rows["10+"].delta_ci == pytest.approx((-0.38517, -0.20425), abs=1e-4)
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
    assert "a drop is shown (p < 0.01) and one of more than 5 points is not ruled out" in (
        failure.get("message") or ""
    )
    assert (
        "95% paired interval [-38.5, -20.4] (100 key(s) paired: in both runs with the same seed)"
        in (failure.text or "")
    )

    text = md.read_text()
    assert "**Gates: FAILED (1 of 6): max_bucket_drop_points[10+]**" in text
    assert "| max_bucket_drop_points[10+] | FAILED |" in text
    assert "| 10+ | 60.0% (60/100) [50.2, 69.1] | 30.0% (30/100) [21.9, 39.6] |" in text
    # regressions link to B's transcript lines, relative to the markdown's folder
    assert "[../B/sessions.jsonl:431](../B/sessions.jsonl#L431)" in text  # rep 30 of 10+
    out = capsys.readouterr().out
    assert "Gates: FAILED" in out and "max_bucket_drop_points[10+]" in out


# 500 sessions (the shipped gates' min_pairs); 5-9 at 80/150 has an independent-samples
# interval of about +-11 points on a run compared with itself.
NIGHTLY = {"2-4": (240, 250), "5-9": (80, 150), "10+": (30, 100)}


@pytest.mark.parametrize("gates", [None, REPO / "examples" / "ci" / "gates.yaml"])
def test_a_run_compared_with_itself_passes_every_shipped_gate(
    tmp_path: Path, gates: Path | None
) -> None:
    run = bucket_run(tmp_path / "R", NIGHTLY)
    junit = tmp_path / "junit.xml"
    options = ["--gates", str(gates)] if gates else []
    assert cli_main([str(run), str(run), *options, "--junit", str(junit), "--quiet"]) == 0
    cases = {tc.get("name"): tc for tc in ET.parse(junit).getroot().iter("testcase")}
    assert all(tc.find("failure") is None for tc in cases.values())
    out = cases["max_bucket_drop_points[5-9]"].find("system-out")
    assert out is not None
    # The paired interval of an unchanged bucket: phi = (80*70 - 75) / (80*70) = 0.98661,
    # Wilson(80, 150) = [0.45372, 0.61171], so +-sqrt(2 * (1 - phi)) * 0.07962 = +-1.3 points.
    assert (
        "95% paired interval [-1.3, +1.3] (150 key(s) paired: in both runs with the same seed)"
        in (out.text or "")
    )
    c = compare_runs(load_run(run), load_run(run))
    independent = newcombe_interval(80, 150, 80, 150)
    assert independent[0] < -0.11  # what the gate read before: a drop of 11 points not ruled out
    assert not c.simpson.warn


def test_groups_without_common_keys_keep_the_independent_interval(tmp_path: Path) -> None:
    # Different suites: no key in both runs, so nothing is paired. B drops 50 points on
    # 40 sessions: too few for a 5-point gate, but the whole interval lies beyond -5.
    a = write_run(tmp_path / "A", [rec("p", "old", i, turns=7, passed=i < 30) for i in range(40)])
    b = write_run(tmp_path / "B", [rec("p", "new", i, turns=7, passed=i < 10) for i in range(40)])
    gates = tmp_path / "g.yaml"
    gates.write_text("min_pairs: 0\n")
    junit = tmp_path / "j.xml"
    assert cli_main([str(a), str(b), "--gates", str(gates), "--junit", str(junit), "--quiet"]) == 1
    c = compare_runs(load_run(a), load_run(b))
    five_nine = {g.name: g for g in c.by_bucket}["5-9"]
    assert five_nine.interval == "independent" and five_nine.shared.n == 0
    assert five_nine.delta_ci == newcombe_interval(30, 40, 10, 40)
    assert five_nine.test.name == "Fisher"
    cases = {tc.get("name"): tc for tc in ET.parse(junit).getroot().iter("testcase")}
    failure = cases["max_bucket_drop_points[5-9]"].find("failure")
    assert failure is not None
    assert "95% independent-samples interval [" in (failure.text or "")
    assert "(no key paired: none in both runs with the same seed)" in (failure.text or "")
    assert "Fisher p = " in (failure.text or "")
    assert "a drop is shown (p < 0.01)" in (failure.text or "")


def test_an_underpowered_gate_is_inconclusive_and_says_the_n_it_needs(tmp_path: Path) -> None:
    # 30/40 -> 26/40 without shared keys: a 10-point drop, Fisher p about 0.46, and an
    # interval about [-29, +10] points: no drop shown, none of more than 5 ruled out.
    a = write_run(tmp_path / "A", [rec("p", "old", i, turns=7, passed=i < 30) for i in range(40)])
    b = write_run(tmp_path / "B", [rec("p", "new", i, turns=7, passed=i < 26) for i in range(40)])
    c = compare_runs(load_run(a), load_run(b))
    results = {r.name: r for r in evaluate_gates(c, Gates(min_pairs=0))}
    gate = results["max_bucket_drop_points[5-9]"]
    assert gate.status == "inconclusive"
    assert "Fisher p = 0.46;" in gate.message  # scipy.stats.fisher_exact: 0.46468
    # the standard error is the interval's half-width over z = 1.96; a drop is caught 80%
    # of the time when it is (z_0.995 + z_0.80) = 2.5758 + 0.8416 standard errors
    lo, hi = newcombe_interval(30, 40, 26, 40)
    detectable = (2.5758293035489 + 0.8416212335729) * (hi - lo) / 2 * 100 / 1.959963984540054
    assert f"minimum detectable drop at 80% power {detectable:.1f} points" in gate.message
    needed = math.ceil(40 * (detectable / 5) ** 2)
    assert f"about {needed} graded sessions per run in this group would catch" in gate.message
    junit = render_junit(list(results.values()), comparison=c)
    case = next(
        tc
        for tc in ET.fromstring(junit.split("?>", 1)[1]).iter("testcase")
        if tc.get("name") == "max_bucket_drop_points[5-9]"
    )
    assert case.find("skipped") is not None and case.find("failure") is None
    assert verdict(list(results.values())).startswith("Gates: PASSED")
    assert "2 inconclusive, too few sessions: max_bucket_drop_points[5-9]" in verdict(
        list(results.values())
    )


def test_runs_with_different_seeds_are_not_paired_and_list_no_regressions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "A", [rec("p", "g", i, turns=7, passed=i % 2 == 0) for i in range(60)])
    other_seed = [
        rec("p", "g", i, turns=7, passed=i % 3 == 0).model_copy(update={"seed": 1000 + i})
        for i in range(60)
    ]
    b = write_run(tmp_path / "B", other_seed)
    c = compare_runs(load_run(a), load_run(b))
    assert c.pairing.pairs == [] and len(c.pairing.unpaired) == 60
    assert c.regressions == [] and c.overall.interval == "independent"
    assert c.overall.test.name == "Fisher"
    assert c.overall.test.p_value == pytest.approx(fisher_exact(30, 60, 20, 60))
    md = tmp_path / "c.md"
    junit = tmp_path / "j.xml"
    cli_main([str(a), str(b), "--markdown", str(md), "--junit", str(junit)])
    message = "runs use different seeds: per-session regressions are not meaningful"
    assert message in capsys.readouterr().out
    text = md.read_text()
    assert message in text and "Regressions: not listed" in text
    assert "60 ran with different seeds" in text
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert any(message in (v or "") for v in props.values())


def test_p_values_are_holm_adjusted_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = bucket_run(tmp_path / "A", MUST_A)
    b = bucket_run(tmp_path / "B", MUST_B)
    c = compare_runs(load_run(a), load_run(b))
    raw = {"overall": c.overall.test.p_value}
    raw.update({f"bucket:{g.name}": g.test.p_value for g in c.by_bucket})
    raw.update({f"paired:{g.name}": g.mcnemar.p_value for g in c.by_bucket if g.paired.n})
    raw.update({f"persona:{g.name}": g.test.p_value for g in c.by_persona})
    assert c.p_adjusted == dict(zip(raw, holm(list(raw.values())), strict=True))
    ten = {g.name: g for g in c.by_bucket}["10+"]
    assert ten.test.name == "McNemar" and ten.test.p_value == pytest.approx(2.0**-29)
    # 8 tests in the family; 2-4's two and 5-9's two are smaller, so 10+'s two
    # (tied) are 5th and 6th: max(4 * 2^-29, 3 * 2^-29) for both
    assert c.p_adjusted["bucket:10+"] == c.p_adjusted["paired:10+"] == pytest.approx(4 * 2.0**-29)
    md, junit = tmp_path / "c.md", tmp_path / "j.xml"
    cli_main([str(a), str(b), "--markdown", str(md), "--junit", str(junit)])
    cell = f"{2.0**-29:.3g} / {4 * 2.0**-29:.3g}"
    assert cell in capsys.readouterr().out
    assert cell in md.read_text()
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert props["p:bucket:10+"] == f"McNemar: p={2.0**-29:.3g}, Holm-adjusted p={4 * 2.0**-29:.3g}"
    # the paired table's overall row: every session is paired, so its test is the pass-rate
    # table's overall test and shows that Holm p, and the note says so
    paired = md.read_text().split("## Paired outcomes by planned length", 1)[1].split("##")[0]
    overall_row = next(line for line in paired.splitlines() if line.startswith("| overall"))
    assert not overall_row.rstrip(" |").endswith("/ -")
    assert "counted once in the family: the same Holm p" in paired


def test_issue_simpson_example_warns_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The issue's counts at 4x the sessions, so that 10+'s drop is beyond its interval.
    a = bucket_run(tmp_path / "A", {"2-4": (352, 384), "5-9": (244, 368), "10+": (88, 256)})
    b = bucket_run(tmp_path / "B", {"2-4": (680, 740), "5-9": (160, 240), "10+": (12, 60)})
    md = tmp_path / "c.md"
    code = cli_main([str(a), str(b), "--markdown", str(md)])
    assert code == 0  # 10+ (60 sessions in B) is too small to judge a 5-point drop
    text = md.read_text()
    assert "max_bucket_drop_points[10+] | INCONCLUSIVE |" in text
    assert "> **Warning.** Simpson&#x27;s paradox" not in text  # apostrophes are left alone
    assert "> **Warning.** Simpson's paradox: overall +14.1 points, but 10+ -14.4 points [" in text
    assert "| 2-4 | 91.7% (352/384)" in text and "| 38.1% | 71.2% |" in text
    out = capsys.readouterr().out
    assert "Simpson's paradox" in out
    c = compare_runs(load_run(a), load_run(b))
    assert (len(c.pairing.pairs), len(c.pairing.only_b)) == (384 + 240 + 60, 740 - 384)
    assert len(c.pairing.only_a) == 128 + 196


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


def test_zero_safety_violations_gate_counts_a_violation_a_had_too(tmp_path: Path) -> None:
    # rep 0 fails safety:identity in both runs (not new); rep 1 is clean in both
    a = write_run(tmp_path / "A", [rec(rep=0, checks={"safety:identity": False}),
                                   rec(rep=1, checks={"safety:identity": True})])  # fmt: skip
    b = write_run(tmp_path / "B", [rec(rep=0, checks={"safety:identity": False}),
                                   rec(rep=1, checks={"safety:identity": True,
                                                      "agency:over_ask": False})])  # fmt: skip
    c = compare_runs(load_run(a), load_run(b))
    off = {r.name: r for r in evaluate_gates(c, Gates())}
    assert off["no_new_safety_violations"].status == "passed"
    assert "zero_safety_violations" not in off  # off by default
    on = {r.name: r for r in evaluate_gates(c, Gates(zero_safety_violations=True))}
    assert on["zero_safety_violations"].status == "failed"
    assert on["zero_safety_violations"].message == (
        "1 safety check failure(s) in B's 2 graded session(s): safety:identity failed 1 of 2"
    )
    clean = write_run(tmp_path / "C", [rec(rep=0, checks={"safety:identity": True})])
    c2 = compare_runs(load_run(a), load_run(clean))
    passed = {r.name: r for r in evaluate_gates(c2, Gates(zero_safety_violations=True))}
    assert passed["zero_safety_violations"].status == "passed"
    assert passed["zero_safety_violations"].message == (
        "no safety check failed in B (safety:identity 1/1)"
    )
    gates = tmp_path / "g.yaml"
    gates.write_text("max_bucket_drop_points: null\nmax_overall_drop_points: null\n"
                     "zero_safety_violations: true\n")  # fmt: skip
    assert cli_main([str(a), str(b), "--gates", str(gates), "--quiet"]) == 1


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


def test_piped_output_is_not_cut_at_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    persona = "impatient_vietnamese_speaker"
    run = write_run(tmp_path / "R", [rec(persona, "g", i, passed=i < 821) for i in range(1150)])
    assert cli_main([str(run), str(run)]) == 0
    out = capsys.readouterr().out  # captured: not a terminal
    assert "71.4% (821/1150) [68.7, 73.9]" in out and f"│ {persona} " in out
    assert "…" not in out
    assert 80 < max(len(line) for line in out.splitlines()) <= PIPED_WIDTH


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_stdout_console_takes_the_terminal_width_and_a_fixed_one_when_piped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setattr(sys, "stdout", _Terminal())
    assert stdout_console().width == 100
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert stdout_console().width == PIPED_WIDTH


def test_one_cell_has_no_spread_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "A", [rec(rep=0, score=100.0)])
    b = write_run(tmp_path / "B", [rec(rep=0, passed=False, score=0.0)])
    md = tmp_path / "c.md"
    cli_main([str(a), str(b), "--markdown", str(md)])
    (overall, persona) = compare_runs(load_run(a), load_run(b)).spread
    assert (overall.n_cells, overall.aptitude_delta) == (1, -100.0)
    assert overall.aptitude_delta_ci is None and overall.unreliability_delta_ci is None
    assert persona.aptitude_delta_ci is None
    text, out = md.read_text(), capsys.readouterr().out
    # A bootstrap over one cell would print [-100.0, -100.0]: no interval, and why.
    assert (
        "| overall | 1 | 100.0 | 0.0 | -100.0 [n/a, 1 cell] | 0.0 | 0.0 | +0.0 [n/a, 1 cell] |"
        in text
    )
    assert "-100.0 [n/a, 1 cell]" in out
    assert "[-100.0, -100.0]" not in text + out
    # Two cells resample: an interval again.
    a = write_run(tmp_path / "A2", [rec(goal=g, score=100.0) for g in ("x", "y")])
    b = write_run(tmp_path / "B2", [rec(goal="x", score=0.0), rec(goal="y", score=50.0)])
    spread = compare_runs(load_run(a), load_run(b)).spread[0]
    # deltas -100 and -50, one rep each: resampled means -100, -75, -50 (1/4, 1/2, 1/4),
    # centred on their mean (about -75): about [-100, -50]
    assert spread.n_cells == 2
    assert spread.aptitude_delta_ci == pytest.approx((-100.0, -50.0), abs=1.0)
    # every cell's unreliability is 0 in both runs: no spread, not "[+0.0, +0.0]"
    assert spread.unreliability_no_spread and spread.unreliability_delta_ci is None


def test_runs_with_different_repetitions_are_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "A", [rec("p", "g", i, score=50.0 + i) for i in range(8)])
    b = write_run(tmp_path / "B", [rec("p", "g", i, score=50.0 + i) for i in range(2)])
    c = compare_runs(load_run(a), load_run(b))
    assert (c.reps_a, c.reps_b) == (8, 2)
    (warning,) = c.warnings
    assert "differ in repetitions per cell (A 8, B 2)" in warning
    md = tmp_path / "c.md"
    cli_main([str(a), str(b), "--markdown", str(md)])
    assert "differ in repetitions per cell (A 8, B 2)" in md.read_text()
    assert "differ in repetitions per cell (A 8, B 2)" in capsys.readouterr().out
    same = compare_runs(load_run(a), load_run(a))
    assert same.warnings == []


def test_no_regressions_is_said_in_a_line_not_an_empty_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "A", [rec("p", "g", i, passed=i % 2 == 0) for i in range(10)])
    b = write_run(tmp_path / "B", [rec("p", "g", i) for i in range(10)])
    md = tmp_path / "c.md"
    assert cli_main([str(a), str(b), "--markdown", str(md)]) == 0
    out = capsys.readouterr().out
    assert "No regressions: none of the 10 paired sessions passed in A and failed in B." in out
    assert "Regressions: passed in A" not in out and "Score A -> B" not in out
    text = md.read_text()
    said = "None of the 10 paired sessions passed in A and failed in B."
    assert f"## No regressions\n\n{said}" in text
    assert "_none_" not in text


def _paired_overall_row(markdown: str) -> str:
    section = markdown.split("## Paired outcomes by planned length", 1)[1]
    return next(line for line in section.splitlines() if line.startswith("| overall |"))


def test_paired_overall_row_shows_its_holm_p_or_says_why_not(tmp_path: Path) -> None:
    a = write_run(tmp_path / "A", [rec("p", "g", i, passed=i < 5) for i in range(20)])
    b = write_run(tmp_path / "B", [rec("p", "g", i) for i in range(20)])
    md = tmp_path / "c.md"
    cli_main([str(a), str(b), "--markdown", str(md), "--quiet"])
    c = compare_runs(load_run(a), load_run(b))
    # every session paired: the overall McNemar test is the overall pass-rate row's own
    p, adjusted = c.overall.mcnemar.p_value, c.p_adjusted["overall"]
    assert _paired_overall_row(md.read_text()).endswith(f"| {p:.3g} / {adjusted:.3g} |")
    assert "counted once in the family: the same Holm p" in md.read_text()
    # sessions only in B: the overall row's test is another one, so this one has no Holm p
    extra = [rec("q", "g", i) for i in range(10)]
    b2 = write_run(tmp_path / "B2", [rec("p", "g", i) for i in range(20)] + extra)
    cli_main([str(a), str(b2), "--markdown", str(md), "--quiet"])
    assert _paired_overall_row(md.read_text()).endswith(f"| {p:.3g} / - |")
    assert "The overall row's Holm p is '-': not every session is paired" in md.read_text()


def test_check_names_and_transcript_lines_are_never_cut_in_a_narrow_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the links are relative to here
    # at 120 columns both read "constraint:new_limit:lim…", and a regression's transcript
    # "…/sessions.jsonl:…": its line number cut
    checks = {"constraint:new_limit:limit": True, "constraint:new_limit:new_limit": True}
    a = write_run(tmp_path / "results" / "20261202-092436-106e", [rec(checks=checks)])
    broken = {name: False for name in checks}
    b = write_run(tmp_path / "results" / "20261202-092440-11a0", [rec(passed=False, checks=broken)])
    console = Console(width=100, record=True)
    render_terminal(compare_runs(load_run(a), load_run(b)), [], console)
    out = console.export_text()
    assert "…" not in out
    assert "│ constraint:new_limit:limit " in out and "│ constraint:new_limit:new_limit " in out
    assert f"│ {b.relative_to(tmp_path)}/sessions.jsonl:1 " in out


def test_a_bucket_without_sessions_has_no_test_and_is_not_in_the_holm_family(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every plan is 2-4 turns: 5-9 and 10+ hold no session in either run. 10 keys pass
    # in A and fail in B: McNemar p = 2 / 2^10 = 2^-9 for overall, bucket 2-4, its
    # paired row and persona p (every session paired: the same test four times).
    a = write_run(tmp_path / "A", [rec("p", "g", i, turns=3) for i in range(10)])
    b = write_run(tmp_path / "B", [rec("p", "g", i, turns=3, passed=False) for i in range(10)])
    c = compare_runs(load_run(a), load_run(b))
    # Holm over the four tests: 4 * 2^-9 each. Counting the two empty buckets' p = 1
    # would make it six tests and 6 * 2^-9.
    assert c.p_adjusted == {
        "overall": pytest.approx(2.0**-7),
        "bucket:2-4": pytest.approx(2.0**-7),
        "paired:2-4": pytest.approx(2.0**-7),
        "persona:p": pytest.approx(2.0**-7),
    }
    rows = {g.name: g for g in c.by_bucket}
    assert rows["5-9"].test is None and rows["10+"].test is None
    md, junit = tmp_path / "c.md", tmp_path / "j.xml"
    cli_main([str(a), str(b), "--markdown", str(md), "--junit", str(junit)])
    empty_row = "| 10+ | n/a (0/0) | n/a (0/0) | n/a | 0.0% | 0.0% | 0 | - | no sessions |"
    assert empty_row in md.read_text()
    assert "has no test and is left out of the family" in md.read_text()
    out = capsys.readouterr().out
    assert "no sessions" in out and f"{2.0**-9:.3g} / {2.0**-7:.3g}" in out
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert props["p:bucket:10+"] == "no test: no sessions (left out of the Holm family)"
    assert props["p:bucket:2-4"] == f"McNemar: p={2.0**-9:.3g}, Holm-adjusted p={2.0**-7:.3g}"


def test_a_group_one_run_lacks_has_no_test(tmp_path: Path) -> None:
    # persona q only in B: no change to test, so no p of 1 in the family
    a = write_run(tmp_path / "A", [rec("p", "g", i) for i in range(10)])
    b = write_run(tmp_path / "B", [rec("p", "g", i) for i in range(10)] + [rec("q", "g", 0)])
    c = compare_runs(load_run(a), load_run(b))
    q = {g.name: g for g in c.by_persona}["q"]
    assert q.test is None and "persona:q" not in c.p_adjusted

"""``simlab calibrate LABELS.jsonl RUN_DIR`` on a small hand-made run directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simlab.core import Check, SessionKey
from simlab.graders import calibrate_cli
from simlab.store import SessionRecord, SessionWriter, Status, StopReason


def _record(rep: int, judge: bool | None, status: Status = "ok") -> SessionRecord:
    checks = {} if judge is None else {"judge": Check(passed=judge, detail="r", turn=None)}
    return SessionRecord(
        key=SessionKey(persona="terse_en", goal="one_way", mode="full", rep=rep),
        seed=rep,
        status=status,
        stop_reason=StopReason.GOAL_REACHED if status == "ok" else StopReason.INFRA_ERROR,
        n_user_turns=3,
        score=100.0 if status == "ok" else None,
        passed=True if status == "ok" else None,
        checks=checks,
    )


# Reps 0-4: human pass, judge passes 0-3 and fails 4 (TNR 4/5).
# Reps 5-9: human fail, judge fails 5-8 and passes 9 (TPR, failures caught, 4/5).
# Reps 10-11: unlabelled, judge passes one; rep 12 errored, rep 13 judge failed to answer.
JUDGE = [True, True, True, True, False, False, False, False, False, True, True, False]


def _run_dir(tmp_path: Path, with_judge: bool = True) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    with SessionWriter(run) as writer:
        for rep, verdict in enumerate(JUDGE):
            writer.append(_record(rep, verdict if with_judge else None))
        writer.append(_record(12, None, status="error"))
        writer.append(_record(13, None))
    return run


def _labels(tmp_path: Path, lines: list[object]) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
        encoding="utf-8",
    )
    return path


def _good_labels() -> list[object]:
    lines: list[object] = [
        {"key": f"terse_en/one_way/full/{rep}", "passed": rep < 5} for rep in range(10)
    ]
    # The object form of a key, and a note, are accepted.
    lines[0] = {
        "key": {
            "persona": "terse_en",
            "goal": "one_way",
            "mode": "full",
            "rep": 0,
            "perturbations": [],
        },
        "passed": True,
        "note": "checked by hand",
    }
    lines.insert(3, "")  # blank lines are skipped
    return lines


def test_json_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = _labels(tmp_path, _good_labels())
    code = calibrate_cli([str(labels), str(_run_dir(tmp_path)), "--json", "--seed", "5"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["tpr"]["successes"], data["tpr"]["n"]) == (4, 5)
    assert (data["tnr"]["successes"], data["tnr"]["n"]) == (4, 5)
    # Judged sessions: 12 (the errored one and the unanswered one have no verdict); 6 passed.
    assert (data["raw_pass_rate"]["successes"], data["raw_pass_rate"]["n"]) == (6, 12)
    # (0.5 + 0.8 - 1) / (0.8 + 0.8 - 1) = 0.3 / 0.6
    assert data["corrected"] == pytest.approx(0.5)
    assert data["seed"] == 5


def test_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = _labels(tmp_path, _good_labels())
    assert calibrate_cli([str(labels), str(_run_dir(tmp_path))]) == 0
    out = capsys.readouterr().out
    for text in ("TPR", "TNR", "0.800", "4/5", "6/12", "0.500", "Rogan-Gladen", "bootstrap"):
        assert text in out
    assert "failures caught (judge fails | human fail)" in out
    assert "corrected = (raw + TPR - 1) / (TPR + TNR - 1)" in out
    # Five labels a side: over 2.5% of replicates have TPR + TNR <= 1, so nothing is bounded.
    assert "[0.000, 1.000] bootstrap" in out
    assert "label more sessions to bound the pass rate" in out


def test_malformed_lines_are_all_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = _labels(
        tmp_path,
        [
            {"key": "terse_en/one_way/full/0", "passed": True},
            "{not json",
            {"key": "terse_en/one_way/full/1"},
            {"key": "terse_en/one_way/full/2", "passed": "yes", "verdict": 1},
            {"key": {"persona": "terse_en", "goal": "one_way"}, "passed": False},
            {"key": "terse_en/one_way/full/0", "passed": False},
        ],
    )
    assert calibrate_cli([str(labels), str(_run_dir(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert "5 problems" in err
    assert f"{labels}:2: not valid JSON" in err
    assert f"{labels}:3: missing field(s) passed" in err
    assert f"{labels}:4: unknown field(s) verdict (valid: key, passed, note)" in err
    assert '"passed" must be true or false, got "yes"' in err
    assert (
        f'{labels}:5: "key" is not a session key (mode: Field required; rep: Field required)' in err
    )
    assert f"{labels}:6: session 'terse_en/one_way/full/0' is already labelled on line 1" in err
    assert "Traceback" not in err


def test_unknown_and_unjudged_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = _labels(
        tmp_path,
        [
            {"key": "terse_en/one_way/full/0", "passed": True},
            {"key": "terse_en/one_way/full/99", "passed": True},
            {"key": "terse_en/one_way/full/12", "passed": True},
            {"key": "terse_en/one_way/full/13", "passed": False},
        ],
    )
    assert calibrate_cli([str(labels), str(_run_dir(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert f"{labels}:2: unknown session key 'terse_en/one_way/full/99'" in err
    assert f"{labels}:3: session 'terse_en/one_way/full/12' ended in error (infra_error)" in err
    assert f"{labels}:4: session 'terse_en/one_way/full/13' has no judge verdict" in err


def test_run_without_judge_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = _labels(tmp_path, _good_labels())
    run = _run_dir(tmp_path, with_judge=False)
    assert calibrate_cli([str(labels), str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'sessions.jsonl'}: none of its 14 sessions has a 'judge' check" in err


def test_missing_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = _labels(tmp_path, _good_labels())
    assert calibrate_cli([str(labels), str(tmp_path / "nowhere")]) == 2
    assert "sessions.jsonl not found" in capsys.readouterr().err
    assert calibrate_cli([str(tmp_path / "none.jsonl"), str(_run_dir(tmp_path))]) == 2
    assert "cannot read labels" in capsys.readouterr().err
    assert calibrate_cli([str(labels)]) == 2  # argparse: RUN_DIR missing


def test_deeply_nested_and_huge_labels_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.jsonl"
    deep = '{"key": ' + "[" * 100_000 + "]" * 100_000 + ', "passed": true}'
    huge = '{"key": "terse_en/one_way/full/0", "passed": ' + "1" * 5000 + "}"
    labels.write_text(f"{deep}\n{huge}\n", encoding="utf-8")
    assert calibrate_cli([str(labels), str(_run_dir(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert f"{labels}:1: nested too deeply to read" in err
    assert f"{labels}:2: " in err and "Traceback" not in err

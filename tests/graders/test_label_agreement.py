"""Cohen's kappa between two label files, and the dev/test split of labels for calibration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from run_simlab import simlab

from simlab.graders import calibrate_cli, kappa_cli, label_agreement, label_half, split_keys
from tests.graders.test_calibration_cli import _good_labels, _labels, _run_dir


def _write(path: Path, verdicts: dict[int, bool]) -> Path:
    path.write_text(
        "".join(
            json.dumps({"key": f"terse_en/one_way/full/{rep}", "passed": passed}) + "\n"
            for rep, passed in verdicts.items()
        ),
        encoding="utf-8",
    )
    return path


def _raters(tmp_path: Path) -> tuple[Path, Path]:
    # 50 common sessions: both pass 20, only A passes 5, only B passes 10, both fail 15;
    # A also labels rep 100, B labels reps 200 and 201.
    a: dict[int, bool] = {}
    b: dict[int, bool] = {}
    for rep in range(50):
        a[rep] = rep < 25
        b[rep] = rep < 20 or 25 <= rep < 35
    a[100] = True
    b[200], b[201] = False, True
    return _write(tmp_path / "a.jsonl", a), _write(tmp_path / "b.jsonl", b)


def test_kappa_of_two_files_by_hand(tmp_path: Path) -> None:
    f = label_agreement(*_raters(tmp_path))
    assert (f.n, f.only_first, f.only_second) == (50, 1, 2)
    assert f.table == {
        "both_pass": 20,
        "first_pass_second_fail": 5,
        "first_fail_second_pass": 10,
        "both_fail": 15,
    }
    # p_o = 0.7, p_e = 0.5*0.6 + 0.5*0.4 = 0.5 -> kappa 0.4; interval by hand in
    # tests/stats/test_stats_agreement.py
    assert f.kappa.kappa == pytest.approx(0.4)
    assert f.kappa.ci == pytest.approx((0.124996, 0.617928), abs=1e-5)
    assert (f.first_pass_rate.successes, f.second_pass_rate.successes) == (25, 30)
    assert len(f.disagreements) == 15 and f.disagreements[0] == "terse_en/one_way/full/20"


def test_kappa_command(tmp_path: Path) -> None:
    a, b = _raters(tmp_path)
    proc = simlab("kappa", str(a), str(b))
    assert proc.returncode == 0, proc.stderr
    assert "Cohen's kappa" in proc.stdout and "0.400" in proc.stdout
    assert "[0.125, 0.618]" in proc.stdout and "disagreements (15)" in proc.stdout
    assert "labelled by one file only: 1 and 2 (left out)" in proc.stdout


def test_kappa_prints_hostile_keys_as_they_are(tmp_path: Path) -> None:
    # imported task ids come from production logs: rich markup and terminal escapes
    keys = ["imported/t[/]x/log/0", "imported/[link=https://e.vil]x[/link]/log/0", "k\x1b[31m"]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"key": k, "passed": True}) + "\n" for k in keys))
    b.write_text("".join(json.dumps({"key": k, "passed": False}) + "\n" for k in keys))
    proc = simlab("kappa", str(a), str(b))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "\x1b" not in proc.stdout
    shown = " ".join(proc.stdout.split())
    assert "imported/t[/]x/log/0" in shown and "[link=https://e.vil]" in shown
    assert "k\\x1b[31m" in shown


def test_kappa_bad_input_is_one_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path / "a.jsonl", {0: True, 1: False})
    b = _write(tmp_path / "b.jsonl", {5: True})
    assert kappa_cli([str(a), str(b)]) == 2
    assert "label no session in common (2 and 1 labels)" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "x/y/full/0"}\n', encoding="utf-8")
    assert kappa_cli([str(bad), str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1: missing field(s) passed" in err and "cannot read labels" in err
    assert "Traceback" not in err


def test_a_labels_half_depends_on_its_key_only() -> None:
    keys = [f"p/g/full/{i}" for i in range(2000)]
    halves = split_keys(keys)
    # stable: a key's half does not change when more labels are added
    more = split_keys([*keys, *(f"q/g/full/{i}" for i in range(500))])
    assert more["dev"][: len(halves["dev"])] == halves["dev"]
    assert all(label_half(k) == "dev" for k in halves["dev"])
    # about half in each (binomial 2000 x 0.5: sd 22)
    assert 900 <= len(halves["dev"]) <= 1100
    assert 520 <= len(split_keys(keys, dev_share=0.3)["dev"]) <= 680
    assert split_keys(keys, seed=1) != halves
    with pytest.raises(ValueError, match="dev share"):
        label_half("k", dev_share=1.0)


def test_calibrate_on_each_half(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = _labels(tmp_path, _good_labels())
    run = _run_dir(tmp_path)
    keys = [f"terse_en/one_way/full/{rep}" for rep in range(10)]
    dev = set(split_keys(keys)["dev"])
    n = {}
    for half in ("dev", "test"):
        assert calibrate_cli([str(labels), str(run), "--split", half, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        n[half] = data["agreement"]["n"]
        assert data["split"]["half"] == half
    assert n == {"dev": len(dev), "test": 10 - len(dev)}
    # the dev half names the sessions the judge got wrong; the test half only counts them
    assert calibrate_cli([str(labels), str(run), "--split", "dev"]) == 0
    out = capsys.readouterr().out
    assert "Measured on the dev half" in out and "failures the judge passed" in out
    assert calibrate_cli([str(labels), str(run), "--split", "test"]) == 0
    out = capsys.readouterr().out
    assert "Measured on the test half" in out and "not listed" in out
    wrong = {"terse_en/one_way/full/4", "terse_en/one_way/full/9"}
    assert not any(k in out for k in wrong)
    assert calibrate_cli([str(labels), str(run)]) == 0
    assert "figures are optimistic" in capsys.readouterr().out
    assert calibrate_cli([str(labels), str(run), "--dev-share", "1.5"]) == 2
    assert "--dev-share must be between 0 and 1" in capsys.readouterr().err

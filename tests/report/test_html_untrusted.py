"""report.html holds no raw ESC, C1 or bidi character anywhere (session keys, goal and
bucket labels, filter options, element ids, transcripts), publishes no traceback
unless asked, and a run id is a plain folder name (issue 14, item 7)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from run_simlab import simlab

from simlab.replay import import_cli

ROOT = Path(__file__).resolve().parents[2]

# C0 but tab/newline, DEL, C1, and the bidirectional controls
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
EVIL = "\x1b[31mred\u202eesrever\x9b2J"
EVIL_SHOWN = "\\x1b[31mred\\u202eesrever\\x9b2J"

TARGET = f"""
def reply(messages, ctx):
    if ctx.session_id.endswith("/0"):
        raise RuntimeError("crash " + {EVIL!r})
    return "Which date? " + {EVIL!r}
"""


def raw_in(path: Path) -> list[str]:
    return sorted(set(RAW.findall(path.read_text(encoding="utf-8"))))


def test_a_hostile_yaml_run_reaches_report_html_escaped_and_without_tracebacks(
    tmp_path: Path,
) -> None:
    goals = tmp_path / "goals"
    goals.mkdir()
    src = (ROOT / "goals" / "one_way.yaml").read_text(encoding="utf-8")
    title = 'title: "Evil \\e[31mred\\u202eesrever"'
    lines = [title if line.startswith("title:") else line for line in src.splitlines()]
    (goals / "one_way.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "hostile_target.py").write_text(TARGET)
    suite = {
        "personas": ["terse_en"],
        "goals": ["one_way"],
        "modes": ["full"],
        "reps": 2,
        "target": "hostile_target:reply",
        "buckets": [{"name": f"short{EVIL}", "min": 0, "max": 4}, {"name": "long", "min": 5}],
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(goals)],
    }
    (tmp_path / "suite.yaml").write_text(json.dumps(suite), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    out = tmp_path / "out"
    proc = simlab("run", str(tmp_path / "suite.yaml"), "--out", str(out), "--quiet", env=env)
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = out.iterdir()
    html, md = run_dir / "report.html", run_dir / "report.md"
    assert raw_in(html) == [] and raw_in(md) == []
    text = html.read_text(encoding="utf-8")
    assert f'<option value="short{EVIL_SHOWN}">' in text  # the bucket filter, escaped
    assert f'data-bucket="short{EVIL_SHOWN}"' in text  # and its rows, the same way
    in_json = json.dumps(f"Which date? {EVIL_SHOWN}")  # the transcript, as escapes
    assert in_json in text and json.dumps(f"crash {EVIL_SHOWN}")[1:] in text

    # the record keeps the structured error and, apart, the traceback with its paths
    records = [json.loads(x) for x in (run_dir / "sessions.jsonl").read_text().splitlines()]
    (crashed,) = [r for r in records if r["status"] == "error"]
    error = crashed["error"]
    assert (error["type"], error["message"], error["turn"]) == ("RuntimeError", f"crash {EVIL}", 1)
    assert "hostile_target.py" in error["traceback"] and "traceback" not in crashed["meta"]
    for published in (html, md):
        assert "Traceback" not in published.read_text(encoding="utf-8")
        assert "hostile_target.py" not in published.read_text(encoding="utf-8")
    assert "RuntimeError: crash" in text

    # asked for, the traceback is published too (still escaped)
    again = simlab("report", str(run_dir), "--tracebacks", env=env)
    assert again.returncode == 0, again.stderr
    assert "hostile_target.py" in html.read_text(encoding="utf-8")
    assert raw_in(html) == []


def test_an_imported_hostile_task_id_reaches_no_raw_character(tmp_path: Path) -> None:
    lines = [
        {
            "task_id": f"task{EVIL}",
            "trial": trial,
            "reward": reward,
            "traj": [
                {"role": "user", "content": f"hi {EVIL}"},
                {"role": "assistant", "content": f"ok {EVIL}"},
            ],
        }
        for trial, reward in ((0, 1.0), (1, 0.0))
    ]
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    argv = [str(log), "--format", "openai", "--out", str(tmp_path / "out"), "--run-id", "r"]
    assert import_cli([*argv, "--quiet"]) == 0
    html = tmp_path / "out" / "r" / "report.html"
    assert raw_in(html) == []
    text = html.read_text(encoding="utf-8")
    shown = f"task{EVIL_SHOWN}"
    # the goal filter's option and the rows it filters carry the same escaped value
    assert f'<option value="{shown}">' in text and f'data-goal="{shown}"' in text
    assert f'id="session-imported-{shown}-imported-0"' in text


@pytest.mark.parametrize("run_id", ["r\x1b[31m", "r\u202eid", "a b", "tab\t", "nl\n"])
def test_a_run_id_with_controls_or_spaces_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], run_id: str
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"task_id": "t", "reward": 1.0, "traj": []}) + "\n")
    with pytest.raises(SystemExit) as exit_:
        import_cli(
            [str(log), "--format", "openai", "--out", str(tmp_path / "o"), "--run-id", run_id]
        )
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "must be one folder name" in err
    assert RAW.findall(err) == []  # the refusal does not echo it raw either
    assert not (tmp_path / "o").exists()

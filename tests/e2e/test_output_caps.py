"""A target returning 10 MB a turn: the run keeps its files small, and says what it cut
(issue 14, item 6)."""

from __future__ import annotations

import html
import json
import os
from pathlib import Path

from run_simlab import simlab

ROOT = Path(__file__).resolve().parents[2]
MB10 = 10_000_000

FLOOD = f"""
def flood(messages, ctx):
    return {{
        "text": "a" * {MB10},
        "tool_calls": [
            {{"name": "search", "args": {{"q": "b" * {MB10}}}, "result": ["c" * {MB10}]}}
        ],
        "meta": {{"blob": "d" * {MB10}}},
    }}
"""


def test_a_10_mb_reply_is_cut_recorded_and_reported(tmp_path: Path) -> None:
    (tmp_path / "flood.py").write_text(FLOOD)
    suite = {
        "name": "flood",
        "personas": ["terse_en"],
        "goals": ["one_way"],
        "modes": ["full", "sharded"],
        "reps": 1,
        "max_turns": 3,
        "target": "flood:flood",
        "limits": {"reply_chars": 5000},  # the others keep their defaults (20,000)
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    out = tmp_path / "out"
    proc = simlab(
        "run",
        str(tmp_path / "suite.yaml"),
        "--out",
        str(out),
        env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = out.iterdir()
    records = [json.loads(x) for x in (run_dir / "sessions.jsonl").read_text().splitlines()]
    turns = sum(r["n_user_turns"] for r in records)
    assert turns >= 2
    # each turn keeps at most 5,000 + 20,000 * 3 characters of the 40 MB it returned
    assert (run_dir / "sessions.jsonl").stat().st_size < turns * 100_000
    assert (run_dir / "report.html").stat().st_size < 2_000_000 + turns * 100_000

    for r in records:
        cuts = r["meta"]["truncated"]
        answered = [t for t in r["transcript"]["turns"] if t["agent"] is not None]
        assert len(cuts) == 4 * len(answered)  # text, meta, args, result on every turn
        assert {c["field"] for c in cuts} == {
            "text",
            "meta",
            "tool_calls[0].args",
            "tool_calls[0].result",
        }
        assert all(c["chars"] >= MB10 for c in cuts)
        agent = answered[0]["agent"]
        assert agent["text"].startswith("a" * 5000)
        assert "simlab cut this here: 10,000,000 characters, the first 5,000 kept" in agent["text"]
        assert agent["tool_calls"][0]["args"]["simlab_truncated"]["chars"] > MB10

    line = "Target output cut at the suite's limits in 2 sessions"
    assert line in (run_dir / "report.md").read_text()
    assert line in html.unescape((run_dir / "report.html").read_text())
    assert line in " ".join(proc.stdout.split())  # the terminal report, however wrapped
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["truncated"]["sessions"] == 2
    assert summary["truncated"]["largest_chars"] > MB10

"""bench/same_sessions.py compares records with wall times, and meta entries asked for, left out."""

import importlib.util
import json
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("same_sessions", ROOT / "bench/same_sessions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_ignored_meta_entry_is_left_out_and_counted(tmp_path: Path) -> None:
    base = {"key": {"rep": 0}, "duration_s": 1.0, "agent_turn_s": [0.1], "meta": {"retries": 1}}
    unheard = {**base, "duration_s": 2.0, "meta": {"retries": 1, "unheard": {"count": 2}}}
    before, after = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    before.write_text(json.dumps(base) + "\n" + json.dumps(base) + "\n")
    after.write_text(json.dumps(unheard) + "\n" + json.dumps(base) + "\n")
    normalised = _bench().normalised
    assert normalised(before)[0] != normalised(after)[0]  # the entry counts unless left out
    lines, held = normalised(after, ["unheard"])
    assert lines == normalised(before, ["unheard"])[0]
    assert held == {"unheard": 1}
    assert json.loads(lines[0]) == {"key": {"rep": 0}, "meta": {"retries": 1}}

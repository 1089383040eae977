"""A record over the size cap is skipped unread, and the import says so for it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import simlab.replay._source as source
from simlab.replay import import_logs

GOOD = {
    "task_id": "t",
    "reward": 1.0,
    "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}],
}


def test_a_line_over_the_cap_is_skipped_with_its_size_and_the_rest_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source, "MAX_RECORD_BYTES", 100_000)
    huge = '{"messages": [' + ",".join(["[[1,2,3],[4,5,6]]"] * 50_000) + "]}"
    lines = [json.dumps({**GOOD, "trial": 0}), huge, json.dumps({**GOOD, "trial": 1})]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.perf_counter()
    logs = import_logs(path, "openai")
    assert time.perf_counter() - started < 2
    assert [r.key.rep for r in logs.records] == [0, 1]
    [problem] = logs.problems
    assert problem.location == f"{path}:2"
    assert f"a record of {len(huge) + 1:,} bytes, over the 100,000" in problem.message


def test_a_file_within_the_cap_reads_as_before(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    logs = import_logs(path, "openai")
    assert len(logs.records) == 1 and logs.problems == []


def test_an_array_element_over_the_cap_ends_the_array_there_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source, "MAX_RECORD_BYTES", 2_000)
    small = [{**GOOD, "trial": i} for i in range(40)]  # past the cap together, not alone
    huge = {"messages": [[1, 2, 3]] * 5_000}
    path = tmp_path / "log.json"
    path.write_text(json.dumps([*small, huge, {**GOOD, "trial": 99}], indent=1), "utf-8")
    logs = import_logs(path, "openai")
    assert [r.key.rep for r in logs.records] == list(range(40))  # the window slid along
    [problem] = logs.problems
    assert problem.location.endswith("(element 40)")
    assert "an element longer than the 2,000 bytes" in problem.message
    assert "the rest of the array is unread" in problem.message

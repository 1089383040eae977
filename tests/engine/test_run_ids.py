"""Run ids sort in the order the runs started, even within one second."""

from __future__ import annotations

from datetime import UTC, datetime

from simlab.engine._run import new_run_id

NOW = datetime(2026, 12, 4, 20, 44, 43, tzinfo=UTC)


def test_a_run_started_in_the_same_second_sorts_after_the_earlier_ones() -> None:
    first = new_run_id(NOW)
    assert first.startswith("20261204-204443-") and int(first[-4:], 16) < 0x8000
    ids = [first]
    for _ in range(5):
        ids.append(new_run_id(NOW, taken=[*ids, "20261204-204442-ffff", "notes"]))
    assert ids == sorted(ids) and len(set(ids)) == 6
    assert new_run_id(NOW, taken=["20261204-204442-7fff"]) != "20261204-204443-8000"

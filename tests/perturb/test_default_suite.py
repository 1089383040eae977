"""Must-show: v2's survival curve lies above v1's, log-rank p < 0.05, on the default suite."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from simlab.engine import execute, plan_new_run
from simlab.perturb import brittleness_from_run

from .driver import ROOT


@pytest.mark.slow
def test_v2_survives_longer_than_v1_on_the_default_suite(tmp_path: Path) -> None:
    plan = plan_new_run(ROOT / "simlab.yaml", tmp_path)
    anyio.run(execute, plan)
    experiment = anyio.run(lambda: brittleness_from_run(plan.run_dir, ["reference:v2"], max_k=8))
    summary = experiment.summary
    v1, v2 = summary["curves"]["reference:v1"], summary["curves"]["reference:v2"]
    assert [t for t, *_ in v1] == [t for t, *_ in v2]
    assert all(b[1] >= a[1] for a, b in zip(v1, v2, strict=True))  # v2 above at every k
    assert summary["comparison"]["p_value"] < 0.05
    o1 = summary["targets"]["reference:v1"]["overall"]
    o2 = summary["targets"]["reference:v2"]["overall"]
    assert o2["survived_all_share"] > o1["survived_all_share"]

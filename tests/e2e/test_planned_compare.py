"""compare on real runs: strata are planned buckets, and a pair counts in one bucket only."""

from __future__ import annotations

from pathlib import Path

import pytest
from run_simlab import simlab

from simlab.compare import compare_runs, load_run

ROOT = Path(__file__).resolve().parents[2]


def run(out: Path, *extra: str) -> Path:
    proc = simlab("run", "--out", str(out), "--quiet", "--reps", "2", *extra, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = list(out.iterdir())
    return run_dir


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("planned_compare")
    v2 = tmp / "v2.yaml"
    suite = (ROOT / "simlab.yaml").read_text().replace("reference:v1", "reference:v2")
    for kind in ("personas", "goals"):  # the library's folders, from the temporary folder
        suite = suite.replace(f"{kind}, {kind}/bank", f"{ROOT / kind}, {ROOT / kind / 'bank'}")
    v2.write_text(suite)
    return {
        "v1": run(tmp / "v1"),
        "v1_seed_1": run(tmp / "v1_seed_1", "--seed", "1"),
        "v2": run(tmp / "v2", str(v2)),
    }


def test_same_suite_and_seed_every_pair_has_one_bucket(runs: dict[str, Path]) -> None:
    c = compare_runs(load_run(runs["v1"]), load_run(runs["v2"]))
    assert c.bucket_moves == 0
    assert sum(g.paired.n for g in c.by_bucket) == c.overall.paired.n
    # per-run counts by planned bucket are identical: the strata do not depend on the agent
    assert [(g.a.n, g.b.n) for g in c.by_bucket] == [(g.a.n, g.a.n) for g in c.by_bucket]


def test_other_seeds_pair_nothing_and_move_nothing(runs: dict[str, Path]) -> None:
    # another seed draws other conversations (and other plans) for the same key: such keys
    # are not pairs, so no pair can be planned in two buckets; the runs compare as
    # independent samples, stratified by each run's own planned buckets
    c = compare_runs(load_run(runs["v1"]), load_run(runs["v1_seed_1"]))
    assert c.overall.paired.n == 0 and c.bucket_moves == 0
    assert all(g.paired.n == 0 and g.interval == "independent" for g in c.by_bucket)
    assert sum(g.a.n for g in c.by_bucket) == c.overall.a.n
    assert sum(g.b.n for g in c.by_bucket) == c.overall.b.n

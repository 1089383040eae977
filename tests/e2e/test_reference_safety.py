"""Issue 12 on both shipped domains: reference v1's tool-use defects trip each safety
check, with their true causes recorded, and v2 passes them all."""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.store import SessionRecord

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "examples" / "safety" / "simlab.yaml"
# check -> the true cause v1 records when it trips it
TRIPS = {
    "safety:agency_confirm": "unconfirmed_action",  # travel: a refund unasked
    "agency:over_ask": "over_ask",  # travel: a go-ahead asked for a baggage lookup
    "safety:tool_canary": "tool_injection",  # travel: a booking's planted note
    "efficiency": "redundant_call",
    "safety:identity": "privilege_escalation",  # travel: another traveller's booking
}
# the failure stage each unsafe cause shows as (over-asking and repeats are no stage)
STAGES = {
    "unconfirmed_action": "selection",
    "tool_injection": "output",
    "privilege_escalation": "arguments",
}


def causes(record: SessionRecord) -> set[str]:
    return {
        str(c["cause"])
        for t in record.transcript.turns
        if t.agent is not None
        for c in t.agent.meta.get("true_causes", [])
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[SessionRecord]]:
    out = tmp_path_factory.mktemp("safety")
    return {
        v: simlab.run(SUITE, target=f"reference:{v}", out=out / v, progress=False).records
        for v in ("v1", "v2")
    }


@pytest.mark.parametrize("domain", ["travel", "bank"])
def test_v1_trips_each_safety_check_with_its_true_cause(
    runs: dict[str, list[SessionRecord]], domain: str
) -> None:
    bank = {r.key.goal for r in runs["v1"] if r.key.persona.startswith("bank_")}
    mine = [r for r in runs["v1"] if (r.key.goal in bank) == (domain == "bank")]
    assert mine and all(r.status == "ok" for r in mine)
    for check, cause in TRIPS.items():
        tripped = [r for r in mine if check in r.checks and not r.checks[check].passed]
        caused = [r for r in mine if cause in causes(r)]
        assert caused, f"{domain}: v1 never had {cause}"
        assert all(r in tripped for r in caused), f"{cause} did not trip {check}"
        if check != "efficiency":  # anchoring's repeated writes are redundant calls too
            assert all(r in caused for r in tripped), f"{check} tripped without {cause}"
        if cause in STAGES:  # the stage tables show it
            stages = [{f.stage for f in r.tool_stages.failures} for r in caused if r.tool_stages]
            assert len(stages) == len(caused)
            assert all(STAGES[cause] in s for s in stages), (cause, stages[:3])


def test_v2_passes_every_safety_check(runs: dict[str, list[SessionRecord]]) -> None:
    v2 = runs["v2"]
    assert v2 and all(r.status == "ok" for r in v2)
    for check in TRIPS:
        graded = [r for r in v2 if check in r.checks]
        assert graded, check
        failed = [r.key for r in graded if not r.checks[check].passed]
        assert not failed, (check, failed[:3])

"""Record a run against the fake server, then replay it with no server at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simlab.llm import (
    LLMMessage,
    LLMRequest,
    LLMSpec,
    LLMStats,
    PriceTable,
    Pricing,
    ReplayMissError,
    canonical_request_hash,
    create_llm,
)
from simlab.testing import FakeProvider, FakeProviderConfig, scripted

pytestmark = pytest.mark.anyio

PRICES = PriceTable({"fake": Pricing(input=1.0, output=1.0)})


def _requests() -> list[LLMRequest]:
    return [
        LLMRequest(messages=(LLMMessage(role="user", content=f"turn {i}"),), seed=i, role=role)
        for i, role in enumerate(("user", "agent", "judge"))
    ]


async def test_record_then_replay_without_a_server(tmp_path: Path) -> None:
    fake = FakeProvider(
        FakeProviderConfig(fault_sequence=("server_error",)), scripted(["one", "two", "three"])
    )
    async with fake.serve() as base_url:
        spec = LLMSpec(backend="openai", base_url=base_url, model="fake", record_dir=tmp_path)
        live = create_llm(spec, prices=PRICES)
        recorded = [await live.complete(r) for r in _requests()]
        await live.aclose()
    # The server is gone now; only the recordings remain.
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{canonical_request_hash(r)}.json" for r in _requests()
    )
    stats = LLMStats()
    replay = create_llm(LLMSpec(backend="replay", record_dir=tmp_path), stats=stats, prices=PRICES)
    replayed = [await replay.complete(r) for r in _requests()]
    assert [r.text for r in replayed] == ["one", "two", "three"]
    assert replayed == recorded  # usage, cost (with the retried attempt), ids: all identical
    assert recorded[0].attempts == 2
    assert stats.role("judge").calls == 1
    assert stats.cost_usd == pytest.approx(sum(r.cost_usd for r in recorded))


async def test_a_missing_recording_names_the_hash_and_role(tmp_path: Path) -> None:
    replay = create_llm(LLMSpec(backend="replay", record_dir=tmp_path))
    req = LLMRequest(messages=(LLMMessage(role="user", content="never recorded"),), role="judge")
    with pytest.raises(ReplayMissError) as info:
        await replay.complete(req)
    digest = canonical_request_hash(req)
    assert digest in str(info.value) and "judge" in str(info.value)
    assert (info.value.request_hash, info.value.role) == (digest, "judge")


async def test_recording_file_holds_request_and_response_only(tmp_path: Path) -> None:
    fake = FakeProvider(responder=scripted(["hi"]))
    async with fake.serve() as base_url:
        spec = LLMSpec(backend="openai", base_url=base_url, model="fake", record_dir=tmp_path)
        live = create_llm(spec)
        req = _requests()[0]
        await live.complete(req)
        await live.aclose()
    entry = json.loads((tmp_path / f"{canonical_request_hash(req)}.json").read_text())
    assert set(entry) == {"hash", "request", "response"}
    assert LLMRequest.model_validate(entry["request"]) == req

"""No API key in anything simlab writes, raises, prints or logs."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx2
import pytest

from simlab.llm import (
    LLMMessage,
    LLMRequest,
    LLMSpec,
    LLMStats,
    ProviderStatusError,
    create_llm,
)
from simlab.llm._openai import OpenAILLM
from simlab.llm._transport import HttpxTransport
from simlab.testing import FakeProvider, FakeProviderConfig, scripted

pytestmark = pytest.mark.anyio

KEY = "sk-simlab-DISTINCTIVE-7f3a9c01"
REQ = LLMRequest(messages=(LLMMessage(role="user", content="book it"),), role="agent")


async def test_key_never_written_raised_or_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    seen: list[str] = []
    config = FakeProviderConfig(fault_sequence=("rate_limit",), require_api_key=True)
    fake = FakeProvider(config, scripted(["ok"]))
    stats = LLMStats()
    async with fake.serve() as base_url:
        for backend in ("openai", "anthropic"):
            spec = LLMSpec(
                backend=backend, base_url=base_url, model="m", record_dir=tmp_path / backend
            )
            llm = create_llm(spec, stats=stats)
            resp = await llm.complete(REQ)
            seen += [repr(llm), repr(spec), repr(resp), str(stats.as_json())]
            await llm.aclose()

    # A provider that echoes the key in its error body (real ones echo part of it).
    def echo_key(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(401, json={"error": {"message": request.headers["authorization"]}})

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(echo_key))
    spec = LLMSpec(backend="openai", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ProviderStatusError) as info:
        await OpenAILLM(spec, transport=HttpxTransport(client, httpx2)).complete(REQ)
    seen += [str(info.value), repr(info.value), str(info.value.args)]

    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) == 2  # one recording per backend
    for path in written:
        assert KEY not in path.read_text(encoding="utf-8"), path
        assert "authorization" not in path.read_text(encoding="utf-8").lower()
    for text in [*seen, caplog.text]:
        assert KEY not in text
    assert "***" in str(info.value)  # the echoed key was redacted, the rest kept

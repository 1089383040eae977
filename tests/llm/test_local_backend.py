"""The local backend: the missing-dependency message, and SmolLM2 for real (slow)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from simlab.llm import (
    LLMMessage,
    LLMRequest,
    LLMSpec,
    LLMStats,
    MissingDependencyError,
    create_llm,
)
from simlab.llm._local import SMOLLM2_FILE, smollm2_path

HAS_LLAMA = importlib.util.find_spec("llama_cpp") is not None
needs_llama = pytest.mark.skipif(
    not HAS_LLAMA, reason="llama-cpp-python is not installed: pip install 'simlab[local]'"
)


def test_missing_llama_cpp_says_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes the import fail
    with pytest.raises(MissingDependencyError) as info:
        create_llm(LLMSpec(backend="local"))
    assert "pip install 'simlab[local]'" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


@pytest.mark.slow  # runs where CI has installed the local extra
@needs_llama
def test_default_model_is_found_in_the_installed_package() -> None:
    path = smollm2_path()
    assert path.name == SMOLLM2_FILE and path.stat().st_size > 50_000_000


@pytest.mark.slow
@pytest.mark.anyio
@needs_llama
async def test_smollm2_completes_a_short_json_request() -> None:
    stats = LLMStats()
    llm = create_llm(LLMSpec(backend="local", max_tokens=48, n_ctx=512), stats=stats)
    req = LLMRequest(
        messages=(LLMMessage(role="user", content='Reply as JSON: {"city": "<a city>"}'),),
        system="You answer in JSON.",
        json_output=True,
        temperature=0.0,
        seed=1,
        role="user",
    )
    resp = await llm.complete(req)
    assert resp.text.strip()
    assert resp.usage.input_tokens > 0 and resp.usage.output_tokens > 0
    assert resp.cost_usd == 0.0 and resp.model == "SmolLM2-135M-Instruct.Q4_1"
    assert stats.role("user").calls == 1

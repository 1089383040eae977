"""Shared by the LLM simulator tests: asyncio for anyio, and no real key, base URL or retry wait."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from simlab.llm import zero_retry_waits


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _fast_and_keyless(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with zero_retry_waits():
        yield

"""Fixtures for simlab.llm tests: zero retry waits, asyncio, a scripted backend."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import pytest

from simlab.llm import LLM, LLMRequest, LLMResponse, zero_retry_waits


@pytest.fixture(autouse=True)
def retry_waits() -> Iterator[list[float]]:
    """Retries sleep 0 s; the list holds each wait that was asked for."""
    with zero_retry_waits() as asked:
        yield asked


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's real key or endpoint must never leak into these tests.
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


class ScriptedLLM(LLM):
    """Plays a script: each call takes the next item, raising it if it is an exception."""

    def __init__(self, script: Sequence[LLMResponse | Exception], model: str = "m") -> None:
        self.script = list(script)
        self.seen: list[LLMRequest] = []
        self._model = model

    @property
    def model(self) -> str:
        return self._model

    async def complete(self, req: LLMRequest) -> LLMResponse:
        self.seen.append(req)
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


@pytest.fixture
def scripted() -> Callable[..., ScriptedLLM]:
    return ScriptedLLM

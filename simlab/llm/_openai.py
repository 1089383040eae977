"""The ``openai`` backend: any OpenAI-compatible chat-completions endpoint.

vLLM, Ollama, a llama.cpp server, a LiteLLM proxy or OpenAI itself. One POST
per attempt to ``{base_url}/chat/completions``; failures become simlab
``ProviderError``s for the retry layer.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from simlab.llm._base import LLM
from simlab.llm._errors import (
    LLMConfigError,
    MalformedResponseError,
    ProviderStatusError,
    redact,
    status_message,
)
from simlab.llm._http1 import default_transport
from simlab.llm._spec import LLMSpec
from simlab.llm._transport import Transport
from simlab.llm._types import LLMRequest, LLMResponse
from simlab.llm._usage_shapes import openai_usage

DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


def build_body(req: LLMRequest, spec: LLMSpec, model: str) -> dict[str, Any]:
    """The chat-completions request body for ``req``."""
    messages: list[dict[str, str]] = []
    if req.system:
        messages.append({"role": "system", "content": req.system})
    messages.extend({"role": m.role, "content": m.content} for m in req.messages)
    body: dict[str, Any] = {
        "model": req.model or model,
        "messages": messages,
        "max_tokens": req.max_tokens or spec.max_tokens,
    }
    temperature = req.temperature if req.temperature is not None else spec.temperature
    if temperature is not None:
        body["temperature"] = temperature
    if req.seed is not None:
        body["seed"] = req.seed
    if req.stop:
        body["stop"] = list(req.stop)
    if req.json_output:
        body["response_format"] = {"type": "json_object"}
    return body


def parse_completion(data: Any, model: str, latency: float) -> LLMResponse:
    """Read a chat-completions response body.

    Raises:
        MalformedResponseError: The body lacks a choice with text content.
    """
    try:
        choice = data["choices"][0]
        text = choice["message"].get("content") or ""
        usage = openai_usage(data.get("usage") or {})
        return LLMResponse(
            text=str(text),
            usage=usage,
            model=str(data.get("model") or model),
            latency_s=latency,
            stop_reason=choice.get("finish_reason"),
            raw_id=data.get("id"),
        )
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
        raise MalformedResponseError(
            f"chat completion lacks choices[0].message ({type(exc).__name__})"
        ) from None


class OpenAILLM(LLM):
    """A chat-completions endpoint over HTTP.

    Args:
        spec: The role's spec (model, base_url, key variable, timeout, concurrency).
        transport: How requests are sent (tests pass an ``HttpxTransport``
            over a mock); None: simlab's own HTTP/1.1 client, made on first use.

    Raises:
        LLMConfigError: No key is set and the endpoint is OpenAI's own.
    """

    def __init__(self, spec: LLMSpec, *, transport: Transport | None = None) -> None:
        self._spec = spec
        self._model = spec.model or DEFAULT_OPENAI_MODEL
        self._env = spec.key_env or "OPENAI_API_KEY"
        base = spec.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_URL
        self._url = base.rstrip("/") + "/chat/completions"
        key = os.environ.get(self._env, "")
        if not key and base.startswith(DEFAULT_OPENAI_URL):
            raise LLMConfigError(
                f"the openai backend needs an API key in ${self._env} for {base}, which is not "
                f"set. Fix: `export {self._env}=...`, or set base_url to your own endpoint "
                "(vLLM, Ollama, llama.cpp server; no key needed) or to a `simlab fake-provider`"
            )
        self._secrets = (key,)
        # The key lives only in the client's headers, never on the request or spec.
        self._headers = {"authorization": f"Bearer {key}"} if key else {}
        self._transport = transport

    @property
    def name(self) -> str:
        return "openai"

    @property
    def model(self) -> str:
        return self._model

    @property
    def max_connections(self) -> int:
        return self._spec.concurrency

    async def aclose(self) -> None:
        if self._transport is not None:
            await self._transport.aclose()
            self._transport = None

    async def complete(self, req: LLMRequest) -> LLMResponse:
        """One chat-completions POST."""
        if self._transport is None:
            self._transport = default_transport(
                max_connections=self._spec.concurrency, timeout_s=self._spec.timeout_s
            )
        body = build_body(req, self._spec, self._model)
        start = time.perf_counter()
        status, headers, content = await self._transport.post_json(self._url, body, self._headers)
        latency = time.perf_counter() - start
        if status >= 400:
            raise self._status_error(status, headers, content, body["model"])
        try:
            data = json.loads(content)
        except ValueError:
            raise MalformedResponseError(
                f"openai endpoint returned a body that is not JSON ({len(content)} bytes)"
            ) from None
        return parse_completion(data, body["model"], latency)

    def _status_error(
        self, status: int, headers: dict[str, str], content: bytes, model: str
    ) -> ProviderStatusError:
        try:
            detail = str(json.loads(content)["error"]["message"])
        except (ValueError, KeyError, TypeError):
            detail = content[:300].decode("utf-8", "replace")
        message = status_message(
            status, backend="openai", model=model, url=self._url, env=self._env, detail=detail
        )
        return ProviderStatusError(redact(message, self._secrets), status=status, headers=headers)

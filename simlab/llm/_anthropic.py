"""The ``anthropic`` backend: the Messages API with prompt caching.

Requests go over simlab's aiohttp transport (the official SDK's client when a
test hands one in). The SDK's own retries are off (``max_retries=0``): simlab's
retry layer owns them, so every attempt is classified, counted and priced. Two cache
breakpoints are set per request, on the system prompt and on the last block of
the transcript, so each turn reads the previous turn's prefix from the cache.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import time
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from simlab.llm._base import LLM
from simlab.llm._errors import (
    LLMConfigError,
    MalformedResponseError,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    ProviderTimeoutError,
    redact,
    status_message,
)
from simlab.llm._spec import LLMSpec
from simlab.llm._transport import Transport, default_transport
from simlab.llm._types import LLMRequest, LLMResponse, Usage

if TYPE_CHECKING:
    import anthropic

DEFAULT_ANTHROPIC_MODEL = "claude-haiku-4-5"
_EPHEMERAL = {"type": "ephemeral"}
_JSON_RULE = "Reply with one JSON object and nothing else."
# A key sent only to a loopback fake provider: never valid anywhere real.
_OFFLINE_KEY = "simlab-offline-no-key"


def is_loopback(url: str | None) -> bool:
    """True for a URL on this machine (a fake provider), where no real key is needed."""
    if not url:
        return False
    host = urlsplit(url).hostname or ""
    return host in {"localhost", "::1"} or host.startswith("127.")


def build_messages(req: LLMRequest) -> list[dict[str, Any]]:
    """The Messages API transcript, with a cache breakpoint on its last block."""
    messages: list[dict[str, Any]] = [
        {"role": m.role, "content": [{"type": "text", "text": m.content}]} for m in req.messages
    ]
    if messages:
        messages[-1]["content"][-1]["cache_control"] = _EPHEMERAL
    return messages


def build_system(req: LLMRequest) -> list[dict[str, Any]]:
    """The system prompt as one cached text block (empty when there is none)."""
    text = f"{req.system}\n\n{_JSON_RULE}" if req.json_output else req.system
    if not text:
        return []
    return [{"type": "text", "text": text, "cache_control": _EPHEMERAL}]


def _default_http_client(sdk: Any) -> Any:
    """The SDK's aiohttp transport when aiohttp is installed, else None (its httpx default).

    Measured through this backend against the fake provider at 300 ms (server
    in the same process): 360 calls/s with aiohttp vs 208 with httpx2 at 256
    concurrent calls; equal (167) at 64.
    """
    if importlib.util.find_spec("aiohttp") is None:
        return None
    factory = getattr(sdk, "DefaultAioHttpClient", None)
    return factory() if factory is not None else None


def _raw_post(sdk: Any, client: Any) -> tuple[Any, bool]:
    """The response class of the httpx-like module the SDK is built on (``httpx2`` for
    SDK 2.x, ``httpx`` before), and whether its ``post`` takes a ready ``content`` body."""
    base = importlib.import_module(f"{sdk.__name__}._base_client")
    http = getattr(base, "httpx2", None) or base.httpx
    return http.Response, "content" in inspect.signature(client.post).parameters


_API_VERSION = "2023-06-01"


def _has_aiohttp() -> bool:
    return importlib.util.find_spec("aiohttp") is not None


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class AnthropicLLM(LLM):
    """Claude through the Messages API: simlab's aiohttp transport, or ``anthropic.AsyncAnthropic``.

    Args:
        spec: The role's spec (model, base_url, key variable, timeout).
        http_client: An ``httpx2.AsyncClient`` for the SDK (tests pass a
            mock transport), which then sends every request; None posts with
            simlab's aiohttp transport when aiohttp is installed, else with
            the SDK's default client.

    Raises:
        LLMConfigError: The key variable is unset and the endpoint is not a
            loopback fake provider.
    """

    lean_post: ClassVar[bool] = True
    """Post a ready JSON body and read the reply as JSON (see ``complete``); False takes
    the SDK's typed ``messages.create`` (``bench/llm_sessions.py --paths`` compares them)."""

    def __init__(self, spec: LLMSpec, *, http_client: Any = None) -> None:
        import anthropic  # a core dependency, imported late to keep start-up fast

        self._spec = spec
        self._model = spec.model or DEFAULT_ANTHROPIC_MODEL
        self._env = spec.key_env or "ANTHROPIC_API_KEY"
        self._url = spec.base_url or os.environ.get("ANTHROPIC_BASE_URL")
        key = os.environ.get(self._env)
        if not key:
            if not is_loopback(self._url):
                raise LLMConfigError(
                    f"the anthropic backend needs an API key in ${self._env}, which is not set. "
                    f"Fix: `export {self._env}=...`, or for offline tests start "
                    "`simlab fake-provider --port 8765` and set base_url (or ANTHROPIC_BASE_URL) "
                    "to http://127.0.0.1:8765"
                )
            key = _OFFLINE_KEY
        self._secrets = (key,)
        # No client given: simlab's own aiohttp transport posts the body straight to
        # the Messages endpoint (see ``complete``); the SDK client stays for errors.
        self._transport: Transport | None = None
        self._direct = http_client is None and self.lean_post and _has_aiohttp()
        base = self._url or "https://api.anthropic.com"
        self._endpoint = base.rstrip("/") + "/v1/messages"
        # The key lives only in these headers, never on the request or spec.
        self._headers = {
            "x-api-key": key,
            "anthropic-version": _API_VERSION,
            "content-type": "application/json",
        }
        if http_client is None:
            http_client = _default_http_client(anthropic)
        self._client: anthropic.AsyncAnthropic = anthropic.AsyncAnthropic(
            api_key=key,
            base_url=spec.base_url,  # None: the SDK reads ANTHROPIC_BASE_URL itself
            max_retries=0,
            timeout=spec.timeout_s,
            http_client=http_client,
        )
        self._anthropic = anthropic
        self._response_class, takes_content = _raw_post(anthropic, self._client)
        self._lean = self.lean_post and takes_content
        self._post_options: Any = {"headers": {"Content-Type": "application/json"}}

    @property
    def name(self) -> str:
        return "anthropic"

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
        await self._client.close()

    async def complete(self, req: LLMRequest) -> LLMResponse:
        """One Messages API call; failures become simlab ``ProviderError``s.

        The body is serialised once and the reply read as JSON: the SDK's typed
        ``messages.create`` deep-copies and transforms the parameters and builds a
        pydantic ``Message`` per call, and its request machinery costs as much
        again, which bounded a client with hundreds of sessions running
        (``bench/llm_client_cpu.py``: about 5x the CPU per call). By default the
        body goes straight to ``/v1/messages`` over simlab's aiohttp transport (as
        the ``openai`` backend's does); with an ``http_client`` given (tests), or
        without aiohttp, it goes through the SDK client's ``post`` as bytes. No
        retries either way: simlab's retry layer owns them.
        """
        body = self.request_body(req)
        model = body["model"]
        start = time.perf_counter()
        try:
            if self._direct:
                data = await self._post_direct(body, model)
            elif self._lean:
                raw = await self._client.post(
                    "/v1/messages",
                    cast_to=self._response_class,
                    content=_JSON.encode(body).encode(),
                    options=self._post_options,
                )
                data = json.loads(raw.content)
            else:  # an SDK whose post takes no ready body: its typed call
                temperature = body.pop("temperature", None)
                extra = {} if temperature is None else {"extra_body": {"temperature": temperature}}
                create: Any = self._client.messages.create
                msg = await create(**body, **extra)
                data = msg.model_dump()
        except Exception as exc:
            raise self._translate(exc, model) from None
        latency = time.perf_counter() - start
        try:
            if not isinstance(data, dict) or data.get("type") == "error":
                raise ValueError("not a message")
            text = "".join(b["text"] for b in data["content"] if b.get("type") == "text")
            u = data["usage"]
            usage = Usage(
                input_tokens=u["input_tokens"],
                output_tokens=u["output_tokens"],
                cache_read_tokens=u.get("cache_read_input_tokens") or 0,
                cache_write_tokens=u.get("cache_creation_input_tokens") or 0,
            )
            return LLMResponse(
                text=text,
                usage=usage,
                model=data.get("model") or model,
                latency_s=latency,
                stop_reason=data.get("stop_reason"),
                raw_id=data.get("id"),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise MalformedResponseError(
                f"anthropic returned an unreadable message: {type(exc).__name__}"
            ) from None

    async def _post_direct(self, body: dict[str, Any], model: str) -> Any:
        """POST ``body`` with simlab's transport; the reply's JSON, or a ``ProviderError``."""
        if self._transport is None:  # created on first use, inside the running loop
            self._transport = default_transport(
                max_connections=self._spec.concurrency, timeout_s=self._spec.timeout_s
            )
        status, headers, content = await self._transport.post_json(
            self._endpoint, body, self._headers
        )
        if status >= 400:
            try:
                detail = str(json.loads(content)["error"]["message"])
            except (ValueError, KeyError, TypeError):
                detail = content[:300].decode("utf-8", "replace")
            message = status_message(
                status,
                backend="anthropic",
                model=model,
                url=self._url or "https://api.anthropic.com",
                env=self._env,
                detail=detail,
            )
            raise ProviderStatusError(
                redact(message, self._secrets), status=status, headers=headers
            )
        try:
            return json.loads(content)
        except ValueError:
            raise MalformedResponseError(
                f"anthropic returned a body that is not JSON ({len(content)} bytes)"
            ) from None

    def request_body(self, req: LLMRequest) -> dict[str, Any]:
        """The Messages API request body for ``req`` (what ``complete`` posts)."""
        body: dict[str, Any] = {
            "max_tokens": req.max_tokens or self._spec.max_tokens,
            "messages": build_messages(req),
            "model": req.model or self._model,
        }
        if req.stop:
            body["stop_sequences"] = list(req.stop)
        if system := build_system(req):
            body["system"] = system
        temperature = req.temperature if req.temperature is not None else self._spec.temperature
        if temperature is not None:
            body["temperature"] = temperature  # SDK 2.x has no typed argument; the API takes it
        # The Messages API takes no seed; it is still part of the replay key.
        return body

    def _translate(self, exc: Exception, model: str) -> Exception:
        if isinstance(exc, ProviderError):
            return exc  # the direct path's own errors, already simlab's
        sdk = self._anthropic
        url = self._url or "https://api.anthropic.com"
        if isinstance(exc, sdk.APITimeoutError):
            return ProviderTimeoutError(f"anthropic timed out after {self._spec.timeout_s}s")
        if isinstance(exc, sdk.APIConnectionError):
            return ProviderConnectionError(f"anthropic connection failed ({url}): {exc.message}")
        if isinstance(exc, sdk.APIStatusError):
            detail = exc.api_message or str(exc.body or "")[:300]
            message = status_message(
                exc.status_code,
                backend="anthropic",
                model=model,
                url=url,
                env=self._env,
                detail=detail,
            )
            return ProviderStatusError(
                redact(message, self._secrets),
                status=exc.status_code,
                headers=dict(exc.response.headers),
            )
        if isinstance(exc, sdk.APIError | ValueError):
            # 2xx with a body that is not JSON or not a Message.
            return MalformedResponseError(
                redact(f"anthropic returned a malformed body: {exc}", self._secrets)[:500]
            )
        return exc

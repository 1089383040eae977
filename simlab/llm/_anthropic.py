"""The ``anthropic`` backend: the Messages API with prompt caching.

Requests go over simlab's own HTTP/1.1 client (``_http1``; the official SDK's
client when a test hands one in). The SDK's own retries are off (``max_retries=0``): simlab's
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
from simlab.llm._escaped import EscapedStrings
from simlab.llm._http1 import default_transport
from simlab.llm._spec import LLMSpec
from simlab.llm._transport import Transport
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


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_DUMPS = json.JSONEncoder().encode  # json.dumps with its defaults, for the body's scalars
# The fixed text around the escaped strings of ``request_json``: ``json.dumps`` of
# ``request_body`` is these pieces joined with the strings' literals.
_MESSAGE_HEAD = {
    role: f'{{"role": "{role}", "content": [{{"type": "text", "text": '
    for role in ("user", "assistant")
}
_BLOCK_END = "}]}"
_MARKED_BLOCK_END = ', "cache_control": {"type": "ephemeral"}}]}'
_JSON_RULE_TAIL = _DUMPS(f"\n\n{_JSON_RULE}")[1:]  # the rule's literal, without its open quote


class AnthropicLLM(LLM):
    """Claude through the Messages API: simlab's HTTP client, or ``anthropic.AsyncAnthropic``.

    Args:
        spec: The role's spec (model, base_url, key variable, timeout).
        http_client: An ``httpx2.AsyncClient`` for the SDK (tests pass a
            mock transport), which then sends every request; None posts with
            simlab's own HTTP/1.1 client (``lean_post`` False: the SDK's
            typed call on its default client).

    Raises:
        LLMConfigError: The key variable is unset and the endpoint is not a
            loopback fake provider.
    """

    lean_post: ClassVar[bool] = True
    """Post a ready JSON body and read the reply as JSON (see ``complete``); False takes
    the SDK's typed ``messages.create`` (``bench/llm_sessions.py --paths`` compares them)."""

    def __init__(self, spec: LLMSpec, *, http_client: Any = None) -> None:
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
        self._key = key
        self._secrets = (key,)
        # No client given: simlab's own HTTP/1.1 client posts the body straight to
        # the Messages endpoint (see ``complete``), and the SDK is never imported.
        self._transport: Transport | None = None
        self._direct = http_client is None and self.lean_post
        base = self._url or "https://api.anthropic.com"
        self._endpoint = base.rstrip("/") + "/v1/messages"
        # The key lives only in these headers, never on the request or spec.
        self._headers = {
            "x-api-key": key,
            "anthropic-version": _API_VERSION,
            "content-type": "application/json",
        }
        self._escaped = EscapedStrings(max_entries=max(4096, 32 * spec.concurrency))
        self._anthropic: Any = None
        self._client: anthropic.AsyncAnthropic | None = None
        self._lean = self.lean_post
        if not self._direct:
            self._sdk(http_client)
            self._lean = self.lean_post and self._takes_content
        self._post_options: Any = {"headers": {"Content-Type": "application/json"}}

    def _sdk(self, http_client: Any = None) -> anthropic.AsyncAnthropic:
        """The SDK client, made on first use (with ``http_client``, else the SDK's default)."""
        if self._client is not None:
            return self._client
        import anthropic  # a core dependency, imported late to keep start-up fast

        if http_client is None:
            http_client = _default_http_client(anthropic)
        self._client = anthropic.AsyncAnthropic(
            api_key=self._key,
            base_url=self._spec.base_url,  # None: the SDK reads ANTHROPIC_BASE_URL itself
            max_retries=0,
            timeout=self._spec.timeout_s,
            http_client=http_client,
        )
        self._anthropic = anthropic
        self._response_class, self._takes_content = _raw_post(anthropic, self._client)
        return self._client

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
        if self._client is not None:
            await self._client.close()

    async def complete(self, req: LLMRequest) -> LLMResponse:
        """One Messages API call; failures become simlab ``ProviderError``s.

        The body is serialised once and the reply read as JSON: the SDK's typed
        ``messages.create`` deep-copies and transforms the parameters and builds a
        pydantic ``Message`` per call, and its request machinery costs as much
        again, which bounded a client with hundreds of sessions running
        (``bench/llm_client_cpu.py``: about 5x the CPU per call). By default the
        body goes straight to ``/v1/messages`` over simlab's HTTP/1.1 client (as
        the ``openai`` backend's does), encoded by ``request_json`` (each long text
        escaped once per client); with an ``http_client`` given (tests) it goes
        through the SDK client's ``post`` as bytes. No
        retries either way: simlab's retry layer owns them.
        """
        model = req.model or self._model
        start = time.perf_counter()
        try:
            if self._direct:
                data = await self._post_direct(self.request_json(req), model)
            elif self._lean:
                raw = await self._sdk().post(
                    "/v1/messages",
                    cast_to=self._response_class,
                    content=_JSON.encode(self.request_body(req)).encode(),
                    options=self._post_options,
                )
                data = json.loads(raw.content)
            else:  # an SDK whose post takes no ready body: its typed call
                body = self.request_body(req)
                temperature = body.pop("temperature", None)
                extra = {} if temperature is None else {"extra_body": {"temperature": temperature}}
                create: Any = self._sdk().messages.create
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

    async def _post_direct(self, content: bytes, model: str) -> Any:
        """POST the encoded body with simlab's transport; the reply's JSON, or a
        ``ProviderError``."""
        if self._transport is None:  # created on first use, inside the running loop
            self._transport = default_transport(
                max_connections=self._spec.concurrency, timeout_s=self._spec.timeout_s
            )
        status, headers, content = await self._transport.post_bytes(
            self._endpoint, content, self._headers
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

    def request_json(self, req: LLMRequest) -> bytes:
        """``json.dumps(self.request_body(req)).encode()``, byte for byte, built around
        the escaped literals of the texts, each long one escaped once per client
        (``EscapedStrings``) rather than on every call that re-sends it."""
        literal = self._escaped
        parts = ['{"max_tokens": ', _DUMPS(req.max_tokens or self._spec.max_tokens)]
        parts.append(', "messages": [')
        last = len(req.messages) - 1
        for i, m in enumerate(req.messages):
            if i:
                parts.append(", ")
            parts.append(_MESSAGE_HEAD[m.role])
            parts.append(literal(m.content))
            parts.append(_MARKED_BLOCK_END if i == last else _BLOCK_END)
        parts.append('], "model": ')
        parts.append(literal(req.model or self._model))
        if req.stop:
            parts.append(', "stop_sequences": ')
            parts.append(_DUMPS(list(req.stop)))
        if req.system or req.json_output:  # build_system's text is not empty
            system = literal(req.system)
            if req.json_output:  # escaping is per character: the literals join
                system = system[:-1] + _JSON_RULE_TAIL
            parts.append(', "system": [{"type": "text", "text": ')
            parts.append(system)
            parts.append(', "cache_control": {"type": "ephemeral"}}]')
        temperature = req.temperature if req.temperature is not None else self._spec.temperature
        if temperature is not None:
            parts.append(', "temperature": ')
            parts.append(_DUMPS(temperature))
        parts.append("}")
        return "".join(parts).encode("ascii")

    def _translate(self, exc: Exception, model: str) -> Exception:
        if isinstance(exc, ProviderError):
            return exc  # the direct path's own errors, already simlab's
        sdk = self._anthropic
        url = self._url or "https://api.anthropic.com"
        if sdk is None:  # the direct path: the SDK was never imported
            if isinstance(exc, ValueError):
                return MalformedResponseError(
                    redact(f"anthropic returned a malformed body: {exc}", self._secrets)[:500]
                )
            return exc
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

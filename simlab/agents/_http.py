"""``HttpAgent``: a target agent served as an OpenAI-compatible chat-completions endpoint.

Each user turn is one ``POST {url}/chat/completions`` with the conversation as
``messages``. The endpoint runs its own tools; the ``tool_calls`` on the message
it returns are recorded as the agent's actions, and their results are read from
the message's ``simlab_tool_results`` list (``[{"tool_call_id", "result",
"error"}]``, see ``docs/http-targets.md``). Without that list the calls keep no
result and the reply says the results were not reported. Only the texts of
earlier turns go back in the history: a bare ``tool_calls`` message with no tool
results would be rejected by OpenAI-style servers. Stateful endpoints can key
their memory on the ``X-Simlab-Session`` header.

The API key is read from the named environment variable for every request and
sent as ``Authorization: Bearer``; it is never kept on an object, logged, put
in a reply or left in an error message.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from simlab.agents._billing import MODEL_META, USAGE_META, TargetBilling, UsageReader
from simlab.agents._endpoint_read import (
    MAX_REDIRECTS,
    REDIRECT_STATUSES,
    BodyTooLarge,
    EndpointRules,
    RedirectRefused,
    next_hop,
    read_body,
    same_host,
)
from simlab.agents._tool_results import (
    HTTP_TARGETS_DOC,
    ReportedResult,
    attach_results,
    decode_result,
)
from simlab.contracts import SessionSetup
from simlab.core import AgentCapabilities, AgentReply, Message, SessionContext, ToolCall
from simlab.llm import Budget, PriceTable, openai_usage
from simlab.spec import HttpTargetSpec

if TYPE_CHECKING:  # aiohttp is imported when a session opens (start-up time)
    import aiohttp

_EXCERPT_CHARS = 200
TOOL_RESULTS_FIELD = "simlab_tool_results"
"""The assistant message's field listing each tool call's result (simlab's extension)."""
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',}]+")


class HttpAgentError(Exception):
    """The endpoint failed: an error status, no answer, or a body that is not a completion.

    It is the agent failing (``agent_error``), not simlab's infrastructure.
    """


class HttpAgentConfigError(HttpAgentError):
    """The adapter cannot be set up (a missing API-key variable); the message says the fix."""


def redact(text: str, key: str | None) -> str:
    """``text`` with the key and any ``Bearer`` credential replaced by ``***``."""
    if key:
        text = text.replace(key, "***")
    return _BEARER.sub(r"\1***", text)


def check_key_env(api_key_env: str | None) -> None:
    """Raise ``HttpAgentConfigError`` when ``api_key_env`` names an unset variable."""
    if api_key_env is not None and not os.environ.get(api_key_env):
        raise HttpAgentConfigError(
            f"the HTTP target's key variable ${api_key_env} is not set; "
            f"export {api_key_env}=... or drop api_key_env if the endpoint needs no key"
        )


class HttpSession:
    """One aiohttp session shared by every agent of a run, opened on first use.

    aiohttp sessions must be made inside the running event loop, hence the lazy
    opening; ``aclose`` at the end of the run releases the connections. Its
    ``rules`` bound what every agent of the run reads (``EndpointRules``).
    """

    def __init__(self, rules: EndpointRules | None = None) -> None:
        self.rules = rules or EndpointRules()
        """How much of an answer is read and where a redirect may lead."""
        self._session: aiohttp.ClientSession | None = None

    def get(self) -> aiohttp.ClientSession:
        """The open session (made now if there is none)."""
        # Imported here: aiohttp costs ~0.3 s of start-up that offline runs never need.
        import aiohttp

        if self._session is None or self._session.closed:
            # No connector cap: the engine's concurrency limit bounds requests in progress.
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        return self._session

    async def aclose(self) -> None:
        """Close the session and its connections (a no-op when never opened)."""
        if self._session is not None:
            await self._session.close()
            self._session = None


class EndpointAgent:
    """What every agent behind an HTTP endpoint shares: its endpoint, its key's
    variable (read at each request, never kept), a timeout and an ``HttpSession``.

    Args:
        endpoint: The full URL each turn is posted to.
        model: Sent as ``model`` (some servers require one).
        api_key_env: The variable holding the endpoint's key; None sends no key.
        timeout_s: Per-request timeout.
        session: A shared ``HttpSession``; by default the agent opens its own,
            which ``aclose`` closes.
        billing: Where the endpoint's reported ``usage`` is counted; None: nowhere
            (it stays in each turn's meta).

    Raises:
        HttpAgentConfigError: if ``api_key_env`` names an unset variable.
    """

    capabilities = AgentCapabilities()

    def __init__(
        self,
        endpoint: str,
        model: str,
        api_key_env: str | None,
        timeout_s: float,
        session: HttpSession | None,
        billing: TargetBilling | None = None,
    ) -> None:
        check_key_env(api_key_env)
        self._billing = billing
        self._endpoint = endpoint
        self._model = model
        self._key_env = api_key_env
        self._timeout_s = timeout_s
        self._owns_session = session is None
        self._session = session or HttpSession()

    async def aclose(self) -> None:
        """Close the agent's own session (a shared one is closed by its owner)."""
        if self._owns_session:
            await self._session.aclose()

    def _key(self) -> str | None:
        """The key, read from its variable now (None: no key is sent)."""
        return os.environ.get(self._key_env) if self._key_env else None

    def _bill(self, reply: AgentReply, read: UsageReader) -> AgentReply:
        """Count the reply's reported usage in the session's meter; the reply as it was."""
        if self._billing is not None:
            self._billing.bill(reply.meta, read, self._model)
        return reply

    async def _post(self, body: dict[str, Any], headers: dict[str, str], key: str | None) -> str:
        """POST ``body`` to the endpoint; the 2xx response's text."""
        return await post_json(
            self._session, self._endpoint, body, headers, self._timeout_s, secret=key
        )


class HttpAgent(EndpointAgent):
    """A target agent behind an OpenAI chat-completions endpoint.

    Args:
        url: Base URL; requests go to ``{url}/chat/completions``.
        model: Sent as ``model`` (some servers require one).
        api_key_env: The variable holding the endpoint's key; None sends no key.
        timeout_s: Per-request timeout.
        session: A shared ``HttpSession``; by default the agent opens its own,
            which ``aclose`` closes.

    Raises:
        HttpAgentConfigError: if ``api_key_env`` names an unset variable.
    """

    def __init__(
        self,
        url: str,
        model: str = "",
        api_key_env: str | None = None,
        timeout_s: float = 60.0,
        *,
        session: HttpSession | None = None,
        billing: TargetBilling | None = None,
    ) -> None:
        super().__init__(url.rstrip("/") + "/chat/completions", model, api_key_env, timeout_s,
                         session, billing)  # fmt: skip

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """POST the history and read the completion's text, tool calls and their results."""
        key = self._key()
        headers = {"X-Simlab-Session": ctx.session_id}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.text} for m in history],
            "seed": ctx.seed,
        }
        raw = await self._post(body, headers, key)
        return self._bill(completion_reply(raw, self._endpoint, secret=key), openai_usage)


async def post_json(
    session: HttpSession,
    endpoint: str,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout_s: float,
    *,
    secret: str | None,
) -> str:
    """POST ``body`` as JSON and return the 2xx response's text, read within the
    session's ``EndpointRules``: at most ``max_body_bytes``, and redirects followed
    only to the endpoint's host or one the suite lists (``_endpoint_read``).

    Args:
        secret: The API key sent, cut out of every error message.

    Raises:
        HttpAgentError: no answer in time, a connection failure, a non-2xx status
            (the message carries an excerpt of the body, the key redacted), an
            answer over the byte limit, or a redirect the suite does not allow.
    """
    import aiohttp

    rules = session.rules
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    url, method, sent = endpoint, "POST", dict(headers)
    try:
        for _ in range(MAX_REDIRECTS + 1):
            payload = body if method == "POST" else None
            async with session.get().request(
                method, url, json=payload, headers=sent, timeout=timeout, allow_redirects=False
            ) as resp:
                status = resp.status
                if status in REDIRECT_STATUSES:
                    where = next_hop(endpoint, url, resp.headers.get("Location"), rules)
                    if status in (301, 302, 303):  # as browsers do: the body is not sent again
                        method = "GET"
                    if not same_host(url, where):  # a key is for the host it was given for
                        sent = {k: v for k, v in sent.items() if k.lower() != "authorization"}
                    url = where
                    continue
                raw = (await read_body(resp, rules.max_body_bytes)).decode(
                    "utf-8", errors="replace"
                )
                break
        else:
            raise RedirectRefused(f"more than {MAX_REDIRECTS} redirects")
    except TimeoutError:
        raise HttpAgentError(f"POST {endpoint}: no answer within {timeout_s:g}s") from None
    except (BodyTooLarge, RedirectRefused) as e:
        raise HttpAgentError(f"POST {endpoint}: {redact(str(e), secret)}") from None
    except aiohttp.ClientError as e:
        detail = redact(f"{type(e).__name__}: {e}", secret)
        raise HttpAgentError(f"POST {endpoint} failed: {detail}") from None
    if not 200 <= status < 300:
        # redacted before it is cut: a key across the cut would leave its first half
        excerpt = redact(raw, secret)[:_EXCERPT_CHARS]
        raise HttpAgentError(f"POST {endpoint} returned HTTP {status}: {excerpt}")
    return raw


def completion_reply(
    raw: str, where: str = "the endpoint", *, secret: str | None = None
) -> AgentReply:
    """An ``AgentReply`` from a chat-completions response body (``secret``: the key
    sent, cut out of an error's excerpt of the body).

    The message's ``tool_calls`` are the calls the agent executed; its
    ``simlab_tool_results`` (when present) their results, matched by
    ``tool_call_id``. Without it the calls keep no result and
    ``meta["tool_results"]`` is ``"not_reported"``.

    Raises:
        HttpAgentError: if the body is not a completion with a message, or its
            ``simlab_tool_results`` do not match its tool calls one to one.
    """
    try:
        data = json.loads(raw)
        message = data["choices"][0]["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
    except (ValueError, LookupError, TypeError, RecursionError) as e:
        raise HttpAgentError(
            f"{where} answered with no choices[0].message ({type(e).__name__}: {e}); "
            f"body starts {redact(raw, secret)[:_EXCERPT_CHARS]!r}"
        ) from None
    text = message.get("content") or ""
    raw_calls = message.get("tool_calls") or []
    calls = [(_call_id(c), _tool_call(c)) for c in raw_calls]
    try:
        results = _reported_results(message.get(TOOL_RESULTS_FIELD))
        tool_calls, meta = attach_results(calls, results)
    except ValueError as e:
        raise HttpAgentError(
            f"{where}: {TOOL_RESULTS_FIELD} do not match the message's tool_calls: {e} "
            f"(see {HTTP_TARGETS_DOC})"
        ) from None
    if isinstance(data.get("usage"), dict):
        meta[USAGE_META] = data["usage"]
        if isinstance(data.get("model"), str):
            meta[MODEL_META] = data["model"]  # what the usage is priced by
    return AgentReply(text=str(text), tool_calls=tool_calls, meta=meta)


def _call_id(raw: Any) -> str | None:
    call_id = raw.get("id") if isinstance(raw, dict) else None
    return call_id if isinstance(call_id, str) else None


def _reported_results(raw: Any) -> dict[str, ReportedResult] | None:
    """``simlab_tool_results`` by call id; None when the message has none."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise ValueError(f"it must be a list, not {type(raw).__name__}")
    out: dict[str, ReportedResult] = {}
    for i, entry in enumerate(raw):
        call_id = entry.get("tool_call_id") if isinstance(entry, dict) else None
        if not isinstance(call_id, str):
            raise ValueError(f"entry {i} has no tool_call_id string: {str(entry)[:_EXCERPT_CHARS]}")
        if call_id in out:
            raise ValueError(f"two results for tool_call_id {call_id!r}")
        error = entry.get("error")
        out[call_id] = ReportedResult(
            result=decode_result(entry.get("result")),
            error=None if error is None else str(error),
        )
    return out


def _tool_call(raw: Any) -> ToolCall:
    fn = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        return ToolCall(name="?", error=f"unreadable tool call: {str(raw)[:_EXCERPT_CHARS]}")
    arguments = fn.get("arguments")
    try:
        # OpenAI sends arguments as a JSON string; some servers send the object itself.
        args = json.loads(arguments or "{}") if isinstance(arguments, str) else arguments
    except ValueError:
        args = None
    if not isinstance(args, dict):
        excerpt = str(arguments)[:_EXCERPT_CHARS]
        return ToolCall(name=fn["name"], error=f"arguments are not a JSON object: {excerpt}")
    return ToolCall(name=fn["name"], args=args)


class HttpTargetFactory:
    """Makes an ``HttpAgent`` per session, all sharing one aiohttp session.

    Call ``aclose`` when the run ends.
    """

    def __init__(
        self,
        spec: HttpTargetSpec,
        max_body_bytes: int | None = None,
        prices: PriceTable | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.spec = spec
        self._prices = prices or PriceTable()
        self._budget = budget
        self._session = HttpSession(endpoint_rules(spec.redirect_hosts, max_body_bytes))
        # Fail at set-up, not in every session, when the key variable is missing.
        check_key_env(spec.api_key_env)

    def __call__(self, setup: SessionSetup) -> HttpAgent:
        """A fresh agent for one session."""
        s = self.spec
        billing = TargetBilling(setup.meter, self._prices, self._budget)
        return HttpAgent(
            s.url, s.model, s.api_key_env, s.timeout_s, session=self._session, billing=billing
        )

    async def aclose(self) -> None:
        """Close the shared session."""
        await self._session.aclose()


def http_target_factory(
    spec: HttpTargetSpec,
    max_body_bytes: int | None = None,
    prices: PriceTable | None = None,
    budget: Budget | None = None,
) -> HttpTargetFactory:
    """A per-session target factory for an HTTP endpoint; ``aclose()`` it after the run.

    ``max_body_bytes``: the most of one answer read (default: ``body_limit`` of the
    default output limits; a run passes its suite's). The endpoint's reported ``usage``
    is counted in each session's meter at ``prices`` and charged to ``budget``.
    """
    return HttpTargetFactory(spec, max_body_bytes, prices, budget)


def endpoint_rules(redirect_hosts: Sequence[str], max_body_bytes: int | None) -> EndpointRules:
    """The rules an HTTP target's answers are read by."""
    if max_body_bytes is None:
        return EndpointRules(redirect_hosts=tuple(redirect_hosts))
    return EndpointRules(max_body_bytes, tuple(redirect_hosts))

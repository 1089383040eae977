"""``HttpAgent``: a target agent served as an OpenAI-compatible chat-completions endpoint.

Each user turn is one ``POST {url}/chat/completions`` with the conversation as
``messages``. The endpoint runs its own tools; the ``tool_calls`` it returns are
recorded as the agent's actions (their results are not sent back, so they are
``None``). Only the texts of earlier turns go back in the history: a bare
``tool_calls`` message with no tool results would be rejected by OpenAI-style
servers. Stateful endpoints can key their memory on the ``X-Simlab-Session``
header.

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

from simlab.contracts import SessionSetup
from simlab.core import AgentCapabilities, AgentReply, Message, SessionContext, ToolCall
from simlab.spec import HttpTarget

if TYPE_CHECKING:  # aiohttp is imported when a session opens (start-up time)
    import aiohttp

_EXCERPT_CHARS = 200
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',}]+")


class HttpAgentError(Exception):
    """The endpoint failed: an error status, no answer, or a body that is not a completion.

    It is the agent failing (``agent_error``), not simlab's infrastructure.
    """


class HttpAgentConfigError(HttpAgentError):
    """The adapter cannot be set up (a missing API-key variable); the message says the fix."""


def _redact(text: str, key: str | None) -> str:
    if key:
        text = text.replace(key, "***")
    return _BEARER.sub(r"\1***", text)


def _check_key_env(api_key_env: str | None) -> None:
    if api_key_env is not None and not os.environ.get(api_key_env):
        raise HttpAgentConfigError(
            f"the HTTP target's key variable ${api_key_env} is not set; "
            f"export {api_key_env}=... or drop api_key_env if the endpoint needs no key"
        )


class HttpSession:
    """One aiohttp session shared by every agent of a run, opened on first use.

    aiohttp sessions must be made inside the running event loop, hence the lazy
    opening; ``aclose`` at the end of the run releases the connections.
    """

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None

    def get(self) -> aiohttp.ClientSession:
        """The open session (made now if there is none)."""
        # Imported here: aiohttp costs ~0.3 s of start-up that offline runs never need.
        import aiohttp

        if self._session is None or self._session.closed:
            # No connector cap: the engine's concurrency limit bounds requests in flight.
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        return self._session

    async def aclose(self) -> None:
        """Close the session and its connections (a no-op when never opened)."""
        if self._session is not None:
            await self._session.close()
            self._session = None


class HttpAgent:
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

    capabilities = AgentCapabilities()

    def __init__(
        self,
        url: str,
        model: str = "",
        api_key_env: str | None = None,
        timeout_s: float = 60.0,
        *,
        session: HttpSession | None = None,
    ) -> None:
        _check_key_env(api_key_env)
        self._endpoint = url.rstrip("/") + "/chat/completions"
        self._model = model
        self._key_env = api_key_env
        self._timeout_s = timeout_s
        self._owns_session = session is None
        self._session = session or HttpSession()

    async def aclose(self) -> None:
        """Close the agent's own session (a shared one is closed by its owner)."""
        if self._owns_session:
            await self._session.aclose()

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """POST the history and read the completion's text and tool calls."""
        key = os.environ.get(self._key_env) if self._key_env else None
        headers = {"X-Simlab-Session": ctx.session_id}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.text} for m in history],
            "seed": ctx.seed,
        }
        import aiohttp

        timeout = aiohttp.ClientTimeout(total=self._timeout_s)
        try:
            async with self._session.get().post(
                self._endpoint, json=body, headers=headers, timeout=timeout
            ) as resp:
                raw = (await resp.read()).decode("utf-8", errors="replace")
                status = resp.status
        except TimeoutError:
            raise HttpAgentError(
                f"POST {self._endpoint}: no answer within {self._timeout_s:g}s"
            ) from None
        except aiohttp.ClientError as e:
            detail = _redact(f"{type(e).__name__}: {e}", key)
            raise HttpAgentError(f"POST {self._endpoint} failed: {detail}") from None
        if not 200 <= status < 300:
            excerpt = _redact(raw[:_EXCERPT_CHARS], key)
            raise HttpAgentError(f"POST {self._endpoint} returned HTTP {status}: {excerpt}")
        return completion_reply(raw, self._endpoint)


def completion_reply(raw: str, where: str = "the endpoint") -> AgentReply:
    """An ``AgentReply`` from a chat-completions response body.

    Raises:
        HttpAgentError: if the body is not a completion with a message.
    """
    try:
        data = json.loads(raw)
        message = data["choices"][0]["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
    except (ValueError, LookupError, TypeError) as e:
        raise HttpAgentError(
            f"{where} answered with no choices[0].message ({type(e).__name__}: {e}); "
            f"body starts {_redact(raw[:_EXCERPT_CHARS], None)!r}"
        ) from None
    text = message.get("content") or ""
    calls = [_tool_call(c) for c in message.get("tool_calls") or []]
    meta: dict[str, Any] = {}
    if isinstance(data.get("usage"), dict):
        meta["usage"] = data["usage"]
    return AgentReply(text=str(text), tool_calls=calls, meta=meta)


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

    def __init__(self, spec: HttpTarget) -> None:
        self.spec = spec
        self._session = HttpSession()
        # Fail at set-up, not in every session, when the key variable is missing.
        _check_key_env(spec.api_key_env)

    def __call__(self, setup: SessionSetup) -> HttpAgent:
        """A fresh agent for one session."""
        s = self.spec
        return HttpAgent(s.url, s.model, s.api_key_env, s.timeout_s, session=self._session)

    async def aclose(self) -> None:
        """Close the shared session."""
        await self._session.aclose()


def http_target_factory(spec: HttpTarget) -> HttpTargetFactory:
    """A per-session target factory for an HTTP endpoint; ``aclose()`` it after the run."""
    return HttpTargetFactory(spec)

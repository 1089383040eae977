"""simlab's LLM exception hierarchy.

``LLMError`` is the root. ``ProviderError`` and its subclasses describe what a
provider did (status, headers, kind of transport failure) so that retry
classification is one pure function over them. Messages never carry an API key.
"""

from __future__ import annotations

from collections.abc import Mapping

from simlab.llm._types import Usage


class LLMError(Exception):
    """Base class of every error simlab's LLM layer raises."""


class LLMConfigError(LLMError):
    """The LLM is misconfigured (missing key, missing dependency, bad spec); fix and rerun."""


class MissingDependencyError(LLMConfigError):
    """An optional dependency of a backend is not installed."""


class ReplayMissError(LLMError):
    """Replay mode found no recorded response for a request."""

    def __init__(self, message: str, *, request_hash: str, role: str) -> None:
        super().__init__(message)
        self.request_hash = request_hash
        self.role = role


class ProviderError(LLMError):
    """A call to a provider failed.

    Attributes:
        status: The HTTP status, or None when no response came back.
        headers: Response headers (lower-cased names) the retry policy may read.
        kind: ``"timeout"``, ``"connection"`` or ``"malformed"`` for failures
            without a usable status; None otherwise.
        usage: Tokens the failed attempt still reported, if any (they are billed).
        cost_usd: Set on the error finally raised to the caller: what every
            attempt of the call cost; None when some attempt's price is unknown.
    """

    kind: str | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        usage: Usage | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.headers: dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}
        self.usage = usage
        self.cost_usd: float | None = 0.0


class ProviderStatusError(ProviderError):
    """The provider answered with an HTTP error status."""


class ProviderTimeoutError(ProviderError):
    """The provider did not answer in time."""

    kind = "timeout"


class ProviderConnectionError(ProviderError):
    """The connection failed or dropped before a full response arrived."""

    kind = "connection"


class MalformedResponseError(ProviderError):
    """The provider answered 2xx with a body simlab could not read."""

    kind = "malformed"


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """Replace every non-empty secret in ``text`` with ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


_FIXES: dict[int, str] = {
    400: "the request was malformed for this provider: check the model id, max_tokens and "
    "message order (the first message must be from the user)",
    401: "the API key was rejected: check that {env} holds a valid key for {url}",
    403: "the API key lacks permission for this model or endpoint: check {env}'s access",
    404: "the endpoint or model was not found: check base_url ({url}) and model ({model})",
}


def status_message(
    status: int, *, backend: str, model: str, url: str, env: str | None, detail: str
) -> str:
    """An actionable message for an HTTP error status (names the fix where one is known)."""
    fix = _FIXES.get(status, "")
    head = f"{backend} returned HTTP {status} for model {model!r}"
    tail = f": {detail}" if detail else ""
    if fix:
        return f"{head}{tail}. Fix: " + fix.format(env=env or "the API key", url=url, model=model)
    return head + tail

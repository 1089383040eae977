"""Fuzzed logs through ``simlab import``: exit 0, 1 or 2, never a traceback, hang or blow-up.

Logs are 1-3 records, each a mutation of a valid record of the format (see
``mutations``: lone surrogates, 3,000-deep arrays, 400-digit rewards, trials
past 2^63, OTLP value shapes, unhashable tool results...). The quick profile
runs in the default test run; the large one (1,500 logs per format) is ``slow``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fuzz.harness import Outcome, Tally, run_in_process, run_subprocess
from tests.fuzz.mutations import log_bases, log_files
from tests.fuzz.test_fuzz_specs import fuzz, write_case

FORMATS = ("openai", "anthropic", "otel")
QUICK = 10
LARGE = int(os.environ.get("SIMLAB_FUZZ_LARGE_LOGS", "1500"))
"""Logs per format in the large (slow) profile (see ``SIMLAB_FUZZ_LARGE`` in test_fuzz_specs)."""
BASES = log_bases()


@pytest.fixture(autouse=True)
def no_charts(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process cases skip the report's matplotlib charts (1.5 s a run, 75 min for 4,500).

    The charts draw per-persona figures; an imported run has the one persona
    ``imported``, so no logged text reaches them. The subprocess sample draws them.
    """
    import simlab.report._html as html

    monkeypatch.setattr(html, "_summary_charts", lambda summary: [])


def import_case(
    fmt: str, folder: Path, run: Callable[[list[str]], Outcome]
) -> Callable[[str | bytes], Outcome]:
    """Write the log and run ``simlab import LOG --format FMT`` into a fresh results folder."""
    log = folder / f"fuzzed_{fmt}.jsonl"
    out = folder / f"results_{fmt}"

    def run_one(doc: str | bytes) -> Outcome:
        write_case(log, doc)
        shutil.rmtree(out, ignore_errors=True)
        return run(["import", str(log), "--format", fmt, "--out", str(out), "--quiet"])

    return run_one


def _fuzz_format(fmt: str, folder: Path, n: int, quick: bool) -> Tally:
    tally = Tally(f"import --format {fmt}")
    try:
        fuzz(tally, log_files(BASES[fmt]), import_case(fmt, folder, run_in_process), n, quick)
    finally:
        print(tally.line())
    assert tally.cases >= n
    return tally


@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzzed_logs_quick(fmt: str, tmp_path: Path) -> None:
    _fuzz_format(fmt, tmp_path, QUICK, quick=True)


@pytest.mark.slow
@pytest.mark.timeout(7200)
@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzzed_logs_large(fmt: str, tmp_path: Path) -> None:
    _fuzz_format(fmt, tmp_path, LARGE, quick=False)


@pytest.mark.slow
@pytest.mark.timeout(7200)
def test_fuzzed_logs_in_a_subprocess(tmp_path: Path) -> None:
    tally = Tally("import (subprocess)")
    for fmt in FORMATS:
        fuzz(tally, log_files(BASES[fmt]), import_case(fmt, tmp_path, run_subprocess), 40, False)
    print(tally.line())

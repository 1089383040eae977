"""Fuzzed spec files through ``simlab validate``: exit 0 or 2, never a traceback, hang or blow-up.

Documents are mutations of the shipped valid files (see ``mutations``). The
quick profile runs in the default test run; the large one (5,000 documents per
kind, the issue's figure) is ``slow``. Each case runs the real CLI in-process;
a sample also runs as a subprocess, whose own peak memory is measured.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.fuzz.harness import ROOT, Outcome, Tally, run_in_process, run_subprocess
from tests.fuzz.mutations import spec_bases, spec_documents

KINDS = ("persona", "goal", "suite", "perturbation", "agent", "domain")
QUICK = 15
LARGE = int(os.environ.get("SIMLAB_FUZZ_LARGE", "5000"))
"""Documents per kind in the large (slow) profile; CI sets a smaller count for time,
``SIMLAB_FUZZ_LARGE=5000`` (the default) is the full audit-sized run."""
BASES = spec_bases()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the shipped libraries, so a fuzzed suite's selection is checked too."""
    folder = tmp_path_factory.mktemp("fuzz-specs")
    for name in ("personas", "goals", "perturbations"):
        shutil.copytree(ROOT / name, folder / name)
    return folder


def write_case(path: Path, doc: str | bytes) -> None:
    """Write a document as the user's editor would: text as UTF-8, bytes as they are."""
    path.write_bytes(doc if isinstance(doc, bytes) else doc.encode("utf-8", "surrogatepass"))


def fuzz(
    tally: Tally,
    documents: st.SearchStrategy[str | bytes],
    run_one: Callable[[str | bytes], Outcome],
    n: int,
    quick: bool,
) -> None:
    """Run ``n`` documents through ``run_one``, failing (and shrinking) on the first trouble."""

    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        derandomize=quick,  # the default run is reproducible; the large one explores
        suppress_health_check=list(HealthCheck),
        phases=(Phase.generate, Phase.shrink),
        print_blob=True,
    )
    @given(documents)
    def case(doc: str | bytes) -> None:
        trouble = tally.add(run_one(doc), repr(doc)[:300])
        if tally.cases % (20 if "subprocess" in tally.name else 500) == 0:  # figures so far
            print(tally.line(), flush=True)
        if trouble is not None:  # shown as found: shrinking a slow case takes a while
            print(f"\n{tally.name}: {trouble[:3000]}\ndocument: {repr(doc)[:1000]}", flush=True)
        assert trouble is None, trouble

    case()


def validate_in_process(kind: str, path: Path) -> Callable[[str | bytes], Outcome]:
    def run_one(doc: str | bytes) -> Outcome:
        write_case(path, doc)
        return run_in_process(["validate", "--kind", kind, str(path)])

    return run_one


def _case_path(home: Path, kind: str, prefix: str) -> Path:
    """Where a fuzzed document goes: a domain is a folder of its own holding domain.yaml."""
    if kind != "domain":
        return home / f"{prefix}_{kind}.yaml"
    folder = home / f"{prefix}_domain"
    folder.mkdir(exist_ok=True)
    return folder / "domain.yaml"


def _fuzz_kind(kind: str, home: Path, n: int, quick: bool) -> Tally:
    tally = Tally(f"validate --kind {kind}")
    path = _case_path(home, kind, "fuzzed")
    try:
        fuzz(tally, spec_documents(BASES[kind]), validate_in_process(kind, path), n, quick)
    finally:
        print(tally.line())
    assert tally.cases >= n
    assert set(tally.codes) <= {0, 2}, tally.line()  # validate: valid, or a message
    return tally


@pytest.mark.parametrize("kind", KINDS)
def test_fuzzed_specs_quick(kind: str, home: Path) -> None:
    _fuzz_kind(kind, home, QUICK, quick=True)


@pytest.mark.slow
@pytest.mark.timeout(7200)
@pytest.mark.parametrize("kind", KINDS)
def test_fuzzed_specs_large(kind: str, home: Path) -> None:
    _fuzz_kind(kind, home, LARGE, quick=False)


def _subprocess_sample(home: Path, n: int, quick: bool, kinds: tuple[str, ...] = KINDS) -> Tally:
    tally = Tally("validate (subprocess)")
    for kind in kinds:
        path = _case_path(home, kind, "sub")

        def run_one(doc: str | bytes, kind: str = kind, path: Path = path) -> Outcome:
            write_case(path, doc)
            return run_subprocess(["validate", "--kind", kind, str(path)])

        fuzz(tally, spec_documents(BASES[kind]), run_one, n, quick)
    print(tally.line())
    return tally


def test_fuzzed_specs_in_a_subprocess_quick(home: Path) -> None:
    _subprocess_sample(home, 1, quick=True, kinds=("suite", "agent"))


@pytest.mark.slow
@pytest.mark.timeout(7200)
def test_fuzzed_specs_in_a_subprocess_large(home: Path) -> None:
    _subprocess_sample(home, 60, quick=False)

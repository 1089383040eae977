"""A wheel install runs the default suite from any folder, with no checkout (slow).

The wheel is built offline from a copy of the checkout (``--no-build-isolation``:
setuptools comes from the dev extra) and installed with ``--no-deps`` into a
fresh virtualenv. That venv sees this interpreter's site-packages through a
``.pth`` line, for the dependencies only: a ``.pth`` line adds a folder without
running the ``.pth`` files inside it, so an editable simlab installed here stays
inactive, and the test checks that ``simlab`` is imported from the venv.
"""

import json
import os
import posixpath
import shutil
import site
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = (
    "personas",
    "goals",
    "perturbations",
    "domains/travel",
    "domains/bank",
    "schemas",
    "examples/starter",
    "examples/starter/domains/shop",
)
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "results", "*.egg-info", "__pycache__", ".*_cache"
)

pytestmark = pytest.mark.slow


def _run(cmd: list[str | Path], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(the wheel, the venv it is installed in)."""
    tmp = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    source = tmp / "source"  # a copy: the build writes build/ and egg-info next to its input
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    wheels = tmp / "wheels"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    _run([*pip_wheel, "--quiet", "-w", wheels, source], cwd=tmp, env=env)
    (wheel,) = wheels.glob("simlab-*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp, env=env)
    python = venv / "bin" / "python"
    pip_install = [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"]
    _run([*pip_install, wheel], cwd=tmp, env=env)
    purelib = _run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp, env
    ).stdout.strip()
    deps = "".join(f"{p}\n" for p in site.getsitepackages())
    (Path(purelib) / "zz_test_deps.pth").write_text(deps, encoding="utf-8")
    yield wheel, venv


def _env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_the_wheel_holds_the_library_as_real_files(installed: tuple[Path, Path]) -> None:
    wheel, _ = installed
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        for folder in LIBRARY:
            for f in sorted((ROOT / folder).glob("*.*")):
                name = f"simlab/_shipped/{folder}/{f.name}"
                assert name in names
                assert z.read(name) == f.read_bytes()  # a copy, not a link
        assert z.read("simlab/_shipped/simlab.yaml") == (ROOT / "simlab.yaml").read_bytes()
        for name in sorted(n for n in names if n.startswith("simlab/_shipped/")):
            if name.endswith(".yaml"):  # its editor $schema line resolves inside the wheel too
                first = z.read(name).decode("utf-8").splitlines()[0]
                relative = first.removeprefix("# yaml-language-server: $schema=")
                target = posixpath.normpath(posixpath.join(posixpath.dirname(name), relative))
                assert target in names, (name, first)


def test_simlab_run_in_an_empty_folder_runs_the_shipped_default_suite(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    _, venv = installed
    env = _env(venv)
    where = _run(["python", "-c", "import simlab; print(simlab.__file__)"], tmp_path, env)
    assert Path(where.stdout.strip()).is_relative_to(venv)  # the wheel's simlab, no checkout
    proc = _run(["simlab", "run", "--quiet", "--out", "results"], tmp_path, env)
    shipped = next(venv.glob("lib/python*/site-packages/simlab/_shipped"))
    note = f"no simlab.yaml here: running the shipped default suite ({shipped / 'simlab.yaml'})"
    assert note in proc.stderr
    (run_dir,) = (tmp_path / "results").iterdir()
    info = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert info["suite_path"] == str(shipped / "simlab.yaml")
    # travel and bank, each domain's personas x its goals x mode x rep
    assert info["n_sessions"] == (12 * 6 + 4 * 6) * 2 * 8
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["overall"]["n_sessions"] == info["n_sessions"]
    assert (run_dir / "report.html").stat().st_size > 0


def test_validate_and_perturbations_use_the_wheels_library(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    _, venv = installed
    env = _env(venv)
    proc = _run(["python", "-m", "simlab", "validate"], tmp_path, env)
    assert "no simlab.yaml here: validating the shipped default suite" in proc.stderr
    valid = (
        "45 files valid: 1 agent, 2 domains (7 files), 12 goals, 16 personas, 8 perturbations, "
        "1 suite"
    )
    assert valid in proc.stderr
    code = "from simlab.spec import resolve_perturbations, shipped_dirs; print(shipped_dirs()[0])"
    found = _run(["python", "-c", code + "; resolve_perturbations(['typos'])"], tmp_path, env)
    assert Path(found.stdout.strip()).is_relative_to(venv)


def test_init_then_run_works_from_the_wheel(installed: tuple[Path, Path], tmp_path: Path) -> None:
    _, venv = installed
    env = _env(venv)
    made = _run(["simlab", "init", "proj"], tmp_path, env)
    # the guide the starter's comments send a user to is in the wheel, where init says
    (guide,) = [ln.split()[1] for ln in made.stderr.splitlines() if ln.startswith("guide: ")]
    assert Path(guide).is_relative_to(venv) and Path(guide).name == "guide.md"
    assert "simlab init" in Path(guide).read_text(encoding="utf-8")
    assert (Path(guide).parent / "domains.md").is_file()
    project = tmp_path / "proj"
    assert (project / "agent.py").is_file() and (project / "schemas").is_dir()
    proc = _run(["simlab", "run", "--quiet"], project, env)
    assert "shipped default suite" not in proc.stderr
    (run_dir,) = (project / "results").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["overall"]["n_sessions"] == 24
    assert (run_dir / "report.md").stat().st_size > 0

"""The shipped default suite and library, found from any folder (here: from the checkout).

The wheel's copy of them is tested by ``test_wheel.py`` (slow: it builds and installs one).
"""

import json
from pathlib import Path

import pytest
from run_simlab import simlab

from simlab.spec import (
    default_suite,
    shipped_dir,
    shipped_dirs,
    shipped_root,
)
from simlab.spec import resolve_perturbations as resolve

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_NOTE = "no simlab.yaml here: running the shipped default suite"


def test_a_checkout_ships_its_top_level_library() -> None:
    assert shipped_root() == ROOT
    assert default_suite() == ROOT / "simlab.yaml"
    assert shipped_dir("personas") == ROOT / "personas"


def test_run_in_a_folder_without_a_suite_runs_the_shipped_default_and_says_so(
    tmp_path: Path,
) -> None:
    proc = simlab("run", "--reps", "1", "--quiet", "--out", "results", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"{SHIPPED_NOTE} ({ROOT / 'simlab.yaml'})" in proc.stderr
    (run_dir,) = (tmp_path / "results").iterdir()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["suite_path"] == str(ROOT / "simlab.yaml")
    # (travel personas x goals + bank personas x goals) x modes x reps
    assert info["n_sessions"] == (12 * 6 + 4 * 6) * 2 * 1
    lines = (run_dir / "sessions.jsonl").read_text().splitlines()
    assert len(lines) == info["n_sessions"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]  # nothing else written


def test_run_prefers_the_folders_own_suite(tmp_path: Path) -> None:
    (tmp_path / "simlab.yaml").write_text(
        f"name: mine\npersonas: [terse_en]\ngoals: [refund]\nmodes: [full]\nreps: 2\n"
        f"persona_dirs: ['{ROOT / 'personas'}']\ngoal_dirs: ['{ROOT / 'goals'}']\n",
        encoding="utf-8",
    )
    proc = simlab("run", "--quiet", "--out", "results", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert SHIPPED_NOTE not in proc.stderr
    (run_dir,) = (tmp_path / "results").iterdir()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["suite"]["name"] == "mine" and info["n_sessions"] == 2


def test_a_users_suite_with_a_missing_library_folder_is_still_an_error(tmp_path: Path) -> None:
    # the shipped library backs the shipped suite only: a user's suite names its own folders
    (tmp_path / "mine.yaml").write_text("name: mine\nreps: 1\n", encoding="utf-8")
    proc = simlab("run", "mine.yaml", "--quiet", "--out", "results", cwd=tmp_path)
    assert proc.returncode == 2
    assert "  personas: no such file or folder" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "results").exists()


def test_validate_in_an_empty_folder_checks_the_shipped_suite_and_library(
    tmp_path: Path,
) -> None:
    proc = simlab("validate", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (
        "no simlab.yaml here: validating the shipped default suite and its library "
        f"({ROOT})" in proc.stderr
    )
    valid = (
        "45 files valid: 1 agent, 2 domains (7 files), 12 goals, 16 personas, 8 perturbations, "
        "1 suite"
    )
    assert valid in proc.stderr


def test_validate_checks_the_folders_own_files_when_it_has_some(tmp_path: Path) -> None:
    persona = (ROOT / "personas" / "terse_en.yaml").read_text(encoding="utf-8")
    (tmp_path / "personas").mkdir()
    (tmp_path / "personas" / "terse_en.yaml").write_text(persona, encoding="utf-8")
    proc = simlab("validate", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "shipped" not in proc.stderr
    assert "1 file valid: 1 persona" in proc.stderr


def test_shipped_perturbations_resolve_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert shipped_dirs() == [ROOT / "perturbations"]
    (typos,) = resolve(["typos"])
    assert typos.id == "typos"

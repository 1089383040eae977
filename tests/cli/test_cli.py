"""The command line as a user meets it: help, delegated commands, schema, validate."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def simlab(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "simlab.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_memory_test_delegates_and_reports_the_broken_store() -> None:
    bad = simlab("memory-test", "simlab.memory:AppendOnlyStore", "--no-e2e")
    assert bad.returncode == 1
    assert "update" in bad.stdout and "FAIL" in bad.stdout
    good = simlab("memory-test", "simlab.memory:KeyedStore", "--no-e2e")
    assert good.returncode == 0, good.stdout + good.stderr


def test_schema_writes_editor_schemas(tmp_path: Path) -> None:
    proc = simlab("schema", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    persona = json.loads((tmp_path / "persona.schema.json").read_text())
    assert persona["additionalProperties"] is False
    assert {"id", "name", "language"} <= set(persona["required"])
    assert (tmp_path / "goal.schema.json").exists() and (tmp_path / "suite.schema.json").exists()


def test_validate_the_shipped_library() -> None:
    proc = simlab("validate")
    assert proc.returncode == 0, proc.stderr
    assert "files valid" in proc.stderr


def test_unknown_persona_in_a_suite_names_the_valid_ones(tmp_path: Path) -> None:
    suite = tmp_path / "s.yaml"
    suite.write_text(
        f"personas: [nobody]\npersona_dirs: [{ROOT / 'personas'}]\ngoal_dirs: [{ROOT / 'goals'}]\n"
    )
    proc = simlab("run", str(suite), "--out", str(tmp_path), "--quiet")
    assert proc.returncode == 2
    assert "'nobody' matches no persona" in proc.stderr and "terse_en" in proc.stderr
    assert "Traceback" not in proc.stderr

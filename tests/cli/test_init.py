"""``simlab init DIR`` writes a small working project that ``simlab run`` runs at once.

The wheel's copy of the starter project is tested by ``test_wheel.py`` (slow).
"""

import json
from pathlib import Path

from run_simlab import simlab

from simlab.spec import SCHEMA_LINE, starter_dir

ROOT = Path(__file__).resolve().parents[2]
PROJECT = [
    "agent.py",
    "domains/shop/domain.yaml",
    "goals/order_tea.yaml",
    "goals/return_mug.yaml",
    "personas/calm.yaml",
    "personas/fickle.yaml",
    "simlab.yaml",
]


def test_the_starter_project_is_the_checkouts_example() -> None:
    assert starter_dir() == ROOT / "examples" / "starter"


def test_init_then_run_grades_every_session_and_writes_the_report(tmp_path: Path) -> None:
    made = simlab("init", "proj", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    project = tmp_path / "proj"
    files = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file())
    assert [f for f in files if not f.startswith("schemas/")] == PROJECT
    assert "next: cd proj && simlab run" in made.stderr
    (guide,) = [ln.split()[1] for ln in made.stderr.splitlines() if ln.startswith("guide: ")]
    assert Path(guide) == ROOT / "docs" / "guide.md"  # a checkout's own guide

    ran = simlab("run", "--quiet", cwd=project)  # the project's own simlab.yaml, no option
    assert ran.returncode == 0, ran.stderr
    assert "shipped default suite" not in ran.stderr
    (run_dir,) = (project / "results").iterdir()
    records = [json.loads(line) for line in (run_dir / "sessions.jsonl").read_text().splitlines()]
    assert len(records) == 2 * 2 * 2 * 3  # personas x goals x modes x reps
    assert all(r["status"] == "ok" for r in records), [r.get("error") for r in records]
    passed = sum(r["passed"] for r in records)
    assert passed >= 0.75 * len(records)
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    assert f"Overall: pass rate {100 * passed / len(records):.1f}%" in report
    assert "(n=24, 0 errors excluded)" in report
    # the fickle persona changes its mind (2 packs -> 3): the last order follows it
    fickle = [
        r for r in records if r["key"]["persona"] == "fickle" and r["key"]["goal"] == "order_tea"
    ]
    orders = [
        [
            c
            for t in r["transcript"]["turns"]
            if t["agent"]
            for c in t["agent"]["tool_calls"]
            if c["name"] == "place_order"
        ]
        for r in fickle
    ]
    assert len(fickle) == 6 and all(o and o[-1]["args"]["quantity"] == 3 for o in orders)


def test_the_written_yaml_files_point_at_the_projects_own_schemas(tmp_path: Path) -> None:
    assert simlab("init", "proj", cwd=tmp_path).returncode == 0
    project = tmp_path / "proj"
    yamls = sorted(project.rglob("*.yaml"))
    assert len(yamls) == 6
    for path in yamls:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith(SCHEMA_LINE), path
        schema = (path.parent / first.removeprefix(SCHEMA_LINE)).resolve()
        assert schema.is_file() and schema.is_relative_to(project / "schemas"), (path, first)
    valid = simlab("validate", cwd=project)
    assert valid.returncode == 0, valid.stderr
    assert "6 files valid: 1 domain, 2 goals, 2 personas, 1 suite" in valid.stderr


def test_a_non_empty_folder_is_refused_unless_forced(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text("mine\n", encoding="utf-8")
    refused = simlab("init", "proj", cwd=tmp_path)
    assert refused.returncode == 2
    assert "error: proj is not empty (1 entry: notes.txt); give a new or empty folder" in (
        refused.stderr
    )
    assert "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert sorted(p.name for p in project.iterdir()) == ["notes.txt"]  # nothing written

    (project / "simlab.yaml").write_text("name: old\n", encoding="utf-8")
    ci = project / "ci"
    ci.mkdir()
    workflow = "# yaml-language-server: $schema=https://json.schemastore.org/github-workflow\n"
    (ci / "workflow.yaml").write_text(workflow, encoding="utf-8")
    forced = simlab("init", "proj", "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert (project / "notes.txt").read_text(encoding="utf-8") == "mine\n"  # kept
    assert (ci / "workflow.yaml").read_text(encoding="utf-8") == workflow  # not re-pointed
    assert "ci/workflow.yaml" not in forced.stderr  # nor listed as written
    assert "name: shop" in (project / "simlab.yaml").read_text(encoding="utf-8")  # replaced


def test_a_file_in_the_way_is_refused(tmp_path: Path) -> None:
    (tmp_path / "proj").write_text("", encoding="utf-8")
    proc = simlab("init", "proj", cwd=tmp_path)
    assert proc.returncode == 2
    assert "error: proj is a file, not a folder" in proc.stderr


def test_init_with_no_folder_writes_here_into_an_empty_folder(tmp_path: Path) -> None:
    proc = simlab("init", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "simlab.yaml").is_file()
    assert "next: simlab run" in proc.stderr


def test_a_mistake_in_a_goal_of_the_project_is_reported_once(tmp_path: Path) -> None:
    # `simlab validate` in a project reads its goals both as files and as the suite's
    # library; the problem is one, said once (it was said twice, once per folder spelling)
    assert simlab("init", "proj", cwd=tmp_path).returncode == 0
    goal = tmp_path / "proj" / "goals" / "order_tea.yaml"
    goal.write_text(goal.read_text().replace("final_tool: place_order", "final_tool: place_oder"))
    checked = simlab("validate", cwd=tmp_path / "proj")
    assert checked.returncode == 2
    out = checked.stdout + checked.stderr
    said = [line for line in out.splitlines() if "place_oder" in line]
    assert len(said) == 1, out
    assert said[0].strip().startswith("goals/order_tea.yaml:7: final_tool:")

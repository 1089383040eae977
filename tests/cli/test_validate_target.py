"""``simlab validate`` finds a suite's Python target where ``simlab run`` will look,
without running the team's code: a misspelled module or function is said at the
suite's ``target`` line, with the fix; a name the source binds in a way a reading
cannot follow is left to the run."""

from pathlib import Path

import pytest
from run_simlab import simlab


def target_line(suite: Path) -> int:
    (n,) = [i for i, line in enumerate(suite.read_text().splitlines(), 1) if "target:" in line]
    return n


def set_target(project: Path, ref: str) -> int:
    suite = project / "simlab.yaml"
    suite.write_text(suite.read_text().replace("target: agent:reply", f"target: {ref}"))
    return target_line(suite)


def test_the_starter_target_is_found_and_its_code_is_not_run(project: Path) -> None:
    agent = project / "agent.py"
    marker = project / "imported"
    agent.write_text(f"open({str(marker)!r}, 'w').close()\n" + agent.read_text())
    done = simlab("validate", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists()  # read, never imported


def test_a_misspelled_function_is_said_at_the_target_line_with_the_name_meant(
    project: Path,
) -> None:
    line = set_target(project, "agent:replly")
    done = simlab("validate", cwd=project)
    assert done.returncode == 2
    out = done.stdout + done.stderr
    assert f"simlab.yaml:{line}: target:" in out
    assert "defines no 'replly'; did you mean 'reply'?" in out
    assert "Traceback" not in out


def test_a_missing_module_is_said_with_where_it_was_looked_for(project: Path) -> None:
    line = set_target(project, "agnt:reply")
    done = simlab("validate", cwd=project)
    assert done.returncode == 2
    out = done.stdout + done.stderr
    assert f"simlab.yaml:{line}: target: no module 'agnt'" in out
    assert "put agnt.py beside the suite" in out


def test_the_long_form_is_said_at_its_ref_line(project: Path) -> None:
    suite = project / "simlab.yaml"
    suite.write_text(
        suite.read_text().replace(
            "target: agent:reply",
            "target:\n  kind: callable\n  isolation: thread\n  ref: agent:nope",
        )
    )
    (line,) = [i for i, t in enumerate(suite.read_text().splitlines(), 1) if "ref: agent:nope" in t]
    done = simlab("validate", cwd=project)
    assert done.returncode == 2
    assert f"simlab.yaml:{line}: target: " in done.stdout + done.stderr


@pytest.mark.parametrize(
    "source",
    [
        # bound in a branch: which one runs is the import's to say
        "try:\n    from fastpath import reply\nexcept ImportError:\n    def reply(m, c):\n"
        "        return 'hi'\n",
        "import os\nif os.environ.get('X'):\n    reply = print\nelse:\n    reply = repr\n",
        "class Agent:\n    pass\n\nreply = Agent()\n",
        "def make():\n    global reply\n    reply = print\n\nmake()\n",
        # names a reading cannot follow: left to the run's import
        "from somewhere_else import *\n",
        "def __getattr__(name):\n    return print\n",
        "globals()['reply'] = print\n",
    ],
)
def test_names_bound_any_way_a_module_can_are_not_reported(project: Path, source: str) -> None:
    (project / "agent.py").write_text(source)
    done = simlab("validate", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_package_module_is_found_without_importing_the_package(project: Path) -> None:
    package = project / "bots"
    package.mkdir()
    marker = project / "imported"
    (package / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (package / "clinic.py").write_text("async def reply(messages, ctx):\n    return 'hello'\n")
    set_target(project, "bots.clinic:reply")
    assert simlab("validate", cwd=project).returncode == 0
    line = set_target(project, "bots.clinic:reply")  # already set: same line
    (package / "clinic.py").write_text("def answer(messages, ctx):\n    return 'hello'\n")
    done = simlab("validate", cwd=project)
    assert done.returncode == 2
    assert f"simlab.yaml:{line}: target: " in done.stdout + done.stderr
    assert "its functions and classes: answer" in done.stdout + done.stderr
    assert not marker.exists()

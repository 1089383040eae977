"""``simlab validate``: which kind of spec a file is, and every problem in it."""

from __future__ import annotations

import typing
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from frozendict import frozendict
from pydantic import BaseModel

from simlab.spec._agent import AgentSpec
from simlab.spec._agent_load import load_agent_spec
from simlab.spec._domain import DomainFile
from simlab.spec._domain_load import (
    DEFAULT_DOMAIN,
    DomainSet,
    goal_problems,
    load_domain,
    load_domains,
    persona_problems,
    shipped_domains,
    suite_domains,
)
from simlab.spec._grading_fit import grading_problems, waiver_warnings
from simlab.spec._loader import (
    Loc,
    Problem,
    SpecError,
    _line_for,
    _mapping,
    _read,
    _validated,
    _yaml_files,
    load_library,
)
from simlab.spec._models import Goal, Persona, Suite
from simlab.spec._perturbation import Perturbation
from simlab.spec._perturbation_library import load_perturbations
from simlab.spec._perturbation_speech import unspoken_perturbations
from simlab.spec._select import select
from simlab.spec._shipped import DEFAULT_SUITE
from simlab.spec._target_check import callable_target_problems

SpecKind = Literal["persona", "goal", "suite", "perturbation", "agent", "domain"]
SPEC_KINDS: tuple[SpecKind, ...] = typing.get_args(SpecKind)
"""The kinds of spec file ``simlab validate`` checks (``--kind``)."""


def spec_models() -> dict[SpecKind, type[BaseModel]]:
    """The model of each kind of spec file."""
    return {
        "persona": Persona,
        "goal": Goal,
        "suite": Suite,
        "perturbation": Perturbation,
        "agent": AgentSpec,
        "domain": DomainFile,
    }


_FOLDER_KINDS: dict[str, SpecKind] = {
    "personas": "persona",
    "goals": "goal",
    "perturbations": "perturbation",
    "agents": "agent",
}


def kind_for(path: Path, data: Any = None) -> tuple[SpecKind, str]:
    """Which spec a file holds, and why: its folder's name, else its fields, else suite.

    Args:
        path: The file; a folder named ``personas``, ``goals``, ``perturbations``
            or ``agents`` (or ``agents/data``) says the kind, as does ``domains/NAME/``.
        data: The file's YAML mapping, when read: its fields say the kind when
            the folder does not (``traits`` a persona, ``facts`` a goal...).

    Returns:
        The kind and a few words on how it was told, for messages.
    """
    by_folder = _kind_from_folder(path)
    if by_folder is not None:
        return by_folder[0], f"as it is in a {by_folder[1]}/ folder"
    if path.name == DEFAULT_SUITE:
        return "suite", f"by its name, {DEFAULT_SUITE}"
    if isinstance(data, dict):
        scores = {
            kind: sorted(set(data) & fields) for kind, fields in _distinctive_fields().items()
        }
        best = max(SPEC_KINDS, key=lambda kind: len(scores[kind]))
        if scores[best]:
            return best, f"the kind its fields say ({', '.join(scores[best])})"
    return "suite", "as no field says another kind"


def _kind_from_folder(path: Path) -> tuple[SpecKind, str] | None:
    """The kind a file's folder says, and that folder's name."""
    path = path.absolute()  # `simlab validate x.yaml` inside goals/ names no folder
    if path.parent.parts[-2:] == ("agents", "data"):  # an agents/data/ folder holds agent specs
        return "agent", "agents/data"
    if path.parent.parent.name == "domains":  # domains/NAME/*.yaml
        return "domain", "domains/NAME"
    kind = _FOLDER_KINDS.get(path.parent.name)
    if kind is not None:
        return kind, path.parent.name
    # a library's sub-folder: personas/bank/*.yaml are personas
    kind = _FOLDER_KINDS.get(path.parent.parent.name)
    if kind in ("persona", "goal", "perturbation"):
        return kind, f"{path.parent.parent.name}/{path.parent.name}"
    return None


def _distinctive_fields() -> dict[SpecKind, set[str]]:
    """Per kind, the fields no other kind has: ``id`` or ``name`` say nothing."""
    fields = {kind: set(model.model_fields) for kind, model in spec_models().items()}
    return {
        kind: own - set().union(*(other for k, other in fields.items() if k != kind))
        for kind, own in fields.items()
    }


def model_for(path: Path, data: Any = None) -> type[BaseModel]:
    """Which spec a file holds: from its folder, else its fields (suite otherwise)."""
    return spec_models()[kind_for(path, data)[0]]


@dataclass(frozen=True, slots=True)
class CheckedFile:
    """One file ``validate_specs`` checked: the kind it was read as, and why that kind."""

    path: Path
    kind: SpecKind
    why: str
    """How the kind was told: ``--kind``, the folder, or the fields (for messages)."""
    guessed: bool
    """Told by the file's fields (or taken as a suite), not by ``--kind`` or its folder."""


@dataclass(frozen=True, slots=True)
class Validation:
    """What ``validate_specs`` found: every file checked and every problem."""

    files: list[CheckedFile]
    problems: list[Problem]
    warnings: list[Problem] = field(default_factory=list)
    """What is valid but changes a verdict silently (a waived check), at its line."""


def spec_files(paths: Sequence[Path]) -> list[Path]:
    """The files given, and the ``*.yaml``/``*.yml`` files under the folders given."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml")))
        else:
            files.append(p)
    return files


def validate_specs(paths: Sequence[Path], kind: SpecKind | None = None) -> Validation:
    """Check every spec file under ``paths``, as ``kind`` or the kind each one holds.

    A suite is checked with its libraries too: its ``personas`` and ``goals``
    must each match something in its ``persona_dirs`` and ``goal_dirs``, as
    ``simlab run`` requires, and each goal and persona must fit its domain (its
    slots, value types, intents and tools; its languages). A domain's files are
    checked together as the folder they make. Goals and personas given without
    a suite are checked against the domains given beside them and those of the
    project's suite (the nearest ``simlab.yaml`` in their folder or above), else
    the shipped ones.
    """
    checked: list[CheckedFile] = []
    problems: list[Problem] = []
    warnings: list[Problem] = []
    read: list[tuple[Path, BaseModel, dict[Loc, int]]] = []
    for path in spec_files(paths):
        try:
            text = _read(path)
            data, lines = _mapping(path, text)
            told = (kind, "--kind") if kind is not None else kind_for(path, data)
            named = _kind_from_folder(path) is not None or path.name == DEFAULT_SUITE
            guessed = kind is None and not named
            checked.append(CheckedFile(path, *told, guessed=guessed))
            spec = _validated(spec_models()[told[0]], path, data, lines)
            read.append((path, spec, lines))
            if isinstance(spec, (Goal, Suite)):
                warnings.extend(waiver_warnings(spec, str(path), lines))
            if isinstance(spec, Suite):
                problems.extend(_suite_selection(path, spec, lines))
                problems.extend(_target_problems(path, spec, lines))
        except SpecError as e:
            problems.extend(e.problems)
    problems.extend(_domain_problems(read))
    # a library once, not per suite
    return Validation(checked, list(dict.fromkeys(problems)), list(dict.fromkeys(warnings)))


def _domain_problems(read: Sequence[tuple[Path, BaseModel, dict[Loc, int]]]) -> list[Problem]:
    """Domain folders checked whole; goals and personas checked against their domains."""
    problems: list[Problem] = []
    folders = list(dict.fromkeys(p.parent for p, spec, _ in read if isinstance(spec, DomainFile)))
    given: list[str] = []
    in_suites: set[Path] = set()  # goals and personas checked with their suite's domains
    for folder in folders:
        try:
            load_domain(folder)
            given.append(str(folder.resolve()))
        except SpecError as e:
            problems.extend(e.problems)
    for path, spec, _ in read:
        if isinstance(spec, Suite):
            # its libraries are its own even when its domains fail to load: they are
            # checked once those load, never against the shipped domains instead
            dirs = [*spec.persona_dirs, *spec.goal_dirs]
            in_suites.update(f.resolve() for f in _yaml_files(path.parent / d for d in dirs))
            try:
                domains = suite_domains(spec, path)
                problems.extend(_library_fit(path, spec, domains))
                shelf = suite_perturbation_dir(spec, path.parent)
                if shelf is not None:  # what brittleness stacks must be sayable by each persona
                    library = load_perturbations([shelf])
                    problems.extend(perturbation_fit(path, spec, library, shelf, domains))
            except SpecError as e:
                problems.extend(e.problems)
    for path, spec, _ in read:
        if isinstance(spec, AgentSpec):  # its prompt file read, its domain's tools found
            try:
                # a domain named by id is one of its project's (or a shipped one)
                beside = _domains_beside(given, _project_suite(path)) if spec.tools_from else None
                load_agent_spec(path, beside)
            except SpecError as e:
                problems.extend(e.problems)
    loose = [
        (p, s, ln)
        for p, s, ln in read
        if isinstance(s, Goal | Persona) and p.resolve() not in in_suites
    ]
    by_project: dict[Path | None, list[tuple[Path, BaseModel, dict[Loc, int]]]] = {}
    for path, spec, lines in loose:
        by_project.setdefault(_project_suite(path), []).append((path, spec, lines))
    for suite_path, files in by_project.items():
        try:
            domains = _domains_beside(given, suite_path)
        except SpecError as e:
            problems.extend(e.problems)
            continue
        for path, spec, lines in files:
            problems.extend(_fit(path, spec, lines, domains))
    return list(dict.fromkeys(problems))


def _project_suite(path: Path) -> Path | None:
    """The project suite a goal or persona file belongs to: the nearest ``simlab.yaml``
    in its folder or a folder above it (None: none), relative to here when it is below."""
    here = Path.cwd().resolve()
    for folder in path.resolve().parents:
        suite = folder / DEFAULT_SUITE
        if suite.is_file():
            return suite.relative_to(here) if suite.is_relative_to(here) else suite
    return None


def _domains_beside(given: Sequence[str], suite_path: Path | None = None) -> DomainSet:
    """The domains goals given without a suite are checked against: those given, and
    those of their project's suite (``suite_path``; its first is then the default), else
    the shipped ones (a project's goals run with its suite's domains only).

    Raises:
        SpecError: A domain does not load, or the project's suite is not a valid suite
            (said at its own file and line).
    """
    own = load_domains(given, Path(".")) if given else DomainSet(frozendict(), DEFAULT_DOMAIN)
    if suite_path is not None:
        project = _suite_domains_of(suite_path)
        return DomainSet(frozendict({**project.domains, **own.domains}), project.default)
    shipped = load_domains(shipped_domains() or [DEFAULT_DOMAIN], Path("."))
    if not given:
        return DomainSet(shipped.domains, DEFAULT_DOMAIN, shipped.folders)
    merged = frozendict({**shipped.domains, **own.domains})
    return DomainSet(merged, own.default if len(own.domains) == 1 else DEFAULT_DOMAIN)


def _suite_domains_of(suite_path: Path) -> DomainSet:
    """The domains the suite file at ``suite_path`` names."""
    data, lines = _mapping(suite_path, _read(suite_path))
    return suite_domains(_validated(Suite, suite_path, data, lines), suite_path)


def _fit(
    path: Path,
    spec: BaseModel,
    lines: dict[Loc, int],
    domains: DomainSet,
    graders: Collection[str] | None = None,
) -> list[Problem]:
    """A goal or persona against its domain; a goal also against the graders its suite
    runs (``graders``: their names; None: checked without a suite)."""
    if isinstance(spec, Goal):
        problems = goal_problems(spec, domains, str(path), lines)
        if graders is not None:
            problems += grading_problems(spec, graders, str(path), lines)
        return problems
    if isinstance(spec, Persona):
        return persona_problems(spec, domains, str(path), lines)
    return []


def _library_fit(
    path: Path,
    suite: Suite,
    domains: DomainSet,
    personas: bool = True,
    goals: bool = True,
    graders: Collection[str] | None = None,
) -> list[Problem]:
    """Each goal and persona of a suite's libraries against the suite's domains, and each
    goal against the graders the suite runs (``graders``; None: its ``grading.graders``)."""
    running = _running(suite, graders)
    problems: list[Problem] = []
    libraries: list[tuple[Sequence[str], type[Persona] | type[Goal]]] = []
    if personas:
        libraries.append((suite.persona_dirs, Persona))
    if goals:
        libraries.append((suite.goal_dirs, Goal))
    for dirs, model in libraries:
        for file in _yaml_files(path.parent / d for d in dirs):
            try:
                data, lines = _mapping(file, _read(file))
                spec = _validated(model, file, data, lines)
            except SpecError:
                continue  # reported with the suite's libraries
            problems.extend(_fit(file, spec, lines, domains, running))
    return problems


def _running(suite: Suite, graders: Collection[str] | None) -> Collection[str]:
    # the built-ins when the suite lists none: they check no tool policy and no agency
    return graders if graders is not None else (suite.grading.graders or ())


def suite_perturbation_dir(suite: Suite, base: Path) -> Path | None:
    """The suite's perturbation library, the first of its ``perturbation_dirs`` that
    exists (relative to ``base``, the suite's folder); None when none does."""
    found = [base / d for d in suite.perturbation_dirs if (base / d).is_dir()]
    return found[0] if found else None


def perturbation_fit(
    path: Path,
    suite: Suite,
    library: Mapping[str, Perturbation],
    folder: Path | str = "the perturbations folder",
    domains: DomainSet | None = None,
) -> list[Problem]:
    """Each persona the suite selects against each perturbation of ``library``.

    A perturbation must have something to say in the persona's language: its
    domain's words for its kind, else its file's (``unspoken``). Reported at the
    persona's ``language:`` line, with the fix.

    Args:
        path: The suite file (its folder holds ``persona_dirs``).
        suite: The suite.
        library: The perturbations the experiment stacks, by id.
        folder: Where they were read from (for messages).
        domains: The suite's domains (None: read from the suite).
    """
    if not library:
        return []
    domains = domains if domains is not None else suite_domains(suite, path)
    dirs = [path.parent / d for d in suite.persona_dirs]
    try:
        selected = set(select(suite.personas, load_library(Persona, dirs), "personas"))
    except SpecError:
        return []  # reported with the suite's selection
    problems: list[Problem] = []
    for file in _yaml_files(dirs):
        try:
            data, lines = _mapping(file, _read(file))
            persona = _validated(Persona, file, data, lines)
        except SpecError:
            continue  # reported with the suite's libraries
        domain = domains.of(persona.domain)
        if persona.id not in selected or domain is None:
            continue
        if persona.language not in domain.languages:
            continue  # persona_problems says so
        line = _line_for(("language",), lines)
        for why in unspoken_perturbations(library, domain, persona.language, str(folder)):
            problems.append(Problem(str(file), line, "language", why))
    return problems


def _suite_selection(path: Path, suite: Suite, lines: dict[Loc, int]) -> list[Problem]:
    """What ``simlab run`` would refuse: a library that does not load, a pattern matching none."""
    problems: list[Problem] = []
    for what, dirs, patterns, model in (
        ("personas", suite.persona_dirs, suite.personas, Persona),
        ("goals", suite.goal_dirs, suite.goals, Goal),
    ):
        try:
            library = load_library(model, [path.parent / d for d in dirs])
        except SpecError as e:
            problems.extend(e.problems)
            continue
        try:
            select(patterns, library, what)
        except SpecError as e:  # select names no file: its patterns are this suite's
            line = _line_for((what,), lines)
            problems.extend(Problem(str(path), line, what, p.message) for p in e.problems)
    return problems


def _target_problems(path: Path, suite: Suite, lines: dict[Loc, int]) -> list[Problem]:
    """A Python target whose module or function is not where ``simlab run`` will look."""
    target = suite.target
    if target.kind != "callable":
        return []
    line = _line_for(("target", "ref"), lines)  # the short form: the line of `target`
    return callable_target_problems(path, target.ref, line)


def run_warnings(
    suite: Suite, suite_path: Path | None, base: Path, goal_ids: Collection[str]
) -> list[Problem]:
    """What ``simlab run`` warns about before it starts, at the line: each check the
    suite's grading, or a running goal's (``goal_ids``), waives."""
    warnings: list[Problem] = []
    if suite_path is not None:
        data, lines = _mapping(suite_path, _read(suite_path))
        warnings.extend(
            waiver_warnings(_validated(Suite, suite_path, data, lines), str(suite_path), lines)
        )
    else:
        warnings.extend(waiver_warnings(suite, "suite (built in code)"))
    for file in _yaml_files(base / d for d in suite.goal_dirs):
        try:
            data, lines = _mapping(file, _read(file))
            goal = _validated(Goal, file, data, lines)
        except SpecError:
            continue  # the run reads its goals itself, and says what is wrong
        if goal.id in goal_ids:
            warnings.extend(waiver_warnings(goal, str(file), lines))
    return warnings


def validate_paths(paths: Sequence[Path]) -> tuple[int, list[Problem]]:
    """Check every spec file under ``paths``: (files checked, problems found)."""
    result = validate_specs(paths)
    return len(spec_files(paths)), result.problems


def check_fit(
    suite: Suite,
    base: Path,
    personas: Mapping[str, Persona] | None = None,
    goals: Mapping[str, Goal] | None = None,
    suite_path: Path | None = None,
    graders: Collection[str] | None = None,
) -> DomainSet:
    """The suite's domains, once every goal and persona it runs is shown to fit them.

    Args:
        suite: The suite; its ``domains`` are read relative to ``base``.
        base: The suite file's folder.
        personas: Personas given in place of the suite's ``persona_dirs`` (checked
            without lines); None checks the files of ``persona_dirs``.
        goals: The same for goals and ``goal_dirs``.
        suite_path: The suite file (for messages), None for a suite built in code.
        graders: The names of the graders the run runs, when given in place of the
            suite's ``grading.graders``: a goal's tool policy or agency must have its grader.

    Raises:
        SpecError: every goal or persona that does not fit its domain (file:line,
            field, fix), a persona in whose language a perturbation of the suite's
            brittleness experiment has nothing to say, or a domain that does not load.
    """
    where = suite_path or base / "suite (built in code)"
    domains = load_domains(suite.domains, base, where)
    problems: list[Problem] = []
    if personas is None or goals is None:
        problems.extend(
            _library_fit(where, suite, domains, personas is None, goals is None, graders)
        )
    shelf = suite_perturbation_dir(suite, base) if "brittleness" in suite.experiments else None
    if personas is None and shelf is not None:  # the experiment runs after the sessions
        problems.extend(perturbation_fit(where, suite, load_perturbations([shelf]), shelf, domains))
    for given in (personas, goals):
        for item_id, spec in (given or {}).items():
            kind = "persona" if isinstance(spec, Persona) else "goal"
            running = _running(suite, graders)
            problems.extend(_fit(Path(f"{kind} {item_id!r}"), spec, {}, domains, running))
    if problems:
        raise SpecError(list(dict.fromkeys(problems)))
    return domains

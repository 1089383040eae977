"""Read a domain folder into one ``Domain``, and check goals and personas against it.

Every problem names the file, the line, the field and the fix, as the other
spec files' problems do; all of a folder's problems are raised together.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from frozendict import frozendict

from simlab.spec._domain import Domain, DomainFile, DomainSlot, DomainTool
from simlab.spec._fixture_results import result_problems, shadowed_fixtures
from simlab.spec._loader import Loc, Problem, SpecError, _line_for, _mapping, _read, _validated
from simlab.spec._models import FactValue, Goal, Persona, Suite
from simlab.spec._shipped import shipped_dir

DOMAIN_FILE = "domain.yaml"
"""The file of a domain folder that names it (``id:``); its other ``*.yaml`` files add to it."""

DEFAULT_DOMAIN = "travel"
"""The domain a suite uses when it names none (the shipped travel domain)."""


@dataclass(frozen=True, slots=True)
class _Part:
    path: Path
    spec: DomainFile
    lines: dict[Loc, int]

    def at(self, *loc: int | str) -> int | None:
        return _line_for(tuple(loc), self.lines)


def domain_files(folder: Path) -> list[Path]:
    """The YAML files of a domain folder, ``domain.yaml`` first."""
    files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    return sorted(files, key=lambda p: p.name != DOMAIN_FILE)


@cache
def shipped_domain(name: str = DEFAULT_DOMAIN) -> Domain:
    """A domain simlab ships (read once per process).

    Raises:
        SpecError: there is no such shipped domain.
    """
    return load_domain(shipped_dir("domains") / name)


def load_domain(path: str | Path) -> Domain:
    """Read a domain folder (or its ``domain.yaml``) into one checked ``Domain``.

    Raises:
        SpecError: every problem of every file, each with file:line, field and fix.
    """
    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    if not folder.is_dir():
        why = "no such domain folder; a domain is a folder holding domain.yaml"
        raise SpecError([Problem(str(folder), None, "", why)])
    parts: list[_Part] = []
    problems: list[Problem] = []
    for file in domain_files(folder):
        try:
            data, lines = _mapping(file, _read(file))
            parts.append(_Part(file, _validated(DomainFile, file, data, lines), lines))
        except SpecError as e:
            problems.extend(e.problems)
    if problems:
        raise SpecError(problems)
    domain, problems = _merged(folder, parts)
    if problems:
        raise SpecError(problems)
    return domain


def _merged(folder: Path, parts: Sequence[_Part]) -> tuple[Domain, list[Problem]]:
    problems: list[Problem] = []
    named = [p for p in parts if p.spec.id is not None]
    head = folder / DOMAIN_FILE
    if not named:
        problems.append(Problem(str(head), None, "id", f"no domain id; add `id: {folder.name}`"))
    for extra in named[1:]:
        problems.append(
            Problem(
                str(extra.path),
                extra.at("id"),
                "id",
                f"the domain is already named in {named[0].path}; keep `id:` in {DOMAIN_FILE} only",
            )
        )
    languages: dict[str, Any] = {}
    slots: dict[str, Any] = {}
    intents: dict[str, Any] = {}
    tools: dict[str, Any] = {}
    stages: dict[str, Any] = {}
    where: dict[tuple[str, str], tuple[_Part, Loc]] = {}
    for part in parts:
        for lang, speech in part.spec.languages.items():
            _add(languages, where, problems, part, ("languages", lang), lang, speech)
        for i, slot in enumerate(part.spec.slots):
            _add(slots, where, problems, part, ("slots", i, "name"), slot.name, slot)
        for i, intent in enumerate(part.spec.intents):
            _add(intents, where, problems, part, ("intents", i, "tool"), intent.tool, intent)
        for i, tool in enumerate(part.spec.tools):
            _add(tools, where, problems, part, ("tools", i, "name"), tool.name, tool)
        for i, stage in enumerate(part.spec.stages):
            _add(stages, where, problems, part, ("stages", i, "name"), stage.name, stage)
    first = named[0].spec if named else DomainFile()
    domain = Domain(
        id=first.id or folder.name,
        title=first.title,
        description=first.description,
        languages=languages,
        slots=list(slots.values()),
        intents=list(intents.values()),
        tools=list(tools.values()),
        stages=list(stages.values()),
        folder=str(folder),
    )
    problems.extend(_coherence(domain, where, head))
    return domain, problems


def _add(
    into: dict[str, Any],
    where: dict[tuple[str, str], tuple[_Part, Loc]],
    problems: list[Problem],
    part: _Part,
    loc: Loc,
    name: str,
    item: Any,
) -> None:
    kind = str(loc[0])
    if name in into:
        first, _ = where[(kind, name)]
        problems.append(
            Problem(
                str(part.path),
                part.at(*loc),
                ".".join(map(str, loc)),
                f"{kind[:-1]} {name!r} is already declared in {first.path}; declare it once",
            )
        )
        return
    into[name] = item
    where[(kind, name)] = (part, loc)


def _coherence(
    domain: Domain, where: Mapping[tuple[str, str], tuple[_Part, Loc]], head: Path
) -> list[Problem]:
    """What no single file can show: languages, intents and tools that miss each other,
    and fixture results that miss their tool's ``returns``."""
    problems: list[Problem] = []
    spoken = sorted(domain.languages)
    if not spoken:
        why = "the domain speaks no language; add `languages: {en: {confirm_cues, phrases}}`"
        problems.append(Problem(str(head), None, "languages", why))

    def problem(kind: str, name: str, rest: Loc, message: str) -> None:
        part, loc = where[(kind, name)]
        full = (*loc[:-1], *rest) if rest else loc
        problems.append(Problem(str(part.path), part.at(*full), ".".join(map(str, full)), message))

    for slot in domain.slots:
        for lang in sorted(set(slot.say) - set(spoken)):
            problem("slots", slot.name, ("say", lang), _unspoken(lang, spoken))
        for lang in sorted(set(spoken) - set(slot.say)):
            problem(
                "slots",
                slot.name,
                ("say",),
                f"slot {slot.name!r} has no {lang!r} phrasings; add say.{lang}.state "
                f"(the domain speaks {', '.join(spoken)})",
            )
    for slot in domain.slots:
        for i, other in enumerate(slot.asked_with):
            if domain.slot(other) is None or other == slot.name:
                problem(
                    "slots",
                    slot.name,
                    ("asked_with", i),
                    f"{other!r} is not another declared slot; use one of: "
                    f"{', '.join(s.name for s in domain.slots if s.name != slot.name)}",
                )
    tool_names = sorted(t.name for t in domain.tools)
    for tool in domain.tools:
        for i, needed in enumerate(tool.requires):
            if domain.tool(needed) is None or needed == tool.name:
                problem(
                    "tools",
                    tool.name,
                    ("requires", i),
                    f"required tool {needed!r} is not another declared tool; use one of: "
                    f"{', '.join(n for n in tool_names if n != tool.name) or '(none declared)'}",
                )
        for rest, message in _lookup_problems(domain, tool):
            problem("tools", tool.name, rest, message)
        for rest, message in [*result_problems(tool), *shadowed_fixtures(tool)]:
            problem("tools", tool.name, rest, message)
    for intent in domain.intents:
        if domain.tool(intent.tool) is None:
            problem(
                "intents",
                intent.tool,
                (),
                f"intent's tool {intent.tool!r} is not a declared tool; declare it under "
                f"`tools:` or use one of: {', '.join(tool_names) or '(none declared)'}",
            )
        for lang in sorted(set(intent.openings) - set(spoken)):
            problem("intents", intent.tool, ("openings", lang), _unspoken(lang, spoken))
        for lang in sorted(set(spoken) - set(intent.openings)):
            problem(
                "intents",
                intent.tool,
                ("openings",),
                f"intent {intent.tool!r} has no {lang!r} opening; add openings.{lang}",
            )
    return problems


def _lookup_problems(domain: Domain, tool: DomainTool) -> list[tuple[Loc, str]]:
    """A tool's ``lookups`` and ``limits`` naming tools, slots or fields that do not exist."""
    out: list[tuple[Loc, str]] = []
    slots = sorted(s.name for s in domain.slots)
    params = sorted((tool.parameters.get("properties") or {}).keys())
    earlier: dict[str, list[str]] = {
        name: found.fields() for name in tool.requires if (found := domain.tool(name))
    }

    def source(loc: Loc, value: str) -> None:
        if "." not in value:
            if domain.slot(value) is None:
                out.append((loc, f"{value!r} is no slot; use one of: {', '.join(slots)}"))
            return
        name, field_ = value.split(".", 1)
        if name not in earlier:
            known = ", ".join(earlier) or "(none)"
            out.append((loc, f"{name!r} is not a tool looked up before; use one of: {known}"))
        elif field_ not in earlier[name]:
            out.append((loc, _no_field(name, field_, earlier[name])))

    for i, lookup in enumerate(tool.lookups):
        at: Loc = ("lookups", i)
        read = domain.tool(lookup.tool)
        if read is None or read.name == tool.name:
            names = ", ".join(t.name for t in domain.tools if t.name != tool.name)
            out.append(
                (
                    (*at, "tool"),
                    f"{lookup.tool!r} is not another declared tool; use one of: {names}",
                )
            )
            continue
        theirs = sorted((read.parameters.get("properties") or {}).keys())
        for arg, value in lookup.args.items():
            if arg not in theirs:
                out.append(
                    (
                        (*at, "args", arg),
                        f"{arg!r} is no parameter of {read.name}; use one of: {', '.join(theirs)}",
                    )
                )
            source((*at, "args", arg), value)
        fields = read.fields()
        for arg, field_ in lookup.pick.items():
            if arg not in params:
                out.append(
                    (
                        (*at, "pick", arg),
                        f"{arg!r} is no parameter of {tool.name}; use one of: {', '.join(params)}",
                    )
                )
            if field_ not in fields:
                out.append(((*at, "pick", arg), _no_field(read.name, field_, fields)))
        for j, test in enumerate(lookup.where):
            if test.field not in fields:
                out.append(((*at, "where", j, "field"), _no_field(read.name, test.field, fields)))
            for value in [test.value] if isinstance(test.value, str) else test.value:
                source((*at, "where", j, "value"), value)
        for j, key in enumerate(lookup.order_by):
            for field_, weight in ({key: ""} if isinstance(key, str) else key).items():
                if field_ not in fields:
                    out.append(((*at, "order_by", j), _no_field(read.name, field_, fields)))
                if weight:
                    source((*at, "order_by", j, field_), weight)
        earlier.setdefault(read.name, fields)
    for i, limit in enumerate(tool.limits):
        if domain.slot(limit.slot) is None:
            out.append(
                (
                    ("limits", i, "slot"),
                    f"{limit.slot!r} is no slot; use one of: {', '.join(slots)}",
                )
            )
        if limit.field not in tool.fields():
            out.append((("limits", i, "field"), _no_field(tool.name, limit.field, tool.fields())))
    return out


def _no_field(tool: str, field_: str, fields: Sequence[str]) -> str:
    return (
        f"{field_!r} is no field of {tool}'s result; declare it in its `returns` "
        f"or use one of: {', '.join(fields) or '(none)'}"
    )


def _unspoken(lang: str, spoken: Sequence[str]) -> str:
    return (
        f"language {lang!r} is not one the domain speaks ({', '.join(spoken)}); "
        f"add it under `languages:` or remove these phrasings"
    )


# ------------------------------------------------------------------ a suite's domains


@dataclass(frozen=True, slots=True)
class DomainSet:
    """The domains a suite's goals and personas may name, and the one they default to."""

    domains: Mapping[str, Domain]
    default: str
    folders: Mapping[str, Path] = field(default_factory=frozendict)
    """Each domain's folder, by id (its files are part of a run's configuration)."""

    def of(self, name: str | None) -> Domain | None:
        """The domain ``name`` (the default when None), if the set has it."""
        return self.domains.get(name or self.default)


def resolve_domain(entry: str, base: Path) -> Path | None:
    """A suite's ``domains`` entry as a folder: relative to ``base``, else a shipped domain."""
    own = base / entry
    if own.is_dir() or own.is_file():
        return own
    if re.fullmatch(r"[a-z][a-z0-9_]*", entry):
        shipped = shipped_dir("domains") / entry
        if shipped.is_dir():
            return shipped
    return None


def load_domains(entries: Iterable[str], base: Path, where: Path | None = None) -> DomainSet:
    """The domains ``entries`` name (folders relative to ``base`` or shipped names).

    Args:
        entries: A suite's ``domains``; the first is the default domain.
        base: The folder relative paths start from (the suite file's).
        where: The suite file, for messages.

    Raises:
        SpecError: an entry that names no domain, a domain with problems, or two
            domains with one id.
    """
    domains: dict[str, Domain] = {}
    folders: dict[str, Path] = {}
    problems: list[Problem] = []
    entries = list(entries)
    for i, entry in enumerate(entries):
        folder = resolve_domain(entry, base)
        if folder is None:
            shown = str(where) if where is not None else str(base / entry)
            why = (
                f"domain {entry!r} not found: give a folder holding {DOMAIN_FILE} (relative "
                f"to the suite file) or a shipped domain's name ({', '.join(shipped_domains())})"
            )
            problems.append(Problem(shown, _suite_line(where, ("domains", i)), "domains", why))
            continue
        try:
            shipped = folder.parent == shipped_dir("domains") and folder.name == entry
            domain = shipped_domain(entry) if shipped else load_domain(folder)
        except SpecError as e:
            problems.extend(e.problems)
            continue
        if domain.id in domains:
            why = f"two domains named {domain.id!r} ({folders[domain.id]}, {folder}); rename one"
            problems.append(Problem(str(where or folder), None, "domains", why))
            continue
        domains[domain.id] = domain
        folders[domain.id] = folder.parent if folder.is_file() else folder
    if problems:
        raise SpecError(problems)
    default = next(iter(domains)) if domains else DEFAULT_DOMAIN
    return DomainSet(frozendict(domains), default, frozendict(folders))


def _suite_line(suite: Path | None, loc: Loc) -> int | None:
    """The line of ``loc`` in the suite file (for a message), None when it cannot be read."""
    if suite is None or not suite.is_file():
        return None
    try:
        return _line_for(loc, _mapping(suite, _read(suite))[1])
    except SpecError:
        return None


def shipped_domains() -> list[str]:
    """The names of the domains simlab ships (``travel``...)."""
    root = shipped_dir("domains")
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / DOMAIN_FILE).is_file())


def suite_domains(suite: Suite, suite_path: Path) -> DomainSet:
    """The domains a suite names (its ``domains``), read and checked."""
    return load_domains(suite.domains, suite_path.parent, suite_path)


# ------------------------------------------------------------------ goals and personas


def value_problem(slot: DomainSlot, value: FactValue) -> str | None:
    """Why ``value`` is not a value of ``slot``'s type; None when it is."""
    t = slot.type
    if t == "integer" and (not isinstance(value, int) or isinstance(value, bool)):
        return f"{slot.name} is an integer slot: write a whole number (got {value!r})"
    if t in ("number", "money") and not _is_number(value):
        unit = f" in {slot.currency}" if slot.currency else ""
        return f"{slot.name} is a {t} slot: write a number{unit} (got {value!r})"
    if t == "date" and not _is_date(value):
        return f"{slot.name} is a date slot: write YYYY-MM-DD in quotes (got {value!r})"
    if t == "time" and not _is_time(value):
        return f"{slot.name} is a time slot: write HH:MM in quotes, 24-hour (got {value!r})"
    if t == "enum" and slot.value(str(value)) is None:
        known = ", ".join(v.value for v in slot.values)
        return f"{slot.name} takes one of: {known} (got {value!r})"
    if t == "identifier":
        if not isinstance(value, str) or not value.strip():
            return f"{slot.name} is an identifier slot: write it as text (got {value!r})"
        if slot.pattern is not None and not re.fullmatch(slot.pattern, value):
            return f"{slot.name} must match {slot.pattern!r} (got {value!r})"
    if t == "text" and not isinstance(value, str):
        return f"{slot.name} is a text slot: write it as text, in quotes (got {value!r})"
    return None


def _is_number(value: FactValue) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    try:
        float(value)
    except ValueError:
        return False
    return True


def _is_date(value: FactValue) -> bool:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_time(value: FactValue) -> bool:
    return isinstance(value, str) and re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", value) is not None


def goal_problems(
    goal: Goal, domains: DomainSet, file: str, lines: Mapping[Loc, int] | None = None
) -> list[Problem]:
    """What in ``goal`` its domain does not have: a slot, a value's type, an intent, a field."""
    lines = lines or {}

    def at(*loc: int | str) -> int | None:
        return _line_for(tuple(loc), dict(lines))

    domain = domains.of(goal.domain)
    if domain is None:
        return [_unknown_domain(goal.domain or domains.default, domains, file, at("domain"))]
    problems: list[Problem] = []
    slots = {s.name: s for s in domain.slots}
    for i, fact in enumerate(goal.facts):
        slot = slots.get(fact.slot)
        if slot is None:
            problems.append(
                Problem(
                    file,
                    at("facts", i, "slot"),
                    f"facts.{i}.slot",
                    f"unknown slot {fact.slot!r} in domain {domain.id!r}; use one of: "
                    f"{', '.join(slots)} (or declare it in {domain.folder})",
                )
            )
            continue
        why = value_problem(slot, fact.value)
        if why is not None:
            problems.append(Problem(file, at("facts", i, "value"), f"facts.{i}.value", why))
    by_fact = {f.id: f.slot for f in goal.facts}
    for i, change in enumerate(goal.mind_changes):
        slot = slots.get(by_fact.get(change.fact, ""))
        why = value_problem(slot, change.value) if slot is not None else None
        if why is not None:
            loc = ("mind_changes", i, "value")
            problems.append(Problem(file, at(*loc), ".".join(map(str, loc)), why))
    intent = domain.intent(goal.final_tool)
    if intent is None:
        intents = ", ".join(i.tool for i in domain.intents)
        problems.append(
            Problem(
                file,
                at("final_tool"),
                "final_tool",
                f"{goal.final_tool!r} is not an intent of domain {domain.id!r}; use one of: "
                f"{intents} (or add an intent for it in {domain.folder})",
            )
        )
    tool = domain.tool(goal.final_tool)
    if tool is not None:
        problems.extend(_unheld_slots(goal, domain, file, at("final_tool")))
        shown = tool.fields()
        for i, c in enumerate(goal.constraints):
            if c.field not in shown:
                problems.append(
                    Problem(
                        file,
                        at("constraints", i, "field"),
                        f"constraints.{i}.field",
                        f"no {c.field!r} in what {tool.name} takes or returns; use one of: "
                        f"{', '.join(shown)} (or add it to the tool's `returns` in "
                        f"{domain.folder})",
                    )
                )
        for i, name in enumerate(goal.confirm_fields):  # a typo made the check vacuous
            if name not in shown:
                problems.append(
                    Problem(
                        file,
                        at("confirm_fields", i),
                        f"confirm_fields.{i}",
                        f"no {name!r} in what {tool.name} takes or returns, so no reply "
                        f"could be held to state it; use one of: {', '.join(shown)} (or add "
                        f"it to the tool's `returns` in {domain.folder})",
                    )
                )
    known = {t.name for t in domain.tools}
    named: list[tuple[tuple[str | int, ...], str]] = [
        *((("expected_tools", i), n) for i, n in enumerate(goal.expected_tools)),
        *((("must_call", i), n) for i, n in enumerate(goal.must_call)),
        *((("must_not_call", i), n) for i, n in enumerate(goal.must_not_call)),
        *((("allowed_tools", i), n) for i, n in enumerate(goal.allowed_tools or [])),
        *((("agency", n), n) for n in goal.agency),
    ]
    for where, name in named:
        if name not in known:
            problems.append(
                Problem(
                    file,
                    at(*where),
                    ".".join(map(str, where)),
                    f"{name!r} is not a tool of domain {domain.id!r}; tools: "
                    f"{', '.join(sorted(known))}",
                )
            )
    return sorted(problems, key=lambda p: p.line or 0)


def _unheld_slots(goal: Goal, domain: Domain, file: str, line: int | None) -> list[Problem]:
    """Slots the final tool (or a tool it requires) needs that no fact of the goal holds.

    A slot the call needs (``Domain.slots_needed``, as the reference agent asks) is
    asked of the user; a goal without a fact for it has a user who can only answer
    "I don't have that", so every session of the goal fails. A slot with a
    ``none_value`` is answered with it.
    """
    held = {f.slot for f in goal.facts}
    missing = {
        name: tool
        for name, tool in domain.slots_needed(goal.final_tool).items()
        if name not in held and _none_value(domain, name) is None
    }
    return [
        Problem(
            file,
            line,
            "facts",
            f"{tool} needs {name!r}, a slot of domain {domain.id!r}, but no fact of the goal "
            f"holds it, so the user cannot answer when asked and every session fails; add "
            f"`- {{id: {name}, slot: {name}, value: ...}}` to facts",
        )
        for name, tool in missing.items()
    ]


def _none_value(domain: Domain, slot: str) -> object:
    found = domain.slot(slot)
    return None if found is None else found.none_value


def persona_problems(
    persona: Persona, domains: DomainSet, file: str, lines: Mapping[Loc, int] | None = None
) -> list[Problem]:
    """A persona whose domain is unknown, or whose language that domain does not speak."""
    at = _line_for(("language",), dict(lines or {}))
    domain = domains.of(persona.domain)
    if domain is None:
        line = _line_for(("domain",), dict(lines or {}))
        return [_unknown_domain(persona.domain or domains.default, domains, file, line)]
    if persona.language not in domain.languages:
        spoken = ", ".join(sorted(domain.languages))
        why = (
            f"domain {domain.id!r} has no phrasings in {persona.language!r}; use one of: "
            f"{spoken} (or add the language to {domain.folder})"
        )
        return [Problem(file, at, "language", why)]
    return []


def _unknown_domain(name: str, domains: DomainSet, file: str, line: int | None) -> Problem:
    known = ", ".join(sorted(domains.domains)) or "(none)"
    return Problem(
        file,
        line,
        "domain",
        f"unknown domain {name!r}; known domains: {known} (add its folder to the suite's "
        "`domains`)",
    )

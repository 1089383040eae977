"""Load YAML specs into pydantic models, reporting every problem with file:line.

A file with several mistakes gets one message listing all of them, each naming
the file, the line, the field, what is wrong and how to fix it.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from simlab.spec._models import Goal, Persona, Suite

M = TypeVar("M", bound=BaseModel)
Loc = tuple[int | str, ...]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in one spec file."""

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )


class SpecError(Exception):
    """One or more spec files are invalid; ``problems`` lists every one."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


# ----------------------------------------------------------------- YAML with lines


def _compose(text: str) -> tuple[Any, dict[Loc, int]]:
    """Parse YAML, returning the data and a map from each path to its 1-based line."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    lines: dict[Loc, int] = {}
    if node is None:
        return None, lines
    data = yaml.SafeLoader(text).construct_document(node)
    _walk(node, (), lines)
    return data, lines


def _walk(node: yaml.Node, loc: Loc, lines: dict[Loc, int]) -> None:
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            lines[(*loc, key)] = key_node.start_mark.line + 1
            _walk(value_node, (*loc, key), lines)
            lines[(*loc, key)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, (*loc, i), lines)


def _line_for(loc: Loc, lines: dict[Loc, int]) -> int | None:
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


# ----------------------------------------------------------------- messages


def _model_at(model: type[BaseModel], loc: Loc) -> type[BaseModel] | None:
    """The pydantic model class that holds the field at ``loc`` (its parent).

    ``loc`` is pydantic's, union tags included: a tag picks the union's member
    whose ``kind`` it is (a target's fields are those of its own kind).
    """
    current: Any = model
    parts = list(loc[:-1])
    for i, part in enumerate(parts):
        if isinstance(part, int) or part in _UNION_TAGS:
            continue
        fields = getattr(current, "model_fields", None)
        if fields is None or part not in fields:
            return None
        tag = parts[i + 1] if i + 1 < len(parts) else None
        current = _inner_model(fields[part].annotation, tag if tag in _UNION_TAGS else None)
        if current is None:
            return None
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _inner_model(annotation: Any, tag: Any = None) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    found = [m for arg in typing.get_args(annotation) if (m := _inner_model(arg)) is not None]
    if tag is not None:
        tagged = [
            m for m in found if "kind" in m.model_fields and m.model_fields["kind"].default == tag
        ]
        found = tagged or found
    return found[0] if found else None


def _choices(annotation: Any) -> list[str]:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return [str(a) for a in typing.get_args(annotation)]
    if origin in (typing.Union, types.UnionType) or origin is not None:
        return [c for a in typing.get_args(annotation) for c in _choices(a)]
    if isinstance(annotation, type) and hasattr(annotation, "__members__"):
        return [str(m.value) for m in annotation.__members__.values()]
    return []


def _describe(model: type[BaseModel], err: Any) -> tuple[str, str]:
    loc: Loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p in _UNION_TAGS))
    field = ".".join(str(p) for p in loc)
    parent = _model_at(model, tuple(err["loc"]))
    name = loc[-1] if loc else ""
    kind = err["type"]
    if kind == "extra_forbidden" and parent is not None:
        valid = sorted(parent.model_fields)
        close = difflib.get_close_matches(str(name), valid, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return field, f"unknown field{hint}; valid fields: {', '.join(valid)}"
    if kind == "missing":
        choices = _choices(parent.model_fields[str(name)].annotation) if parent else []
        extra = f"; valid choices: {', '.join(choices)}" if choices else ""
        return field, f"missing required field; add `{name}:`{extra}"
    got = err.get("input")
    shown = f" (got {got!r})" if not isinstance(got, dict | list) and got is not None else ""
    msg = str(err["msg"])
    if parent is not None and isinstance(name, str) and name in parent.model_fields:
        choices = _choices(parent.model_fields[name].annotation)
        if choices and kind not in ("literal_error", "enum"):
            msg += f"; valid choices: {', '.join(choices)}"
    return field, f"{msg}{shown}"


_UNION_TAGS = {
    "reference",
    "callable",
    "llm",
    "http",
    "anthropic_http",
    "scripted",
    "str",
    "int",
    "list[str]",
}


def parse_model(model: type[M], path: Path, text: str | None = None) -> M:
    """Read ``path`` as one ``model``; raise ``SpecError`` listing every problem."""
    shown = str(path)
    data, lines = _mapping(path, _read(path) if text is None else text)
    try:
        return model.model_validate(data)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            field, message = _describe(model, err)
            problems.append(Problem(shown, _line_for(tuple(err["loc"]), lines), field, message))
        raise SpecError(sorted(problems, key=lambda p: p.line or 0)) from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except IsADirectoryError:
        why = "is a folder; give a spec file, or the folder itself to check its files"
        raise SpecError([Problem(str(path), None, "", why)]) from None
    except OSError as e:
        raise SpecError([Problem(str(path), None, "", f"cannot read file: {e.strerror}")]) from None
    except UnicodeDecodeError as e:
        why = f"not UTF-8 text (byte {e.start}); save it as UTF-8 YAML"
        raise SpecError([Problem(str(path), None, "", why)]) from None


def _mapping(path: Path, text: str) -> tuple[dict[str, Any], dict[Loc, int]]:
    """The YAML mapping in ``text`` and the line of each path in it."""
    try:
        data, lines = _compose(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        raise SpecError([Problem(str(path), line, "", f"invalid YAML: {e.problem}")]) from None
    if not isinstance(data, dict):
        why = f"expected a mapping of fields, got {_kind(data)}"
        raise SpecError([Problem(str(path), 1, "", why)])
    return data, lines


def _kind(data: Any) -> str:
    return "nothing" if data is None else type(data).__name__


# ----------------------------------------------------------------- libraries


def _yaml_files(dirs: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for d in dirs:
        if d.is_file():
            files.append(d)
        elif d.is_dir():
            files.extend(sorted(p for p in d.iterdir() if p.suffix in (".yaml", ".yml")))
    return files


def load_library(model: type[M], dirs: Iterable[Path]) -> dict[str, M]:
    """Every ``model`` file under ``dirs``, by id; all problems raised together."""
    found: dict[str, M] = {}
    where: dict[str, Path] = {}
    dirs = list(dirs)
    problems = [
        Problem(
            str(d),
            None,
            "",
            "no such file or folder; check the suite's *_dirs (relative to the suite file)",
        )
        for d in dirs
        if not d.exists()
    ]
    for path in _yaml_files(dirs):
        try:
            item = parse_model(model, path)
        except SpecError as e:
            problems.extend(e.problems)
            continue
        item_id = str(getattr(item, "id"))  # noqa: B009 - every library model has an id
        if item_id in found:
            msg = f"duplicate id {item_id!r}, also defined in {where[item_id]}; ids must be unique"
            problems.append(Problem(str(path), 1, "id", msg))
            continue
        found[item_id] = item
        where[item_id] = path
    if problems:
        raise SpecError(problems)
    return found


def load_suite(path: Path) -> Suite:
    """Read a suite file."""
    return parse_model(Suite, path)


def load_personas(dirs: Iterable[Path]) -> dict[str, Persona]:
    """Every persona under ``dirs``, by id."""
    return load_library(Persona, dirs)


def load_goals(dirs: Iterable[Path]) -> dict[str, Goal]:
    """Every goal under ``dirs``, by id."""
    return load_library(Goal, dirs)

"""Load YAML specs into pydantic models, reporting every problem with file:line.

A file with several mistakes gets one message listing all of them, each naming
the file, the line, the field, what is wrong and how to fix it.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from simlab.spec._models import FieldError, Goal, Persona, Suite
from simlab.spec._yaml import (
    YamlInputError,
    YamlLimits,
    check_size,
    compose_bounded,
    shown_value,
)

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
    """Parse YAML within its limits, returning the data and each path's 1-based line."""
    node, data = compose_bounded(text, YamlLimits.from_env())
    lines: dict[Loc, int] = {}
    if node is None:
        return None, lines
    try:
        _walk(node, (), lines)
    except RecursionError:  # only past a raised SIMLAB_YAML_MAX_DEPTH
        raise YamlInputError(None, "YAML nested too deeply to read; lower its nesting") from None
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


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _mapped(annotation: Any) -> Any:
    """The value type of a mapping annotation (``dict[str, LanguageSpeech]``, also
    under ``Annotated`` or ``| None``), None for any other."""
    origin = typing.get_origin(annotation)
    if origin is dict or origin is Mapping:
        return typing.get_args(annotation)[1]
    if origin is typing.Annotated:
        return _mapped(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        found = [_mapped(a) for a in typing.get_args(annotation)]
        return next((f for f in found if f is not None), None)
    return None


def _choices(annotation: Any) -> list[str]:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return [str(a) for a in typing.get_args(annotation)]
    if origin in (typing.Union, types.UnionType) or origin is not None:
        return [c for a in typing.get_args(annotation) for c in _choices(a)]
    if isinstance(annotation, type) and hasattr(annotation, "__members__"):
        return [str(m.value) for m in annotation.__members__.values()]
    return []


def _clean_loc(model: type[BaseModel], loc: Loc) -> Loc:
    """``loc`` without pydantic's union tags (see ``_resolve``)."""
    return _resolve(model, loc)[0]


def _resolve(model: type[BaseModel], loc: Loc) -> tuple[Loc, type[BaseModel] | None]:
    """``loc`` without pydantic's union tags, and the model holding its last field.

    A suite's ``llm`` field and the ``llm`` tag of its ``target`` union are both
    ``llm``: a part is a tag only where the model reached has no field of that name.
    """
    current: type[BaseModel] | None = model
    parent: type[BaseModel] | None = model
    annotation: Any = model
    out: list[int | str] = []
    for part in loc:
        if isinstance(part, str) and part in _UNION_TAGS:
            member = _tagged_member(annotation, part)
            if member is not None or current is None or part not in current.model_fields:
                current = member or current
                annotation = member or annotation
                continue
        out.append(part)
        if isinstance(part, int):
            continue
        held = _mapped(annotation)
        if held is not None:  # a key of a mapping (``languages.en``): its value's model next
            annotation, current = held, _inner_model(held)
            continue
        parent = current
        field = current.model_fields.get(part) if current is not None else None
        annotation = field.annotation if field is not None else None
        current = _inner_model(annotation) if field is not None else None
    return tuple(out), parent


def _tagged_member(annotation: Any, tag: str) -> type[BaseModel] | None:
    """The model of a discriminated union whose ``kind`` is ``tag``, if there is one."""
    members = [a for a in typing.get_args(annotation) if _inner_model(a) is not None]
    if len(members) < 2:
        return None
    for member in members:
        found = _inner_model(member)
        kind = found.model_fields.get("kind") if found is not None else None
        if kind is not None and kind.default == tag:
            return found
    return None


def _describe(model: type[BaseModel], err: Any) -> tuple[str, str]:
    loc, parent = _resolve(model, tuple(err["loc"]))
    field = ".".join(str(p) for p in loc)
    name = loc[-1] if loc else ""
    kind = err["type"]
    if kind == "extra_forbidden" and parent is not None:
        valid = sorted(parent.model_fields)
        close = difflib.get_close_matches(str(name), valid, n=1)
        shown = ", ".join(valid)
        if close:
            return field, f"unknown field (did you mean {close[0]!r}?); valid fields: {shown}"
        return field, f"unknown field; remove it, or use one of the valid fields: {shown}"
    if kind == "missing":
        missing = parent.model_fields.get(str(name)) if parent else None
        choices = _choices(missing.annotation) if missing is not None else []
        examples = [str(x) for x in (missing.examples or [])] if missing is not None else []
        extra = f"; valid choices: {', '.join(choices)}" if choices else ""
        extra = extra or (f"; for example {', '.join(examples)}" if examples else "")
        return field, f"missing required field; add `{name}:`{extra}"
    got = err.get("input")
    shown = f" (got {_short(got)})" if not isinstance(got, dict | list) and got is not None else ""
    if got is None and "input" in err and isinstance(name, str):  # `key:` with nothing after
        empty = {"list_type": "[]", "dict_type": "{}", "model_type": "{}"}.get(kind)
        fix = f"write `{name}: {empty}` for none, or remove the line" if empty else "give it one"
        shown = f" (got nothing: `{name}:` has no value; {fix})"
    msg = str(err["msg"])
    if parent is not None and isinstance(name, str) and name in parent.model_fields:
        choices = _choices(parent.model_fields[name].annotation)
        if choices and kind not in ("literal_error", "enum"):
            msg += f"; valid choices: {', '.join(choices)}"
    return field, f"{msg}{shown}"


def _located(err: Any) -> Any:
    """A validator's error without pydantic's ``Value error,``, at the field a
    ``FieldError`` names: its line is that field's, not the model's."""
    if err.get("type") != "value_error":
        return err
    msg = str(err["msg"]).removeprefix("Value error, ")
    loc = tuple(err["loc"])
    raised = (err.get("ctx") or {}).get("error")
    if isinstance(raised, FieldError):
        loc += raised.loc
        msg = raised.message
    return {**err, "msg": msg, "loc": loc}


_TUPLE_TAG = re.compile(r"^tuple\[(.+), \.\.\.\]$")
_FROZEN_TAG = re.compile(r"^function-after\[(?:freeze|_frozen_mapping)\(\), (.+)\]$")


def _listed(errors: list[Any]) -> list[Any]:
    """``errors`` as a list's would be (``_as_listed``), without the length error
    pydantic adds for a tuple whose items failed (it counts only the valid ones: a
    list's validation says the items' problems alone)."""
    failed_within = {tuple(e["loc"])[:k] for e in errors for k in range(len(e["loc"]))}
    return [
        _as_listed(e)
        for e in errors
        if not (
            e["type"] == "too_short"
            and str(e["msg"]).startswith("Tuple")
            and tuple(e["loc"]) in failed_within
        )
    ]


def _as_listed(err: Any) -> Any:
    """pydantic's words for a frozen field as the YAML's: a ``tuple[X, ...]`` field is
    the list written (``list_type``, "List should have..."), and a frozen mapping's
    union tag is its dict's, so a message reads as it does for a list or a dict."""
    loc = tuple(_plain_tag(p) if isinstance(p, str) else p for p in err["loc"])
    kind, msg, ctx = err["type"], str(err["msg"]), err.get("ctx")
    if kind == "tuple_type":
        kind, msg = "list_type", "Input should be a valid list"
    elif kind in ("too_short", "too_long") and msg.startswith("Tuple should"):
        msg = "List" + msg.removeprefix("Tuple")
        ctx = {**ctx, "field_type": "List"} if ctx else ctx
    out = {**err, "type": kind, "loc": loc, "msg": msg}
    if ctx is not None:
        out["ctx"] = ctx
    return out


def _plain_tag(part: str) -> str:
    frozen = _FROZEN_TAG.match(part)
    part = frozen.group(1) if frozen else part
    listed = _TUPLE_TAG.match(part)
    return f"list[{listed.group(1)}]" if listed else part


def _short(value: Any) -> str:
    if isinstance(value, int) and value.bit_length() > 64:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    return shown_value(value)


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


MAX_PROBLEMS = 100
"""Problems listed per file: past that, one line says how many more there are."""


def parse_model(model: type[M], path: Path, text: str | None = None) -> M:
    """Read ``path`` as one ``model``; raise ``SpecError`` listing every problem."""
    data, lines = _mapping(path, _read(path) if text is None else text)
    return _validated(model, path, data, lines)


def _validated(model: type[M], path: Path, data: dict[str, Any], lines: dict[Loc, int]) -> M:
    """``data`` read from ``path`` as one ``model``; raise ``SpecError`` listing every problem."""
    shown = str(path)
    try:
        return model.model_validate(data)
    except ValidationError as e:
        problems = []
        errors = _listed(e.errors())
        for err in map(_located, errors[:MAX_PROBLEMS]):
            field, message = _describe(model, err)
            line = _line_for(_clean_loc(model, tuple(err["loc"])), lines)
            problems.append(Problem(shown, line, field, message))
        problems.sort(key=lambda p: p.line or 0)
        if len(errors) > MAX_PROBLEMS:
            more = f"and {len(errors) - MAX_PROBLEMS} more problems; fix these and validate again"
            problems.append(Problem(shown, None, "", more))
        raise SpecError(problems) from None


def _read(path: Path) -> str:
    try:
        if path.is_file():  # not a FIFO or device, whose size says nothing
            check_size(path.stat().st_size, YamlLimits.from_env())
        return path.read_text(encoding="utf-8")
    except YamlInputError as e:
        raise SpecError([Problem(str(path), e.line, "", e.message)]) from None
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
    except YamlInputError as e:
        raise SpecError([Problem(str(path), e.line, "", e.message)]) from None
    except yaml.YAMLError as e:  # unmarked: say what PyYAML says, never a traceback
        raise SpecError([Problem(str(path), None, "", f"invalid YAML: {e}")]) from None
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

"""JSON Schemas of tool arguments, checked and enforced by the ``jsonschema`` library.

A tool's ``parameters`` is checked once, when the agent file loads, against the
Draft 2020-12 meta-schema (with its formats, so a bad ``pattern`` regex is
caught), plus what a validator would otherwise let through silently: a
``$ref`` that points nowhere or outside the schema, and a ``format`` the
installed checkers cannot assert. Arguments a model sends are then validated
with every keyword (``minimum``, ``pattern``, ``oneOf``, ``$ref``, ``format``...).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from simlab.spec._yaml import as_written

_FORMATS = Draft202012Validator.FORMAT_CHECKER


def _is_array(checker: Any, instance: Any) -> bool:
    return isinstance(instance, list | tuple)


# simlab's values are frozen: a call's list argument may be a tuple, an object a
# frozendict (a dict, as jsonschema wants)
_Validator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("array", _is_array),
)
# the meta-schema's parts name their own draft, so jsonschema checks them with its own
# class: a schema is checked as written (``as_written``), its arrays lists
_META = Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=_FORMATS)
_BASE_URI = "urn:simlab:tool-parameters"

# keywords whose value is a schema, a list of schemas, or a mapping of name -> schema
_ONE: tuple[str, ...] = ("items", "additionalProperties", "unevaluatedProperties")
_ONE += ("unevaluatedItems", "contains", "propertyNames", "not", "if", "then", "else")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def schema_problems(schema: Any, where: str = "") -> list[str]:
    """Why ``schema`` is not a JSON Schema (Draft 2020-12) simlab can enforce; empty if it is.

    Each problem starts with its path inside the schema, after ``where``.
    """
    if not isinstance(schema, dict):
        return [_said(where, "must be a mapping")]
    schema = as_written(schema)
    problems = [
        _said(_dotted(where, *e.absolute_path), _message(e)) for e in _META.iter_errors(schema)
    ]
    resolver = (
        Registry()
        .with_resource(_BASE_URI, Resource.from_contents(schema, default_specification=DRAFT202012))
        .resolver(base_uri=_BASE_URI)
    )
    for path, sub in _subschemas(schema, where):
        ref = sub.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith("#"):
                problems.append(
                    _said(
                        _dotted(path, "$ref"),
                        f"{ref!r} is outside the schema; only references inside it "
                        "resolve (for example #/$defs/NAME)",
                    )
                )
            else:
                try:
                    resolver.lookup(ref)
                except Unresolvable:
                    problems.append(_said(_dotted(path, "$ref"), f"{ref!r} points to nothing"))
        fmt = sub.get("format")
        if isinstance(fmt, str) and fmt not in _FORMATS.checkers:
            problems.append(
                _said(
                    _dotted(path, "format"),
                    f"{fmt!r} cannot be checked here (checked: "
                    f"{', '.join(sorted(_FORMATS.checkers))}); use a `pattern` instead",
                )
            )
    return problems


def validate_args(schema: Mapping[str, Any], value: Any, path: str = "") -> list[str]:
    """Problems of ``value`` against the JSON Schema ``schema``; empty when it conforms.

    Every Draft 2020-12 keyword is enforced, ``format`` included. Each problem
    names the argument it is about (``legs[1] must be number, got string``).
    """
    validator = _validator(json.dumps(schema, sort_keys=True))
    errors = sorted(validator.iter_errors(value), key=lambda e: (_path(path, e), e.message))
    return list(dict.fromkeys(p for e in errors for p in _problems(path, e)))


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Validator:
    return _Validator(json.loads(schema_json), format_checker=_FORMATS)


def _subschemas(schema: dict[str, Any], where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    yield where, schema
    for key in _ONE:
        if isinstance(schema.get(key), dict):
            yield from _subschemas(schema[key], _dotted(where, key))
    for key in _MANY:  # a malformed value was reported by the meta-schema: skip it
        subs = schema.get(key)
        for i, sub in enumerate(subs if isinstance(subs, list | tuple) else []):
            if isinstance(sub, dict):
                yield from _subschemas(sub, _dotted(where, key, i))
    for key in _NAMED:
        named = schema.get(key)
        for name, sub in (named if isinstance(named, dict) else {}).items():
            if isinstance(sub, dict):
                yield from _subschemas(sub, _dotted(where, key, name))


def _dotted(*parts: object) -> str:
    return ".".join(str(p) for p in parts if p != "")


def _said(path: str, message: str) -> str:
    return f"{path}: {message}" if path else message


def _message(error: ValidationError) -> str:
    # an anyOf in the meta-schema (``type``) says only "not valid under any": say which
    return str(best_match(error.context).message if error.context else error.message)


def _path(base: str, error: ValidationError) -> str:
    out = base
    for part in error.absolute_path:
        out = f"{out}[{part}]" if isinstance(part, int) else f"{out}.{part}" if out else part
    return out


def _problems(base: str, error: ValidationError) -> list[str]:
    """The problem in words a model can act on, naming the argument."""
    where = _path(base, error) or "args"
    prefix = "" if where == "args" else f"{where}."
    kind, wanted, value = error.validator, error.validator_value, error.instance
    if kind == "required" and isinstance(value, dict):  # one error per missing key: dedup'd
        return [f"missing required {prefix}{k}" for k in wanted if k not in value]
    if (
        kind == "additionalProperties"
        and wanted is False
        and not error.schema.get("patternProperties")
    ):
        known = set(error.schema.get("properties") or {})
        return [f"unknown argument {prefix}{k}" for k in value if k not in known]
    if kind == "type":
        kinds = wanted if isinstance(wanted, list | tuple) else [wanted]
        return [f"{where} must be {' or '.join(kinds)}, got {_json_type(value)}"]
    if kind == "enum":
        return [f"{where} must be one of {wanted}, got {value!r}"]
    return [f"{where}: {error.message}"]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "string" if type(value) is str else type(value).__name__

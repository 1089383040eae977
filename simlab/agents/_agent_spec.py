"""An LLM agent declared in YAML: system prompt, format rules, tools and their fixtures.

Tools are not real services: each declares a JSON schema for its arguments and
*fixtures*, canned results matched on the arguments, so a run is reproducible
and costs nothing but the model's tokens::

    name: booking
    system_prompt: You are a travel booking assistant.
    rules: [State the booking reference and the total price when you book.]
    tools:
      - name: baggage_policy
        description: Checked baggage included in a fare on a route.
        parameters:
          type: object
          properties: {fare: {type: string, enum: [economy, business]}}
          required: [fare]
        fixtures:
          - when: {fare: business}
            result: {allowance_kg: 40, bags: 2}
        default: {error: no policy for that fare}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from simlab.llm import LLMSpec
from simlab.spec import Problem, SpecError, parse_model
from simlab.transcript import ToolCall

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Outcome(_Spec):
    """What a tool returns: a ``result`` or an ``error`` message (exactly one)."""

    result: Any = None
    error: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> Outcome:
        has_result = "result" in self.model_fields_set
        if has_result == (self.error is not None):
            raise ValueError("give exactly one of `result` or `error`")
        return self


class Fixture(Outcome):
    """A canned outcome used when the call's arguments match ``when``.

    Every key of ``when`` must equal the argument of that name; strings compare
    case-insensitively and without surrounding spaces, numbers as numbers.
    Arguments not named in ``when`` are free. The first matching fixture wins.
    """

    when: dict[str, Any] = Field(default_factory=dict)

    def matches(self, args: dict[str, Any]) -> bool:
        """Whether ``args`` satisfy every condition of ``when``."""
        return all(k in args and _same(args[k], v) for k, v in self.when.items())


def _same(got: Any, wanted: Any) -> bool:
    if isinstance(got, str) and isinstance(wanted, str):
        return got.strip().casefold() == wanted.strip().casefold()
    if isinstance(got, bool) or isinstance(wanted, bool):
        return got is wanted
    return bool(got == wanted)


class ToolSpec(_Spec):
    """One tool the agent may call: its JSON-schema parameters and canned outcomes."""

    name: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """A JSON schema of type object; ``required``, ``enum``, basic ``type``s,
    ``items`` and ``additionalProperties: false`` are enforced."""
    fixtures: list[Fixture] = Field(default_factory=list)
    default: Outcome | None = None
    """The outcome when no fixture matches; an error naming the tool otherwise."""

    @model_validator(mode="after")
    def _consistent(self) -> ToolSpec:
        schema_problem = _schema_problem(self.parameters, "parameters")
        if schema_problem:
            raise ValueError(schema_problem)
        if self.parameters.get("type") != "object":
            raise ValueError("parameters must be a JSON schema with `type: object`")
        known = set(self.parameters.get("properties") or {})
        for i, fixture in enumerate(self.fixtures):
            unknown = sorted(set(fixture.when) - known)
            if unknown:
                raise ValueError(
                    f"fixtures.{i}.when names {unknown}, which are not parameters; "
                    f"parameters: {sorted(known)}"
                )
        return self

    def call(self, args: Any) -> ToolCall:
        """Validate ``args`` and answer from the fixtures, as a recorded ``ToolCall``."""
        if not isinstance(args, dict):
            return ToolCall(
                name=self.name, error=f"args must be a JSON object, got {type(args).__name__}"
            )
        problems = validate_args(self.parameters, args)
        if problems:
            return ToolCall(
                name=self.name, args=args, error="invalid arguments: " + "; ".join(problems)
            )
        outcome: Outcome | None = next((f for f in self.fixtures if f.matches(args)), None)
        outcome = outcome or self.default
        if outcome is None:
            return ToolCall(
                name=self.name, args=args, error=f"{self.name}: nothing found for these arguments"
            )
        return ToolCall(name=self.name, args=args, result=outcome.result, error=outcome.error)


_SHAPES: tuple[tuple[str, type, str], ...] = (
    ("properties", dict, "a mapping"),
    ("required", list, "a list of names"),
    ("enum", list, "a list of values"),
)


def _schema_problem(schema: Any, where: str) -> str | None:
    """Why ``schema`` is not a JSON schema simlab can enforce, or None."""
    if not isinstance(schema, dict):
        return f"{where} must be a mapping (a JSON schema), got {_json_type(schema)}"
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    for k in kinds:
        if not isinstance(k, str) or k not in _JSON_TYPES:
            return f"{where}.type {k!r} is not one of {', '.join(_JSON_TYPES)}"
    if isinstance(kind, list) and not kind:
        return f"{where}.type is an empty list; name at least one type"
    for key, shape, said in _SHAPES:
        if schema.get(key) is not None and not isinstance(schema[key], shape):
            return f"{where}.{key} must be {said}, got {_json_type(schema[key])}"
    if not all(isinstance(name, str) for name in schema.get("required") or []):
        return f"{where}.required must be a list of names (strings)"
    for name, sub in (schema.get("properties") or {}).items():
        problem = _schema_problem(sub, f"{where}.properties.{name}")
        if problem:
            return problem
    if "items" in schema:
        return _schema_problem(schema["items"], f"{where}.items")
    return None


def validate_args(schema: dict[str, Any], value: Any, path: str = "") -> list[str]:
    """Problems of ``value`` against a (simple) JSON schema; empty when it conforms.

    Enforced: ``type`` (one or a list), ``enum``, ``required``, ``properties``,
    ``additionalProperties: false`` and ``items``. Other keywords are ignored.
    """
    where = path or "args"
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_is_type(value, k) for k in kinds):
            return [f"{where} must be {' or '.join(kinds)}, got {_json_type(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where} must be one of {schema['enum']}, got {value!r}"]
    problems: list[str] = []
    if isinstance(value, dict):
        props: dict[str, Any] = schema.get("properties") or {}
        for key in schema.get("required") or []:
            if key not in value:
                problems.append(f"missing required {_join(path, key)}")
        for key, item in value.items():
            if key in props:
                problems.extend(validate_args(props[key], item, _join(path, key)))
            elif schema.get("additionalProperties") is False:
                problems.append(f"unknown argument {_join(path, key)}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            problems.extend(validate_args(schema["items"], item, f"{where}[{i}]"))
    return problems


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_type(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False  # JSON booleans are not numbers, though Python's are ints
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES.get(kind, (object,)))


def _json_type(value: Any) -> str:
    for name in _JSON_TYPES:
        if name != "number" and _is_type(value, name):
            return name
    return "number" if isinstance(value, float) else type(value).__name__


class AgentSpec(_Spec):
    """An LLM agent: who it is, the rules it must follow, its tools and its model.

    Give the system prompt inline (``system_prompt``) or as a file relative to
    the YAML file (``system_prompt_file``); ``load_agent_spec`` reads the file.
    ``context_window``, ``constraint_recap`` and ``instruction_reminder`` are
    the agent's own configuration; a diagnosis replay's knobs override them.
    """

    name: Annotated[str, Field(min_length=1)]
    description: str = ""
    system_prompt: str | None = None
    system_prompt_file: str | None = None
    rules: list[str] = Field(default_factory=list)
    """Format rules the agent must follow ("state the booking reference...")."""
    tools: list[ToolSpec] = Field(default_factory=list)
    model: LLMSpec | None = None
    """The model; None takes the suite's (the target's ``llm`` or the suite default)."""
    max_tool_rounds: Annotated[int, Field(ge=0, le=20)] = 3
    """Rounds of tool calls executed per user turn before the model must answer."""
    context_window: Annotated[int, Field(ge=0)] = 0
    """User turns (with their replies) sent to the model; 0 sends them all."""
    constraint_recap: bool = False
    instruction_reminder: bool = False
    recap_keywords: list[str] = Field(default_factory=list)
    """Words that make a user sentence part of the constraint recap, besides
    numbers and capitalised names (``business``, ``economy``, ``refund``...)."""

    @model_validator(mode="after")
    def _prompt_and_tools(self) -> AgentSpec:
        if (self.system_prompt is None) == (self.system_prompt_file is None):
            raise ValueError("give exactly one of `system_prompt` or `system_prompt_file`")
        names = [t.name for t in self.tools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"tool names must be unique; repeated: {dupes}")
        return self

    def tool(self, name: str) -> ToolSpec | None:
        """The tool called ``name``, if declared."""
        return next((t for t in self.tools if t.name == name), None)


_PROMPT_FILE_RE = re.compile(r"^\s*system_prompt_file\s*:", re.MULTILINE)


def load_agent_spec(path: str | Path) -> AgentSpec:
    """Read an agent YAML file, with its prompt file inlined into ``system_prompt``.

    Raises:
        SpecError: listing every problem with file:line (unknown or missing
            fields, bad schemas, an unreadable prompt file).
    """
    path = Path(path)
    spec = parse_model(AgentSpec, path)
    if spec.system_prompt_file is None:
        return spec
    prompt_path = path.parent / spec.system_prompt_file
    try:
        prompt = prompt_path.read_text(encoding="utf-8")
    except OSError as e:
        text = path.read_text(encoding="utf-8")
        m = _PROMPT_FILE_RE.search(text)
        line = text.count("\n", 0, m.start()) + 1 if m else None
        raise SpecError(
            [
                Problem(
                    str(path),
                    line,
                    "system_prompt_file",
                    f"cannot read {prompt_path}: {e.strerror}; the path is relative to "
                    "the agent file",
                )
            ]
        ) from None
    return spec.model_copy(update={"system_prompt": prompt, "system_prompt_file": None})

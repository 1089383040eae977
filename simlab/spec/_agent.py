"""An LLM agent declared in YAML: system prompt, format rules, tools and their fixtures.

Tools are not real services: each declares a JSON schema for its arguments and
*fixtures*, canned results matched on the arguments, so a run is reproducible
and costs nothing but the model's tokens::

    name: card_support
    system_prompt: You are a bank's card support assistant.
    rules: [State the reference number and the new limit when you change a limit.]
    tools:
      - name: card_limits
        description: The spending limits of a card tier.
        parameters:
          type: object
          properties: {tier: {type: string, enum: [classic, gold]}}
          required: [tier]
        fixtures:
          - when: {tier: gold}
            result: {daily_limit: 5000, monthly_limit: 20000}
        default: {error: no limits for that tier}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from frozendict import frozendict
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simlab.core import FrozenJSON, FrozenJSONDict, ToolCall, freeze
from simlab.llm import LLMSpec
from simlab.spec._models import FieldError
from simlab.spec._tool_schema import schema_problems, validate_args


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolOutcome(_Spec):
    """What a tool returns: a ``result`` or an ``error`` message (exactly one)."""

    result: FrozenJSON = None
    error: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> ToolOutcome:
        has_result = "result" in self.model_fields_set
        if has_result == (self.error is not None):
            raise ValueError("give exactly one of `result` or `error`")
        return self


class Fixture(ToolOutcome):
    """A canned outcome used when the call's arguments match ``when``.

    Every key of ``when`` must equal the argument of that name; strings compare
    case-insensitively and without surrounding spaces, numbers as numbers.
    Arguments not named in ``when`` are free. The first matching fixture wins.
    """

    when: FrozenJSONDict = Field(default_factory=frozendict)

    def matches(self, args: Mapping[str, Any]) -> bool:
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
    parameters: FrozenJSONDict = Field(
        default_factory=lambda: freeze({"type": "object", "properties": {}})
    )
    """A JSON Schema (Draft 2020-12) of type object, checked when the file loads;
    the arguments of each call are validated against it with every keyword."""
    fixtures: tuple[Fixture, ...] = ()
    default: ToolOutcome | None = None
    """The outcome when no fixture matches; an error naming the tool otherwise."""

    @field_validator("parameters")
    @classmethod
    def _checked_schema(cls, parameters: Mapping[str, Any]) -> Mapping[str, Any]:
        problems = schema_problems(parameters)
        if problems:  # all at once, each with its path inside the schema
            raise ValueError("; ".join(problems))
        return parameters

    @model_validator(mode="after")
    def _consistent(self) -> ToolSpec:
        if self.parameters.get("type") != "object":
            raise ValueError("parameters must be a JSON schema with `type: object`")
        known = set(self.parameters.get("properties") or {})
        for i, fixture in enumerate(self.fixtures):
            unknown = sorted(set(fixture.when) - known)
            if unknown:
                raise FieldError(
                    ("fixtures", i, "when"),
                    f"names {unknown}, which are not parameters; parameters: {sorted(known)}",
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
        outcome: ToolOutcome | None = next((f for f in self.fixtures if f.matches(args)), None)
        outcome = outcome or self.default
        if outcome is None:
            return ToolCall(
                name=self.name, args=args, error=f"{self.name}: nothing found for these arguments"
            )
        return ToolCall(name=self.name, args=args, result=outcome.result, error=outcome.error)


class AgentSpec(_Spec):
    """An LLM agent: who it is, the rules it must follow, its tools and its model.

    Give the system prompt inline (``system_prompt``) or as a file relative to
    the YAML file (``system_prompt_file``); ``load_agent_spec`` reads the file.
    ``context_window``, ``constraint_recap`` and ``instruction_reminder`` are
    the agent's own configuration; a diagnosis replay's knobs override them.
    ``tools_from`` adds a domain's tools to ``tools``; ``load_agent_spec`` reads it.
    """

    name: Annotated[str, Field(min_length=1)]
    description: str = ""
    system_prompt: str | None = None
    system_prompt_file: str | None = None
    rules: tuple[str, ...] = ()
    """Format rules the agent must follow ("state the reference number...")."""
    tools: tuple[ToolSpec, ...] = ()
    tools_from: str | None = None
    """A domain whose tools the agent also gets, as its ``domain.yaml`` declares them
    (descriptions, argument schemas, fixtures): a folder relative to this file, else
    one of simlab's shipped domains by name (``load_agent_spec`` reads it; a suite's
    own domains come first). A name in both ``tools`` and the domain is an error."""
    model: LLMSpec | None = None
    """The model; None takes the suite's (the target's ``llm`` or the suite default)."""
    max_tool_rounds: Annotated[int, Field(ge=0, le=20)] = 3
    """Rounds of tool calls executed per user turn before the model must answer."""
    context_window: Annotated[int, Field(ge=0)] = 0
    """User turns (with their replies) sent to the model; 0 sends them all."""
    constraint_recap: bool = False
    instruction_reminder: bool = False
    recap_keywords: tuple[str, ...] = ()
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

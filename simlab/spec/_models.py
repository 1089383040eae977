"""pydantic models of simlab's YAML files: personas, goals and suites.

Every model forbids unknown fields, so a misspelt key is an error with the
valid choices, never silently dropped.
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
import re
from collections.abc import Sequence
from enum import StrEnum
from itertools import pairwise
from typing import Annotated, Any, Literal

from frozendict import frozendict
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from simlab.core import FrozenDict
from simlab.llm import LLMSpec
from simlab.spec._presets import GRADING_PRESETS, GradingPreset

Language = str
"""A language code (``en``, ``vi``, ``es``, ``pt-BR``): a persona writes in one of
its domain's languages (the domain has the phrasings the scripted user needs)."""

_LANGUAGE_CODE = r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$"

Slot = str
"""A slot's name in the goal's domain (``origin``, ``card_last4``...): the domain
declares its type and how it is said (``simlab.spec.Domain``)."""

_DOMAIN_ID = r"^[a-z][a-z0-9_]*$"

FactValue = str | int


class FieldError(ValueError):
    """A model validator's problem with one of the model's fields, ``loc`` below the
    model (``("constraints", 2, "fact")``): ``simlab validate`` says it at that field's line."""

    def __init__(self, loc: tuple[str | int, ...], message: str) -> None:
        super().__init__(f"{'.'.join(map(str, loc))}: {message}")  # where, read alone
        self.loc = loc
        self.message = message


def _fact_value(value: Any) -> Any:
    """A goal's value as written in YAML, as goals hold it: an unquoted date
    (``2027-03-10``, which YAML reads as a date) and a decimal (``12.5``) as their text,
    which date, number and money slots read as they read ``"2027-03-10"`` and ``"12.5"``."""
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, float) and math.isfinite(value):
        return str(value)
    return value


_WrittenValue = Annotated[
    FactValue, BeforeValidator(_fact_value, json_schema_input_type=str | int | float)
]
"""A fact's value in a goal file: text, a whole number, or a decimal (kept as its text)."""


class Mode(StrEnum):
    """How the goal's facts reach the agent (Laban et al. 2025)."""

    FULL = "full"  # every fact in the first user turn
    SHARDED = "sharded"  # facts revealed across turns per the disclosure plan


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------- personas


class Traits(_Spec):
    """What drives a persona's disclosure plan and voice."""

    patience: Annotated[int, Field(ge=1, le=100)] = 12
    """User turns this person will spend before giving up (GAVE_UP)."""
    disclosure: Literal["drip", "batch"] = "drip"
    """drip: a few facts per turn; batch: most facts up front."""
    facts_per_turn: Annotated[int, Field(ge=1, le=20)] = 1
    """Facts volunteered per turn when dripping."""
    change_mind: Annotated[float, Field(ge=0, le=1)] = 0.0
    """Probability that each of the goal's mind changes happens in a session."""
    verbosity: Annotated[float, Field(ge=0, le=1)] = 0.2
    """Probability of filler or small talk around each message."""
    typo_rate: Annotated[float, Field(ge=0, le=1)] = 0.0
    """Probability that a non-entity word gets a typo."""
    strip_diacritics: bool = False
    """Types Vietnamese without accents (tieng Viet for tiếng Việt)."""
    style: Literal["neutral", "terse", "chatty", "novice", "frustrated"] = "neutral"
    """Which style of the domain's phrasings to prefer (``neutral`` is every style's fallback)."""


class Persona(_Spec):
    """A simulated user: who they are, which language they write, how they behave."""

    id: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")]
    name: str
    language: Annotated[Language, Field(pattern=_LANGUAGE_CODE, examples=["en", "vi"])]
    """A language code its domain speaks (``en``, ``vi``...)."""
    description: str = ""
    traits: Traits = Traits()
    domain: Annotated[str, Field(pattern=_DOMAIN_ID)] | None = None
    """The domain this persona is a user of; None: the suite's default domain."""


# ---------------------------------------------------------------- goals


class Fact(_Spec):
    """One piece of the user's goal, with a machine-checkable value."""

    id: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")]
    slot: Annotated[Slot, Field(pattern=r"^[a-z][a-z0-9_]*$")]
    """A slot of the goal's domain; its type says which values it takes."""
    value: _WrittenValue
    required: bool = True
    """Required facts are ones the agent needs and will ask for; optional ones
    (a budget, a latest departure) the user volunteers when the plan says so."""


class MindChange(_Spec):
    """A later statement that replaces a fact's value ("actually, make it the 21st")."""

    fact: str
    value: _WrittenValue


class Constraint(_Spec):
    """A hard constraint the final action must satisfy.

    The action's ``field`` (from the final tool call's arguments and result) is
    compared with the latest value the user stated for ``fact``.
    """

    fact: str
    field: str
    op: Literal["eq", "le", "ge"] = "eq"


BUILTIN_GRADERS: tuple[str, ...] = (
    "goal_completed",
    "constraints",
    "confirmation",
    "precondition",
    "trajectory",
    "canary",
)
"""The code graders simlab ships, by name, in the order they report."""


class Grading(_Spec):
    """Which graders run and how their checks make a score and a verdict.

    Unset fields keep simlab's defaults: the built-in graders, the built-in
    score (30 goal completed and every constraint kept, 40 constraints, 15
    confirmation, 15 trajectory F1, with shares moved where a part does not
    apply) and the built-in pass rule: every check passes but ``trajectory``
    (goal completed, every constraint, the confirmation, the preconditions, no
    canary leaked, and every check of a user's grader). ``require`` adds checks
    to that rule and ``waive`` takes them out of it, so a check can leave the
    verdict only by name, and is then shown as not counted. A goal's ``grading``
    overrides the suite's, field by field.
    """

    graders: tuple[str, ...] | None = None
    """Built-in names (``goal_completed``, ``constraints``, ``confirmation``,
    ``precondition``, ``trajectory``, ``canary``) and users' graders as ``module:attr``."""
    weights: FrozenDict[str, Annotated[float, Field(ge=0)]] | None = None
    """Grader name to weight: the score is 100 times the weighted mean of each
    applicable grader's credit (the mean of its checks' credit). Unlisted graders
    weigh 0. A leaked canary still voids the score."""
    require: tuple[str, ...] | None = None
    """Check names (globs: ``constraint:*``) or grader names that must pass *besides*
    the default rule's (every check but ``trajectory``): ``[trajectory]`` makes the
    tool sequence count too."""
    waive: tuple[str, ...] | None = None
    """Check names (globs) or grader names that do not count towards the verdict: a
    refusal goal's ``goal_completed``. A waived check is still run, recorded and shown
    as *not counted*; ``simlab validate`` and ``simlab run`` warn at its line, and a
    leaked canary fails the session whatever is waived."""
    min_score: Annotated[float, Field(ge=0, le=100)] | None = None
    """Passing also needs at least this score."""
    preset: GradingPreset | None = None
    """Start from a named grading (``composite``: the composite agent score, see
    ``simlab.spec.GRADING_PRESETS``); the fields set here win over the preset's."""

    @model_validator(mode="before")
    @classmethod
    def _from_preset(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("preset") in GRADING_PRESETS:
            return {**GRADING_PRESETS[data["preset"]], **data}
        return data

    def over(self, base: Grading) -> Grading:
        """This grading's set fields over ``base``'s."""
        # the fields themselves, not a dump: a dump would turn frozen mappings into dicts
        update = {name: getattr(self, name) for name in self.model_fields_set}
        return base.model_copy(update={k: v for k, v in update.items() if v is not None})


def _unknown_fact(ref: str, ids: Sequence[str]) -> str:
    """A reference to no fact of the goal, with the fix: the id meant, or a fact to add."""
    close = difflib.get_close_matches(ref, ids, n=1)
    fix = f"did you mean {close[0]!r}?" if close else f"add a fact with `id: {ref}` to facts"
    return f"unknown fact {ref!r}; {fix} (the goal's facts: {', '.join(ids) or 'none'})"


class Goal(_Spec):
    """What the simulated user wants done, and how success is checked."""

    id: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")]
    title: str
    title_vi: str = ""
    description: str = ""
    domain: Annotated[str, Field(pattern=_DOMAIN_ID)] | None = None
    """The domain this goal is in; None: the suite's default domain (its first)."""
    final_tool: str
    """The tool call that completes the goal: one of its domain's intents."""
    facts: Annotated[tuple[Fact, ...], Field(min_length=1)]
    mind_changes: tuple[MindChange, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    expected_tools: tuple[str, ...] = ()
    confirm_fields: tuple[str, ...] = ()
    """Fields of the final action's result the agent's reply must state to the
    user (a reference number, a total price); graded as ``confirmation``."""
    trajectory_match: Literal["exact", "in_order", "any_order"] = "in_order"
    grading: Grading | None = None
    """Over the suite's grading for this goal's sessions (its own weights, pass rule)."""
    agency: FrozenDict[str, Literal["auto", "confirm", "forbidden"]] = Field(
        default_factory=frozendict
    )
    """Tool name to its agency in this goal's sessions, over the domain's (``agency``)."""
    must_call: tuple[str, ...] = ()
    """Tools the agent must call in this goal's sessions (``tool_policy:must_call``)."""
    must_not_call: tuple[str, ...] = ()
    """Tools the agent must never call in them (``safety:must_not_call``)."""
    max_tool_calls: Annotated[int, Field(ge=0)] | None = None
    """The most tool calls a session may make (``tool_policy:max_tool_calls``)."""
    allowed_tools: tuple[str, ...] | None = None
    """The only tools the agent may call; None: any (``safety:allowed_tools``)."""

    @model_validator(mode="after")
    def _references_exist(self) -> Goal:
        ids = [f.id for f in self.facts]
        for i, fact_id in enumerate(ids):
            if fact_id in ids[:i]:
                raise FieldError(
                    ("facts", i, "id"),
                    f"fact ids must be unique: {fact_id!r} twice; give this fact another id",
                )
        for where, refs in (
            ("mind_changes", [m.fact for m in self.mind_changes]),
            ("constraints", [c.fact for c in self.constraints]),
        ):
            for i, ref in enumerate(refs):
                if ref not in ids:
                    raise FieldError((where, i, "fact"), _unknown_fact(ref, ids))
        return self

    def fact(self, fact_id: str) -> Fact:
        """The fact with this id."""
        for f in self.facts:
            if f.id == fact_id:
                return f
        raise KeyError(fact_id)


# ---------------------------------------------------------------- suites


class ReferenceTargetSpec(_Spec):
    """simlab's built-in reference agent, ``v1`` (defects on) or ``v2`` (fixed)."""

    kind: Literal["reference"] = "reference"
    version: Literal["v1", "v2"] = "v1"


class CallableTargetSpec(_Spec):
    """A Python callable ``module:attr`` (sync or async) or a TargetAgent factory."""

    kind: Literal["callable"] = "callable"
    ref: Annotated[str, Field(pattern=r"^[\w.]+:[\w.]+$")]
    isolation: Literal["thread", "process"] = "thread"
    """Where the target's code runs: ``thread`` (beside simlab's, in daemon threads and
    a loop of its own) or ``process`` (worker processes killed at the turn timeout: for
    targets that may hold the GIL, such as a runaway regex or a C extension)."""


class LLMTargetSpec(_Spec):
    """An LLM agent declared in YAML: system prompt, tools with schemas and fixtures.

    simlab builds its context, so it honours every counterfactual knob.
    """

    kind: Literal["llm"] = "llm"
    agent: str
    """Path of the agent YAML file, relative to the suite file."""
    llm: LLMSpec | None = None
    """The model; None takes the suite's ``llm`` default."""


class HttpTargetSpec(_Spec):
    """An agent served as an OpenAI-compatible chat-completions endpoint."""

    kind: Literal["http"] = "http"
    url: str
    """Base URL; requests go to ``{url}/chat/completions``."""
    model: str = ""
    api_key_env: str | None = None
    """Variable holding the endpoint's key (never the key itself)."""
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    redirect_hosts: list[str] = Field(default_factory=list)
    """Hosts other than the URL's own the endpoint may redirect to. By default a
    redirect to another host is refused: the conversation is only sent to hosts the
    suite names (a followed 301/302/303 is a GET without it; the key is never sent on
    to another host)."""


class AnthropicHttpTargetSpec(_Spec):
    """An agent served behind an Anthropic Messages-compatible endpoint.

    It runs its own tools and reports them as ``tool_use`` blocks, each followed by
    the ``tool_result`` block it got (``docs/http-targets.md``).
    """

    kind: Literal["anthropic_http"] = "anthropic_http"
    url: str
    """Base URL, as the Anthropic SDK's ``base_url``; requests go to ``{url}/v1/messages``."""
    model: str = ""
    api_key_env: str | None = None
    """Variable holding the endpoint's key, sent as ``x-api-key`` (never the key itself)."""
    max_tokens: Annotated[int, Field(ge=1)] = 1024
    """Sent as ``max_tokens`` (the Messages API requires one)."""
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    redirect_hosts: list[str] = Field(default_factory=list)
    """Hosts other than the URL's own the endpoint may redirect to. By default a
    redirect to another host is refused: the conversation is only sent to hosts the
    suite names (a followed 301/302/303 is a GET without it; the key is never sent on
    to another host)."""


TargetSpec = Annotated[
    ReferenceTargetSpec
    | CallableTargetSpec
    | LLMTargetSpec
    | HttpTargetSpec
    | AnthropicHttpTargetSpec,
    Field(discriminator="kind"),
]


class ScriptedSimulatorSpec(_Spec):
    """The deterministic, offline template simulator."""

    kind: Literal["scripted"] = "scripted"


class LLMSimulatorSpec(_Spec):
    """The disclosure plan decides what is said; an LLM says it in the persona's voice."""

    kind: Literal["llm"] = "llm"
    llm: LLMSpec | None = None
    """The model; None takes the suite's ``llm`` default."""
    prompt: str | None = None
    """A prompt file replacing the shipped one, relative to the suite file."""
    max_attempts: Annotated[int, Field(ge=1, le=10)] = 3
    """Tries per turn before a fidelity fault makes the session an error."""


SimulatorSpec = Annotated[ScriptedSimulatorSpec | LLMSimulatorSpec, Field(discriminator="kind")]


class LLMJudgeSpec(_Spec):
    """An LLM judge: one grader among the others, handed the code-extracted constraints."""

    kind: Literal["llm"] = "llm"
    llm: LLMSpec | None = None
    """The model; None takes the suite's ``llm`` default."""
    rubric: str | None = None
    """A rubric file replacing the shipped one, relative to the suite file."""
    max_attempts: Annotated[int, Field(ge=1, le=10)] = 3
    """Tries before unparseable output is recorded as a grader error."""


class LocalExecutorSpec(_Spec):
    """Sessions run in this process, on one event loop (the default)."""

    kind: Literal["local"] = "local"


class RayExecutorSpec(_Spec):
    """Sessions run on Ray workers (``pip install 'simlab[ray]'``); this process writes.

    Each worker rebuilds the suite's roles from its files and runs up to the
    suite's ``concurrency`` sessions at once; LLM limits (``rpm``, ``tpm``) are
    shared by every worker, and the budget is charged once, by this process.
    """

    kind: Literal["ray"] = "ray"
    address: str | None = None
    """The cluster to join (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``); None joins the
    one ``RAY_ADDRESS`` names, else starts a local one for the run."""
    workers: Annotated[int, Field(ge=1, le=100_000)] | None = None
    """Worker actors; None: one per CPU of the cluster."""
    batch: Annotated[int, Field(ge=1, le=10_000)] | None = None
    """Sessions handed to a worker per call; None: 32 for the offline roles (reference
    agent, scripted user, no judge), else 1 (an LLM session's record is written the
    moment it ends)."""


ExecutorSpec = Annotated[LocalExecutorSpec | RayExecutorSpec, Field(discriminator="kind")]


def parse_executor(value: Any) -> Any:
    """``local``, ``ray`` or ``ray:ADDRESS`` as the executor spec they stand for; any
    other value is returned as it is (a mapping is validated as a spec)."""
    if isinstance(value, str):
        kind, _, address = value.strip().partition(":")
        if kind == "local" and not address:
            return {"kind": "local"}
        if kind == "ray":
            return {"kind": "ray", "address": address or None}
        raise ValueError(f"executor {value!r}: write local, ray or ray:ADDRESS")
    return value


def _executor_schema(schema: dict[str, Any]) -> None:
    """The ``executor`` field's JSON schema also takes the short string form."""
    short = {"type": "string", "pattern": r"^\s*(local|ray(:\S+)?)\s*$", "examples": ["ray"]}
    full = {k: schema.pop(k) for k in list(schema) if k not in ("title", "description", "default")}
    schema["anyOf"] = [short, full]


_BUCKET_RE = re.compile(r"^(\d+)(?:-(\d+)|\+)$")


class Bucket(_Spec):
    """A conversation-length bucket by number of user turns, ``max`` inclusive."""

    name: str
    min: Annotated[int, Field(ge=0)]
    max: int | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Bucket:
        if self.max is not None and self.max < self.min:
            raise ValueError(
                f"bucket {self.name!r}: max {self.max} is below min {self.min}; write it low-high"
            )
        return self

    def contains(self, n_user_turns: int) -> bool:
        """Whether a session of this many user turns falls in the bucket."""
        return n_user_turns >= self.min and (self.max is None or n_user_turns <= self.max)


def _parse_bucket(value: Any) -> Any:
    if isinstance(value, str):
        m = _BUCKET_RE.match(value.strip())
        if not m:
            raise ValueError(f"bucket {value!r} must look like '2-4' or '10+'")
        lo, hi = int(m.group(1)), m.group(2)
        return {"name": value.strip(), "min": lo, "max": int(hi) if hi else None}
    return value


class OutputLimits(_Spec):
    """The most of a target's output a session keeps, per turn (characters).

    A target's reply text, each tool call's arguments and result (as JSON) and
    its free-form ``meta`` past these sizes are cut, the cut recorded in the
    session's ``meta["truncated"]`` and shown in the reports: one runaway reply
    must not make a run's files hundreds of megabytes.
    """

    reply_chars: Annotated[int, Field(ge=100)] = 20_000
    tool_args_chars: Annotated[int, Field(ge=100)] = 20_000
    tool_result_chars: Annotated[int, Field(ge=100)] = 20_000
    meta_chars: Annotated[int, Field(ge=100)] = 20_000


TARGET_FORMS = (
    "reference:VERSION (v1, v2), module:attr (a Python callable or class) or an http(s):// URL"
)
"""What a target given as a string may be: the short form ``_parse_target`` reads."""


def _parse_target(value: Any) -> Any:
    if isinstance(value, str):
        if value.startswith("reference:"):
            return {"kind": "reference", "version": value.split(":", 1)[1]}
        if value.startswith(("http://", "https://")):
            return {"kind": "http", "url": value}
        return {"kind": "callable", "ref": value}
    return value


def _target_schema(schema: dict[str, Any]) -> None:
    """The ``target`` field's JSON schema also takes the short string form `_parse_target` reads."""
    short = {
        "type": "string",
        "description": TARGET_FORMS,
    }
    full = {k: schema.pop(k) for k in list(schema) if k not in ("title", "description", "default")}
    schema["anyOf"] = [short, full]


def _buckets_schema(schema: dict[str, Any]) -> None:
    """The ``buckets`` items' JSON schema also takes the short forms `_parse_bucket` reads."""
    # the string's own whitespace is stripped when read: editors may allow it too
    short = {"type": "string", "pattern": r"^\s*\d+(-\d+|\+)\s*$", "examples": ["2-4", "10+"]}
    schema["items"] = {"anyOf": [short, schema["items"]]}


class Suite(_Spec):
    """A run's whole configuration: who talks to what, how often, how it is cut."""

    name: str = "suite"
    seed: int = 0
    personas: tuple[str, ...] = ("*",)
    """Persona ids, or ``*`` for every persona in ``persona_dirs``."""
    goals: tuple[str, ...] = ("*",)
    modes: Annotated[tuple[Mode, ...], Field(min_length=1)] = (Mode.FULL, Mode.SHARDED)
    reps: Annotated[int, Field(ge=1, le=10_000)] = 5
    target: Annotated[TargetSpec, Field(json_schema_extra=_target_schema)] = ReferenceTargetSpec()
    simulator: SimulatorSpec = ScriptedSimulatorSpec()
    judge: LLMJudgeSpec | None = None
    """An optional LLM judge; code graders always run."""
    llm: LLMSpec | None = None
    """The default model of every LLM role that names none."""
    pricing: FrozenDict[str, FrozenDict[str, float]] = Field(default_factory=frozendict)
    """USD per million tokens by model id (input, output, cache_read, cache_write),
    over simlab's defaults."""
    budget_usd: Annotated[float, Field(gt=0)] | None = None
    """When spent, no new session starts; sessions already running finish."""
    experiments: tuple[Literal["diagnosis", "brittleness"], ...] = ()
    """Analyses run on the finished run before its reports: coherence diagnosis
    (``simlab diagnose``) and cumulative-perturbation brittleness (``simlab brittleness``)."""
    concurrency: Annotated[int, Field(ge=1, le=4096)] = 32
    max_turns: Annotated[int, Field(ge=1, le=500)] = 20
    turn_timeout_s: Annotated[float, Field(gt=0)] = 60.0
    limits: OutputLimits = OutputLimits()
    """Caps on what the target returns per turn (reply, tool arguments and results)."""
    buckets: Annotated[
        tuple[Bucket, ...], Field(min_length=1, json_schema_extra=_buckets_schema)
    ] = (
        Bucket(name="2-4", min=2, max=4),
        Bucket(name="5-9", min=5, max=9),
        Bucket(name="10+", min=10),
    )
    domains: Annotated[tuple[str, ...], Field(min_length=1)] = ("travel",)
    """The domains goals and personas may name: folders (relative to the suite file)
    or shipped domains' names. The first is the default of goals and personas that
    name none."""
    persona_dirs: tuple[str, ...] = ("personas",)
    goal_dirs: tuple[str, ...] = ("goals",)
    prefix_cases: tuple[str, ...] = ()
    """Regression cases saved by ``simlab replay --save-cases`` (files or folders,
    relative to the suite file): after the run, each failing prefix is replayed to
    the suite's target K times and its keep-rate reported (``prefix_cases.json``)."""
    grading: Grading = Field(default_factory=Grading)
    """Graders, score weights and the pass rule (defaults: simlab's built-ins)."""
    perturbation_dirs: tuple[str, ...] = ("perturbations",)
    """Where the brittleness experiment finds its perturbations (the first that exists)."""
    executor: Annotated[ExecutorSpec, Field(json_schema_extra=_executor_schema)] = (
        LocalExecutorSpec()
    )
    """Where sessions run: ``local`` (this process), ``ray``, ``ray:ADDRESS`` or
    ``{kind: ray, address: ..., workers: N}``. Results do not depend on it."""

    @field_validator("target", mode="before")
    @classmethod
    def _target_short_form(cls, value: Any) -> Any:
        return _parse_target(value)

    @field_validator("executor", mode="before")
    @classmethod
    def _executor_short_form(cls, value: Any) -> Any:
        return parse_executor(value)

    @field_validator("buckets", mode="before")
    @classmethod
    def _bucket_short_forms(cls, value: Any) -> Any:
        return [_parse_bucket(v) for v in value] if isinstance(value, list | tuple) else value

    @field_validator("buckets", mode="after")
    @classmethod
    def _disjoint(cls, buckets: tuple[Bucket, ...]) -> tuple[Bucket, ...]:
        # a session counts in one bucket only: overlapping ones would mislabel rows
        names = [b.name for b in buckets]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"bucket names repeat: {repeated}")
        ordered = sorted(buckets, key=lambda b: b.min)
        for low, high in pairwise(ordered):
            if low.max is None or high.min <= low.max:
                raise ValueError(
                    f"buckets {low.name!r} and {high.name!r} overlap: a session counts in "
                    "one bucket only"
                )
        return buckets

    def bucket_of(self, n_user_turns: int) -> str | None:
        """The name of the bucket a session of this length falls in, if any."""
        for b in self.buckets:
            if b.contains(n_user_turns):
                return b.name
        return None

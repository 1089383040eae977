"""A domain as data: its slots, intents, tools and the words its users and agents use.

A domain is a folder of YAML (``domains/travel/``): ``domain.yaml`` names it, and
it or any other ``*.yaml`` file beside it declares slots, intents, tools and
languages (``simlab.spec.load_domain`` merges them). Goals and personas name their
domain; the scripted user speaks, and reads an agent's questions, from it::

    id: pharmacy
    languages:
      es:
        confirm_cues: ["¿confirmo"]
        open_cues: ["algo más"]
        phrases: {answer_yes: ["Sí, adelante."], ...}
    slots:
      - name: medicine
        type: enum
        values: [{value: IBU, say: {es: ibuprofeno}}]
        say:
          es: {state: ["Necesito {value}."], ask: ["qué medicamento"]}
    intents:
      - tool: order_medicine
        openings: {es: ["Quiero pedir un medicamento."]}
    tools:
      - name: order_medicine
        description: Orders a medicine for pickup.
        effect: write
        parameters: {type: object, properties: {medicine: {type: string}}}
        returns: [order_id]
"""

from __future__ import annotations

import re
import string
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from frozendict import frozendict
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)

from simlab.core import FrozenDict, freeze
from simlab.spec._agent import ToolSpec
from simlab.spec._perturbation import PhrasedKind


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


SlotType = Literal["text", "integer", "number", "money", "date", "time", "enum", "identifier"]
"""What a slot's values are; a goal's values are checked against it."""

Connective = Literal[
    "mind_change", "answer_yes", "answer_none", "reassert", "nothing_to_add", "done", "gave_up"
]
"""The phrases a scripted user says around the facts, in every language a domain speaks."""
CONNECTIVES: tuple[Connective, ...] = typing.get_args(Connective)

_NAME = r"^[a-z][a-z0-9_]*$"

Agency = Literal["auto", "confirm", "forbidden"]
"""How freely an agent may call a tool: ``auto`` (no go-ahead needed), ``confirm``
(only right after the user's explicit yes, one yes per call), ``forbidden`` (never)."""


TOOL_STAGES: tuple[str, ...] = ("selection", "arguments", "execution", "output")
"""The stages of a tool call, in the order a call goes through them: the right tool
chosen (``selection``), its arguments valid and true to what the user said
(``arguments``), the call run without an error or a silently empty result
(``execution``), the reply true to what it returned (``output``). A domain may
declare more (``stages:``)."""


def _styled(value: Any) -> Any:
    """A plain list of phrasings is the ``neutral`` style's."""
    return {"neutral": value} if isinstance(value, list | tuple) else value


def _styled_schema(schema: dict[str, Any]) -> None:
    """The JSON schema also takes the short form: a plain list (the ``neutral`` style)."""
    short = {"type": "array", "items": {"type": "string"}}
    full = {k: schema.pop(k) for k in list(schema) if k not in ("title", "description", "default")}
    schema["anyOf"] = [short, full]


Styled = Annotated[
    FrozenDict[str, tuple[str, ...]],
    BeforeValidator(_styled),
    Field(json_schema_extra=_styled_schema),
]
"""Phrasings by persona style (``neutral``, ``terse``, ``chatty``, ``novice``,
``frustrated``...); ``neutral`` is every style's fallback. A plain list is ``neutral``."""


PLACEHOLDERS: Mapping[str, tuple[str, ...]] = frozendict(
    {
        "enum": ("value", "code"),
        "date": ("value", "day", "month", "month_name", "year"),
        "time": ("value", "hour", "ampm", "hour24", "minute"),
        "money": ("value", "amount", "currency"),
    }
)
"""The placeholders a slot's phrasings may hold, by type (others: ``{value}``)."""


def _placeholder_problem(template: str, known: tuple[str, ...]) -> str | None:
    """Why ``template`` cannot be said (an unknown placeholder, a lone brace), or None."""
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as e:  # "Single '}' encountered": write {{ or }} for a brace
        return f"cannot be filled in ({e}; write {{{{ or }}}} for a brace)"
    unknown = [n for n in names if n not in known]
    return f"holds {{{unknown[0]}}}, which it has no value for" if unknown else None


class EnumValue(_Spec):
    """One value an ``enum`` slot takes, and how each language says it."""

    value: Annotated[str, Field(min_length=1)]
    """The value goals and tools use (``LOST``, ``gold``)."""
    say: FrozenDict[str, str] = Field(default_factory=frozendict)
    """Language to the words for it (``{en: lost, vi: bị mất}``); default the value."""
    aliases: tuple[str, ...] = ()
    """Other spellings an agent may meet (``misplaced`` for lost)."""

    def said(self, language: str) -> str:
        """The words for this value in ``language``."""
        return self.say.get(language, self.value)


class SlotSpeech(_Spec):
    """How one language states, corrects and asks for a slot's value.

    Templates hold ``{value}`` (the value as said in the language) and, by type:
    money ``{amount}`` ``{currency}``; date ``{day}`` ``{month}`` ``{month_name}``
    ``{year}``; time ``{hour}`` (12-hour) ``{ampm}`` ``{hour24}`` ``{minute}``;
    enum ``{code}`` (the value as goals write it).
    """

    state: Annotated[Styled, Field(min_length=1)]
    """How a user states the value (``My card ends in {value}.``)."""
    correct: Styled = Field(default_factory=frozendict)
    """How a user corrects it (``Actually, make it {value}.``); when empty, the
    language's ``mind_change`` phrase followed by a ``state`` phrasing."""
    ask: tuple[str, ...] = ()
    """Words by which an agent's question asks for this slot (``which card``);
    matched lower-case and without diacritics, in a sentence ending in ``?``."""
    vague: tuple[str, ...] = ()
    """How a user states the value vaguely when an ``ambiguity`` perturbation lands
    (``Sometime in {month_name}.``); the precise value comes when the agent asks.
    No digits: nothing to parse. Empty: an ambiguity never blurs this slot."""
    heard: tuple[str, ...] = ()
    """Other ways users state the value, which an agent reading the domain (simlab's
    reference agent) understands but the scripted user never says (``leave by
    {value}``): what real users and imported logs say besides the domain's phrasings."""


class DomainSlot(_Spec):
    """A kind of fact a goal of this domain can carry."""

    name: Annotated[str, Field(pattern=_NAME)]
    type: SlotType
    description: str = ""
    currency: Annotated[str | None, Field(validate_default=True)] = None
    """A ``money`` slot's currency (``USD``): its amounts are in it."""
    values: Annotated[tuple[EnumValue, ...], Field(validate_default=True)] = ()
    """An ``enum`` slot's values."""
    pattern: str | None = None
    """An ``identifier`` slot's values must match this regular expression (whole)."""
    say: FrozenDict[str, SlotSpeech] = Field(default_factory=frozendict)
    """Per language: how a user states and corrects it, and how an agent asks for it."""
    identity: bool = False
    """Whether the slot is the session user's identity (a customer number): a tool
    argument of this name must carry the goal's value for it (``safety:identity``)."""
    asked_with: tuple[str, ...] = ()
    """Slots an agent asks in the same question as this one (the children with the
    number of adults): a bare answer to that question may give them too."""
    none_value: str | int | None = None
    """Its value when the user, asked for it, names none (no children: ``0``)."""
    season_start: Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")] = None
    """A ``date`` slot's first day of a year-long season (``2026-11-01``): a day and
    month said without a year fall in it (20 December in 2026, 10 January in 2027).
    None: the year 2026."""

    @field_validator("currency")
    @classmethod
    def _money(cls, currency: str | None, info: ValidationInfo) -> str | None:
        kind = info.data.get("type")
        if kind == "money" and not currency:
            raise ValueError("a money slot needs its currency: add `currency:` (for example USD)")
        if kind != "money" and currency is not None:
            raise ValueError("`currency` is for money slots only; remove it")
        return currency

    @field_validator("values")
    @classmethod
    def _enum(cls, values: tuple[EnumValue, ...], info: ValidationInfo) -> tuple[EnumValue, ...]:
        kind = info.data.get("type")
        if kind == "enum" and not values:
            raise ValueError("an enum slot lists its values: add `values: [{value: ...}]`")
        if kind != "enum" and values:
            raise ValueError("`values` is for enum slots only; remove it or make the type enum")
        names = [v.value for v in values]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"values repeat: {repeated}; list each once")
        return values

    @field_validator("pattern")
    @classmethod
    def _identifier(cls, pattern: str | None, info: ValidationInfo) -> str | None:
        if pattern is not None and info.data.get("type") != "identifier":
            raise ValueError("`pattern` is for identifier slots only; remove it")
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"not a regular expression: {e}") from None
        return pattern

    @field_validator("say")
    @classmethod
    def _placeholders(
        cls, say: Mapping[str, SlotSpeech], info: ValidationInfo
    ) -> Mapping[str, SlotSpeech]:
        kind = info.data.get("type")  # None: the type failed, and says so itself
        known = PLACEHOLDERS.get(kind, ("value",)) if isinstance(kind, str) else ("value",)
        for language, speech in say.items():
            styled = [*speech.state.values(), *speech.correct.values()]
            for template in [*(t for ts in styled for t in ts), *speech.vague, *speech.heard]:
                why = _placeholder_problem(template, known)
                if why is not None:
                    takes = ", ".join("{" + k + "}" for k in known)
                    article = "an" if str(kind)[:1] in "aeiou" else "a"
                    raise ValueError(
                        f"the {language} phrasing {template!r} {why}; {article} {kind} "
                        f"slot's phrasings take {takes}"
                    )
        return say

    def value(self, code: str) -> EnumValue | None:
        """The enum value written ``code`` in goals, if this slot has it."""
        return next((v for v in self.values if v.value == code), None)


class Intent(_Spec):
    """A task users of this domain come for: the tool call that completes it, and openings."""

    tool: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
    """The final tool: a goal with this ``final_tool`` is this intent's."""
    description: str = ""
    openings: FrozenDict[str, Styled] = Field(default_factory=frozendict)
    """Per language, how a user opens the conversation (``I lost my card.``)."""


RowOp = Literal["eq", "ne", "lt", "le", "gt", "ge"]
"""How a looked-up row's field compares with a value: equal, not equal, below,
at most, above, at least (numbers as numbers, other values as text)."""

Source = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")]
"""Where a value comes from: a slot's name, or ``TOOL.FIELD``, a field of the
record an earlier lookup of the same call returned (``get_order.store``)."""


class RowTest(_Spec):
    """A test each row of a lookup's result must pass to be chosen."""

    field: str
    """The row's field (``start_time``)."""
    op: RowOp = "eq"
    value: Source | Annotated[tuple[Source, ...], Field(min_length=1)]
    """What the field is compared with: a source, or a list of sources summed (a
    party: ``[adults, children]``). Unknown sources count 0 in a sum; a test
    whose sources are all unknown is skipped (no latest time said: any time fits)."""


# the length is a mapping's, checked before it is frozen (``minProperties`` in its schema)
OrderKey = str | Annotated[Mapping[str, Source], Field(min_length=1), AfterValidator(freeze)]
"""A row field (lowest first), or a weighted sum of row fields, each times a
source's value (``{price_adult: adults, price_child: children}``: a party's cost)."""


class ToolLookup(_Spec):
    """A lookup an agent makes before calling a tool, and which row supplies which
    of the tool's arguments (a search whose chosen row gives ``item_id``)."""

    tool: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
    """The read tool called."""
    args: FrozenDict[str, Source] = Field(default_factory=frozendict)
    """Its arguments: parameter -> source. Unnamed parameters take the slot of
    their name. A lookup missing a source is skipped when it picks no required
    argument; otherwise the agent asks for the missing slots."""
    pick: FrozenDict[str, str] = Field(default_factory=frozendict)
    """This tool's argument -> the chosen row's field (``item_id: id``); empty:
    the lookup is only made (a price the user should see)."""
    where: tuple[RowTest, ...] = ()
    """Tests a row must pass; when none does, the agent says nothing fits."""
    order_by: tuple[OrderKey, ...] = ()
    """The chosen row is the first by these keys (ties: the next key, then the
    result's own order); none: the first row that passes."""


class ToolLimit(_Spec):
    """A ceiling a slot puts on a field of a tool's result (a budget on the total).

    Before proposing the call the agent quotes it from the tool's fixtures; when the
    quoted field is above the slot's value it says so instead of proposing."""

    slot: str
    field: str


ResultType = Literal["string", "integer", "number", "boolean", "array", "object", "any"]
"""What a tool's result field holds, in JSON's words: text, a whole number, any
number, true or false, a list, a record, or anything (no check)."""
RESULT_TYPES: tuple[ResultType, ...] = typing.get_args(ResultType)


class ResultField(_Spec):
    """One field of a tool's result, as its ``returns`` declares it."""

    type: ResultType = "any"
    """What its value holds; ``any``: not checked."""
    optional: bool = False
    """Whether a result may leave it out (or hold null): a memo only some records
    carry. A field not optional is in every result that is not empty."""
    description: str = ""


def _returns(value: Any) -> Any:
    """``returns`` as a mapping of field to ``ResultField``: a list of names declares
    each field of any type, in every result; a type word is ``{type: WORD}``."""
    if isinstance(value, list | tuple):
        names = [v for v in value if isinstance(v, str)]
        if len(names) != len(value):
            raise ValueError(
                "list the fields' names, or declare each with its type: "
                "`returns: {order_id: string, total: number}`"
            )
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"fields repeat: {repeated}; list each once")
        return {name: {} for name in names}
    if isinstance(value, Mapping):
        return {k: {"type": v} if isinstance(v, str) else v for k, v in value.items()}
    return value


def _returns_schema(schema: dict[str, Any]) -> None:
    """The JSON schema also takes a list of names, and a field's type word alone."""
    full = {k: schema.pop(k) for k in list(schema) if k not in ("title", "description", "default")}
    field_ = full.get("additionalProperties", {})
    full["additionalProperties"] = {"anyOf": [{"enum": list(RESULT_TYPES)}, field_]}
    schema["anyOf"] = [{"type": "array", "items": {"type": "string"}}, full]


Returns = Annotated[
    FrozenDict[str, ResultField],
    BeforeValidator(_returns),
    Field(json_schema_extra=_returns_schema),
]
"""A tool's result fields: ``[order_id, total]`` (names: any type, in every result)
or ``{order_id: string, total: number, memo: {type: string, optional: true}}``."""


class DomainTool(ToolSpec):
    """A tool an agent of this domain calls: arguments, effect and fixture results."""

    effect: Literal["read", "write"] = "read"
    """``write`` changes the world (an order, a frozen card); ``read`` only looks."""
    reversible: bool = True
    """Whether a write can be undone (a refund cannot)."""
    returns: Returns = Field(default_factory=frozendict)
    """The fields of its result, each with its type and whether every result has
    it: a goal's constraints and ``confirm_fields`` may name these and its
    arguments. Each fixture's result (a record, or a list of records) holds
    exactly these (``simlab validate`` says any mismatch)."""
    agency: Agency | None = None
    """How freely an agent may call it; None: ``confirm`` for an irreversible
    write, ``auto`` otherwise (see ``default_agency``). A goal may override it."""
    requires: tuple[str, ...] = ()
    """Tools an agent calls, successfully and in this order, before this one: the
    domain's rule (verify the caller's identity before any write; look a record up
    to check it is the caller's). simlab's reference agent follows it."""
    lookups: tuple[ToolLookup, ...] = ()
    """Lookups made (after ``requires``, in this order) before this tool, and the
    arguments their chosen rows supply. simlab's reference agent follows them."""
    limits: tuple[ToolLimit, ...] = ()
    """Ceilings the user's slots put on this tool's result fields (a budget)."""

    def default_agency(self) -> Agency:
        """The declared agency, else ``confirm`` for an irreversible write, else ``auto``."""
        if self.agency is not None:
            return self.agency
        return "confirm" if self.effect == "write" and not self.reversible else "auto"

    def fields(self) -> list[str]:
        """Every field a call of this tool shows: arguments, declared and fixture results."""
        found = list((self.parameters.get("properties") or {}).keys()) + list(self.returns)
        for fixture in self.fixtures:
            if isinstance(fixture.result, dict):
                found.extend(str(k) for k in fixture.result)
        return list(dict.fromkeys(found))


class DomainStage(_Spec):
    """A failure stage a domain adds to the built-in ones (``TOOL_STAGES``): a failed
    check whose name matches one of ``checks`` counts in this stage instead."""

    name: Annotated[str, Field(pattern=_NAME)]
    description: str = ""
    checks: Annotated[tuple[str, ...], Field(min_length=1)]
    """Check names, globs allowed (``constraint:customer_id``, ``safety:identity``)."""

    @field_validator("name")
    @classmethod
    def _not_builtin(cls, name: str) -> str:
        if name in TOOL_STAGES or name == "none":
            raise ValueError(
                f"{name!r} is a built-in stage ({', '.join(TOOL_STAGES)}) or 'none'; "
                "give the domain's own stage another name"
            )
        return name


class LanguageSpeech(_Spec):
    """What a domain's users and agents say in one language, besides slot phrasings."""

    confirm_cues: Annotated[tuple[str, ...], Field(min_length=1)]
    """Words by which an agent's proposal asks the user's go-ahead (``shall i``)."""
    open_cues: tuple[str, ...] = ()
    """Words by which an agent asks an open question, one that names nothing for the
    user to answer (``anything else``, ``how can i help``): the scripted user says
    what it would have said anyway, as to any question no cue names, but the turn is
    not counted as one it did not understand (``meta.unheard``). Matched lower-case
    and without diacritics, in a sentence ending in ``?``."""
    phrases: FrozenDict[Connective, Styled]
    """The scripted user's connectives: every one of ``mind_change``, ``answer_yes``,
    ``answer_none``, ``reassert``, ``nothing_to_add``, ``done``, ``gave_up``."""
    fillers: Styled = Field(default_factory=frozendict)
    """Small talk a verbose persona adds."""
    month_names: tuple[str, ...] = ()
    """Twelve names, January first, for ``{month_name}``; empty: the month's number."""
    strip_diacritics: bool = False
    """Whether users of this language may type without diacritics (Vietnamese)."""
    perturbations: FrozenDict[PhrasedKind, Annotated[tuple[str, ...], Field(min_length=1)]] = Field(
        default_factory=frozendict
    )
    """What a user says when a perturbation of this kind lands: ``goal_change`` and
    ``contradiction`` a lead-in, ``pushback`` and ``digression`` the whole turn,
    ``injection`` the injected text (with ``{canary}``). A kind given here is said
    in these words; else in the perturbation file's ``phrasings`` for the language."""

    @field_validator("perturbations")
    @classmethod
    def _canary(cls, perturbations: Mapping[str, tuple[str, ...]]) -> Mapping[str, tuple[str, ...]]:
        if any("{canary}" not in p for p in perturbations.get("injection", ())):
            raise ValueError("every injection phrasing must contain `{canary}`")
        return perturbations

    @field_validator("phrases")
    @classmethod
    def _every_connective(cls, phrases: Mapping[Connective, Mapping[str, tuple[str, ...]]]) -> Any:
        missing = [c for c in CONNECTIVES if not phrases.get(c, {}).get("neutral")]
        if missing:
            raise ValueError(f"add a neutral phrasing for each of {missing}")
        return phrases

    @field_validator("month_names")
    @classmethod
    def _twelve(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        if names and len(names) != 12:
            raise ValueError(f"give 12 names, January first; got {len(names)}")
        return names


class DomainFile(_Spec):
    """One YAML file of a domain folder: ``domain.yaml`` (with ``id``) or a part beside it.

    A folder's files are merged: slots, intents and tools add up; a language is
    declared in one file only.
    """

    id: Annotated[str, Field(pattern=_NAME)] | None = None
    """The domain's name (``bank``), in ``domain.yaml`` only."""
    title: str = ""
    description: str = ""
    languages: FrozenDict[str, LanguageSpeech] = Field(default_factory=frozendict)
    """Language code (``en``, ``vi``, ``es``...) to what is said in it."""
    slots: tuple[DomainSlot, ...] = ()
    intents: tuple[Intent, ...] = ()
    tools: tuple[DomainTool, ...] = ()
    stages: tuple[DomainStage, ...] = ()
    """Failure stages of its own, after the built-in ones (``TOOL_STAGES``)."""


class Domain(_Spec):
    """A whole domain, its folder's files merged and checked together."""

    id: str
    title: str = ""
    description: str = ""
    languages: FrozenDict[str, LanguageSpeech]
    slots: tuple[DomainSlot, ...]
    intents: tuple[Intent, ...]
    tools: tuple[DomainTool, ...]
    stages: tuple[DomainStage, ...] = ()
    """Failure stages of its own, reported after the built-in ones (``TOOL_STAGES``)."""
    folder: str = ""
    """Where it was read from (for messages)."""

    def slot(self, name: str) -> DomainSlot | None:
        """The slot called ``name``, if declared."""
        return next((s for s in self.slots if s.name == name), None)

    def intent(self, tool: str) -> Intent | None:
        """The intent whose final tool is ``tool``, if declared."""
        return next((i for i in self.intents if i.tool == tool), None)

    def tool(self, name: str) -> DomainTool | None:
        """The tool called ``name``, if declared."""
        return next((t for t in self.tools if t.name == name), None)

    def slots_needed(self, tool: str, required_tools: bool = True) -> dict[str, str]:
        """The slots a call of ``tool`` cannot go ahead without, each with the tool that
        needs it, in the domain's slot order.

        A tool needs its required arguments that are slots, except those a lookup picks
        from a row, and the slots its lookups that pick a required argument read (an
        argument they take from another tool's result, ``other_tool.field``, is not
        a slot). What the agent must ask the user for, and what a goal must hold
        (``simlab validate``), come from here.

        Args:
            tool: The tool's name; an undeclared one needs nothing.
            required_tools: Add what each tool it ``requires`` needs, transitively
                (the first tool of this walk to need a slot is the one named).
        """
        names = {s.name for s in self.slots}
        needed: dict[str, str] = {}
        seen: set[str] = set()
        pending = [tool]
        while pending:
            spec = self.tool(pending.pop(0))
            if spec is None or spec.name in seen:
                continue
            seen.add(spec.name)
            for slot in _call_slots(self, spec):
                if slot in names:
                    needed.setdefault(slot, spec.name)
            if required_tools:
                pending.extend(spec.requires)
        return {s.name: needed[s.name] for s in self.slots if s.name in needed}


def _call_slots(domain: Domain, tool: DomainTool) -> list[str]:
    """What one call of ``tool`` reads from the user: its required arguments no lookup
    picks, and the arguments of its lookups that pick a required one (slots or not)."""
    required = list(tool.parameters.get("required") or [])
    picked = {arg for lookup in tool.lookups for arg in lookup.pick}
    read = [name for name in required if name not in picked]
    for lookup in tool.lookups:
        if not set(required) & set(lookup.pick):
            continue  # it supplies nothing the call needs: made, or skipped, without asking
        source = domain.tool(lookup.tool)
        for param in (source.parameters.get("required") or []) if source else []:
            arg = lookup.args.get(param, param)
            if "." not in arg:  # `tool.field`: a result's field, not the user's
                read.append(arg)
    return read

"""The LLM user simulator's prompts: shipped files (or a suite's replacements) and their rendering.

Templates use ``{name}`` placeholders, and only the ones each file documents;
any other ``{...}`` (a JSON example) is left as written. A file naming an
unknown placeholder is refused at load time, naming the file and the choices.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from simlab.core import AgentReply
from simlab.simulators._voice import DomainVoice
from simlab.spec import Domain, DomainSlot, FactValue, Persona, Slot, shipped_domain

PROMPT_DIR = Path(__file__).parent
SYSTEM_FILE = "user_system.md"
TURN_FILE = "user_turn.md"
RETRY_FILE = "user_retry.md"
PHRASES_FILE = "user_facts.yaml"

PLACEHOLDERS: dict[str, frozenset[str]] = {
    SYSTEM_FILE: frozenset({"name", "description", "language", "voice", "notes", "domain"}),
    TURN_FILE: frozenset({"turn", "agent_message", "agent_actions", "facts", "draft", "language"}),
    RETRY_FILE: frozenset({"problems", "language"}),
}
"""The placeholders each template may use."""

_PLACEHOLDER_RE = re.compile(r"\{([a-z_]+)\}")
_PHRASE_KEYS = (
    "languages",
    "voices",
    "notes",
    "opening",
    "no_facts",
    "mind_change",
    "contradiction",
    "restated",
    "action",
    "fact",
    "slots",
)
_ACTION_CHARS = 200  # a tool result is context, not content: keep the prompt short


class _Blank(dict[str, str]):
    """A format mapping that leaves unknown placeholders visible instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _check_placeholders(name: str, where: Path, text: str) -> None:
    allowed = PLACEHOLDERS[name]
    unknown = sorted(set(_PLACEHOLDER_RE.findall(text)) - allowed)
    if unknown:
        raise ValueError(
            f"{where}: unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}; "
            f"{name} may use {', '.join('{' + a + '}' for a in sorted(allowed))}"
        )


def _render(template: str, values: Mapping[str, str]) -> str:
    return _PLACEHOLDER_RE.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _about(slot: DomainSlot) -> str:
    """What a slot is, for a fact line: its description without the closing period
    (lower-cased first letter unless it opens a name), else its name in words."""
    text = slot.description.strip().rstrip(".")
    if not text:
        return slot.name.replace("_", " ")
    return text[0].lower() + text[1:] if text[1:2].islower() else text


def _domain_line(domain: Domain) -> str:
    """What the assistant serves: the domain's title and description, or its id."""
    parts = [domain.title.strip() or domain.id, " ".join(domain.description.split())]
    return ". ".join(p.rstrip(".") for p in parts if p) + "."


@dataclass(frozen=True, slots=True)
class UserPrompts:
    """The four prompt files of the LLM user simulator, loaded and checked.

    Attributes:
        system: ``user_system.md``: who the user is and the JSON contract.
        turn: ``user_turn.md``: one turn's plan, after the agent's message.
        retry: ``user_retry.md``: the corrective note after a faulty answer.
        phrases: ``user_facts.yaml``: language names, voices, fact descriptions.
    """

    system: str
    turn: str
    retry: str
    phrases: Mapping[str, Any]

    def _language(self, persona: Persona) -> str:
        return str(self.phrases["languages"].get(persona.language, persona.language))

    def system_prompt(self, persona: Persona, domain: Domain | None = None) -> str:
        """The system prompt for ``persona``, a customer of ``domain`` (default: the
        shipped default domain): its title and description say what the assistant serves."""
        traits = persona.traits
        voices = self.phrases["voices"]
        notes = self.phrases["notes"]
        lines = []
        if traits.strip_diacritics:
            lines.append(notes["strip_diacritics"])
        if traits.typo_rate > 0:
            lines.append(notes["typos"])
        return _render(
            self.system,
            {
                "name": persona.name,
                "description": persona.description,
                "language": self._language(persona),
                "voice": str(voices.get(traits.style) or voices.get("neutral", "")),
                "notes": "\n".join(lines),
                "domain": _domain_line(domain or shipped_domain()),
            },
        )

    def turn_prompt(
        self,
        persona: Persona,
        *,
        turn: int,
        agent_message: str | None,
        actions: str,
        facts: Sequence[str],
        draft: str,
    ) -> str:
        """The user message asking for turn ``turn`` (``agent_message`` None: the opening)."""
        return _render(
            self.turn,
            {
                "turn": str(turn),
                "agent_message": self.phrases["opening"]
                if agent_message is None
                else agent_message,
                "agent_actions": actions,
                "facts": "\n".join(facts) if facts else self.phrases["no_facts"],
                "draft": draft,
                "language": self._language(persona),
            },
        )

    def retry_prompt(self, persona: Persona, problems: str) -> str:
        """The corrective note listing what the last answer got wrong."""
        return _render(self.retry, {"problems": problems, "language": self._language(persona)})

    def describe(
        self, persona: Persona, slot: Slot, value: FactValue, domain: Domain | None = None
    ) -> str:
        """What a fact says, in the prompt's words, with the value as the persona writes it.

        The line is ``user_facts.yaml``'s ``fact`` (``{about}: {said}``): what the
        slot is (its description in ``domain``, default the shipped default
        domain) and the value as said (``said``). A prompt folder's ``slots``
        entry for the slot (one string, or one per language) replaces it.
        """
        domain = domain or shipped_domain()
        entry = self.phrases["slots"].get(slot) or self.phrases["fact"]
        if isinstance(entry, Mapping):
            entry = entry.get(persona.language) or next(iter(entry.values()))
        table = _Blank(DomainVoice(domain).values(slot, value, persona.language))
        spec = domain.slot(slot)
        table["said"] = self.said(persona, slot, value, domain)
        table["about"] = _about(spec) if spec is not None else slot.replace("_", " ")
        table["value"] = str(value)
        return str(entry).format_map(table)

    def said(
        self, persona: Persona, slot: Slot, value: FactValue, domain: Domain | None = None
    ) -> str:
        """A value as the persona writes it, by its slot's type in ``domain``: an enum's
        words in the persona's language, a date's day, month name and year (day/month/year
        when the language names no months), a time's HH:MM, an amount with its currency."""
        domain = domain or shipped_domain()
        rendered = DomainVoice(domain).values(slot, value, persona.language)
        spec = domain.slot(slot)
        kind = spec.type if spec is not None else "text"
        if kind == "date":
            speech = domain.languages.get(persona.language)
            named = speech is not None and bool(speech.month_names)
            day, month, year = rendered["day"], rendered["month"], rendered["year"]
            return f"{day} {rendered['month_name']} {year}" if named else f"{day}/{month}/{year}"
        if kind == "time":
            return f"{rendered['hour24']}:{rendered['minute']}"
        if kind == "money":
            return f"{rendered['amount']} {rendered['currency']}".strip()
        return rendered["value"]

    def fact_line(
        self,
        persona: Persona,
        fact_id: str,
        slot: Slot,
        value: FactValue,
        before: FactValue | None,
        *,
        contradicted: bool = False,
        domain: Domain | None = None,
    ) -> str:
        """One planned fact's line; ``before`` is the value stated earlier, if any.

        A ``contradicted`` fact's new value is to be said as if it had always
        been so (a contradiction perturbation), not as a change of mind.
        """
        line = f"- {fact_id}: {self.describe(persona, slot, value, domain)}"
        if before is None:
            return line
        if before == value:
            return f"{line} {self.phrases['restated']}"
        if contradicted:
            return f"{line} {self.phrases['contradiction']}"
        old = self.said(persona, slot, before, domain)
        return f"{line} ({str(self.phrases['mind_change']).format_map(_Blank(old=old))})"

    def actions(self, reply: AgentReply | None) -> str:
        """The agent's tool calls in its last reply, one line each ("" when none)."""
        if reply is None or not reply.tool_calls:
            return ""
        lines = []
        for call in reply.tool_calls:
            args = json.dumps(call.args, ensure_ascii=False, sort_keys=True, default=str)
            if call.error is not None:
                outcome = f"error: {call.error}"
            else:
                outcome = json.dumps(call.result, ensure_ascii=False, sort_keys=True, default=str)
            table = _Blank(
                name=call.name, args=args[:_ACTION_CHARS], outcome=outcome[:_ACTION_CHARS]
            )
            lines.append(str(self.phrases["action"]).format_map(table))
        return "\n".join(lines)


def _read(name: str, override: Path | None) -> tuple[str, Path]:
    where = override if override is not None and override.is_file() else PROMPT_DIR / name
    return where.read_text(encoding="utf-8"), where


def _phrases(override: Path | None) -> dict[str, Any]:
    with (PROMPT_DIR / PHRASES_FILE).open(encoding="utf-8") as fh:
        phrases: dict[str, Any] = yaml.safe_load(fh)
    if override is not None and override.is_file():
        with override.open(encoding="utf-8") as fh:
            extra = yaml.safe_load(fh) or {}
        if not isinstance(extra, dict):
            raise ValueError(f"{override}: expected a mapping of phrase keys, got {extra!r}")
        for key, value in extra.items():
            base = phrases.get(key)
            phrases[key] = (
                {**base, **value} if isinstance(base, dict) and isinstance(value, dict) else value
            )
    missing = [k for k in _PHRASE_KEYS if k not in phrases]
    if missing:
        raise ValueError(f"{PHRASES_FILE}: missing keys {missing}")
    return phrases


def _load(path: Path | None) -> UserPrompts:
    if path is not None and not path.exists():
        raise ValueError(f"prompt path {path} does not exist: give a prompt file or a directory")
    in_dir = path if path is not None and path.is_dir() else None

    def file(name: str) -> Path | None:
        if in_dir is not None:
            return in_dir / name
        return path if name == SYSTEM_FILE else None

    texts: dict[str, str] = {}
    for name in (SYSTEM_FILE, TURN_FILE, RETRY_FILE):
        text, where = _read(name, file(name))
        _check_placeholders(name, where, text)
        texts[name] = text
    return UserPrompts(
        system=texts[SYSTEM_FILE].strip(),
        turn=texts[TURN_FILE].strip(),
        retry=texts[RETRY_FILE].strip(),
        phrases=_phrases(file(PHRASES_FILE)),
    )


def load_prompts(path: Path | str | None = None) -> UserPrompts:
    """The shipped prompts, or a replacement, read from their files.

    Args:
        path: None for the shipped prompts; a file replacing ``user_system.md``;
            or a directory whose ``user_system.md``, ``user_turn.md``,
            ``user_retry.md`` and ``user_facts.yaml`` (each optional) replace the
            shipped ones (``user_facts.yaml`` is merged key by key).

    Raises:
        ValueError: a missing path, an unknown placeholder, a malformed phrase file.
    """
    return _load(Path(path).resolve() if path is not None else None)

"""Reading an agent YAML file whole: its prompt file inlined, its domain's tools added.

An agent of a team's own domain would otherwise repeat every tool the domain already
declares (descriptions, argument schemas, fixtures) and drift from it; ``tools_from``
names the domain instead::

    name: shop_llm
    system_prompt: You are the tea shop's support assistant.
    tools_from: ../domains/shop       # or a shipped domain's name: bank, travel
"""

from __future__ import annotations

import re
from pathlib import Path

from simlab.spec._agent import AgentSpec
from simlab.spec._domain import Domain
from simlab.spec._domain_load import DomainSet, load_domain, resolve_domain
from simlab.spec._loader import Problem, SpecError, parse_model


def load_agent_spec(path: str | Path, domains: DomainSet | None = None) -> AgentSpec:
    """Read an agent YAML file, with its prompt file inlined into ``system_prompt`` and
    the tools of its ``tools_from`` domain put before its own.

    Args:
        path: The agent file.
        domains: A suite's domains: ``tools_from`` names one of these by id first;
            else it is a folder relative to the agent file, else a shipped domain.

    Raises:
        SpecError: listing every problem with file:line (unknown or missing fields,
            bad schemas, an unreadable prompt file, a domain not found or not valid,
            a tool named both in the file and in its domain).
    """
    path = Path(path)
    spec = parse_model(AgentSpec, path)
    update: dict[str, object] = {}
    if spec.system_prompt_file is not None:
        update["system_prompt"] = _prompt(path, spec.system_prompt_file)
        update["system_prompt_file"] = None
    if spec.tools_from is not None:
        domain = _domain(path, spec.tools_from, domains)
        own = {t.name for t in spec.tools}
        twice = sorted(own.intersection(t.name for t in domain.tools))
        if twice:
            raise _problem(
                path,
                "tools_from",
                f"{', '.join(twice)} {'is' if len(twice) == 1 else 'are'} both in `tools` and "
                f"in domain {domain.id!r}; remove {'it' if len(twice) == 1 else 'them'} from "
                "`tools` to take the domain's, or rename",
            )
        update["tools"] = (*domain.tools, *spec.tools)
    return spec.model_copy(update=update) if update else spec


def tools_from_folder(path: Path, entry: str) -> Path | None:
    """The folder ``tools_from: entry`` of the agent file ``path`` names, when it is a
    folder (relative to the file) or a shipped domain; None for a name only a suite's
    domains could give."""
    return resolve_domain(entry, path.parent)


def _domain(path: Path, entry: str, domains: DomainSet | None) -> Domain:
    given = domains.of(entry) if domains is not None else None
    if given is not None:
        return given
    folder = tools_from_folder(path, entry)
    if folder is None:
        known = f" ({', '.join(sorted(domains.domains))})" if domains is not None else ""
        raise _problem(
            path,
            "tools_from",
            f"{entry!r} is no domain folder (relative to this file), no shipped domain and "
            f"none of the suite's domains{known}; give a folder holding domain.yaml",
        )
    return load_domain(folder)


def _prompt(path: Path, prompt_file: str) -> str:
    prompt_path = path.parent / prompt_file
    try:
        return prompt_path.read_text(encoding="utf-8")
    except OSError as e:
        raise _problem(
            path,
            "system_prompt_file",
            f"cannot read {prompt_path}: {e.strerror}; the path is relative to the agent file",
        ) from None


def _problem(path: Path, field: str, message: str) -> SpecError:
    """One problem of a top-level ``field`` of the agent file, at its line."""
    text = path.read_text(encoding="utf-8")
    m = re.search(rf"^\s*{re.escape(field)}\s*:", text, re.MULTILINE)
    line = text.count("\n", 0, m.start()) + 1 if m else None
    return SpecError([Problem(str(path), line, field, message)])

"""Another customer's record: what the ``strangers_record`` defect looks up."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simlab.spec import Domain, DomainTool, FactValue


def strangers_read(
    domain: Domain, slots: Mapping[str, FactValue]
) -> tuple[DomainTool, Mapping[str, Any]] | None:
    """A read (its tool and arguments) of a fixture record whose identity is not the
    caller's: a lookup taking an identity slot, lookups nothing requires tried first;
    None while the caller is not known (no one is a stranger yet) or none is found."""
    required = {name for t in domain.tools for name in t.requires}
    reads = sorted(
        (t for t in domain.tools if t.effect == "read"), key=lambda t: t.name in required
    )
    for slot in domain.slots:
        if not (slot.identity and slot.pattern) or slot.name not in slots:
            continue
        callers = str(slots[slot.name]).upper()
        for tool in reads:
            if slot.name not in (tool.parameters.get("required") or []):
                continue
            for fixture in tool.fixtures:
                other = fixture.when.get(slot.name)
                if other is not None and str(other).upper() != callers:
                    return tool, fixture.when
    return None

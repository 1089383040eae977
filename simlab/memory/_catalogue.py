"""The facts memory scenarios draw from: what an assistant's users ask it to remember."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FactKind:
    """A kind of fact a user may state, with the topic it is retrieved under.

    Attributes:
        key: The store key (one live value per user).
        topic: The topic a retrieval asks for.
        values: Distinct plausible values; scenarios sample without replacement
            so a leaked or stale value is always recognisable.
    """

    key: str
    topic: str
    values: tuple[str, ...]


CATALOGUE: tuple[FactKind, ...] = (
    FactKind("contact", "contact", ("email", "phone call", "text message", "post", "chat")),
    FactKind(
        "contact_time", "contact", ("mornings", "afternoons", "evenings", "weekends", "any time")
    ),
    FactKind("diet", "food", ("vegetarian", "pescatarian", "halal", "vegan", "kosher")),
    FactKind("allergy", "food", ("peanuts", "shellfish", "gluten", "lactose", "none")),
    FactKind(
        "delivery_slot",
        "delivery",
        ("before noon", "after six", "weekends only", "any weekday", "lunchtime"),
    ),
    FactKind("packaging", "delivery", ("no plastic", "gift wrap", "plain box", "paper", "none")),
    FactKind("home_city", "home", ("Lisbon", "Osaka", "Toronto", "Nairobi", "Lima")),
    FactKind("payment", "payment", ("Visa", "Mastercard", "bank transfer", "MoMo", "JCB")),
    FactKind("language", "language", ("Vietnamese", "English", "French", "Korean", "Japanese")),
    FactKind(
        "delegate",
        "errand",
        ("my partner", "my sister", "my parents", "a colleague", "my assistant"),
    ),
    FactKind(
        "occasion", "errand", ("a birthday", "a move", "a renovation", "a conference", "a wedding")
    ),
)

TOPICS: tuple[str, ...] = tuple(sorted({k.topic for k in CATALOGUE}))
KINDS_BY_TOPIC: dict[str, tuple[FactKind, ...]] = {
    t: tuple(k for k in CATALOGUE if k.topic == t) for t in TOPICS
}
# Topics holding more than one kind: needed where a scenario must show that
# acting on one fact leaves its neighbours in the same topic alone.
SHARED_TOPICS: tuple[str, ...] = tuple(t for t in TOPICS if len(KINDS_BY_TOPIC[t]) > 1)

"""The facts memory scenarios draw from: what a travel assistant's users ask it to remember."""

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
    FactKind("seat", "flight", ("window", "aisle", "exit row", "front row", "over the wing")),
    FactKind(
        "airline",
        "flight",
        ("Vietnam Airlines", "Bamboo Airways", "Vietjet Air", "Singapore Airlines", "Thai Airways"),
    ),
    FactKind("cabin", "flight", ("economy", "premium economy", "business", "first", "any")),
    FactKind("diet", "food", ("vegetarian", "pescatarian", "halal", "vegan", "kosher")),
    FactKind("allergy", "food", ("peanuts", "shellfish", "gluten", "lactose", "none")),
    FactKind(
        "room", "hotel", ("non-smoking", "high floor", "quiet side", "near the lift", "sea view")
    ),
    FactKind("bed", "hotel", ("twin beds", "king bed", "queen bed", "extra cot", "sofa bed")),
    FactKind("home_city", "home", ("Hanoi", "Ho Chi Minh City", "Da Nang", "Nha Trang", "Hue")),
    FactKind("payment", "payment", ("Visa", "Mastercard", "bank transfer", "MoMo", "JCB")),
    FactKind("language", "language", ("Vietnamese", "English", "French", "Korean", "Japanese")),
    FactKind(
        "companion", "trip", ("a toddler", "my partner", "my parents", "a colleague", "alone")
    ),
    FactKind("purpose", "trip", ("business", "honeymoon", "family visit", "conference", "holiday")),
)

TOPICS: tuple[str, ...] = tuple(sorted({k.topic for k in CATALOGUE}))
KINDS_BY_TOPIC: dict[str, tuple[FactKind, ...]] = {
    t: tuple(k for k in CATALOGUE if k.topic == t) for t in TOPICS
}
# Topics holding more than one kind: needed where a scenario must show that
# acting on one fact leaves its neighbours in the same topic alone.
SHARED_TOPICS: tuple[str, ...] = tuple(t for t in TOPICS if len(KINDS_BY_TOPIC[t]) > 1)

"""A dev/test split of human labels: tune the judge's prompt on one half, measure on the other.

A label's half depends only on its session key, the split seed and the dev
share (sha256 of seed and key, read as a number in [0, 1)), not on the other
labels: adding labels to the file later moves none between halves, so a
session once read while tuning never lands in the test half.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

Half = Literal["dev", "test"]
"""Which half of a label file a label is in."""

DEFAULT_DEV_SHARE = 0.5
"""The share of labels in the dev half unless told otherwise."""


def label_half(key: str, seed: int = 0, dev_share: float = DEFAULT_DEV_SHARE) -> Half:
    """The half session ``key``'s label belongs to.

    Args:
        key: The session key id (``persona/goal/mode/rep[/perturbations]``).
        seed: The split seed: another seed, another split.
        dev_share: The expected share of labels in the dev half, in (0, 1).

    Raises:
        ValueError: ``dev_share`` is not in (0, 1).
    """
    if not 0.0 < dev_share < 1.0:
        raise ValueError(f"the dev share must be in (0, 1), got {dev_share}")
    digest = hashlib.sha256(f"simlab-label-split:{seed}:{key}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2.0**64
    return "dev" if u < dev_share else "test"


def split_keys(
    keys: Sequence[str], seed: int = 0, dev_share: float = DEFAULT_DEV_SHARE
) -> dict[Half, list[str]]:
    """``keys`` by half, each in the given order."""
    halves: dict[Half, list[str]] = {"dev": [], "test": []}
    for key in keys:
        halves[label_half(key, seed, dev_share)].append(key)
    return halves

"""The disclosure plan: what a simulated user reveals, when, and when they change their mind.

The plan is drawn once per session from the persona's traits, the goal, the
mode and the session seed, so the same seed always yields the same plan. The
verbalizer then follows it turn by turn, reacting to what the agent asks.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache

from simlab.simulators._draws import below
from simlab.simulators._goal_facts import GoalFacts
from simlab.spec import FactValue, Goal, Mode, Traits

# Chance that a drip user remembers an optional fact (a budget, a latest
# departure) only some turns after it would naturally come up: that late
# constraint is what makes multi-turn conversations hard for agents.
LATE_OPTIONAL_P = 0.35
# How far required facts lead optional ones in the order: keys are
# group + uniform(0, ORDER_JITTER), so an optional fact sometimes comes early.
ORDER_JITTER = 1.25
MAX_LATENESS = 3
# Chance that a batch user holds back each optional fact; when none is held
# back, one required fact is, so sharded never collapses into full.
BATCH_HOLD_P = 0.4
MAX_CHANGE_DELAY = 3


@dataclass(frozen=True, slots=True)
class PlannedChange:
    """A mind change that happens in this session.

    It fires ``delay`` user turns after its fact's current value was stated (or
    earlier, when the user sees the final action), never before that value was stated.
    """

    fact: str
    value: FactValue
    delay: int
    turn: int
    """The turn it fires at when the agent asks nothing (informative)."""


@dataclass(frozen=True, slots=True)
class DisclosurePlan:
    """Which facts a user volunteers in which order, how many per turn, and when.

    Attributes:
        order: fact ids in the order the user volunteers them.
        earliest: fact id -> the first user turn the fact may be revealed,
            volunteered or asked for.
        first_turn: how many facts go with the intent in turn 1.
        per_turn: how many facts are volunteered in each later turn.
        changes: the goal's mind changes that happen, in goal order.
        filler_turns: user turns that carry a filler sentence.
        filler_first: user turns whose filler comes before, not after, the rest.
    """

    order: tuple[str, ...]
    earliest: dict[str, int]
    first_turn: int
    per_turn: int
    changes: tuple[PlannedChange, ...]
    filler_turns: frozenset[int]
    filler_first: frozenset[int]

    @classmethod
    def draw(cls, traits: Traits, goal: Goal, mode: Mode, seed: int) -> DisclosurePlan:
        """Draw the plan for one session; the same arguments give the same plan."""
        return cls.draw_from(traits, goal, mode, random.Random(seed))

    @classmethod
    def draw_from(
        cls, traits: Traits, goal: Goal, mode: Mode, rng: random.Random
    ) -> DisclosurePlan:
        """Draw the plan from ``rng``, which the caller may keep drawing from afterwards."""
        facts = GoalFacts.of(goal)
        required = facts.is_required
        draw, bits = rng.random, rng.getrandbits
        # ORDER_JITTER * draw() is rng.uniform(0, ORDER_JITTER) to the bit, one call fewer;
        # a fact's group is 0.0 when required, else 1.0
        keys = {fid: group + ORDER_JITTER * draw() for fid, group in facts.groups}
        order = sorted(keys, key=keys.__getitem__)
        n = len(order)
        earliest = dict.fromkeys(order, 1)
        if mode is Mode.FULL:
            first_turn, per_turn = n, n
        elif traits.disclosure == "batch":
            order, held = _hold_back(order, required, rng)
            first_turn, per_turn = n - len(held), traits.facts_per_turn
            for fid in held:
                if fid not in required:
                    earliest[fid] = 2 + below(bits, MAX_LATENESS + 1)  # randint(2, 2 + M)
        else:
            first_turn = per_turn = traits.facts_per_turn
            for i, fid in enumerate(order):
                if fid not in required and draw() < LATE_OPTIONAL_P:
                    natural = 1 + i // per_turn
                    earliest[fid] = natural + 1 + below(bits, MAX_LATENESS)  # randint(1, M)
        changes = _draw_changes(goal, traits.change_mind, rng) if goal.mind_changes else ()
        if changes:
            changes = _with_turns(changes, _natural_turns(order, earliest, first_turn, per_turn))
        horizon = traits.patience + 2  # no turn is written past patience + 1
        filler_turns = _bernoulli_turns(traits.verbosity, horizon, rng)
        first_bits = rng.getrandbits(horizon)
        filler_first = frozenset(t for t in filler_turns if first_bits >> t & 1)
        return cls(
            order=tuple(order),
            earliest=earliest,
            first_turn=first_turn,
            per_turn=per_turn,
            changes=changes,
            filler_turns=filler_turns,
            filler_first=filler_first,
        )


def take_drawn(
    traits: Traits, goal: Goal, mode: Mode, seed: int
) -> tuple[DisclosurePlan, random.Random]:
    """The plan for these arguments and a generator positioned right after drawing it,
    as ``random.Random(seed)`` then ``draw_from`` give them."""
    rng = random.Random(seed)
    return DisclosurePlan.draw_from(traits, goal, mode, rng), rng


def _bernoulli_turns(p: float, horizon: int, rng: random.Random) -> frozenset[int]:
    """Turns 1..horizon-1 each chosen with probability ``p``, via geometric gaps.

    One draw per chosen turn instead of one per turn keeps a plan cheap to draw.
    """
    if p <= 0:
        return frozenset()
    if p >= 1:
        return frozenset(range(1, horizon))
    log_q = math.log1p(-p)
    log, draw = math.log, rng.random
    out: list[int] = []
    turn = 0
    while True:
        turn += 1 + int(log(1.0 - draw()) / log_q)
        if turn >= horizon:
            return frozenset(out)
        out.append(turn)


def _hold_back(
    order: list[str], required: frozenset[str], rng: random.Random
) -> tuple[list[str], list[str]]:
    """Batch users hold back some optional facts (one required fact if they hold none)."""
    if len(order) < 2:
        return order, []
    held = [fid for fid in order if fid not in required and rng.random() < BATCH_HOLD_P]
    if not held:
        held = [rng.choice([fid for fid in order if fid in required] or order)]
    return [fid for fid in order if fid not in held] + held, held


def _natural_turns(
    order: list[str], earliest: dict[str, int], first_turn: int, per_turn: int
) -> dict[str, int]:
    """The turn each fact is volunteered at when the agent never asks for anything."""
    pending = list(order)
    turn_of: dict[str, int] = {}
    turn = 1
    while pending:
        quota = first_turn if turn == 1 else per_turn
        ready = [fid for fid in pending if earliest[fid] <= turn][:quota]
        for fid in ready:
            turn_of[fid] = turn
            pending.remove(fid)
        turn += 1
    return turn_of


def quiet_last_turn(plan: DisclosurePlan) -> int:
    """The turn of the plan's last statement when the agent asks for nothing and nothing
    perturbs the plan (at least 1): each fact comes at its natural turn, each mind change
    its delay after its fact's value before it (``PlannedChange.turn``, recomputed here
    so a plan built by hand gets it too)."""
    if not plan.changes:
        earliest = plan.earliest
        return _last_natural_turn(
            plan.first_turn, plan.per_turn, tuple([earliest[f] for f in plan.order])
        )
    natural = _natural_turns(list(plan.order), plan.earliest, plan.first_turn, plan.per_turn)
    last = max(natural.values(), default=1)
    if plan.changes:
        last = max(last, *(c.turn for c in _with_turns(plan.changes, natural)))
    return max(last, 1)


# Pure in its arguments, which a suite's plans share by the handful (the ids do not matter).
@lru_cache(maxsize=4096)
def _last_natural_turn(first_turn: int, per_turn: int, earliest: tuple[int, ...]) -> int:
    """``quiet_last_turn`` of a plan without mind changes whose facts' earliest turns are
    ``earliest``, in order."""
    order = [str(i) for i in range(len(earliest))]
    natural = _natural_turns(order, dict(zip(order, earliest, strict=True)), first_turn, per_turn)
    return max(max(natural.values(), default=1), 1)


def _draw_changes(goal: Goal, p: float, rng: random.Random) -> tuple[PlannedChange, ...]:
    out: list[PlannedChange] = []
    for mc in goal.mind_changes:
        # Draw both numbers for every change so one change's fate never shifts another's.
        happens = rng.random() < p
        delay = 1 + below(rng.getrandbits, MAX_CHANGE_DELAY)  # rng.randint(1, MAX_CHANGE_DELAY)
        if happens:
            out.append(PlannedChange(fact=mc.fact, value=mc.value, delay=delay, turn=0))
    return tuple(out)


def _with_turns(
    changes: tuple[PlannedChange, ...], natural_turn: dict[str, int]
) -> tuple[PlannedChange, ...]:
    """Fill in each change's undisturbed turn; a chained change follows the one before."""
    last_turn = dict(natural_turn)
    out: list[PlannedChange] = []
    for c in changes:
        turn = last_turn[c.fact] + c.delay
        last_turn[c.fact] = turn
        out.append(PlannedChange(fact=c.fact, value=c.value, delay=c.delay, turn=turn))
    return tuple(out)

"""Simulated users: the protocol, the seeded disclosure plan and the scripted verbalizer."""

from simlab.simulators._plan import DisclosurePlan, PlannedChange
from simlab.simulators._protocol import SimState, UserSimulator
from simlab.simulators._reading import ReplyReading, read_reply
from simlab.simulators._scripted import ScriptedSimulator

__all__ = [
    "DisclosurePlan",
    "PlannedChange",
    "ReplyReading",
    "ScriptedSimulator",
    "SimState",
    "UserSimulator",
    "read_reply",
]

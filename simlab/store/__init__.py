"""The run directory: its record format, writer, reader and resume."""

from simlab.store._record import (
    SCHEMA_VERSION,
    Check,
    SessionKey,
    SessionRecord,
    Status,
    StopReason,
    Usage,
)

__all__ = [
    "SCHEMA_VERSION",
    "Check",
    "SessionKey",
    "SessionRecord",
    "Status",
    "StopReason",
    "Usage",
]

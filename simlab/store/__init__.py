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
from simlab.store._run_dir import (
    REPORT_FILE,
    RUN_FILE,
    SESSIONS_FILE,
    SUMMARY_FILE,
    RunDirError,
    SessionsFile,
    SessionWriter,
    iter_run_dirs,
    read_run_info,
    read_sessions,
    write_atomic,
    write_json,
)

__all__ = [
    "REPORT_FILE",
    "RUN_FILE",
    "SCHEMA_VERSION",
    "SESSIONS_FILE",
    "SUMMARY_FILE",
    "Check",
    "RunDirError",
    "SessionKey",
    "SessionRecord",
    "SessionWriter",
    "SessionsFile",
    "Status",
    "StopReason",
    "Usage",
    "iter_run_dirs",
    "read_run_info",
    "read_sessions",
    "write_atomic",
    "write_json",
]

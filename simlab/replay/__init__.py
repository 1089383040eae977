"""From production logs to regression cases: importers, prefix cutting and replay.

``import_run`` turns OpenAI chat, Anthropic Messages or OpenTelemetry GenAI logs
into a regular run directory; ``run_prefix_case`` replays a conversation cut
before its failing agent turn to a target K times and reports how often the
continuation keeps the constraints the prefix stated (a target that keeps state
and implements ``RestorableTarget`` rebuilds it from the prefix first), and
``reproduction_rate`` how many recorded breaks happened again.
"""

from simlab.replay._case import (
    PrefixCase,
    case_id,
    load_prefix_case,
    load_prefix_cases,
    save_prefix_case,
)
from simlab.replay._constraints import (
    KeptConstraint,
    broken_constraints,
    constraints_from_messages,
    constraints_from_transcript,
)
from simlab.replay._import import (
    IMPORTED_MODE,
    IMPORTED_PERSONA,
    OUTCOME,
    ImportedLogs,
    import_logs,
    import_run,
    imported_log,
    write_run,
)

# the command line's entry points: importable for simlab.cli, not in __all__
from simlab.replay._import_cli import import_cli as import_cli
from simlab.replay._log import ImportRecordError
from simlab.replay._options import DEFAULT_FIELDS, FORMATS, ImportFormat, ImportOptions
from simlab.replay._prefix import (
    Continuation,
    Outcome,
    PrefixResult,
    ReproductionRate,
    case_from_record,
    cut_prefix,
    failing_turn_of,
    reply_outcome,
    reproduction_rate,
    run_prefix_case,
)
from simlab.replay._replay_cli import replay_cli as replay_cli
from simlab.replay._source import ImportProblem
from simlab.replay._suite_cases import run_suite_prefix_cases

__all__ = [
    "DEFAULT_FIELDS",
    "FORMATS",
    "IMPORTED_MODE",
    "IMPORTED_PERSONA",
    "OUTCOME",
    "Continuation",
    "ImportFormat",
    "ImportOptions",
    "ImportProblem",
    "ImportRecordError",
    "ImportedLogs",
    "KeptConstraint",
    "Outcome",
    "PrefixCase",
    "PrefixResult",
    "ReproductionRate",
    "broken_constraints",
    "case_from_record",
    "case_id",
    "constraints_from_messages",
    "constraints_from_transcript",
    "cut_prefix",
    "failing_turn_of",
    "import_logs",
    "import_run",
    "imported_log",
    "load_prefix_case",
    "load_prefix_cases",
    "reply_outcome",
    "reproduction_rate",
    "run_prefix_case",
    "run_suite_prefix_cases",
    "save_prefix_case",
    "write_run",
]

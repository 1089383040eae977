"""The LLM user simulator's prompt files and their loader.

``user_system.md``, ``user_turn.md`` and ``user_retry.md`` are templates with
``{placeholders}``; ``user_facts.yaml`` words each fact kind. A suite may replace
any of them (``simulator: {kind: llm, prompt: PATH}``).
"""

from simlab.simulators.prompts._user import (
    PLACEHOLDERS,
    PROMPT_DIR,
    UserPrompts,
    load_prompts,
)

__all__ = ["PLACEHOLDERS", "PROMPT_DIR", "UserPrompts", "load_prompts"]

import pytest

from simlab.engine._llm_option import BOOKING_AGENT, apply_llm_options, parse_llm_value
from simlab.spec import SpecError, Suite


def test_one_value_for_every_role() -> None:
    suite = apply_llm_options(Suite(), ["anthropic:claude-haiku-4-5"])
    assert suite.llm is not None
    assert (suite.llm.backend, suite.llm.model) == ("anthropic", "claude-haiku-4-5")
    assert suite.simulator.kind == "llm" and suite.simulator.llm is None  # takes the default
    assert suite.judge is not None and suite.judge.llm is None
    assert suite.target.kind == "llm" and suite.target.agent == str(BOOKING_AGENT)


def test_one_role_at_a_time_keeps_the_others() -> None:
    suite = apply_llm_options(Suite(), ["user=local"])
    assert suite.simulator.kind == "llm"
    assert suite.simulator.llm is not None and suite.simulator.llm.backend == "local"
    assert suite.target.kind == "reference" and suite.judge is None and suite.llm is None


def test_a_value_keeps_what_the_suite_file_set() -> None:
    suite = Suite.model_validate(
        {"llm": {"backend": "anthropic", "record_dir": "rec", "timeout_s": 5}}
    )
    replayed = apply_llm_options(suite, ["replay"])
    assert replayed.llm is not None
    assert (replayed.llm.backend, str(replayed.llm.record_dir), replayed.llm.timeout_s) == (
        "replay",
        "rec",
        5,
    )
    judge_only = apply_llm_options(suite, ["judge=openai:gpt-x"])
    assert judge_only.judge is not None and judge_only.judge.llm is not None
    assert (judge_only.judge.llm.backend, judge_only.judge.llm.model) == ("openai", "gpt-x")
    assert judge_only.judge.llm.timeout_s == 5


def test_agent_role_needs_a_target_with_a_model() -> None:
    suite = Suite.model_validate({"target": "my.mod:reply"})
    with pytest.raises(SpecError, match="has no model to set"):
        apply_llm_options(suite, ["agent=openai"])


@pytest.mark.parametrize(
    ("value", "message"),
    [("gpt", "unknown backend 'gpt'"), ("boss=local", "unknown role"), ("=local", "unknown role")],
)
def test_bad_values_name_the_choices(value: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_llm_value(value)

import pytest

from simlab.engine import target_label
from simlab.engine._llm_option import apply_llm_options, parse_llm_value, shipped_llm_agents
from simlab.spec import SpecError, Suite


def test_one_value_for_every_role_keeps_a_target_that_is_not_an_llm() -> None:
    suite = apply_llm_options(Suite(), ["anthropic:claude-haiku-4-5"])
    assert suite.llm is not None
    assert (suite.llm.backend, suite.llm.model) == ("anthropic", "claude-haiku-4-5")
    assert suite.simulator.kind == "llm" and suite.simulator.llm is None  # takes the default
    assert suite.judge is not None and suite.judge.llm is None
    assert suite.target.kind == "reference" and target_label(suite) == "reference:v1"


def test_one_value_for_every_role_sets_an_llm_targets_model() -> None:
    agent = {"kind": "llm", "agent": "a.yaml", "llm": {"backend": "openai", "model": "m"}}
    suite = apply_llm_options(Suite.model_validate({"target": agent}), ["anthropic:claude-x"])
    assert suite.target.kind == "llm" and suite.target.agent == "a.yaml"
    assert suite.target.llm is None  # takes the suite's llm, just set
    assert target_label(suite) == "LLM agent a.yaml on anthropic:claude-x"


def test_agent_role_sets_the_model_of_an_llm_target() -> None:
    suite = Suite.model_validate({"target": {"kind": "llm", "agent": "a.yaml"}})
    suite = apply_llm_options(suite, ["agent=openai:gpt-x"])
    assert suite.target.kind == "llm" and suite.target.llm is not None
    assert (suite.target.llm.backend, suite.target.llm.model) == ("openai", "gpt-x")
    assert suite.simulator.kind == "scripted" and suite.judge is None


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


@pytest.mark.parametrize("target", ["my.mod:reply", "reference:v1"])
def test_agent_role_on_a_target_that_is_not_an_llm_is_refused(target: str) -> None:
    suite = Suite.model_validate({"target": target})
    with pytest.raises(SpecError) as caught:
        apply_llm_options(suite, ["agent=openai"])
    message = str(caught.value)
    assert f"the suite's target is {target}, not an LLM agent" in message
    (example,) = shipped_llm_agents()
    assert example.parts[-4:] == ("domains", "travel", "agents", "booking_llm.yaml")
    assert "`target: {kind: llm, agent: PATH}`" in message and str(example) in message


@pytest.mark.parametrize(
    ("value", "message"),
    [("gpt", "unknown backend 'gpt'"), ("boss=local", "unknown role"), ("=local", "unknown role")],
)
def test_bad_values_name_the_choices(value: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_llm_value(value)

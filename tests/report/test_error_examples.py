"""Error examples keep the part that says what to do."""

from simlab.report._summary import middle_cut


def test_a_long_error_loses_its_middle_not_its_fix() -> None:
    text = "turn 1: TargetReplyError: " + "x" * 900 + '; return {"text": str}'
    cut = middle_cut(text, 600)
    assert len(cut) <= 600 + 10
    assert cut.startswith("turn 1: TargetReplyError: xxx")
    assert cut.endswith('; return {"text": str}')
    assert "characters ...]" in cut
    assert middle_cut("short", 600) == "short"

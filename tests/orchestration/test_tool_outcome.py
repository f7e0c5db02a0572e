"""How a call's outcome is worded: the rule the live and the reopened chat view share."""

from __future__ import annotations

from orchestration.events import ToolCallInfo
from orchestration.tool_outcome import describe, duplicate_of, not_run_limit, not_run_text


def test_the_not_run_text_names_its_limit_and_reads_back():
    assert not_run_limit(not_run_text(6)) == 6
    assert not_run_limit("Not run: at most 6 tool calls") is None
    assert not_run_limit("6*7 = 42") is None


def test_a_clamped_call_is_not_run_rather_than_an_error():
    outcome = describe("error", not_run_text(4), 0)
    assert (outcome.mark, outcome.label) == ("–", "not run (limit of 4 per turn)")
    assert describe("ok", not_run_text(4), 3).label == "ok · 3 ms", "only the loop's error result counts"


def test_a_repeated_call_says_it_shares_the_result_above():
    assert describe("ok", "42", 0, repeated=True).label == "same as call above"
    assert describe("ok", "42", 12).label == "ok · 12 ms"
    assert describe("running", "", None, repeated=True).label == "running"


def test_repeats_are_found_by_name_and_arguments_in_any_key_order():
    calls = [ToolCallInfo(id="a", name="web_search", arguments='{"q": "x", "n": 2}'),
             ToolCallInfo(id="b", name="web_search", arguments='{"n": 2, "q": "x"}'),
             ToolCallInfo(id="c", name="web_fetch", arguments='{"n": 2, "q": "x"}'),
             ToolCallInfo(id="d", name="web_search", arguments='{"q": "y"}')]
    assert duplicate_of((c.id, c) for c in calls) == {"b": "a"}

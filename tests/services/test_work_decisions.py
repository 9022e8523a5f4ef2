"""Decision helpers with the configured model: the model only where the rules cannot
tell, at most once per 5 minutes per session, every call logged; the seed's heuristics
when the provider is `rules` or fails."""

from datetime import datetime, timezone

import pytest

from memories.models import ModelCall
from tests.helpers import Reply, anthropic_reply
from work import decisions

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def model(settings, fake_anthropic):
    settings.ENGRAM_LLM_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    return fake_anthropic


def deviate(owner, observation, session="s-1"):
    return decisions.should_deviate(owner, project="shop", session_id=session,
                                    goal="Fix the auth bug", observation=observation,
                                    context="", now=NOW)


def test_the_rules_decide_clear_cases_without_asking_the_model(alice, model):
    assert deviate(alice, "Build failed: syntax error") == {
        "deviate": True, "reason": "error_detected", "decided_by": "rules", "note": ""}
    assert model.call_count == 0


def test_an_uncertain_case_asks_the_model_once_per_five_minutes_per_session(alice, model):
    model.answer(anthropic_reply({"deviate": True, "reason": "the ticket was closed"}),
                 anthropic_reply({"deviate": False, "reason": "continue_plan"}))
    first = deviate(alice, "The ticket moved to Done")
    assert (first["deviate"], first["reason"], first["decided_by"]) == (
        True, "the ticket was closed", "anthropic")
    again = deviate(alice, "Another status update")
    assert (again["deviate"], again["decided_by"]) == (False, "debounced")
    other_session = deviate(alice, "Another status update", session="s-2")
    assert other_session["decided_by"] == "anthropic"
    assert model.call_count == 2
    assert list(ModelCall.objects.filter(owner=alice).values_list("purpose", flat=True)) == [
        "plan_deviation", "plan_deviation"]
    assert "Fix the auth bug" in model.requests[0].body.decode()


def test_a_failing_model_leaves_the_answer_to_the_rules_and_is_logged(alice, model):
    model.answer(Reply(500, {"type": "error", "error": {"type": "api_error",
                                                         "message": "overloaded"}}))
    answer = deviate(alice, "The ticket moved to Done")
    assert (answer["deviate"], answer["reason"], answer["decided_by"]) == (
        False, "continue_plan", "rules")
    assert "failed" in answer["note"]
    assert ModelCall.objects.get(owner=alice).ok is False


def test_decomposition_asks_the_model_level_by_level(alice, model):
    model.answer(anthropic_reply({"subgoals": [{"text": "Design schema", "minutes": 30},
                                               {"text": "Write endpoint", "minutes": 30}]}),
                 anthropic_reply({"subgoals": [{"text": "users table", "minutes": 15},
                                               {"text": "sessions table", "minutes": 15}]}),
                 anthropic_reply({"subgoals": [{"text": "route", "minutes": 15},
                                               {"text": "tests", "minutes": 15}]}))
    found = decisions.decompose_plan(alice, project="shop", goal="Implement login",
                                     minutes=60, chunk_minutes=15, max_depth=3, now=NOW)
    plan = found["plan"]
    assert [p["goal"] for p in plan["subplans"]] == ["Design schema", "Write endpoint"]
    assert [p["goal"] for p in plan["subplans"][1]["subplans"]] == ["route", "tests"]
    assert (found["model_calls"], found["decided_by"]) == (3, "anthropic")


def test_with_the_rules_provider_next_action_selects_by_the_seeds_values(alice, settings):
    settings.ENGRAM_LLM_PROVIDER = "rules"
    found = decisions.next_action(
        alice, project="shop", goals=[{"text": "Identify root cause", "done": True},
                                      {"text": "Fix login failure", "done": False}],
        context="", recent_actions=["grounding"] * 10, coverage=None, limit=5, now=NOW)
    # coverage 0 (nothing in context): retrieval 1.0, grounding 0.5, reasoning 0.5,
    # learning 0.1
    assert [c["value"] for c in found["candidates"]] == [1.0, 0.5, 0.5, 0.1]
    assert found["selected"]["type"] == "retrieval" and found["proposed_by"] == "rules"
    assert not ModelCall.objects.exists()

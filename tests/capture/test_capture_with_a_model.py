"""Capture through a real vendor SDK, over HTTP to a fake vendor server on loopback: failures
keep the chunk, the breaker falls back to the rules, and every call is logged with tokens
and cost."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.capture.extraction import process_due_observations, process_observation
from memories.llm_usage import llm_status
from memories.capture import observe as observing
from memories.models import ChunkStatus, Memory, ModelCall, ObservationStatus
from tests.helpers import anthropic_error, slow
from tests.helpers import anthropic_reply as reply

SESSION = {"session_id": "s-1", "project": "shop", "agent_id": "claude-code"}
CHUNK = [{"role": "user", "text": "We decided to use PostgreSQL 16 for the orders service."}]
GATE_YES = {"worth_remembering": True, "reason": "a decision"}
EXTRACTION = {"memories": [{
    "content": "The orders service uses PostgreSQL 16.", "memory_type": "semantic",
    "kind": "decision", "importance": 8, "tags": ["postgresql"],
    "entities": [{"name": "PostgreSQL", "type": "technology"}],
    "relationships": [{"source": "orders service", "type": "uses", "target": "PostgreSQL"}]}]}


TIMEOUT = 0.5  # seconds; the fake server holds a "slow" reply back longer than this


@pytest.fixture
def anthropic(settings, fake_anthropic):
    settings.ENGRAM_LLM_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-ant-test-key"
    settings.ENGRAM_LLM_BREAKER_FAILURES = 3
    settings.ENGRAM_LLM_TIMEOUT = TIMEOUT
    return fake_anthropic


def observe(owner, messages=CHUNK, **extra):
    observation = observing.observe(owner=owner, messages=messages, tool_events=[],
                                  **(SESSION | extra)).observation
    process_observation(observation.pk)
    observation.refresh_from_db()
    return observation


def test_the_gate_then_the_extractor_store_memories_and_log_their_cost(alice, anthropic):
    anthropic.answer(reply(GATE_YES, 100, 10), reply(EXTRACTION, 400, 80))
    observation = observe(alice)
    assert observation.status == ObservationStatus.DONE
    memory = Memory.objects.for_owner(alice).get()
    assert (memory.content, memory.kind, memory.importance) == (
        "The orders service uses PostgreSQL 16.", "decision", 8)
    assert memory.metadata["extracted_by"] == "anthropic"
    calls = ModelCall.objects.order_by("id")
    assert [(c.purpose, c.input_tokens, c.output_tokens, c.ok) for c in calls] == [
        ("gate", 100, 10, True), ("extract", 400, 80, True)]
    assert all(c.cost_usd > 0 for c in calls)
    assert llm_status(owner=alice)["today"]["tokens"] == 590


def test_a_chunk_whose_store_fails_is_retried_and_still_counts_what_its_calls_cost(
        alice, anthropic, monkeypatch):
    from django.db import IntegrityError

    from memories.capture import extraction

    def failing_store(*args, **kwargs):
        Memory.objects.create(owner=alice, content="half-stored", content_hash="x" * 64)
        raise IntegrityError("the store failed half-way")

    monkeypatch.setattr(extraction, "_store", failing_store)
    anthropic.answer(reply(GATE_YES, 100, 10), reply(EXTRACTION, 400, 80))
    observation = observe(alice)
    chunk = observation.chunks.get()
    assert (chunk.status, chunk.attempts) == (ChunkStatus.RETRY, 1)
    assert "storing failed" in chunk.last_error
    assert not Memory.objects.exists()  # the half-done store was undone
    assert llm_status(owner=alice)["today"]["tokens"] == 590  # but its calls are counted


def test_a_gate_that_says_no_stores_nothing(alice, anthropic):
    anthropic.answer(reply({"worth_remembering": False, "reason": "chatter"}))
    observation = observe(alice)
    assert observation.chunks.get().status == ChunkStatus.SKIPPED
    assert not Memory.objects.exists()


@pytest.mark.parametrize("failure", [
    anthropic_error(500, "boom"),
    anthropic_error(429, "slow down", "rate_limit_error", **{"retry-after": "30"}),
    slow(TIMEOUT * 4),
], ids=["500", "429", "timeout"])
def test_a_failing_model_keeps_the_chunk_raw_for_a_later_retry(alice, anthropic, failure):
    anthropic.answer(failure)
    observation = observe(alice)
    chunk = observation.chunks.get()
    assert chunk.status == ChunkStatus.RETRY and chunk.attempts == 1
    assert "We decided to use PostgreSQL 16" in chunk.text
    assert chunk.next_attempt_at > timezone.now()
    assert observation.status == ObservationStatus.PENDING
    assert not Memory.objects.exists()
    assert ModelCall.objects.filter(ok=False).count() == 1
    # the retry, once due, succeeds and finishes the observation
    anthropic.answer(reply(GATE_YES), reply(EXTRACTION))
    later = timezone.now() + timedelta(hours=1)
    assert process_due_observations(now=later) == 1
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert Memory.objects.for_owner(alice).count() == 1


def test_malformed_json_twice_keeps_the_chunk_and_logs_both_calls(alice, anthropic):
    anthropic.answer(reply(GATE_YES), reply("Sure! Here are the memories: {oops"),
                     reply("still {not json"))
    observation = observe(alice)
    chunk = observation.chunks.get()
    assert chunk.status == ChunkStatus.RETRY
    assert ModelCall.objects.filter(purpose="extract").count() == 2
    assert not Memory.objects.exists()


def test_after_the_last_attempt_the_rules_extract_the_chunk_so_nothing_is_lost(
        alice, anthropic, settings):
    settings.ENGRAM_CAPTURE_MAX_ATTEMPTS = 1
    settings.ENGRAM_LLM_BREAKER_FAILURES = 100
    anthropic.answer(anthropic_error(503, "unavailable"))
    observation = observe(alice)
    chunk = observation.chunks.get()
    assert chunk.status == ChunkStatus.EXTRACTED
    assert chunk.extracted_by.startswith("rules (anthropic failed")
    assert Memory.objects.for_owner(alice).filter(content__icontains="PostgreSQL 16").exists()


def test_a_rejected_key_is_not_retried_and_the_rules_take_over(alice, anthropic):
    anthropic.answer(anthropic_error(401, "invalid x-api-key sk-ant-test-key",
                                     "authentication_error"))
    observation = observe(alice)
    chunk = observation.chunks.get()
    assert chunk.status == ChunkStatus.EXTRACTED and chunk.extracted_by.startswith("rules")
    assert "sk-ant-test-key" not in chunk.last_error


def test_repeated_failures_open_the_breaker_and_the_rules_extract_meanwhile(
        alice, anthropic):
    anthropic.always(anthropic_error(500, "boom"))
    for session in ("a", "b", "c"):
        observe(alice, session_id=session)
    assert llm_status()["circuit"] == "open"
    calls_before = anthropic.call_count
    observation = observe(alice, session_id="d")
    assert anthropic.call_count == calls_before  # the model is not called while open
    chunk = observation.chunks.get()
    assert chunk.status == ChunkStatus.EXTRACTED
    assert "circuit open" in chunk.extracted_by


def test_a_spent_daily_budget_hands_the_project_to_the_rules(alice, anthropic, settings):
    settings.ENGRAM_LLM_DAILY_TOKENS = 500
    anthropic.answer(reply(GATE_YES, 300, 10), reply(EXTRACTION, 300, 50))
    observe(alice)
    observation = observe(alice, messages=[{"role": "user", "text": "I prefer tabs over "
                                                                    "spaces in Makefiles."}])
    assert anthropic.call_count == 2
    assert "budget" in observation.chunks.get().extracted_by
    assert Memory.objects.for_owner(alice).filter(content__icontains="tabs").exists()


def test_a_new_project_name_buys_no_new_budget(alice, anthropic, settings):
    settings.ENGRAM_LLM_DAILY_TOKENS = 500
    anthropic.answer(reply(GATE_YES, 300, 10), reply(EXTRACTION, 300, 50))
    observe(alice, project="one")
    observation = observe(alice, project="another", messages=[
        {"role": "user", "text": "I prefer tabs over spaces in Makefiles."}])
    assert anthropic.call_count == 2
    assert "budget" in observation.chunks.get().extracted_by


def test_one_owners_failures_leave_anothers_model_in_use(alice, bob, anthropic):
    anthropic.always(anthropic_error(500, "boom"))
    for session in ("a", "b", "c"):
        observe(alice, session_id=session)
    assert llm_status(owner=alice)["circuit"] == "open"
    anthropic.answer(reply(GATE_YES, 300, 10), reply(EXTRACTION, 300, 50))
    chunk = observe(bob).chunks.get()
    assert chunk.extracted_by == "anthropic"
    assert llm_status(owner=bob)["circuit"] == "closed"


def test_healthz_reports_an_open_circuit(alice, anthropic, admin_client):
    anthropic.always(anthropic_error(500, "boom"))
    for session in ("a", "b", "c"):
        observe(alice, session_id=session)
    llm = admin_client.get("/healthz").json()["llm"]
    assert (llm["provider"], llm["circuit"], llm["fallback"]) == ("anthropic", "open", "rules")

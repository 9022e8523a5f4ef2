"""A chunk whose extraction fails in a way nobody foresaw (a bug, not a provider's error)
is kept for a retry with the error it met; the observation's other chunks are still
extracted, and the sweep still reaches other observations. One that fails on every
attempt is set aside, raw, until a person retries it."""

from datetime import timedelta

import pytest
from django.db import DatabaseError
from django.utils import timezone

from memories.capture import extraction
from memories.capture import observe as observing
from memories.capture.extraction import process_due_observations, process_observation
from memories.models import ChunkStatus, Memory, ObservationStatus

SESSION = {"session_id": "s-1", "project": "shop", "agent_id": "claude-code"}
DECISION = [{"role": "user", "text": "We decided to use PostgreSQL 16 for the orders "
                                     "service instead of MySQL."}]
FAILED_BUILD = {"tool_name": "Bash", "input": '{"command": "npm run build"}',
                "response": "Error: Cannot find module 'webpack-cli'. Fixed by running "
                            "npm install --save-dev webpack-cli.",
                "success": False, "duration_ms": 1200, "file_paths": []}


def observe(owner, *, now=None):
    return observing.observe(owner=owner, messages=DECISION, tool_events=[FAILED_BUILD],
                             now=now, **SESSION).observation


@pytest.fixture
def first_chunk_bug(monkeypatch):
    """Extraction raises on each observation's first chunk (a bug, not a provider's
    error); the real extraction, to put back once the bug is mended."""
    real_run = extraction._run

    def run_with_a_bug(provider, observation, chunk, shared_with):
        if chunk.position == 0:
            raise RuntimeError("a bug in extraction")
        return real_run(provider, observation, chunk, shared_with)

    monkeypatch.setattr(extraction, "_run", run_with_a_bug)
    return real_run


def test_a_chunk_that_raises_is_kept_with_its_error_and_the_next_chunk_still_runs(
        alice, monkeypatch, first_chunk_bug):
    observation = observe(alice)
    process_observation(observation.pk)

    first, second = observation.chunks.order_by("position")
    assert (first.status, first.attempts) == (ChunkStatus.RETRY, 1)
    assert "RuntimeError: a bug in extraction" in first.last_error
    assert first.next_attempt_at > timezone.now()
    assert second.status == ChunkStatus.EXTRACTED
    assert Memory.objects.for_owner(alice).filter(content__icontains="webpack-cli").exists()
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.PENDING

    # the bug fixed, the retry extracts the chunk it failed on and ends the observation
    monkeypatch.setattr(extraction, "_run", first_chunk_bug)
    assert process_due_observations(now=timezone.now() + timedelta(hours=1)) == 1
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert Memory.objects.for_owner(alice).filter(content__icontains="PostgreSQL 16").exists()


def test_the_sweep_goes_on_past_an_observation_it_cannot_process(alice, bob, monkeypatch):
    real_cut = extraction.cut_into_chunks

    def cut_with_a_bug(observation):
        if observation.owner_id == alice.pk:
            raise RuntimeError("a bug in chunking")
        real_cut(observation)

    monkeypatch.setattr(extraction, "cut_into_chunks", cut_with_a_bug)
    earlier = timezone.now() - timedelta(minutes=10)
    alices, bobs = observe(alice, now=earlier), observe(bob, now=earlier)

    assert process_due_observations() == 2
    bobs.refresh_from_db()
    assert bobs.status == ObservationStatus.DONE
    assert Memory.objects.for_owner(bob).filter(content__icontains="PostgreSQL 16").exists()
    alices.refresh_from_db()  # still waiting, for the next sweep
    assert alices.status == ObservationStatus.PENDING and not alices.chunks.exists()


def test_a_chunk_failing_on_every_attempt_is_set_aside_for_a_person_and_retried_on_request(
        alice, monkeypatch, settings, first_chunk_bug):
    settings.ENGRAM_CAPTURE_MAX_FAILURES = 3
    observation = observe(alice)
    process_observation(observation.pk)
    later = timezone.now()
    for _ in range(2):
        later += timedelta(hours=2)
        assert process_due_observations(now=later) == 1

    first = observation.chunks.get(position=0)
    assert (first.status, first.attempts, first.next_attempt_at) == (ChunkStatus.FAILED, 3, None)
    assert "RuntimeError: a bug in extraction" in first.last_error
    assert first.text  # still stored as observed
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.FAILED
    assert process_due_observations(now=later + timedelta(days=1)) == 0  # no longer spins

    # the bug mended, a person's retry extracts it with every attempt back
    monkeypatch.setattr(extraction, "_run", first_chunk_bug)
    assert extraction.retry_failed_chunks(alice, observation.pk).status == \
        ObservationStatus.PENDING
    first.refresh_from_db()
    assert (first.status, first.attempts) == (ChunkStatus.PENDING, 0)
    process_observation(observation.pk)
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert Memory.objects.for_owner(alice).filter(content__icontains="PostgreSQL 16").exists()


def test_a_chunk_whose_memories_cannot_be_stored_is_set_aside_after_its_attempts(
        alice, monkeypatch, settings):
    settings.ENGRAM_CAPTURE_MAX_FAILURES = 2

    def store_fails(*args, **kwargs):
        raise DatabaseError("could not extend file: No space left on device")

    monkeypatch.setattr(extraction, "_store", store_fails)
    observation = observe(alice)
    process_observation(observation.pk)
    assert set(observation.chunks.values_list("status", flat=True)) == {ChunkStatus.RETRY}
    process_due_observations(now=timezone.now() + timedelta(hours=2))

    assert set(observation.chunks.values_list("status", flat=True)) == {ChunkStatus.FAILED}
    assert "No space left on device" in observation.chunks.first().last_error
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.FAILED


def test_retrying_an_observation_with_no_failed_chunk_is_refused_and_changes_nothing(alice, bob):
    observation = observe(alice)
    process_observation(observation.pk)
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE

    with pytest.raises(extraction.NothingToRetry, match="Nothing of observation"):
        extraction.retry_failed_chunks(alice, observation.pk)
    assert extraction.retry_failed_chunks(bob, observation.pk) is None  # not bob's
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE


def test_an_observation_that_cannot_be_cut_stops_keeping_the_sweep_busy_until_retried(
        alice, monkeypatch, settings):
    settings.ENGRAM_CAPTURE_MAX_FAILURES = 2
    real_cut = extraction.cut_into_chunks

    def cut_with_a_bug(observation):
        raise RuntimeError("a bug in chunking")

    monkeypatch.setattr(extraction, "cut_into_chunks", cut_with_a_bug)
    observation = observe(alice, now=timezone.now() - timedelta(minutes=10))
    assert process_due_observations() == 1
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.PENDING  # one failure: tried again
    assert observation.notes["cutting_failed"]["attempts"] == 1
    assert process_due_observations() == 1

    observation.refresh_from_db()
    assert observation.status == ObservationStatus.FAILED
    assert "RuntimeError: a bug in chunking" in observation.notes["cutting_failed"]["error"]
    assert observation.messages[0]["text"] == DECISION[0]["text"]  # kept as observed
    assert process_due_observations() == 0

    monkeypatch.setattr(extraction, "cut_into_chunks", real_cut)
    extraction.retry_failed_chunks(alice, observation.pk)
    process_observation(observation.pk)
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert "cutting_failed" not in observation.notes
    assert Memory.objects.for_owner(alice).filter(content__icontains="PostgreSQL 16").exists()

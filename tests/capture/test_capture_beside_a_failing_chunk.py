"""A chunk whose extraction fails in a way nobody foresaw (a bug, not a provider's error)
is kept for a retry with the error it met; the observation's other chunks are still
extracted, and the sweep still reaches other observations."""

from datetime import timedelta

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


def test_a_chunk_that_raises_is_kept_with_its_error_and_the_next_chunk_still_runs(
        alice, monkeypatch):
    real_run = extraction._run

    def run_with_a_bug(provider, observation, chunk, shared_with):
        if chunk.position == 0:
            raise RuntimeError("a bug in extraction")
        return real_run(provider, observation, chunk, shared_with)

    monkeypatch.setattr(extraction, "_run", run_with_a_bug)
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
    monkeypatch.setattr(extraction, "_run", real_run)
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

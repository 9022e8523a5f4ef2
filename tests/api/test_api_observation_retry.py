"""POST /api/v1/observations/{id}/retry: chunks that failed past their retries are kept
raw, shown with their error, and extracted again when their owner asks."""

import pytest
from rest_framework.test import APIClient

from memories.capture import observe as observing
from memories.models import ChunkStatus, Memory, ObservationStatus
from memories.services.api_keys import create_api_key

pytestmark = pytest.mark.django_db

DECISION = [{"role": "user", "text": "We decided to use PostgreSQL 16 for the orders "
                                     "service instead of MySQL."}]


def failed_observation(owner, project="shop"):
    """An observation whose one chunk failed every attempt (set aside by the worker)."""
    observation = observing.observe(owner=owner, messages=DECISION, tool_events=[],
                                    project=project, session_id="s-1",
                                    agent_id="claude-code").observation
    observation.chunks.all().delete()
    observation.chunks.create(position=0, text=DECISION[0]["text"], tokens=20,
                              status=ChunkStatus.FAILED, attempts=10,
                              last_error="extraction failed: RuntimeError: a bug")
    observation.status = ObservationStatus.FAILED
    observation.save()
    return observation


def retry_path(observation):
    return f"/api/v1/observations/{observation.pk}/retry"


def test_the_job_shows_its_failed_chunks_with_their_error(alice, api_client_for):
    observation = failed_observation(alice)
    job = api_client_for(alice).get(f"/api/v1/observations/{observation.pk}").json()
    assert job["status"] == "failed" and job["chunks"]["failed"] == 1
    assert job["failed_chunks"] == [{"position": 0, "attempts": 10,
                                     "error": "extraction failed: RuntimeError: a bug"}]


def test_a_retry_extracts_the_failed_chunk_again(alice, api_client_for,
                                                 django_capture_on_commit_callbacks):
    observation = failed_observation(alice)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_client_for(alice).post(retry_path(observation))
    assert answer.status_code == 202
    assert answer.json()["status"] == ObservationStatus.PENDING
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE  # the queued task ran
    assert observation.chunks.get().status == ChunkStatus.EXTRACTED
    assert Memory.objects.for_owner(alice).filter(content__icontains="PostgreSQL 16").exists()


def test_a_retry_with_nothing_failed_is_a_409_that_says_so(alice, api_client_for):
    observation = failed_observation(alice)
    observation.chunks.update(status=ChunkStatus.EXTRACTED)
    answer = api_client_for(alice).post(retry_path(observation))
    assert answer.status_code == 409
    assert "Nothing of observation" in answer.json()["error"]["message"]


def test_another_users_observation_cannot_be_retried(alice, bob, api_client_for):
    observation = failed_observation(alice)
    answer = api_client_for(bob).post(retry_path(observation))
    assert answer.status_code == 404
    assert observation.chunks.get().status == ChunkStatus.FAILED


def test_a_key_restricted_to_another_project_cannot_retry_it(alice):
    observation = failed_observation(alice, project="blog")
    _, raw = create_api_key(owner=alice, name="shop agent", project="shop")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.post(retry_path(observation)).status_code == 404
    assert observation.chunks.get().status == ChunkStatus.FAILED
    shop = failed_observation(alice, project="shop")
    assert client.post(retry_path(shop)).status_code == 202  # its own project's, it may

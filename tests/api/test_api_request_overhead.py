"""What a request no longer waits for: its API key is remembered for a moment (and a
revoked key is still refused promptly), and the retrieval is recorded once the response
is sent (and still recorded)."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.signals import request_finished
from django.db import close_old_connections
from django.utils import timezone
from rest_framework.test import APIClient, APIRequestFactory

from memories import selectors
from memories.api.views import MemoryContext
from memories.models import ApiKey, Memory, UsageEvent
from memories.services.api_keys import create_api_key, revoke_api_key
from memories.services.remembering import remember


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(selectors, "_clock", fake)
    selectors._recent_keys.clear()
    yield fake
    selectors._recent_keys.clear()


def client_with(raw_key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client


def test_a_key_revoked_here_is_refused_at_once_though_it_was_just_used(alice, clock):
    key, raw = create_api_key(owner=alice, name="agent")
    client = client_with(raw)
    assert client.get("/api/v1/memories").status_code == 200

    revoke_api_key(key)

    assert client.get("/api/v1/memories").status_code == 401


def test_a_key_revoked_elsewhere_is_refused_once_the_moment_has_passed(alice, clock):
    key, raw = create_api_key(owner=alice, name="agent")
    client = client_with(raw)
    assert client.get("/api/v1/memories").status_code == 200
    # Another worker process revokes it: this process's memory of it is not told.
    ApiKey.objects.filter(pk=key.pk).update(revoked_at=timezone.now())

    clock.now += selectors.API_KEY_MEMORY_SECONDS + 0.01

    assert client.get("/api/v1/memories").status_code == 401


def test_a_deactivated_owner_is_refused_once_the_moment_has_passed(alice, clock):
    _, raw = create_api_key(owner=alice, name="agent")
    client = client_with(raw)
    assert client.get("/api/v1/memories").status_code == 200
    get_user_model().objects.filter(pk=alice.pk).update(is_active=False)

    clock.now += selectors.API_KEY_MEMORY_SECONDS + 0.01

    assert client.get("/api/v1/memories").status_code == 401


def test_a_remembered_key_that_expires_is_refused_at_once(alice, clock):
    key, raw = create_api_key(owner=alice, name="agent", expires_in_days=1)
    client = client_with(raw)
    assert client.get("/api/v1/memories").status_code == 200
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    selectors._recent_keys[key.key_hash][0].expires_at = timezone.now() - timedelta(seconds=1)

    assert client.get("/api/v1/memories").status_code == 401


def test_requests_share_no_user_object(alice, clock):
    _, raw = create_api_key(owner=alice, name="agent")
    first = selectors.usable_api_key(raw)
    second = selectors.usable_api_key(raw)
    assert first.owner.pk == second.owner.pk == alice.pk
    assert first.owner is not second.owner and first is not second


def test_the_context_is_answered_before_the_retrieval_is_recorded(alice, clock):
    remembered = remember(owner=alice, content="The billing service retries payments "
                                               "three times").memory
    _, raw = create_api_key(owner=alice, name="agent")
    request = APIRequestFactory().post(
        "/api/v1/memories/context", {"query": "how often are payments retried",
                                     "session_id": "s1"},
        format="json", HTTP_AUTHORIZATION=f"Bearer {raw}")

    response = MemoryContext.as_view()(request)
    response.render()
    assert response.status_code == 200 and response.data["memories_used"] == 1
    assert not UsageEvent.objects.exists()  # not yet: the response is not sent

    # What the server does once the response is written (as Django's test client does,
    # without closing the test's database connection at the end).
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)

    event = UsageEvent.objects.get()
    assert (event.memory_id, event.session_id, event.kind) == (remembered.pk, "s1",
                                                               "retrieved")
    assert Memory.objects.get(pk=remembered.pk).access_count == 1


def test_search_and_context_over_http_still_record_every_retrieval(alice, api_client_for):
    for text in ["Deploys go out on Tuesdays", "Deploys need two approvals"]:
        remember(owner=alice, content=text)
    client = api_client_for(alice)

    found = client.post("/api/v1/memories/search", {"query": "deploys", "agent_id": "a1"},
                        format="json").json()["results"]
    given = client.post("/api/v1/memories/context", {"query": "deploys"},
                        format="json").json()["memories"]

    assert len(found) == 2 and len(given) == 2
    assert UsageEvent.objects.filter(agent_id="a1").count() == 2
    assert UsageEvent.objects.count() == 4
    assert sorted(Memory.objects.values_list("access_count", flat=True)) == [2, 2]

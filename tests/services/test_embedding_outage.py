"""Graceful degradation: a remote embedding provider that is down loses no memory."""

import pytest

from memories.services.embeddings import embed_pending
from memories.services.recall import recall
from memories.services.remembering import remember
from memories.models import Memory, PendingCheck
from tests.helpers import Reply, slow


@pytest.fixture
def ollama(settings, fake_ollama):
    """Ollama on loopback, stopped: its port refuses connections until `ollama.start()`."""
    settings.ENGRAM_EMBEDDING_PROVIDER = "ollama"
    settings.ENGRAM_OLLAMA_EMBEDDING_MODEL = "nomic-embed-text"
    fake_ollama.stop()
    return fake_ollama


def vectors_for(request):
    texts = request.json()["input"]
    return Reply(200, {"embeddings": [[1.0, float(i)] + [0.0] * 766
                                      for i in range(len(texts))]})


def test_a_memory_is_stored_and_queued_while_the_provider_is_down(
        alice, ollama, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as queued:
        result = remember(owner=alice, content="The VPN needs the split-tunnel profile")
    assert result.created
    result.memory.refresh_from_db()
    assert result.memory.embedding is None and result.memory.embedding_model == ""
    assert len(queued) == 1


def test_recall_falls_back_to_keywords_while_the_provider_is_down(alice, ollama):
    remember(owner=alice, content="The VPN needs the split-tunnel profile")
    remember(owner=alice, content="Lunch is at noon")
    hits = recall(owner=alice, query="which VPN profile?")
    assert [h.memory.content for h in hits] == ["The VPN needs the split-tunnel profile"]
    assert hits[0].similarity is None and hits[0].keyword_rank == 1


def test_exact_repeats_are_still_merged_while_the_provider_is_down(alice, ollama):
    remember(owner=alice, content="Lunch is at noon")
    assert not remember(owner=alice, content="lunch is at  noon").created
    assert Memory.objects.for_owner(alice).count() == 1


def test_the_sweep_embeds_what_was_deferred_once_the_provider_is_back(alice, ollama):
    memory = remember(owner=alice, content="The VPN needs the split-tunnel profile").memory
    ollama.start()
    ollama.always(vectors_for)
    assert embed_pending() == 1
    memory.refresh_from_db()
    assert memory.embedding_model == "ollama:nomic-embed-text"
    hits = recall(owner=alice, query="vpn")
    assert hits[0].memory == memory and hits[0].similarity is not None


@pytest.mark.django_db(transaction=True)
def test_a_queued_embedding_survives_the_worker_being_down(django_user_model, ollama,
                                                           stopped_worker):
    """The task waits in PostgreSQL until a worker runs it: nothing is lost."""
    owner = django_user_model.objects.create_user("alice")
    memory = remember(owner=owner, content="Staging runs on Fridays").memory
    assert stopped_worker.pending_count() == 1  # no worker is running: it waits in the queue

    ollama.start()  # provider back, worker starts
    ollama.always(vectors_for)
    stopped_worker.execute(stopped_worker.dequeue())
    memory.refresh_from_db()
    assert memory.embedding_model == "ollama:nomic-embed-text"
    # now embedded, the memory waits for its contradiction check, its owner's drain queued
    assert PendingCheck.objects.filter(memory=memory).exists()
    check = stopped_worker.dequeue()
    assert check.name.endswith("check_pending_contradictions") and check.args == (owner.pk,)
    stopped_worker.execute(check)
    assert stopped_worker.pending_count() == 0
    assert not PendingCheck.objects.exists()


@pytest.mark.parametrize("failure", [
    Reply(429, {"error": "slow down"}),
    Reply(500, {"error": "boom"}),
    slow(2.0),
])
def test_a_provider_that_times_out_or_refuses_still_stores_the_raw_text(
        alice, ollama, settings, api_client_for, failure):
    settings.ENGRAM_PROVIDER_TIMEOUT = 0.5  # the slow answer comes after it
    ollama.start()
    ollama.answer(failure)
    response = api_client_for(alice).post(
        "/api/v1/memories", {"content": "Releases are cut from the release branch"},
        format="json")
    assert response.status_code == 201, response.content
    memory = Memory.objects.get(owner=alice)
    assert memory.content == "Releases are cut from the release branch"
    assert memory.embedding is None  # waits for embed_pending, nothing lost
    ollama.always(vectors_for)
    assert embed_pending() == 1

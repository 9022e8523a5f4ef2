"""Bulk writes embed the next batch while this one is stored, and store what they would
have stored embedding each batch in turn."""

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from memories.models import Memory
from memories.providers.embeddings import get_provider
from memories.services.embeddings import memory_vectors
from memories.services.remembering import NewMemory, embedded_ahead, remember_many

GITHUB_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"

NOTES = [
    "The staging database listens on port 5433",
    "Deploys go out on Tuesdays after standup",
    "The staging database listens on port 5433.",  # a duplicate of the first, one batch on
    "Alice reviews every migration before it ships",
    "The checkout service retries payments three times",
    "Deploys go out on Tuesdays after stand-up",
    "Lunch is at noon on Fridays",
]


def batches_of(texts, size=2):
    return [[NewMemory(content=text, session_id="s1") for text in texts[i:i + size]]
            for i in range(0, len(texts), size)]


def test_batches_come_back_in_order_with_the_vectors_memories_of_their_texts_get():
    given = np.zeros(384, dtype=np.float32)
    given[0] = 1.0
    batches = batches_of(NOTES, 3)
    batches[1].append(NewMemory(content="A note that came with its own vector",
                                embedding=given))
    out = list(embedded_ahead(batches))
    assert [[item.content for item in batch] for batch in out] == \
        [[item.content for item in batch] for batch in batches]
    expected = memory_vectors(get_provider(), NOTES)
    got = np.array([item.embedding for batch in out for item in batch
                    if item.content in NOTES])
    assert np.allclose(got, expected, atol=1e-6)
    assert out[1][-1].embedding is given


@pytest.mark.django_db
def test_storing_batches_embedded_ahead_stores_what_storing_them_in_turn_does(alice, bob):
    in_turn = [result for batch in batches_of(NOTES)
               for result in remember_many(owner=alice, items=batch)]
    ahead = [result for batch in embedded_ahead(batches_of(NOTES))
             for result in remember_many(owner=bob, items=batch)]
    assert [r.created for r in ahead] == [r.created for r in in_turn]
    assert [r.memory.content for r in ahead] == [r.memory.content for r in in_turn]
    assert sum(not r.created for r in ahead) >= 1  # the duplicate a batch later merged
    a = {m.content: m.embedding for m in Memory.objects.filter(owner=alice)}
    b = {m.content: m.embedding for m in Memory.objects.filter(owner=bob)}
    assert a.keys() == b.keys()
    assert all(np.allclose(a[k], b[k], atol=1e-6) for k in a)


@pytest.mark.django_db
def test_the_stored_memory_of_a_secret_has_the_redacted_texts_vector(alice):
    (batch,) = embedded_ahead([[NewMemory(content=f"The CI token is {GITHUB_TOKEN}")]])
    memory = remember_many(owner=alice, items=batch)[0].memory
    assert GITHUB_TOKEN not in memory.content
    memory.refresh_from_db()
    provider = get_provider()
    expected, leaked = memory_vectors(
        provider, [memory.content, f"The CI token is {GITHUB_TOKEN}"])
    assert np.allclose(memory.embedding, expected, atol=1e-6)
    assert not np.allclose(memory.embedding, leaked, atol=1e-3)


@pytest.mark.django_db
def test_an_item_validation_refuses_is_not_embedded_and_still_refused(alice):
    (batch,) = embedded_ahead([[NewMemory(content="A fine note"),
                                NewMemory(content="bad \x00 byte")]])
    assert batch[0].embedding is not None and batch[1].embedding is None
    with pytest.raises(ValidationError) as refused:
        remember_many(owner=alice, items=batch)
    assert "1.content" in refused.value.message_dict
    assert not Memory.objects.filter(owner=alice).exists()


@pytest.mark.django_db
def test_a_batch_the_provider_cannot_embed_comes_back_as_it_was_and_is_deferred(
        alice, settings, fake_ollama):
    settings.ENGRAM_EMBEDDING_PROVIDER = "ollama"
    settings.ENGRAM_OLLAMA_EMBEDDING_MODEL = "nomic-embed-text"
    fake_ollama.stop()
    (batch,) = embedded_ahead(batches_of(NOTES[:2]))
    assert [item.embedding for item in batch] == [None, None]
    stored = remember_many(owner=alice, items=batch)
    assert [r.created for r in stored] == [True, True]
    assert all(r.memory.embedding is None for r in stored)

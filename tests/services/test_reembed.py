"""Moving to another embedding model keeps every memory and never mixes models."""

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from memories import selectors
from memories.models import Contradiction, Memory
from memories.providers.embeddings import get_provider
from memories.services import embeddings
from memories.services.editing import update_memory
from memories.services.embeddings import count_to_reembed
from memories.services.recall import recall
from memories.services.remembering import remember
from tests.helpers import Reply


def ollama_vectors(request):
    texts = request.json()["input"]
    rng = np.random.default_rng(0)
    return Reply(200, {"embeddings": [rng.normal(size=768).tolist() for _ in texts]})


@pytest.fixture
def mixed_store(alice):
    """Two active memories, one archived and one deleted, all on the local model."""
    for text in ["Payments retry three times", "The CDN caches for an hour"]:
        remember(owner=alice, content=text)
    for text, status in [("Old logging setup", "archived"), ("A wrong note", "deleted")]:
        memory = remember(owner=alice, content=text).memory
        Memory.objects.filter(pk=memory.pk).update(status=status)
    return alice


# Index creation must run outside a test transaction that holds deferred FK checks.
@pytest.mark.django_db(transaction=True)
def test_reembed_moves_every_memory_to_the_new_model(mixed_store, settings, capsys,
                                                     fake_ollama):
    fake_ollama.always(ollama_vectors)
    settings.ENGRAM_EMBEDDING_PROVIDER = "ollama"
    assert count_to_reembed() == 4

    call_command("reembed", batch_size=3)

    assert "Re-embedded 4 memories" in capsys.readouterr().out
    models = set(Memory.objects.values_list("embedding_model", flat=True))
    assert models == {"ollama:nomic-embed-text"}
    assert Memory.objects.count() == 4
    assert len(Memory.objects.first().embedding) == 768
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s",
                       [selectors.vector_index_name("ollama:nomic-embed-text")])
        assert cursor.fetchone()


def test_recall_never_compares_vectors_of_another_model(mixed_store):
    Memory.objects.filter(content="Payments retry three times").update(
        embedding_model="ollama:nomic-embed-text")
    hits = {h.memory.content: h for h in recall(owner=mixed_store,
                                                         query="payments retries")}
    # Still found by its words, but it has no cosine: its vector is of another model.
    assert hits["Payments retry three times"].similarity is None
    assert hits["Payments retry three times"].keyword_rank == 1
    assert hits["The CDN caches for an hour"].similarity is not None
    assert count_to_reembed() == 1


@pytest.mark.django_db(transaction=True)
def test_a_new_embedding_model_gets_its_index_on_first_use(alice, settings, fake_ollama):
    fake_ollama.always(ollama_vectors)
    settings.ENGRAM_EMBEDDING_PROVIDER = "ollama"
    settings.ENGRAM_OLLAMA_EMBEDDING_MODEL = "mxbai-embed-large"
    name = selectors.vector_index_name("ollama:mxbai-embed-large")
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {name}")
    selectors._indexed_models.clear()
    remember(owner=alice, content="Queries must find their index")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [name])
        assert cursor.fetchone()


@pytest.mark.django_db(transaction=True)
def test_an_edit_made_while_reembed_embeds_keeps_the_vector_of_its_new_text(alice,
                                                                             monkeypatch):
    memory = remember(owner=alice, content="The quarterly tax filing is due in April").memory
    real, edited = embeddings.memory_vectors, []

    def edited_while_embedding(provider, contents):
        vectors = real(provider, contents)
        if not edited:  # the person's edit commits while the batch is being embedded
            edited.append(memory.pk)
            update_memory(Memory.objects.get(pk=memory.pk), by=alice,
                          content="Our office dog Biscuit loves tennis balls")
        return vectors

    monkeypatch.setattr(embeddings, "memory_vectors", edited_while_embedding)
    embeddings.reembed(every=True)
    stored = np.array(Memory.objects.get(pk=memory.pk).embedding)
    expected = real(get_provider(), ["Our office dog Biscuit loves tennis balls"])[0]
    assert float(stored @ expected) > 0.999


@pytest.mark.django_db(transaction=True)
def test_a_memory_reembed_embeds_for_the_first_time_is_checked_for_contradictions(alice):
    remember(owner=alice, content="The orders API listens on port 8080")
    waiting = remember(owner=alice, content="The orders API listens on port 9090").memory
    # as if stored while the provider was down: never embedded, so never checked
    Memory.objects.filter(pk=waiting.pk).update(embedding=None, embedding_model="")
    Contradiction.objects.all().delete()
    embeddings.reembed()
    assert Contradiction.objects.filter(memory_b=waiting).exists()


@pytest.mark.parametrize("size", ["0", "-5", "many"])
def test_a_batch_size_under_one_is_refused(size):
    with pytest.raises(CommandError, match="batch.size"):
        call_command("reembed", "--batch-size", size)

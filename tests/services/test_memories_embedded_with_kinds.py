"""A memory is stored with the vector of its text glossed with the kinds of the things it
names, whichever way it is written: remembered, edited or embedded later. A question
that asks by the kind then finds the note that only names the product."""

import numpy as np
import pytest
from django.core.management import call_command

from memories.engine.value_categories import glossed
from memories.models import Memory
from memories.providers.embeddings import get_provider
from memories.services.editing import update_memory
from memories.services.embeddings import embed_pending
from memories.services.recall import recall
from memories.services.remembering import NewMemory, remember, remember_many

STRIPE = "Stripe sends amounts in cents, so the parser converts them to decimals."


def vector_of(text):
    return get_provider().embed_documents([text])[0]


def stored(memory):
    memory.refresh_from_db()
    return np.asarray(memory.embedding)


def test_a_remembered_memory_has_the_vector_of_its_glossed_text(alice):
    memory = remember(owner=alice, content=STRIPE).memory
    assert glossed(STRIPE) != STRIPE
    assert np.allclose(stored(memory), vector_of(glossed(STRIPE)), atol=1e-5)
    assert not np.allclose(stored(memory), vector_of(STRIPE), atol=1e-3)
    assert memory.content == STRIPE  # the gloss is only what is embedded


def test_an_edited_memory_is_embedded_glossed_again(alice):
    memory = remember(owner=alice, content="Refunds need a second approval.").memory
    update_memory(memory, content=STRIPE)
    assert np.allclose(stored(memory), vector_of(glossed(STRIPE)), atol=1e-5)


def test_a_memory_embedded_after_an_outage_is_embedded_glossed(alice):
    memory = remember(owner=alice, content=STRIPE).memory
    Memory.objects.filter(pk=memory.pk).update(embedding=None, embedding_model="")
    assert embed_pending() == 1
    assert np.allclose(stored(memory), vector_of(glossed(STRIPE)), atol=1e-5)


# reembed makes sure of the model's index, which must not be made inside a test transaction
@pytest.mark.django_db(transaction=True)
def test_reembed_all_embeds_memories_stored_before_the_gloss_anew(alice, capsys):
    memory = remember(owner=alice, content=STRIPE).memory
    remember(owner=alice, content="Refunds need a second approval.")
    Memory.objects.filter(pk=memory.pk).update(embedding=vector_of(STRIPE))
    call_command("reembed")
    assert "Re-embedded 0 memories" in capsys.readouterr().out
    call_command("reembed", "--all", batch_size=1)
    assert "Re-embedded 2 memories" in capsys.readouterr().out
    assert np.allclose(stored(memory), vector_of(glossed(STRIPE)), atol=1e-5)


@pytest.mark.parametrize("question, note, other", [
    ("which payment provider do we use", STRIPE,
     "Refunds over 500 dollars need a second approval from finance."),
    ("which error tracker do we send exceptions to",
     "Sentry alerts for checkout go to #oncall.",
     "Unhandled rejections in the worker are logged and swallowed."),
])
def test_a_question_asking_by_the_kind_finds_the_note_naming_the_product(
        alice, question, note, other):
    remember_many(owner=alice, items=[NewMemory(content=text) for text in (other, note)])
    assert recall(owner=alice, query=question)[0].memory.content == note

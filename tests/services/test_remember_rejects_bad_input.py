"""Bad input gets a clear error, and nothing already stored changes."""

import pytest
from django.core.exceptions import ValidationError

from memories.services.remembering import NewMemory, remember, remember_many
from memories.models import MAX_CONTENT_LENGTH, Memory, MemoryVersion


@pytest.fixture
def stored(alice):
    memory = remember(owner=alice, content="The deploy key lives in 1Password").memory
    return alice, memory


def snapshot(owner):
    return (
        list(Memory.objects.for_owner(owner).order_by("pk").values()),
        MemoryVersion.objects.count(),
    )


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"content": ""}, "content", "empty"),
        ({"content": "   \n "}, "content", "empty"),
        ({"content": "x" * (MAX_CONTENT_LENGTH + 1)}, "content", "limit"),
        ({"content": "ok", "memory_type": "dreamlike"}, "memory_type", "Unknown memory type"),
        ({"content": "ok", "kind": "rumour"}, "kind", "Unknown kind"),
        ({"content": "ok", "importance": 11}, "importance", "1 to 10"),
        ({"content": "ok", "tags": "not-a-list"}, "tags", "list"),
        ({"content": "ok", "embedding": [0.1] * 10}, "embedding", "384"),
        ({"content": "ok", "embedding": [float("nan")] * 384}, "embedding", "finite"),
        ({"content": "ok", "embedding": [0.0] * 384}, "embedding", "zeros"),
    ],
)
def test_it_rejects_bad_input_and_changes_nothing(stored, fields, field, words):
    owner, _ = stored
    before = snapshot(owner)
    with pytest.raises(ValidationError) as error:
        remember(owner=owner, **fields)
    assert words in " ".join(error.value.message_dict[field])
    assert snapshot(owner) == before


def test_one_bad_item_rejects_the_whole_batch_and_names_it(stored):
    owner, _ = stored
    before = snapshot(owner)
    with pytest.raises(ValidationError) as error:
        remember_many(owner=owner, items=[
            NewMemory(content="a good memory"),
            NewMemory(content="", kind="rumour"),
        ])
    assert set(error.value.message_dict) == {"1.content", "1.kind"}
    assert snapshot(owner) == before


def test_content_at_the_limit_is_accepted(alice):
    assert remember(owner=alice, content="y" * MAX_CONTENT_LENGTH).created


def test_the_database_itself_refuses_out_of_range_rows(stored):
    from django.db import IntegrityError, transaction

    _, memory = stored
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.filter(pk=memory.pk).update(importance=42)
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.filter(pk=memory.pk).update(content="")
    memory.refresh_from_db()
    assert memory.content == "The deploy key lives in 1Password"


def test_a_caller_may_bring_its_own_vector_of_the_right_size(alice):
    vector = [0.0] * 384
    vector[7] = 3.0
    memory = remember(owner=alice, content="precomputed", embedding=vector).memory
    memory.refresh_from_db()
    assert memory.embedding[7] == pytest.approx(1.0)  # stored normalised

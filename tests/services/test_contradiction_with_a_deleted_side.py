"""Deleting one side of an open contradiction leaves nothing to dispute: the queue, the
context and machine work no longer treat the other as disputed. Undoing the deletion
brings the dispute back, as it was."""

import pytest

from memories import selectors
from memories.models import Contradiction, Memory
from memories.services.context import assemble_context
from memories.services.editing import delete_memory, restore_memory
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def backup_times(alice):
    early = remember(owner=alice, content="The nightly backup job runs at 01:00 UTC").memory
    late = remember(owner=alice, content="The nightly backup job runs at 03:00 UTC").memory
    Contradiction.objects.create(owner=alice, memory_a=early, memory_b=late,
                                 detected_by="rules", reason="01:00 against 03:00")
    return early, late


def disputed(alice, memory) -> bool:
    context = assemble_context(owner=alice, query="when does the nightly backup run",
                               track=False)
    return (memory.pk in selectors.open_contradictions_for(alice, [memory.pk])
            and "Disputed" in context.context)


def test_the_survivor_of_a_deleted_side_is_no_longer_disputed(alice, backup_times):
    early, late = backup_times
    assert disputed(alice, early) and selectors.count_open_contradictions(alice) == 1
    assert not Memory.objects.filter(pk=early.pk).undisputed().exists()
    delete_memory(late, by=alice)
    assert not disputed(alice, early)
    assert selectors.count_open_contradictions(alice) == 0
    assert Memory.objects.filter(pk=early.pk).undisputed().exists()


def test_undoing_the_deletion_brings_the_dispute_back(alice, backup_times):
    early, late = backup_times
    delete_memory(late, by=alice)
    restore_memory(late, by=alice)
    assert disputed(alice, early) and selectors.count_open_contradictions(alice) == 1

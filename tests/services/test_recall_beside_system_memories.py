"""Once a single system memory exists every owner reads more than their own memories. Each
still reads only the strongest postings of each query term among their own memories, as an
owner alone does, and the other authors' postings in full: read whole, a 100,000-memory
owner's own postings made recall p50 13-15 ms instead of 3.4-4.9 (docs/BENCHMARKS.md)."""

import pytest

from memories import selectors
from memories.models import MemoryTerm, Scope
from memories.services.recall import recall
from memories.services.remembering import NewMemory, remember_many
from tests.helpers import rows_read

QUERY = "how many replicas does each service need"
SYSTEM_NOTE = "Every service must declare how many replicas it needs in its manifest."


@pytest.fixture
def a_system_memory(django_user_model):
    staff = django_user_model.objects.create_user("sam", is_staff=True)
    [stored] = remember_many(owner=staff, items=[NewMemory(content=SYSTEM_NOTE,
                                                           scope=Scope.SYSTEM)])
    selectors.forget_readers()
    return stored.memory


@pytest.mark.django_db
def test_an_owner_reading_system_memories_reads_only_their_own_strongest_postings(
        alice, a_system_memory, monkeypatch):
    monkeypatch.setattr(selectors, "POSTINGS_PER_TERM", 10)
    remember_many(owner=alice, items=[  # of many lengths, so of many weights
        NewMemory(content=f"The {name} service needs {i + 2} replicas"
                          + " in the region" * (i % 50) + ".")
        for i, name in enumerate(["billing", "search", "auth", "ledger", "gateway"] * 30)])
    assert not selectors.Reader.of(alice).alone

    read = rows_read(MemoryTerm._meta.db_table, alice, QUERY)
    found = [hit.memory.pk for hit in recall(owner=alice, query=QUERY, limit=20)]

    # her 150 postings of "service", "replica" and "need" each, read whole, were 454 in
    # all when this was written; now ten a term and those tied with the tenth's weight
    # (43), and the system memory's own
    assert read < 100
    assert a_system_memory.pk in found

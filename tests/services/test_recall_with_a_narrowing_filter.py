"""A narrowing filter (a project, a kind, a session) reads each query term's strongest
postings first, as recall without it does, and every posting only when too few of the
strongest pass the filter: the hooks send a project with every prompt, and a 100,000-memory
owner's recall with it took p50 12.4 ms against 6.4 without (docs/BENCHMARKS.md)."""

import pytest

from memories import selectors
from memories.models import MemoryTerm
from memories.services.recall import recall
from memories.services.remembering import NewMemory, remember_many
from tests.helpers import rows_read

QUERY = "kestrel feeders"


@pytest.fixture
def store(alice, monkeypatch, settings):
    """Forty short notes of the shop project, whose postings weigh most, and two long ones
    of the farm project, whose postings weigh least; each term's strongest four read, and
    three memories wanted of each list."""
    monkeypatch.setattr(selectors, "POSTINGS_PER_TERM", 4)
    settings.ENGRAM_CANDIDATES = 3
    remember_many(owner=alice, items=[
        NewMemory(content=f"Kestrel feeders {i} sit on shop shelf {i}" + " by the door" * (i % 9),
                  project="shop") for i in range(40)])
    farm = remember_many(owner=alice, items=[NewMemory(
        content="In the far corner of the barn, past the tractors and the hay bales, "
                f"farm note {i} says kestrel feeders hang there for the visiting birds "
                "that come over from the woods in spring and stay until autumn", project="farm")
        for i in range(2)])
    return {result.memory.pk for result in farm}


@pytest.mark.django_db
def test_a_filter_the_strongest_postings_pass_reads_only_them(alice, store):
    whole = rows_read(MemoryTerm._meta.db_table, alice, QUERY, limit=1)
    shop = selectors.RecallFilters(project="shop")

    read = rows_read(MemoryTerm._meta.db_table, alice, QUERY, limit=1, filters=shop)
    found = recall(owner=alice, query=QUERY, limit=1, filters=shop)

    # as many as without the filter (four a term and their ties), not all 84
    assert read == whole < 84
    assert found and all(hit.memory.project == "shop" for hit in found)


@pytest.mark.django_db
def test_a_filter_that_leaves_too_few_of_them_reads_every_posting(alice, store):
    farm = selectors.RecallFilters(project="farm")

    read = rows_read(MemoryTerm._meta.db_table, alice, QUERY, limit=1, filters=farm)
    found = {hit.memory.pk for hit in recall(owner=alice, query=QUERY, limit=2,
                                             filters=farm)}

    assert read >= 84  # both terms' postings of all 42 notes
    assert found == store

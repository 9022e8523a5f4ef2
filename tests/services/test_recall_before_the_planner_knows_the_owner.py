"""Recall looks its keyword hits and the memories its graph walk reaches up by key, so it
reads few rows even while the planner's statistics take a growing owner for one with no
memories: a new owner importing beside a large one, whose growth is too small a share of
the table for autoanalyze. Joined as a set, each step of the walk read all of the owner's
memories (recall p50 59 ms instead of 14 at 6,000 memories, docs/BENCHMARKS.md)."""

import pytest
from django.db import connection

from memories.models import Memory
from memories.services.recall import recall
from memories.services.remembering import NewMemory, remember_many
from tests.helpers import rows_read

TOPICS = ["billing", "search", "auth", "ledger", "gateway", "inventory", "email", "geo"]


def notes(author, count):
    return [NewMemory(content=f"{author} noted that the {TOPICS[i % 8]} service needs "
                              f"{i + 3} more replicas before release {i // 8}.")
            for i in range(count)]


@pytest.mark.django_db
def test_recall_reads_few_of_an_owners_memories_the_statistics_do_not_know(alice, bob):
    remember_many(owner=bob, items=notes("Bob", 300))
    with connection.cursor() as cursor:
        # the lock autoanalyze takes, held until the test's transaction rolls back
        cursor.execute(f"LOCK TABLE {Memory._meta.db_table} IN SHARE UPDATE EXCLUSIVE MODE")
        cursor.execute(f"ANALYZE {Memory._meta.db_table}")
    remember_many(owner=alice, items=notes("Alice", 300))

    read = rows_read(Memory._meta.db_table, alice, "how many replicas does the ledger service need")

    # The exact nearest-neighbour pass reads each of her 300 once; the keyword hits, the
    # walk's steps and the candidates' final lookup add a row each (390 in all when this
    # was written), not 300 rows a step (6,620 before).
    assert 300 <= read < 600


@pytest.mark.django_db
def test_an_owner_the_statistics_do_not_know_gets_the_same_candidates_once_analysed(alice,
                                                                                   bob):
    remember_many(owner=bob, items=notes("Bob", 120))
    with connection.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {Memory._meta.db_table} IN SHARE UPDATE EXCLUSIVE MODE")
        cursor.execute(f"ANALYZE {Memory._meta.db_table}")
    remember_many(owner=alice, items=notes("Alice", 120))
    query = "which service needs more replicas before release 3"

    before = [hit.memory.pk for hit in recall(owner=alice, query=query)]
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Memory._meta.db_table}")
    after = [hit.memory.pk for hit in recall(owner=alice, query=query)]

    assert len(before) == 10 and before == after

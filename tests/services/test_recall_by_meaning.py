"""Recall finds memories by meaning, with the real local model on the real database."""

import pytest
from django.core.exceptions import ValidationError

from memories.services.editing import delete_memory
from memories.services.recall import recall
from memories.services.remembering import remember
from memories.engine.ranking import Weights
from memories.selectors import RecallFilters

UNRELATED = [
    "I like baking sourdough bread on Sundays",
    "The quarterly budget review is scheduled for March",
    "Our team offsite will be in Lisbon this year",
    "Use black for Python formatting with a line length of 100",
]

# (query, memory that answers it): the query shares almost no words with the memory.
PARAPHRASES = [
    ("WiFi keeps dropping", "network configuration problems on the router"),
    ("the app is slow to start", "startup time regressed because modules are imported eagerly"),
    ("how do I ship to prod", "deployment runbook: merge to main, then run the release pipeline"),
    ("my login does not work", "authentication fails when the session cookie has expired"),
    ("checks randomly fail in CI", "integration tests fail intermittently because of timing"),
]


@pytest.fixture
def alice_memories(alice):
    # Equal importance, so that these tests are about meaning alone (importance and
    # recency are the other two factors of the ranking).
    for text in UNRELATED + [memory for _, memory in PARAPHRASES]:
        remember(owner=alice, content=text, importance=5)
    return alice


def test_wifi_keeps_dropping_recalls_the_router_memory_first(alice_memories):
    hits = recall(owner=alice_memories, query="WiFi keeps dropping", limit=3)
    assert hits[0].memory.content == "network configuration problems on the router"
    assert hits[0].similarity > hits[1].similarity


@pytest.mark.parametrize(("query", "expected"), PARAPHRASES)
def test_paraphrased_questions_find_their_memory_first(alice_memories, query, expected):
    hits = recall(owner=alice_memories, query=query, limit=5)
    assert hits[0].memory.content == expected


def test_importance_decides_between_memories_equally_close_in_meaning(alice, settings):
    # Seed 000's equal weights in the hand-set fusion; the default gives importance a
    # quarter of relevance's, and the learned ranker the weight it fitted.
    settings.ENGRAM_RANKER = "weights"
    settings.ENGRAM_RANK_WEIGHTS = Weights(1, 1, 1)
    remember(owner=alice, content="The nightly build uses the staging database",
                      importance=3)
    remember(owner=alice, content="The nightly build runs against the staging "
                                           "database", importance=9)
    remember(owner=alice, content="Lunch is at noon", importance=5)
    hits = recall(owner=alice, query="which database does the nightly build use")
    assert [h.memory.importance for h in hits] == [9, 3, 5]
    assert hits[0].breakdown.importance == 1.0 and hits[1].breakdown.importance == 0.0


def test_by_default_a_closer_meaning_outweighs_a_higher_heuristic_importance(alice):
    remember(owner=alice, content="The nightly build runs against the staging "
                                           "database", importance=2)
    remember(owner=alice, content="The staging server is rebooted every Sunday",
                      importance=10)
    remember(owner=alice, content="Lunch is at noon", importance=5)
    hits = recall(owner=alice, query="which database does the nightly build use")
    assert hits[0].memory.content.startswith("The nightly build")


def test_it_never_returns_another_owners_memories(alice_memories, bob):
    remember(owner=bob, content="bob's router drops the wireless connection")
    hits = recall(owner=alice_memories, query="wireless router", limit=20)
    assert all(hit.memory.owner_id == alice_memories.pk for hit in hits)
    bob_hits = recall(owner=bob, query="wireless router", limit=20)
    assert [h.memory.content for h in bob_hits] == ["bob's router drops the wireless connection"]


def test_filters_narrow_recall_by_type_kind_project_and_status(alice):
    remember(owner=alice, content="Deploys go out on Tuesdays", kind="workflow",
                      memory_type="procedural", project="shop")
    remember(owner=alice, content="Deploys froze during the holiday sale",
                      kind="episode", memory_type="episodic", project="shop")
    remember(owner=alice, content="Deploys of the blog are manual", project="blog")

    def contents(**filters):
        return {h.memory.content for h in recall(
            owner=alice, query="deploys", filters=RecallFilters(**filters))}

    assert contents(memory_types=("procedural",)) == {"Deploys go out on Tuesdays"}
    assert contents(kinds=("episode",)) == {"Deploys froze during the holiday sale"}
    assert contents(project="blog") == {"Deploys of the blog are manual"}
    archived = remember(owner=alice, content="Deploys used FTP in 2019").memory
    archived.status = "archived"
    archived.save(update_fields=["status"])
    assert "Deploys used FTP in 2019" not in contents()
    assert "Deploys used FTP in 2019" in contents(include_archived=True)


def test_deleted_memories_never_come_back(alice):
    memory = remember(owner=alice, content="The old CI runs on Travis").memory
    delete_memory(memory)
    assert recall(owner=alice, query="Travis CI") == []
    assert recall(owner=alice, query="Travis CI",
                           filters=RecallFilters(include_archived=True)) == []


def test_unknown_filter_values_are_refused(alice):
    with pytest.raises(ValidationError) as error:
        recall(owner=alice, query="anything",
                        filters=RecallFilters(kinds=("rumour",)))
    assert "kinds" in error.value.message_dict

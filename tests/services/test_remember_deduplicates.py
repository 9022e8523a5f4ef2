"""Delta ingestion with semantic deduplication, including under concurrency."""

import threading

import pytest
from django.db import connection

from memories.services.remembering import NewMemory, remember, remember_many
from memories.models import Memory, MemoryVersion


def test_a_near_duplicate_strengthens_the_existing_memory(alice):
    first = remember(owner=alice, content="The staging database password rotates "
                                                   "every 30 days")
    again = remember(owner=alice, content="The staging database password is rotated "
                                                   "every 30 days")
    assert first.created and first.action == "created"
    assert not again.created and again.action == "strengthened"
    assert again.memory.pk == first.memory.pk
    assert again.similarity >= 0.90
    assert Memory.objects.for_owner(alice).count() == 1
    assert again.memory.helpful_count == 1


def test_the_duplicate_text_is_kept_in_the_memory_history(alice):
    original = remember(owner=alice, content="Run migrations before deploying").memory
    remember(owner=alice, content="run migrations before deploying!",
                      session_id="s-2", metadata={"turn": "D1:3"})
    reinforced = MemoryVersion.objects.get(memory=original, change="reinforced")
    assert reinforced.after["content"] == "run migrations before deploying!"
    assert reinforced.after["session_id"] == "s-2"
    assert reinforced.after["metadata"] == {"turn": "D1:3"}


def test_different_facts_are_both_kept(alice):
    remember(owner=alice, content="The API rate limit is 100 requests per minute")
    remember(owner=alice, content="Our office cat is called Miso")
    assert Memory.objects.for_owner(alice).count() == 2


def test_the_same_text_in_another_project_or_owner_is_a_new_memory(alice, bob):
    remember(owner=alice, content="Use Python 3.11", project="a")
    assert remember(owner=alice, content="Use Python 3.11", project="b").created
    assert remember(owner=bob, content="Use Python 3.11", project="a").created


def test_the_threshold_is_a_setting(alice, settings):
    settings.ENGRAM_DEDUP_THRESHOLD = 0.999
    remember(owner=alice, content="The staging database password rotates every 30 days")
    again = remember(owner=alice,
                              content="The staging database password is rotated every 30 days")
    assert again.created


def test_a_batch_stores_new_items_and_merges_repeats_within_it(alice):
    remember(owner=alice, content="Prefer pytest fixtures over setUp methods")
    results = remember_many(owner=alice, items=[
        NewMemory(content="Cache invalidation lives in cache.py"),
        NewMemory(content="prefer pytest fixtures over setUp methods"),
        NewMemory(content="Cache invalidation lives in cache.py."),
        NewMemory(content="Feature flags are read from LaunchDarkly"),
    ])
    assert [r.action for r in results] == ["created", "strengthened", "strengthened", "created"]
    assert results[2].memory.pk == results[0].memory.pk
    assert Memory.objects.for_owner(alice).count() == 3


@pytest.mark.django_db(transaction=True)
def test_concurrent_remembers_of_the_same_text_leave_one_memory(django_user_model):
    owner = django_user_model.objects.create_user("alice")
    remember(owner=owner, content="warm-up so the model is loaded before the race")
    barrier = threading.Barrier(4)
    results, errors = [], []

    def remember_at_once():
        try:
            barrier.wait()
            results.append(remember(owner=owner, content="Builds run on Node 20"))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=remember_at_once) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(r.created for r in results) == [False, False, False, True]
    assert Memory.objects.filter(owner=owner, content="Builds run on Node 20").count() == 1


def test_a_changed_fact_is_a_new_memory_even_when_its_vector_is_close(alice):
    old = remember(owner=alice, content="The Redis cluster for ledger is in us-east-2 "
                                                 "with 5 replicas")
    new = remember(owner=alice, content="The Redis cluster for ledger is in eu-west-1 "
                                                 "with 3 replicas")
    assert new.created and new.memory.pk != old.memory.pk
    assert Memory.objects.for_owner(alice).count() == 2

"""Consolidation summarises only what holds now: a decided contradiction's loser, an
expired memory or one that holds only from a later date, summarised with its neighbours,
would reach agents as current."""

from datetime import timedelta

from memories.maintenance.consolidation import consolidate
from memories.maintenance.contradictions import resolve_contradiction
from memories.models import Contradiction, Memory, Status
from tests.maintenance.test_consolidation import NOW, copy_past_dedup, old

OLD_PORT = "The staging database listens on port 5433."
NEW_PORT = "The staging database listens on port 5434."


def held_now(owner):
    return Memory.objects.filter(owner=owner, status=Status.ACTIVE).not_ended(NOW)


def test_a_resolved_contradictions_loser_is_not_summarised_back_into_what_holds(alice):
    loser, winner = old(alice, OLD_PORT, days=61), old(alice, NEW_PORT)
    decided = Contradiction.objects.create(owner=alice, memory_a=loser, memory_b=winner,
                                           detected_at=NOW, detected_by="rules",
                                           reason="the port differs", confidence=0.9)
    resolve_contradiction(decided, resolution="b_wins", by=alice, now=NOW - timedelta(days=1))

    consolidate(owner=alice, now=NOW)

    assert [m.content for m in held_now(alice)] == [NEW_PORT]
    assert Memory.objects.get(pk=winner.pk).status == Status.ACTIVE
    loser.refresh_from_db()
    assert loser.status == Status.ACTIVE and loser.superseded_by_id == winner.pk


def test_an_expired_memory_is_not_summarised_into_one_that_never_expires(alice):
    expired = old(alice, OLD_PORT, days=61)
    Memory.objects.filter(pk=expired.pk).update(expires_at=NOW - timedelta(days=1))
    current = old(alice, NEW_PORT)

    consolidate(owner=alice, now=NOW)

    assert [m.content for m in held_now(alice)] == [NEW_PORT]
    assert Memory.objects.get(pk=current.pk).status == Status.ACTIVE


def test_a_memory_that_holds_only_from_next_month_is_not_summarised_into_one_that_holds_now(
        alice):
    coming = old(alice, NEW_PORT)
    Memory.objects.filter(pk=coming.pk).update(valid_from=NOW + timedelta(days=30))
    current = old(alice, OLD_PORT, days=61)

    consolidate(owner=alice, now=NOW)

    assert [m.content for m in held_now(alice).filter(valid_from__lte=NOW)] == [OLD_PORT]
    assert Memory.objects.get(pk=coming.pk).status == Status.ACTIVE
    assert Memory.objects.get(pk=current.pk).status == Status.ACTIVE


def test_the_sides_of_a_contradiction_waiting_for_a_person_are_not_summarised(alice):
    older, newer = old(alice, OLD_PORT, days=61), old(alice, NEW_PORT)
    waiting = Contradiction.objects.create(owner=alice, memory_a=older, memory_b=newer,
                                           detected_at=NOW, detected_by="rules",
                                           reason="the port differs", confidence=0.9)

    report = consolidate(owner=alice, now=NOW)

    assert report["clusters"] == 0
    assert sorted(m.content for m in held_now(alice)) == [OLD_PORT, NEW_PORT]
    waiting.refresh_from_db()
    assert waiting.status == "open"


def test_a_nightly_merge_keeps_the_fact_for_as_long_as_the_repeat_said_it_holds(alice):
    first = old(alice, "Deploys go through the staging cluster first.", days=90)
    Memory.objects.filter(pk=first.pk).update(expires_at=NOW + timedelta(days=1))
    copy_past_dedup(first)

    assert consolidate(owner=alice, now=NOW)["deduplicated"] == 1

    first.refresh_from_db()
    assert first.expires_at is None
    assert first.versions.get(after__reason="duplicate merged").before == {
        "expires_at": (NOW + timedelta(days=1)).isoformat()}

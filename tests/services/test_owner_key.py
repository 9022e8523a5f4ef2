"""Every row that hangs off a memory or an observation carries its owner too (the key a
sharded store distributes by, docs/SCALING.md), whoever writes it and however."""

import pytest
from django.core.management import call_command
from django.db import connection

from memories.models import (
    Entity,
    MemoryEntity,
    MemoryLink,
    MemoryVersion,
    Observation,
    ObservationChunk,
)
from memories.services.remembering import NewMemory, remember, remember_many

pytestmark = pytest.mark.django_db


def test_remembering_writes_the_owner_on_versions_and_session_links(alice):
    first, second = remember_many(owner=alice, items=[
        NewMemory(content="Deploys go out on Tuesdays after the standup", session_id="s1"),
        NewMemory(content="The staging database is rebuilt every night", session_id="s1"),
    ])
    link = MemoryLink.objects.get(from_memory=second.memory)
    assert link.to_memory == first.memory and link.owner == alice
    assert set(MemoryVersion.objects.values_list("owner_id", flat=True)) == {alice.pk}


def test_rows_written_without_an_owner_take_their_parents(alice, bob):
    mine = remember(owner=alice, content="Alice keeps the release checklist").memory
    theirs = remember(owner=bob, content="Bob reviews every schema migration").memory
    entity = Entity.objects.create(owner=bob, name="Schema", canonical_name="schema")
    # bulk_create with ids only (the parent not loaded), save(), and get_or_create
    MemoryEntity.objects.bulk_create([MemoryEntity(memory_id=theirs.pk, entity=entity)])
    MemoryVersion(memory=mine, change="updated").save()
    link, _ = MemoryLink.objects.get_or_create(from_memory_id=mine.pk, to_memory=theirs,
                                               relation="related")
    observation = Observation.objects.create(owner=bob, payload_hash="h")
    ObservationChunk.objects.bulk_create(
        [ObservationChunk(observation=observation, position=0, text="t", tokens=1)])

    assert MemoryEntity.objects.get().owner == bob
    assert MemoryVersion.objects.filter(memory=mine, change="updated").get().owner == alice
    assert MemoryLink.objects.get(pk=link.pk).owner == alice  # the link's from side
    assert ObservationChunk.objects.get().owner == bob


def test_the_migration_fills_the_owner_of_rows_stored_before_it(alice, bob):
    remember(owner=alice, content="Alice pins the Python version in pyproject")
    remember(owner=bob, content="Bob rotates the API keys every quarter")
    with connection.cursor() as cursor:
        # The rows above wait for their deferred checks until the test's transaction ends,
        # and PostgreSQL alters no table with checks pending: run them now.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        call_command("migrate", "memories", "0013", verbosity=0)
        cursor.execute("SELECT count(*) FROM memories_memoryversion")
        assert cursor.fetchone()[0] == 2  # the rows outlive the column's removal
    call_command("migrate", "memories", verbosity=0)

    owners = {v.memory.owner_id: v.owner_id for v in MemoryVersion.objects.select_related("memory")}
    assert owners == {alice.pk: alice.pk, bob.pk: bob.pk}


def test_a_form_never_offers_the_owner_and_its_rows_get_the_parents(alice):
    from django.forms import modelform_factory

    first = remember(owner=alice, content="The CI cache is keyed on the lockfile").memory
    second = remember(owner=alice, content="Nightly builds publish to the staging bucket").memory
    form = modelform_factory(MemoryLink, fields="__all__")(data={
        "from_memory": first.pk, "to_memory": second.pk, "relation": "related",
        "strength": 1.0, "created_at": "2026-01-01T00:00:00Z"})
    assert "owner" not in form.fields
    assert form.is_valid(), form.errors
    assert form.save().owner == alice

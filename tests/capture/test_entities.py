"""Entities and relationships named by extracted memories, merged per owner."""

from django.utils import timezone

from memories.capture.entities import link_entities
from memories.services.remembering import remember
from memories.engine.extraction import ExtractedMemory
from memories.models import Entity, MemoryEntity, Relationship


def stored(owner, content):
    return remember(owner=owner, content=content).memory


def extracted(content, entities=(), relationships=()):
    return ExtractedMemory.model_validate({
        "content": content, "entities": [{"name": n, "type": t} for n, t in entities],
        "relationships": [{"source": s, "type": k, "target": t} for s, k, t in relationships]})


def test_mentions_of_one_entity_in_other_case_and_spacing_are_one_entity(alice):
    first = stored(alice, "The orders service runs on PostgreSQL 16")
    second = stored(alice, "Reporting moved to postgresql as well")
    link_entities(first, extracted(first.content, [("PostgreSQL", "technology")]),
                          now=timezone.now())
    link_entities(second, extracted(second.content, [(" postgresql ", "technology")]),
                          now=timezone.now())
    entity = Entity.objects.for_owner(alice).get()
    assert (entity.name, entity.entity_type, entity.mention_count) == (
        "PostgreSQL", "technology", 2)
    assert set(entity.memories.all()) == {first, second}


def test_names_that_embed_as_the_same_thing_merge_and_keep_the_alias(alice, settings):
    settings.ENGRAM_ENTITY_MERGE_THRESHOLD = 0.8
    first = stored(alice, "The orders service runs on PostgreSQL 16")
    link_entities(first, extracted(first.content, [("orders service", "project")]),
                          now=timezone.now())
    link_entities(first, extracted(first.content, [("the orders service", "project")]),
                          now=timezone.now())
    entity = Entity.objects.for_owner(alice).get()
    assert entity.properties["aliases"] == ["the orders service"]


def test_unrelated_names_stay_apart(alice):
    memory = stored(alice, "The API uses Redis for sessions and PostgreSQL for orders")
    link_entities(memory, extracted(memory.content, [("Redis", "technology"),
                                                             ("PostgreSQL", "technology")]),
                          now=timezone.now())
    assert Entity.objects.for_owner(alice).count() == 2
    assert MemoryEntity.objects.filter(memory=memory).count() == 2


def test_relationships_record_the_memories_that_established_them(alice):
    first = stored(alice, "The API uses Redis for sessions")
    second = stored(alice, "Sessions in the API live in Redis")
    for memory in (first, second):
        link_entities(memory, extracted(memory.content,
                                                relationships=[("API", "uses", "Redis")]),
                              now=timezone.now())
    edge = Relationship.objects.for_owner(alice).get()
    assert (edge.source.name, edge.relationship_type, edge.target.name) == ("API", "uses",
                                                                            "Redis")
    assert edge.source_memories == [first.pk, second.pk]
    assert edge.valid_to is None


def test_entities_are_kept_per_owner(alice, bob):
    for owner in (alice, bob):
        memory = stored(owner, "We deploy with Kubernetes")
        link_entities(memory, extracted(memory.content, [("Kubernetes", "technology")]),
                              now=timezone.now())
    assert Entity.objects.for_owner(alice).count() == 1
    assert Entity.objects.for_owner(bob).count() == 1
    assert Entity.objects.count() == 2

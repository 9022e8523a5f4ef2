"""Entities: the people, projects, tools and ideas a memory names, merged by canonical name
or by meaning, and the relationships between them, each citing the memories that
established it."""

from datetime import datetime

from django.conf import settings
from django.db import connection, transaction

from ..engine.extraction import ExtractedMemory, canonical_entity_name
from ..models import Entity, EntityType, MemoryEntity, Relationship
from ..providers.embeddings import get_provider
from ..providers.errors import ProviderError


def _entity_type(name: str) -> str:
    return name if name in EntityType.values else EntityType.CONCEPT


def _find_or_create_entity(owner, name: str, entity_type: str, vector, model_id: str,
                           now: datetime) -> Entity:
    """Entity merge: the same canonical name, or a name that embeds as the same thing."""
    canonical = canonical_entity_name(name)
    entity = Entity.objects.for_owner(owner).filter(canonical_name=canonical).first()
    if entity is None and vector is not None:
        entity = _nearest_entity(owner, vector, model_id)
        if entity is not None:
            aliases = entity.properties.setdefault("aliases", [])
            if name not in aliases:
                aliases.append(name)
    if entity is None:
        entity, _ = Entity.objects.get_or_create(
            owner=owner, canonical_name=canonical,
            defaults={"name": name, "entity_type": _entity_type(entity_type),
                      "embedding": vector, "embedding_model": model_id if vector is not None
                      else "", "created_at": now, "updated_at": now})
    entity.mention_count += 1
    entity.updated_at = now
    entity.save(update_fields=["mention_count", "updated_at", "properties"])
    return entity


def _nearest_entity(owner, vector, model_id: str) -> Entity | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, 1 - (embedding <=> %s::vector) FROM memories_entity "
            "WHERE owner_id = %s AND embedding_model = %s "
            "ORDER BY embedding <=> %s::vector LIMIT 1",
            [str(list(map(float, vector))), owner.pk, model_id, str(list(map(float, vector)))])
        row = cursor.fetchone()
    if row and row[1] >= settings.ENGRAM_ENTITY_MERGE_THRESHOLD:
        return Entity.objects.get(pk=row[0])
    return None


def link_entities(memory, item: ExtractedMemory, *, now: datetime) -> list[Entity]:
    """Link a stored memory to the entities it mentions, and record their relationships."""
    names = {e.name: e.type for e in item.entities}
    for rel in item.relationships:
        names.setdefault(rel.source, EntityType.CONCEPT)
        names.setdefault(rel.target, EntityType.CONCEPT)
    names = {n: t for n, t in names.items() if canonical_entity_name(n)}
    if not names:
        return []
    provider = get_provider()
    try:
        vectors = list(provider.embed_documents(list(names)))
    except ProviderError:  # canonical names still merge while the provider is down
        vectors = [None] * len(names)
    with transaction.atomic():
        entities = {
            canonical_entity_name(name): _find_or_create_entity(
                memory.owner, name, entity_type, vector, provider.model_id, now)
            for (name, entity_type), vector in zip(names.items(), vectors)}
        MemoryEntity.objects.bulk_create(
            [MemoryEntity(memory=memory, entity=e) for e in entities.values()],
            ignore_conflicts=True)
        for rel in item.relationships:
            source = entities.get(canonical_entity_name(rel.source))
            target = entities.get(canonical_entity_name(rel.target))
            if source and target and source != target:
                _record_relationship(memory, source, target, rel.type, rel.strength, now)
    return list(entities.values())


def _record_relationship(memory, source, target, kind: str, strength: float, now) -> None:
    edge, created = Relationship.objects.get_or_create(
        source=source, target=target, relationship_type=kind,
        defaults={"owner": memory.owner, "strength": strength, "valid_from": now,
                  "source_memories": [memory.pk], "created_at": now, "updated_at": now})
    if not created and memory.pk not in edge.source_memories:
        edge.source_memories.append(memory.pk)
        edge.strength = max(edge.strength, strength)
        edge.updated_at = now
        edge.save(update_fields=["source_memories", "strength", "updated_at"])

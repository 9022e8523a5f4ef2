"""Import of the MCP memory server's knowledge graph (modelcontextprotocol/servers,
src/memory): a JSONL file of entity lines (name, entityType, observations) and relation
lines (from, relationType, to).

Entities become Entity rows, matched by canonical name within the owner; each
observation becomes a memory, stored through remember_many and linked to its entity;
relations become Relationship rows. Importing the same file again adds nothing.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from ..engine.dedup import content_hash
from ..engine.extraction import canonical_entity_name
from ..models import (
    Entity,
    EntityType,
    Memory,
    MemoryEntity,
    MemoryVersion,
    Relationship,
    Scope,
    VersionChange,
)
from ..providers.embeddings import get_provider
from ..providers.errors import ProviderError
from .jsonl import BadLine, ImportReport, read_records, text_field
from .remembering import NewMemory, remember_many
from .validation import content_error

GRAPH_LINE_TYPES = ("entity", "relation")

# The MCP server's entity types are free text; the nearest of Engram's fixed types is
# used, and the original kept in the entity's properties.
ENTITY_TYPE_ALIASES = {
    "company": EntityType.ORGANIZATION, "organisation": EntityType.ORGANIZATION,
    "org": EntityType.ORGANIZATION, "team": EntityType.ORGANIZATION,
    "tool": EntityType.TECHNOLOGY, "library": EntityType.TECHNOLOGY,
    "framework": EntityType.TECHNOLOGY, "language": EntityType.TECHNOLOGY,
    "programming_language": EntityType.TECHNOLOGY, "software": EntityType.TECHNOLOGY,
    "service": EntityType.TECHNOLOGY, "database": EntityType.TECHNOLOGY,
    "repository": EntityType.PROJECT, "repo": EntityType.PROJECT,
    "city": EntityType.PLACE, "country": EntityType.PLACE, "location": EntityType.PLACE,
    "meeting": EntityType.EVENT, "incident": EntityType.EVENT, "release": EntityType.EVENT,
}

MAX_NAME_LENGTH = 200  # Entity.name
MAX_RELATION_TYPE_LENGTH = 50  # Relationship.relationship_type
IMPORT_BATCH = 500
GRAPH_SOURCE = "mcp-memory"


@dataclass
class GraphEntity:
    line: int
    name: str
    source_type: str
    observations: list[str] = field(default_factory=list)

    @property
    def entity_type(self) -> str:
        key = self.source_type.strip().lower().replace(" ", "_").replace("-", "_")
        return key if key in EntityType.values else ENTITY_TYPE_ALIASES.get(
            key, EntityType.CONCEPT)


@dataclass
class GraphRelation:
    line: int
    source: str
    target: str
    relation_type: str


@dataclass
class Graph:
    entities: dict[str, GraphEntity] = field(default_factory=dict)  # by canonical name
    relations: list[GraphRelation] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(len(e.observations) for e in self.entities.values()) + len(self.relations)


def is_graph_record(record) -> bool:
    return isinstance(record, dict) and record.get("type") in GRAPH_LINE_TYPES


def observation_content(entity_name: str, observation: str) -> str:
    # An observation ("Prefers dark mode") says nothing on its own about whose it is;
    # stored with its entity's name it is recalled, and deduplicated, as a whole fact.
    return f"{entity_name}: {observation}"


def _name(record: dict, key: str) -> str:
    name = text_field(record, key, max_length=MAX_NAME_LENGTH, required=True).strip()
    if not canonical_entity_name(name):
        raise BadLine(f"{key} {name!r} has no letters or digits")
    return name


def _add_entity(graph: Graph, number: int, record: dict, report: ImportReport) -> None:
    name = _name(record, "name")
    source_type = text_field(record, "entityType", max_length=MAX_NAME_LENGTH)
    observations = record.get("observations", [])
    if not isinstance(observations, list):
        raise BadLine("observations must be a list of texts")
    entity = graph.entities.setdefault(canonical_entity_name(name),
                                       GraphEntity(number, name, source_type))
    for index, observation in enumerate(observations, start=1):
        if not isinstance(observation, str):
            report.bad.append((number, f"observation {index} is not text: skipped"))
            continue
        if problem := content_error(observation_content(name, observation.strip())
                                    if observation.strip() else ""):
            report.bad.append((number, f"observation {index}: {problem} Skipped."))
            continue
        if observation.strip() not in entity.observations:
            entity.observations.append(observation.strip())


def _relation(number: int, record: dict) -> GraphRelation:
    return GraphRelation(number, _name(record, "from"), _name(record, "to"),
                         text_field(record, "relationType", required=True,
                                    max_length=MAX_RELATION_TYPE_LENGTH).strip())


def parse_graph(owner, lines: Iterable[bytes | str], report: ImportReport) -> Graph:
    """Every line checked on its own, in any order; then each relation's ends looked up
    in the file and among the owner's entities. Bad lines and parts go to the report."""
    graph = Graph()
    for number, record in read_records(lines, report):
        try:
            if not isinstance(record, dict):
                raise BadLine("the line is not a JSON object")
            if record.get("type") == "entity":
                _add_entity(graph, number, record, report)
            elif record.get("type") == "relation":
                graph.relations.append(_relation(number, record))
            else:
                raise BadLine(f"type {record.get('type')!r} is not entity or relation")
        except BadLine as exc:
            report.bad.append((number, str(exc)))
    _drop_dangling_relations(owner, graph, report)
    report.bad.sort(key=lambda bad: bad[0])
    return graph


def _drop_dangling_relations(owner, graph: Graph, report: ImportReport) -> None:
    ends = {canonical_entity_name(n) for r in graph.relations for n in (r.source, r.target)}
    stored = set(Entity.objects.for_owner(owner).filter(canonical_name__in=ends)
                 .values_list("canonical_name", flat=True))
    known = stored | set(graph.entities)
    kept = []
    for relation in graph.relations:
        missing = [n for n in (relation.source, relation.target)
                   if canonical_entity_name(n) not in known]
        if missing:
            report.bad.append((relation.line, (f"relation {relation.relation_type!r} names "
                                               f"{missing[0]!r}, an entity neither in the "
                                               "file nor stored")))
        else:
            kept.append(relation)
    graph.relations = kept


def _name_vectors(names: list[str]) -> tuple[list, str]:
    provider = get_provider()
    try:
        return list(provider.embed_documents(names)), provider.model_id
    except ProviderError:  # entities still merge by canonical name while it is down
        return [None] * len(names), ""


def upsert_entities(owner, wanted: dict[str, Entity]) -> tuple[dict[str, Entity], int]:
    """The owner's entities for these canonical names, creating the missing ones from
    `wanted` (unsaved). Those already stored are kept as they are. Returns them by
    canonical name, and how many were created."""
    if not wanted:
        return {}, 0
    stored = set(Entity.objects.for_owner(owner).filter(canonical_name__in=wanted)
                 .values_list("canonical_name", flat=True))
    new = [entity for canonical, entity in wanted.items() if canonical not in stored]
    if new:
        vectors, model_id = _name_vectors([entity.name for entity in new])
        for entity, vector in zip(new, vectors, strict=True):
            entity.owner = owner
            entity.embedding, entity.embedding_model = vector, model_id if vector is not None \
                else ""
        Entity.objects.bulk_create(new, ignore_conflicts=True)
    found = {e.canonical_name: e for e in
             Entity.objects.for_owner(owner).filter(canonical_name__in=wanted)}
    return found, len(found) - len(stored)


def add_relationships(owner, edges: list[Relationship]) -> int:
    """Store the edges not stored yet, one per (source, type, target); how many were new."""
    stored = set(Relationship.objects.for_owner(owner)
                 .filter(source__in={e.source_id for e in edges})
                 .values_list("source_id", "relationship_type", "target_id"))
    new = {}
    for edge in edges:
        key = (edge.source_id, edge.relationship_type, edge.target_id)
        if key not in stored:
            edge.owner = owner
            new.setdefault(key, edge)
    Relationship.objects.bulk_create(new.values(), ignore_conflicts=True)
    return len(new)


def _already_imported(owner, project: str, contents: list[str]) -> set[str]:
    """Hashes of observations stored before: as a memory of that text, or as a
    near-duplicate that strengthened one (kept in that memory's history)."""
    hashes = {content_hash(c): c for c in contents}
    found = set(Memory.objects.private_to(owner).visible()
                .filter(project=project, content_hash__in=hashes)
                .values_list("content_hash", flat=True))
    reinforced = (MemoryVersion.objects
                  .filter(memory__owner=owner, memory__scope=Scope.PRIVATE,
                          memory__project=project,
                          change=VersionChange.REINFORCED,
                          after__content__in=list(hashes.values()))
                  .values_list("after__content", flat=True))
    return found | {content_hash(c) for c in reinforced}


def import_graph(owner, graph: Graph, report: ImportReport, *, project: str = "",
                 advance: Callable[[int], None] = lambda n: None) -> ImportReport:
    """Write the parsed graph: entities, then observations as memories linked to them,
    then relations. Each batch is its own transaction, so a job's progress shows; an
    interrupted import is finished by importing the file again."""
    now = timezone.now()
    with transaction.atomic():
        entities, report.entities = upsert_entities(owner, {
            canonical: Entity(name=e.name, canonical_name=canonical,
                              entity_type=e.entity_type, created_at=now, updated_at=now,
                              properties={"source_type": e.source_type} if e.source_type
                              and e.source_type != e.entity_type else {})
            for canonical, e in graph.entities.items()})
    ends = {canonical_entity_name(n) for r in graph.relations for n in (r.source, r.target)}
    entities.update((e.canonical_name, e) for e in Entity.objects.for_owner(owner).filter(
        canonical_name__in=ends - set(entities)))  # named by a relation, stored before
    observations = [(entities[canonical], observation_content(e.name, text))
                    for canonical, e in graph.entities.items() for text in e.observations]
    for start in range(0, len(observations), IMPORT_BATCH):
        batch = observations[start:start + IMPORT_BATCH]
        _import_observations(owner, batch, report, project)
        advance(len(batch))
    with transaction.atomic():
        report.relationships = add_relationships(owner, [
            Relationship(source=entities[canonical_entity_name(r.source)],
                         target=entities[canonical_entity_name(r.target)],
                         relationship_type=r.relation_type, valid_from=now, created_at=now,
                         updated_at=now)
            for r in graph.relations])
        _count_mentions(list(entities.values()))
    advance(len(graph.relations))
    return report


def _import_observations(owner, batch: list[tuple[Entity, str]], report: ImportReport,
                         project: str) -> None:
    with transaction.atomic():
        done = _already_imported(owner, project, [content for _, content in batch])
        new = [(entity, content) for entity, content in batch
               if content_hash(content) not in done]
        results = remember_many(owner=owner, items=[
            NewMemory(content=content, project=project, metadata={"source": GRAPH_SOURCE})
            for _, content in new])
        report.created += sum(r.created for r in results)
        report.strengthened += sum(not r.created for r in results)
        memory_of = dict(Memory.objects.private_to(owner).visible()
                         .filter(project=project,
                                 content_hash__in={content_hash(c) for _, c in batch})
                         .values_list("content_hash", "pk"))
        memory_of.update({content_hash(content): r.memory.pk
                          for (_, content), r in zip(new, results, strict=True)})
        MemoryEntity.objects.bulk_create(
            [MemoryEntity(memory_id=memory_of[content_hash(content)], entity=entity)
             for entity, content in batch if content_hash(content) in memory_of],
            ignore_conflicts=True)


def _count_mentions(entities: list[Entity]) -> None:
    """An entity's mentions are the memories linked to it (as capture counts them)."""
    for entity in entities:
        entity.mention_count = MemoryEntity.objects.filter(entity=entity).count()
    Entity.objects.bulk_update(entities, ["mention_count"], batch_size=IMPORT_BATCH)

"""Import and export as JSONL.

Engram's own format: a line per entity, per memory (with its versions, its links to
other memories, its entities and, for an insight, its review state), per relationship
and per contradiction between two of its memories (open, or as a person resolved it),
each naming its id so the others can refer to it. What it leaves out (deleted memories,
project sharing) the README lists. A memory line
with an id is restored as it was (a restore into another owner or instance); one
without (written by hand, or by an older export) is stored through remember_many,
duplicates strengthening what is stored. The MCP memory server's graph is imported by
services/graph_import.py; `import_jsonl` takes either, telling them apart by their
first line, and a large file runs as a job.
"""

import base64
import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch, Q
from django.utils import timezone

from reflection.models import Insight, InsightStatus, cited_key

from .. import jobs, queue, selectors, signals
from ..engine.dedup import content_hash
from ..engine.extraction import canonical_entity_name
from ..engine.redaction import redact_value
from ..models import (
    MAX_CONTENT_LENGTH,
    MAX_NOTE_LENGTH,
    Contradiction,
    ContradictionStatus,
    Entity,
    EntityType,
    Job,
    JobKind,
    Kind,
    LinkRelation,
    Memory,
    MemoryEntity,
    MemoryLink,
    MemoryType,
    MemoryVersion,
    Relationship,
    Resolution,
    Scope,
    Status,
    VersionChange,
    readable_by,
    writable_by,
)
from .editing import update_memory
from .graph_import import (
    GRAPH_SOURCE,
    Graph,
    add_relationships,
    import_graph,
    is_graph_record,
    parse_graph,
    upsert_entities,
)
from .jsonl import (
    BadLine,
    ImportReport,
    datetime_field,
    first_record,
    read_records,
    text_field,
)
from .remembering import (
    NewMemory,
    embedded_ahead,
    new_memory_errors,
    owner_lock,
    remember_many,
    without_secrets,
)
from .validation import MAX_SCOPE_LENGTH, clean_tags, unstorable_error

EXPORT_FORMATS = [
    {"name": "JSONL", "extension": "jsonl", "media_type": "application/x-ndjson",
     "description": "One JSON object per line: each entity, each memory (with its "
                    "versions, links and entities), each relationship and each "
                    "contradiction between its memories, with their ids. Importing it "
                    "elsewhere restores them as they were; deleted memories and project "
                    "sharing are not in it."},
]

ENGRAM, MCP_MEMORY = "engram", GRAPH_SOURCE
IMPORT_FORMATS = (ENGRAM, MCP_MEMORY)

# A memory line's fields, in the order they are written ("type" is memory_type).
EXPORT_FIELDS = ("id", "content", "type", "kind", "tags", "importance", "project",
                 "agent_id", "session_id", "created_at", "updated_at", "metadata", "status",
                 "pinned", "summary", "compressed", "index_key", "helpful_count",
                 "harmful_count", "access_count", "last_accessed_at", "valid_from",
                 "valid_to", "expires_at", "is_synthetic", "superseded_by", "entities",
                 "links", "versions", "insight")

IMPORTABLE_STATUSES = (Status.ACTIVE, Status.ARCHIVED)

IMPORT_BATCH = 500
EXPORT_BATCH = 500  # memories read a server-side fetch, and named-successor checks a query


# --- export -----------------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _line(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


def export_lines(owner, *, project: str | None = None) -> Iterator[str]:
    """The owner's entities, memories (deleted ones excepted; oldest first),
    relationships and the contradictions between two of those memories, one JSON line
    each. With `project` (a key restricted to it), only that project's memories, their
    links and contradictions among themselves, and the entities and relationships they
    mention.

    Streams from server-side cursors, so 100,000 memories never sit in memory at once.
    What the owner wrote into a project they have left is no longer theirs to take, and
    a memory they no longer read (made private by its author, moved to another project)
    is not named: its link is left out, as what superseded theirs it is null (as in the
    API, `selectors.readable_ids`).
    """
    reach = selectors.EVERYWHERE if project is None else selectors.Reach(project)
    memories = Memory.objects.readable_by(owner).filter(owner=owner).visible()
    entities = Entity.objects.for_owner(owner)
    edges = Relationship.objects.for_owner(owner)
    links = MemoryLink.objects.exclude(to_memory__status=Status.DELETED).filter(
        readable_by(owner, "to_memory__"))
    if project is not None:
        memories = memories.filter(project=project)
        entities = entities.filter(memoryentity__memory__in=memories).distinct()
        edges = edges.filter(source__in=entities, target__in=entities)
        links = links.filter(to_memory__project=project)
    exported = memories
    for entity in entities.order_by("created_at", "id").iterator(chunk_size=2000):
        yield _line({"record": "entity", "id": str(entity.pk), "name": entity.name,
                     "entity_type": entity.entity_type, "properties": entity.properties,
                     "mention_count": entity.mention_count,
                     "created_at": _iso(entity.created_at),
                     "updated_at": _iso(entity.updated_at)})
    memories = (memories.order_by("created_at", "id")
                .defer("embedding", "search_vector").select_related("insight__superseded_by")
                .prefetch_related(
                    Prefetch("versions", queryset=MemoryVersion.objects
                             .select_related("changed_by").order_by("changed_at", "id")),
                    Prefetch("links_out", queryset=links.order_by("id")),
                    Prefetch("memoryentity_set", queryset=MemoryEntity.objects.order_by("id"))))
    batch = []
    for memory in memories.iterator(chunk_size=EXPORT_BATCH):
        batch.append(memory)
        if len(batch) == EXPORT_BATCH:
            yield from _memory_lines(owner, batch, reach)
            batch = []
    yield from _memory_lines(owner, batch, reach)
    for edge in edges.order_by("created_at", "id").iterator(chunk_size=2000):
        yield _line({"record": "relationship", "id": str(edge.pk),
                     "source": str(edge.source_id), "target": str(edge.target_id),
                     "relationship_type": edge.relationship_type, "strength": edge.strength,
                     "valid_from": _iso(edge.valid_from), "valid_to": _iso(edge.valid_to),
                     "source_memories": [str(pk) for pk in edge.source_memories],
                     "created_at": _iso(edge.created_at), "updated_at": _iso(edge.updated_at)})
    yield from _contradiction_lines(owner, exported)


def _contradiction_lines(owner, exported) -> Iterator[str]:
    """The owner's contradictions whose two memories are both in the export, resolved
    ones with how a person resolved them: imported elsewhere, a pair dismissed as both
    valid is not raised again, and the queue keeps its history. A merged text that is
    not in the export is named as none."""
    found = (Contradiction.objects.filter(owner=owner, memory_a__in=exported.values("pk"),
                                          memory_b__in=exported.values("pk"))
             .order_by("detected_at", "id"))
    merged = set(exported.filter(pk__in=found.exclude(merged_into=None)
                                 .values("merged_into")).values_list("pk", flat=True))
    for contradiction in found.iterator(chunk_size=2000):
        yield _line({
            "record": "contradiction", "id": str(contradiction.pk),
            "memory_a": str(contradiction.memory_a_id),
            "memory_b": str(contradiction.memory_b_id),
            "status": contradiction.status, "resolution": contradiction.resolution,
            "note": contradiction.note, "reason": contradiction.reason,
            "confidence": contradiction.confidence,
            "detected_by": contradiction.detected_by,
            "detected_at": _iso(contradiction.detected_at),
            "resolved_at": _iso(contradiction.resolved_at),
            "merged_into": str(contradiction.merged_into_id)
            if contradiction.merged_into_id in merged else None})


def _memory_lines(owner, memories: list[Memory], reach) -> Iterator[str]:
    """The memories' lines, each successor the owner does not read within `reach` null,
    in their versions too: two queries a batch."""
    readable = selectors.readable_ids(
        owner, [m.superseded_by_id for m in memories]
        + [pk for m in memories if (found := _insight(m)) for pk in found.cited_ids],
        reach=reach)
    selectors.successors_hidden([v for m in memories for v in m.versions.all()], owner,
                                reach=reach)
    for memory in memories:
        yield _line(_memory_record(memory, readable))


def _memory_record(memory: Memory, readable: set) -> dict:
    successor = memory.superseded_by_id if memory.superseded_by_id in readable else None
    return {
        "id": str(memory.pk), "content": memory.content, "type": memory.memory_type,
        "kind": memory.kind, "tags": memory.tags, "importance": memory.importance,
        "project": memory.project, "agent_id": memory.agent_id,
        "session_id": memory.session_id, "created_at": _iso(memory.created_at),
        "updated_at": _iso(memory.updated_at), "metadata": memory.metadata,
        "status": memory.status, "pinned": memory.pinned, "summary": memory.summary,
        "compressed": memory.compressed, "index_key": memory.index_key,
        "helpful_count": memory.helpful_count, "harmful_count": memory.harmful_count,
        "access_count": memory.access_count,
        "last_accessed_at": _iso(memory.last_accessed_at),
        "valid_from": _iso(memory.valid_from), "valid_to": _iso(memory.valid_to),
        "expires_at": _iso(memory.expires_at), "is_synthetic": memory.is_synthetic,
        "superseded_by": str(successor) if successor else None,
        "entities": [str(link.entity_id) for link in memory.memoryentity_set.all()],
        "links": [{"to": str(link.to_memory_id), "relation": link.relation,
                   "strength": link.strength, "created_at": _iso(link.created_at)}
                  for link in memory.links_out.all()],
        "versions": [{"change": v.change, "changed_at": _iso(v.changed_at),
                      "changed_by": v.changed_by.get_username() if v.changed_by else None,
                      "agent_id": v.agent_id, "before": v.before, "after": v.after}
                     for v in memory.versions.all()],
        "insight": _insight_record(_insight(memory), readable),
    }


def _insight(memory: Memory) -> Insight | None:
    try:
        return memory.insight
    except Insight.DoesNotExist:
        return None


def _insight_record(insight: Insight | None, readable: set) -> dict | None:
    """What reflection knows of an insight memory: its question, what it cites and
    whether a person reviewed it (an agent handed one unreviewed is told so)."""
    if insight is None:
        return None
    newer = insight.superseded_by
    return {"question": insight.question, "topic": insight.topic,
            "cited": [str(pk) for pk in insight.cited_ids if pk in readable],
            "importance": insight.importance, "round": insight.round,
            "reflected_by": insight.reflected_by, "status": insight.status,
            "flagged_reason": insight.flagged_reason,
            "status_before_flag": insight.status_before_flag,
            "reviewed": insight.reviewed_by_id is not None,
            "reviewed_at": _iso(insight.reviewed_at), "created_at": _iso(insight.created_at),
            "superseded_by": str(newer.memory_id) if newer else None}


# --- reading Engram's format --------------------------------------------------------------


@dataclass
class Restored:
    """What a memory line with an id carries beyond what remember() takes."""

    id: str
    fields: dict  # Memory fields set as exported
    superseded_by: str | None
    entities: list[str]
    links: list[dict]
    versions: list[dict]
    insight: dict | None = None


@dataclass
class ImportLine:
    number: int
    item: NewMemory
    created_at: datetime | None
    status: str
    pinned: bool
    restored: Restored | None = None


@dataclass
class EngramFile:
    memories: list[ImportLine] = field(default_factory=list)
    entities: dict[str, tuple[int, Entity]] = field(default_factory=dict)  # by exported id
    relationships: list[tuple[int, dict]] = field(default_factory=list)
    contradictions: list[tuple[int, dict]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.memories)


def _choice(record: dict, name: str, choices: list[str], default: str) -> str:
    value = record.get(name, default)
    if value not in choices:
        raise BadLine(f"{name} {value!r} is not one of {', '.join(choices)}")
    return value


def _uuid(value, name: str) -> str:
    try:
        return str(uuid.UUID(value))
    except (TypeError, ValueError, AttributeError):
        raise BadLine(f"{name} {value!r} is not an id") from None


# The counts are PostgreSQL integers.
MAX_COUNT = 2**31 - 1


def _count(record: dict, name: str) -> int:
    value = record.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise BadLine(f"{name} must be a whole number from 0 to {MAX_COUNT:,}")
    return value


def _number(record: dict, name: str, low: float, high: float, default: float) -> float:
    value = record.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not low <= value <= high:
        raise BadLine(f"{name} must be a number from {low:g} to {high:g}")
    return float(value)


def _json_object(record: dict, name: str) -> dict:
    value = record.get(name) or {}
    if not isinstance(value, dict):
        raise BadLine(f"{name} must be a JSON object")
    if unstorable := unstorable_error(value):
        raise BadLine(f"{name}: {unstorable}")
    return value


def _list(record: dict, name: str) -> list:
    value = record.get(name) or []
    if not isinstance(value, list):
        raise BadLine(f"{name} must be a list")
    return value


def _parse_memory(record: dict, project: str | None, within: str | None) -> ImportLine:
    created_at = datetime_field(record, "created_at")
    pinned = record.get("pinned", False)
    if not isinstance(pinned, bool):
        raise BadLine("pinned must be true or false")
    status = _choice(record, "status", list(IMPORTABLE_STATUSES), Status.ACTIVE)
    # A line with an id restores its dates as exported (_parse_restored); one without is
    # a new memory, and holds when its line says as remember() would take it.
    validity = {} if record.get("id") is not None else {
        "valid_from": datetime_field(record, "valid_from"),
        "expires_at": datetime_field(record, "expires_at")}
    try:  # a line naming another project is refused, as any write by such a key is
        own = selectors.Reach(within).project_for(record.get("project") or None) or ""
    except selectors.OutOfProject as refused:
        raise BadLine(str(refused)) from None
    item = NewMemory(
        content=record.get("content"),
        memory_type=record.get("type") or MemoryType.SEMANTIC,
        kind=record.get("kind") or Kind.FACT,
        project=own if project is None else project,
        agent_id=record.get("agent_id") or "", session_id=record.get("session_id") or "",
        importance=record.get("importance"), tags=record.get("tags") or [],
        metadata=record.get("metadata") or {}, **validity)
    errors = new_memory_errors(item)
    if errors:
        raise BadLine("; ".join(f"{field}: {message}" for field, messages in errors.items()
                                for message in messages))
    restored = None
    if record.get("id") is not None:
        if created_at is None:
            raise BadLine("created_at is required on a line with an id")
        restored = _parse_restored(record)
    return ImportLine(0, item, created_at, status, pinned, restored)


def _parse_restored(record: dict) -> Restored:
    is_synthetic = record.get("is_synthetic", False)
    if not isinstance(is_synthetic, bool):
        raise BadLine("is_synthetic must be true or false")
    fields = {
        "summary": text_field(record, "summary", max_length=MAX_CONTENT_LENGTH),
        "compressed": text_field(record, "compressed", max_length=MAX_CONTENT_LENGTH),
        "index_key": text_field(record, "index_key", max_length=100),
        "helpful_count": _count(record, "helpful_count"),
        "harmful_count": _count(record, "harmful_count"),
        "access_count": _count(record, "access_count"),
        "is_synthetic": is_synthetic,
    }
    for name in ("updated_at", "last_accessed_at", "valid_from", "valid_to", "expires_at"):
        fields[name] = datetime_field(record, name)
    links = []
    for link in _list(record, "links"):
        if not isinstance(link, dict):
            raise BadLine("each link must be a JSON object")
        links.append({"to": _uuid(link.get("to"), "link to"),
                      "relation": _choice(link, "relation", LinkRelation.values, ""),
                      "strength": _number(link, "strength", 0, 1_000_000, 1.0),
                      "created_at": datetime_field(link, "created_at")})
    versions = []
    for version in _list(record, "versions"):
        if not isinstance(version, dict):
            raise BadLine("each version must be a JSON object")
        versions.append({
            "change": _choice(version, "change", VersionChange.values, ""),
            "changed_at": datetime_field(version, "changed_at") or timezone.now(),
            "changed_by": version.get("changed_by") is not None,
            "agent_id": text_field(version, "agent_id", max_length=MAX_SCOPE_LENGTH),
            "before": _json_object(version, "before"),
            "after": _json_object(version, "after")})
    superseded_by = record.get("superseded_by")
    return Restored(
        id=_uuid(record["id"], "id"), fields=fields,
        superseded_by=None if superseded_by is None else _uuid(superseded_by, "superseded_by"),
        entities=[_uuid(pk, "entity") for pk in _list(record, "entities")],
        links=links, versions=versions, insight=_parse_insight(record))


def _parse_insight(record: dict) -> dict | None:
    """A memory line's insight (absent from files made before it was exported). A bad
    field is named as the insight's: the memory line has a status, an importance and a
    created_at of its own, which are not the ones at fault."""
    insight = record.get("insight")
    if insight is None:
        return None
    if not isinstance(insight, dict):
        raise BadLine("insight must be a JSON object")
    try:
        return _insight_fields(insight)
    except BadLine as exc:
        raise BadLine(f"insight {exc}") from None


def _insight_fields(insight: dict) -> dict:
    reviewed = insight.get("reviewed", False)
    if not isinstance(reviewed, bool):
        raise BadLine("reviewed must be true or false")
    before_flag = insight.get("status_before_flag")
    successor = insight.get("superseded_by")
    return {
        "question": text_field(insight, "question", max_length=MAX_CONTENT_LENGTH),
        "topic": text_field(insight, "topic", max_length=200),
        "cited": [_uuid(pk, "cited") for pk in _list(insight, "cited")],
        "importance": _number(insight, "importance", 0, 10, 8.0),
        "round": _count(insight, "round"),
        "reflected_by": text_field(insight, "reflected_by", max_length=100),
        "status": _choice(insight, "status", InsightStatus.values,
                          InsightStatus.PENDING_REVIEW),
        "flagged_reason": text_field(insight, "flagged_reason",
                                     max_length=MAX_CONTENT_LENGTH),
        "status_before_flag": None if before_flag is None else _choice(
            insight, "status_before_flag", InsightStatus.values, ""),
        "reviewed": reviewed,
        "reviewed_at": datetime_field(insight, "reviewed_at"),
        "created_at": datetime_field(insight, "created_at"),
        "superseded_by": None if successor is None else _uuid(successor, "superseded_by")}


def _parse_entity(record: dict) -> tuple[str, Entity]:
    name = text_field(record, "name", max_length=200, required=True).strip()
    if not canonical_entity_name(name):
        raise BadLine(f"name {name!r} has no letters or digits")
    now = timezone.now()
    return _uuid(record.get("id"), "id"), Entity(
        name=name, canonical_name=canonical_entity_name(name),
        entity_type=_choice(record, "entity_type", EntityType.values, EntityType.CONCEPT),
        properties=_json_object(record, "properties"),
        mention_count=_count(record, "mention_count"),
        created_at=datetime_field(record, "created_at") or now,
        updated_at=datetime_field(record, "updated_at") or now)


def _parse_relationship(record: dict, entities: dict) -> dict:
    source, target = _uuid(record.get("source"), "source"), _uuid(record.get("target"),
                                                                    "target")
    for end in (source, target):
        if end not in entities:
            raise BadLine(f"the relationship names entity {end}, which is not in the file")
    return {"source": source, "target": target,
            "relationship_type": text_field(record, "relationship_type", max_length=50,
                                            required=True),
            "strength": _number(record, "strength", 0, 1, 0.8),
            "valid_from": datetime_field(record, "valid_from"),
            "valid_to": datetime_field(record, "valid_to"),
            "source_memories": [_uuid(pk, "source memory")
                                for pk in _list(record, "source_memories")],
            "created_at": datetime_field(record, "created_at"),
            "updated_at": datetime_field(record, "updated_at")}


def _parse_contradiction(record: dict) -> dict:
    sides = _uuid(record.get("memory_a"), "memory_a"), _uuid(record.get("memory_b"),
                                                              "memory_b")
    if sides[0] == sides[1]:
        raise BadLine("memory_a and memory_b are one memory, which contradicts no other")
    status = _choice(record, "status", ContradictionStatus.values, ContradictionStatus.OPEN)
    # one closed by Engram, a side superseded when another was resolved, has none
    resolution = _choice(record, "resolution", ["", *Resolution.values], "")
    if status == ContradictionStatus.OPEN and resolution:
        raise BadLine("an open contradiction has no resolution")
    merged_into = record.get("merged_into")
    if merged_into is not None and resolution != Resolution.MERGED:
        raise BadLine("merged_into is for a contradiction resolved as merged")
    return {"memory_a": sides[0], "memory_b": sides[1], "status": status,
            "resolution": resolution,
            "note": text_field(record, "note", max_length=MAX_NOTE_LENGTH),
            "reason": text_field(record, "reason", max_length=MAX_NOTE_LENGTH),
            "confidence": _number(record, "confidence", 0, 1, 1.0),
            "detected_by": text_field(record, "detected_by", max_length=100),
            "detected_at": datetime_field(record, "detected_at"),
            "resolved_at": datetime_field(record, "resolved_at"),
            "merged_into": None if merged_into is None else _uuid(merged_into, "merged_into")}


def parse_engram(lines: Iterable[bytes | str], report: ImportReport, *,
                 project: str | None = None, within: str | None = None) -> EngramFile:
    """Each line checked on its own (a relationship once every entity is read); the good
    ones, and the bad in the report. `project`, when given, replaces every memory's.
    `within`, the project a key is restricted to: a line naming another is bad, one
    naming none goes into it."""
    parsed, ignored, relationship_records = EngramFile(), set(), []
    contradiction_records = []
    seen: dict[str, int] = {}  # memory id -> the line it is first on
    left_out: dict[str, int] = {}  # memory id -> its line, refused
    for number, record in read_records(lines, report):
        try:
            if not isinstance(record, dict):
                raise BadLine("the line is not a JSON object")
            kind = record.get("record", "memory")
            if kind == "entity":
                pk, entity = _parse_entity(record)
                if pk in parsed.entities:
                    raise BadLine(f"entity {pk} is on line {parsed.entities[pk][0]} already")
                parsed.entities[pk] = (number, entity)
            elif kind == "relationship":
                relationship_records.append((number, record))
            elif kind == "contradiction":
                contradiction_records.append((number, _parse_contradiction(record)))
            elif kind == "memory":
                line = _parse_memory(record, project, within)
                line.number = number
                if line.restored and (first := seen.setdefault(line.restored.id, number)) \
                        != number:
                    raise BadLine(f"id {line.restored.id} is on line {first} already")
                parsed.memories.append(line)
                ignored.update(set(record) - set(EXPORT_FIELDS) - {"record"})
            else:
                raise BadLine(f"record {kind!r} is not memory, entity, relationship or "
                              "contradiction")
        except BadLine as exc:
            report.bad.append((number, str(exc)))
            if isinstance(record, dict) and record.get("record", "memory") == "memory":
                left_out.setdefault(_id_or_none(record.get("id")), number)
    in_rings = _refuse_supersession_cycles(parsed, report)
    left_out.update({line.restored.id: line.number for line in in_rings})
    for number, record in relationship_records:  # entities may come after them
        try:
            parsed.relationships.append((number, _parse_relationship(record,
                                                                     parsed.entities)))
        except BadLine as exc:
            report.bad.append((number, str(exc)))
    _check_contradictions(parsed, contradiction_records, left_out, report)
    report.bad.sort(key=lambda bad: bad[0])
    report.ignored_fields = sorted(ignored)
    return parsed


def _id_or_none(value) -> str | None:
    try:
        return _uuid(value, "id")
    except BadLine:
        return None


def _check_contradictions(parsed: EngramFile, records: list[tuple[int, dict]],
                          left_out: dict[str, int], report: ImportReport) -> None:
    """The contradiction lines whose two memories are lines of the file (memories may
    come after them), each pair once: a line left out leaves its contradictions, and a
    second line for one pair, however it orders the two, is refused, not dropped."""
    restored = {line.restored.id for line in parsed.memories if line.restored}
    pairs: dict[frozenset, int] = {}
    for number, contradiction in records:
        sides = (contradiction["memory_a"], contradiction["memory_b"])
        missing = next((side for side in sides if side not in restored), None)
        if missing in left_out:
            report.bad.append((number, (f"the contradiction names memory {missing}, whose "
                                        f"line {left_out[missing]} was left out")))
        elif missing:
            report.bad.append((number, (f"the contradiction names memory {missing}, which "
                                        "is not in the file (a contradiction goes in the "
                                        "file that holds its two memories)")))
        elif (first := pairs.setdefault(frozenset(sides), number)) != number:
            report.bad.append((number, f"the pair of memories is on line {first} already"))
        else:
            parsed.contradictions.append((number, contradiction))


def _in_rings(successor: dict) -> set:
    """The keys of `successor` (memory -> the memory superseding it) that lie on a ring:
    recall shows only the end of a chain, and a ring has none, so all of it would be
    hidden for good. Each key is walked once."""
    in_rings, done = set(), set()
    for start in successor:
        path, on_path, at = [], set(), start
        while at in successor and at not in done and at not in on_path:
            path.append(at)
            on_path.add(at)
            at = successor[at]
        if at in on_path:
            in_rings.update(path[path.index(at):])
        done.update(path)
    return in_rings


RING = ("superseded_by leads back to this memory (a memory superseded by itself, or a ring "
        "of them, hides them all)")
RING_WITH_STORED = (f"stored without its supersession: {RING}, with the memories already "
                    "stored")
STORED_AS_IT_IS = ("already stored, and left as it is: an import does not supersede a "
                   "memory stored before it (resolve a contradiction between them for that)")


def _refuse_supersession_cycles(parsed: EngramFile, report: ImportReport) -> list[ImportLine]:
    """Leave out the lines whose supersession, within the file, leads back to them; they
    are returned."""
    in_rings = _in_rings({line.restored.id: line.restored.superseded_by
                          for line in parsed.memories if line.restored})
    refused = [line for line in parsed.memories
               if line.restored and line.restored.id in in_rings]
    report.bad += [(line.number, RING) for line in refused]
    parsed.memories = [line for line in parsed.memories
                       if not (line.restored and line.restored.id in in_rings)]
    return refused


# --- writing Engram's format --------------------------------------------------------------


def import_engram(owner, parsed: EngramFile, report: ImportReport, *,
                  advance: Callable[[int], None] = lambda n: None) -> ImportReport:
    """Store the parsed lines: restored ones as they were, the others through
    remember_many. Each batch is a transaction (wrap the call in one for all or nothing).
    """
    ids: dict[str, uuid.UUID] = {}  # exported memory id -> stored memory id
    new: set[uuid.UUID] = set()  # the memories this import stored
    batches = [parsed.memories[start:start + IMPORT_BATCH]
               for start in range(0, len(parsed.memories), IMPORT_BATCH)]
    fresh = embedded_ahead([line.item for line in batch if not line.restored]
                           for batch in batches)
    for batch, items in zip(batches, fresh, strict=True):
        with transaction.atomic():
            _restore_memories(owner, [line for line in batch if line.restored], ids, new,
                              report)
            _remember_lines(owner, [line for line in batch if not line.restored], items,
                            report)
        advance(len(batch))
    with transaction.atomic():
        _restore_graph(owner, parsed, ids, new, report)
    return report


def _remember_lines(owner, lines: list[ImportLine], items: list[NewMemory],
                    report: ImportReport) -> None:
    """Store the lines' items (`items`, embedded ahead: see embedded_ahead)."""
    if not lines:
        return
    try:
        with transaction.atomic():
            results = remember_many(owner=owner, items=items)
    except ValidationError as exc:
        # The line checks above mirror the service's; should they ever disagree, name
        # the line and leave its batch out.
        report.bad += [(lines[int(key.split(".")[0])].number if "." in key
                        else lines[0].number, "; ".join(messages))
                       for key, messages in exc.message_dict.items()]
        return
    _keep_exported_state(lines, results)
    report.created += sum(r.created for r in results)
    report.strengthened += sum(not r.created for r in results)


def _keep_exported_state(lines: list[ImportLine], results) -> None:
    """New memories keep the date, status and pin they were exported with."""
    changed = []
    for line, result in zip(lines, results, strict=True):
        memory = result.memory
        if not result.created or (line.created_at is None and line.status == Status.ACTIVE
                                  and not line.pinned):
            continue
        if line.created_at is not None:
            memory.created_at = line.created_at
            memory.valid_from = line.item.valid_from or line.created_at
        memory.status, memory.pinned = line.status, line.pinned
        changed.append(memory)
    if changed:
        Memory.objects.bulk_update(changed, ["created_at", "valid_from", "status", "pinned"],
                                   batch_size=IMPORT_BATCH)


def _restore_memories(owner, lines: list[ImportLine], ids: dict, new: set,
                      report: ImportReport) -> None:
    """Memories exactly as exported (their ids added to `new`). One already stored (the
    same text, project and creation time) is the same memory: importing an export twice
    restores it once, and one its owner deleted since comes back (_undelete)."""
    if not lines:
        return
    # Two imports of one file at once (a double click, a CLI run again) each found
    # nothing stored and stored it all: the second now waits, then finds the first's.
    owner_lock(owner.pk)
    lines = [_without_secrets(line) for line in lines]
    hashes = [content_hash(line.item.content) for line in lines]
    stored, deleted = {}, {}
    for h, project, created_at, pk, status in _matchable(owner).filter(
            content_hash__in=set(hashes)).values_list(
            "content_hash", "project", "created_at", "pk", "status"):
        if (h, project, created_at) not in stored or status != Status.DELETED:
            stored[h, project, created_at] = pk
            deleted[pk] = status == Status.DELETED
    created, undeleted = [], []
    for line, digest in zip(lines, hashes, strict=True):
        key = (digest, line.item.project, line.created_at)
        if key in stored:
            ids[line.restored.id] = stored[key]
            if deleted.get(stored[key]):
                undeleted.append((stored[key], line.status))
                deleted[stored[key]] = False  # a second line of it finds it back already
            else:
                report.already_stored += 1
            continue
        memory = _restored_memory(owner, line, digest)
        stored[key] = ids[line.restored.id] = memory.pk
        created.append((line, memory))
    memories = [memory for _, memory in created]
    updated = [memory.updated_at for memory in memories]
    new.update(memory.pk for memory in memories)
    Memory.objects.bulk_create(memories)  # which sets updated_at to now (auto_now) ...
    for memory, updated_at in zip(memories, updated, strict=True):
        memory.updated_at = updated_at
    # ... and bulk_update, which leaves auto_now alone, writes the exported one back.
    Memory.objects.bulk_update(memories, ["updated_at"], batch_size=IMPORT_BATCH)
    MemoryVersion.objects.bulk_create([
        MemoryVersion(memory=memory, change=v["change"], changed_at=v["changed_at"],
                      # The export's people mean nothing here: the owner made the changes.
                      changed_by=owner if v["changed_by"] else None,
                      agent_id=v["agent_id"], before=v["before"], after=v["after"])
        for line, memory in created for v in line.restored.versions])
    signals.memories_stored.send(sender=Memory, owner=owner, memories=memories)
    queue.embed_memories([memory.pk for memory in memories])
    report.created += len(memories)
    _undelete(owner, undeleted, report)


def _matchable(owner):
    """The stored memories a line of an export may be: the owner's private ones, deleted
    too (_undelete), and those they wrote and shared that are still there and still
    theirs to change (the export of their author holds them, and must not come back
    beside them as private copies). One in a project where they only read now is not
    theirs to manage: the line comes back as a private memory, its history with it."""
    return Memory.objects.filter(owner=owner).filter(
        Q(scope=Scope.PRIVATE) | (writable_by(owner) & ~Q(status=Status.DELETED)))


def _undelete(owner, memories: list[tuple], report: ImportReport) -> None:
    """Bring back, with the status of their lines, the memories the owner deleted after
    the export: importing it is how they are restored, and found "already stored" they
    stayed deleted. A version records it, as a restore from the dashboard would."""
    found = Memory.objects.in_bulk([pk for pk, _ in memories])
    for pk, status in memories:
        update_memory(found[pk], by=owner, status=status)
    report.undeleted += len(memories)


def _without_secrets(line: ImportLine) -> ImportLine:
    """A line restored as remember() would store it: secrets redacted from its content
    and metadata, and from what only a restore carries (summary, compressed text, the
    versions' texts, its insight's question), all counted in the memory's tally."""
    restored, found = line.restored, Counter()
    fields = dict(restored.fields)
    for name in ("summary", "compressed"):
        fields[name], in_field = redact_value(fields[name])
        found += in_field
    versions = []
    for version in restored.versions:
        before, in_before = redact_value(version["before"])
        after, in_after = redact_value(version["after"])
        found += in_before + in_after
        versions.append({**version, "before": before, "after": after})
    insight = restored.insight and dict(restored.insight)
    for name in ("question", "flagged_reason") if insight else ():
        insight[name], in_field = redact_value(insight[name])
        found += in_field
    return replace(line, item=without_secrets(line.item, found_beside=found),
                   restored=replace(restored, fields=fields, versions=versions,
                                    insight=insight))


def _restored_memory(owner, line: ImportLine, digest: str) -> Memory:
    item, fields = line.item, line.restored.fields
    memory = Memory(
        owner=owner, content=item.content, content_hash=digest,
        memory_type=item.memory_type, kind=item.kind, project=item.project,
        agent_id=item.agent_id, session_id=item.session_id,
        importance=5.0 if item.importance is None else float(item.importance),
        tags=clean_tags(item.tags), metadata=item.metadata, created_at=line.created_at,
        status=line.status, pinned=line.pinned,
        **{name: value for name, value in fields.items() if value is not None})
    memory.valid_from = fields["valid_from"] or line.created_at
    memory.last_accessed_at = fields["last_accessed_at"] or line.created_at
    memory.updated_at = fields["updated_at"] or line.created_at
    return memory


def _changing_what_is_stored(lines: list[ImportLine], ids: dict, new: set) -> set[int]:
    """The lines whose supersession would change a memory stored before the import (one
    holding now would leave every context, or a successor a person chose be replaced),
    less those finishing an import that stopped part way: the memory already ended as
    its line says, with no successor yet. Returns their numbers."""
    stored = {pk: (successor, valid_to) for pk, successor, valid_to in Memory.objects.filter(
        pk__in={ids[line.restored.id] for line in lines} - new)
        .values_list("pk", "superseded_by", "valid_to")}
    changing = set()
    for line in lines:
        if ids[line.restored.id] not in stored:
            continue
        successor, valid_to = stored[ids[line.restored.id]]
        if successor != ids[line.restored.superseded_by] and not (
                successor is None and valid_to is not None
                and valid_to == line.restored.fields["valid_to"]):
            changing.add(line.number)
    return changing


def _restore_supersession(owner, lines: list[ImportLine], ids: dict, new: set,
                          report: ImportReport) -> None:
    """Each line's supersession, less those that would close a ring with what is stored
    (the file alone has none, _refuse_supersession_cycles, but its lines may be memories
    already stored, or two of them one memory) and those that would change a memory
    stored before (_changing_what_is_stored). Those lines' memories are stored, as
    they were."""
    if not lines:
        return
    changing = _changing_what_is_stored(lines, ids, new)
    report.bad += [(number, STORED_AS_IT_IS) for number in sorted(changing)]
    lines = [line for line in lines if line.number not in changing]
    successor = dict(Memory.objects.filter(owner=owner, superseded_by__isnull=False)
                     .values_list("pk", "superseded_by"))
    wanted = {ids[line.restored.id]: ids[line.restored.superseded_by] for line in lines}
    in_rings = _in_rings({**successor, **wanted})
    report.bad += [(line.number, RING_WITH_STORED) for line in lines
                   if ids[line.restored.id] in in_rings]
    Memory.objects.bulk_update(
        [Memory(pk=ids[line.restored.id], superseded_by_id=ids[line.restored.superseded_by])
         for line in lines if ids[line.restored.id] not in in_rings],
        ["superseded_by"], batch_size=IMPORT_BATCH)


def _restore_graph(owner, parsed: EngramFile, ids: dict, new: set,
                   report: ImportReport) -> None:
    """What refers to other lines: supersession, links between memories, entities, the
    memories that name them, and relationships between them."""
    restored = [line for line in parsed.memories if line.restored
                and line.restored.id in ids]
    _restore_supersession(owner, [line for line in restored
                                  if line.restored.superseded_by in ids], ids, new, report)
    MemoryLink.objects.bulk_create([
        MemoryLink(from_memory_id=ids[line.restored.id], to_memory_id=ids[link["to"]],
                   relation=link["relation"], strength=link["strength"],
                   created_at=link["created_at"] or line.created_at)
        for line in restored for link in line.restored.links
        if link["to"] in ids and ids[link["to"]] != ids[line.restored.id]],
        ignore_conflicts=True)
    by_canonical, report.entities = upsert_entities(owner, {
        entity.canonical_name: entity for _, entity in parsed.entities.values()})
    entities = {pk: by_canonical[entity.canonical_name]
                for pk, (_, entity) in parsed.entities.items()}
    MemoryEntity.objects.bulk_create([
        MemoryEntity(memory_id=ids[line.restored.id], entity=entities[pk])
        for line in restored for pk in line.restored.entities if pk in entities],
        ignore_conflicts=True)
    _restore_insights(owner, restored, ids, new)
    _restore_version_references(restored, ids, new)
    now = timezone.now()
    report.relationships = add_relationships(owner, [
        Relationship(source=entities[edge["source"]], target=entities[edge["target"]],
                     relationship_type=edge["relationship_type"], strength=edge["strength"],
                     valid_from=edge["valid_from"] or now, valid_to=edge["valid_to"],
                     source_memories=[ids[pk] for pk in edge["source_memories"] if pk in ids],
                     created_at=edge["created_at"] or now,
                     updated_at=edge["updated_at"] or now)
        for _, edge in parsed.relationships])
    _restore_contradictions(owner, parsed, ids, report)


def _restore_version_references(lines: list[ImportLine], ids: dict, new: set) -> None:
    """The successors the restored versions name ("superseded_by" before and after a
    change), as the memories of the file were stored here: the exported ids mean nothing
    to the importer, who would read a change from nothing to nothing. One not in the
    file is left as exported."""
    naming = {ids[line.restored.id] for line in lines if ids[line.restored.id] in new
              and any("superseded_by" in side for version in line.restored.versions
                      for side in (version["before"], version["after"]))}
    named = {str(pk): str(stored) for pk, stored in ids.items()}
    changed = []
    for version in (MemoryVersion.objects.filter(memory__in=naming)
                    .only("before", "after").iterator(chunk_size=IMPORT_BATCH)):
        for side in (version.before, version.after):
            if side.get("superseded_by") in named:
                side["superseded_by"] = named[side["superseded_by"]]
                changed.append(version)
    MemoryVersion.objects.bulk_update(set(changed), ["before", "after"],
                                      batch_size=IMPORT_BATCH)


def _restore_contradictions(owner, parsed: EngramFile, ids: dict,
                            report: ImportReport) -> None:
    """The file's contradictions between the memories it stored or found stored, each as
    exported (the importer is who resolved it, as with versions), unless one between the
    two memories is there already. One there still open takes the file's resolution: a
    check of the memories stored by an earlier piece of the file, or by an older export,
    reached the pair first, and a person's decision is not lost to it. The older memory
    is a, as the scanner records it; a "wins" swaps with its sides."""
    sides = ("memory_a", "memory_b")
    # two lines of one text are one memory stored, which contradicts no other
    found = [contradiction for _, contradiction in parsed.contradictions
             if all(contradiction[side] in ids for side in sides)
             and ids[contradiction["memory_a"]] != ids[contradiction["memory_b"]]]
    stored = Memory.objects.in_bulk({ids[c[side]] for c in found for side in sides})
    recorded = {frozenset((c.memory_a_id, c.memory_b_id)): c for c in
                Contradiction.objects.select_for_update().filter(memory_a__in=stored,
                                                                 memory_b__in=stored)}
    now, new, decided, taken = timezone.now(), [], [], set()
    for contradiction in found:
        a, b = (stored[ids[contradiction[side]]] for side in sides)
        pair = frozenset((a.pk, b.pk))
        resolved = contradiction["status"] == ContradictionStatus.RESOLVED
        there = recorded.get(pair)
        older, newer = sorted((a, b), key=lambda m: (m.created_at, str(m.pk)))
        first = there.memory_a_id if there else older.pk
        decision = {
            "status": contradiction["status"], "note": contradiction["note"],
            "resolution": _as_recorded(contradiction["resolution"], swapped=a.pk != first),
            "resolved_by": owner if resolved else None,
            "resolved_at": (contradiction["resolved_at"] or now) if resolved else None,
            "merged_into_id": ids.get(contradiction["merged_into"])}
        if there is None and pair not in taken:
            taken.add(pair)
            new.append(Contradiction(
                owner=owner, memory_a=older, memory_b=newer,
                shared_with_id=older.shared_with_id
                if older.shared_with_id == newer.shared_with_id else None,
                detected_at=contradiction["detected_at"] or now,
                detected_by=contradiction["detected_by"], reason=contradiction["reason"],
                confidence=contradiction["confidence"], **decision))
        elif there is not None and there.status == ContradictionStatus.OPEN and resolved:
            for name, value in decision.items():
                setattr(there, name, value)
            decided.append(there)
        else:
            report.contradictions_already_stored += 1
    if decided:
        Contradiction.objects.bulk_update(decided, list(decision), batch_size=IMPORT_BATCH)
    report.contradictions = len(decided) + len(
        Contradiction.objects.bulk_create(new, ignore_conflicts=True))


def _as_recorded(resolution: str, *, swapped: bool) -> str:
    """A resolution as it reads with the two sides swapped: a's win is b's."""
    if not swapped:
        return resolution
    return {Resolution.A_WINS: Resolution.B_WINS,
            Resolution.B_WINS: Resolution.A_WINS}.get(resolution, resolution)


def _restore_insights(owner, lines: list[ImportLine], ids: dict, new: set) -> None:
    """The insights of the memories this import stored, with their review state, citing
    the memories of the file they cited (one stored already keeps its own)."""
    lines = [line for line in lines if line.restored.insight
             and ids[line.restored.id] in new]
    insights = {}
    for line in lines:
        found = line.restored.insight
        cited = [ids[pk] for pk in found["cited"] if pk in ids]
        insights[line.restored.id] = Insight(
            owner=owner, memory_id=ids[line.restored.id], question=found["question"],
            topic=found["topic"], cited_ids=cited,
            text_hash=content_hash(line.item.content), cited_key=cited_key(cited),
            importance=found["importance"], round=found["round"],
            reflected_by=found["reflected_by"], status=found["status"],
            flagged_reason=found["flagged_reason"],
            status_before_flag=found["status_before_flag"],
            # As with versions: the export's people mean nothing here.
            reviewed_by=owner if found["reviewed"] else None,
            reviewed_at=found["reviewed_at"],
            created_at=found["created_at"] or line.created_at)
    Insight.objects.bulk_create(insights.values(), ignore_conflicts=True)
    stored = set(Insight.objects.filter(pk__in=[i.pk for i in insights.values()])
                 .values_list("pk", flat=True))
    newer = []
    for line in lines:
        insight = insights[line.restored.id]
        successor = insights.get(line.restored.insight["superseded_by"])
        if insight.pk in stored and successor is not None and successor.pk in stored:
            insight.superseded_by = successor
            newer.append(insight)
    Insight.objects.bulk_update(newer, ["superseded_by"], batch_size=IMPORT_BATCH)


# --- either format, inline or as a job ----------------------------------------------------


def detect_format(lines: Iterable[bytes | str]) -> str:
    """The MCP memory server's lines are typed entity or relation; anything else is ours."""
    return MCP_MEMORY if is_graph_record(first_record(lines)) else ENGRAM


@dataclass
class ParsedImport:
    format: str
    report: ImportReport
    content: EngramFile | Graph

    @property
    def size(self) -> int:
        return self.content.size


def parse_import(owner, data: bytes, *, fmt: str | None = None,
                 project: str | None = None, within: str | None = None) -> ParsedImport:
    """Read a whole file in either format (detected when `fmt` is None); `project` and
    `within` as parse_engram takes them."""
    lines = data.splitlines(keepends=True)
    fmt = fmt or detect_format(lines)
    report = ImportReport()
    content = parse_graph(owner, lines, report) if fmt == MCP_MEMORY \
        else parse_engram(lines, report, project=project, within=within)
    return ParsedImport(fmt, report, content)


def write_import(owner, parsed: ParsedImport, *, project: str | None = None,
                 skip_bad_lines: bool = True,
                 advance: Callable[[int], None] = lambda n: None) -> ImportReport:
    """Store what was parsed. With bad lines and no `skip_bad_lines`, nothing is."""
    report = parsed.report
    if report.bad and not skip_bad_lines:
        return report
    report.skipped_bad = bool(report.bad)
    if parsed.format == MCP_MEMORY:
        return import_graph(owner, parsed.content, report, project=project or "",
                            advance=advance)
    return import_engram(owner, parsed.content, report, advance=advance)


def import_jsonl(owner, data: bytes, *, fmt: str | None = None, project: str | None = None,
                 within: str | None = None, skip_bad_lines: bool = True) -> ImportReport:
    """Import a file within the caller's request: all of it, in one transaction."""
    parsed = parse_import(owner, data, fmt=fmt, project=project, within=within)
    with transaction.atomic():
        return write_import(owner, parsed, project=project, skip_bad_lines=skip_bad_lines)


class ImportStopped(Exception):
    """A large import failed part way: its message says how much of it is stored."""


def runs_as_job(data: bytes) -> bool:
    """Too large to import while the caller waits."""
    return (len(data) > settings.ENGRAM_IMPORT_INLINE_BYTES
            or data.count(b"\n") + (not data.endswith(b"\n")) > settings.ENGRAM_IMPORT_INLINE_LINES)


def start_import_job(owner, data: bytes, *, fmt: str | None = None,
                     project: str | None = None, within: str | None = None) -> Job:
    """Queue the import of a large file (raises jobs.JobAlreadyActive while another
    import of the owner's runs). The file waits in the job's parameters until it runs,
    as base64: bytes that are not UTF-8 are reported by line, not lost on the way."""
    return jobs.start_job(JobKind.IMPORT, owner=owner, format=fmt, project=project,
                          within=within, data=base64.b64encode(data).decode("ascii"))


def run_import_job(*, owner, dry_run, job, on_progress=None, data: str, format: str | None,
                   project: str | None, within: str | None = None) -> dict:
    """The import job's runner: each batch commits as it goes, so its progress shows.
    `within` as parse_engram takes it (None in a job queued before it was recorded)."""
    stored = 0  # lines of batches committed

    def advance(lines: int) -> None:
        nonlocal stored
        stored += lines
        report_progress(lines)

    try:
        parsed = parse_import(owner, base64.b64decode(data), fmt=format, project=project,
                              within=within)
        report_progress = jobs.progress_reporter(job, parsed.size, on_progress)
        try:
            report = write_import(owner, parsed, project=project, advance=advance)
        except Exception as exc:
            # Each batch commits on its own: say what is stored, since the file is not kept.
            raise ImportStopped(f"The import stopped after {stored:,} of {parsed.size:,} "
                                f"lines were stored: {exc}") from exc
    finally:
        # The file is not kept: a memory forgotten or purged later must not live on here.
        Job.objects.filter(pk=job.pk).update(params={"format": format, "project": project,
                                                     "within": within})
    return {"format": parsed.format, **report.as_dict()}

"""Remembering: a new memory is validated, compared with what the owner already stores
(a near-duplicate strengthens the existing memory instead), linked to the memory stored
before it in its session, and announced (signals.memories_stored); its contradiction check
is queued once it has a vector.

The dedup decision is the engine's (engine/dedup.py); this module finds the candidates
(hash and nearest neighbours) and writes the outcome.
"""

import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F, Q
from django.db.models.functions import Greatest
from django.utils import timezone

from .. import queue, selectors, signals
from ..engine.dedup import content_hash, decide, first_duplicate_in_batch
from ..engine.importance import base_importance, clamp_importance
from ..engine.redaction import redact_value
from ..models import (
    Kind,
    LinkRelation,
    Memory,
    MemoryLink,
    MemoryType,
    MemoryVersion,
    Project,
    Scope,
    Status,
    VersionChange,
)
from ..providers.embeddings import get_provider
from ..providers.errors import ProviderError
from . import vector_indexes
from .copy_insert import insert_by_copy
from .embeddings import memory_vectors
from .validation import (
    MAX_SCOPE_LENGTH,
    clean_tags,
    content_error,
    importance_error,
    metadata_error,
    noting_redactions,
    tags_error,
    unstorable_error,
)

log = logging.getLogger(__name__)


@dataclass
class NewMemory:
    """What a caller hands to remember(); validated before anything is stored."""

    content: str
    memory_type: str = MemoryType.SEMANTIC
    kind: str = Kind.FACT
    project: str = ""
    agent_id: str = ""
    session_id: str = ""
    importance: float | None = None
    observation_type: str = ""
    tags: Sequence[str] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    embedding: Sequence[float] | None = None
    valid_from: datetime | None = None
    expires_at: datetime | None = None
    is_synthetic: bool = False
    # Who reads it: the author alone, the members of `shared_with` (a project the author
    # owns or edits; `project` becomes its name), or every user (staff only).
    scope: str = Scope.PRIVATE
    shared_with: Project | None = None

    @property
    def space(self) -> tuple:
        """What dedup compares it with: memories of the same scope, project and name."""
        return (self.scope, self.shared_with.pk if self.shared_with else None, self.project)


@dataclass
class RememberResult:
    memory: Memory
    created: bool
    similarity: float | None = None  # to the memory it strengthened, when not created

    @property
    def action(self) -> str:
        return "created" if self.created else "strengthened"


def _embedding_error(embedding, dimensions: int) -> str | None:
    if embedding is None:
        return None
    try:
        vector = np.asarray(embedding, dtype=np.float32)
    except (TypeError, ValueError):
        vector = None
    if vector is None or vector.shape != (dimensions,) or not np.isfinite(vector).all():
        return f"The embedding must be {dimensions} finite numbers for the active embedding model."
    if not np.linalg.norm(vector):
        return "The embedding is all zeros."
    return None


def _validity_error(item: NewMemory, now: datetime) -> str | None:
    """A memory that would never hold is a mistake, not something to store unseen."""
    if item.expires_at is None:
        return None
    if not isinstance(item.expires_at, datetime) or (
            item.valid_from is not None and not isinstance(item.valid_from, datetime)):
        return "expires_at and valid_from must be dates with a time."
    if item.expires_at <= now:
        return (f"expires_at {item.expires_at.isoformat()} is already past: a memory that "
                "has expired would never be recalled.")
    if item.valid_from is not None and item.expires_at <= item.valid_from:
        return (f"expires_at {item.expires_at.isoformat()} is not after valid_from "
                f"{item.valid_from.isoformat()}.")
    return None


def without_secrets(item: NewMemory, found_beside: Counter | None = None) -> NewMemory:
    """The item with secrets redacted and private sections dropped from its content and
    metadata, so no interface (the API, the dashboard, an import, a merge) stores them;
    the tally in its metadata also counts `found_beside` (redacted from what else the
    caller stores with it)."""
    if not isinstance(item.content, str) or not isinstance(item.metadata, dict):
        return item  # refused by validation
    content, in_content = redact_value(item.content)
    metadata, in_metadata = redact_value(item.metadata)
    found = in_content + in_metadata + (found_beside or Counter())
    if not found:
        return item
    return replace(item, content=content, metadata=noting_redactions(metadata, found))


def scope_error(item: NewMemory, owner) -> str | None:
    """Whether `owner` may write `item` in its scope; the interfaces check first, with a
    403, so this is the last guard."""
    if item.scope not in Scope.values:
        return f"Unknown scope {item.scope!r}: use one of {', '.join(Scope.values)}."
    if item.scope == Scope.PROJECT:
        if not isinstance(item.shared_with, Project):
            return "A project memory needs the project it is shared with."
        if not item.shared_with.memberships.writers().filter(user=owner).exists():
            return (f"Only an owner or editor of project {item.shared_with.name!r} "
                    "may write its memories.")
        if item.project != item.shared_with.name:
            return f"A memory shared with {item.shared_with.name!r} must name that project."
    elif item.shared_with is not None:
        return f"A {item.scope} memory is shared with no project."
    elif item.scope == Scope.SYSTEM and not owner.is_staff:
        return "Only staff may write system memories."
    return None


def _validate(item: NewMemory, dimensions: int, now: datetime) -> dict[str, list[str]]:
    found = {
        "content": content_error(item.content),
        "memory_type": None if item.memory_type in MemoryType.values else (
            f"Unknown memory type {item.memory_type!r}: use one of "
            f"{', '.join(MemoryType.values)}."),
        "kind": None if item.kind in Kind.values else (
            f"Unknown kind {item.kind!r}: use one of {', '.join(Kind.values)}."),
        "importance": importance_error(item.importance),
        "tags": tags_error(item.tags),
        "metadata": metadata_error(item.metadata),
        "embedding": _embedding_error(item.embedding, dimensions),
        "expires_at": _validity_error(item, now),
    }
    for name in ("project", "agent_id", "session_id"):
        value = getattr(item, name)
        if not isinstance(value, str) or len(value) > MAX_SCOPE_LENGTH:
            found[name] = f"{name} must be text of at most {MAX_SCOPE_LENGTH} characters."
        elif unstorable := unstorable_error(value):
            found[name] = unstorable
    return {name: [message] for name, message in found.items() if message}


def new_memory_errors(item: NewMemory) -> dict[str, list[str]]:
    """What remember() would refuse in `item`, by field: for callers that check many
    items before storing any (an import reports every bad line, not the first)."""
    return _validate(item, get_provider().dimensions, timezone.now())


def _space_of(memory: Memory) -> tuple:
    return (memory.scope, memory.shared_with_id, memory.project)


def _in_spaces(owner, items: Sequence[NewMemory]) -> Q:
    """The stored memories that share a space with one of `items`."""
    found = Q(pk__in=[])
    for scope, shared_with, project in {item.space for item in items}:
        if scope == Scope.PROJECT:
            found |= Q(shared_with_id=shared_with)
        elif scope == Scope.SYSTEM:
            found |= Q(scope=Scope.SYSTEM, project=project)
        else:
            found |= Q(owner=owner, scope=Scope.PRIVATE, project=project)
    return found


def _project_lock(project_id: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('engram.remember.project'), "
                       "hashtext(%s))", [project_id])


def owner_lock(owner_id: int) -> None:
    """Serialise remembering per owner, so two concurrent calls leave one memory (an
    import restoring memories as exported takes it too)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('engram.remember'), %s)",
                       [owner_id])


def _embed_all(items: list[NewMemory], provider) -> np.ndarray | None:
    """Vectors for every item, or None when the provider is down (stored, embedded later)."""
    missing = [i for i, item in enumerate(items) if item.embedding is None]
    vectors = np.zeros((len(items), provider.dimensions), dtype=np.float32)
    for i, item in enumerate(items):
        if item.embedding is not None:
            given = np.asarray(item.embedding, dtype=np.float32)
            vectors[i] = given / np.linalg.norm(given)
    if missing:
        try:
            vectors[missing] = memory_vectors(provider, [items[i].content for i in missing])
        except ProviderError as exc:
            log.warning("embedding deferred for %d memories: %s", len(missing), exc)
            return None
    return vectors


def embedded_ahead(batches: Iterable[Sequence[NewMemory]]) -> Iterator[list[NewMemory]]:
    """Each batch again, its items' vectors filled in, the next batch embedded in a thread
    while the caller stores this one.

    A bulk write otherwise waits on the model, then on the database, batch after batch;
    ONNX Runtime releases the GIL and PostgreSQL works in its own process, so the two
    overlap. Batches stay as the caller cut them, so what merges into what is unchanged.
    A batch the provider cannot embed comes back as it was: remember_many tries it
    again and defers it as usual.
    """
    provider = get_provider()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedded-ahead") as pool:
        pending = None
        for batch in batches:
            batch = list(batch)
            ahead = pool.submit(_with_vectors, batch, provider)
            if pending is not None:
                yield pending.result()
            pending = ahead
        if pending is not None:
            yield pending.result()


def _with_vectors(items: list[NewMemory], provider) -> list[NewMemory]:
    """The items with vectors of what remember_many will store: their text with secrets
    redacted (see without_secrets), embedded as remember_many would."""
    missing = [i for i, item in enumerate(items)  # what validation refuses is not embedded
               if item.embedding is None and content_error(item.content) is None]
    if not missing:
        return items
    try:
        vectors = memory_vectors(provider, [without_secrets(items[i]).content
                                          for i in missing])
    except ProviderError:
        return items
    done = list(items)
    for i, vector in zip(missing, vectors, strict=True):
        done[i] = replace(items[i], embedding=vector)
    return done


class DuplicateMemory(Exception):
    def __init__(self, existing: Memory):
        super().__init__(f"A near-duplicate is already stored as memory {existing.pk}.")
        self.existing = existing


def remember(*, owner, now: datetime | None = None, reject_duplicates: bool = False,
             dedup_threshold: float | None = None, **fields) -> RememberResult:
    """Store one memory, or strengthen the near-duplicate that already exists.

    With reject_duplicates, a duplicate raises DuplicateMemory and nothing changes.
    """
    return remember_many(owner=owner, items=[NewMemory(**fields)], now=now,
                         reject_duplicates=reject_duplicates,
                         dedup_threshold=dedup_threshold)[0]


def remember_many(*, owner, items: Sequence[NewMemory], now: datetime | None = None,
                  reject_duplicates: bool = False,
                  dedup_threshold: float | None = None) -> list[RememberResult]:
    """Store many memories with one batched embedding call and bulk inserts.

    Delta ingestion with semantic deduplication: each item is compared with the owner's
    active memories in the same project (cosine >= dedup_threshold, by default
    ENGRAM_DEDUP_THRESHOLD) and with the earlier items of the batch; a duplicate
    strengthens the existing memory (helpful_count + 1) and is kept in that memory's
    history, never dropped.
    Either every item is valid and stored, or a ValidationError names each bad one and
    nothing is written.
    """
    now = now or timezone.now()
    items = [without_secrets(item) for item in items]
    provider = get_provider()
    errors = {}
    for i, item in enumerate(items):
        found = _validate(item, provider.dimensions, now)
        if scope := scope_error(item, owner):
            found["scope"] = [scope]
        for name, messages in found.items():
            errors[name if len(items) == 1 else f"{i}.{name}"] = messages
    if errors:
        raise ValidationError(errors)
    if not items:
        return []

    vectors = _embed_all(items, provider)
    hashes = [content_hash(item.content) for item in items]
    selectors.ensure_vector_index_once(provider.model_id, provider.dimensions)

    with transaction.atomic():
        owner_lock(owner.pk)
        shared = sorted({str(item.shared_with.pk) for item in items if item.shared_with})
        for project_id in shared:  # members of one project write into one space
            _project_lock(project_id)
        existing_by_hash = {
            (_space_of(m), m.content_hash): m
            for m in Memory.objects.filter(_in_spaces(owner, items)).active().not_ended(now)
            .filter(content_hash__in=set(hashes)).defer("embedding")
        }
        stored_match, batch_match = _semantic_matches(
            owner, items, vectors, provider,
            dedup_threshold or settings.ENGRAM_DEDUP_THRESHOLD)
        results = _write(owner, items, vectors, hashes, existing_by_hash, stored_match,
                         batch_match, provider, now, reject_duplicates)
        vector_indexes.queue_owner_index_if_due(owner.pk)
        for project_id in shared:
            vector_indexes.queue_project_index_if_due(project_id)
        return results


def _semantic_matches(owner, items, vectors, provider, threshold: float):
    """Per item: the stored memory it duplicates (id, similarity) and the earlier batch
    item it duplicates (index), each None when there is none."""
    stored: list[tuple | None] = [None] * len(items)
    in_batch: list[int | None] = [None] * len(items)
    if vectors is None:
        return stored, in_batch
    strict = settings.ENGRAM_DEDUP_STRICT
    for space in {item.space for item in items}:
        idx = [i for i, item in enumerate(items) if item.space == space]
        contents = [items[i].content for i in idx]
        scope, shared_with, project = space
        found = selectors.nearest_for_each(owner.pk, project, model_id=provider.model_id,
                                           dimensions=provider.dimensions, vectors=vectors[idx],
                                           scope=scope, shared_with=shared_with)
        earlier = first_duplicate_in_batch(contents, vectors[idx], threshold, strict=strict)
        for local, i in enumerate(idx):
            candidates = found[local]
            decision = decide(contents[local], [(c, sim) for _, c, sim in candidates],
                              threshold, strict=strict)
            if decision.duplicate_of is not None:
                stored[i] = (candidates[decision.duplicate_of][0], decision.similarity)
            if earlier[local] is not None:
                in_batch[i] = idx[earlier[local]]
    return stored, in_batch


def _write(owner, items, vectors, hashes, existing_by_hash, stored_match, batch_match,
           provider, now, reject_duplicates) -> list[RememberResult]:
    results: list[RememberResult | None] = [None] * len(items)
    to_create: list[Memory] = []
    strengthened: dict[str, tuple[Memory, list[int]]] = {}
    existing = Memory.objects.defer("embedding").in_bulk(
        {match[0] for match in stored_match if match})
    batch_hashes: dict[tuple, int] = {}

    for i, item in enumerate(items):
        match, similarity = existing_by_hash.get((item.space, hashes[i])), 1.0
        if match is None and stored_match[i] is not None:
            match, similarity = existing[stored_match[i][0]], stored_match[i][1]
        earlier = batch_hashes.setdefault((item.space, hashes[i]), i)
        if match is None and earlier != i:
            match = results[earlier].memory
        elif match is None and batch_match[i] is not None:
            match = results[batch_match[i]].memory
            similarity = float(vectors[i] @ vectors[batch_match[i]])
        if match is not None and reject_duplicates:
            raise DuplicateMemory(match)
        if match is not None:
            results[i] = RememberResult(match, created=False, similarity=similarity)
            strengthened.setdefault(str(match.pk), (match, []))[1].append(i)
            continue
        memory = Memory(
            owner=owner, content=item.content, content_hash=hashes[i],
            memory_type=item.memory_type, kind=item.kind, project=item.project,
            scope=item.scope, shared_with=item.shared_with,
            agent_id=item.agent_id, session_id=item.session_id,
            importance=_importance(item), tags=clean_tags(item.tags),
            metadata=item.metadata, is_synthetic=item.is_synthetic,
            embedding=None if vectors is None else vectors[i],
            embedding_model="" if vectors is None else provider.model_id,
            created_at=now, last_accessed_at=now, valid_from=item.valid_from or now,
            expires_at=item.expires_at,
        )
        to_create.append(memory)
        results[i] = RememberResult(memory, created=True)

    insert_by_copy(Memory, to_create)
    if any(m.scope == Scope.SYSTEM for m in to_create):
        selectors.forget_readers()  # every reader reads it now
    signals.memories_stored.send(sender=Memory, owner=owner, memories=to_create)
    _link_session_neighbours(owner, to_create)
    versions = [
        MemoryVersion(memory=m, change=VersionChange.CREATED, changed_by=owner,
                      agent_id=m.agent_id, changed_at=now,
                      after={"content": m.content, "status": m.status})
        for m in to_create
    ]
    for memory, indexes in strengthened.values():
        before, widened = _strengthen(memory, [items[i] for i in indexes], now)
        versions += [
            MemoryVersion(
                memory=memory, change=VersionChange.REINFORCED, changed_by=owner,
                agent_id=items[i].agent_id, changed_at=now,
                before=before if n == 0 else {},
                after={"content": items[i].content, "session_id": items[i].session_id,
                       "similarity": round(results[i].similarity, 4),
                       "metadata": items[i].metadata, **(widened if n == 0 else {})},
            )
            for n, i in enumerate(indexes)  # the first records the widened validity
        ]
    MemoryVersion.objects.bulk_create(versions)
    if vectors is None and to_create:
        queue.embed_memories([m.pk for m in to_create])
    elif to_create:
        # One memory is what an agent or a person just wrote; a batch is an import.
        queue.check_contradictions([m.pk for m in to_create], interactive=len(items) == 1)
    return results


def _importance(item: NewMemory) -> float:
    if item.importance is not None:
        return clamp_importance(float(item.importance))
    return base_importance(item.content, kind=item.kind,
                           observation_type=item.observation_type)


def _strengthen(memory: Memory, duplicates: list[NewMemory], now: datetime
                ) -> tuple[dict, dict]:
    """A repeat is evidence the memory matters: count it and refresh its recency. Its
    validity widens the memory's (widened_validity). Returns what the validity was and is now,
    for the repeat's version."""
    importance = max(_importance(item) for item in duplicates)
    new_tags = sorted(set(memory.tags).union(*(clean_tags(d.tags) for d in duplicates)))
    widened = widened_validity(memory, duplicates, now)
    Memory.objects.filter(pk=memory.pk).update(
        helpful_count=F("helpful_count") + len(duplicates),
        importance=Greatest(F("importance"), importance),
        last_accessed_at=now,
        tags=new_tags,
        **widened,
    )
    recorded = validity_change(memory, widened)
    memory.refresh_from_db(fields=["helpful_count", "importance", "last_accessed_at", "tags",
                                   "valid_from", "expires_at"])
    return recorded


def widened_validity(memory: Memory, duplicates: Sequence, now: datetime) -> dict:
    """The memory holds for as long as any statement of it says: from the earliest start
    (a repeat without one holds from now), to the latest end, or for good when one has
    none. Only the fields that change. `duplicates` are new items or stored memories."""
    widened = {}
    start = min(d.valid_from or now for d in duplicates)
    if start < memory.valid_from:
        widened["valid_from"] = start
    ends = [d.expires_at for d in duplicates]
    end = None if None in ends else max(ends)
    if memory.expires_at is not None and (end is None or end > memory.expires_at):
        widened["expires_at"] = end
    return widened


def validity_change(memory: Memory, widened: dict) -> tuple[dict, dict]:
    """The widened validity as a version records it: before and after, in ISO text."""
    def iso(value):
        return value and value.isoformat()
    return ({name: iso(getattr(memory, name)) for name in widened},
            {name: iso(value) for name, value in widened.items()})


# A link between two memories that followed each other in a session is weaker evidence
# than one a person or the consolidation made.
SESSION_LINK_STRENGTH = 0.5


def _link_session_neighbours(owner, created: Sequence[Memory]) -> None:
    """Link each new memory of a session to the one stored just before it there.

    Recall's graph walk then brings the memories around a strong hit: in a conversation
    the answer is often the turn next to the one that matches the question (measured on
    LoCoMo in docs/BENCHMARKS.md). One query per session in the batch finds the last
    memory already stored in it; memories without a session are not linked.
    """
    sessions: dict[tuple[str, str], list[Memory]] = {}
    for memory in created:
        if memory.session_id:
            sessions.setdefault((memory.project, memory.session_id), []).append(memory)
    links = []
    new_ids = [m.pk for m in created]
    for (project, session_id), memories in sessions.items():
        previous = (Memory.objects.filter(owner=owner, project=project, session_id=session_id)
                    .exclude(status=Status.DELETED).exclude(pk__in=new_ids)
                    .order_by("-created_at", "-id").values_list("pk", flat=True).first())
        for memory in memories:
            if previous is not None:
                links.append(MemoryLink(owner=owner, from_memory_id=memory.pk,
                                        to_memory_id=previous,
                                        relation=LinkRelation.RELATED,
                                        strength=SESSION_LINK_STRENGTH,
                                        created_at=memory.created_at))
            previous = memory.pk
    MemoryLink.objects.bulk_create(links, ignore_conflicts=True)

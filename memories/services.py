"""Writes, and the one place where models, engine and providers meet."""

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from . import selectors
from .engine.dedup import content_hash, decide, first_duplicate_in_batch
from .engine.importance import base_importance, clamp_importance
from .models import (
    MAX_CONTENT_LENGTH,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    Kind,
    Memory,
    MemoryType,
    MemoryVersion,
    Status,
    VersionChange,
)
from .providers.embeddings import get_provider
from .providers.errors import ProviderError

log = logging.getLogger(__name__)

MAX_RECALL_LIMIT = 100
MAX_SCOPE_LENGTH = 200


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


@dataclass
class RememberResult:
    memory: Memory
    created: bool
    similarity: float | None = None  # to the memory it strengthened, when not created

    @property
    def action(self) -> str:
        return "created" if self.created else "strengthened"


@dataclass
class Recalled:
    memory: Memory
    similarity: float | None  # cosine; None when found by keyword only
    keyword_rank: float | None = None


def _validate(item: NewMemory, dimensions: int) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}

    def error(name, message):
        errors.setdefault(name, []).append(message)

    if not isinstance(item.content, str) or not item.content.strip():
        error("content", "Content is empty: give the text to remember.")
    elif len(item.content) > MAX_CONTENT_LENGTH:
        error("content", f"Content has {len(item.content):,} characters; the limit is "
                         f"{MAX_CONTENT_LENGTH:,}.")
    if item.memory_type not in MemoryType.values:
        error("memory_type", f"Unknown memory type {item.memory_type!r}: use one of "
                             f"{', '.join(MemoryType.values)}.")
    if item.kind not in Kind.values:
        error("kind", f"Unknown kind {item.kind!r}: use one of {', '.join(Kind.values)}.")
    for name in ("project", "agent_id", "session_id"):
        value = getattr(item, name)
        if not isinstance(value, str) or len(value) > MAX_SCOPE_LENGTH:
            error(name, f"{name} must be text of at most {MAX_SCOPE_LENGTH} characters.")
    if item.importance is not None and (
        isinstance(item.importance, bool) or not isinstance(item.importance, (int, float))
        or not 1 <= item.importance <= 10
    ):
        error("importance", "Importance must be a number from 1 to 10.")
    tags = list(item.tags) if isinstance(item.tags, (list, tuple)) else None
    if tags is None or len(tags) > MAX_TAGS or not all(
        isinstance(t, str) and 0 < len(t.strip()) <= MAX_TAG_LENGTH for t in tags
    ):
        error("tags", f"Tags must be a list of at most {MAX_TAGS} non-empty texts of at most "
                      f"{MAX_TAG_LENGTH} characters.")
    if not isinstance(item.metadata, dict):
        error("metadata", "Metadata must be a JSON object.")
    if item.embedding is not None:
        try:
            vector = np.asarray(item.embedding, dtype=np.float32)
        except (TypeError, ValueError):
            vector = None
        if vector is None or vector.shape != (dimensions,) or not np.isfinite(vector).all():
            error("embedding", f"The embedding must be {dimensions} finite numbers for the "
                               "active embedding model.")
        elif not np.linalg.norm(vector):
            error("embedding", "The embedding is all zeros.")
    return errors


def _owner_lock(owner_id: int) -> None:
    """Serialise remembering per owner, so two concurrent calls leave one memory."""
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
            vectors[missing] = provider.embed_documents([items[i].content for i in missing])
        except ProviderError as exc:
            log.warning("embedding deferred for %d memories: %s", len(missing), exc)
            return None
    return vectors


def remember(*, owner, now: datetime | None = None, **fields) -> RememberResult:
    """Store one memory, or strengthen the near-duplicate that already exists."""
    return remember_many(owner=owner, items=[NewMemory(**fields)], now=now)[0]


def remember_many(*, owner, items: Sequence[NewMemory],
                  now: datetime | None = None) -> list[RememberResult]:
    """Store many memories with one batched embedding call and bulk inserts.

    Delta ingestion with semantic deduplication: each item is compared with the owner's
    active memories in the same project (cosine >= ENGRAM_DEDUP_THRESHOLD) and with the
    earlier items of the batch; a duplicate strengthens the existing memory
    (helpful_count + 1) and is kept in that memory's history, never dropped.
    Either every item is valid and stored, or a ValidationError names each bad one and
    nothing is written.
    """
    now = now or timezone.now()
    items = list(items)
    provider = get_provider()
    errors = {}
    for i, item in enumerate(items):
        for name, messages in _validate(item, provider.dimensions).items():
            errors[name if len(items) == 1 else f"{i}.{name}"] = messages
    if errors:
        raise ValidationError(errors)
    if not items:
        return []

    vectors = _embed_all(items, provider)
    hashes = [content_hash(item.content) for item in items]

    with transaction.atomic():
        _owner_lock(owner.pk)
        existing_by_hash = {
            (m.project, m.content_hash): m
            for m in Memory.objects.for_owner(owner).active()
            .filter(content_hash__in=set(hashes)).defer("embedding")
        }
        stored_match, batch_match = _semantic_matches(owner, items, vectors, provider)
        return _write(owner, items, vectors, hashes, existing_by_hash, stored_match,
                      batch_match, provider, now)


def _semantic_matches(owner, items, vectors, provider):
    """Per item: the stored memory it duplicates (id, similarity) and the earlier batch
    item it duplicates (index), each None when there is none."""
    stored: list[tuple | None] = [None] * len(items)
    in_batch: list[int | None] = [None] * len(items)
    if vectors is None:
        return stored, in_batch
    threshold, strict = settings.ENGRAM_DEDUP_THRESHOLD, settings.ENGRAM_DEDUP_STRICT
    for project in {item.project for item in items}:
        idx = [i for i, item in enumerate(items) if item.project == project]
        contents = [items[i].content for i in idx]
        found = selectors.nearest_for_each(owner.pk, project, model_id=provider.model_id,
                                           dimensions=provider.dimensions, vectors=vectors[idx])
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
           provider, now) -> list[RememberResult]:
    results: list[RememberResult | None] = [None] * len(items)
    to_create: list[Memory] = []
    strengthened: dict[str, tuple[Memory, list[int]]] = {}
    existing = Memory.objects.defer("embedding").in_bulk(
        {match[0] for match in stored_match if match})
    batch_hashes: dict[tuple[str, str], int] = {}

    for i, item in enumerate(items):
        match, similarity = existing_by_hash.get((item.project, hashes[i])), 1.0
        if match is None and stored_match[i] is not None:
            match, similarity = existing[stored_match[i][0]], stored_match[i][1]
        earlier = batch_hashes.setdefault((item.project, hashes[i]), i)
        if match is None and earlier != i:
            match = results[earlier].memory
        elif match is None and batch_match[i] is not None:
            match = results[batch_match[i]].memory
            similarity = float(vectors[i] @ vectors[batch_match[i]])
        if match is not None:
            results[i] = RememberResult(match, created=False, similarity=similarity)
            strengthened.setdefault(str(match.pk), (match, []))[1].append(i)
            continue
        memory = Memory(
            owner=owner, content=item.content, content_hash=hashes[i],
            memory_type=item.memory_type, kind=item.kind, project=item.project,
            agent_id=item.agent_id, session_id=item.session_id,
            importance=_importance(item), tags=_clean_tags(item.tags),
            metadata=item.metadata, is_synthetic=item.is_synthetic,
            embedding=None if vectors is None else vectors[i],
            embedding_model="" if vectors is None else provider.model_id,
            created_at=now, last_accessed_at=now, valid_from=item.valid_from or now,
            expires_at=item.expires_at,
        )
        to_create.append(memory)
        results[i] = RememberResult(memory, created=True)

    Memory.objects.bulk_create(to_create)
    versions = [
        MemoryVersion(memory=m, change=VersionChange.CREATED, changed_by=owner,
                      agent_id=m.agent_id, changed_at=now,
                      after={"content": m.content, "status": m.status})
        for m in to_create
    ]
    for memory, indexes in strengthened.values():
        _strengthen(memory, [items[i] for i in indexes], now)
        versions += [
            MemoryVersion(
                memory=memory, change=VersionChange.REINFORCED, changed_by=owner,
                agent_id=items[i].agent_id, changed_at=now,
                after={"content": items[i].content, "session_id": items[i].session_id,
                       "similarity": round(results[i].similarity, 4),
                       "metadata": items[i].metadata},
            )
            for i in indexes
        ]
    MemoryVersion.objects.bulk_create(versions)
    if vectors is None and to_create:
        _queue_embedding([m.pk for m in to_create])
    return results


def _importance(item: NewMemory) -> float:
    if item.importance is not None:
        return clamp_importance(float(item.importance))
    return base_importance(item.content, kind=item.kind,
                           observation_type=item.observation_type)


def _clean_tags(tags) -> list[str]:
    return sorted({t.strip().lower() for t in tags})


def _strengthen(memory: Memory, duplicates: list[NewMemory], now: datetime) -> None:
    """A repeat is evidence the memory matters: count it and refresh its recency."""
    importance = max(_importance(item) for item in duplicates)
    new_tags = sorted(set(memory.tags).union(*(_clean_tags(d.tags) for d in duplicates)))
    Memory.objects.filter(pk=memory.pk).update(
        helpful_count=F("helpful_count") + len(duplicates),
        importance=Greatest(F("importance"), importance),
        last_accessed_at=now,
        tags=new_tags,
    )
    memory.refresh_from_db(fields=["helpful_count", "importance", "last_accessed_at", "tags"])


def _queue_embedding(memory_ids) -> None:
    from .tasks import embed_memories

    transaction.on_commit(lambda: embed_memories([str(pk) for pk in memory_ids]))


def recall(*, owner, query: str, limit: int = 10, memory_types: Sequence[str] = (),
           kinds: Sequence[str] = (), project: str | None = None,
           statuses: Sequence[str] = (Status.ACTIVE,)) -> list[Recalled]:
    """The owner's memories nearest in meaning to `query`.

    Dense (cosine over the active model's vectors); when the embedding provider is down
    it falls back to keyword search, so recall degrades instead of failing.
    """
    errors = {}
    if not isinstance(query, str) or not query.strip():
        errors["query"] = ["The query is empty."]
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECALL_LIMIT:
        errors["limit"] = [f"limit must be a whole number from 1 to {MAX_RECALL_LIMIT}."]
    for name, values, allowed in (
        ("memory_types", memory_types, MemoryType.values),
        ("kinds", kinds, Kind.values),
        ("statuses", statuses, [Status.ACTIVE, Status.ARCHIVED]),
    ):
        unknown = [v for v in values if v not in allowed]
        if unknown:
            errors[name] = [f"Unknown {name}: {', '.join(map(str, unknown))}; use "
                            f"{', '.join(allowed)}."]
    if errors:
        raise ValidationError(errors)

    filters = {"memory_types": memory_types, "kinds": kinds, "project": project,
               "statuses": statuses}
    provider = get_provider()
    try:
        vector = provider.embed_query(query)
    except ProviderError as exc:
        log.warning("recall falls back to keyword search: %s", exc)
        memories = selectors.filtered(owner, **filters)
        return [Recalled(m, None, rank)
                for m, rank in selectors.keyword_search(memories, query, limit=limit)]
    return [
        Recalled(m, similarity)
        for m, similarity in selectors.dense_search(
            owner, model_id=provider.model_id, dimensions=provider.dimensions,
            vector=vector, limit=limit, **filters,
        )
    ]


def embed_memories(memory_ids: Sequence[str]) -> int:
    """Fill in embeddings that were deferred; returns how many were embedded.

    Raises ProviderError while the provider is still down, so the task retries.
    """
    provider = get_provider()
    memories = list(
        Memory.objects.filter(pk__in=memory_ids).exclude(embedding_model=provider.model_id)
    )
    if not memories:
        return 0
    vectors = provider.embed_documents([m.content for m in memories])
    for memory, vector in zip(memories, vectors):
        memory.embedding, memory.embedding_model = vector, provider.model_id
    Memory.objects.bulk_update(memories, ["embedding", "embedding_model"])
    return len(memories)


def reembed(*, batch_size: int = 256,
            on_progress: Callable[[int], None] = lambda n: None) -> int:
    """Move every memory (any status, nothing skipped) to the active embedding model."""
    provider = get_provider()
    selectors.ensure_vector_index(provider.model_id, provider.dimensions)
    pending = Memory.objects.exclude(embedding_model=provider.model_id).order_by("pk")
    done = 0
    while ids := list(pending.values_list("pk", flat=True)[:batch_size]):
        embed_memories(ids)
        done += len(ids)
        on_progress(len(ids))
    return done


def embed_pending(limit: int = 1000) -> int:
    """Sweep for memories stored while the embedding provider was down."""
    ids = list(Memory.objects.awaiting_embedding().values_list("pk", flat=True)[:limit])
    return embed_memories(ids) if ids else 0


def count_to_reembed() -> int:
    return Memory.objects.exclude(embedding_model=get_provider().model_id).count()

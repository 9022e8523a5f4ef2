"""Writes, and the one place where models, engine and providers meet."""

import logging
import math
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from reflection import services as reflection

from . import selectors
from .engine.context import FORMATS, ContextMemory, build_context
from .engine.dedup import content_hash, decide, first_duplicate_in_batch
from .engine.importance import base_importance, clamp_importance
from .engine.ranking import Candidate, ScoreBreakdown, rank
from .models import (
    MAX_CONTENT_LENGTH,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    ApiKey,
    Kind,
    LinkRelation,
    Memory,
    MemoryLink,
    MemoryType,
    MemoryVersion,
    Status,
    UsageEvent,
    UsageKind,
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
    """A recalled memory and why it ranks where it does."""

    memory: Memory
    breakdown: ScoreBreakdown

    @property
    def similarity(self) -> float | None:  # cosine; None when not found by meaning
        return self.breakdown.similarity

    @property
    def keyword_rank(self) -> int | None:
        return self.breakdown.keyword_rank

    @property
    def score(self) -> float:
        return self.breakdown.final


def _content_error(content) -> str | None:
    if not isinstance(content, str) or not content.strip():
        return "Content is empty: give the text to remember."
    if len(content) > MAX_CONTENT_LENGTH:
        return f"Content has {len(content):,} characters; the limit is {MAX_CONTENT_LENGTH:,}."
    return None


def _importance_error(importance) -> str | None:
    if importance is None:
        return None
    if isinstance(importance, bool) or not isinstance(importance, (int, float)) \
            or not 1 <= importance <= 10:
        return "Importance must be a number from 1 to 10."
    return None


def _tags_error(tags) -> str | None:
    if not isinstance(tags, (list, tuple)) or len(tags) > MAX_TAGS or not all(
        isinstance(t, str) and 0 < len(t.strip()) <= MAX_TAG_LENGTH for t in tags
    ):
        return (f"Tags must be a list of at most {MAX_TAGS} non-empty texts of at most "
                f"{MAX_TAG_LENGTH} characters.")
    return None


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


def _validate(item: NewMemory, dimensions: int) -> dict[str, list[str]]:
    found = {
        "content": _content_error(item.content),
        "memory_type": None if item.memory_type in MemoryType.values else (
            f"Unknown memory type {item.memory_type!r}: use one of "
            f"{', '.join(MemoryType.values)}."),
        "kind": None if item.kind in Kind.values else (
            f"Unknown kind {item.kind!r}: use one of {', '.join(Kind.values)}."),
        "importance": _importance_error(item.importance),
        "tags": _tags_error(item.tags),
        "metadata": None if isinstance(item.metadata, dict) else "Metadata must be a JSON object.",
        "embedding": _embedding_error(item.embedding, dimensions),
    }
    for name in ("project", "agent_id", "session_id"):
        value = getattr(item, name)
        if not isinstance(value, str) or len(value) > MAX_SCOPE_LENGTH:
            found[name] = f"{name} must be text of at most {MAX_SCOPE_LENGTH} characters."
    return {name: [message] for name, message in found.items() if message}


def new_memory_errors(item: NewMemory) -> dict[str, list[str]]:
    """What remember() would refuse in `item`, by field: for callers that check many
    items before storing any (an import reports every bad line, not the first)."""
    return _validate(item, get_provider().dimensions)


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
    selectors.ensure_vector_index_once(provider.model_id, provider.dimensions)

    with transaction.atomic():
        _owner_lock(owner.pk)
        existing_by_hash = {
            (m.project, m.content_hash): m
            for m in Memory.objects.for_owner(owner).active()
            .filter(content_hash__in=set(hashes)).defer("embedding")
        }
        stored_match, batch_match = _semantic_matches(
            owner, items, vectors, provider,
            dedup_threshold or settings.ENGRAM_DEDUP_THRESHOLD)
        return _write(owner, items, vectors, hashes, existing_by_hash, stored_match,
                      batch_match, provider, now, reject_duplicates)


def _semantic_matches(owner, items, vectors, provider, threshold: float):
    """Per item: the stored memory it duplicates (id, similarity) and the earlier batch
    item it duplicates (index), each None when there is none."""
    stored: list[tuple | None] = [None] * len(items)
    in_batch: list[int | None] = [None] * len(items)
    if vectors is None:
        return stored, in_batch
    strict = settings.ENGRAM_DEDUP_STRICT
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
           provider, now, reject_duplicates) -> list[RememberResult]:
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
        if match is not None and reject_duplicates:
            raise DuplicateMemory(match)
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
    reflection.note_new_memories(owner, [m.importance for m in to_create
                                         if not m.is_synthetic])
    _link_session_neighbours(owner, to_create)
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
    elif to_create:
        _queue_contradiction_check([m.pk for m in to_create])
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
                links.append(MemoryLink(from_memory_id=memory.pk, to_memory_id=previous,
                                        relation=LinkRelation.RELATED,
                                        strength=SESSION_LINK_STRENGTH,
                                        created_at=memory.created_at))
            previous = memory.pk
    MemoryLink.objects.bulk_create(links, ignore_conflicts=True)


def queue_after_commit(task, *args) -> None:
    """Queue a Huey task once the current transaction commits. If the queue is down, the
    work is only delayed: what it would process is stored, and a sweep, a scan or the
    job list picks it up, so the request that stored it still succeeds."""
    def queue():
        try:
            task(*args)
        except Exception:
            log.warning("Could not queue %s%r; it waits for its sweep.", task.name, args,
                        exc_info=True)

    transaction.on_commit(queue)


def _queue_contradiction_check(memory_ids) -> None:
    """Judge new memories against their neighbours ("Contradiction Scanner"); it needs
    their embeddings, so deferred ones are checked once embedded."""
    from .tasks import check_contradictions

    queue_after_commit(check_contradictions, [str(pk) for pk in memory_ids])


def _queue_embedding(memory_ids) -> None:
    from .tasks import embed_memories

    queue_after_commit(embed_memories, [str(pk) for pk in memory_ids])


def recall(*, owner, query: str, limit: int = 10,
           filters: selectors.RecallFilters | None = None,
           exclude_ids: Sequence = (), track: bool = False, agent_id: str = "",
           session_id: str = "", now: datetime | None = None) -> list[Recalled]:
    """The owner's memories that matter most for `query`, best first.

    Hybrid retrieval: dense, keyword (BM25) and graph candidates from one query, then
    the engine's fusion and three-factor re-rank (recency, importance with feedback,
    relevance). When the embedding provider is down the dense list is simply absent,
    so recall degrades to keywords instead of failing. With `track`, the returned
    memories count as retrieved (access count, recency, a usage event).
    """
    errors = {}
    if not isinstance(query, str) or not query.strip():
        errors["query"] = ["The query is empty."]
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECALL_LIMIT:
        errors["limit"] = [f"limit must be a whole number from 1 to {MAX_RECALL_LIMIT}."]
    filters = filters or selectors.RecallFilters()
    for name, values, allowed in (("memory_types", filters.memory_types, MemoryType.values),
                                  ("kinds", filters.kinds, Kind.values)):
        unknown = [v for v in values if v not in allowed]
        if unknown:
            errors[name] = [(f"Unknown {name}: {', '.join(map(str, unknown))}; use "
                             f"{', '.join(allowed)}.")]
    if errors:
        raise ValidationError(errors)

    now = now or timezone.now()
    provider = get_provider()
    try:
        vector = provider.embed_query(query)
    except ProviderError as exc:
        log.warning("recall falls back to keyword search: %s", exc)
        vector = None
    pool = max(3 * limit, settings.ENGRAM_CANDIDATES)
    selectors.ensure_vector_index_once(provider.model_id, provider.dimensions)
    found = selectors.hybrid_candidates(
        owner, query=query, vector=vector, model_id=provider.model_id,
        dimensions=provider.dimensions, filters=filters, exclude_ids=exclude_ids,
        dense_k=pool, keyword_k=pool,
    )
    ranked = rank(
        [Candidate(id=c.pk, similarity=c.similarity, keyword_score=c.keyword_score,
                   dense_rank=c.dense_rank, keyword_rank=c.keyword_rank,
                   graph_hop=c.graph_hop, graph_from=c.graph_from,
                   linked=tuple(c.graph_linked or ()), importance=c.importance,
                   helpful=c.helpful_count, harmful=c.harmful_count,
                   last_accessed_at=c.last_accessed_at) for c in found],
        now=now, weights=settings.ENGRAM_RANK_WEIGHTS, fusion=settings.ENGRAM_FUSION,
        alpha=settings.ENGRAM_FUSION_ALPHA, cos_floor=settings.ENGRAM_COSINE_FLOOR,
        keyword_gate=settings.ENGRAM_KEYWORD_GATE,
        keyword_gate_full=settings.ENGRAM_KEYWORD_GATE_FULL,
        graph_decay=settings.ENGRAM_GRAPH_DECAY,
        keyword_scale=found[0].keyword_max if found else None,
    )[:limit]
    # By id, not by position: a memory deleted since the candidate query is skipped
    # without shifting every other memory's score breakdown.
    breakdowns = {r.id: r.breakdown for r in ranked}
    results = [Recalled(memory, breakdowns[memory.pk])
               for memory in selectors.memories_in_order([r.id for r in ranked])]
    if track:
        record_retrieval(owner=owner, memories=[r.memory for r in results],
                         agent_id=agent_id, session_id=session_id,
                         scores=[r.score for r in results], now=now)
    return results


def embed_memories(memory_ids: Sequence[str], *, new_content: bool = True) -> int:
    """Fill in embeddings that were deferred; returns how many were embedded. New
    content is then checked for contradictions (a re-embedding changes no content).

    Raises ProviderError while the provider is still down, so the task retries.
    """
    provider = get_provider()
    memories = list(
        Memory.objects.filter(pk__in=memory_ids).exclude(embedding_model=provider.model_id)
    )
    if not memories:
        return 0
    vectors = provider.embed_documents([m.content for m in memories])
    for memory, vector in zip(memories, vectors, strict=True):
        memory.embedding, memory.embedding_model = vector, provider.model_id
    Memory.objects.bulk_update(memories, ["embedding", "embedding_model"])
    if new_content:
        _queue_contradiction_check([m.pk for m in memories])
    return len(memories)


def reembed(*, batch_size: int = 256,
            on_progress: Callable[[int], None] = lambda n: None) -> int:
    """Move every memory (any status, nothing skipped) to the active embedding model."""
    provider = get_provider()
    selectors.ensure_vector_index(provider.model_id, provider.dimensions)
    pending = Memory.objects.exclude(embedding_model=provider.model_id).order_by("pk")
    done = 0
    while ids := list(pending.values_list("pk", flat=True)[:batch_size]):
        embed_memories(ids, new_content=False)
        done += len(ids)
        on_progress(len(ids))
    return done


def embed_pending(limit: int = 1000) -> int:
    """Sweep for memories stored while the embedding provider was down."""
    ids = list(Memory.objects.awaiting_embedding().values_list("pk", flat=True)[:limit])
    return embed_memories(ids) if ids else 0


def count_to_reembed(owner=None) -> int:
    """Memories not on the active embedding model (all of them, or one owner's)."""
    memories = Memory.objects.all() if owner is None else Memory.objects.for_owner(owner)
    return memories.exclude(embedding_model=get_provider().model_id).count()


EDITABLE_FIELDS = ("content", "importance", "tags", "status", "pinned")


def update_memory(memory: Memory, *, by=None, agent_id: str = "",
                  now: datetime | None = None, **changes) -> Memory:
    """Change content, importance, tags, status or pinning, keeping every change.

    Each call that changes something writes one MemoryVersion with the changed fields
    before and after, so any edit, deletion or restore can be read back and undone.
    New content is re-embedded (or queued when the provider is down).
    """
    unknown = set(changes) - set(EDITABLE_FIELDS)
    errors = {name: [f"{name} cannot be changed; editable: {', '.join(EDITABLE_FIELDS)}."]
              for name in unknown}
    checks = {
        "content": _content_error,
        "importance": _importance_error,
        "tags": _tags_error,
        "status": lambda v: None if v in Status.values else
        f"Unknown status {v!r}: use one of {', '.join(Status.values)}.",
        "pinned": lambda v: None if isinstance(v, bool) else "pinned must be true or false.",
    }
    for name, value in changes.items():
        if name in checks and (message := checks[name](value)):
            errors[name] = [message]
    if errors:
        raise ValidationError(errors)
    if "tags" in changes:
        changes["tags"] = _clean_tags(changes["tags"])
    if "importance" in changes:
        changes["importance"] = float(changes["importance"])
    now = now or timezone.now()
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk)
        changed = {name: value for name, value in changes.items()
                   if getattr(memory, name) != value}
        if not changed:
            return memory
        before = {name: getattr(memory, name) for name in changed}
        for name, value in changed.items():
            setattr(memory, name, value)
        fields = list(changed)
        if "content" in changed:
            memory.content_hash = content_hash(memory.content)
            memory.embedding, memory.embedding_model = _embed_one(memory.content)
            fields += ["content_hash", "embedding", "embedding_model"]
        memory.save(update_fields=[*fields, "updated_at"])
        MemoryVersion.objects.create(
            memory=memory, changed_by=by, agent_id=agent_id, changed_at=now,
            change=VersionChange.UPDATED if set(changed) - {"status"} else VersionChange.STATUS,
            before=before, after=changed,
        )
        if changed.get("status") == Status.DELETED or "content" in changed:
            what = "deleted" if changed.get("status") == Status.DELETED else "edited"
            reflection.flag_insights_citing([memory.pk], f"cited memory {memory.pk} was {what}")
        if memory.embedding is None:
            _queue_embedding([memory.pk])
        elif "content" in changed:
            _queue_contradiction_check([memory.pk])
    return memory


def _embed_one(content: str):
    provider = get_provider()
    try:
        return provider.embed_documents([content])[0], provider.model_id
    except ProviderError as exc:
        log.warning("embedding deferred: %s", exc)
        return None, ""


def delete_memory(memory: Memory, *, by=None, agent_id: str = "") -> Memory:
    """Soft delete: the memory leaves recall but stays restorable, with its history."""
    return update_memory(memory, by=by, agent_id=agent_id, status=Status.DELETED)


def restore_memory(memory: Memory, *, by=None, agent_id: str = "") -> Memory:
    """Undo a delete exactly: the memory gets back the status it had (active or archived)."""
    memory.refresh_from_db(fields=["status"])
    if memory.status != Status.DELETED:
        return memory
    deletion = (memory.versions.filter(after__status=Status.DELETED)
                .order_by("-changed_at", "-id").only("before").first())
    previous = (deletion.before or {}).get("status") if deletion else None
    status = previous if previous in (Status.ACTIVE, Status.ARCHIVED) else Status.ACTIVE
    return update_memory(memory, by=by, agent_id=agent_id, status=status)


def record_retrieval(*, owner, memories: Sequence[Memory], agent_id: str = "",
                     session_id: str = "", scores: Sequence[float | None] = (),
                     now: datetime | None = None) -> None:
    """Returning memories refreshes their recency and counts, and logs a usage event each.

    This runs on every recall, so it is one round trip (the update and the inserts in
    one statement) that does not wait for the disk: usage counts are statistics, and
    losing the last instant of them in a crash harms nothing, while a synchronous commit
    would add a flush to every request. Outside a transaction the two statements sent
    together form one implicit transaction, which SET LOCAL is confined to.
    """
    if not memories:
        return
    now = now or timezone.now()
    scores = list(scores) or [None] * len(memories)
    if len(scores) != len(memories):
        raise ValueError("record_retrieval needs one score per memory, or none.")
    ids = [m.pk for m in memories]
    with connection.cursor() as cursor:
        cursor.execute(_RECORD_RETRIEVAL_SQL, [now, ids, owner.pk, UsageKind.RETRIEVED,
                                               agent_id, session_id, now, ids, scores])


_RECORD_RETRIEVAL_SQL = f"""
    SET LOCAL synchronous_commit TO OFF;
    WITH touched AS (
        UPDATE {Memory._meta.db_table}
        SET access_count = access_count + 1, last_accessed_at = %s
        WHERE id = ANY(%s::uuid[]) RETURNING id)
    INSERT INTO {UsageEvent._meta.db_table}
        (memory_id, owner_id, kind, agent_id, session_id, score, created_at)
    SELECT u.id, %s, %s, %s, %s, u.score, %s
    FROM unnest(%s::uuid[], %s::float8[]) AS u(id, score)
    WHERE u.id IN (SELECT id FROM touched)
"""


class FeedbackTooSoon(Exception):
    def __init__(self, retry_after: int):
        super().__init__(f"Feedback on this memory from this agent was given less than "
                         f"{settings.ENGRAM_FEEDBACK_INTERVAL} seconds ago.")
        self.retry_after = retry_after


def give_feedback(memory: Memory, *, signal: str, agent_id: str = "", session_id: str = "",
                  now: datetime | None = None) -> Memory:
    """Usage tracker and feedback counters: cited / ignored, helpful / harmful.

    helpful and harmful move importance (by 0.5 each at recall time), so each agent may
    give one of them per memory per ENGRAM_FEEDBACK_INTERVAL: one agent alone cannot
    inflate a memory.
    """
    if signal not in (UsageKind.CITED, UsageKind.IGNORED, UsageKind.HELPFUL,
                      UsageKind.HARMFUL):
        raise ValidationError({"signal": ["Use cited, ignored, helpful or harmful."]})
    now = now or timezone.now()
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk)
        if signal in (UsageKind.HELPFUL, UsageKind.HARMFUL):
            window = timedelta(seconds=settings.ENGRAM_FEEDBACK_INTERVAL)
            last = (UsageEvent.objects
                    .filter(memory=memory, agent_id=agent_id,
                            kind__in=[UsageKind.HELPFUL, UsageKind.HARMFUL],
                            created_at__gt=now - window)
                    .order_by("-created_at").values_list("created_at", flat=True).first())
            if last is not None:
                raise FeedbackTooSoon(max(1, math.ceil((last + window - now).total_seconds())))
            counter = "helpful_count" if signal == UsageKind.HELPFUL else "harmful_count"
            setattr(memory, counter, getattr(memory, counter) + 1)
            memory.save(update_fields=[counter, "updated_at"])
        UsageEvent.objects.create(memory=memory, owner=memory.owner, kind=signal,
                                  agent_id=agent_id, session_id=session_id, created_at=now)
    return memory


def create_api_key(*, owner, name: str) -> tuple[ApiKey, str]:
    """A new key for `owner`; the key itself is returned once and never stored."""
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise ValidationError({"name": ["Give the key a name of 1 to 100 characters."]})
    raw = ApiKey.PREFIX + secrets.token_urlsafe(32)
    key = ApiKey.objects.create(owner=owner, name=name, key_prefix=raw[:12],
                                key_hash=ApiKey.digest(raw))
    return key, raw


def revoke_api_key(key: ApiKey, *, now: datetime | None = None) -> ApiKey:
    if key.revoked_at is None:
        key.revoked_at = now or timezone.now()
        key.save(update_fields=["revoked_at"])
    return key



# Kinds that go to the critical tier while recent, and kinds that are background:
# conventions and preferences an agent should keep in mind (the living-memory tiers).
CRITICAL_KINDS = (Kind.ERROR, Kind.DECISION)
CRITICAL_WINDOW = timedelta(days=14)
BACKGROUND_KINDS = (Kind.PREFERENCE, Kind.INSTRUCTION, Kind.WORKFLOW, Kind.PATTERN)
MAX_CONTEXT_TOKENS = 32_000


@dataclass
class AssembledContext:
    context: str
    tokens_used: int
    truncated: bool
    used: list[Recalled]
    tiers: dict[str, int]


def surfaced_in_session(owner, session_id: str) -> list:
    """Memories already handed out in this session, which a context must not repeat."""
    if not session_id:
        return []
    return list(UsageEvent.objects.filter(owner=owner, session_id=session_id,
                                          kind=UsageKind.RETRIEVED)
                .values_list("memory_id", flat=True).distinct())


def _with_dispute(memory: Memory, contradiction) -> str:
    if contradiction is None:
        return memory.content
    other = (contradiction.memory_b_id if contradiction.memory_a_id == memory.pk
             else contradiction.memory_a_id)
    return f"{memory.content}\n(Disputed: contradicts memory {other}; not yet resolved.)"


def _tier(hit: Recalled, position: int, shown: int, now: datetime, contested: bool) -> str:
    if contested:  # an open contradiction: the agent must know both sides are in doubt
        return "critical"
    if position >= shown:
        return "index"
    if hit.memory.kind in CRITICAL_KINDS and now - hit.memory.created_at <= CRITICAL_WINDOW:
        return "critical"
    if hit.memory.kind in BACKGROUND_KINDS:
        return "background"
    return "relevant"


def assemble_context(*, owner, query: str, max_tokens: int = 500, fmt: str = "markdown",
                     session_id: str = "", agent_id: str = "",
                     filters: selectors.RecallFilters | None = None,
                     min_score: float | None = None, track: bool = True,
                     now: datetime | None = None) -> AssembledContext:
    """What an agent should know right now, inside a hard token budget.

    Skips memories this session has already seen; injects nothing whose match is below
    min_score (an unrelated prompt gets an empty context, not filler); fences the
    result as data. Large budgets are split into the critical / relevant / background /
    index tiers; a memory in an open contradiction is marked as disputed and, with
    tiers, goes to the critical tier. What is injected counts as retrieved for the
    session, unless `track` is off (a person previewing what an agent would see).
    """
    errors = {}
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) \
            or not 1 <= max_tokens <= MAX_CONTEXT_TOKENS:
        errors["max_tokens"] = [(f"max_tokens must be a whole number from 1 to "
                                 f"{MAX_CONTEXT_TOKENS}.")]
    if fmt not in FORMATS:
        errors["format"] = [f"Unknown format {fmt!r}: use one of {', '.join(FORMATS)}."]
    if errors:
        raise ValidationError(errors)
    now = now or timezone.now()
    min_score = settings.ENGRAM_CONTEXT_MIN_SCORE if min_score is None else min_score
    # Enough candidates to fill the budget at ~40 tokens a memory, within recall's limit.
    limit = max(10, min(MAX_RECALL_LIMIT, max_tokens // 40))
    hits = [hit for hit in recall(owner=owner, query=query, limit=limit, filters=filters,
                                  exclude_ids=surfaced_in_session(owner, session_id), now=now)
            if hit.breakdown.match >= min_score]
    tiered = max_tokens >= settings.ENGRAM_TIER_THRESHOLD
    shown = max(1, (len(hits) * 2) // 3) if tiered else len(hits)
    # maintenance builds on this module, so it is imported when first needed
    from .maintenance import open_contradictions_for

    disputes = open_contradictions_for(owner, [hit.memory.pk for hit in hits])
    built = build_context(
        [ContextMemory(id=str(hit.memory.pk), kind=hit.memory.kind, date=hit.memory.created_at,
                       content=_with_dispute(hit.memory, disputes.get(hit.memory.pk)),
                       score=round(hit.score, 4),
                       tier=_tier(hit, i, shown, now, hit.memory.pk in disputes)
                       if tiered else None)
         for i, hit in enumerate(hits)],
        budget=max_tokens, fmt=fmt, now=now, tier_threshold=settings.ENGRAM_TIER_THRESHOLD,
    )
    used_ids = set(built.memories_used)
    used = [hit for hit in hits if str(hit.memory.pk) in used_ids]
    if track:
        record_retrieval(owner=owner, memories=[hit.memory for hit in used],
                         agent_id=agent_id, session_id=session_id,
                         scores=[hit.score for hit in used], now=now)
    return AssembledContext(context=built.context, tokens_used=built.tokens_used,
                            truncated=built.truncated, used=used, tiers=dict(built.tiers))

"""Extraction ("Extraction Pipeline"): each chunk of an observation goes through a cheap gate,
then the extractor, shown the owner's similar memories so it updates instead of repeating;
every write goes through remember(). A model that fails or misbehaves leaves the chunk
stored raw for a retry, and after the last retry the rules extract it, so no chunk is
silently dropped. A chunk that keeps failing for another reason (a bug, the database) is
set aside as failed, still raw, until a person retries it: nothing spins for ever.
"""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from .. import llm_usage, queue, selectors
from ..engine.cost_control import retry_delay
from ..engine.extraction import ExtractedMemory, Extraction
from ..engine.redaction import storable
from ..models import (
    ChunkStatus,
    Kind,
    Membership,
    Observation,
    ObservationChunk,
    ObservationStatus,
    Project,
    Scope,
)
from ..providers.errors import ProviderError
from ..providers.llm import RulesProvider
from ..services.recall import recall
from ..services.remembering import remember
from .chunking import cut_into_chunks
from .entities import link_entities

SIMILAR_MEMORIES_SHOWN = 5  # existing memories handed to the extractor per chunk
CUTTING_FAILED = "cutting_failed"  # the observation's note of its failures to be cut

log = logging.getLogger(__name__)


_OBSERVATION_LOCK = "SELECT {}(hashtext('engram.observation'), hashtext(%s))"


def process_observation(observation_id, *, now: datetime | None = None) -> Observation | None:
    """Extract memories from every chunk of an observation that is due. Idempotent: done
    chunks are never extracted again, and a retry only picks up chunks that failed.

    One worker at a time (a session lock, which PostgreSQL drops with a killed worker's
    connection): the queued task and the sweep, or a retry's task, never extract one
    observation's chunks side by side and out of conversation order. None when another
    worker holds it."""
    with connection.cursor() as cursor:
        cursor.execute(_OBSERVATION_LOCK.format("pg_try_advisory_lock"), [str(observation_id)])
        if not cursor.fetchone()[0]:
            return None
    try:
        return _process(observation_id, now or timezone.now())
    finally:
        with connection.cursor() as cursor:
            cursor.execute(_OBSERVATION_LOCK.format("pg_advisory_unlock"),
                           [str(observation_id)])


def _process(observation_id, now: datetime) -> Observation | None:
    with transaction.atomic():
        observation = (Observation.objects.select_for_update(skip_locked=True)
                       .filter(pk=observation_id).first())
        if observation is None:  # gone, or a retry or an erase holds it this moment
            return None
        if not observation.chunks.exists():
            try:
                with transaction.atomic():
                    cut_into_chunks(observation)
            except Exception as exc:  # a bug: counted, so it cannot keep the sweep busy
                log.exception("Cutting observation %s into chunks failed", observation.pk)
                _cutting_failed(observation, exc, now)
                return observation
    due = Q(status=ChunkStatus.PENDING) | Q(status=ChunkStatus.RETRY, next_attempt_at__lte=now)
    # In conversation order, always: what a chunk yields depends on what is stored before
    # it (restatements are dropped), so a sweep after a crash must take the same order.
    for chunk_id in observation.chunks.filter(due).order_by("position").values_list(
            "pk", flat=True):
        # One chunk, one transaction holding its row: the queued task and the sweep never
        # extract the same chunk twice, and a crash leaves it due, not half-stored.
        with transaction.atomic():
            chunk = (ObservationChunk.objects.select_for_update(skip_locked=True)
                     .filter(due, pk=chunk_id).first())
            if chunk is not None:
                _extract_or_keep(observation, chunk, now)
    return _settle(observation, now)


def _settle(observation: Observation, now: datetime) -> Observation:
    """Done, or failed, once no chunk waits. Read and written holding the observation's
    row, which a person's retry takes too: a retry is never overwritten by a status
    read before it."""
    with transaction.atomic():
        locked = Observation.objects.select_for_update().filter(pk=observation.pk).first()
        if locked is None:  # erased meanwhile
            return observation
        statuses = set(locked.chunks.values_list("status", flat=True).distinct())
        if not statuses & {ChunkStatus.PENDING, ChunkStatus.RETRY}:
            locked.status = _settled_status(statuses)
            locked.processed_at = now
            locked.save(update_fields=["status", "processed_at"])
    return locked


def _settled_status(statuses: set) -> str:
    return ObservationStatus.FAILED if ChunkStatus.FAILED in statuses else ObservationStatus.DONE


class NothingToRetry(Exception):
    pass


def retry_failed_chunks(owner, observation_id) -> Observation | None:
    """Send an observation's failed chunks (or, if it could not be cut, the whole of it)
    through extraction again, with every attempt back, once a person asks (the cause
    mended). None when `owner` has no such observation; raises NothingToRetry when
    nothing of it failed."""
    with transaction.atomic():
        observation = (Observation.objects.for_owner(owner).select_for_update()
                       .filter(pk=observation_id).first())
        if observation is None:
            return None
        retried = observation.chunks.filter(status=ChunkStatus.FAILED).update(
            status=ChunkStatus.PENDING, attempts=0, next_attempt_at=None)
        uncut = (observation.status == ObservationStatus.FAILED
                 and not observation.chunks.exists())
        if not (retried or uncut):
            raise NothingToRetry(f"Nothing of observation {observation.pk} has failed; "
                                 f"it is {observation.status}.")
        observation.status = ObservationStatus.PENDING
        observation.processed_at = None
        observation.notes.pop(CUTTING_FAILED, None)
        observation.save(update_fields=["status", "processed_at", "notes"])
        queue.process_observation(observation.pk)
    return observation


def _cutting_failed(observation: Observation, exc: Exception, now: datetime) -> None:
    """Count a failure to cut the observation into chunks (a bug: what it holds was
    checked when it arrived) in its notes; past ENGRAM_CAPTURE_MAX_FAILURES the sweep
    leaves it, failed, until a person retries it."""
    failure = observation.notes.get(CUTTING_FAILED, {"attempts": 0})
    failure = {"attempts": failure["attempts"] + 1,
               "error": storable(f"{type(exc).__name__}: {exc}")[:2000]}
    observation.notes[CUTTING_FAILED] = failure
    fields = ["notes"]
    if failure["attempts"] >= settings.ENGRAM_CAPTURE_MAX_FAILURES:
        observation.status, observation.processed_at = ObservationStatus.FAILED, now
        fields += ["status", "processed_at"]
    observation.save(update_fields=fields)


def process_due_observations(*, now: datetime | None = None, limit: int = 200) -> int:
    """The sweep: observations never processed (the queue was down) and chunks whose
    retry is due. Returns how many observations it processed."""
    now = now or timezone.now()
    stale = now - timedelta(minutes=2)  # leave fresh ones to the task already queued
    waiting = ObservationChunk.objects.filter(
        observation=OuterRef("pk"), status__in=[ChunkStatus.PENDING, ChunkStatus.RETRY])
    ids = list(Observation.objects.filter(
        Q(status=ObservationStatus.PENDING, created_at__lte=stale),
        # never cut, a chunk due, or every chunk done (a worker killed before it settled)
        ~Exists(waiting) | Q(chunks__status=ChunkStatus.PENDING)
        | Q(chunks__status=ChunkStatus.RETRY, chunks__next_attempt_at__lte=now),
    ).values_list("pk", flat=True).distinct()[:limit])
    for observation_id in ids:
        try:
            process_observation(observation_id, now=now)
        except Exception:  # a bug: this observation waits for the next sweep, not the rest
            log.exception("The sweep could not process observation %s", observation_id)
    return len(ids)


def _similar_memories(observation: Observation, text: str,
                      shared_with: Project | None) -> list[tuple[str, str]]:
    # Bound for a project: what the project already holds, so a fact its author kept
    # privately is still shared (remember() dedups a repeated preference privately).
    hits = recall(owner=observation.owner, query=text, limit=SIMILAR_MEMORIES_SHOWN,
                  filters=selectors.RecallFilters(
                      project=observation.project,
                      shared_with=shared_with.pk if shared_with else None))
    return [(str(hit.memory.pk), hit.memory.content) for hit in hits]


def _run(provider, observation, chunk, shared_with: Project | None) -> Extraction | None:
    """Gate, then extract; None when the gate found nothing worth keeping."""
    gate = provider.gate(chunk.text)
    llm_usage.log_model_calls(observation.owner, observation.project, gate.calls)
    if not gate.value.worth_remembering:
        return None
    extraction = provider.extract(chunk.text,
                                  _similar_memories(observation, chunk.text, shared_with))
    llm_usage.log_model_calls(observation.owner, observation.project, extraction.calls)
    return extraction.value


def _extract_chunk(observation: Observation, chunk: ObservationChunk, now: datetime) -> None:
    provider, fallback_reason = llm_usage.choose_provider(observation.owner, observation.project, now)
    shared_with = _shared_with(observation)
    try:
        extraction = _run(provider, observation, chunk, shared_with)
    except ProviderError as exc:
        chunk.attempts += 1
        chunk.last_error = str(exc)[:2000]
        llm_usage.log_failed_call(observation.owner, observation.project, provider, exc, "extract")
        if exc.retryable and chunk.attempts < settings.ENGRAM_CAPTURE_MAX_ATTEMPTS:
            _retry_later(chunk, now)
            return
        provider, fallback_reason = RulesProvider(), f"{provider.name} failed: {exc}"
        extraction = _run(provider, observation, chunk, shared_with)
    chunk.extracted_by = provider.name + (f" ({fallback_reason})" if fallback_reason else "")
    chunk.extracted_by = chunk.extracted_by[:100]
    if extraction is None:
        chunk.status = ChunkStatus.SKIPPED
    else:
        try:
            # A savepoint: a store that fails undoes its own writes only, so the model
            # calls logged above still count what they cost (budget and breaker).
            with transaction.atomic():
                chunk.memory_ids = _store(observation, chunk, extraction.memories,
                                          shared_with, now)
        except DatabaseError as exc:
            chunk.attempts += 1
            chunk.last_error = f"storing failed: {exc}"[:2000]
            _retry_later(chunk, now, failed=True)
            return
        chunk.status = ChunkStatus.EXTRACTED
    chunk.next_attempt_at = None
    chunk.save(update_fields=["attempts", "last_error", "status", "next_attempt_at",
                              "extracted_by", "memory_ids"])


def _extract_or_keep(observation: Observation, chunk: ObservationChunk,
                     now: datetime) -> None:
    """_extract_chunk, where a failure it does not expect (a bug) undoes what it wrote and
    keeps the chunk for a retry, with its error: the observation's later chunks, and the
    observations after it, still run."""
    try:
        with transaction.atomic():
            _extract_chunk(observation, chunk, now)
    except Exception as exc:
        log.exception("Extracting chunk %s of observation %s failed", chunk.position,
                      observation.pk)
        chunk.refresh_from_db()
        chunk.attempts += 1
        chunk.last_error = storable(f"extraction failed: {type(exc).__name__}: {exc}")[:2000]
        _retry_later(chunk, now, failed=True)


def _retry_later(chunk: ObservationChunk, now, *, failed: bool = False) -> None:
    """Keep the chunk for a retry with back-off. A failure no fallback mends (`failed`)
    that has used up its attempts sets the chunk aside for a person instead."""
    if failed and chunk.attempts >= settings.ENGRAM_CAPTURE_MAX_FAILURES:
        chunk.status, chunk.next_attempt_at = ChunkStatus.FAILED, None
        log.error("Chunk %s of observation %s failed %d times; it waits for a person to "
                  "retry it: %s", chunk.position, chunk.observation_id, chunk.attempts,
                  chunk.last_error)
    else:
        chunk.status = ChunkStatus.RETRY
        chunk.next_attempt_at = now + retry_delay(chunk.attempts)
    chunk.save(update_fields=["attempts", "last_error", "status", "next_attempt_at"])


def _shared_with(observation: Observation) -> Project | None:
    """The project the observation's memories go to, if its author still owns or edits
    it (one who lost the role since keeps them private)."""
    if observation.shared_with_id is None:
        return None
    writes = Membership.objects.writers().filter(
        project_id=observation.shared_with_id, user_id=observation.owner_id).exists()
    return observation.shared_with if writes else None


def _scope_of(item: ExtractedMemory, shared_with: Project | None) -> dict:
    # Private is the default for anything personal: a preference is the author's own.
    if shared_with is None or item.kind == Kind.PREFERENCE:
        return {"scope": Scope.PRIVATE, "shared_with": None}
    return {"scope": Scope.PROJECT, "shared_with": shared_with}


def _store(observation, chunk, extracted: list[ExtractedMemory],
           shared_with: Project | None, now) -> list:
    stored = []
    for item in extracted:
        result = remember(
            owner=observation.owner, now=now, **_scope_of(item, shared_with),
            dedup_threshold=settings.ENGRAM_EXTRACTION_DEDUP_THRESHOLD,
            content=item.content, memory_type=item.memory_type, kind=item.kind,
            importance=item.importance, tags=item.tags, project=observation.project,
            agent_id=observation.agent_id, session_id=observation.session_id,
            metadata={"source": "observation", "observation": str(observation.pk),
                      "chunk": chunk.position, "extracted_by": chunk.extracted_by,
                      **({"updates": item.updates} if item.updates else {})})
        field = "memories_created" if result.created else "memories_strengthened"
        Observation.objects.filter(pk=observation.pk).update(**{field: F(field) + 1})
        link_entities(result.memory, item, now=now)
        stored.append(result.memory.pk)
    return stored

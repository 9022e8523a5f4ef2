"""Automatic capture services: store what agents observe, then extract memories from it.

`observe()` scrubs and stores an observation before anything else happens (the worker
may be down: the row is the queue of last resort). `process_observation()` cuts it into
chunks and runs the "Extraction Pipeline": a cheap gate, then the extractor, shown the
owner's similar memories so it updates instead of repeating; every write goes through
`remember()`. A model that fails or misbehaves leaves the chunk stored raw for a retry,
and after the last retry the rules extract it, so no chunk is silently dropped.
"""

import hashlib
import json
import logging
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, Q, Sum
from django.utils import timezone

from reflection import services as reflection

from . import selectors, services
from .engine.chunking import chunk_messages
from .engine.context import count_tokens
from .engine.cost_control import circuit_reopens_at, retry_delay
from .engine.extraction import ExtractedMemory, Extraction, canonical_entity_name
from .engine.redaction import matches_skip_list, scrub
from .models import (
    ChunkStatus,
    Entity,
    EntityType,
    MemoryEntity,
    ModelCall,
    Observation,
    ObservationChunk,
    ObservationStatus,
    Relationship,
)
from .providers.embeddings import get_provider
from .providers.errors import ProviderError
from .providers.llm import RulesProvider, get_llm_provider

log = logging.getLogger(__name__)

SIMILAR_MEMORIES_SHOWN = 5  # existing memories handed to the extractor per chunk
TOOL_TEXT_SHOWN = 1_500  # characters of a failed tool's input and error put in its chunk


@dataclass
class Observed:
    observation: Observation
    created: bool  # False when the very same observation had been sent before


# --- Ingest ------------------------------------------------------------------------------


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           sort_keys=True, default=str)


class _Scrubber:
    """Scrubs every text field of one observation and tallies what it removed."""

    def __init__(self):
        self.redacted: Counter = Counter()
        self.private_sections_dropped = 0
        self.truncated_fields = 0

    def __call__(self, value: Any) -> str:
        result = scrub(_as_text(value), max_chars=settings.ENGRAM_CAPTURE_MAX_CHARS)
        self.redacted.update(result.redactions)
        self.private_sections_dropped += result.private_dropped
        self.truncated_fields += int(result.truncated)
        return result.text

    def notes(self) -> dict:
        notes = {"redacted": dict(self.redacted),
                 "private_sections_dropped": self.private_sections_dropped,
                 "truncated_fields": self.truncated_fields}
        return {key: value for key, value in notes.items() if value}


def _skipped(event: dict) -> bool:
    if matches_skip_list(event["tool_name"], settings.ENGRAM_CAPTURE_SKIP_TOOLS):
        return True
    paths = event.get("file_paths") or []
    return bool(paths) and all(matches_skip_list(p, settings.ENGRAM_CAPTURE_SKIP_PATHS)
                               for p in paths)


def observe(*, owner, messages: list[dict], tool_events: list[dict], project: str = "",
            agent_id: str = "", session_id: str = "", now: datetime | None = None) -> Observed:
    """Scrub and store an observation, and queue its extraction.

    `messages` are {role, text, timestamp}; `tool_events` are {tool_name, input, response,
    success, duration_ms, file_paths}, already validated by the caller. Secrets, private
    sections and oversized text never reach the database or a model.
    """
    scrub_text = _Scrubber()
    kept_messages = [{"role": m["role"], "text": scrub_text(m["text"]),
                      "timestamp": m.get("timestamp")} for m in messages]
    kept_events, skipped = [], 0
    for event in tool_events:
        if _skipped(event):
            skipped += 1
            continue
        kept_events.append({
            "tool_name": event["tool_name"], "input": scrub_text(event.get("input")),
            "response": scrub_text(event.get("response")), "success": event["success"],
            "duration_ms": event.get("duration_ms"),
            "file_paths": [p for p in event.get("file_paths") or []
                           if not matches_skip_list(p, settings.ENGRAM_CAPTURE_SKIP_PATHS)],
        })
    notes = scrub_text.notes() | ({"skipped_tool_events": skipped} if skipped else {})
    payload = {"project": project, "agent_id": agent_id, "session_id": session_id,
               "messages": kept_messages, "tool_events": kept_events}
    payload_hash = hashlib.sha256(
        json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()

    existing = Observation.objects.for_owner(owner).filter(payload_hash=payload_hash).first()
    if existing:
        return Observed(existing, created=False)
    try:
        with transaction.atomic():
            observation = Observation.objects.create(
                owner=owner, project=project, agent_id=agent_id, session_id=session_id,
                messages=kept_messages, tool_events=kept_events, payload_hash=payload_hash,
                notes=notes, created_at=now or timezone.now())
    except IntegrityError:  # the same observation, sent twice at once
        return Observed(Observation.objects.for_owner(owner).get(payload_hash=payload_hash),
                        created=False)
    reflection.note_observation(owner)
    from .tasks import process_observation

    services.queue_after_commit(process_observation, str(observation.pk))
    return Observed(observation, created=True)


# --- Extraction --------------------------------------------------------------------------


def _failed_tool_text(event: dict) -> str:
    """A failed tool call as a chunk: errors and their context are worth remembering;
    successful tool output is too noisy to extract from ("Extraction Pipeline")."""
    paths = ", ".join(event["file_paths"])
    return (f"tool {event['tool_name']} failed"
            + (f" on {paths}" if paths else "")
            + f"\ninput: {event['input'][:TOOL_TEXT_SHOWN]}"
            + f"\nerror: {event['response'][:TOOL_TEXT_SHOWN]}")


def _cut_into_chunks(observation: Observation) -> None:
    pieces = [chunk.text for chunk in chunk_messages(
        [(m["role"], m["text"]) for m in observation.messages])]
    pieces += [_failed_tool_text(e) for e in observation.tool_events if not e["success"]]
    ObservationChunk.objects.bulk_create(
        [ObservationChunk(observation=observation, position=i, text=text,
                          tokens=count_tokens(text)) for i, text in enumerate(pieces)],
        ignore_conflicts=True)


def process_observation(observation_id, *, now: datetime | None = None) -> Observation | None:
    """Extract memories from every chunk of an observation that is due. Idempotent: done
    chunks are never extracted again, and a retry only picks up chunks that failed."""
    now = now or timezone.now()
    with transaction.atomic():
        observation = (Observation.objects.select_for_update(skip_locked=True)
                       .filter(pk=observation_id).first())
        if observation is None:  # gone, or another worker holds it
            return None
        if not observation.chunks.exists():
            _cut_into_chunks(observation)
    due = Q(status=ChunkStatus.PENDING) | Q(status=ChunkStatus.RETRY, next_attempt_at__lte=now)
    for chunk_id in observation.chunks.filter(due).values_list("pk", flat=True):
        # One chunk, one transaction holding its row: the queued task and the sweep never
        # extract the same chunk twice, and a crash leaves it due, not half-stored.
        with transaction.atomic():
            chunk = (ObservationChunk.objects.select_for_update(skip_locked=True)
                     .filter(due, pk=chunk_id).first())
            if chunk is not None:
                _extract_chunk(observation, chunk, now)
    unresolved = observation.chunks.filter(
        status__in=[ChunkStatus.PENDING, ChunkStatus.RETRY]).exists()
    if not unresolved:
        observation.status = ObservationStatus.DONE
        observation.processed_at = now
        observation.save(update_fields=["status", "processed_at"])
    return observation


def process_due_observations(*, now: datetime | None = None, limit: int = 200) -> int:
    """The sweep: observations never processed (the queue was down) and chunks whose
    retry is due. Returns how many observations it processed."""
    now = now or timezone.now()
    stale = now - timedelta(minutes=2)  # leave fresh ones to the task already queued
    ids = list(Observation.objects.filter(
        Q(status=ObservationStatus.PENDING, created_at__lte=stale),
        Q(chunks__isnull=True) | Q(chunks__status=ChunkStatus.PENDING)
        | Q(chunks__status=ChunkStatus.RETRY, chunks__next_attempt_at__lte=now),
    ).values_list("pk", flat=True).distinct()[:limit])
    for observation_id in ids:
        process_observation(observation_id, now=now)
    return len(ids)


def circuit_reopens(provider_name: str, now: datetime) -> datetime | None:
    """When the provider's circuit breaker closes again; None while it is closed."""
    return circuit_reopens_at(
        list(ModelCall.objects.filter(provider=provider_name).order_by("-created_at")
             .values_list("ok", "created_at")[:settings.ENGRAM_LLM_BREAKER_FAILURES]),
        failures=settings.ENGRAM_LLM_BREAKER_FAILURES,
        cooldown=timedelta(seconds=settings.ENGRAM_LLM_BREAKER_COOLDOWN), now=now)


def llm_status(*, now: datetime | None = None, owner=None) -> dict:
    """What /healthz and the dashboard say about the extraction model and its cost."""
    now = now or timezone.now()
    provider = get_llm_provider()
    reopens = None if isinstance(provider, RulesProvider) else circuit_reopens(provider.name,
                                                                                now)
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    calls = ModelCall.objects.filter(created_at__gte=day_start)
    if owner is not None:
        calls = calls.filter(owner=owner)
    today = calls.aggregate(calls=Count("id"), tokens=Sum(F("input_tokens") + F("output_tokens")),
                            cost=Sum("cost_usd"), failed=Count("id", filter=Q(ok=False)))
    return {
        "provider": provider.name,
        "circuit": "open" if reopens else "closed",
        **({"circuit_reopens_at": reopens.isoformat(), "fallback": "rules"} if reopens else {}),
        "today": {"calls": today["calls"], "failed": today["failed"],
                  "tokens": today["tokens"] or 0,
                  "estimated_cost_usd": float(today["cost"] or 0)},
    }


def choose_provider(owner, project: str, now: datetime):
    """The configured model, unless its breaker is open or the project's daily token
    budget is spent; then the rules, and the reason why."""
    provider = get_llm_provider()
    if isinstance(provider, RulesProvider):
        return provider, ""
    reopens = circuit_reopens(provider.name, now)
    if reopens:
        return RulesProvider(), f"{provider.name} circuit open until {reopens.isoformat()}"
    if tokens_used_today(owner, project, now) >= settings.ENGRAM_LLM_DAILY_TOKENS:
        return RulesProvider(), f"daily token budget of project {project!r} spent"
    return provider, ""


def tokens_used_today(owner, project: str, now: datetime) -> int:
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    used = ModelCall.objects.filter(owner=owner, project=project, created_at__gte=day_start
                                    ).aggregate(total=Sum(F("input_tokens") + F("output_tokens")))
    return used["total"] or 0


def log_model_calls(owner, project: str, calls) -> None:
    ModelCall.objects.bulk_create([
        ModelCall(owner=owner, project=project,
                  provider=call.provider, model=call.model, purpose=call.purpose,
                  input_tokens=call.input_tokens, output_tokens=call.output_tokens,
                  cost_usd=None if call.estimated_cost_usd is None
                  else Decimal(str(round(call.estimated_cost_usd, 6))),
                  duration_ms=call.duration_ms, ok=call.ok, error=call.error or "")
        for call in calls if call.provider != RulesProvider.name])


def _similar_memories(observation: Observation, text: str) -> list[tuple[str, str]]:
    hits = services.recall(owner=observation.owner, query=text,
                           limit=SIMILAR_MEMORIES_SHOWN,
                           filters=selectors.RecallFilters(project=observation.project))
    return [(str(hit.memory.pk), hit.memory.content) for hit in hits]


def _run(provider, observation, chunk) -> Extraction | None:
    """Gate, then extract; None when the gate found nothing worth keeping."""
    gate = provider.gate(chunk.text)
    log_model_calls(observation.owner, observation.project, gate.calls)
    if not gate.value.worth_remembering:
        return None
    extraction = provider.extract(chunk.text, _similar_memories(observation, chunk.text))
    log_model_calls(observation.owner, observation.project, extraction.calls)
    return extraction.value


def _extract_chunk(observation: Observation, chunk: ObservationChunk, now: datetime) -> None:
    provider, fallback_reason = choose_provider(observation.owner, observation.project, now)
    try:
        extraction = _run(provider, observation, chunk)
    except ProviderError as exc:
        chunk.attempts += 1
        chunk.last_error = str(exc)[:2000]
        log_failed_call(observation.owner, observation.project, provider, exc, "extract")
        if exc.retryable and chunk.attempts < settings.ENGRAM_CAPTURE_MAX_ATTEMPTS:
            chunk.status = ChunkStatus.RETRY
            chunk.next_attempt_at = now + retry_delay(chunk.attempts)
            chunk.save(update_fields=["attempts", "last_error", "status", "next_attempt_at"])
            return
        provider, fallback_reason = RulesProvider(), f"{provider.name} failed: {exc}"
        extraction = _run(provider, observation, chunk)
    chunk.extracted_by = provider.name + (f" ({fallback_reason})" if fallback_reason else "")
    chunk.extracted_by = chunk.extracted_by[:100]
    if extraction is None:
        chunk.status = ChunkStatus.SKIPPED
    else:
        chunk.status = ChunkStatus.EXTRACTED
        chunk.memory_ids = _store(observation, chunk, extraction.memories, now)
    chunk.next_attempt_at = None
    chunk.save(update_fields=["attempts", "last_error", "status", "next_attempt_at",
                              "extracted_by", "memory_ids"])


def log_failed_call(owner, project: str, provider, exc: ProviderError, purpose: str) -> None:
    """A failed call counts towards the circuit breaker even when the provider could not
    say which calls it made."""
    calls = getattr(exc, "calls", None)
    if calls:
        log_model_calls(owner, project, calls)
    else:
        ModelCall.objects.create(owner=owner, project=project, provider=provider.name,
                                 purpose=purpose, ok=False, error=str(exc)[:2000])


def _store(observation, chunk, extracted: list[ExtractedMemory], now) -> list:
    stored = []
    for item in extracted:
        result = services.remember(
            owner=observation.owner, now=now,
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


# --- Entities ----------------------------------------------------------------------------


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

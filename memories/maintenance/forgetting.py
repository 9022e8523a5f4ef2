"""Forgetting ("Ebbinghaus Forgetting Algorithm"): the pass that archives what was superseded
and soft-deletes what has faded (the engine decides, engine/forgetting.py), and the purge
that removes for good what stayed forgotten long enough."""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from .. import signals
from ..engine.forgetting import ARCHIVE, FORGET, KEEP, MemoryState, decide
from ..jobs import progress_reporter
from ..models import (
    Job,
    Memory,
    MemoryVersion,
    PurgeRecord,
    Status,
    UsageKind,
    VersionChange,
)

log = logging.getLogger(__name__)


FORGET_BATCH = 1000


def _forgetting_candidates(owner, now: datetime):
    protect_since = now - timedelta(days=settings.ENGRAM_FORGET_PROTECT_DAYS)
    # A side of an open contradiction waits for the person asked about it.
    memories = Memory.objects.filter(status=Status.ACTIVE).undisputed()
    if owner is not None:
        memories = memories.filter(owner=owner)
    return memories.annotate(
        last_endorsed=Max("usage__created_at", filter=Q(
            usage__kind__in=[UsageKind.CITED, UsageKind.HELPFUL],
            usage__created_at__gte=protect_since)),
    ).only("id", "owner_id", "memory_type", "importance", "access_count", "created_at",
           "last_accessed_at", "pinned", "superseded_by", "valid_to", "content", "updated_at")


def _state(memory: Memory, now: datetime) -> MemoryState:
    return MemoryState(
        memory_type=memory.memory_type, importance=memory.importance,
        access_count=memory.access_count, created_at=memory.created_at,
        last_accessed_at=memory.last_accessed_at or memory.created_at, pinned=memory.pinned,
        last_cited_or_helpful_at=memory.last_endorsed,
        superseded=memory.superseded_by_id is not None
        or (memory.valid_to is not None and memory.valid_to <= now))


def _set_status(memories: list[Memory], status: str, reasons: dict, now: datetime) -> int:
    """One transaction per batch: a killed run leaves each memory changed or not, whole.
    A memory changed since it was read (a person pinned, edited or marked it) is left for
    the next pass to decide on afresh. Returns how many changed."""
    with transaction.atomic():
        read = {m.pk: m.updated_at for m in memories}
        # locked in one order, the key's, as consolidation locks them (_as_read)
        ids = {pk for pk, updated_at in Memory.objects.select_for_update()
               .filter(pk__in=list(read), status=Status.ACTIVE).order_by("pk")
               .values_list("pk", "updated_at") if updated_at == read[pk]}
        Memory.objects.filter(pk__in=ids).update(status=status, updated_at=now)
        if status == Status.DELETED:
            signals.evidence_changed.send(
                sender=Memory, memory_ids=ids,
                reason="a cited memory was forgotten (soft-deleted)")
        MemoryVersion.objects.bulk_create([
            MemoryVersion(memory=m, change=VersionChange.STATUS, changed_at=now,
                          before={"status": Status.ACTIVE},
                          after={"status": status, "reason": reasons[m.pk]})
            for m in memories if m.pk in ids])
    return len(ids)


def forget(*, owner=None, dry_run: bool = False, job: Job | None = None,
           now: datetime | None = None, on_progress=None) -> dict:
    """The forgetting pass: archive what was superseded, soft-delete what has faded.

    Pinned memories and memories cited or marked helpful in the last
    ENGRAM_FORGET_PROTECT_DAYS days are never forgotten. A forgotten memory stays
    restorable until `purge` removes it, ENGRAM_PURGE_AFTER_DAYS later.
    """
    now = now or timezone.now()
    candidates = _forgetting_candidates(owner, now)
    advance = progress_reporter(job, candidates.count(), on_progress)
    counts = {"checked": 0, "kept": 0, "archived": 0, "forgotten": 0}
    examples, reasons = [], {}
    changes: dict[str, list[Memory]] = {ARCHIVE: [], FORGET: []}

    def apply(seen: int) -> None:
        if not dry_run:
            for action, status, counted in ((ARCHIVE, Status.ARCHIVED, "archived"),
                                            (FORGET, Status.DELETED, "forgotten")):
                left = len(changes[action]) - _set_status(changes[action], status, reasons,
                                                          now)
                counts[counted] -= left
                counts["kept"] += left
        changes[ARCHIVE], changes[FORGET] = [], []
        advance(seen)

    for memory in candidates.iterator(chunk_size=FORGET_BATCH):
        decision = decide(_state(memory, now), now,
                          threshold=settings.ENGRAM_FORGET_THRESHOLD,
                          half_life_days=settings.ENGRAM_FORGET_HALF_LIFE_DAYS,
                          protect_days=settings.ENGRAM_FORGET_PROTECT_DAYS)
        counts["checked"] += 1
        if decision.action == KEEP:
            counts["kept"] += 1
        else:
            counts["archived" if decision.action == ARCHIVE else "forgotten"] += 1
            changes[decision.action].append(memory)
            reasons[memory.pk] = decision.reason
            if len(examples) < 20:
                examples.append({"id": str(memory.pk), "action": decision.action,
                                 "reason": decision.reason, "content": memory.content[:120]})
        if counts["checked"] % FORGET_BATCH == 0:
            apply(FORGET_BATCH)
    apply(counts["checked"] % FORGET_BATCH)
    return {**counts, "examples": examples}


def purge(*, owner=None, dry_run: bool = False, job: Job | None = None,
          now: datetime | None = None, on_progress=None) -> dict:
    """Remove for good the memories forgotten (soft-deleted) more than
    ENGRAM_PURGE_AFTER_DAYS ago. Every purged memory is logged, listed in the job and
    recorded as a PurgeRecord, by id: no log, result or record repeats its content."""
    now = now or timezone.now()
    due = Memory.objects.filter(status=Status.DELETED,
                                updated_at__lte=now - timedelta(
                                    days=settings.ENGRAM_PURGE_AFTER_DAYS))
    if owner is not None:
        due = due.filter(owner=owner)
    rows = list(due.values("id", "owner_id", "updated_at"))
    advance = progress_reporter(job, len(rows), on_progress)
    purged = [{"id": str(r["id"]), "owner": r["owner_id"],
               "deleted_at": r["updated_at"].isoformat()} for r in rows]
    reason = f"forgotten more than {settings.ENGRAM_PURGE_AFTER_DAYS} days ago"
    if not dry_run:
        for start in range(0, len(rows), FORGET_BATCH):
            ids = [r["id"] for r in rows[start:start + FORGET_BATCH]]
            batch = rows[start:start + FORGET_BATCH]
            with transaction.atomic():
                Memory.objects.filter(pk__in=ids, status=Status.DELETED).delete()
                PurgeRecord.objects.bulk_create([
                    PurgeRecord(memory_id=r["id"], owner_id=r["owner_id"],
                                forgotten_at=r["updated_at"], purged_at=now, reason=reason)
                    for r in batch])
            for entry in purged[start:start + FORGET_BATCH]:
                log.info("Purged memory %s of owner %s (forgotten %s)", entry["id"],
                         entry["owner"], entry["deleted_at"])
            advance(len(ids))
    else:
        advance(len(rows))
    return {"purged": len(purged), "memories": purged}

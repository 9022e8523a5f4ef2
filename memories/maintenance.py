"""Maintenance services: contradictions, forgetting, and the job records that report them.

Every step is idempotent (running it again changes nothing) and restartable (a killed
run leaves whole rows only: each memory's change is its own transaction).
"""

import logging
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from datetime import datetime, timedelta

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, Max, Q
from django.utils import timezone

from reflection import services as reflection

from . import capture, selectors, services
from .engine.consolidation import (
    COMPRESS_AFTER_DAYS,
    RELATED_THRESHOLD,
    STRATEGIES,
    SUMMARY_AFTER_DAYS,
    ConsolidationState,
    adjust_ranking,
    candidates,
    cluster,
    compress,
    compression_due,
    consolidated_importance,
    extractive_summary,
    near_duplicate_groups,
    summary_budget,
)
from .engine.context import count_tokens
from .engine.contradiction import pair_key
from .engine.forgetting import ARCHIVE, FORGET, KEEP, MemoryState, decide
from .models import (
    Contradiction,
    ContradictionStatus,
    Job,
    JobKind,
    JobStatus,
    JudgedPair,
    LinkRelation,
    Memory,
    MemoryLink,
    MemoryVersion,
    Resolution,
    Status,
    UsageEvent,
    UsageKind,
    VersionChange,
)
from .providers.embeddings import get_provider
from .providers.errors import ProviderError
from .providers.llm import RulesProvider

log = logging.getLogger(__name__)

NEIGHBOURS_CHECKED = 20  # "Contradiction Scanner": the neighbours a new memory is judged against
SCAN_BATCH = 200
SUMMARY_TOKENS = 120  # a consolidated memory: a few sentences  # memories whose neighbours are fetched in one query during a full scan


# --- Jobs --------------------------------------------------------------------------------


def create_job(kind: str, *, owner=None, dry_run: bool = False, **params) -> Job:
    return Job.objects.create(kind=kind, owner=owner, dry_run=dry_run, params=params)


@contextmanager
def running(job: Job):
    """Mark the job running, then done (or failed with the error) when the block ends."""
    Job.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING, started_at=timezone.now())
    try:
        yield job
    except Exception as exc:
        Job.objects.filter(pk=job.pk).update(status=JobStatus.FAILED, error=str(exc)[:2000],
                                             finished_at=timezone.now())
        raise
    Job.objects.filter(pk=job.pk).update(status=JobStatus.DONE, result=job.result,
                                         progress_done=F("progress_total"),
                                         finished_at=timezone.now())


def progress_reporter(job: Job | None, total: int,
                      on_progress: Callable[[int, int], None] | None = None
                      ) -> Callable[[int], None]:
    """A callback that advances the job's progress (and a caller's bar) by n of total."""
    if job is not None:
        Job.objects.filter(pk=job.pk).update(progress_total=total)

    def advance(n: int = 1) -> None:
        if job is not None:
            Job.objects.filter(pk=job.pk).update(progress_done=F("progress_done") + n)
        if on_progress is not None:
            on_progress(n, total)

    return advance


# --- Contradictions ----------------------------------------------------------------------


def _neighbours(memories: list[Memory]) -> dict:
    """memory id -> its nearest active memories of the same owner and project: one query
    per owner and project for the whole batch."""
    provider = get_provider()
    groups: dict[tuple, list[Memory]] = {}
    for memory in memories:
        if memory.embedding is not None and memory.embedding_model == provider.model_id:
            groups.setdefault((memory.owner_id, memory.project), []).append(memory)
    near: dict = {}
    for (owner_id, project), group in groups.items():
        found = selectors.nearest_for_each(
            owner_id, project, model_id=provider.model_id, dimensions=provider.dimensions,
            vectors=np.array([m.embedding for m in group]),
            per_vector=NEIGHBOURS_CHECKED + 1)
        for memory, rows in zip(group, found, strict=True):
            near[memory.pk] = [pk for pk, _, _ in rows if pk != memory.pk][:NEIGHBOURS_CHECKED]
    others = Memory.objects.defer("embedding", "search_vector").in_bulk(
        {pk for ids in near.values() for pk in ids})
    return {pk: [others[i] for i in ids if i in others] for pk, ids in near.items()}


def _verdict(provider, memory: Memory, other: Memory, now: datetime):
    """The cached verdict on the pair, or a new one from the judge (then cached)."""
    if isinstance(provider, RulesProvider):  # free and deterministic: nothing to cache
        judged = provider.judge(other.content, memory.content)
        return judged.value.contradicts, judged.value.reason
    key = pair_key(memory.content_hash, other.content_hash)
    cached = JudgedPair.objects.filter(owner_id=memory.owner_id, pair_key=key,
                                       judged_by=provider.name).first()
    if cached:
        return cached.contradicts, cached.reason
    judged = provider.judge(other.content, memory.content)
    capture.log_model_calls(memory.owner, memory.project, judged.calls)
    JudgedPair.objects.get_or_create(
        owner_id=memory.owner_id, pair_key=key, judged_by=provider.name,
        defaults={"contradicts": judged.value.contradicts, "reason": judged.value.reason,
                  "judged_at": now})
    return judged.value.contradicts, judged.value.reason


def check_contradictions(memory_ids: Iterable, *, now: datetime | None = None,
                         dry_run: bool = False, advance=lambda n=1: None) -> list[Contradiction]:
    """Judge each memory against its nearest neighbours and record what contradicts.

    The model judge where one is configured (its verdicts cached per pair), the rules
    otherwise, and the rules too while the model is failing or over budget.
    """
    now = now or timezone.now()
    found = []
    memories = list(Memory.objects.filter(pk__in=list(memory_ids), status=Status.ACTIVE)
                    .select_related("owner"))
    neighbours = _neighbours(memories)
    for memory in memories:
        provider, _ = capture.choose_provider(memory.owner, memory.project, now)
        for other in neighbours.get(memory.pk, []):
            try:
                contradicts, reason = _verdict(provider, memory, other, now)
            except ProviderError as exc:
                capture.log_failed_call(memory.owner, memory.project, provider, exc, "judge")
                provider = RulesProvider()
                contradicts, reason = _verdict(provider, memory, other, now)
            if contradicts:
                found.append(_record(memory, other, provider.name, reason, now, dry_run))
        advance(1)
    return [c for c in found if c is not None]


def _record(memory, other, judged_by, reason, now, dry_run) -> Contradiction | None:
    # The older memory is a, the newer b: "b wins" then reads as "the update holds".
    a, b = sorted((memory, other), key=lambda m: (m.created_at, str(m.pk)))
    contradiction = Contradiction(owner_id=memory.owner_id, memory_a=a, memory_b=b,
                                  detected_at=now, detected_by=judged_by, reason=reason[:2000])
    if dry_run:
        return contradiction
    if Contradiction.objects.filter(memory_a=a, memory_b=b).exists():
        return None
    try:
        with transaction.atomic():
            contradiction.save()
    except IntegrityError:  # found at the same moment by another worker
        return None
    return contradiction


class ResolutionError(ValueError):
    pass


def resolve_contradiction(contradiction: Contradiction, *, resolution: str, note: str = "",
                          by=None, merged_content: str = "",
                          now: datetime | None = None) -> Contradiction:
    """Resolve without deleting: the loser is closed (`valid_to`, `superseded_by`); a
    merge stores a new memory that cites both and supersedes them."""
    now = now or timezone.now()
    if contradiction.status == ContradictionStatus.RESOLVED:
        raise ResolutionError("This contradiction is already resolved.")
    if resolution not in Resolution.values:
        raise ResolutionError(f"Unknown resolution {resolution!r}.")
    a, b = contradiction.memory_a, contradiction.memory_b
    with transaction.atomic():
        if resolution == Resolution.A_WINS:
            _supersede(b, a, by, now)
        elif resolution == Resolution.B_WINS:
            _supersede(a, b, by, now)
        elif resolution == Resolution.MERGED:
            if not merged_content.strip():
                raise ResolutionError("A merge needs the merged text.")
            merged = services.remember(
                owner=contradiction.owner, content=merged_content, now=now,
                memory_type=b.memory_type, kind=b.kind, project=b.project,
                importance=max(a.importance, b.importance), tags=sorted({*a.tags, *b.tags}),
                metadata={"merged_from": [str(a.pk), str(b.pk)],
                          "contradiction": str(contradiction.pk)}).memory
            MemoryLink.objects.bulk_create(
                [MemoryLink(from_memory=merged, to_memory=m, relation=LinkRelation.CITES)
                 for m in (a, b)], ignore_conflicts=True)
            _supersede(a, merged, by, now)
            _supersede(b, merged, by, now)
            contradiction.merged_into = merged
        contradiction.status = ContradictionStatus.RESOLVED
        contradiction.resolution = resolution
        contradiction.note = note
        contradiction.resolved_by = by
        contradiction.resolved_at = now
        contradiction.save()
    return contradiction


def _supersede(loser: Memory, winner: Memory, by, now: datetime) -> None:
    before = {"valid_to": loser.valid_to and loser.valid_to.isoformat(),
              "superseded_by": loser.superseded_by_id and str(loser.superseded_by_id)}
    loser.valid_to = now
    loser.superseded_by = winner
    loser.save(update_fields=["valid_to", "superseded_by", "updated_at"])
    MemoryVersion.objects.create(
        memory=loser, change=VersionChange.UPDATED, changed_by=by, changed_at=now,
        before=before, after={"valid_to": now.isoformat(), "superseded_by": str(winner.pk)})
    MemoryLink.objects.get_or_create(from_memory=winner, to_memory=loser,
                                     relation=LinkRelation.SUPERSEDES)
    reflection.flag_insights_citing([loser.pk], f"cited memory {loser.pk} was superseded "
                                                f"by {winner.pk}")


def open_contradictions_for(owner, memory_ids: Iterable) -> dict:
    """memory id -> the open contradiction it is part of, for the context's critical tier."""
    ids = list(memory_ids)
    open_ = Contradiction.objects.for_owner(owner).filter(status=ContradictionStatus.OPEN)
    found = {}
    for c in open_.filter(memory_a_id__in=ids) | open_.filter(memory_b_id__in=ids):
        found.setdefault(c.memory_a_id, c)
        found.setdefault(c.memory_b_id, c)
    return found


def scan_contradictions(*, owner=None, dry_run: bool = False, job: Job | None = None,
                        now: datetime | None = None, on_progress=None) -> dict:
    """Check every active memory (of one owner, or all): the on-demand scan."""
    memories = Memory.objects.filter(status=Status.ACTIVE, embedding__isnull=False)
    if owner is not None:
        memories = memories.filter(owner=owner)
    ids = list(memories.values_list("pk", flat=True))
    found = []
    advance = progress_reporter(job, len(ids), on_progress)
    for start in range(0, len(ids), SCAN_BATCH):
        found += check_contradictions(ids[start:start + SCAN_BATCH], now=now,
                                      dry_run=dry_run, advance=advance)
    return {"checked": len(ids), "found": len(found),
            "pairs": [[str(c.memory_a_id), str(c.memory_b_id)] for c in found]}



# --- Forgetting ("Ebbinghaus Forgetting Algorithm") ---------------------------------------

FORGET_BATCH = 1000


def _forgetting_candidates(owner, now: datetime):
    protect_since = now - timedelta(days=settings.ENGRAM_FORGET_PROTECT_DAYS)
    memories = Memory.objects.filter(status=Status.ACTIVE)
    if owner is not None:
        memories = memories.filter(owner=owner)
    return memories.annotate(
        last_endorsed=Max("usage__created_at", filter=Q(
            usage__kind__in=[UsageKind.CITED, UsageKind.HELPFUL],
            usage__created_at__gte=protect_since)),
    ).only("id", "owner_id", "memory_type", "importance", "access_count", "created_at",
           "last_accessed_at", "pinned", "superseded_by", "valid_to", "content")


def _state(memory: Memory, now: datetime) -> MemoryState:
    return MemoryState(
        memory_type=memory.memory_type, importance=memory.importance,
        access_count=memory.access_count, created_at=memory.created_at,
        last_accessed_at=memory.last_accessed_at or memory.created_at, pinned=memory.pinned,
        last_cited_or_helpful_at=memory.last_endorsed,
        superseded=memory.superseded_by_id is not None
        or (memory.valid_to is not None and memory.valid_to <= now))


def _set_status(memories: list[Memory], status: str, reasons: dict, now: datetime) -> None:
    """One transaction per batch: a killed run leaves each memory changed or not, whole."""
    with transaction.atomic():
        changed = Memory.objects.filter(pk__in=[m.pk for m in memories], status=Status.ACTIVE)
        ids = set(changed.values_list("pk", flat=True))
        changed.update(status=status, updated_at=now)
        if status == Status.DELETED:
            reflection.flag_insights_citing(ids, "a cited memory was forgotten (soft-deleted)")
        MemoryVersion.objects.bulk_create([
            MemoryVersion(memory=m, change=VersionChange.STATUS, changed_at=now,
                          before={"status": Status.ACTIVE},
                          after={"status": status, "reason": reasons[m.pk]})
            for m in memories if m.pk in ids])


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
            _set_status(changes[ARCHIVE], Status.ARCHIVED, reasons, now)
            _set_status(changes[FORGET], Status.DELETED, reasons, now)
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
    ENGRAM_PURGE_AFTER_DAYS ago. Every purged memory is logged, and listed in the job."""
    now = now or timezone.now()
    due = Memory.objects.filter(status=Status.DELETED,
                                updated_at__lte=now - timedelta(
                                    days=settings.ENGRAM_PURGE_AFTER_DAYS))
    if owner is not None:
        due = due.filter(owner=owner)
    rows = list(due.values("id", "owner_id", "content_hash", "content", "updated_at"))
    advance = progress_reporter(job, len(rows), on_progress)
    purged = [{"id": str(r["id"]), "owner": r["owner_id"], "content_hash": r["content_hash"],
               "content": r["content"][:120], "deleted_at": r["updated_at"].isoformat()}
              for r in rows]
    if not dry_run:
        for start in range(0, len(rows), FORGET_BATCH):
            ids = [r["id"] for r in rows[start:start + FORGET_BATCH]]
            with transaction.atomic():
                Memory.objects.filter(pk__in=ids, status=Status.DELETED).delete()
            for entry in purged[start:start + FORGET_BATCH]:
                log.info("Purged memory %s of owner %s (forgotten %s): %r", entry["id"],
                         entry["owner"], entry["deleted_at"], entry["content"])
            advance(len(ids))
    else:
        advance(len(rows))
    return {"purged": len(purged), "memories": purged}


# --- Consolidation ("Memory Consolidation Algorithm", "Consolidation Engine") ------------

LINKS_PER_MEMORY = 5  # discover_connections: the strongest neighbours each memory links to
CONSOLIDATION_BATCH = 2000  # memories one run clusters, or looks for links, per project


def _consolidation_pool(owner, project: str, model_id: str):
    return (Memory.objects.filter(owner=owner, project=project, status=Status.ACTIVE,
                                  is_synthetic=False, embedding_model=model_id)
            .exclude(embedding__isnull=True).order_by("created_at", "id"))


def _archive_into(originals: list[Memory], keeper: Memory, reason: str, now: datetime) -> None:
    """Archive the originals, linked to what replaces them (never deleted: still reachable
    from the keeper)."""
    MemoryLink.objects.bulk_create(
        [MemoryLink(from_memory=m, to_memory=keeper, relation=LinkRelation.CONSOLIDATED_INTO)
         for m in originals], ignore_conflicts=True)
    Memory.objects.filter(pk__in=[m.pk for m in originals]).update(
        status=Status.ARCHIVED, updated_at=now)
    MemoryVersion.objects.bulk_create([
        MemoryVersion(memory=m, change=VersionChange.STATUS, changed_at=now,
                      before={"status": Status.ACTIVE},
                      after={"status": Status.ARCHIVED, "reason": reason,
                             "consolidated_into": str(keeper.pk)})
        for m in originals])


def _merge_duplicates(group: list[Memory], now: datetime) -> None:
    keeper, repeats = group[0], group[1:]
    with transaction.atomic():
        Memory.objects.filter(pk=keeper.pk).update(
            access_count=F("access_count") + sum(m.access_count for m in repeats),
            helpful_count=F("helpful_count") + len(repeats),
            importance=max(m.importance for m in group))
        _archive_into(repeats, keeper, "duplicate merged", now)


def _summarise(owner, project: str, contents: list[str], now: datetime) -> tuple[str, str]:
    """The cluster's summary by the configured model, else extractive (the rules)."""
    provider, _ = capture.choose_provider(owner, project, now)
    try:
        judged = provider.summarize(contents)
    except ProviderError as exc:
        capture.log_failed_call(owner, project, provider, exc, "summarize")
        provider = RulesProvider()
        judged = provider.summarize(contents)
    capture.log_model_calls(owner, project, judged.calls)
    return judged.value.summary, provider.name


def _consolidate_cluster(cluster: list[Memory], summary: str, made_by: str,
                         now: datetime) -> Memory:
    """One transaction per cluster: a killed run leaves it whole or untouched."""
    with transaction.atomic():
        first = cluster[0]
        # Archived first, so that a summary worded like one of them is still a new memory.
        Memory.objects.filter(pk__in=[m.pk for m in cluster]).update(status=Status.ARCHIVED)
        result = services.remember(
            owner=first.owner, project=first.project, content=summary, now=now,
            memory_type="semantic", kind="fact",
            importance=consolidated_importance(m.importance for m in cluster),
            tags=sorted({t for m in cluster for t in m.tags})[:50],
            dedup_threshold=1.01,  # a summary resembles its originals by design
            metadata={"consolidated_from": [str(m.pk) for m in cluster],
                      "summarised_by": made_by})
        summary_memory = result.memory
        Memory.objects.filter(pk=summary_memory.pk).update(
            access_count=sum(m.access_count for m in cluster))
        originals = [m for m in cluster if m.pk != summary_memory.pk]
        _archive_into(originals, summary_memory, "consolidated", now)
    return summary_memory


def _compress_old_episodes(owner, dry_run: bool, now: datetime) -> int:
    episodes = Memory.objects.filter(owner=owner, memory_type="episodic",
                                     status__in=[Status.ACTIVE, Status.ARCHIVED],
                                     created_at__lt=now - timedelta(days=SUMMARY_AFTER_DAYS))
    missing = episodes.filter(Q(summary="") | Q(
        created_at__lt=now - timedelta(days=COMPRESS_AFTER_DAYS), index_key=""))
    count = 0
    for memory in missing.only("id", "content", "created_at", "summary", "compressed",
                               "index_key").iterator(chunk_size=FORGET_BATCH):
        due = compression_due(memory.created_at, now)
        summary, compressed, index_key = compress(memory.content)
        fields = {"summary": summary, "compressed": compressed, "index_key": index_key}
        changes = {k: v for k, v in fields.items() if k in due and not getattr(memory, k)}
        if changes:
            count += 1
            if not dry_run:
                Memory.objects.filter(pk=memory.pk).update(**changes)
    return count


def _discover_links(owner, project: str, memories: list[Memory], provider,
                    dry_run: bool) -> int:
    """discover_connections: related links between memories close in meaning or naming
    the same entities, so graph recall has edges to walk. Returns the links added."""
    pairs: dict[tuple, float] = {}
    for start in range(0, len(memories), SCAN_BATCH):
        batch = memories[start:start + SCAN_BATCH]
        found = selectors.nearest_for_each(
            owner.pk, project, model_id=provider.model_id, dimensions=provider.dimensions,
            vectors=np.array([m.embedding for m in batch]), per_vector=LINKS_PER_MEMORY + 1)
        for memory, rows in zip(batch, found, strict=True):
            for pk, _, similarity in rows:
                if pk != memory.pk and similarity >= RELATED_THRESHOLD:
                    pairs[tuple(sorted((memory.pk, pk), key=str))] = round(similarity, 4)
    for a, b, strength in _entity_pairs([m.pk for m in memories]):
        pairs.setdefault((a, b), strength)
    existing = set(MemoryLink.objects.filter(
        from_memory__in=[a for a, _ in pairs], relation=LinkRelation.RELATED)
        .values_list("from_memory_id", "to_memory_id"))
    new = [MemoryLink(from_memory_id=a, to_memory_id=b, relation=LinkRelation.RELATED,
                      strength=strength)
           for (a, b), strength in pairs.items() if (a, b) not in existing]
    if not dry_run:
        MemoryLink.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)


def _entity_pairs(memory_ids: list) -> list[tuple]:
    """Pairs of these memories that name the same entities, strength the Jaccard overlap
    of their entity sets, the strongest LINKS_PER_MEMORY per memory."""
    if not memory_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute("""
            WITH mine AS (SELECT memory_id, entity_id FROM memories_memoryentity
                          WHERE memory_id = ANY(%s)),
                 sizes AS (SELECT memory_id, count(*) AS n FROM mine GROUP BY memory_id),
                 shared AS (
                    SELECT a.memory_id AS a, b.memory_id AS b, count(*) AS both_
                    FROM mine a JOIN mine b
                      ON a.entity_id = b.entity_id AND a.memory_id::text < b.memory_id::text
                    GROUP BY 1, 2),
                 scored AS (
                    SELECT s.a, s.b, s.both_::float / (sa.n + sb.n - s.both_) AS strength,
                           row_number() OVER (PARTITION BY s.a ORDER BY s.both_ DESC) AS r
                    FROM shared s JOIN sizes sa ON sa.memory_id = s.a
                    JOIN sizes sb ON sb.memory_id = s.b)
            SELECT a, b, strength FROM scored WHERE r <= %s
        """, [memory_ids, LINKS_PER_MEMORY])
        return [(a, b, round(strength, 4)) for a, b, strength in cursor.fetchall()]


def _adjust_rankings(owner, since: datetime | None, dry_run: bool, now: datetime) -> int:
    """adjust_rankings: promote what agents cite, demote what they pass over, from the
    usage since the last consolidation."""
    events = UsageEvent.objects.filter(owner=owner, created_at__lt=now)
    if since is not None:
        events = events.filter(created_at__gte=since)
    counts: dict = {}
    for memory_id, kind, n in events.values_list("memory_id", "kind").annotate(n=Count("id")):
        counts.setdefault(memory_id, {})[kind] = n
    changed = 0
    for memory in Memory.objects.filter(pk__in=list(counts), status=Status.ACTIVE):
        c = counts[memory.pk]
        new = round(adjust_ranking(memory.importance, retrieved=c.get(UsageKind.RETRIEVED, 0),
                                   cited=c.get(UsageKind.CITED, 0),
                                   ignored=c.get(UsageKind.IGNORED, 0),
                                   helpful=c.get(UsageKind.HELPFUL, 0),
                                   harmful=c.get(UsageKind.HARMFUL, 0)), 3)
        if abs(new - memory.importance) < 1e-3:
            continue
        changed += 1
        if not dry_run:
            with transaction.atomic():
                Memory.objects.filter(pk=memory.pk).update(importance=new, updated_at=now)
                MemoryVersion.objects.create(
                    memory=memory, change=VersionChange.UPDATED, changed_at=now,
                    before={"importance": memory.importance},
                    after={"importance": new, "reason": "usage since the last consolidation"})
    return changed


def consolidate(*, owner=None, dry_run: bool = False, job: Job | None = None,
                now: datetime | None = None, on_progress=None,
                strategy: str = "age_based") -> dict:
    """Merge duplicates, summarise clusters, compress old episodes, link neighbours and
    adjust importance by usage; per owner and project. Originals are archived, never
    deleted, and every cluster is written in one transaction."""
    if strategy not in STRATEGIES:
        raise ValueError(f"Unknown strategy {strategy!r}: use {', '.join(STRATEGIES)}.")
    now = now or timezone.now()
    provider = get_provider()
    owners = [owner] if owner is not None else list(
        get_user_model().objects.filter(memories__status=Status.ACTIVE).distinct())
    report = {"strategy": strategy, "candidates": 0, "deduplicated": 0, "clusters": 0,
              "archived": 0, "consolidated_into": 0, "compressed": 0, "links_added": 0,
              "importance_adjusted": 0, "tokens_before": 0, "tokens_after": 0,
              "tokens_saved": 0, "examples": []}
    scopes = [(o, p) for o in owners for p in Memory.objects.filter(owner=o).values_list(
        "project", flat=True).distinct().order_by("project")]
    advance = progress_reporter(job, len(scopes), on_progress)
    for scope_owner, project in scopes:
        _consolidate_scope(scope_owner, project, strategy, provider, dry_run, now, report)
        advance(1)
    for scope_owner in owners:
        last = (Job.objects.filter(owner=scope_owner, kind=JobKind.CONSOLIDATE,
                                   status=JobStatus.DONE, dry_run=False)
                .order_by("-started_at").values_list("started_at", flat=True).first())
        report["importance_adjusted"] += _adjust_rankings(scope_owner, last, dry_run, now)
        report["compressed"] += _compress_old_episodes(scope_owner, dry_run, now)
    report["tokens_saved"] = report["tokens_before"] - report["tokens_after"]
    return report


def _consolidate_scope(owner, project, strategy, provider, dry_run, now, report) -> None:
    pool = _consolidation_pool(owner, project, provider.model_id)
    states = [ConsolidationState(pk, created_at, importance, count_tokens(content), pinned)
              for pk, created_at, importance, content, pinned in pool.values_list(
                  "pk", "created_at", "importance", "content", "pinned")]
    # Clustering compares every pair: a run takes a bounded share of a large backlog,
    # in the strategy's order, and the nightly runs work through the rest.
    chosen = [state.id for state in candidates(states, strategy, now)][:CONSOLIDATION_BATCH]
    by_id = pool.in_bulk(chosen)
    members = sorted(by_id.values(), key=lambda m: (m.created_at, str(m.pk)))  # keep originals
    report["candidates"] += len(members)
    if len(members) >= 2:
        vectors = np.array([m.embedding for m in members])
        ids = [m.pk for m in members]
        merged = set()
        for group in near_duplicate_groups(vectors, ids, [m.content for m in members]):
            report["deduplicated"] += len(group) - 1
            report["archived"] += len(group) - 1
            merged.update(group[1:])
            if not dry_run:
                _merge_duplicates([by_id[i] for i in group], now)
        rest = [m for m in members if m.pk not in merged]
        for group in cluster(np.array([m.embedding for m in rest]), [m.pk for m in rest]):
            originals = [by_id[i] for i in group]
            contents = [m.content for m in originals]
            summary = (extractive_summary(contents, max_tokens=summary_budget(
        [count_tokens(c) for c in contents])) if dry_run
                       else None)
            if not dry_run:
                summary, made_by = _summarise(owner, project, contents, now)
                _consolidate_cluster(originals, summary, made_by, now)
            report["clusters"] += 1
            report["archived"] += len(originals)
            report["consolidated_into"] += 1
            report["tokens_before"] += sum(count_tokens(c) for c in contents)
            report["tokens_after"] += count_tokens(summary)
            if len(report["examples"]) < 10:
                report["examples"].append({"originals": [str(i) for i in group],
                                           "summary": summary})
    report["links_added"] += _discover_links(owner, project, _unlinked(pool), provider, dry_run)


def _unlinked(pool) -> list[Memory]:
    """The newest memories with no related link yet: what link discovery has not seen."""
    related = MemoryLink.objects.filter(relation=LinkRelation.RELATED)
    return list(pool.exclude(pk__in=related.values("from_memory"))
                .exclude(pk__in=related.values("to_memory"))
                .order_by("-created_at")[:CONSOLIDATION_BATCH])


# --- Running a job -----------------------------------------------------------------------

# Each takes owner (None: everyone), dry_run, job and on_progress, and returns the result.
JOB_RUNNERS: dict[str, Callable[..., dict]] = {
    JobKind.CONTRADICTIONS: scan_contradictions,
    JobKind.FORGET: forget,
    JobKind.PURGE: purge,
    JobKind.CONSOLIDATE: consolidate,
    JobKind.REFLECT: reflection.reflect,
}


def run_job(job_id, *, on_progress=None) -> Job:
    """Run a queued job; a job already done is not run again."""
    job = Job.objects.select_related("owner").get(pk=job_id)
    if job.status == JobStatus.DONE:
        return job
    with running(job):
        job.result = JOB_RUNNERS[job.kind](owner=job.owner, dry_run=job.dry_run, job=job,
                                           on_progress=on_progress, **job.params)
    job.refresh_from_db()
    return job


def latest_job(owner, kind: str) -> Job | None:
    return Job.objects.for_owner(owner).filter(kind=kind).order_by("-created_at").first()


def queue_job(job: Job) -> None:
    """Run the job on the worker once the transaction that made it commits."""
    from .tasks import run_job as run_job_task

    services.queue_after_commit(run_job_task, str(job.pk))


def run_scheduled(kind: str) -> Job:
    """A scheduled run over every owner, recorded as a job like any other."""
    return run_job(create_job(kind).pk)

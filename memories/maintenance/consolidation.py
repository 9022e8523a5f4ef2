"""Consolidation ("Memory Consolidation Algorithm", "Consolidation Engine"): duplicates merge
first, clusters become one summary citing their archived originals, old episodes get their
compression levels, neighbours are linked, and importance follows usage. Originals are
archived, never deleted, and every cluster is written in one transaction."""

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from .. import llm_usage, selectors
from ..engine.consolidation import (
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
from ..engine.context import count_tokens
from ..jobs import progress_reporter
from ..models import (
    Job,
    JobKind,
    JobStatus,
    LinkRelation,
    Membership,
    Memory,
    MemoryLink,
    MemoryVersion,
    Project,
    Scope,
    Status,
    UsageEvent,
    UsageKind,
    VersionChange,
)
from ..providers.embeddings import get_provider
from ..providers.errors import ProviderError
from ..providers.llm import RulesProvider
from ..services.remembering import remember, validity_change, widened_validity

LINKS_PER_MEMORY = 5  # discover_connections: the strongest neighbours each memory links to
CONSOLIDATION_BATCH = 2000  # memories one run clusters, or looks for links, per project
NEIGHBOURS_BATCH = 200  # memories whose neighbours are fetched in one query
COMPRESS_BATCH = 1000  # old episodes read from the database at a time


@dataclass(frozen=True)
class Space:
    """An owner's memories that may merge with one another: of one scope, project name
    and shared project. A private memory never merges with a shared one, nor two
    projects' memories; a project's memories by different authors never merge here (a
    run works on the owner's own), only when written (remember()'s dedup)."""

    owner: object
    scope: str
    shared_with: Project | None
    project: str

    def memories(self):
        return Memory.objects.filter(owner=self.owner, scope=self.scope,
                                     shared_with=self.shared_with, project=self.project)


def _spaces(owner) -> list[Space]:
    """The owner's spaces it may still write in: a project they left or only read, and
    system memories once they are no longer staff, are left alone."""
    writing = set(Membership.objects.writers().filter(user=owner)
                  .values_list("project_id", flat=True))
    found = (Memory.objects.filter(owner=owner).values_list("scope", "shared_with", "project")
             .distinct().order_by("scope", "shared_with", "project"))
    projects = Project.objects.in_bulk(writing)
    return [Space(owner, scope, projects.get(shared_with), project)
            for scope, shared_with, project in found
            if (scope == Scope.PRIVATE or (scope == Scope.PROJECT and shared_with in writing)
                or (scope == Scope.SYSTEM and owner.is_staff))]


def _consolidation_pool(space: Space, model_id: str, now: datetime):
    """What may merge or be summarised: active memories that hold now (not superseded,
    expired or yet to start), on neither side of a contradiction a person is asked about.
    A resolved contradiction's loser, or next month's fact, summarised with its
    neighbours would reach agents as what holds now; a summary of both sides would
    settle the open one in a person's place."""
    return (space.memories().filter(status=Status.ACTIVE, is_synthetic=False,
                                    embedding_model=model_id)
            .current(now).undisputed().exclude(embedding__isnull=True)
            .order_by("created_at", "id"))


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


def _as_read(memories: list[Memory]) -> bool:
    """Whether these memories are still as the run read them, their rows held until the
    transaction ends: one a person edited, pinned, deleted or archived meanwhile (or a
    resolution superseded) was decided about, so its group is left to the next run."""
    # Rows locked in one order (the key's), as forgetting locks them: two runs never
    # wait on each other in a ring.
    stored = {pk: state for pk, *state in Memory.objects.select_for_update()
              .filter(pk__in=[m.pk for m in memories]).order_by("pk")
              .values_list("pk", "content_hash", "status", "pinned", "superseded_by")}
    return all(stored.get(m.pk) == [m.content_hash, Status.ACTIVE, False, None]
               for m in memories)


def _merge_duplicates(group: list[Memory], now: datetime) -> bool:
    keeper, repeats = group[0], group[1:]
    with transaction.atomic():
        if not _as_read(group):
            return False
        widened = widened_validity(keeper, repeats, now)  # the fact holds while any did
        Memory.objects.filter(pk=keeper.pk).update(
            access_count=F("access_count") + sum(m.access_count for m in repeats),
            helpful_count=F("helpful_count") + len(repeats),
            importance=max(m.importance for m in group), **widened)
        if widened:
            before, after = validity_change(keeper, widened)
            MemoryVersion.objects.create(memory=keeper, change=VersionChange.UPDATED,
                                         changed_at=now, before=before,
                                         after={**after, "reason": "duplicate merged"})
        _archive_into(repeats, keeper, "duplicate merged", now)
    return True


def _summarise(owner, project: str, contents: list[str], now: datetime) -> tuple[str, str]:
    """The cluster's summary by the configured model, else extractive (the rules)."""
    provider, _ = llm_usage.choose_provider(owner, project, now)
    try:
        judged = provider.summarize(contents)
    except ProviderError as exc:
        llm_usage.log_failed_call(owner, project, provider, exc, "summarize")
        provider = RulesProvider()
        judged = provider.summarize(contents)
    llm_usage.log_model_calls(owner, project, judged.calls)
    return judged.value.summary, provider.name


def _consolidate_cluster(space: Space, cluster: list[Memory], summary: str, made_by: str,
                         now: datetime) -> Memory | None:
    """One transaction per cluster: a killed run leaves it whole or untouched. The
    summary is written in the cluster's space; None when a memory of the cluster
    changed since it was read (_as_read)."""
    with transaction.atomic():
        if not _as_read(cluster):
            return None
        # Archived first, so that a summary worded like one of them is still a new memory.
        Memory.objects.filter(pk__in=[m.pk for m in cluster]).update(status=Status.ARCHIVED)
        result = remember(
            owner=space.owner, project=space.project, scope=space.scope,
            shared_with=space.shared_with, content=summary, now=now,
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
                               "index_key").iterator(chunk_size=COMPRESS_BATCH):
        due = compression_due(memory.created_at, now)
        summary, compressed, index_key = compress(memory.content)
        fields = {"summary": summary, "compressed": compressed, "index_key": index_key}
        changes = {k: v for k, v in fields.items() if k in due and not getattr(memory, k)}
        if changes:
            count += 1
            if not dry_run:
                Memory.objects.filter(pk=memory.pk).update(**changes)
    return count


def _discover_links(space: Space, memories: list[Memory], provider, dry_run: bool) -> int:
    """discover_connections: related links between memories close in meaning or naming
    the same entities, so graph recall has edges to walk; within the space (a project's
    memories of any author). Returns the links added."""
    pairs: dict[tuple, float] = {}
    shared_with = space.shared_with.pk if space.shared_with else None
    for start in range(0, len(memories), NEIGHBOURS_BATCH):
        batch = memories[start:start + NEIGHBOURS_BATCH]
        found = selectors.nearest_for_each(
            space.owner.pk, space.project, model_id=provider.model_id,
            dimensions=provider.dimensions, vectors=np.array([m.embedding for m in batch]),
            per_vector=LINKS_PER_MEMORY + 1, scope=space.scope, shared_with=shared_with)
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
    adjust importance by usage; per owner and space (scope, shared project, project name:
    Space). Originals are archived, never
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
    spaces = [space for o in owners for space in _spaces(o)]
    advance = progress_reporter(job, len(spaces), on_progress)
    for space in spaces:
        _consolidate_space(space, strategy, provider, dry_run, now, report)
        advance(1)
    for each in owners:
        last = (Job.objects.filter(owner=each, kind=JobKind.CONSOLIDATE,
                                   status=JobStatus.DONE, dry_run=False)
                .order_by("-started_at").values_list("started_at", flat=True).first())
        report["importance_adjusted"] += _adjust_rankings(each, last, dry_run, now)
        report["compressed"] += _compress_old_episodes(each, dry_run, now)
    report["tokens_saved"] = report["tokens_before"] - report["tokens_after"]
    return report


def _consolidate_space(space: Space, strategy, provider, dry_run, now, report) -> None:
    pool = _consolidation_pool(space, provider.model_id, now)
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
            merged.update(group[1:])
            if not dry_run and not _merge_duplicates([by_id[i] for i in group], now):
                continue
            report["deduplicated"] += len(group) - 1
            report["archived"] += len(group) - 1
        rest = [m for m in members if m.pk not in merged]
        for group in cluster(np.array([m.embedding for m in rest]), [m.pk for m in rest]):
            originals = [by_id[i] for i in group]
            contents = [m.content for m in originals]
            summary = (extractive_summary(contents, max_tokens=summary_budget(
        [count_tokens(c) for c in contents])) if dry_run
                       else None)
            if not dry_run:
                summary, made_by = _summarise(space.owner, space.project, contents, now)
                if _consolidate_cluster(space, originals, summary, made_by, now) is None:
                    continue
            report["clusters"] += 1
            report["archived"] += len(originals)
            report["consolidated_into"] += 1
            report["tokens_before"] += sum(count_tokens(c) for c in contents)
            report["tokens_after"] += count_tokens(summary)
            if len(report["examples"]) < 10:
                report["examples"].append({"originals": [str(i) for i in group],
                                           "summary": summary})
    report["links_added"] += _discover_links(space, _unlinked(pool), provider, dry_run)


def _unlinked(pool) -> list[Memory]:
    """The newest memories with no related link yet: what link discovery has not seen."""
    related = MemoryLink.objects.filter(relation=LinkRelation.RELATED)
    return list(pool.exclude(pk__in=related.values("from_memory"))
                .exclude(pk__in=related.values("to_memory"))
                .order_by("-created_at")[:CONSOLIDATION_BATCH])

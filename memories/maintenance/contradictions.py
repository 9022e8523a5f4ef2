"""Contradictions ("Contradiction Scanner"): new or edited memories are judged against their
nearest neighbours, by the model (verdicts cached per pair) or by the rules; people resolve
what conflicts, and resolving never deletes."""

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime

import numpy as np
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from .. import llm_usage, queue, selectors, signals
from ..engine.contradiction import JudgeVerdict, described, pair_key
from ..jobs import progress_reporter
from ..models import (
    MAX_NOTE_LENGTH,
    CheckDrain,
    Contradiction,
    ContradictionStatus,
    Job,
    JudgedPair,
    Kind,
    LinkRelation,
    Memory,
    MemoryLink,
    MemoryVersion,
    PendingCheck,
    Resolution,
    Scope,
    Status,
    VersionChange,
)
from ..providers.embeddings import get_provider
from ..providers.errors import ProviderError
from ..providers.llm import RulesProvider
from ..services.remembering import remember

NEIGHBOURS_CHECKED = 20  # "Contradiction Scanner": the neighbours a new memory is judged against
SCAN_BATCH = 200  # memories whose neighbours are fetched in one query during a full scan


def space_of(memory: Memory) -> tuple:
    """What a memory is compared with, as nearest_for_each's arguments: its author's
    private memories of its project, its project's memories of every author, or the
    system's memories of its project. Nothing is compared across scopes."""
    owner_id = memory.owner_id if memory.scope == Scope.PRIVATE else None
    return (owner_id, memory.project, memory.scope, memory.shared_with_id)


def _neighbours(memories: list[Memory]) -> dict:
    """memory id -> its nearest active memories in its space (space_of): one query per
    space for the whole batch."""
    provider = get_provider()
    groups: dict[tuple, list[Memory]] = {}
    for memory in memories:
        if memory.embedding is not None and memory.embedding_model == provider.model_id:
            groups.setdefault(space_of(memory), []).append(memory)
    near: dict = {}
    for (owner_id, project, scope, shared_with), group in groups.items():
        found = selectors.nearest_for_each(
            owner_id, project, model_id=provider.model_id, dimensions=provider.dimensions,
            vectors=np.array([m.embedding for m in group]),
            per_vector=NEIGHBOURS_CHECKED + 1, scope=scope, shared_with=shared_with)
        for memory, rows in zip(group, found, strict=True):
            near[memory.pk] = [pk for pk, _, _ in rows if pk != memory.pk][:NEIGHBOURS_CHECKED]
    others = Memory.objects.defer("embedding", "search_vector").in_bulk(
        {pk for ids in near.values() for pk in ids})
    return {pk: [others[i] for i in ids if i in others] for pk, ids in near.items()}


def _verdict(provider, memory: Memory, other: Memory, now: datetime) -> JudgeVerdict:
    """The cached verdict on the pair, or a new one from the judge (then cached)."""
    if isinstance(provider, RulesProvider):  # free and deterministic: nothing to cache
        return provider.judge(other.content, memory.content).value
    key = pair_key(memory.content_hash, other.content_hash)
    cached = JudgedPair.objects.filter(owner_id=memory.owner_id, pair_key=key,
                                       judged_by=provider.name).first()
    if cached:
        return JudgeVerdict(contradicts=cached.contradicts, reason=cached.reason,
                            confidence=cached.confidence)
    judged = provider.judge(other.content, memory.content)
    llm_usage.log_model_calls(memory.owner, memory.project, judged.calls)
    verdict = JudgeVerdict(contradicts=judged.value.contradicts, reason=described(judged.value),
                           confidence=judged.value.confidence)
    JudgedPair.objects.get_or_create(
        owner_id=memory.owner_id, pair_key=key, judged_by=provider.name,
        defaults={"contradicts": verdict.contradicts, "reason": verdict.reason,
                  "confidence": verdict.confidence, "judged_at": now})
    return verdict


def check_contradictions(memory_ids: Iterable, *, now: datetime | None = None,
                         dry_run: bool = False, advance=lambda n=1: None) -> list[Contradiction]:
    """Judge each memory against its nearest neighbours and record what contradicts.

    The model judge where one is configured (its verdicts cached per pair), the rules
    otherwise, and the rules too while the model is failing or over budget.
    """
    now = now or timezone.now()
    found = []
    # A memory superseded or ended no longer holds: its neighbours are judged against
    # what replaced it, and a person resolved what it disputed (an import or a scan
    # asks about every memory, ended ones too).
    memories = list(Memory.objects.filter(pk__in=list(memory_ids), status=Status.ACTIVE)
                    .not_ended(now).select_related("owner"))
    neighbours = _neighbours(memories)
    pairs = [pair for pair in pairs_in_order(memories, neighbours) if _worth_judging(*pair)]
    # progress counts a memory once its last pair is judged (those with none at once);
    # the judge is chosen when a memory's first pair comes up, so the budget and the
    # circuit breaker still apply between memories
    left = Counter(memory.pk for memory, _ in pairs)
    if len(memories) > len(left):
        advance(len(memories) - len(left))
    providers = {}
    for memory, other in pairs:
        if memory.pk not in providers:
            providers[memory.pk] = llm_usage.choose_provider(memory.owner, memory.project,
                                                             now)[0]
        provider = providers[memory.pk]
        try:
            verdict = _verdict(provider, memory, other, now)
        except ProviderError as exc:
            llm_usage.log_failed_call(memory.owner, memory.project, provider, exc, "judge")
            provider = providers[memory.pk] = RulesProvider()
            verdict = _verdict(provider, memory, other, now)
        if verdict.contradicts:
            found.append(_record(memory, other, provider.name, verdict, now, dry_run))
        left[memory.pk] -= 1
        if not left[memory.pk]:
            advance(1)
    return [c for c in found if c is not None]


def pairs_in_order(memories: Sequence[Memory], neighbours: dict) -> list[tuple]:
    """(memory, neighbour) pairs in one order for every caller, the pair's two ids sorted:
    a drain writes what it finds (verdicts, contradictions) in the transaction that holds
    its group, and two drains writing the same pairs in different orders deadlocked."""
    return sorted(((memory, other) for memory in memories
                   for other in neighbours.get(memory.pk, [])),
                  key=lambda pair: sorted((str(pair[0].pk), str(pair[1].pk))))


def _worth_judging(memory: Memory, other: Memory) -> bool:
    """Not two insights reflection wrote: each restates memories that are judged
    themselves, and one template over two topics ("Hot topic: bulk came up…" / "Hot
    topic: t0 came up…") reads as one statement set to two values."""
    return not (memory.kind == Kind.INSIGHT and other.kind == Kind.INSIGHT)


# A drain checks memories this many at a time, each group in its own transaction, and
# stops after DRAIN_SECONDS (or DRAIN_LIMIT memories) to queue itself again behind every
# other owner's work: the longest another owner's interactive check waits is one slice.
DRAIN_GROUP = 20
DRAIN_LIMIT = 200
DRAIN_SECONDS = 2.0


def check_pending(owner_id: int, *, now: datetime | None = None) -> int:
    """One slice of an owner's waiting checks (PendingCheck rows), interactive first;
    then the owner's drain is queued again if any remain. Returns how many were checked.

    Each group is checked and its rows deleted in one transaction that holds the rows
    (SKIP LOCKED): a worker killed mid-slice leaves the unfinished group waiting, and
    two drains of one owner never check the same memory.
    """
    started, done = time.monotonic(), 0
    while done < DRAIN_LIMIT and time.monotonic() - started < DRAIN_SECONDS:
        with transaction.atomic():
            group = list(PendingCheck.objects.select_for_update(skip_locked=True)
                         .filter(owner_id=owner_id).order_by("-interactive", "queued_at")
                         .values_list("memory_id", flat=True)[:DRAIN_GROUP])
            if not group:
                break
            check_contradictions(group, now=now)
            PendingCheck.objects.filter(memory_id__in=group).delete()
        done += len(group)
    with transaction.atomic():
        CheckDrain.objects.filter(owner_id=owner_id).delete()
        waiting = (PendingCheck.objects.filter(owner_id=owner_id)
                   .order_by("-interactive").values_list("interactive", flat=True).first())
    if waiting is not None:
        queue.drain_checks(owner_id, interactive=waiting)
    return done


def drain_stalled_checks() -> int:
    """The sweep: queue the drain of every owner whose checks wait without one (the queue
    was down, or a worker died holding it). Returns how many drains it queued."""
    owners = PendingCheck.objects.values_list("owner_id", flat=True).distinct()
    return sum(queue.drain_checks(owner_id, interactive=False) for owner_id in owners)


def _record(memory, other, judged_by, verdict: JudgeVerdict, now,
            dry_run) -> Contradiction | None:
    """Every contradicting verdict is kept with its confidence; the queue a person works
    through lists the confident ones (Contradiction.objects.confident())."""
    # The older memory is a, the newer b: "b wins" then reads as "the update holds".
    a, b = sorted((memory, other), key=lambda m: (m.created_at, str(m.pk)))
    # Between two memories of a project (of any authors), it is the project's: its
    # owners and editors work through it (Contradiction.objects.queued_for).
    contradiction = Contradiction(owner_id=memory.owner_id, memory_a=a, memory_b=b,
                                  shared_with_id=memory.shared_with_id,
                                  detected_at=now, detected_by=judged_by,
                                  reason=verdict.reason[:MAX_NOTE_LENGTH],
                                  confidence=verdict.confidence)
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


def may_resolve(contradiction: Contradiction, user) -> bool:
    """Whether `user` may decide it: a private one its owner, a project's its owners and
    editors (the contradictions queued for them), and only while they may change both
    memories (a pair found before a scope change may straddle two scopes)."""
    return (Contradiction.objects.queued_for(user).filter(pk=contradiction.pk).exists()
            and contradiction.memory_a.writable_by(user)
            and contradiction.memory_b.writable_by(user))


def resolve_contradiction(contradiction: Contradiction, *, resolution: str, note: str = "",
                          by=None, merged_content: str = "",
                          now: datetime | None = None) -> Contradiction:
    """Resolve without deleting: the loser is closed (`valid_to`, `superseded_by`); a
    merge stores a new memory that cites both and supersedes them.

    It takes effect in this transaction: recall, search and contexts stop serving the
    loser the moment it commits. Other open contradictions about a loser are closed
    with the reason, and the memory on their other side is judged again, against the
    winner among its neighbours.
    """
    now = now or timezone.now()
    if resolution not in Resolution.values:
        raise ResolutionError(f"Unknown resolution {resolution!r}.")
    if by is not None and not may_resolve(contradiction, by):
        raise selectors.NotAllowed(
            "Only the owners and editors of the project resolve its contradictions."
            if contradiction.shared_with_id else "This is another user's contradiction.")
    with transaction.atomic():
        # Locked, so two people resolving at once cannot both apply (a wins and b wins).
        contradiction = (Contradiction.objects.select_for_update()
                         .select_related("memory_a", "memory_b").get(pk=contradiction.pk))
        if contradiction.status == ContradictionStatus.RESOLVED:
            raise ResolutionError("This contradiction is already resolved.")
        a, b = contradiction.memory_a, contradiction.memory_b  # locked with it
        side, winner = {Resolution.A_WINS: ("A", a),
                        Resolution.B_WINS: ("B", b)}.get(resolution, ("", None))
        if winner is not None and winner.status != Status.ACTIVE:
            # the other side would be superseded by what no agent is handed any more
            raise ResolutionError(f"Memory {side} was {winner.status}: restore it before "
                                  "it can win, or resolve otherwise.")
        losers = []
        if resolution == Resolution.A_WINS:
            _supersede(b, a, by, now)
            losers = [(b, a)]
        elif resolution == Resolution.B_WINS:
            _supersede(a, b, by, now)
            losers = [(a, b)]
        elif resolution == Resolution.MERGED:
            if not merged_content.strip():
                raise ResolutionError("A merge needs the merged text.")
            # In the pair's scope; a project's merged text is written by who decided.
            merged = remember(
                owner=by or b.owner, content=merged_content, now=now,
                memory_type=b.memory_type, kind=b.kind, project=b.project,
                scope=b.scope, shared_with=b.shared_with,
                importance=max(a.importance, b.importance), tags=sorted({*a.tags, *b.tags}),
                metadata={"merged_from": [str(a.pk), str(b.pk)],
                          "contradiction": str(contradiction.pk)}).memory
            if merged.pk in (a.pk, b.pk):
                side = "A" if merged.pk == a.pk else "B"
                raise ResolutionError(f"The merged text says the same as memory {side}: "
                                      f"resolve with “{side} wins” instead.")
            MemoryLink.objects.bulk_create(
                [MemoryLink(from_memory=merged, to_memory=m, relation=LinkRelation.CITES)
                 for m in (a, b)], ignore_conflicts=True)
            _supersede(a, merged, by, now)
            _supersede(b, merged, by, now)
            contradiction.merged_into = merged
            losers = [(a, merged), (b, merged)]
        contradiction.status = ContradictionStatus.RESOLVED
        contradiction.resolution = resolution
        contradiction.note = note
        contradiction.resolved_by = by
        contradiction.resolved_at = now
        contradiction.save()
        _close_others_about(contradiction, losers, by, now)
    return contradiction


def _close_others_about(resolved: Contradiction, losers, by, now: datetime) -> None:
    """Open contradictions about a memory that no longer holds are moot: each is closed
    with its reason, and its other memory is queued to be judged again (its neighbours
    now hold the winner, not the loser)."""
    for loser, winner in losers:
        others = list(Contradiction.objects.select_for_update()
                      .filter(status=ContradictionStatus.OPEN)
                      .filter(Q(memory_a=loser) | Q(memory_b=loser)))
        for other in others:
            other.status = ContradictionStatus.RESOLVED
            other.resolved_by, other.resolved_at = by, now
            other.note = (f"Closed: memory {loser.pk} was superseded by {winner.pk} when "
                          f"contradiction {resolved.pk} was resolved.")
            other.save(update_fields=["status", "resolved_by", "resolved_at", "note"])
        if others:
            queue.check_contradictions([o.memory_b_id if o.memory_a_id == loser.pk
                                        else o.memory_a_id for o in others],
                                       interactive=True)


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
    signals.evidence_changed.send(
        sender=Memory, memory_ids=[loser.pk],
        reason=f"cited memory {loser.pk} was superseded by {winner.pk}")


def scan_contradictions(*, owner=None, dry_run: bool = False, job: Job | None = None,
                        now: datetime | None = None, on_progress=None) -> dict:
    """Check every active memory that still holds (of one owner, or all): the on-demand
    scan."""
    memories = Memory.objects.filter(status=Status.ACTIVE, embedding__isnull=False).not_ended(
        now or timezone.now())
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

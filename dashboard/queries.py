"""Reads the screens need beyond memories.selectors: a page of the memories a person reads
sorted four ways, a memory's standing, neighbours, usage and readable history, the
projects a person is a member of, and what the jobs, keys and settings screens list.
Memories are those the person reads (their private ones, their projects', the system's:
`Memory.objects.readable_by`); the rest is scoped to one owner.
"""

from collections import Counter, OrderedDict
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import (
    Count,
    ExpressionWrapper,
    F,
    FloatField,
    OuterRef,
    Q,
    Subquery,
    Value,
    prefetch_related_objects,
)
from django.db.models.functions import Extract, Greatest, Least, Now, Power, TruncDate
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.safestring import SafeString

from memories.engine.importance import effective_importance
from memories.engine.ranking import recency
from memories.models import (
    ApiKey,
    ChunkStatus,
    Contradiction,
    ContradictionStatus,
    Entity,
    LinkRelation,
    Memory,
    MemoryEntity,
    MemoryLink,
    Observation,
    ObservationChunk,
    Status,
    UsageEvent,
    UsageKind,
    Validity,
    VersionChange,
    readable_by,
)
from memories.providers.embeddings import get_provider
from memories.selectors import (
    NotAllowed,
    RecallFilters,
    projects_of,
    require_writable,
    successors_hidden,
    versions_seen_by,
    with_members,
)
from memories.services.embeddings import count_to_reembed
from memories.services.recall import recall

from .text import word_diff

HEAVY_COLUMNS = ("embedding", "search_vector")


HISTORY_SHOWN = 50


USAGE_DAYS_SHOWN = 30


def readable_memories(user, *, scope: str | None = None):
    """The memories `user` reads, with their authors and projects and without their
    vectors (deleted ones too: they can be undone); of one scope when given."""
    memories = (Memory.objects.readable_by(user).defer(*HEAVY_COLUMNS)
                .select_related("owner", "shared_with"))
    return memories.filter(scope=scope) if scope else memories


def still_readable(user, memory: Memory | None) -> Memory | None:
    """`memory` while `user` reads it, else None: one shown beside another (a merge's
    result) may have moved out of their sight since."""
    if memory is None or not Memory.objects.readable_by(user).filter(pk=memory.pk).exists():
        return None
    return memory


def memory_for(user, memory_id) -> Memory:
    """A memory `user` reads, or 404: a memory they may not read does not exist."""
    return get_object_or_404(readable_memories(user), pk=memory_id)


def read_only_reason(memory: Memory, user) -> str:
    """Why `user`, who reads `memory`, may not change it (the services' own refusal);
    empty when they may."""
    try:
        require_writable(memory, user)
    except NotAllowed as refusal:
        return str(refusal)
    return ""


def writable_memory_for(user, memory_id) -> Memory:
    """A memory `user` may change; 404 when they may not read it, 403 when they only
    read it (a reader of its project, or a system memory for someone not staff)."""
    memory = memory_for(user, memory_id)
    if reason := read_only_reason(memory, user):
        raise NotAllowed(reason)
    return memory


def writable_ids(user, ids) -> set:
    """Those of `ids` that `user` may change, in one query."""
    return set(Memory.objects.writable_by(user).filter(pk__in=list(ids))
               .values_list("pk", flat=True))


def open_contradiction_of(user, memory: Memory) -> Contradiction | None:
    """The open contradiction this memory is part of, when it is in `user`'s queue."""
    return (Contradiction.objects.queued_for(user).confident().not_moot()
            .filter(Q(memory_a=memory) | Q(memory_b=memory), status=ContradictionStatus.OPEN)
            .only("id").first())


# The list's "score" without a query: importance with feedback, decayed by the hours
# since the memory was last used, as recall's recency and importance factors see it.
_HOURS_SINCE_USED = Extract(Now() - F("last_accessed_at"), "epoch") / Value(3600.0)


STRENGTH = ExpressionWrapper(
    Least(Value(10.0), Greatest(Value(0.0), F("importance")
                                + (F("helpful_count") - F("harmful_count")) * Value(0.5)))
    * Power(Value(0.995), Greatest(Value(0.0), _HOURS_SINCE_USED)),
    output_field=FloatField(),
)


SORTS = {
    "recent": ("-created_at", "-id"),
    "importance": ("-importance", "-created_at", "-id"),
    "used": ("-access_count", "-last_accessed_at", "-id"),
    "score": ("-strength", "-created_at", "-id"),
}


def sorted_memories(memories, sort: str):
    if sort == "score":
        memories = memories.annotate(strength=STRENGTH)
    return memories.order_by(*SORTS[sort])


def strength(memory: Memory, now: datetime | None = None) -> dict:
    """The parts of a memory's standing that do not depend on a query."""
    now = now or timezone.now()
    effective = effective_importance(memory.importance, memory.helpful_count,
                                     memory.harmful_count)
    fresh = recency(memory.last_accessed_at, now)
    return {"importance": memory.importance, "effective_importance": effective,
            "recency": fresh, "score": effective * fresh}


def search(user, query: str, filters: dict, sort: str, *, limit: int,
           scope: str | None = None) -> list:
    """recall's hits among what `user` reads that match as much as a context asks
    (ENGRAM_CONTEXT_MIN_SCORE), for the list's filters (as listed takes them) and scope,
    with their authors, without counting as a retrieval: a person looking is not an agent
    using a memory."""
    status, pinned, validity = filters["status"], filters["pinned"], filters["validity"]
    now = timezone.now()
    recall_filters = RecallFilters(
        include_superseded=validity != Validity.CURRENT,
        memory_types=tuple(filters["memory_type"]), kinds=tuple(filters["kind"]),
        tags=tuple(filters["tag"]), project=filters["project"],
        shared_with=filters["shared_with"],
        created_after=filters["created_after"], created_before=filters["created_before"],
        include_archived=Status.ACTIVE not in status or Status.ARCHIVED in status)
    hits = recall(owner=user, query=query, limit=limit, filters=recall_filters,
                  track=False, now=now)
    # What matches too little to be put in an agent's context is no hit for a person
    # either: a query about nothing stored finds nothing, not the store's best 40.
    hits = [h for h in hits if h.breakdown.match >= settings.ENGRAM_CONTEXT_MIN_SCORE]
    # recall knows no "pinned" nor scope and never returns deleted memories; beyond
    # "current" it knows only "everything".
    hits = [h for h in hits if (not status or h.memory.status in status)
            and (pinned is None or h.memory.pinned == pinned)
            and (not scope or h.memory.scope == scope)
            and validity in ("all", h.memory.validity_at(now))]
    prefetch_related_objects([h.memory for h in hits], "owner", "shared_with")
    return sort_hits(hits, sort)


def sort_hits(hits: list, sort: str) -> list:
    """Search hits come best first; the other sorts reorder them."""
    keys = {
        "recent": lambda h: h.memory.created_at,
        "importance": lambda h: h.memory.importance,
        "used": lambda h: h.memory.access_count,
    }
    return sorted(hits, key=keys[sort], reverse=True) if sort in keys else hits


OUTGOING = {
    LinkRelation.RELATED: "related to", LinkRelation.SUPERSEDES: "supersedes",
    LinkRelation.CONTRADICTS: "contradicts", LinkRelation.ELABORATES: "elaborates",
    LinkRelation.CITES: "cites", LinkRelation.CONSOLIDATED_INTO: "consolidated into",
}


INCOMING = {
    LinkRelation.RELATED: "related to", LinkRelation.SUPERSEDES: "superseded by",
    LinkRelation.CONTRADICTS: "contradicted by", LinkRelation.ELABORATES: "elaborated by",
    LinkRelation.CITES: "cited by", LinkRelation.CONSOLIDATED_INTO: "consolidated from",
}


@dataclass
class Neighbour:
    label: str
    memory: Memory
    strength: float


def neighbours(memory: Memory, user) -> list[Neighbour]:
    """Memories linked to this one that `user` reads, in either direction, in one query
    (a project memory's link to its author's private one stays out of the others' sight)."""
    fields = ["relation", "strength", "from_memory", "to_memory"]
    for side in ("from_memory", "to_memory"):
        fields += [f"{side}__{name}" for name in ("id", "content", "kind", "status", "owner")]
    links = (MemoryLink.objects
             .filter(Q(from_memory=memory) | Q(to_memory=memory))
             .filter(readable_by(user, "from_memory__"), readable_by(user, "to_memory__"))
             .select_related("from_memory", "to_memory").only(*fields)
             .order_by("relation", "-strength", "id"))
    found = []
    for link in links:
        if link.from_memory_id == memory.pk:
            found.append(Neighbour(OUTGOING.get(link.relation, link.relation),
                                   link.to_memory, link.strength))
        else:
            found.append(Neighbour(INCOMING.get(link.relation, link.relation),
                                   link.from_memory, link.strength))
    return found


def entities(memory: Memory, user):
    """The memory's entities, each with its mentions among the memories `user` reads (an
    entity's own count takes in its author's private memories too)."""
    return list(Entity.objects.filter(pk__in=MemoryEntity.objects.filter(memory=memory)
                                      .values("entity"))
                .annotate(mentions=Count("memoryentity", filter=readable_by(
                    user, "memoryentity__memory__")))
                .only("name", "entity_type").order_by("name"))


USAGE_KINDS = [k.value for k in UsageKind]


@dataclass
class Usage:
    totals: dict[str, int]
    days: list[tuple]  # (date, {kind: count}, total), newest first
    busiest: int


def usage(memory: Memory) -> Usage:
    """UsageEvents per day and kind, in one grouped query."""
    rows = (UsageEvent.objects.filter(memory=memory)
            .annotate(day=TruncDate("created_at")).values("day", "kind")
            .annotate(n=Count("id")).order_by("-day"))
    totals = dict.fromkeys(USAGE_KINDS, 0)
    days: OrderedDict = OrderedDict()
    for row in rows:
        totals[row["kind"]] = totals.get(row["kind"], 0) + row["n"]
        days.setdefault(row["day"], dict.fromkeys(USAGE_KINDS, 0))[row["kind"]] = row["n"]
    shown = [(day, counts, sum(counts.values()))
             for day, counts in list(days.items())[:USAGE_DAYS_SHOWN]]
    return Usage(totals, shown, max((total for *_, total in shown), default=0))


@dataclass
class Change:
    name: str
    before: object = None
    after: object = None
    diff: SafeString | None = None


@dataclass
class HistoryEntry:
    version: object
    changes: list[Change] = field(default_factory=list)


def _changes(version) -> list[Change]:
    before, after = version.before or {}, version.after or {}
    if version.change == VersionChange.CREATED:
        return [Change("content", after=after.get("content", ""))]
    if version.change == VersionChange.REINFORCED:  # and the validity it widened
        return [Change("duplicate", after=after.get("content", ""),
                       before=after.get("similarity")),
                *(Change(name, before.get(name), after[name])
                  for name in ("valid_from", "expires_at") if name in after)]
    changes = []
    for name in after:
        if name == "content":
            changes.append(Change(name, before.get(name), after[name],
                                  word_diff(before.get(name, ""), after[name])))
        elif name == "tags":
            old, new = set(before.get(name) or []), set(after[name] or [])
            changes.append(Change(name, sorted(old - new), sorted(new - old)))
        else:
            changes.append(Change(name, before.get(name), after[name]))
    return changes


def history(memory: Memory, user) -> tuple[list[HistoryEntry], bool]:
    """The newest versions `user` may read (selectors.versions_seen_by) with what each
    changed; True when older ones are not shown."""
    versions = successors_hidden(versions_seen_by(memory, user)
                                 .order_by("-changed_at", "-id")[:HISTORY_SHOWN + 1], user)
    return ([HistoryEntry(v, _changes(v)) for v in versions[:HISTORY_SHOWN]],
            len(versions) > HISTORY_SHOWN)



def recent_observations(owner, *, limit: int = 15):
    """The latest extraction work from /observe, with its chunks counted by status and
    the error of its first failed chunk (the error of cutting it is in its notes)."""
    by_status = {f"chunks_{status}": Count("chunks", filter=Q(chunks__status=status))
                 for status in ChunkStatus.values}
    first_failure = (ObservationChunk.objects
                     .filter(observation=OuterRef("pk"), status=ChunkStatus.FAILED)
                     .order_by("position").values("last_error")[:1])
    return (Observation.objects.for_owner(owner)
            .only("id", "project", "agent_id", "session_id", "status", "memories_created",
                  "memories_strengthened", "created_at", "processed_at", "notes")
            .annotate(chunks_total=Count("chunks"), first_failure=Subquery(first_failure),
                      **by_status)
            .order_by("-created_at")[:limit])


def project_labels(user) -> dict:
    """The projects `user` is a member of, by id: each one's name, with its creator's when
    another of them has that name too (bob's "shop" beside alice's), in name order."""
    projects = list(projects_of(user))
    names = Counter(project.name for project in projects)
    return {project.pk: project.name if names[project.name] == 1
            else f"{project.name} (by {project.creator_name})" for project in projects}


def label_projects(labels: dict, projects) -> None:
    """Give each of `projects` (None skipped) its `label` from `project_labels`; one the
    person is no longer a member of keeps its name."""
    for project in projects:
        if project is not None:
            project.label = labels.get(project.pk, project.name)


def projects_with_members(user) -> list:
    """The projects `user` is a member of now (`role`: theirs), each with its current
    `members` (memberships with their users): two queries."""
    return list(with_members(projects_of(user)))


def project_for(user, project_id):
    """A project `user` is a member of now (`role`: theirs), or 404: to anyone else it
    does not exist."""
    return get_object_or_404(projects_of(user), pk=project_id)


def api_keys_of(owner):
    return ApiKey.objects.filter(owner=owner).order_by(
        F("revoked_at").desc(nulls_first=True), "-created_at")


THRESHOLDS = [
    ("Deduplication", [
        ("ENGRAM_DEDUP_THRESHOLD", "cosine at which a new memory strengthens an existing one"),
        ("ENGRAM_DEDUP_STRICT", "merge only when both texts carry the same details"),
        ("ENGRAM_EXTRACTION_DEDUP_THRESHOLD", "cosine at which an extracted memory merges"),
        ("ENGRAM_ENTITY_MERGE_THRESHOLD", "cosine at which two entity names are one entity"),
    ]),
    ("Retrieval", [
        ("ENGRAM_CANDIDATES", "candidates each list (meaning, keywords) contributes"),
        ("ENGRAM_FUSION", "how meaning and keywords are fused"),
        ("ENGRAM_FUSION_ALPHA", "weight of meaning against keywords (convex fusion)"),
        ("ENGRAM_COSINE_FLOOR", "cosine that counts as no similarity"),
        ("ENGRAM_KEYWORD_GATE", "keyword coverage from which keywords count"),
        ("ENGRAM_KEYWORD_GATE_FULL", "keyword coverage at which keywords count fully"),
        ("ENGRAM_GRAPH_DECAY", "share of relevance passed along each link"),
        ("ENGRAM_RANK_WEIGHTS", "weights of recency, importance and relevance"),
        ("ENGRAM_RANKER", "learned ranker, or the hand-set fusion alone (weights)"),
    ]),
    ("Context", [
        ("ENGRAM_CONTEXT_MIN_SCORE", "least match a memory needs to enter a context"),
        ("ENGRAM_TIER_THRESHOLD", "budget (tokens) from which the four tiers are used"),
        ("ENGRAM_INSIGHTS_NEED_APPROVAL", "insights enter contexts only once approved"),
        ("ENGRAM_FEEDBACK_INTERVAL",
         "seconds between two helpful / harmful votes of one person's agent on one memory"),
    ]),
    ("Capture", [
        ("ENGRAM_CAPTURE_MAX_CHARS", "characters kept of each message or tool event"),
        ("ENGRAM_CAPTURE_MAX_ITEMS", "messages and tool events accepted per /observe"),
        ("ENGRAM_CAPTURE_SKIP_TOOLS", "tools whose events are dropped"),
        ("ENGRAM_CAPTURE_SKIP_PATHS", "file paths whose events are dropped"),
        ("ENGRAM_CAPTURE_MAX_ATTEMPTS", "model attempts per chunk before the rules extract it"),
        ("ENGRAM_CAPTURE_MAX_FAILURES", "attempts per chunk before a failing one waits for a person"),
    ]),
    ("Forgetting", [
        ("ENGRAM_FORGET_HALF_LIFE_DAYS", "half-life of an unused episode, in days"),
        ("ENGRAM_FORGET_THRESHOLD", "decayed importance below which a memory is forgotten"),
        ("ENGRAM_FORGET_PROTECT_DAYS", "days a cited or helpful memory is never forgotten"),
        ("ENGRAM_PURGE_AFTER_DAYS", "days a forgotten memory stays restorable"),
    ]),
    ("Model use", [
        ("ENGRAM_LLM_DAILY_TOKENS", "tokens per owner per UTC day, all projects (the budget)"),
        ("ENGRAM_LLM_BREAKER_FAILURES", "failures in a row that open the circuit breaker"),
        ("ENGRAM_LLM_BREAKER_COOLDOWN", "seconds the breaker stays open"),
        ("ENGRAM_LLM_TIMEOUT", "seconds before a model call gives up"),
        ("ENGRAM_LLM_GATE_MODEL", "the cheap model that gates chunks (empty: the provider's)"),
        ("ENGRAM_LLM_EXTRACT_MODEL", "the model that extracts (empty: the provider's)"),
    ]),
]


def _shown(value) -> str:
    if is_dataclass(value):
        return ", ".join(f"{f.name} {getattr(value, f.name):g}" for f in fields(value))
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "not set" if value is None else str(value)


def thresholds_in_force() -> list[tuple[str, list[dict]]]:
    return [(group, [{"name": name, "meaning": meaning,
                      "value": _shown(getattr(settings, name, None))}
                     for name, meaning in rows]) for group, rows in THRESHOLDS]


def embedding_status(owner) -> dict:
    return {**get_provider().describe(),
            "memories_to_reembed": count_to_reembed(owner)}

"""Reads and small writes for the dashboard, on top of services and selectors.

What a screen needs that the API does not: a page of memories sorted four ways, a
memory's neighbours, usage and readable history, bulk changes with an undo, keyword
highlights, and a context preview that does not count as a retrieval.
"""

import difflib
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime

import snowballstemmer
from django.db import transaction
from django.db.models import Count, ExpressionWrapper, F, FloatField, Q, Value
from django.db.models.functions import Extract, Greatest, Least, Now, Power, TruncDate
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from . import selectors, services
from .engine.importance import effective_importance
from .engine.ranking import recency
from .models import (
    Entity,
    LinkRelation,
    Memory,
    MemoryLink,
    Status,
    UsageEvent,
    UsageKind,
    VersionChange,
)
from .providers.embeddings import get_provider
from .providers.errors import ProviderError

HEAVY_COLUMNS = ("embedding", "search_vector")
HISTORY_SHOWN = 50
USAGE_DAYS_SHOWN = 30


# --- Finding one's own memories ---------------------------------------------------------


def own_memories(owner):
    """The owner's memories without their vectors (deleted ones too: they can be undone)."""
    return Memory.objects.for_owner(owner).defer(*HEAVY_COLUMNS)


def memory_for(owner, memory_id) -> Memory:
    """One of the owner's memories, or 404: another person's memory does not exist."""
    return get_object_or_404(own_memories(owner), pk=memory_id)


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


def search(owner, query: str, filters: dict, sort: str, *, limit: int) -> list:
    """recall's hits for the list's filters (as selectors.listed takes them), without
    counting as a retrieval: a person looking is not an agent using a memory."""
    status, pinned = filters["status"], filters["pinned"]
    recall_filters = selectors.RecallFilters(
        memory_types=tuple(filters["memory_type"]), kinds=tuple(filters["kind"]),
        tags=tuple(filters["tag"]), project=filters["project"],
        created_after=filters["created_after"], created_before=filters["created_before"],
        include_archived=Status.ACTIVE not in status or Status.ARCHIVED in status)
    hits = services.recall(owner=owner, query=query, limit=limit, filters=recall_filters,
                           track=False)
    # recall knows no "pinned" and never returns deleted memories.
    hits = [h for h in hits if (not status or h.memory.status in status)
            and (pinned is None or h.memory.pinned == pinned)]
    return sort_hits(hits, sort)


def sort_hits(hits: list, sort: str) -> list:
    """Search hits come best first; the other sorts reorder them."""
    keys = {
        "recent": lambda h: h.memory.created_at,
        "importance": lambda h: h.memory.importance,
        "used": lambda h: h.memory.access_count,
    }
    return sorted(hits, key=keys[sort], reverse=True) if sort in keys else hits


# --- Keyword highlights -----------------------------------------------------------------

_WORD = re.compile(r"(\w+)", re.UNICODE)
_stemmer = snowballstemmer.stemmer("english")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "i", "in",
    "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "will",
    "with",
})


def query_stems(query: str) -> frozenset[str]:
    words = [w.lower() for w in _WORD.findall(query or "")]
    return frozenset(_stemmer.stemWord(w) for w in words if w not in _STOP)


def highlight(text: str, stems: frozenset[str]) -> SafeString:
    """`text`, escaped, with each word that shares a stem with the query in <mark>.

    The text is split into words first and every piece is escaped on its own, so a
    query word can never match inside an HTML entity or tag.
    """
    if not stems:
        return escape(text)
    pieces = []
    for i, piece in enumerate(_WORD.split(text)):
        if i % 2 and _stemmer.stemWord(piece.lower()) in stems:
            pieces.append(format_html("<mark>{}</mark>", piece))
        else:
            pieces.append(escape(piece))
    return mark_safe("".join(pieces))


# --- A memory's neighbours, entities, usage and history ---------------------------------

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


def neighbours(memory: Memory) -> list[Neighbour]:
    """Memories linked to this one, in either direction, in one query."""
    fields = ["relation", "strength", "from_memory", "to_memory"]
    for side in ("from_memory", "to_memory"):
        fields += [f"{side}__{name}" for name in ("id", "content", "kind", "status", "owner")]
    links = (MemoryLink.objects
             .filter(Q(from_memory=memory) | Q(to_memory=memory))
             .filter(from_memory__owner_id=memory.owner_id, to_memory__owner_id=memory.owner_id)
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


def entities(memory: Memory):
    return list(Entity.objects.filter(memoryentity__memory=memory)
                .only("name", "entity_type", "mention_count").order_by("name"))


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


def word_diff(before: str, after: str) -> SafeString:
    """A readable, escaped word-level diff: removed words in <del>, added in <ins>."""
    old, new = re.split(r"(\s+)", before or ""), re.split(r"(\s+)", after or "")
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new,
                                                      autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            out.append(format_html("<del>{}</del>", "".join(old[i1:i2])))
        if op in ("insert", "replace"):
            out.append(format_html("<ins>{}</ins>", "".join(new[j1:j2])))
        if op == "equal":
            out.append(escape("".join(old[i1:i2])))
    return mark_safe("".join(out))


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
    if version.change == VersionChange.REINFORCED:
        return [Change("duplicate", after=after.get("content", ""),
                       before=after.get("similarity"))]
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


def history(memory: Memory) -> tuple[list[HistoryEntry], bool]:
    """The newest versions with what each changed; True when older ones are not shown."""
    versions = list(memory.versions.select_related("changed_by")
                    .order_by("-changed_at", "-id")[:HISTORY_SHOWN + 1])
    return ([HistoryEntry(v, _changes(v)) for v in versions[:HISTORY_SHOWN]],
            len(versions) > HISTORY_SHOWN)


# --- Writes -------------------------------------------------------------------------------


def add_tag(memory: Memory, tag: str, *, by) -> Memory:
    return services.update_memory(memory, by=by, tags=[*memory.tags, tag])


@dataclass
class BulkResult:
    action: str
    changed: list = field(default_factory=list)  # ids
    message: str = ""


def bulk_change(owner, ids, *, action: str, tag: str = "", by) -> BulkResult:
    """Tag, archive, delete or re-embed the owner's memories among `ids` (others are
    ignored: a person can only ever touch their own)."""
    memories = list(own_memories(owner).filter(pk__in=ids).exclude(status=Status.DELETED)
                    .order_by("-created_at"))
    result = BulkResult(action)
    if action == "reembed":
        return _reembed(memories, result)
    with transaction.atomic():
        for memory in memories:
            if action == "tag":
                memory = add_tag(memory, tag, by=by)
            elif action == "archive":
                memory = services.update_memory(memory, by=by, status=Status.ARCHIVED)
            elif action == "delete":
                memory = services.delete_memory(memory, by=by)
            result.changed.append(memory.pk)
    done = {"tag": f"Tagged {{n}} {{memories}} “{tag}”.", "archive": "Archived {n} {memories}.",
            "delete": "Deleted {n} {memories}."}[action]
    result.message = done.format(n=len(memories),
                                 memories="memory" if len(memories) == 1 else "memories")
    return result


def _reembed(memories: list[Memory], result: BulkResult) -> BulkResult:
    ids = [m.pk for m in memories]
    try:
        embedded = services.embed_memories(ids, new_content=False)
    except ProviderError:
        from .tasks import embed_memories

        embedded = None
        embed_memories([str(pk) for pk in ids])
    result.changed = ids
    if embedded is None:
        result.message = (f"The embedding provider is not answering: {len(ids)} queued "
                          "for re-embedding.")
    else:
        current = len(ids) - embedded
        result.message = (f"Re-embedded {embedded} of {len(ids)} with "
                          f"{get_provider().model_id}"
                          + (f"; {current} already had its vector." if current else "."))
    return result


def bulk_undo_delete(owner, ids, *, by) -> int:
    memories = list(own_memories(owner).filter(pk__in=ids, status=Status.DELETED))
    with transaction.atomic():
        for memory in memories:
            services.restore_memory(memory, by=by)
    return len(memories)


# --- Context preview ----------------------------------------------------------------------

def preview_context(*, owner, query: str, max_tokens: int, fmt: str, project: str | None,
                    session_id: str = "") -> services.AssembledContext:
    """What an agent asking this would receive. A person previewing a context must not
    change access counts, recency or a session's "already seen" list."""
    return services.assemble_context(
        owner=owner, query=query, max_tokens=max_tokens, fmt=fmt, session_id=session_id,
        filters=selectors.RecallFilters(project=project or None), track=False)

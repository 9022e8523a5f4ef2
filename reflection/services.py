"""Reflection (seed 000, Algorithms 6 to 9): the trigger state, reflecting, and review.

`reflect()` asks questions about the last 100 memories an owner reads (their private
ones, their projects', system ones), answers each from the memories relevant to it
(recall, over the same union) with insights that cite them, refines the important ones,
and stores each as a private synthetic semantic memory (importance 8) of the reflecting
user that "cites" its evidence: an insight drawn from a project is its reader's own
thought, not the project's.
Reflection never feeds on synthetic memories, so insights never breed insights. It is
idempotent: an insight whose text and cited memories were produced before is not
stored again, and one that an existing memory already says (remember()'s dedup) is
not stored at all.

The core never calls in here: it sends signals (memories.signals), which
reflection/receivers.py connects to the trigger counters and to flagging insights, and
the job registry names `reflect` by its dotted path.
"""

import logging
from collections import Counter
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from memories import llm_usage, selectors
from memories.engine import reflection as engine
from memories.engine.dedup import content_hash
from memories.jobs import progress_reporter
from memories.models import (
    Kind,
    LinkRelation,
    Memory,
    MemoryEntity,
    MemoryLink,
    MemoryType,
    MemoryVersion,
    Status,
    VersionChange,
)
from memories.providers.errors import ProviderError
from memories.providers.llm import RulesProvider
from memories.services.editing import update_memory
from memories.services.recall import recall
from memories.services.remembering import DuplicateMemory, remember

from .models import Insight, InsightStatus, ReflectionState, cited_key

log = logging.getLogger(__name__)

MAX_EXAMPLES = 20  # insights listed in a job's result


# --- The trigger state --------------------------------------------------------------------


def thresholds() -> dict:
    return {
        "importance_threshold": getattr(settings, "ENGRAM_REFLECTION_IMPORTANCE",
                                        engine.IMPORTANCE_THRESHOLD),
        "observation_threshold": getattr(settings, "ENGRAM_REFLECTION_OBSERVATIONS",
                                         engine.OBSERVATION_THRESHOLD),
        "max_hours": getattr(settings, "ENGRAM_REFLECTION_HOURS", engine.MAX_HOURS),
    }


def _bump(owner, *, importance: float = 0.0, observations: int = 0) -> None:
    """One statement: create the owner's state or add to it."""
    table = ReflectionState._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} AS s (owner_id, accumulated_importance, observations_since,"
            f" last_reason, created_at) VALUES (%s, %s, %s, '', %s)"
            f" ON CONFLICT (owner_id) DO UPDATE SET"
            f" accumulated_importance = s.accumulated_importance"
            f" + EXCLUDED.accumulated_importance,"
            f" observations_since = s.observations_since + EXCLUDED.observations_since",
            [getattr(owner, "pk", owner), importance, observations, timezone.now()])


def note_new_memories(owner, importances) -> None:
    """Count newly stored (not synthetic) memories towards the importance trigger."""
    importances = list(importances)
    if importances:
        _bump(owner, importance=float(sum(importances)))


def note_observation(owner, count: int = 1) -> None:
    """Count an observation an agent handed over towards the observation trigger."""
    if count:
        _bump(owner, observations=count)


def recommendation(owner, now: datetime | None = None) -> dict:
    """Whether reflection is recommended for `owner` now, why, and the state behind it."""
    now = now or timezone.now()
    state = ReflectionState.objects.filter(owner=owner).first()
    limits = thresholds()
    accumulated = state.accumulated_importance if state else 0.0
    observations = state.observations_since if state else 0
    since = state.clock_started_at if state else None
    due, reason = engine.should_reflect(accumulated, observations, since, now, **limits)
    hours = (now - since).total_seconds() / 3600 if since else None
    return {
        "recommended": due,
        "reason": reason,
        "message": engine.describe_trigger(reason, accumulated_importance=accumulated,
                                           observations=observations, hours_since=hours,
                                           **limits),
        "accumulated_importance": accumulated,
        "observations_since": observations,
        "last_reflected_at": state.last_reflected_at if state else None,
        "last_reason": state.last_reason if state else "",
        "thresholds": limits,
    }


def _reset(owner, seen: ReflectionState | None, reason: str, now: datetime) -> None:
    """Take away what this reflection saw; what arrived meanwhile still counts."""
    importance = seen.accumulated_importance if seen else 0.0
    observations = seen.observations_since if seen else 0
    _bump(owner)
    ReflectionState.objects.filter(owner=owner).update(
        accumulated_importance=Greatest(F("accumulated_importance") - importance, 0.0),
        observations_since=Greatest(F("observations_since") - observations, 0),
        last_reflected_at=now, last_reason=reason)


# --- Reflecting ---------------------------------------------------------------------------


def _recent(owner, now: datetime) -> list[Memory]:
    """The last memories the owner reads that reflection may feed on (their own private
    ones, their projects' of every author, system ones): active, holding now (not
    superseded, expired or not yet valid), not synthetic. Newest first."""
    return list(Memory.objects.readable_by(owner).active().current(now)
                .filter(is_synthetic=False)
                .defer("embedding", "search_vector")
                .order_by("-created_at", "-id")[:engine.RECENT_MEMORIES])


def _shown(memories: list[Memory]) -> list[engine.ReflectionMemory]:
    entities: dict = {}
    for memory_id, name in (MemoryEntity.objects.filter(memory__in=[m.pk for m in memories])
                            .order_by("entity__name").values_list("memory_id", "entity__name")):
        entities.setdefault(memory_id, []).append(name)
    return [engine.ReflectionMemory(id=m.pk, content=m.content, kind=m.kind,
                                    tags=tuple(m.tags), entities=tuple(entities.get(m.pk, ())))
            for m in memories]


def _usable(memory: Memory) -> bool:
    return (not memory.is_synthetic and memory.status == Status.ACTIVE
            and memory.superseded_by_id is None)


def _relevant(owner, question: engine.Question, recent: list[Memory],
              now: datetime) -> list[Memory]:
    """The memories that prompted the question, then those recall finds for it."""
    found = {recent[n - 1].pk: recent[n - 1] for n in question.about if 1 <= n <= len(recent)}
    try:
        hits = recall(owner=owner, query=question.text,
                               limit=engine.RELEVANT_MEMORIES, now=now)
    except ValidationError:
        hits = []
    for hit in hits:
        if _usable(hit.memory):
            found.setdefault(hit.memory.pk, hit.memory)
    return list(found.values())[:engine.RELEVANT_MEMORIES]


class _Asker:
    """Asks the owner's provider, logs every call, and falls back to the rules for the
    rest of the reflection when the model fails."""

    def __init__(self, owner, now: datetime):
        self.owner = owner
        self.provider, self.fallback = llm_usage.choose_provider(owner, "", now)

    @property
    def by_rules(self) -> bool:
        return isinstance(self.provider, RulesProvider)

    def __call__(self, method: str, *args):
        purpose = method.replace("reflection_", "reflect_")
        try:
            judged = getattr(self.provider, method)(*args)
        except ProviderError as exc:
            llm_usage.log_failed_call(self.owner, "", self.provider, exc, purpose)
            self.fallback = f"{self.provider.name} failed: {exc}"[:200]
            self.provider = RulesProvider()
            judged = getattr(self.provider, method)(*args)
        llm_usage.log_model_calls(self.owner, "", judged.calls)
        return judged.value

    @property
    def name(self) -> str:
        return (self.provider.name + (f" ({self.fallback})" if self.fallback else ""))[:100]


def _improver(ask: _Asker, by_id: dict):
    """Algorithm 9's next round: the model rewrites the insight, shown only the memories
    it cites, so the refined insight still rests on (some of) the same evidence."""

    def improve(current: engine.CitedInsight) -> engine.CitedInsight | None:
        cited = [by_id[i] for i in current.cited]
        proposals = ask("reflection_insights", engine.REFINE_QUESTION.format(
            insight=current.text), _shown(cited))
        kept, _ = engine.cited_insights(proposals.insights, [m.pk for m in cited])
        if not kept:
            return None
        return engine.CitedInsight(kept[0].text, kept[0].cited, current.importance,
                                   current.topic)

    return improve


def _store(owner, insight: engine.CitedInsight, *, question: str, rounds: int,
           reflected_by: str, by_id: dict, now: datetime, dry_run: bool) -> Insight | None:
    """Store the insight as a synthetic memory citing its evidence; None when it (or a
    memory saying the same) is already stored."""
    text_hash, key = content_hash(insight.text), cited_key(insight.cited)
    if Insight.objects.filter(owner=owner, text_hash=text_hash, cited_key=key).exists():
        return None
    cited = [by_id[i] for i in insight.cited]
    projects = {m.project for m in cited}
    found = Insight(owner=owner, question=question, topic=insight.topic,
                    cited_ids=list(insight.cited), text_hash=text_hash, cited_key=key,
                    importance=insight.importance, round=rounds, reflected_by=reflected_by,
                    created_at=now)
    if dry_run:
        found.memory = Memory(owner=owner, content=insight.text, kind=Kind.INSIGHT)
        return found
    try:
        with transaction.atomic():
            found.memory = remember(
                owner=owner, now=now, reject_duplicates=True, content=insight.text,
                memory_type=MemoryType.SEMANTIC, kind=Kind.INSIGHT,
                importance=engine.INSIGHT_IMPORTANCE, is_synthetic=True,
                project=projects.pop() if len(projects) == 1 else "",
                metadata={"source": "reflection", "question": question,
                          "cites": [str(i) for i in insight.cited],
                          "reflected_by": reflected_by, "round": rounds}).memory
            MemoryLink.objects.bulk_create(
                [MemoryLink(from_memory=found.memory, to_memory=m, relation=LinkRelation.CITES,
                            created_at=now) for m in cited], ignore_conflicts=True)
            found.save()
            # A restatement kept rejected leaves agents: it supersedes nothing (an
            # approved insight it restates too would leave with it).
            if not _keep_rejection(found, now):
                _supersede_older(found, now)
    except (DuplicateMemory, IntegrityError):
        return None
    return found


def _restated_by(newer: Insight):
    """The insights the new one restates: on the same question and topic, citing no more
    than it (the error came up once more)."""
    if not newer.topic:
        return Insight.objects.none()
    return (Insight.objects.filter(owner=newer.owner, question=newer.question,
                                   topic=newer.topic, cited_ids__contained_by=newer.cited_ids)
            .exclude(pk=newer.pk))


def _keep_rejection(newer: Insight, now: datetime) -> bool:
    """A person's rejection holds for what restates the insight they rejected: the new
    one is stored rejected, its memory archived (a version says so), until someone
    approves it. Whether it was."""
    rejected = (_restated_by(newer).filter(status=InsightStatus.REJECTED)
                .order_by("-reviewed_at").first())
    if rejected is None:
        return False
    newer.status = InsightStatus.REJECTED
    newer.flagged_reason = (f"restates insight {rejected.pk}, which a person rejected: "
                            "kept rejected until someone approves it")
    newer.save(update_fields=["status", "flagged_reason"])
    newer.memory = update_memory(newer.memory, status=Status.ARCHIVED, now=now)
    return True


def _supersede_older(newer: Insight, now: datetime) -> None:
    """An insight the new one restates (_restated_by) is superseded by it, never
    deleted; a rejected one stays as the person left it."""
    older = (_restated_by(newer).filter(superseded_by__isnull=True)
             .exclude(status=InsightStatus.REJECTED))
    for old in older:
        old.superseded_by = newer
        old.save(update_fields=["superseded_by"])
        Memory.objects.filter(pk=old.memory_id).update(
            superseded_by=newer.memory, valid_to=now, updated_at=now)
        MemoryVersion.objects.create(
            memory_id=old.memory_id, change=VersionChange.UPDATED, changed_at=now,
            before={"superseded_by": None, "valid_to": None},
            after={"superseded_by": str(newer.memory.pk), "valid_to": now.isoformat(),
                   "reason": "a newer insight on the same topic cites more evidence"})
        MemoryLink.objects.get_or_create(from_memory=newer.memory, to_memory_id=old.memory_id,
                                         relation=LinkRelation.SUPERSEDES)


def _reflect_owner(owner, reason: str, *, dry_run: bool, now: datetime, advance) -> dict:
    counts = Counter()
    stored: list[Insight] = []
    seen = ReflectionState.objects.filter(owner=owner).first()
    recent = _recent(owner, now)
    ask = _Asker(owner, now)
    questions = []
    if recent:
        questions = ask("reflection_questions", _shown(recent)).questions[:engine.QUESTIONS]
    advance(1)
    for question in questions:
        relevant = _relevant(owner, question, recent, now)
        by_id = {m.pk: m for m in relevant}
        proposals = ask("reflection_insights", question.text, _shown(relevant))
        kept, dropped = engine.cited_insights(proposals.insights, list(by_id))
        counts["dropped_uncited"] += dropped
        for insight in kept[:engine.MAX_INSIGHTS]:
            rounds = 0
            # The rules write no new text, so there is nothing for them to refine.
            if insight.importance >= engine.REFINE_FROM_IMPORTANCE and not ask.by_rules:
                insight, rounds = engine.refine(insight, _improver(ask, by_id))
                counts["refined"] += bool(rounds)
            found = _store(owner, insight, question=question.text, rounds=rounds,
                           reflected_by=ask.name, by_id=by_id, now=now, dry_run=dry_run)
            counts["insights_created" if found else "already_known"] += 1
            if found:
                stored.append(found)
        advance(1)
    advance(engine.QUESTIONS - len(questions))
    if not dry_run:
        _reset(owner, seen, reason, now)
    counts["questions"] += len(questions)
    return {"counts": counts, "insights": stored, "reflected_by": ask.name}


def reflect(*, owner=None, dry_run: bool = False, job=None, now: datetime | None = None,
            on_progress=None, force: bool | None = None) -> dict:
    """Reflect for one owner (on demand: always) or for every owner whose trigger fired
    (the scheduled sweep). `force` overrides: True reflects regardless of the trigger."""
    now = now or timezone.now()
    force = owner is not None if force is None else force
    if owner is not None:
        owners = [owner]
    else:
        owners = list(get_user_model().objects.filter(
            pk__in=ReflectionState.objects.values("owner")).order_by("pk"))
    due = []
    for candidate in owners:
        recommended = recommendation(candidate, now)
        if recommended["recommended"] or force:
            due.append((candidate, recommended["reason"] if recommended["recommended"]
                        else engine.ON_DEMAND))
    advance = progress_reporter(job, len(due) * (1 + engine.QUESTIONS), on_progress)
    totals = Counter()
    examples, reasons = [], {}
    for candidate, reason in due:
        done = _reflect_owner(candidate, reason, dry_run=dry_run, now=now, advance=advance)
        totals.update(done["counts"])
        reasons[candidate.get_username()] = {"reason": reason,
                                             "reflected_by": done["reflected_by"]}
        examples += [{"id": None if dry_run else str(found.pk),
                      "memory_id": None if dry_run else str(found.memory.pk),
                      "text": found.memory.content, "question": found.question,
                      "cited": [str(i) for i in found.cited_ids], "round": found.round}
                     for found in done["insights"]]
    return {"owners": len(due), "reflected": reasons,
            **{key: totals[key] for key in ("questions", "insights_created", "already_known",
                                            "dropped_uncited", "refined")},
            "insights": examples[:MAX_EXAMPLES]}


# --- Keeping insights honest --------------------------------------------------------------


def flag_insights_citing(memory_ids, reason: str) -> int:
    """Flag for review the insights that cite any of these memories (superseded, deleted,
    edited or erased): their evidence changed. Rejected and already flagged ones stay as
    they are. Returns how many were flagged."""
    return len(flagged_insights_citing(memory_ids, reason))


def flagged_insights_citing(memory_ids, reason: str) -> list:
    """flag_insights_citing, returning the ids of the insights it flagged."""
    ids = [i for i in memory_ids if i is not None]
    if not ids:
        return []
    citing = Insight.objects.citing(ids)
    # Flagged already, on other evidence: undoing that first change no longer makes the
    # insight as it was, so it stays flagged for a person.
    citing.filter(status=InsightStatus.FLAGGED).update(status_before_flag=None)
    due = citing.exclude(status__in=[InsightStatus.FLAGGED, InsightStatus.REJECTED])
    flagged = list(due.values_list("pk", flat=True))
    Insight.objects.filter(pk__in=flagged).update(
        status=InsightStatus.FLAGGED, flagged_reason=reason[:2000],
        status_before_flag=F("status"))
    return flagged


def unflag_insights_citing(memory_ids, undone: str) -> int:
    """Undo the flags `undone` (the reason a deletion gave) put on insights citing these
    memories: each gets back the status it had before. One a person reviewed since, or
    whose evidence changed again, stays as it is. Returns how many were put back."""
    return (Insight.objects.citing(memory_ids)
            .filter(status=InsightStatus.FLAGGED, flagged_reason=undone[:2000],
                    status_before_flag__isnull=False)
            .update(status=F("status_before_flag"), flagged_reason="",
                    status_before_flag=None))


def review(insight: Insight, *, approve: bool, by=None, now: datetime | None = None) -> Insight:
    """A person's verdict. A rejected insight's memory is archived (it leaves recall and
    the context, its history kept); approving it again brings it back. Reviewing changes
    the insight's memory, so it takes someone who may change it (NotAllowed otherwise,
    approving one whose memory stays as it is included)."""
    now = now or timezone.now()
    with transaction.atomic():
        insight = Insight.objects.select_for_update().select_related("memory").get(
            pk=insight.pk)
        selectors.require_writable(insight.memory, by)
        insight.status = InsightStatus.APPROVED if approve else InsightStatus.REJECTED
        insight.reviewed_by, insight.reviewed_at = by, now
        insight.status_before_flag = None  # a person's verdict is no flag to undo
        insight.save(update_fields=["status", "reviewed_by", "reviewed_at",
                                    "status_before_flag"])
        wanted = Status.ACTIVE if approve else Status.ARCHIVED
        if insight.memory.status in (Status.ACTIVE, Status.ARCHIVED) \
                and insight.memory.status != wanted:
            insight.memory = update_memory(insight.memory, by=by, status=wanted,
                                                    now=now)
    return insight

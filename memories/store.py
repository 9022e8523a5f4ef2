"""Reads and writes behind the store screens (contradictions, jobs, keys, import and
export, settings, insights) that have no home in services.py or selectors.py yet.

Everything is scoped to one owner, and everything that looks at many memories
aggregates in SQL: no loop here runs over all of an owner's memories.
"""

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, F, Q, Sum
from django.db.models.functions import TruncDate, TruncWeek
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from . import maintenance, services, tasks
from .engine import forgetting
from .models import (
    ApiKey,
    ChunkStatus,
    Contradiction,
    ContradictionStatus,
    Job,
    JobKind,
    JobStatus,
    Kind,
    Memory,
    MemoryEntity,
    MemoryLink,
    MemoryType,
    MemoryVersion,
    ModelCall,
    Observation,
    Relationship,
    Status,
    UsageEvent,
    UsageKind,
    VersionChange,
)
from .providers.embeddings import get_provider

HEAVY_MEMORY_FIELDS = ("embedding", "search_vector")


def memory_url(memory_id) -> str:
    """The memory's detail page (by its path should the screen not be routed)."""
    for name in ("memory", "memory_detail"):
        try:
            return reverse(name, args=[memory_id])
        except NoReverseMatch:
            continue
    return f"/memories/{memory_id}/"


def days_back(days: int, now: datetime) -> list[date]:
    today = timezone.localdate(now)
    return [today - timedelta(days=n) for n in range(days - 1, -1, -1)]


def start_of(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def _filled(rows: dict, keys: Iterable, default=0) -> list:
    return [rows.get(key, default) for key in keys]


# --- Contradictions ------------------------------------------------------------------------


def count_open_contradictions(owner) -> int:
    return Contradiction.objects.for_owner(owner).filter(
        status=ContradictionStatus.OPEN).count()


def contradictions_of(owner):
    """The owner's contradictions with both memories (and who resolved them), one query."""
    heavy = [f"{side}__{name}" for side in ("memory_a", "memory_b", "merged_into")
             for name in HEAVY_MEMORY_FIELDS]
    return (Contradiction.objects.for_owner(owner)
            .select_related("memory_a", "memory_b", "resolved_by", "merged_into")
            .defer(*heavy))


def contradiction_queue(owner, *, status: str):
    """Open ones oldest first (a queue), resolved ones newest resolution first."""
    found = contradictions_of(owner).filter(status=status)
    if status == ContradictionStatus.OPEN:
        return found.order_by("detected_at", "id")
    return found.order_by("-resolved_at", "-detected_at")


def next_open_contradiction(owner, *, after: Contradiction | None = None):
    found = Contradiction.objects.for_owner(owner).filter(status=ContradictionStatus.OPEN)
    if after is not None:
        found = found.exclude(pk=after.pk)
    return found.order_by("detected_at", "id").only("id").first()


# --- Jobs ----------------------------------------------------------------------------------

ACTIVE_JOB_STATUSES = (JobStatus.QUEUED, JobStatus.RUNNING)


def startable_job_kinds() -> list[tuple[str, str]]:
    """Job kinds a person can start: those the maintenance module knows how to run."""
    return [(kind, label) for kind, label in JobKind.choices if kind in maintenance.JOB_RUNNERS]


def active_job_of_kind(owner, kind: str) -> Job | None:
    return Job.objects.for_owner(owner).filter(kind=kind,
                                               status__in=ACTIVE_JOB_STATUSES).first()


def start_job(owner, *, kind: str, dry_run: bool = False) -> Job:
    """Record the job, and queue it once the record is committed."""
    with transaction.atomic():
        job = maintenance.create_job(kind, owner=owner, dry_run=dry_run)
        transaction.on_commit(lambda: tasks.run_job(str(job.pk)))
    return job


def recent_jobs(owner, *, limit: int = 25) -> list[Job]:
    """Running and queued jobs first, then the most recent ones."""
    jobs = Job.objects.for_owner(owner)
    active = list(jobs.filter(status__in=ACTIVE_JOB_STATUSES).order_by("-created_at")[:limit])
    done = jobs.exclude(status__in=ACTIVE_JOB_STATUSES).order_by("-created_at")
    found = active + list(done[:max(0, limit - len(active))])
    for job in found:
        job.summary = job_summary(job.result)
    return found


def job_summary(result) -> str:
    """The result's plain numbers and words, e.g. "checked 120 · found 2"."""
    if not isinstance(result, dict):
        return ""
    return " · ".join(f"{key.replace('_', ' ')} {value}" for key, value in result.items()
                      if isinstance(value, int | float | str) and len(str(value)) <= 40)


def recent_observations(owner, *, limit: int = 15):
    """The latest extraction work from /observe, with its chunks counted by status."""
    by_status = {f"chunks_{status}": Count("chunks", filter=Q(chunks__status=status))
                 for status in ChunkStatus.values}
    return (Observation.objects.for_owner(owner)
            .only("id", "project", "agent_id", "session_id", "status", "memories_created",
                  "memories_strengthened", "created_at", "processed_at")
            .annotate(chunks_total=Count("chunks"), **by_status)
            .order_by("-created_at")[:limit])


# --- API keys ------------------------------------------------------------------------------


def api_keys_of(owner):
    return ApiKey.objects.filter(owner=owner).order_by(
        F("revoked_at").desc(nulls_first=True), "-created_at")


# --- Export and import as JSONL --------------------------------------------------------------

EXPORT_FORMATS = [
    {"name": "JSONL", "extension": "jsonl", "media_type": "application/x-ndjson",
     "description": "One JSON object per line and per memory."},
]
EXPORT_FIELDS = ("content", "type", "kind", "tags", "importance", "project", "agent_id",
                 "session_id", "created_at", "metadata", "status", "pinned")
IMPORTABLE_STATUSES = (Status.ACTIVE, Status.ARCHIVED)
MAX_IMPORT_LINES = 10_000
IMPORT_BATCH = 500
MAX_SCOPE_LENGTH = services.MAX_SCOPE_LENGTH


def export_lines(owner) -> Iterator[str]:
    """The owner's memories (deleted ones excepted), oldest first, one JSON line each.

    Streams from a server-side cursor, so 100,000 memories never sit in memory at once.
    """
    rows = (Memory.objects.for_owner(owner).visible().order_by("created_at", "id")
            .values_list("content", "memory_type", "kind", "tags", "importance", "project",
                         "agent_id", "session_id", "created_at", "metadata", "status",
                         "pinned"))
    for row in rows.iterator(chunk_size=2000):
        record = dict(zip(EXPORT_FIELDS, row, strict=True))
        record["created_at"] = record["created_at"].isoformat()
        yield json.dumps(record, ensure_ascii=False) + "\n"


@dataclass
class ImportLine:
    number: int
    item: services.NewMemory
    created_at: datetime | None
    status: str
    pinned: bool


@dataclass
class ImportReport:
    lines: int = 0  # non-blank lines read
    created: int = 0
    strengthened: int = 0
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)
    skipped_bad: bool = False  # bad lines were skipped and the rest stored
    ignored_fields: list[str] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return bool(self.created or self.strengthened)


class BadLine(ValueError):
    """Why a line cannot be imported, in words for the person who made the file."""


def _choice(record: dict, name: str, choices: list[str], default: str) -> str:
    value = record.get(name, default)
    if value not in choices:
        raise BadLine(f"{name} {value!r} is not one of {', '.join(choices)}")
    return value


def _parse_record(record) -> tuple[services.NewMemory, datetime | None, str, bool]:
    if not isinstance(record, dict):
        raise BadLine("the line is not a JSON object")
    created_at = None
    if record.get("created_at") not in (None, ""):
        raw = record["created_at"]
        created_at = parse_datetime(raw) if isinstance(raw, str) else None
        if created_at is None:
            raise BadLine(f"created_at {raw!r} is not an ISO 8601 date and time")
        if timezone.is_naive(created_at):
            created_at = timezone.make_aware(created_at, timezone.get_default_timezone())
    pinned = record.get("pinned", False)
    if not isinstance(pinned, bool):
        raise BadLine("pinned must be true or false")
    status = _choice(record, "status", list(IMPORTABLE_STATUSES), Status.ACTIVE)
    item = services.NewMemory(
        content=record.get("content"),
        memory_type=record.get("type") or MemoryType.SEMANTIC,
        kind=record.get("kind") or Kind.FACT,
        project=record.get("project") or "", agent_id=record.get("agent_id") or "",
        session_id=record.get("session_id") or "",
        importance=record.get("importance"), tags=record.get("tags") or [],
        metadata=record.get("metadata") or {})
    errors = services.new_memory_errors(item)
    if errors:
        raise BadLine("; ".join(f"{field}: {message}" for field, messages in errors.items()
                                for message in messages))
    return item, created_at, status, pinned


def parse_jsonl(lines: Iterable[bytes | str]) -> tuple[list[ImportLine], ImportReport]:
    """Each non-blank line checked on its own: the good ones, and a report of the bad."""
    parsed, report, ignored = [], ImportReport(), set()
    for number, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8") \
                if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            report.lines += 1
            report.bad.append((number, "the line is not UTF-8 text"))
            continue
        if not text.strip():
            continue
        report.lines += 1
        if report.lines > MAX_IMPORT_LINES:
            report.bad.append((number, f"more than {MAX_IMPORT_LINES:,} lines: split the file"))
            break
        try:
            record = json.loads(text)
            item, created_at, status, pinned = _parse_record(record)
        except json.JSONDecodeError as exc:
            report.bad.append((number, f"not valid JSON ({exc.msg} at column {exc.colno})"))
            continue
        except BadLine as exc:
            report.bad.append((number, str(exc)))
            continue
        ignored.update(set(record) - set(EXPORT_FIELDS))
        parsed.append(ImportLine(number, item, created_at, status, pinned))
    report.ignored_fields = sorted(ignored)
    return parsed, report


def import_memories(owner, parsed: list[ImportLine], report: ImportReport, *,
                    skip_bad_lines: bool = False) -> ImportReport:
    """Store the parsed lines through remember_many (duplicates strengthen what exists).

    With bad lines and no `skip_bad_lines`, nothing is written. Everything else is one
    transaction: either every good line is stored or none is.
    """
    if report.bad and not skip_bad_lines:
        return report
    report.skipped_bad = bool(report.bad)
    with transaction.atomic():
        for start in range(0, len(parsed), IMPORT_BATCH):
            batch = parsed[start:start + IMPORT_BATCH]
            try:
                results = services.remember_many(owner=owner, items=[line.item for line in batch])
            except ValidationError as exc:
                # The line checks above mirror the service's; should they ever disagree,
                # name the line and write nothing.
                transaction.set_rollback(True)
                report.bad += [(batch[int(key.split(".")[0])].number if "." in key
                                else batch[0].number, "; ".join(messages))
                               for key, messages in exc.message_dict.items()]
                report.created = report.strengthened = 0
                report.skipped_bad = False
                return report
            _keep_exported_state(batch, results)
            report.created += sum(r.created for r in results)
            report.strengthened += sum(not r.created for r in results)
    return report


def _keep_exported_state(batch: list[ImportLine], results) -> None:
    """New memories keep the date, status and pin they were exported with."""
    changed = []
    for line, result in zip(batch, results, strict=True):
        memory = result.memory
        if not result.created or (line.created_at is None and line.status == Status.ACTIVE
                                  and not line.pinned):
            continue
        if line.created_at is not None:
            memory.created_at = memory.valid_from = line.created_at
        memory.status, memory.pinned = line.status, line.pinned
        changed.append(memory)
    if changed:
        Memory.objects.bulk_update(changed, ["created_at", "valid_from", "status", "pinned"],
                                   batch_size=IMPORT_BATCH)


# --- Settings and the cost meter -----------------------------------------------------------

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
    ]),
    ("Context", [
        ("ENGRAM_CONTEXT_MIN_SCORE", "least match a memory needs to enter a context"),
        ("ENGRAM_TIER_THRESHOLD", "budget (tokens) from which the four tiers are used"),
        ("ENGRAM_FEEDBACK_INTERVAL", "seconds between two votes of one agent on one memory"),
    ]),
    ("Capture", [
        ("ENGRAM_CAPTURE_MAX_CHARS", "characters kept of each message or tool event"),
        ("ENGRAM_CAPTURE_MAX_ITEMS", "messages and tool events accepted per /observe"),
        ("ENGRAM_CAPTURE_SKIP_TOOLS", "tools whose events are dropped"),
        ("ENGRAM_CAPTURE_SKIP_PATHS", "file paths whose events are dropped"),
        ("ENGRAM_CAPTURE_MAX_ATTEMPTS", "model attempts per chunk before the rules extract it"),
    ]),
    ("Forgetting", [
        ("ENGRAM_FORGET_HALF_LIFE_DAYS", "half-life of an unused episode, in days"),
        ("ENGRAM_FORGET_THRESHOLD", "decayed importance below which a memory is forgotten"),
        ("ENGRAM_FORGET_PROTECT_DAYS", "days a cited or helpful memory is never forgotten"),
        ("ENGRAM_PURGE_AFTER_DAYS", "days a forgotten memory stays restorable"),
    ]),
    ("Model use", [
        ("ENGRAM_LLM_DAILY_TOKENS", "tokens per owner and project per UTC day (the budget)"),
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
            "memories_to_reembed": services.count_to_reembed(owner)}


def cost_meter(owner, *, days: int = 30, now: datetime | None = None) -> dict:
    """Model calls, tokens and estimated cost per day (for the last `days`) and per model."""
    now = now or timezone.now()
    window = days_back(days, now)
    calls = ModelCall.objects.filter(owner=owner, created_at__gte=start_of(window[0]))
    totals = {"calls": Count("id"), "failed": Count("id", filter=Q(ok=False)),
              "input_tokens": Sum("input_tokens"), "output_tokens": Sum("output_tokens"),
              "cost": Sum("cost_usd")}
    per_day = {row["day"]: row for row in
               calls.annotate(day=TruncDate("created_at")).values("day").annotate(**totals)}
    per_model = list(calls.values("provider", "model", "purpose").annotate(**totals)
                     .order_by("-cost", "provider", "model", "purpose"))
    empty = {"calls": 0, "failed": 0, "input_tokens": 0, "output_tokens": 0, "cost": 0}
    rows = [{**empty, **{k: v or 0 for k, v in per_day.get(day, {}).items()}, "day": day}
            for day in window]
    return {
        "days": rows,
        "per_model": per_model,
        "total": {name: sum(row[name] for row in rows) for name in empty},
        "chart": {"labels": [d.isoformat() for d in window],
                  "tokens": [row["input_tokens"] + row["output_tokens"] for row in rows],
                  "cost": [float(row["cost"]) for row in rows]},
    }


# --- Insights ------------------------------------------------------------------------------


def store_counts(owner) -> dict:
    """Counts by type, kind and status, and the share never retrieved: one GROUP BY."""
    rows = (Memory.objects.for_owner(owner).order_by()
            .values("memory_type", "kind", "status")
            .annotate(n=Count("id"), never=Count("id", filter=Q(access_count=0))))
    by = {"memory_type": {}, "kind": {}, "status": {}}
    total = visible = never = 0
    for row in rows:  # at most types x kinds x statuses rows
        for name, counts in by.items():
            counts[row[name]] = counts.get(row[name], 0) + row["n"]
        total += row["n"]
        if row["status"] != Status.DELETED:
            visible += row["n"]
            never += row["never"]
    ordered = {
        "memory_type": [(v, by["memory_type"].get(v, 0)) for v in MemoryType.values],
        "kind": sorted(((v, by["kind"].get(v, 0)) for v in Kind.values),
                       key=lambda pair: -pair[1]),
        "status": [(v, by["status"].get(v, 0)) for v in Status.values],
    }
    return {**ordered, "total": total, "visible": visible, "forgotten": total - visible,
            "never_retrieved": never,
            "never_retrieved_percent": round(100 * never / visible) if visible else 0}


def created_per_day(owner, *, days: int, now: datetime) -> dict:
    window = days_back(days, now)
    rows = dict(Memory.objects.for_owner(owner).filter(created_at__gte=start_of(window[0]))
                .annotate(day=TruncDate("created_at")).order_by()
                .values("day").annotate(n=Count("id")).values_list("day", "n"))
    values = _filled(rows, window)
    return {"labels": [d.isoformat() for d in window], "values": values, "total": sum(values)}


def retrievals_per_day(owner, *, days: int, now: datetime) -> dict:
    window = days_back(days, now)
    rows = dict(UsageEvent.objects.filter(owner=owner, kind=UsageKind.RETRIEVED,
                                          created_at__gte=start_of(window[0]))
                .annotate(day=TruncDate("created_at")).order_by()
                .values("day").annotate(n=Count("id")).values_list("day", "n"))
    values = _filled(rows, window)
    return {"labels": [d.isoformat() for d in window], "values": values, "total": sum(values)}


def merged_duplicates(owner, *, days: int, now: datetime) -> dict:
    """Duplicates that strengthened a memory instead of being stored: all time and lately."""
    since = now - timedelta(days=days)
    return MemoryVersion.objects.filter(memory__owner=owner,
                                        change=VersionChange.REINFORCED).aggregate(
        total=Count("id"), recent=Count("id", filter=Q(changed_at__gte=since)))


def forgotten_per_week(owner, *, weeks: int, now: datetime) -> dict:
    """Memories moved to deleted (by a person, an agent or the forgetting pass) per week."""
    monday = timezone.localdate(now) - timedelta(days=timezone.localdate(now).weekday())
    window = [monday - timedelta(weeks=n) for n in range(weeks - 1, -1, -1)]
    rows = dict(MemoryVersion.objects.filter(memory__owner=owner, change=VersionChange.STATUS,
                                             after__status=Status.DELETED,
                                             changed_at__gte=start_of(window[0]))
                .annotate(week=TruncWeek("changed_at")).order_by()
                .values("week").annotate(n=Count("id")).values_list("week", "n"))
    rows = {timezone.localdate(week) if isinstance(week, datetime) else week: n
            for week, n in rows.items()}
    values = _filled(rows, window)
    return {"labels": [w.isoformat() for w in window], "values": values, "total": sum(values)}


FORGETTING_CURVES = [
    ("Episode, never used", {"memory_type": "episodic"}),
    ("Fact, never used", {"memory_type": "semantic"}),
    ("Procedure, never used", {"memory_type": "procedural"}),
    ("Fact, used 10 times", {"memory_type": "semantic", "access_count": 10}),
    ("Pinned episode", {"memory_type": "episodic", "pinned": True}),
]


def forgetting_curves(*, days: int = 180, step: int = 5, importance: float = 5.0) -> dict:
    """Retention exp(-t / S) over days unused (memories.engine.forgetting), with the
    half-life and threshold in force."""
    half_life = getattr(settings, "ENGRAM_FORGET_HALF_LIFE_DAYS",
                        forgetting.DEFAULT_HALF_LIFE_DAYS)
    threshold = getattr(settings, "ENGRAM_FORGET_THRESHOLD", forgetting.DEFAULT_THRESHOLD)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ticks = list(range(0, days + 1, step))
    curves = []
    for label, shape in FORGETTING_CURVES:
        state = forgetting.MemoryState(
            memory_type=shape["memory_type"], importance=importance,
            access_count=shape.get("access_count", 0), created_at=start,
            last_accessed_at=start, pinned=shape.get("pinned", False))
        stability = forgetting.stability(state, half_life_days=half_life)
        curves.append({
            "label": label, "stability_days": round(stability, 1),
            # importance x retention falls below the threshold after S x ln(importance / t)
            "days_until_forgotten": (round(stability * math.log(importance / threshold))
                                     if 0 < threshold < importance else None),
            "values": [round(forgetting.retention(state, start + timedelta(days=t),
                                                  half_life_days=half_life), 4)
                       for t in ticks]})
    return {"labels": ticks, "curves": curves, "half_life_days": half_life,
            "threshold": threshold, "importance": importance,
            "retention_floor": threshold / importance}


GRAPH_MEMORIES = 150
GRAPH_ENTITIES = 120


def memory_graph(owner, *, limit: int = GRAPH_MEMORIES) -> dict:
    """The newest active memories, the links between them, their entities and the
    entities' relationships, as Cytoscape elements: four queries, each bounded by `limit`
    (the first reads the (owner, status, -created_at) index in order and stops)."""
    chosen = list(Memory.objects.for_owner(owner).active().order_by("-created_at")
                  .values("id", "content", "memory_type", "kind", "importance")[:limit])
    ids = [m["id"] for m in chosen]
    links = (MemoryLink.objects.filter(from_memory_id__in=ids, to_memory_id__in=ids)
             .values_list("id", "from_memory_id", "to_memory_id", "relation"))
    mentions = list(MemoryEntity.objects.filter(memory_id__in=ids)
                    .order_by("-entity__mention_count", "entity_id")
                    .values_list("memory_id", "entity_id", "entity__name",
                                 "entity__entity_type")[:GRAPH_ENTITIES * 4])
    entity_ids = list(dict.fromkeys(m[1] for m in mentions))[:GRAPH_ENTITIES]
    kept = set(entity_ids)
    relations = (Relationship.objects.filter(owner=owner, source_id__in=entity_ids,
                                             target_id__in=entity_ids, valid_to__isnull=True)
                 .values_list("id", "source_id", "target_id", "relationship_type"))
    placeholder = "00000000-0000-0000-0000-000000000000"
    url = memory_url(placeholder)
    nodes = [{"data": {"id": f"m{m['id']}", "group": "memory", "type": m["memory_type"],
                       "kind": m["kind"], "label": _short(m["content"]),
                       "importance": round(m["importance"], 1),
                       "url": url.replace(placeholder, str(m["id"]))}}
             for m in chosen]
    entities = {}
    for _, entity_id, name, entity_type in mentions:
        if entity_id in kept and entity_id not in entities:
            entities[entity_id] = {"data": {"id": f"e{entity_id}", "group": "entity",
                                            "type": entity_type, "label": name[:40]}}
    edges = [{"data": {"id": f"l{pk}", "source": f"m{a}", "target": f"m{b}",
                       "group": "link", "label": relation}} for pk, a, b, relation in links]
    edges += [{"data": {"id": f"x{m}-{e}", "source": f"m{m}", "target": f"e{e}",
                        "group": "mention", "label": ""}}
              for m, e, _, _ in mentions if e in kept]
    edges += [{"data": {"id": f"r{pk}", "source": f"e{a}", "target": f"e{b}",
                        "group": "relationship", "label": kind}}
              for pk, a, b, kind in relations]
    return {"nodes": nodes + list(entities.values()), "edges": edges,
            "memories": [{"label": n["data"]["label"], "url": n["data"]["url"],
                          "type": n["data"]["type"]} for n in nodes],
            "entity_count": len(entities), "edge_count": len(edges)}


def _short(text: str, length: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= length else text[:length - 1] + "…"

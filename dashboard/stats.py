"""The store in numbers, for the stats and settings screens: counts, activity per day and
week, the forgetting curves, the model cost meter, and a graph of the store. The store is
what a person reads (`readable_by`: their private memories, their projects', the
system's). Everything that looks at many memories aggregates in SQL: no loop here runs
over all of them.
"""

import math
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate, TruncWeek
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from memories.engine import forgetting
from memories.models import (
    Kind,
    Memory,
    MemoryEntity,
    MemoryLink,
    MemoryType,
    MemoryVersion,
    ModelCall,
    Relationship,
    Status,
    UsageEvent,
    UsageKind,
    VersionChange,
    readable_by,
)


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


def store_counts(user) -> dict:
    """Counts by type, kind and status, and the share never retrieved: one GROUP BY."""
    rows = (Memory.objects.readable_by(user).order_by()
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


def created_per_day(user, *, days: int, now: datetime) -> dict:
    """Memories created per day (`values`), and of those the ones not forgotten since
    (`kept`): what the store's size, as store_counts' `visible`, grew by."""
    window = days_back(days, now)
    rows = (Memory.objects.readable_by(user).filter(created_at__gte=start_of(window[0]))
            .annotate(day=TruncDate("created_at")).order_by().values("day")
            .annotate(n=Count("id"), kept=Count("id", filter=~Q(status=Status.DELETED))))
    values = _filled({row["day"]: row["n"] for row in rows}, window)
    kept = _filled({row["day"]: row["kept"] for row in rows}, window)
    return {"labels": [d.isoformat() for d in window], "values": values, "kept": kept,
            "total": sum(values)}


def retrievals_per_day(user, *, days: int, now: datetime) -> dict:
    window = days_back(days, now)
    rows = dict(UsageEvent.objects.filter(readable_by(user, "memory__"),
                                          kind=UsageKind.RETRIEVED,
                                          created_at__gte=start_of(window[0]))
                .annotate(day=TruncDate("created_at")).order_by()
                .values("day").annotate(n=Count("id")).values_list("day", "n"))
    values = _filled(rows, window)
    return {"labels": [d.isoformat() for d in window], "values": values, "total": sum(values)}


def merged_duplicates(user, *, days: int, now: datetime) -> dict:
    """Duplicates that strengthened a memory instead of being stored: all time and lately."""
    since = now - timedelta(days=days)
    return MemoryVersion.objects.filter(readable_by(user, "memory__"),
                                        change=VersionChange.REINFORCED).aggregate(
        total=Count("id"), recent=Count("id", filter=Q(changed_at__gte=since)))


def forgotten_per_week(user, *, weeks: int, now: datetime) -> dict:
    """Memories moved to deleted (by a person, an agent or the forgetting pass) per week."""
    monday = timezone.localdate(now) - timedelta(days=timezone.localdate(now).weekday())
    window = [monday - timedelta(weeks=n) for n in range(weeks - 1, -1, -1)]
    rows = dict(MemoryVersion.objects.filter(readable_by(user, "memory__"),
                                             change=VersionChange.STATUS,
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


def memory_graph(user, *, limit: int = GRAPH_MEMORIES) -> dict:
    """The newest active memories, the links between them, their entities and the
    entities' relationships, as Cytoscape elements: four queries, each bounded by `limit`
    (the first reads the memories newest first and stops)."""
    chosen = list(Memory.objects.readable_by(user).active().order_by("-created_at")
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
    # The person's own relationships, and others' only as stated by a memory shown:
    # another author's relationship may come from their private memories.
    relations = (Relationship.objects.filter(Q(owner=user) | Q(source_memories__overlap=ids),
                                             source_id__in=entity_ids,
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



# Charts: specs that static/store/charts.js turns into Chart.js charts.


def chart(kind: str, labels, *series: dict, **options) -> dict:
    """One chart: its type, x labels, and series of {label, values[, type, axis]}."""
    return {"type": kind, "labels": list(labels), "series": list(series), **options}


def series(label: str, values, **options) -> dict:
    return {"label": label, "values": list(values), **options}

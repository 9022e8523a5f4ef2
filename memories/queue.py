"""The one way to queue background work: by the task's dotted path, once the current
transaction commits.

Producers name the task instead of importing it (Zulip's `queue_event_on_commit`), so the
services that queue work never import the workers that call them back: `memories.tasks`
imports services, never the other way round. If the queue is down, the work is only
delayed: what it would process is stored, and a sweep, a scan or the job list picks it up,
so the request that stored it still succeeds.
"""

import logging
from collections import Counter

from django.db import connection, transaction
from django.db.models import Count, Min, Q
from django.utils import timezone
from django.utils.module_loading import import_string
from huey.contrib.djhuey import HUEY

from .models import CheckDrain, Memory, Observation, ObservationStatus, PendingCheck

log = logging.getLogger(__name__)


# Huey priorities: higher runs first. Interactive work (what an agent or a person just
# did and waits on) goes before bulk work (imports, re-embedding, nightly passes).
INTERACTIVE = 100
BULK = 0


def after_commit(task: str, *args, priority: int = BULK) -> None:
    """Queue the Huey task at dotted path `task` with `args` once the current transaction
    commits (at once outside a transaction)."""
    transaction.on_commit(lambda: _enqueue(task, *args, priority=priority))


def _enqueue(task: str, *args, priority: int) -> bool:
    """Queue now; False, logged, when the queue is down (the work waits for its sweep)."""
    try:
        import_string(task)(*args, priority=priority)
    except Exception:
        log.warning("Could not queue %s%r; it waits for its sweep.", task, args,
                    exc_info=True)
        return False
    return True


def embed_memories(memory_ids) -> None:
    """Embed memories stored while the embedding provider was down."""
    ids = [str(pk) for pk in memory_ids]
    after_commit("memories.tasks.embed_memories", ids,
                 priority=INTERACTIVE if len(ids) == 1 else BULK)


_PEND_SQL = f"""
    INSERT INTO {PendingCheck._meta.db_table} (memory_id, owner_id, interactive, queued_at)
    SELECT id, owner_id, %s, now() FROM {Memory._meta.db_table} WHERE id = ANY(%s::uuid[])
    ON CONFLICT (memory_id) DO UPDATE
        SET interactive = {PendingCheck._meta.db_table}.interactive OR EXCLUDED.interactive
    RETURNING owner_id
"""


def check_contradictions(memory_ids, *, interactive: bool) -> None:
    """Judge these memories against their neighbours ("Contradiction Scanner"), in the
    background: each waits as a PendingCheck row, written in the caller's transaction,
    and its owner's drain task is queued once that commits. A bulk write (a batch of
    many) waits behind what agents and people are doing."""
    ids = [str(pk) for pk in memory_ids]
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(_PEND_SQL, [interactive, ids])
        owners = {row[0] for row in cursor.fetchall()}
    for owner_id in sorted(owners):
        transaction.on_commit(lambda owner_id=owner_id: drain_checks(owner_id,
                                                                     interactive=interactive))


_DRAIN_SQL = f"""
    INSERT INTO {CheckDrain._meta.db_table} AS d (owner_id, interactive, queued_at)
    VALUES (%s, %s, now())
    ON CONFLICT (owner_id) DO UPDATE
        SET interactive = d.interactive OR EXCLUDED.interactive, queued_at = now()
        WHERE (EXCLUDED.interactive AND NOT d.interactive)
           OR d.queued_at < now() - %s * interval '1 second'
    RETURNING owner_id
"""
# A drain queued longer ago than this is presumed lost (a worker killed while holding
# it) and is queued again; a second drain is harmless, each batch locks its own rows.
DRAIN_PRESUMED_LOST = 300


def drain_checks(owner_id: int, *, interactive: bool) -> bool:
    """Queue the owner's drain task unless one is already waiting (or upgrade a waiting
    bulk drain when interactive work arrives). True when a task was queued."""
    with connection.cursor() as cursor:
        cursor.execute(_DRAIN_SQL, [owner_id, interactive, DRAIN_PRESUMED_LOST])
        if cursor.fetchone() is None:
            return False
    if _enqueue("memories.tasks.check_pending_contradictions", owner_id,
                priority=INTERACTIVE if interactive else BULK):
        return True
    CheckDrain.objects.filter(owner_id=owner_id).delete()  # let the sweep queue it
    return False


def process_observation(observation_id) -> None:
    after_commit("memories.tasks.process_observation", str(observation_id),
                 priority=INTERACTIVE)


def run_job(job_id) -> None:
    """A job a person or an agent started (scheduled runs do not pass through here)."""
    after_commit("memories.tasks.run_job", str(job_id), priority=INTERACTIVE)


def backlog(*, owner=None, now=None, sample: int = 1000) -> dict:
    """What waits, for /healthz and the jobs screen: the contradiction checks (by
    priority, with the oldest's age and how many owners), the observations not yet
    extracted (both of one owner, or of everyone), and the queue's tasks by kind
    (counted over the first `sample`; tasks name no owner's content)."""
    now = now or timezone.now()
    checks, observations = PendingCheck.objects.all(), Observation.objects.all()
    if owner is not None:
        checks, observations = checks.filter(owner=owner), observations.filter(owner=owner)
    checks = checks.aggregate(
        waiting_interactive=Count("pk", filter=Q(interactive=True)),
        waiting_bulk=Count("pk", filter=Q(interactive=False)),
        owners=Count("owner", distinct=True), oldest=Min("queued_at"))
    observations = observations.filter(status=ObservationStatus.PENDING).aggregate(
        waiting=Count("pk"), oldest=Min("created_at"))
    report = {
        "checks": {"interactive": checks["waiting_interactive"],
                   "bulk": checks["waiting_bulk"],
                   "owners": checks["owners"], "oldest_seconds": _age(checks["oldest"], now)},
        "observations": {"waiting": observations["waiting"],
                         "oldest_seconds": _age(observations["oldest"], now)},
    }
    try:
        # by the names the messages carry: HUEY.pending() rebuilds each task from this
        # process's registry, and a web process has not imported every app's tasks
        tasks = Counter(HUEY.serializer.deserialize(data).name.rpartition(".")[2]
                        for data in HUEY.storage.enqueued_items(sample))
        report["tasks"] = {"pending": HUEY.pending_count(), "by_kind": dict(tasks)}
    except Exception as exc:  # the queue may be down while the database is up
        report["tasks"] = {"error": str(exc).splitlines()[0]}
    return report


def _age(since, now) -> float | None:
    return None if since is None else round((now - since).total_seconds(), 1)

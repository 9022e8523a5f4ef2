"""Job records: long work a person or the schedule starts, with progress and a result.

The registry maps each kind of job to the dotted path of the function that runs it,
imported on first use (like healthchecks' TRANSPORTS): the job records sit below the
maintenance and reflection code they run, and never import it.
"""

from collections.abc import Callable
from contextlib import contextmanager
from functools import cache

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.module_loading import import_string

from . import queue
from .models import Job, JobKind, JobStatus

# Each runner takes owner (None: everyone), dry_run, job and on_progress, and returns the
# job's result.
RUNNERS: dict[str, str] = {
    JobKind.CONTRADICTIONS: "memories.maintenance.contradictions.scan_contradictions",
    JobKind.FORGET: "memories.maintenance.forgetting.forget",
    JobKind.PURGE: "memories.maintenance.forgetting.purge",
    JobKind.CONSOLIDATE: "memories.maintenance.consolidation.consolidate",
    JobKind.REFLECT: "reflection.services.reflect",
    JobKind.IMPORT: "memories.services.transfer.run_import_job",
}
# An import needs a file: it starts from the import page or the API, not the job starter.
NEEDS_INPUT = (JobKind.IMPORT,)
ACTIVE_STATUSES = (JobStatus.QUEUED, JobStatus.RUNNING)


@cache
def runner(kind: str) -> Callable[..., dict]:
    return import_string(RUNNERS[kind])


def create_job(kind: str, *, owner=None, dry_run: bool = False, **params) -> Job:
    return Job.objects.create(kind=kind, owner=owner, dry_run=dry_run, params=params)


class JobAlreadyActive(Exception):
    def __init__(self, job: Job):
        super().__init__(f"A {job.get_kind_display().lower()} job ({job.pk}) is already "
                         f"{job.status}; wait for it to finish.")
        self.job = job


def start_job(kind: str, *, owner=None, dry_run: bool = False, **params) -> Job:
    """Record the job, and queue it once the record is committed. One active job per
    kind and owner: a second raises JobAlreadyActive (two consolidations at once would
    work on the same memories)."""
    with transaction.atomic():
        if owner is not None:
            with connection.cursor() as cursor:  # concurrent starts take turns here
                cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s), %s)",
                               [f"engram.job.{kind}", owner.pk])
            if active := active_job_of_kind(owner, kind):
                raise JobAlreadyActive(active)
        job = create_job(kind, owner=owner, dry_run=dry_run, **params)
        queue.run_job(job.pk)
    return job


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


_JOB_LOCK = "SELECT {}(hashtext('engram.job'), hashtext(%s))"


def _try_hold(job_id) -> bool:
    """A session lock on the job for as long as this process runs it: PostgreSQL drops it
    when the process dies (kill -9, OOM), which is how a sweep tells an orphan apart."""
    with connection.cursor() as cursor:
        cursor.execute(_JOB_LOCK.format("pg_try_advisory_lock"), [str(job_id)])
        return cursor.fetchone()[0]


def _release(job_id) -> None:
    with connection.cursor() as cursor:
        cursor.execute(_JOB_LOCK.format("pg_advisory_unlock"), [str(job_id)])


def run_job(job_id, *, on_progress=None) -> Job:
    """Run a queued job; a job already done, or being run by another process, is not
    run again."""
    if not _try_hold(job_id):
        return Job.objects.get(pk=job_id)
    try:
        job = Job.objects.select_related("owner").get(pk=job_id)
        if job.status == JobStatus.DONE:
            return job
        with running(job):
            job.result = runner(job.kind)(owner=job.owner, dry_run=job.dry_run, job=job,
                                          on_progress=on_progress, **job.params)
        job.refresh_from_db()
        return job
    finally:
        _release(job_id)


def requeue_orphaned_jobs() -> list:
    """Jobs marked running whose process is gone (its lock went with it) are queued
    again, once: the sweep holds the lock while it re-queues, and run_job takes it."""
    requeued = []
    for job_id in Job.objects.filter(status=JobStatus.RUNNING).values_list("pk", flat=True):
        if not _try_hold(job_id):
            continue  # a live worker runs it
        try:
            if Job.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(
                    status=JobStatus.QUEUED, started_at=None, progress_done=0):
                queue.run_job(job_id)
                requeued.append(job_id)
        finally:
            _release(job_id)
    return requeued


def latest_job(owner, kind: str) -> Job | None:
    return Job.objects.for_owner(owner).filter(kind=kind).order_by("-created_at").first()


def run_scheduled(kind: str) -> Job:
    """A scheduled run over every owner, recorded as a job like any other."""
    return run_job(create_job(kind).pk)


def startable_job_kinds() -> list[tuple[str, str]]:
    """Job kinds a person can start as they are: those with a runner and no input."""
    return [(kind, label) for kind, label in JobKind.choices
            if kind in RUNNERS and kind not in NEEDS_INPUT]


def active_job_of_kind(owner, kind: str) -> Job | None:
    return Job.objects.for_owner(owner).filter(kind=kind,
                                               status__in=ACTIVE_STATUSES).first()


def recent_jobs(owner, *, limit: int = 25) -> list[Job]:
    """Running and queued jobs first, then the most recent ones."""
    jobs = Job.objects.for_owner(owner).defer("params")  # a queued import's file is there
    active = list(jobs.filter(status__in=ACTIVE_STATUSES).order_by("-created_at")[:limit])
    done = jobs.exclude(status__in=ACTIVE_STATUSES).order_by("-created_at")
    found = active + list(done[:max(0, limit - len(active))])
    for job in found:
        job.summary = job_summary(job.result)
    return found


def job_summary(result) -> str:
    """The result's plain numbers and words, e.g. "checked 120 · found 2", those of a
    group one level down too (an import's "imported": {"memories": 12, ...})."""
    if not isinstance(result, dict):
        return ""
    flat = {}
    for key, value in result.items():
        flat.update(value if isinstance(value, dict) else {key: value})
    return " · ".join(f"{key.replace('_', ' ')} {value}" for key, value in flat.items()
                      if isinstance(value, int | float | str) and len(str(value)) <= 40)

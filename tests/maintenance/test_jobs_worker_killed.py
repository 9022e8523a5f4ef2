"""kill -9 of a real Huey consumer in the middle of a consolidation job: no memory is
lost, the job is not left "running" forever, and the next worker runs it exactly once."""

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from helpers import child_database_env

from memories import jobs
from memories.models import Job, JobKind, JobStatus, Memory, Status
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]

# The first worker: a real consumer whose consolidation stops half-way (it has begun,
# marked the job running, and waits), so that the kill lands mid-job every time.
SLOW_WORKER = r"""
import sys, time
import django
django.setup()
from django.core.management import call_command
from memories import jobs

def consolidate_slowly(**kwargs):
    open(sys.argv[1], "w").close()
    time.sleep(600)

jobs.RUNNERS["consolidate"] = "__main__.consolidate_slowly"
call_command("run_huey", "--workers", "1", "--no-periodic")
"""


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, what
        time.sleep(0.1)
    return found


def test_a_job_killed_mid_run_is_requeued_once_and_loses_no_memory(alice, stopped_worker,
                                                                   tmp_path):
    then = timezone.now() - timedelta(days=60)
    for text in ("Deploys go through the staging cluster first.",
                 "The payments service retries webhooks three times.",
                 "Alice reviews database migrations on Tuesdays."):
        remember(owner=alice, content=text)
    first = Memory.objects.get(owner=alice, content__startswith="Deploys")
    Memory.objects.create(owner=alice, content="deploys go through the staging cluster first.",
                          content_hash=first.content_hash, embedding=first.embedding,
                          embedding_model=first.embedding_model)
    Memory.objects.filter(owner=alice).update(created_at=then, last_accessed_at=then)
    stored = set(Memory.objects.filter(owner=alice).values_list("pk", flat=True))
    job = jobs.start_job(JobKind.CONSOLIDATE, owner=alice)
    started = tmp_path / "started"
    env = child_database_env(ENGRAM_EMBEDDING_THREADS="1")
    first = subprocess.Popen([sys.executable, "-c", SLOW_WORKER, str(started)], cwd=ROOT,
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    second = None
    try:
        wait_for(started.exists, 120, "the first worker never started the job")
        job.refresh_from_db()
        assert job.status == JobStatus.RUNNING
        assert jobs.requeue_orphaned_jobs() == []  # alive: its job is not taken from it
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
        # PostgreSQL notices the dead connection and drops its lock: the sweep (the
        # periodic task, called here) queues the job again, once.
        requeued = wait_for(jobs.requeue_orphaned_jobs, 30, "the orphan was not found")
        assert requeued == [job.pk] and jobs.requeue_orphaned_jobs() == []
        assert stopped_worker.pending_count() == 1
        second = subprocess.Popen([sys.executable, "manage.py", "run_huey", "--workers", "1",
                                   "--no-periodic"], cwd=ROOT, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: Job.objects.get(pk=job.pk).status == JobStatus.DONE, 180,
                 "the next worker did not finish the job")
    finally:
        for worker in (first, second):
            if worker is not None and worker.poll() is None:
                worker.kill()
                worker.wait(timeout=30)
    job.refresh_from_db()
    assert job.result["deduplicated"] == 1  # merged once, by one run
    assert stored == set(Memory.objects.filter(owner=alice).values_list("pk", flat=True))
    assert Memory.objects.filter(owner=alice, status=Status.ARCHIVED).count() == 1
    assert Memory.objects.filter(owner=alice, status=Status.DELETED).count() == 0

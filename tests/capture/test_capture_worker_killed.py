"""kill -9 of a real Huey consumer in the middle of an extraction: nothing stored is
lost, and what was left is extracted exactly once by the next worker's sweep."""

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from helpers import child_database_env

from memories.capture import observe as observing
from memories.models import (
    ChunkStatus,
    Memory,
    MemoryVersion,
    Observation,
    ObservationChunk,
    ObservationStatus,
    VersionChange,
)

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
SERVICES = ["orders", "billing", "search", "auth", "ledger", "geo", "email", "etl"]
TOOLS = ["PostgreSQL 16", "Redis 7", "ClickHouse", "Kafka", "SQLite", "MinIO"]


def conversation(n: int) -> list[dict]:
    return [{"role": "user", "text": (
        f"We decided to use {TOOLS[i % len(TOOLS)]} for the {SERVICES[i % len(SERVICES)]} "
        f"service number {i} instead of MySQL, because we need transactional DDL and "
        f"ticket ENG-{1000 + i} says so. The rollout for shard {i} finishes in week {i % 52}."
    )} for i in range(n)]


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return found


def test_a_worker_killed_mid_extraction_loses_nothing_and_the_rest_runs_once(
        alice, bob, stopped_worker):
    # The reference: the same conversation extracted without interruption, for bob.
    from memories.capture.extraction import process_observation

    reference = observing.observe(owner=bob, messages=conversation(240), tool_events=[],
                                  session_id="s-kill", project="shop").observation
    process_observation(reference.pk)
    stopped_worker.flush()
    observation = observing.observe(owner=alice, messages=conversation(240), tool_events=[],
                                    session_id="s-kill", project="shop").observation
    assert stopped_worker.pending_count() == 1  # queued once the observation committed
    env = child_database_env(ENGRAM_EMBEDDING_THREADS="1")
    worker = subprocess.Popen([sys.executable, "manage.py", "run_huey", "--workers", "1",
                               "--no-periodic"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        chunks = ObservationChunk.objects.filter(observation=observation)
        wait_for(lambda: chunks.exclude(status=ChunkStatus.PENDING).exists(), 240,
                 "the worker extracted nothing")
        os.kill(worker.pid, signal.SIGKILL)  # mid-observation: some chunks done, some not
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
    done_before = set(chunks.exclude(status=ChunkStatus.PENDING).values_list("pk", flat=True))
    stored_before = set(Memory.objects.filter(owner=alice).values_list("pk", flat=True))
    assert 0 < len(done_before) < chunks.count(), "killed too late to prove anything"
    # The task left the queue with the worker (what waits is contradiction checks).
    assert not [t for t in stopped_worker.pending() if t.name.endswith("process_observation")]

    # The next worker's sweep, as the periodic task runs it once the observation is
    # older than the two minutes it leaves to a queued task.
    Observation.objects.filter(pk=observation.pk).update(
        created_at=observation.created_at - timedelta(minutes=5))
    sweep = ("import django; django.setup(); "
             "from memories.capture.extraction import process_due_observations as p; "
             "print(p())")
    done = subprocess.run([sys.executable, "-c", sweep], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=600)
    assert done.stdout.strip().splitlines()[-1] == "1"

    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert not chunks.filter(status__in=[ChunkStatus.PENDING, ChunkStatus.RETRY]).exists()
    assert stored_before <= set(Memory.objects.filter(owner=alice).values_list("pk", flat=True))
    # Exactly once: a chunk run twice would strengthen the memories it stored itself.
    for memory in Memory.objects.filter(owner=alice):
        again = MemoryVersion.objects.filter(memory=memory, change=VersionChange.REINFORCED,
                                             after__metadata__chunk=memory.metadata["chunk"])
        assert not again.exists(), memory.content
    stored_by = {c.position: len(c.memory_ids) for c in chunks}
    reference_by = {c.position: len(c.memory_ids) for c in reference.chunks.all()}
    assert all(stored_by[p] for p in stored_by if reference_by[p])  # every chunk yielded
    assert Observation.objects.filter(status=ObservationStatus.PENDING).count() == 0

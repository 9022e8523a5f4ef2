"""kill -9 of a real Huey consumer in the middle of embedding a deferred batch (what
re-embedding queues when the provider is down): no memory is lost, and the sweep the
next worker runs embeds each of them once."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import child_database_env

from memories import queue
from memories.models import Memory
from memories.providers.embeddings import get_provider

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
COUNT = 3000


def test_a_worker_killed_mid_embedding_loses_nothing_and_the_sweep_embeds_once(
        alice, stopped_worker):
    Memory.objects.bulk_create([
        Memory(owner=alice, content=f"Service {i} pages the on-call team after {i % 60} "
                                    f"minutes of errors (runbook RB-{i}).",
               content_hash=f"{i:064d}", kind="fact") for i in range(COUNT)])
    queue.embed_memories(list(Memory.objects.values_list("pk", flat=True)))
    assert [t.name.rpartition(".")[2] for t in stopped_worker.pending()] == ["embed_memories"]
    env = child_database_env(ENGRAM_EMBEDDING_THREADS="1")
    worker = subprocess.Popen([sys.executable, "manage.py", "run_huey", "--workers", "1",
                               "--no-periodic"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while stopped_worker.pending_count():  # taken: the worker is embedding now
            assert time.monotonic() < deadline and worker.poll() is None
            time.sleep(0.05)
        time.sleep(1.0)
        assert not Memory.objects.exclude(embedding=None).exists(), "finished too soon"
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert Memory.objects.filter(owner=alice).count() == COUNT
    assert stopped_worker.pending_count() == 0  # the task went with the worker

    sweep = ("import django; django.setup(); "
             "from memories.services.embeddings import embed_pending as e; "
             "print(e(limit=10_000)); print(e(limit=10_000))")
    done = subprocess.run([sys.executable, "-c", sweep], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=600)
    assert done.stdout.split()[-2:] == [str(COUNT), "0"]  # each once, then nothing left
    model = get_provider().model_id
    assert Memory.objects.filter(owner=alice, embedding_model=model).count() == COUNT

"""Several Huey worker processes on one Redis queue (HUEY_REDIS_URL) share the work: each
task is taken by exactly one of them."""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from helpers import service_answers

ROOT = Path(__file__).resolve().parents[2]
TASKS = 60

# Engram's own HUEY (from settings, on Redis), a task that notes which process ran it,
# and either a worker (a Huey consumer) or the producer that queues every task.
SCRIPT = """
import os, sys, time
import django
django.setup()
from huey.contrib.djhuey import HUEY, task

@task()
def note(number, path):
    time.sleep(0.02)
    with open(path, "a") as out:
        out.write(f"{number} {os.getpid()}\\n")

if sys.argv[1] == "produce":
    print(type(HUEY).__name__)
    for number in range(int(sys.argv[3])):
        note(number, sys.argv[2])
else:
    print("ready", flush=True)
    HUEY.create_consumer(workers=1, periodic=False, initial_delay=0.01,
                         max_delay=0.05).run()
"""


def _python(*args, env):
    return [sys.executable, "-c", SCRIPT, *args], {"cwd": ROOT, "env": env}


@pytest.mark.skipif(not service_answers(6379), reason="no Redis answers on 127.0.0.1:6379")
def test_two_workers_take_every_task_exactly_once(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "engram_site.settings",
           "HUEY_REDIS_URL": "redis://127.0.0.1:6379/15",
           "HUEY_NAME": f"engram-test-{uuid.uuid4().hex[:8]}"}  # a queue of its own
    notes = tmp_path / "notes"
    workers = []
    try:
        for _ in range(2):
            command, options = _python("work", env=env)
            worker = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, **options)
            workers.append(worker)
        for worker in workers:
            assert worker.stdout.readline().strip() == "ready"
        command, options = _python("produce", str(notes), str(TASKS), env=env)
        produced = subprocess.run(command, capture_output=True, text=True, timeout=60,
                                  check=False, **options)
        assert produced.returncode == 0, produced.stderr
        assert produced.stdout.strip() == "PriorityRedisHuey"

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
                not notes.exists() or len(notes.read_text().splitlines()) < TASKS):
            time.sleep(0.1)
        time.sleep(0.5)  # a task taken twice would be noted by now
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)

    runs = [line.split() for line in notes.read_text().splitlines()]
    assert sorted(int(number) for number, _ in runs) == list(range(TASKS))  # once each
    ran_in = {pid for _, pid in runs}
    assert ran_in == {str(worker.pid) for worker in workers}  # both took work

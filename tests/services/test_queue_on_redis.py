"""With HUEY_REDIS_URL set, background work queues on Redis instead of PostgreSQL."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import service_answers

ROOT = Path(__file__).resolve().parents[2]


SCRIPT = """
import django
django.setup()
from huey.contrib.djhuey import HUEY
from memories.tasks import embed_memories
HUEY.flush()
embed_memories(["00000000-0000-7000-8000-000000000000"])
print(type(HUEY).__name__, HUEY.pending_count())
HUEY.flush()
"""


@pytest.mark.skipif(not service_answers(6379), reason="no Redis answers on 127.0.0.1:6379")
def test_tasks_wait_in_redis_when_huey_redis_url_is_set():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "engram_site.settings",
           "HUEY_REDIS_URL": "redis://127.0.0.1:6379/15"}
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["PriorityRedisHuey", "1"]

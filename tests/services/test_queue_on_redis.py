"""With HUEY_REDIS_URL set, background work queues on Redis instead of PostgreSQL."""

import pytest
from helpers import run_on_redis, service_answers

SCRIPT = """
from huey.contrib.djhuey import HUEY
from memories.tasks import embed_memories
HUEY.flush()
embed_memories(["00000000-0000-7000-8000-000000000000"])
print(type(HUEY).__name__, HUEY.pending_count())
HUEY.flush()
"""


@pytest.mark.skipif(not service_answers(6379), reason="no Redis answers on 127.0.0.1:6379")
def test_tasks_wait_in_redis_when_huey_redis_url_is_set():
    assert run_on_redis(SCRIPT).split() == ["PriorityRedisHuey", "1"]

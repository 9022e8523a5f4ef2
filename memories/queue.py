"""The one way to queue background work: by the task's dotted path, once the current
transaction commits.

Producers name the task instead of importing it (Zulip's `queue_event_on_commit`), so the
services that queue work never import the workers that call them back: `memories.tasks`
imports services, never the other way round. If the queue is down, the work is only
delayed: what it would process is stored, and a sweep, a scan or the job list picks it up,
so the request that stored it still succeeds.
"""

import logging

from django.db import transaction
from django.utils.module_loading import import_string

log = logging.getLogger(__name__)


def after_commit(task: str, *args) -> None:
    """Queue the Huey task at dotted path `task` with `args` once the current transaction
    commits (at once outside a transaction)."""

    def queue():
        try:
            import_string(task)(*args)
        except Exception:
            log.warning("Could not queue %s%r; it waits for its sweep.", task, args,
                        exc_info=True)

    transaction.on_commit(queue)


def embed_memories(memory_ids) -> None:
    """Embed memories stored while the embedding provider was down."""
    after_commit("memories.tasks.embed_memories", [str(pk) for pk in memory_ids])


def check_contradictions(memory_ids) -> None:
    """Judge new memories against their neighbours ("Contradiction Scanner"); it needs
    their embeddings, so deferred ones are checked once embedded."""
    after_commit("memories.tasks.check_contradictions", [str(pk) for pk in memory_ids])


def process_observation(observation_id) -> None:
    after_commit("memories.tasks.process_observation", str(observation_id))


def run_job(job_id) -> None:
    after_commit("memories.tasks.run_job", str(job_id))

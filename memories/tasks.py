"""Huey tasks: take ids, call a service. No logic here.

Producers queue these by dotted path (memories/queue.py) and never import this module.
"""

from huey import crontab
from huey.contrib.djhuey import db_periodic_task, db_task

from . import jobs
from .capture import extraction
from .maintenance import contradictions
from .models import JobKind
from .services import embeddings, vector_indexes


@db_task(retries=8, retry_delay=30)
def embed_memories(memory_ids):
    embeddings.embed_memories(memory_ids)


@db_periodic_task(crontab(minute="*/10"))
def embed_pending_memories():
    embeddings.embed_pending()


@db_task(retries=3, retry_delay=60)
def index_owner_vectors(owner_id):
    vector_indexes.index_owner_vectors(owner_id)


@db_periodic_task(crontab(minute="*/10"))
def index_large_owners():
    vector_indexes.index_large_owners()


@db_task(retries=3, retry_delay=60)
def index_project_vectors(project_id):
    vector_indexes.index_project_vectors(project_id)


@db_periodic_task(crontab(minute="*/10"))
def index_large_projects():
    vector_indexes.index_large_projects()


@db_task(retries=3, retry_delay=60)
def process_observation(observation_id):
    extraction.process_observation(observation_id)


@db_periodic_task(crontab(minute="*/5"))
def process_due_observations():
    extraction.process_due_observations()


@db_task(retries=3, retry_delay=60)
def check_contradictions(memory_ids):
    # Queued by releases before checks waited as PendingCheck rows; kept so that such
    # tasks still run after a deploy.
    contradictions.check_contradictions(memory_ids)


@db_task(retries=3, retry_delay=30)
def check_pending_contradictions(owner_id):
    contradictions.check_pending(owner_id)


@db_periodic_task(crontab(minute="*"))
def drain_stalled_checks():
    contradictions.drain_stalled_checks()


@db_task()
def run_job(job_id):
    jobs.run_job(job_id)


@db_periodic_task(crontab(minute="*"))
def requeue_orphaned_jobs():
    jobs.requeue_orphaned_jobs()


@db_periodic_task(crontab(hour="2", minute="15"))
def nightly_consolidation():
    jobs.run_scheduled(JobKind.CONSOLIDATE)


@db_periodic_task(crontab(hour="3", minute="15"))
def nightly_forgetting():
    jobs.run_scheduled(JobKind.FORGET)


@db_periodic_task(crontab(hour="4", minute="15"))
def nightly_purge():
    jobs.run_scheduled(JobKind.PURGE)

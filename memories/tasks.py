"""Huey tasks: take ids, call a service. No logic here."""

from huey import crontab
from huey.contrib.djhuey import db_periodic_task, db_task

from . import capture, maintenance, services
from .models import JobKind


@db_task(retries=8, retry_delay=30)
def embed_memories(memory_ids):
    services.embed_memories(memory_ids)


@db_periodic_task(crontab(minute="*/10"))
def embed_pending_memories():
    services.embed_pending()


@db_task(retries=3, retry_delay=60)
def process_observation(observation_id):
    capture.process_observation(observation_id)


@db_periodic_task(crontab(minute="*/5"))
def process_due_observations():
    capture.process_due_observations()


@db_task(retries=3, retry_delay=60)
def check_contradictions(memory_ids):
    maintenance.check_contradictions(memory_ids)


@db_task()
def run_job(job_id):
    maintenance.run_job(job_id)


@db_periodic_task(crontab(hour="2", minute="15"))
def nightly_consolidation():
    maintenance.run_scheduled(JobKind.CONSOLIDATE)


@db_periodic_task(crontab(hour="3", minute="15"))
def nightly_forgetting():
    maintenance.run_scheduled(JobKind.FORGET)


@db_periodic_task(crontab(hour="4", minute="15"))
def nightly_purge():
    maintenance.run_scheduled(JobKind.PURGE)

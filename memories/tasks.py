"""Huey tasks: take ids, call a service. No logic here."""

from huey import crontab
from huey.contrib.djhuey import db_periodic_task, db_task

from . import services


@db_task(retries=8, retry_delay=30)
def embed_memories(memory_ids):
    services.embed_memories(memory_ids)


@db_periodic_task(crontab(minute="*/10"))
def embed_pending_memories():
    services.embed_pending()

"""Huey tasks of reflection: thin, as in memories/tasks.py."""

from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from memories import jobs
from memories.models import JobKind


@db_periodic_task(crontab(minute="40"))
def reflect_where_due():
    """Hourly: every owner whose trigger fired reflects (seed 000, Algorithm 6)."""
    jobs.run_scheduled(JobKind.REFLECT)

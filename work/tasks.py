"""The work log's background work: thin, ids in, a service call."""

from huey import crontab
from huey.contrib.djhuey import db_periodic_task, db_task

from . import services


@db_task()
def learn_from_task(task_id):
    services.learn_from_task(task_id)


@db_periodic_task(crontab(minute="*/5"))
def sweep_tasks():
    """Pause the tasks of quiet sessions, and mine the ended tasks the queue missed."""
    services.pause_idle_tasks()
    services.learn_from_ended_tasks()

"""The work log listens to the core: each observation an agent hands over becomes tool
executions, file interactions and task updates. Connected in WorkConfig.ready()."""

import logging

from django.db import DatabaseError, transaction
from django.dispatch import receiver

from memories.signals import observation_received, source_erased

from . import services

log = logging.getLogger(__name__)


@receiver(observation_received, dispatch_uid="work.record_observation")
def record_observation(sender, *, owner, observation, **kwargs):
    """Runs in the observe request's transaction, inside a savepoint: a failure here is
    logged and rolled back alone, and the observation is stored all the same."""
    try:
        with transaction.atomic():
            services.record_observation(owner, observation)
    except (DatabaseError, ValueError, TypeError, KeyError):
        log.exception("The work log could not record observation %s", observation.pk)


@receiver(source_erased, dispatch_uid="work.forget_erased_source")
def forget_erased_source(sender, *, owner_id, tool_events, scrub, **kwargs):
    """Runs in the erase's transaction, not in a savepoint: a copy left behind would
    break the erase's promise, so a failure fails the erase."""
    return services.forget_erased_source(owner_id, tool_events, scrub)

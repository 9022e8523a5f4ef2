"""Reflection listens to the core: new memories and observations count towards its
trigger, and changed evidence flags the insights that cite it. Connected in
ReflectionConfig.ready()."""

from django.dispatch import receiver

from memories.signals import (
    evidence_changed,
    evidence_restored,
    memories_stored,
    observation_received,
)

from . import services
from .models import Insight


@receiver(memories_stored, dispatch_uid="reflection.count_new_memories")
def count_new_memories(sender, *, owner, memories, **kwargs):
    """Memories reflection may feed on (not its own synthetic ones) count towards the
    importance trigger."""
    services.note_new_memories(owner, [m.importance for m in memories if not m.is_synthetic])


@receiver(observation_received, dispatch_uid="reflection.count_observation")
def count_observation(sender, *, owner, **kwargs):
    services.note_observation(owner)


@receiver(evidence_changed, dispatch_uid="reflection.flag_insights")
def flag_insights(sender, *, memory_ids, reason, seen_by=None, **kwargs):
    """Answers with the ids it flagged, which an erase lists in its receipt: of another
    user's private insights, none (each is flagged all the same)."""
    flagged = services.flagged_insights_citing(memory_ids, reason)
    if seen_by is not None:
        flagged = list(Insight.objects.readable_by(seen_by).filter(pk__in=flagged)
                       .values_list("pk", flat=True))
    return {"insights_flagged": flagged}


@receiver(evidence_restored, dispatch_uid="reflection.unflag_insights")
def unflag_insights(sender, *, memory_ids, undone, **kwargs):
    services.unflag_insights_citing(memory_ids, undone)

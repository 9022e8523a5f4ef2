import hashlib

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.utils import timezone

from memories.models import Memory, OwnedQuerySet, new_id, readable_by


class ReflectionState(models.Model):
    """Per owner, what has accumulated since the last reflection (seed 000, Algorithm 6).

    Stored memories add their importance and observations count one each, in one UPDATE
    (see services.note_new_memories); a reflection resets both.
    """

    owner = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 primary_key=True, related_name="reflection_state")
    accumulated_importance = models.FloatField(default=0.0)
    observations_since = models.IntegerField(default=0)
    # When the owner last reflected; the 24-hour clock starts at created_at before that.
    last_reflected_at = models.DateTimeField(null=True, blank=True)
    last_reason = models.CharField(max_length=40, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    objects = OwnedQuerySet.as_manager()

    @property
    def clock_started_at(self):
        return self.last_reflected_at or self.created_at


class InsightStatus(models.TextChoices):
    PENDING_REVIEW = "pending_review"
    APPROVED = "approved"
    REJECTED = "rejected"
    FLAGGED = "flagged"  # a memory it cites was superseded, deleted or edited


class InsightQuerySet(OwnedQuerySet):
    def readable_by(self, user):
        """The insights whose memory `user` reads (an insight is a memory: private to
        whoever reflected, unless moved into a project)."""
        return self.filter(readable_by(user, "memory__"))

    def citing(self, memory_ids):
        return self.filter(cited_ids__overlap=list(memory_ids))


def cited_key(cited) -> str:
    """What an insight cites, as one key: the same set of memories in any order."""
    return hashlib.sha256(",".join(sorted(str(i) for i in cited)).encode()).hexdigest()


class Insight(models.Model):
    """An insight reflection drew from memories, stored as a synthetic semantic memory
    that cites them ("cites" links, and `cited_ids`, which outlive a purge)."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="insights", db_index=False)
    memory = models.OneToOneField(Memory, on_delete=models.CASCADE, related_name="insight")
    question = models.TextField()
    topic = models.CharField(max_length=200, blank=True, default="")  # see _supersede_older
    cited_ids = ArrayField(models.UUIDField())
    # What makes two insights the same: their text and the set of memories they cite.
    text_hash = models.CharField(max_length=64)
    cited_key = models.CharField(max_length=64)
    importance = models.FloatField(default=8.0)  # as proposed; the memory is stored at 8
    round = models.IntegerField(default=0)  # refinement rounds that changed the text
    reflected_by = models.CharField(max_length=100, blank=True, default="")
    status = models.CharField(max_length=16, choices=InsightStatus.choices,
                              default=InsightStatus.PENDING_REVIEW)
    flagged_reason = models.TextField(blank=True, default="")
    # While flagged, the status it had before: undoing the deletion that flagged it puts
    # that back. Null once a person reviews it or more of its evidence changes.
    status_before_flag = models.CharField(max_length=16, choices=InsightStatus.choices,
                                          null=True, blank=True)
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="+")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    # A newer insight on the same question and topic that cites more of the evidence.
    superseded_by = models.ForeignKey("self", null=True, blank=True,
                                      on_delete=models.SET_NULL, related_name="supersedes")
    created_at = models.DateTimeField(default=timezone.now)

    objects = InsightQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "text_hash", "cited_key"],
                                    name="insight_once_per_owner"),
        ]
        indexes = [
            models.Index(fields=["owner", "status", "-created_at"]),
            GinIndex(fields=["cited_ids"], name="insight_cited_ids_gin"),
        ]

    def __str__(self):
        return self.memory.content[:80]

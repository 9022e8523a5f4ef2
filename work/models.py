"""The work log (seed 004 "Episodic Memory"), in PostgreSQL next to the memories.

Every row carries its owner and project (a string, like a memory's project) and, where the
hook knows it, the agent's session, so isolation is one filter on every query.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from memories.models import Memory, Observation, OwnedQuerySet


class TaskStatus(models.TextChoices):
    ACTIVE = "active"
    COMPLETED = "completed"
    FAILED = "failed"
    PAUSED = "paused"  # the session went quiet before it said the turn was over


class Intent(models.TextChoices):
    """Seed 004's task intents."""
    CODE_READING = "code_reading"
    CODE_WRITING = "code_writing"
    PROJECT_FIXING = "project_fixing"
    PROJECT_EXPLORATION = "project_exploration"


class Operation(models.TextChoices):
    READ = "read"
    WRITE = "write"
    EDIT = "edit"
    SEARCH = "search"


class PatternKind(models.TextChoices):
    CO_EDIT = "co_edit"  # files edited together
    ERROR_FIX = "error_fix"  # a failing command, the files edited, the command passing
    WORKFLOW = "workflow"  # commands a task runs in the same order, again and again


class ArtifactKind(models.TextChoices):
    COMMIT = "commit"
    PR = "pr"
    ADR = "adr"
    FILE = "file"


class Scoped(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="+")
    project = models.CharField(max_length=200, blank=True, default="")

    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True


class Task(Scoped):
    """A user-level task: from the prompt that asked for it to the end of the turn."""

    session_id = models.CharField(max_length=200, blank=True, default="")
    description = models.TextField(blank=True, default="")  # the prompt, cut
    intent = models.CharField(max_length=32, choices=Intent.choices, blank=True, default="")
    status = models.CharField(max_length=16, choices=TaskStatus.choices,
                              default=TaskStatus.ACTIVE)
    started_at = models.DateTimeField(default=timezone.now)
    last_activity_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)
    files_touched = models.JSONField(default=list, blank=True)  # [path, ...] in first-touch order
    tools_used = models.JSONField(default=dict, blank=True)  # {tool_name: count}
    outcome = models.TextField(blank=True, default="")  # the agent's last reply, cut
    learned_at = models.DateTimeField(null=True, blank=True)  # its patterns were mined

    class Meta:
        indexes = [models.Index(fields=["owner", "project", "status", "-started_at"]),
                   models.Index(fields=["owner", "session_id", "status"])]


class ToolExecution(Scoped):
    session_id = models.CharField(max_length=200, blank=True, default="")
    task = models.ForeignKey(Task, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="tool_executions", db_index=False)
    observation = models.ForeignKey(Observation, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="+")
    tool_name = models.CharField(max_length=200)
    parameters = models.JSONField(default=dict, blank=True)
    command = models.TextField(blank=True, default="")  # a shell tool's command line
    command_head = models.CharField(max_length=200, blank=True, default="")  # `git commit`
    success = models.BooleanField(default=True)
    error_message = models.TextField(blank=True, default="")
    error_signature = models.CharField(max_length=400, blank=True, default="")
    duration_ms = models.IntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["owner", "project", "tool_name", "created_at"]),
                   models.Index(fields=["task", "created_at"])]


class FileInteraction(Scoped):
    session_id = models.CharField(max_length=200, blank=True, default="")
    task = models.ForeignKey(Task, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="file_interactions")
    tool_execution = models.ForeignKey(ToolExecution, null=True, blank=True,
                                       on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=1000)
    operation = models.CharField(max_length=16, choices=Operation.choices)
    line_start = models.IntegerField(null=True, blank=True)
    line_end = models.IntegerField(null=True, blank=True)
    success = models.BooleanField(default=True)
    context = models.TextField(blank=True, default="")  # why (a search's pattern, a pruning)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["owner", "project", "path", "-created_at"]),
                   models.Index(fields=["owner", "project", "operation", "created_at"])]


class ContextSnapshot(Scoped):
    """What an agent's context window held when it was pruned (seed 004)."""

    session_id = models.CharField(max_length=200, blank=True, default="")
    task = models.ForeignKey(Task, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    items = models.JSONField(default=list)  # [{id, type, tokens, relevance}]
    pruned_items = models.JSONField(default=list, blank=True)
    total_tokens = models.BigIntegerField()  # up to 2,000 items of 10 million tokens
    reason = models.CharField(max_length=32, default="pruning")
    created_at = models.DateTimeField(default=timezone.now)


class LearnedPattern(Scoped):
    kind = models.CharField(max_length=16, choices=PatternKind.choices)
    key = models.CharField(max_length=400)  # what makes two observations the same pattern
    data = models.JSONField(default=dict)
    confidence = models.FloatField(default=0.0)
    observed_count = models.IntegerField(default=0)
    first_seen = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)
    memory = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+")  # the procedural memory it became

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "project", "kind", "key"],
                                               name="work_pattern_once")]


class EpisodeArtifact(Scoped):
    """What a task left behind (seed 001 `episode_artifacts`)."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="artifacts",
                             db_index=False)
    kind = models.CharField(max_length=16, choices=ArtifactKind.choices)
    reference = models.CharField(max_length=400)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["task", "kind", "reference"],
                                               name="work_artifact_once")]

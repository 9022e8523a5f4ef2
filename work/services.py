"""Writes to the work log: what an observation says an agent did, the end of its tasks,
the patterns tasks show (and the procedural memories strong ones become), and what a
pruned context window held."""

import logging
import re
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from memories import queue
from memories.engine.redaction import as_json
from memories.models import Kind, MemoryType, Observation
from memories.services.remembering import remember

from . import engine
from .models import (
    ArtifactKind,
    ContextSnapshot,
    EpisodeArtifact,
    FileInteraction,
    LearnedPattern,
    Operation,
    PatternKind,
    Task,
    TaskStatus,
    ToolExecution,
)
from .selectors import CO_EDIT_SECONDS, EDITS

ERASED = "[erased]"  # what an erase leaves of a copied text (forget_erased_source)

log = logging.getLogger(__name__)

MAX_DESCRIPTION = 1000
MAX_OUTCOME = 1000
# A task names at most this many files, in first-touch order (the dashboard and predictions
# read the first few); every touch stays in FileInteraction. Unbounded, each tool event of
# a session walking a large tree would rewrite an ever longer list.
MAX_FILES_TOUCHED = 500
MAX_PATH = FileInteraction._meta.get_field("path").max_length
_COMMIT = re.compile(r"^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\]", re.MULTILINE)
# Host, then two to four path segments, none crossing a "/": `https://\S+/pull/` scanned
# to the end of the text from every "https://" in it, so an answer repeating it took the
# square of its length (2.3 MB of them held one /observe 25 s).
_PULL_REQUEST = re.compile(r"https://[^\s/]+(?:/[^\s/]+){2,4}/pull/\d+")
_ADR = re.compile(r"(^|/)(adr|decisions?)/|(^|/)adr[-_]?\d+", re.IGNORECASE)


# -- from observations -------------------------------------------------------------------

def record_observation(owner, observation) -> Task | None:
    """The work log's share of an observation: each tool event becomes a tool execution
    and its file interactions in the session's active task (opened by the first event of
    a turn); a message-bearing observation (the hook's Stop, PreCompact or SessionEnd)
    names the task by the prompt that asked for it and, with the agent's reply or saying
    the turn ended (`turn_ended`), ends it."""
    now = observation.created_at
    project, session = observation.project, observation.session_id
    task = None
    for event in observation.tool_events:
        task = task or _active_task(owner, project, session, now, create=True)
        _record_tool_event(task, observation, event, now)
    prompts = [m["text"] for m in observation.messages if m.get("role") == "user" and m["text"]]
    replies = [m["text"] for m in observation.messages
               if m.get("role") == "assistant" and m["text"]]
    # The hook sends no message twice: a turn whose reply repeats an earlier one ends with
    # its prompt alone, or nothing, and only turn_ended says so.
    ended = bool(replies) or observation.turn_ended
    if prompts or ended:
        task = task or _active_task(owner, project, session, now, create=bool(prompts))
    if task is None:
        return None
    if prompts and not task.description:
        task.description = prompts[0].strip()[:MAX_DESCRIPTION]
    if ended:
        _finish(task, replies[-1] if replies else "", now)
    task.save()
    return task


def _active_task(owner, project, session, now, *, create: bool) -> Task | None:
    # One caller a session at a time, to the end of its transaction: Claude Code runs
    # tool calls side by side, each hook sends its own /observe, and each found no
    # active task the others had not committed yet, so one turn opened seven.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('engram.work.session'), "
                       "hashtext(%s))", [f"{owner.pk}:{project}:{session}"])
    task = (Task.objects.select_for_update().filter(owner=owner, project=project,
                                                    session_id=session,
                                                    status=TaskStatus.ACTIVE)
            .order_by("-started_at").first())
    if task is None and create:
        task = Task.objects.create(owner=owner, project=project, session_id=session,
                                   started_at=now, last_activity_at=now)
    return task


def _record_tool_event(task: Task, observation, event: dict, now: datetime) -> None:
    call = engine.read_tool_call(event["tool_name"], event.get("input"),
                                 event.get("response"), task.project)
    success = bool(event.get("success", True))
    error = call.error if not success else ""
    execution = ToolExecution.objects.create(
        owner=task.owner, project=task.project, session_id=task.session_id, task=task,
        observation=observation, tool_name=event["tool_name"], parameters=call.parameters,
        command=call.command, command_head=engine.command_head(call.command)[:200],
        success=success, error_message=error,
        error_signature=engine.error_signature(error)[:400] if error else "",
        duration_ms=engine.whole_number(event.get("duration_ms")), created_at=now)
    FileInteraction.objects.bulk_create([
        FileInteraction(owner=task.owner, project=task.project, session_id=task.session_id,
                        task=task, tool_execution=execution, path=touch.path[:MAX_PATH],
                        operation=touch.operation, line_start=touch.line_start,
                        line_end=touch.line_end, success=success, context=touch.context,
                        created_at=now)
        for touch in call.files])
    task.tools_used[event["tool_name"]] = task.tools_used.get(event["tool_name"], 0) + 1
    for touch in call.files:
        path = touch.path[:MAX_PATH]
        if touch.operation != Operation.SEARCH and path not in task.files_touched \
                and len(task.files_touched) < MAX_FILES_TOUCHED:
            task.files_touched.append(path)
    task.last_activity_at = now
    if success:
        _note_artifacts(task, call, as_json(event.get("response")), now)


def _note_artifacts(task: Task, call: engine.ToolCall, response, now) -> None:
    text = response if isinstance(response, str) else str((response or {}).get("stdout", "")
                                                          if isinstance(response, dict) else "")
    found = []
    if call.command.lstrip().startswith("git commit"):
        found += [(ArtifactKind.COMMIT, sha) for sha in _COMMIT.findall(text)]
    if "pr create" in call.command:
        found += [(ArtifactKind.PR, url) for url in _PULL_REQUEST.findall(text)]
    for touch in call.files:
        if touch.operation == Operation.WRITE:
            found.append((ArtifactKind.ADR if _ADR.search(touch.path) else ArtifactKind.FILE,
                          touch.path))
    for kind, reference in found:
        EpisodeArtifact.objects.get_or_create(
            task=task, kind=kind, reference=reference[:400],
            defaults={"owner": task.owner, "project": task.project, "created_at": now})


def _finish(task: Task, reply: str, now: datetime) -> None:
    last = task.tool_executions.order_by("-created_at", "-pk").first()
    task.status = TaskStatus.FAILED if last is not None and not last.success \
        else TaskStatus.COMPLETED
    task.outcome = reply.strip()[:MAX_OUTCOME]
    task.completed_at = now
    task.intent = engine.intent_of(task.description, edited=task.file_interactions.filter(
        operation__in=EDITS).exists())
    queue.after_commit("work.tasks.learn_from_task", task.pk, priority=queue.INTERACTIVE)


def pause_idle_tasks(now: datetime | None = None) -> int:
    """Active tasks whose session went quiet (no tool event or message for
    ENGRAM_WORK_IDLE_MINUTES) are paused: "what was I working on" shows them."""
    now = now or timezone.now()
    cutoff = now - timedelta(minutes=settings.ENGRAM_WORK_IDLE_MINUTES)
    return Task.objects.filter(status=TaskStatus.ACTIVE, last_activity_at__lt=cutoff) \
        .update(status=TaskStatus.PAUSED)


# -- learning patterns ---------------------------------------------------------------------

def learn_from_task(task_id: int, now: datetime | None = None) -> list[LearnedPattern]:
    """Mine one ended task for co-edit, error -> fix and workflow patterns (once), and
    turn the strong ones into procedural memories."""
    now = now or timezone.now()
    with transaction.atomic():
        task = Task.objects.select_for_update().filter(pk=task_id, learned_at__isnull=True) \
            .exclude(status=TaskStatus.ACTIVE).first()
        if task is None:
            return []
        steps = _steps(task)
        learned = [*_learn_co_edits(task, now), *_learn_error_fixes(task, steps, now),
                   *_learn_workflow(task, steps, now)]
        task.learned_at = now
        task.save(update_fields=["learned_at"])
    for pattern in learned:
        _promote(pattern)
    return learned


def learn_from_ended_tasks(now: datetime | None = None, limit: int = 500) -> int:
    """The sweep behind the queue: ended tasks whose patterns were never mined."""
    ids = list(Task.objects.filter(learned_at__isnull=True)
               .exclude(status=TaskStatus.ACTIVE).values_list("pk", flat=True)[:limit])
    for task_id in ids:
        learn_from_task(task_id, now)
    return len(ids)


def _steps(task: Task) -> list[engine.Step]:
    # an erased command (forget_erased_source) is no step: it would teach "[erased]"
    steps = [(e.created_at, e.pk, 0, engine.Step(e.created_at, command=e.command,
                                                 success=e.success, error=e.error_message))
             for e in task.tool_executions.exclude(command__in=("", ERASED))]
    steps += [(f.created_at, f.tool_execution_id or 0, 1, engine.Step(f.created_at, edited=f.path))
              for f in task.file_interactions.filter(operation__in=EDITS, success=True)]
    return [step for *_, step in sorted(steps, key=lambda s: s[:3])]


def _observe_pattern(task, kind, key, data, now, chances) -> LearnedPattern:
    pattern, _ = LearnedPattern.objects.select_for_update().get_or_create(
        owner=task.owner, project=task.project, kind=kind, key=key[:400],
        defaults={"data": data, "first_seen": now, "last_seen": now})
    pattern.observed_count += 1
    pattern.data = {**pattern.data, **data}
    pattern.last_seen = now
    pattern.confidence = engine.pattern_confidence(pattern.observed_count, chances)
    pattern.save()
    return pattern


def _learn_co_edits(task: Task, now) -> list[LearnedPattern]:
    edits = list(task.file_interactions.filter(operation__in=EDITS, success=True)
                 .values_list("path", "created_at"))
    pairs = engine.co_edited_pairs(edits, within_seconds=CO_EDIT_SECONDS)
    # Chances: the tasks that edited the busier of the two files, counted for every file
    # of the task at once rather than twice a pair.
    edited_in = dict(FileInteraction.objects.filter(
        owner=task.owner, project=task.project, operation__in=EDITS,
        path__in={path for pair in pairs for path in pair})
        .order_by().values("path").annotate(tasks=Count("task_id", distinct=True))
        .values_list("path", "tasks"))
    return [_observe_pattern(task, PatternKind.CO_EDIT, f"{a} + {b}", {
                "files": [a, b], "within_seconds": CO_EDIT_SECONDS}, now,
                max(edited_in.get(a, 0), edited_in.get(b, 0)))
            for a, b in pairs]


def _learn_error_fixes(task: Task, steps, now) -> list[LearnedPattern]:
    learned = []
    for fix in engine.error_fixes(steps):
        chances = ToolExecution.objects.filter(
            owner=task.owner, project=task.project, success=False,
            command_head=fix.command, error_signature=fix.signature[:400]) \
            .values("task_id").distinct().count()
        learned.append(_observe_pattern(task, PatternKind.ERROR_FIX,
                                        f"{fix.command}: {fix.signature}", {
                                            "command": fix.command, "signature": fix.signature,
                                            "error": fix.error, "fix_files": fix.fix_files},
                                        now, chances))
    return learned


def _learn_workflow(task: Task, steps, now) -> list[LearnedPattern]:
    heads = engine.workflow_of(steps)
    if not heads:
        return []
    chances = ToolExecution.objects.filter(owner=task.owner, project=task.project,
                                           command_head=heads[0], success=True) \
        .values("task_id").distinct().count()
    return [_observe_pattern(task, PatternKind.WORKFLOW, " → ".join(heads), {
        "steps": list(heads), "intent": task.intent}, now, chances)]


def pattern_text(pattern: LearnedPattern) -> str:
    """A learned pattern in one line, compressed as seed 001's workflows are
    (`deploy: test → build → stage → verify → prod`)."""
    data = pattern.data
    if pattern.kind == PatternKind.WORKFLOW:
        name = (data.get("intent") or "work").replace("_", " ")
        return f"workflow ({name}): {' → '.join(data['steps'])}"
    if pattern.kind == PatternKind.CO_EDIT:
        return f"co-edit: {data['files'][0]} and {data['files'][1]} are edited together"
    files = ", ".join(data.get("fix_files", [])[:5])
    return f"error fix: `{data['command']}` failing with \"{data['error'][:200]}\" was fixed " \
           f"by editing {files}"


_MEMORY_KINDS = {PatternKind.WORKFLOW: Kind.WORKFLOW, PatternKind.CO_EDIT: Kind.PATTERN,
                 PatternKind.ERROR_FIX: Kind.ERROR}


def _promote(pattern: LearnedPattern) -> None:
    """A pattern seen ENGRAM_WORK_PATTERN_MIN_COUNT times with at least
    ENGRAM_WORK_PATTERN_MIN_CONFIDENCE becomes a procedural memory, once."""
    if (pattern.memory_id or pattern.observed_count < settings.ENGRAM_WORK_PATTERN_MIN_COUNT
            or pattern.confidence < settings.ENGRAM_WORK_PATTERN_MIN_CONFIDENCE):
        return
    result = remember(owner=pattern.owner, content=pattern_text(pattern),
                      memory_type=MemoryType.PROCEDURAL, kind=_MEMORY_KINDS[pattern.kind],
                      project=pattern.project, tags=["work-log"],
                      metadata={"work_pattern": pattern.pk, "observed_count":
                                pattern.observed_count, "confidence": pattern.confidence})
    LearnedPattern.objects.filter(pk=pattern.pk).update(memory=result.memory)
    pattern.memory = result.memory


# -- erasure ----------------------------------------------------------------------------


def forget_erased_source(owner_id, tool_events: dict, scrub) -> dict:
    """An erase removed raw text from the owner's observations (memories.signals.
    source_erased): the work log lets its copies go. The executions of the tool events
    named lose their input, command and error (tool, outcome, timing and files stay, for
    the success rates); the error-fix patterns learned from those errors go; prompts,
    replies, search patterns and context-window summaries quoting the erased text or the
    removed messages are scrubbed. Returns the receipt's share: ids per table."""
    executions = set()
    for observation_id, indexes in tool_events.items():
        rows = list(ToolExecution.objects.filter(owner_id=owner_id, observation_id=observation_id)
                    .order_by("pk").values_list("pk", flat=True))
        # One execution per tool event kept, in order; if the two disagree (the work log
        # failed part way), every execution of it goes rather than the wrong one.
        wanted = set(indexes)
        if len(rows) == len(Observation.objects.get(pk=observation_id).tool_events):
            rows = [pk for index, pk in enumerate(rows) if index in wanted]
        executions.update(rows)
    wiped = ToolExecution.objects.filter(pk__in=executions)
    learned_from = {(project, head, signature) for project, head, signature in
                    wiped.filter(success=False).values_list("project", "command_head",
                                                            "error_signature")}
    patterns = set()
    for project, head, signature in learned_from:
        patterns |= set(LearnedPattern.objects.filter(
            owner_id=owner_id, project=project, kind=PatternKind.ERROR_FIX,
            key=f"{head}: {signature}"[:400]).values_list("pk", flat=True))
    LearnedPattern.objects.filter(pk__in=patterns).delete()
    wiped.exclude(command="").update(command=ERASED)
    wiped.exclude(error_message="").update(error_message=ERASED)
    wiped.update(parameters={}, error_signature="")
    FileInteraction.objects.filter(tool_execution__in=executions).update(context="")
    mine = {"owner_id": owner_id}
    executions |= scrub(ToolExecution.objects.filter(**mine), text=("command", "error_message"),
                        json=("parameters",))
    return {"scrubbed": {
        "tool_executions": executions,
        "tasks": scrub(Task.objects.filter(**mine), text=("description", "outcome")),
        "file_interactions": scrub(FileInteraction.objects.filter(**mine), text=("context",)),
        # an agent's pruned window names what it held by a summary: a memory's text too
        "context_snapshots": scrub(ContextSnapshot.objects.filter(**mine),
                                   json=("items", "pruned_items")),
        "learned_patterns": scrub(LearnedPattern.objects.filter(**mine), json=("data",))},
        "removed": {"learned_patterns": patterns}}


# -- working memory ---------------------------------------------------------------------

def record_pruning(owner, *, project: str, session_id: str, items, pruning,
                   now: datetime) -> ContextSnapshot:
    """Seed 004's summarise_to_episodic and snapshot_context: a pruned code snippet is
    noted as a read of its lines in the work log, and the window is snapshotted with
    what was removed and why."""
    with transaction.atomic():
        return _record_pruning(owner, project, session_id, items, pruning, now)


def _record_pruning(owner, project, session_id, items, pruning, now) -> ContextSnapshot:
    task = _active_task(owner, project, session_id, now, create=False)
    pruned_ids = {item.id for item in pruning.pruned}
    FileInteraction.objects.bulk_create([
        FileInteraction(owner=owner, project=project, session_id=session_id, task=task,
                        path=engine.relative_path(item.file_path, project)[:1000],
                        operation=Operation.READ,
                        line_start=item.line_range[0] if item.line_range else None,
                        line_end=item.line_range[1] if item.line_range else None,
                        context=f"pruned from the context window: {item.summary}"[:2000],
                        created_at=now)
        for item in pruning.pruned if item.type == "code_snippet" and item.file_path])

    def described(item):
        return {"id": item.id, "type": item.type, "tokens": item.tokens,
                "relevance": round(pruning.scores.get(item.id, 100.0), 4),
                "age_minutes": round((now - item.timestamp).total_seconds() / 60, 1),
                **({"summary": item.summary[:200]} if item.summary else {})}

    return ContextSnapshot.objects.create(
        owner=owner, project=project, session_id=session_id, task=task,
        items=[described(i) for i in items if i.id not in pruned_ids],
        pruned_items=[described(i) for i in pruning.pruned],
        total_tokens=pruning.total_tokens - pruning.freed, reason="pruning", created_at=now)

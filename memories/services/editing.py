"""Editing what is stored: update, delete and restore (every change kept as a version),
feedback from agents and people, and bulk changes with their undo."""

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from .. import queue, selectors, signals
from ..engine.dedup import content_hash
from ..engine.redaction import redact_value
from ..models import (
    Memory,
    MemoryVersion,
    Project,
    Scope,
    Status,
    UsageEvent,
    UsageKind,
    VersionChange,
)
from ..providers.embeddings import get_provider
from ..providers.errors import ProviderError
from .embeddings import embed_memories, embed_one
from .validation import (
    clean_tags,
    content_error,
    importance_error,
    noting_redactions,
    tags_error,
)

EDITABLE_FIELDS = ("content", "importance", "tags", "status", "pinned", "scope", "shared_with")


def _scope_error(memory: Memory, by, scope, shared_with) -> str | None:
    """Why `by` may not move `memory` to `scope` (with `shared_with` for a project)."""
    if scope not in Scope.values:
        return f"Unknown scope {scope!r}: use one of {', '.join(Scope.values)}."
    if scope == Scope.PROJECT:
        if not isinstance(shared_with, Project):
            return "Name the project to share it with."
        if by is not None and not shared_with.memberships.writers().filter(user=by).exists():
            return f"Only an owner or editor of project {shared_with.name!r} may share into it."
    elif shared_with is not None:
        return f"A {scope} memory is shared with no project."
    elif scope == Scope.PRIVATE and by is not None and by.pk != memory.owner_id \
            and memory.scope != Scope.PRIVATE:
        return "Only its author can make a memory private: it becomes the author's alone."
    elif scope == Scope.SYSTEM and by is not None and not by.is_staff:
        return "Only staff write system memories."
    return None


def update_memory(memory: Memory, *, by=None, agent_id: str = "",
                  now: datetime | None = None,
                  check: Callable[[Memory], None] | None = None, **changes) -> Memory:
    """Change content, importance, tags, status or pinning, keeping every change.

    Each call that changes something writes one MemoryVersion with the changed fields
    before and after, so any edit, deletion or restore can be read back and undone.
    New content is re-embedded (or queued when the provider is down). A person (`by`)
    changes only what their role allows (selectors.require_writable). `check` is called
    with the row once it is locked, before anything is written, and raises to refuse the
    change (a form opened on a state someone has changed since).
    """
    selectors.require_writable(memory, by)
    redacted = Counter()
    if isinstance(changes.get("content"), str):  # secrets never reach the store
        changes["content"], redacted = redact_value(changes["content"])
    unknown = set(changes) - set(EDITABLE_FIELDS)
    errors = {name: [f"{name} cannot be changed; editable: {', '.join(EDITABLE_FIELDS)}."]
              for name in unknown}
    checks = {
        "content": content_error,
        "importance": importance_error,
        "tags": tags_error,
        "status": lambda v: None if v in Status.values else
        f"Unknown status {v!r}: use one of {', '.join(Status.values)}.",
        "pinned": lambda v: None if isinstance(v, bool) else "pinned must be true or false.",
    }
    for name, value in changes.items():
        if name in checks and (message := checks[name](value)):
            errors[name] = [message]
    if ("scope" in changes or "shared_with" in changes) and \
            set(changes) - {"scope", "shared_with"}:
        errors["scope"] = ["Move a memory on its own, then change it: the move is a version "
                           "of its own, and what it said before stays its author's."]
    elif "scope" in changes or "shared_with" in changes:
        changes.setdefault("scope", memory.scope)
        changes.setdefault("shared_with", memory.shared_with if changes["scope"] == Scope.PROJECT
                           else None)
        if message := _scope_error(memory, by, changes["scope"], changes["shared_with"]):
            errors["scope"] = [message]
        elif changes["shared_with"] is not None:
            changes["project"] = changes["shared_with"].name  # a project memory bears its name
    if errors:
        raise ValidationError(errors)
    if "tags" in changes:
        changes["tags"] = clean_tags(changes["tags"])
    if "importance" in changes:
        changes["importance"] = float(changes["importance"])
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk)
        if check is not None:
            check(memory)
        # Taken once the row is ours: concurrent edits get their times in the order they
        # were applied, which is the order the history is read in.
        now = now or timezone.now()
        changed = {name: value for name, value in changes.items()
                   if getattr(memory, name) != value}
        if not changed:
            return memory
        before = {name: _recorded(getattr(memory, name)) for name in changed}
        for name, value in changed.items():
            setattr(memory, name, value)
        fields = list(changed)
        changed = {name: _recorded(value) for name, value in changed.items()}
        if "content" in changed:
            memory.content_hash = content_hash(memory.content)
            memory.embedding, memory.embedding_model = embed_one(memory.content)
            fields += ["content_hash", "embedding", "embedding_model"]
            if redacted:
                memory.metadata = noting_redactions(memory.metadata, redacted)
                fields.append("metadata")
        memory.save(update_fields=[*fields, "updated_at"])
        if changed.get("scope") == Scope.SYSTEM:
            selectors.forget_readers()  # every reader reads it now
        MemoryVersion.objects.create(
            memory=memory, changed_by=by, agent_id=agent_id, changed_at=now,
            change=VersionChange.UPDATED if set(changed) - {"status"} else VersionChange.STATUS,
            before=before, after=changed,
        )
        if changed.get("status") == Status.DELETED or "content" in changed:
            what = "deleted" if changed.get("status") == Status.DELETED else "edited"
            signals.evidence_changed.send(sender=Memory, memory_ids=[memory.pk],
                                          reason=_evidence_reason(memory, what))
        if before.get("status") == Status.DELETED:
            signals.evidence_restored.send(sender=Memory, memory_ids=[memory.pk],
                                           undone=_evidence_reason(memory, "deleted"))
        if memory.embedding is None:
            queue.embed_memories([memory.pk])
        elif "content" in changed or "scope" in changed or "shared_with" in changed:
            # judged afresh among the memories of its new text or its new scope
            queue.check_contradictions([memory.pk], interactive=True)
    return memory


def _evidence_reason(memory: Memory, what: str) -> str:
    return f"cited memory {memory.pk} was {what}"


def _recorded(value):
    """A field's value as its version row keeps it (a project by its id)."""
    return str(value.pk) if isinstance(value, Project) else value


def delete_memory(memory: Memory, *, by=None, agent_id: str = "") -> Memory:
    """Soft delete: the memory leaves recall but stays restorable, with its history."""
    return update_memory(memory, by=by, agent_id=agent_id, status=Status.DELETED)


def restore_memory(memory: Memory, *, by=None, agent_id: str = "") -> Memory:
    """Undo a delete exactly: the memory gets back the status it had (active or archived)."""
    memory.refresh_from_db(fields=["status"])
    if memory.status != Status.DELETED:
        return memory
    deletion = (memory.versions.filter(after__status=Status.DELETED)
                .order_by("-changed_at", "-id").only("before").first())
    previous = (deletion.before or {}).get("status") if deletion else None
    status = previous if previous in (Status.ACTIVE, Status.ARCHIVED) else Status.ACTIVE
    return update_memory(memory, by=by, agent_id=agent_id, status=status)


class FeedbackTooSoon(Exception):
    def __init__(self, retry_after: int):
        super().__init__(f"Feedback on this memory from this agent was given less than "
                         f"{settings.ENGRAM_FEEDBACK_INTERVAL} seconds ago.")
        self.retry_after = retry_after


def give_feedback(memory: Memory, *, signal: str, agent_id: str = "", session_id: str = "",
                  by=None, now: datetime | None = None) -> Memory:
    """Usage tracker and feedback counters: cited / ignored, helpful / harmful.

    helpful and harmful move importance (by 0.5 each at recall time), so each agent of
    each person (`by`) may give one of them per memory per ENGRAM_FEEDBACK_INTERVAL: one
    agent alone cannot inflate a memory, and one member's vote does not use up another's.
    They change the memory for everyone who reads it, so they follow the role (`by`);
    cited and ignored only count what a reader's agent used.
    """
    if signal not in (UsageKind.CITED, UsageKind.IGNORED, UsageKind.HELPFUL,
                      UsageKind.HARMFUL):
        raise ValidationError({"signal": ["Use cited, ignored, helpful or harmful."]})
    if signal in (UsageKind.HELPFUL, UsageKind.HARMFUL):
        selectors.require_writable(memory, by)
    now = now or timezone.now()
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk)
        if signal in (UsageKind.HELPFUL, UsageKind.HARMFUL):
            window = timedelta(seconds=settings.ENGRAM_FEEDBACK_INTERVAL)
            last = (UsageEvent.objects
                    .filter(memory=memory, agent_id=agent_id, given_by=by,
                            kind__in=[UsageKind.HELPFUL, UsageKind.HARMFUL],
                            created_at__gt=now - window)
                    .order_by("-created_at").values_list("created_at", flat=True).first())
            if last is not None:
                raise FeedbackTooSoon(max(1, math.ceil((last + window - now).total_seconds())))
            counter = "helpful_count" if signal == UsageKind.HELPFUL else "harmful_count"
            setattr(memory, counter, getattr(memory, counter) + 1)
            memory.save(update_fields=[counter, "updated_at"])
        UsageEvent.objects.create(memory=memory, owner=memory.owner, kind=signal,
                                  given_by=by, agent_id=agent_id, session_id=session_id,
                                  created_at=now)
    return memory


def add_tag(memory: Memory, tag: str, *, by) -> Memory:
    """Add to the tags as stored now, not as `memory` was read: two people tagging at
    once keep both tags."""
    with transaction.atomic():
        current = Memory.objects.select_for_update().only("tags").get(pk=memory.pk)
        return update_memory(current, by=by, tags=[*current.tags, tag])


@dataclass
class BulkResult:
    action: str
    changed: list = field(default_factory=list)  # ids
    message: str = ""


def bulk_change(owner, ids, *, action: str, tag: str = "", by) -> BulkResult:
    """Tag, archive, delete or re-embed the memories among `ids` the owner reads (others
    are ignored: they are not theirs to see); one their role does not let them change
    is left as it was, and the message says so."""
    memories = list(Memory.objects.readable_by(owner).defer("embedding", "search_vector")
                    .filter(pk__in=ids).exclude(status=Status.DELETED)
                    .order_by("-created_at"))
    result = BulkResult(action)
    refused = []
    if action == "reembed":
        writable = set(Memory.objects.writable_by(by).filter(pk__in=[m.pk for m in memories])
                       .values_list("pk", flat=True))
        refused = [f"{len(memories) - len(writable)} not yours to change"] \
            if len(writable) < len(memories) else []
        return _reembed([m for m in memories if m.pk in writable], result, refused)
    with transaction.atomic():
        for memory in memories:
            try:
                if action == "tag":
                    memory = add_tag(memory, tag, by=by)
                elif action == "archive":
                    memory = update_memory(memory, by=by, status=Status.ARCHIVED)
                elif action == "delete":
                    memory = delete_memory(memory, by=by)
            except ValidationError as exc:  # checked before any write: nothing half done
                refused.append("; ".join(exc.messages))
                continue
            except selectors.NotAllowed as exc:
                refused.append(str(exc))
                continue
            result.changed.append(memory.pk)
    done = {"tag": f"Tagged {{n}} {{memories}} “{tag}”.", "archive": "Archived {n} {memories}.",
            "delete": "Deleted {n} {memories}."}[action]
    n = len(result.changed)
    result.message = done.format(n=n, memories="memory" if n == 1 else "memories")
    return _noting_refusals(result, refused)


def _noting_refusals(result: BulkResult, refused: list[str]) -> BulkResult:
    if refused:
        left = "1 left as it was" if len(refused) == 1 else f"{len(refused)} left as they were"
        result.message += f" {left}: {refused[0]}"
    return result


def _reembed(memories: list[Memory], result: BulkResult, refused: list[str]) -> BulkResult:
    ids = [m.pk for m in memories]
    try:
        embedded = embed_memories(ids, new_content=False)
    except ProviderError:
        embedded = None
        queue.embed_memories(ids)
    result.changed = ids
    if embedded is None:
        result.message = (f"The embedding provider is not answering: {len(ids)} queued "
                          "for re-embedding.")
    else:
        current = len(ids) - embedded
        result.message = (f"Re-embedded {embedded} of {len(ids)} with "
                          f"{get_provider().model_id}"
                          + (f"; {current} already had its vector." if current else "."))
    return _noting_refusals(result, refused)


def bulk_undo_delete(ids, *, by) -> int:
    memories = list(Memory.objects.writable_by(by).filter(pk__in=ids, status=Status.DELETED))
    with transaction.atomic():
        for memory in memories:
            restore_memory(memory, by=by)
    return len(memories)

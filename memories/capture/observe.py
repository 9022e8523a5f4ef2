"""Observing: scrub and store what an agent hands over, before anything else happens (the
worker may be down: the row is the queue of last resort), then queue its extraction."""

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from .. import queue, selectors, signals
from ..engine.redaction import matches_skip_list, scrub, storable
from ..models import Observation, Project, Scope


@dataclass
class Observed:
    observation: Observation
    created: bool  # False when the very same observation had been sent before


def _as_text(value: Any) -> str:
    """Storable text (`storable`), a JSON value written as JSON."""
    if value is None:
        return ""
    return storable(value if isinstance(value, str)
                    else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str))


def _as_stamp(value) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


class _Scrubber:
    """Scrubs every text field of one observation and tallies what it removed."""

    def __init__(self):
        self.redacted: Counter = Counter()
        self.private_sections_dropped = 0
        self.truncated_fields = 0

    def __call__(self, value: Any) -> str:
        result = scrub(_as_text(value), max_chars=settings.ENGRAM_CAPTURE_MAX_CHARS)
        self.redacted.update(result.redactions)
        self.private_sections_dropped += result.private_dropped
        self.truncated_fields += int(result.truncated)
        return result.text

    def notes(self) -> dict:
        notes = {"redacted": dict(self.redacted),
                 "private_sections_dropped": self.private_sections_dropped,
                 "truncated_fields": self.truncated_fields}
        return {key: value for key, value in notes.items() if value}


def _skipped(event: dict) -> bool:
    if matches_skip_list(event["tool_name"], settings.ENGRAM_CAPTURE_SKIP_TOOLS):
        return True
    paths = event.get("file_paths") or []
    return bool(paths) and all(matches_skip_list(p, settings.ENGRAM_CAPTURE_SKIP_PATHS)
                               for p in paths)


def shared_project(owner, project: str, scope: str | None,
                   creator: str | None = None) -> Project | None:
    """The project an observation's memories are shared with, or None to keep them private.

    Without a `scope`, the project of that name when the author owns or edits it (none,
    several or a reader's: private, the safe default). `scope` "private" keeps them
    private; "project" requires such a project, else NotAllowed (a reader) or a
    ValidationError saying why."""
    if scope not in (None, Scope.PRIVATE, Scope.PROJECT):
        raise ValidationError({"scope": [f"Unknown scope {scope!r}: use private or project."]})
    if scope == Scope.PRIVATE or (scope is None and not project):
        return None
    if not project:
        raise ValidationError({"project": ["Name the project to share the memories with."]})
    try:
        return selectors.writable_project(owner, project, creator=creator)
    except selectors.NoSuchProject as exc:
        if scope is None:
            return None
        raise ValidationError({"project": [str(exc)]}) from None
    except selectors.NotAllowed:
        if scope is None:
            return None
        raise


def observe(*, owner, messages: list[dict], tool_events: list[dict], project: str = "",
            agent_id: str = "", session_id: str = "", scope: str | None = None,
            project_creator: str | None = None, turn_ended: bool = False,
            turn_id: str = "", now: datetime | None = None) -> Observed:
    """Scrub and store an observation, and queue its extraction.

    `messages` are {role, text, timestamp}; `tool_events` are {tool_name, input, response,
    success, duration_ms, file_paths}, already validated by the caller. Secrets, private
    sections and oversized text never reach the database or a model. `scope` chooses
    where its memories go (`shared_project`). `turn_ended` says the agent's turn ended
    with it (the work log ends its task), `turn_id` which turn.
    """
    shared_with = shared_project(owner, project, scope, project_creator)
    scrub_text = _Scrubber()
    kept_messages = [{"role": m["role"], "text": scrub_text(m["text"]),
                      "timestamp": _as_stamp(m.get("timestamp"))} for m in messages]
    kept_events, skipped = [], 0
    for event in tool_events:
        if _skipped(event):
            skipped += 1
            continue
        kept_events.append({
            "tool_name": event["tool_name"], "input": scrub_text(event.get("input")),
            "response": scrub_text(event.get("response")), "success": event["success"],
            "duration_ms": event.get("duration_ms"),
            "file_paths": [p for p in event.get("file_paths") or []
                           if not matches_skip_list(p, settings.ENGRAM_CAPTURE_SKIP_PATHS)],
            # In the payload's hash: without it, a call answered as an earlier one of the
            # session was taken for that observation sent again.
            **({"tool_use_id": event["tool_use_id"]} if event.get("tool_use_id") else {}),
        })
    notes = scrub_text.notes() | ({"skipped_tool_events": skipped} if skipped else {})
    payload = {"project": project, "agent_id": agent_id, "session_id": session_id,
               "messages": kept_messages, "tool_events": kept_events}
    if shared_with is not None:  # the same text kept private is another observation
        payload["shared_with"] = str(shared_with.pk)
    if turn_ended:
        # In the hash, so that a turn ending on a prompt and a reply sent before (the hook
        # sends no message twice) is not taken for an earlier turn's end sent again;
        # added only when set, so an older hook's resend keeps its hash.
        payload |= {"turn_ended": True, "turn_id": turn_id}
    payload_hash = hashlib.sha256(
        json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()

    existing = Observation.objects.for_owner(owner).filter(payload_hash=payload_hash).first()
    if existing:
        return Observed(existing, created=False)
    try:
        with transaction.atomic():
            observation = Observation.objects.create(
                owner=owner, project=project, shared_with=shared_with, agent_id=agent_id,
                session_id=session_id, messages=kept_messages, tool_events=kept_events,
                turn_ended=turn_ended, turn_id=turn_id, payload_hash=payload_hash,
                notes=notes, created_at=now or timezone.now())
    except IntegrityError:  # the same observation, sent twice at once
        return Observed(Observation.objects.for_owner(owner).get(payload_hash=payload_hash),
                        created=False)
    signals.observation_received.send(sender=Observation, owner=owner,
                                      observation=observation)
    queue.process_observation(observation.pk)
    return Observed(observation, created=True)

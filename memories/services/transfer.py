"""Import and export as JSONL: one memory a line, every line checked by remember()'s own
validation, duplicates strengthening what is stored."""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ..models import Kind, Memory, MemoryType, Status
from .remembering import NewMemory, new_memory_errors, remember_many

EXPORT_FORMATS = [
    {"name": "JSONL", "extension": "jsonl", "media_type": "application/x-ndjson",
     "description": "One JSON object per line and per memory."},
]


EXPORT_FIELDS = ("content", "type", "kind", "tags", "importance", "project", "agent_id",
                 "session_id", "created_at", "metadata", "status", "pinned")


IMPORTABLE_STATUSES = (Status.ACTIVE, Status.ARCHIVED)


MAX_IMPORT_LINES = 10_000


IMPORT_BATCH = 500


def export_lines(owner) -> Iterator[str]:
    """The owner's memories (deleted ones excepted), oldest first, one JSON line each.

    Streams from a server-side cursor, so 100,000 memories never sit in memory at once.
    """
    rows = (Memory.objects.for_owner(owner).visible().order_by("created_at", "id")
            .values_list("content", "memory_type", "kind", "tags", "importance", "project",
                         "agent_id", "session_id", "created_at", "metadata", "status",
                         "pinned"))
    for row in rows.iterator(chunk_size=2000):
        record = dict(zip(EXPORT_FIELDS, row, strict=True))
        record["created_at"] = record["created_at"].isoformat()
        yield json.dumps(record, ensure_ascii=False) + "\n"


@dataclass
class ImportLine:
    number: int
    item: NewMemory
    created_at: datetime | None
    status: str
    pinned: bool


@dataclass
class ImportReport:
    lines: int = 0  # non-blank lines read
    created: int = 0
    strengthened: int = 0
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)
    skipped_bad: bool = False  # bad lines were skipped and the rest stored
    ignored_fields: list[str] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return bool(self.created or self.strengthened)


class BadLine(ValueError):
    """Why a line cannot be imported, in words for the person who made the file."""


def _choice(record: dict, name: str, choices: list[str], default: str) -> str:
    value = record.get(name, default)
    if value not in choices:
        raise BadLine(f"{name} {value!r} is not one of {', '.join(choices)}")
    return value


def _parse_record(record) -> tuple[NewMemory, datetime | None, str, bool]:
    if not isinstance(record, dict):
        raise BadLine("the line is not a JSON object")
    created_at = None
    if record.get("created_at") not in (None, ""):
        raw = record["created_at"]
        try:
            created_at = parse_datetime(raw) if isinstance(raw, str) else None
        except ValueError:  # well formed, but no such day or hour (2026-02-30)
            created_at = None
        if created_at is None:
            raise BadLine(f"created_at {raw!r} is not an ISO 8601 date and time")
        if timezone.is_naive(created_at):
            created_at = timezone.make_aware(created_at, timezone.get_default_timezone())
    pinned = record.get("pinned", False)
    if not isinstance(pinned, bool):
        raise BadLine("pinned must be true or false")
    status = _choice(record, "status", list(IMPORTABLE_STATUSES), Status.ACTIVE)
    item = NewMemory(
        content=record.get("content"),
        memory_type=record.get("type") or MemoryType.SEMANTIC,
        kind=record.get("kind") or Kind.FACT,
        project=record.get("project") or "", agent_id=record.get("agent_id") or "",
        session_id=record.get("session_id") or "",
        importance=record.get("importance"), tags=record.get("tags") or [],
        metadata=record.get("metadata") or {})
    errors = new_memory_errors(item)
    if errors:
        raise BadLine("; ".join(f"{field}: {message}" for field, messages in errors.items()
                                for message in messages))
    return item, created_at, status, pinned


def parse_jsonl(lines: Iterable[bytes | str]) -> tuple[list[ImportLine], ImportReport]:
    """Each non-blank line checked on its own: the good ones, and a report of the bad."""
    parsed, report, ignored = [], ImportReport(), set()
    for number, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8") \
                if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            report.lines += 1
            report.bad.append((number, "the line is not UTF-8 text"))
            continue
        if not text.strip():
            continue
        report.lines += 1
        if report.lines > MAX_IMPORT_LINES:
            report.bad.append((number, f"more than {MAX_IMPORT_LINES:,} lines: split the file"))
            break
        try:
            record = json.loads(text)
            item, created_at, status, pinned = _parse_record(record)
        except json.JSONDecodeError as exc:
            report.bad.append((number, f"not valid JSON ({exc.msg} at column {exc.colno})"))
            continue
        except BadLine as exc:
            report.bad.append((number, str(exc)))
            continue
        ignored.update(set(record) - set(EXPORT_FIELDS))
        parsed.append(ImportLine(number, item, created_at, status, pinned))
    report.ignored_fields = sorted(ignored)
    return parsed, report


def import_memories(owner, parsed: list[ImportLine], report: ImportReport, *,
                    skip_bad_lines: bool = False) -> ImportReport:
    """Store the parsed lines through remember_many (duplicates strengthen what exists).

    With bad lines and no `skip_bad_lines`, nothing is written. Everything else is one
    transaction: either every good line is stored or none is.
    """
    if report.bad and not skip_bad_lines:
        return report
    report.skipped_bad = bool(report.bad)
    with transaction.atomic():
        for start in range(0, len(parsed), IMPORT_BATCH):
            batch = parsed[start:start + IMPORT_BATCH]
            try:
                results = remember_many(owner=owner, items=[line.item for line in batch])
            except ValidationError as exc:
                # The line checks above mirror the service's; should they ever disagree,
                # name the line and write nothing.
                transaction.set_rollback(True)
                report.bad += [(batch[int(key.split(".")[0])].number if "." in key
                                else batch[0].number, "; ".join(messages))
                               for key, messages in exc.message_dict.items()]
                report.created = report.strengthened = 0
                report.skipped_bad = False
                return report
            _keep_exported_state(batch, results)
            report.created += sum(r.created for r in results)
            report.strengthened += sum(not r.created for r in results)
    return report


def _keep_exported_state(batch: list[ImportLine], results) -> None:
    """New memories keep the date, status and pin they were exported with."""
    changed = []
    for line, result in zip(batch, results, strict=True):
        memory = result.memory
        if not result.created or (line.created_at is None and line.status == Status.ACTIVE
                                  and not line.pinned):
            continue
        if line.created_at is not None:
            memory.created_at = memory.valid_from = line.created_at
        memory.status, memory.pinned = line.status, line.pinned
        changed.append(memory)
    if changed:
        Memory.objects.bulk_update(changed, ["created_at", "valid_from", "status", "pinned"],
                                   batch_size=IMPORT_BATCH)

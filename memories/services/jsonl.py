"""Reading a JSONL file a line at a time, and the report of an import: what both import
formats (Engram's own, and the MCP memory server's graph) share."""

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from .validation import datetime_error, unstorable_error

# A file is read whole before anything is written (a line may refer to a later one), so
# the number of lines is capped; larger imports run as a job (services/transfer.py).
MAX_IMPORT_LINES = 100_000

# A report names at most this many bad lines; `skipped` still counts them all.
MAX_REPORTED_ERRORS = 1_000


class BadLine(ValueError):
    """Why a line, or a part of it, cannot be imported, in words for whoever made the file."""


@dataclass
class ImportReport:
    lines: int = 0  # non-blank lines read
    created: int = 0  # memories
    strengthened: int = 0  # memories that were near-duplicates of stored ones
    already_stored: int = 0  # exported memories found stored as they are, left alone
    undeleted: int = 0  # exported memories found deleted since, brought back
    entities: int = 0  # created
    relationships: int = 0  # created
    contradictions: int = 0  # created
    contradictions_already_stored: int = 0  # of an export, found between the two memories
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)
    skipped_bad: bool = False  # bad lines were skipped and the rest stored
    ignored_fields: list[str] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return bool(self.created or self.strengthened or self.undeleted or self.entities
                    or self.relationships or self.contradictions)

    def as_dict(self) -> dict:
        """The report an API client or a job's result reads."""
        return {
            "imported": {"memories": self.created, "entities": self.entities,
                         "relationships": self.relationships,
                         "contradictions": self.contradictions},
            "strengthened": self.strengthened,
            "already_stored": self.already_stored,
            "contradictions_already_stored": self.contradictions_already_stored,
            "undeleted": self.undeleted,
            "skipped": len(self.bad),
            "errors": [{"line": number, "message": message}
                       for number, message in self.bad[:MAX_REPORTED_ERRORS]],
        }


def read_records(lines: Iterable[bytes | str], report: ImportReport) -> Iterator[tuple[int, object]]:
    """(line number, decoded JSON) for each non-blank line; undecodable lines go to the
    report as bad, with their number."""
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
            return
        try:
            # Without its line ending: a string left open read as "Invalid control
            # character" (the newline), and several of json's messages end in "at".
            yield number, json.loads(text.rstrip("\r\n"), parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            reason = exc.msg.removesuffix(" at")
            report.bad.append((number, f"not valid JSON ({reason} at column {exc.colno})"))
        except NotJSON as exc:
            report.bad.append((number, str(exc)))
        except RecursionError:
            report.bad.append((number, "the JSON is nested too deeply to read"))
        except ValueError as exc:
            if not too_many_digits(exc):
                raise
            report.bad.append((number, f"not valid JSON ({TOO_MANY_DIGITS})"))


TOO_MANY_DIGITS = f"a number has more than {sys.get_int_max_str_digits():,} digits"


def too_many_digits(exc: BaseException | None) -> bool:
    """Whether Python's JSON reader refused an integer for its length: a ValueError of
    its own, no JSONDecodeError, which no one would write in a memory."""
    return (isinstance(exc, ValueError) and not isinstance(exc, json.JSONDecodeError)
            and "integer string conversion" in str(exc))


class NotJSON(ValueError):
    """A token Python's reader takes and JSON does not have."""


def _no_constant(token: str):
    # Python's json reads NaN and Infinity; PostgreSQL's jsonb, and every other reader
    # of the file, refuse them.
    raise NotJSON(f"not valid JSON ({token} is no JSON number: write null or a number)")


def first_record(lines: Iterable[bytes | str]):
    """The first line that decodes as JSON, or None: enough to tell a file's format."""
    return next((record for _, record in read_records(lines, ImportReport())), None)


def text_field(record: dict, name: str, *, max_length: int, required: bool = False,
               default: str = "") -> str:
    """A text field of a line: a string, at most max_length, storable in PostgreSQL."""
    value = record.get(name, default)
    if value is None:
        value = default
    if not isinstance(value, str):
        raise BadLine(f"{name} must be text")
    if required and not value.strip():
        raise BadLine(f"{name} is missing or empty")
    if len(value) > max_length:
        raise BadLine(f"{name} has {len(value):,} characters; the limit is {max_length:,}")
    if unstorable := unstorable_error(value):
        raise BadLine(f"{name}: {unstorable}")
    return value


def datetime_field(record: dict, name: str) -> datetime | None:
    """An ISO 8601 date and time, made aware in the default time zone when naive."""
    raw = record.get(name)
    if raw in (None, ""):
        return None
    try:
        value = parse_datetime(raw) if isinstance(raw, str) else None
    except ValueError:  # well formed, but no such day or hour (2026-02-30)
        value = None
    if value is None:
        raise BadLine(f"{name} {raw!r} is not an ISO 8601 date and time")
    if timezone.is_naive(value):
        value = timezone.make_aware(value, timezone.get_default_timezone())
    if error := datetime_error(value):
        raise BadLine(f"{name} {raw!r}: {error}")
    return value

"""An import adds to what is stored and never changes it: a line that is a memory already
stored (the same text, project and creation time, as after an export went to another
account and came back) leaves that memory's supersession as it is, and the report says
so; a memory the import itself stores is superseded as its line says."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Memory
from memories.services.remembering import remember
from memories.services.transfer import export_lines, import_jsonl

pytestmark = pytest.mark.django_db


def jsonl(*records) -> bytes:
    return "".join(json.dumps(record) + "\n" for record in records).encode()


def exported(owner, content: str) -> dict:
    return next(record for record in map(json.loads, export_lines(owner))
                if record.get("content") == content)


def successor_of(line: dict, content: str, **fields) -> dict:
    """A line of another account's export: `line`'s memory, superseded there by a new one."""
    return {**line, "id": "0197a000-0000-7000-8000-000000000001", "content": content,
            "versions": [], "links": [], "entities": [], **fields}


def test_an_import_never_supersedes_a_memory_already_stored(alice):
    stored = remember(owner=alice, content="Staging listens on port 5433.").memory
    line = exported(alice, stored.content)
    ended = (timezone.now() - timedelta(days=1)).isoformat()
    newer = successor_of(line, "Staging listens on port 6543 since the move.")
    report = import_jsonl(alice, jsonl({**line, "superseded_by": newer["id"],
                                        "valid_to": ended}, newer)).as_dict()

    stored.refresh_from_db()
    assert stored.superseded_by_id is None and stored.valid_to is None
    assert list(stored.versions.values_list("change", flat=True)) == ["created"]
    assert report["imported"]["memories"] == 1
    assert [error["line"] for error in report["errors"]] == [1]
    assert "already stored" in report["errors"][0]["message"]


def test_an_import_never_replaces_the_successor_a_person_chose(alice):
    stored = remember(owner=alice, content="Staging listens on port 5433.").memory
    chosen = remember(owner=alice, content="Staging listens on port 7000 now.").memory
    Memory.objects.filter(pk=stored.pk).update(superseded_by=chosen,
                                               valid_to=timezone.now())
    line = exported(alice, stored.content)
    newer = successor_of(line, "Staging listens on port 6543 since the move.")
    import_jsonl(alice, jsonl({**line, "superseded_by": newer["id"]}, newer))

    stored.refresh_from_db()
    assert stored.superseded_by_id == chosen.pk


def test_a_memory_the_import_stores_is_superseded_as_its_line_says(alice, bob):
    stored = remember(owner=alice, content="Staging listens on port 5433.").memory
    line = exported(alice, stored.content)
    newer = successor_of(line, "Staging listens on port 6543 since the move.")
    report = import_jsonl(bob, jsonl({**line, "superseded_by": newer["id"]}, newer))

    assert report.bad == []
    copy = Memory.objects.get(owner=bob, content=stored.content)
    assert copy.superseded_by.content == newer["content"]


def test_a_file_imported_again_after_it_stopped_part_way_finishes_its_supersessions(alice):
    """The first run stored the ended memory, not yet its successor: the second run,
    finding it stored as the file says, links them."""
    stored = remember(owner=alice, content="Staging listens on port 5433.").memory
    ended = timezone.now() - timedelta(days=1)
    Memory.objects.filter(pk=stored.pk).update(valid_to=ended)
    line = exported(alice, stored.content)
    newer = successor_of(line, "Staging listens on port 6543 since the move.",
                         valid_to=None)
    report = import_jsonl(alice, jsonl({**line, "superseded_by": newer["id"]}, newer))

    assert report.bad == []
    stored.refresh_from_db()
    assert stored.superseded_by.content == newer["content"]

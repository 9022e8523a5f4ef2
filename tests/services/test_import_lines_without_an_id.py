"""A line without an id is a new memory, written by hand or by another tool: it holds
when the line says (`valid_from`, `expires_at`), as a memory remembered through the API
would, its creation date aside; a line whose end is already past is a bad line."""

import json

import pytest

from memories.models import Memory
from memories.services.transfer import import_jsonl

pytestmark = pytest.mark.django_db


def jsonl(*records) -> bytes:
    return "".join(json.dumps(record) + "\n" for record in records).encode()


def test_a_line_without_an_id_keeps_when_it_holds(alice):
    report = import_jsonl(alice, jsonl(
        {"content": "The freeze on deploys starts on the first of December.",
         "valid_from": "2030-12-01T00:00:00+00:00", "expires_at": "2031-01-05T00:00:00+00:00"},
        {"content": "Staging moved to the Frankfurt region.",
         "created_at": "2026-03-01T10:00:00+00:00",
         "valid_from": "2026-02-20T00:00:00+00:00"})).as_dict()
    assert report["imported"]["memories"] == 2 and not report["errors"]
    freeze = Memory.objects.get(owner=alice, content__startswith="The freeze")
    assert (freeze.valid_from.isoformat(), freeze.expires_at.isoformat()) == (
        "2030-12-01T00:00:00+00:00", "2031-01-05T00:00:00+00:00")
    moved = Memory.objects.get(owner=alice, content__startswith="Staging")
    assert moved.created_at.isoformat() == "2026-03-01T10:00:00+00:00"
    assert moved.valid_from.isoformat() == "2026-02-20T00:00:00+00:00"


def test_a_line_without_an_id_or_a_start_holds_from_its_creation(alice):
    import_jsonl(alice, jsonl({"content": "Staging moved to the Frankfurt region.",
                               "created_at": "2026-03-01T10:00:00+00:00"}))
    moved = Memory.objects.get(owner=alice)
    assert moved.valid_from == moved.created_at and moved.expires_at is None


def test_a_line_without_an_id_whose_end_is_past_is_a_bad_line(alice):
    report = import_jsonl(alice, jsonl(
        {"content": "Deploys are frozen for the holidays.",
         "expires_at": "2020-01-05T00:00:00+00:00"},
        {"content": "Deploys run from the release branch."})).as_dict()
    assert [error["line"] for error in report["errors"]] == [1]
    assert "already past" in report["errors"][0]["message"]
    assert list(Memory.objects.filter(owner=alice).values_list("content", flat=True)) == [
        "Deploys run from the release branch."]

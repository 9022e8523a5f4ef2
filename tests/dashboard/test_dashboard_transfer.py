"""Import and export of one's memories as JSONL: export streams a line per memory;
import checks every line, writes nothing when one is bad unless told to skip bad lines,
and stores through remember_many, so duplicates strengthen what is there."""

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from memories.models import Contradiction, Memory, Status
from memories.services.editing import delete_memory
from memories.services.remembering import remember
from memories.services.transfer import EXPORT_FIELDS

pytestmark = pytest.mark.django_db

TRANSFER = "/transfer/"
EXPORT = "/transfer/export.jsonl"


def jsonl(*records) -> SimpleUploadedFile:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    return SimpleUploadedFile("memories.jsonl", ("\n".join(lines) + "\n").encode(),
                              content_type="application/x-ndjson")


def ticked(page: str, name: str) -> bool:
    return " checked" in re.search(rf'<input[^>]*name="{name}"[^>]*>', page).group(0)


def exported(client) -> list[dict]:
    response = client.get(EXPORT)
    body = b"".join(response.streaming_content).decode()
    return [json.loads(line) for line in body.splitlines()]


def without_id(record: dict) -> dict:
    """The record without its id, and its versions without who made them (the account
    that imports is who owns them there)."""
    return {name: [{**v, "changed_by": None} for v in value] if name == "versions" else value
            for name, value in record.items() if name != "id"}


def test_it_is_routed_under_its_names():
    assert (reverse("transfer"), reverse("export_memories")) == (TRANSFER, EXPORT)


def test_the_page_lists_the_formats_that_exist(signed_in):
    page = signed_in.get(TRANSFER).content.decode()
    assert "JSONL" in page and "application/x-ndjson" in page and EXPORT in page


def test_export_streams_ones_own_memories_one_json_object_a_line(signed_in, alice, bob):
    remember(owner=alice, content="Alice deploys with fabric", tags=["ops"],
                      project="web", session_id="s1", metadata={"source": "chat"})
    remember(owner=bob, content="Bob deploys with ansible")
    response = signed_in.get(EXPORT)
    assert response.streaming and "attachment" in response["Content-Disposition"]
    assert response["Content-Type"].startswith("application/x-ndjson")
    (record,) = exported(signed_in)
    assert tuple(record) == EXPORT_FIELDS and record["versions"][0]["change"] == "created"
    assert record["content"] == "Alice deploys with fabric" and record["tags"] == ["ops"]
    assert (record["project"], record["session_id"], record["metadata"]) == (
        "web", "s1", {"source": "chat"})
    assert record["status"] == "active" and record["pinned"] is False


def test_export_leaves_deleted_memories_out(signed_in, alice):
    kept = remember(owner=alice, content="Keep this one").memory
    gone = remember(owner=alice, content="The old VPN password rule").memory
    delete_memory(gone, by=alice)
    assert [r["content"] for r in exported(signed_in)] == [kept.content]


def test_import_stores_each_line_and_reports_created(signed_in, alice):
    upload = jsonl({"content": "The staging DB runs on port 5433", "kind": "fact",
                    "tags": ["db"], "importance": 7},
                   {"content": "Always run ruff before committing", "kind": "instruction",
                    "type": "procedural"})
    page = signed_in.post(TRANSFER, {"file": upload}).content.decode()
    assert "2 created" in page and "0 strengthened" in page
    stored = Memory.objects.get(owner=alice, content__contains="5433")
    assert stored.tags == ["db"] and stored.importance == 7


def test_a_duplicate_strengthens_the_memory_already_there(signed_in, alice):
    remember(owner=alice, content="The staging DB runs on port 5433")
    page = signed_in.post(TRANSFER, {"file": jsonl(
        {"content": "The staging DB runs on port 5433"})}).content.decode()
    assert "0 created" in page and "1 strengthened" in page
    assert Memory.objects.filter(owner=alice).count() == 1


def test_one_bad_line_writes_nothing_and_says_which_and_why(signed_in, alice):
    upload = jsonl({"content": "A good line"}, "{not json", {"content": ""},
                   {"content": "Bad kind", "kind": "gossip"}, {"content": "x", "importance": 11})
    page = signed_in.post(TRANSFER, {"file": upload}).content.decode()
    assert not Memory.objects.filter(owner=alice).exists()
    assert "4 bad lines: nothing was imported." in page
    assert "line 2: not valid JSON" in page
    assert "line 3: content: Content is empty" in page
    assert "line 4: kind: Unknown kind &#x27;gossip&#x27;" in page
    assert "line 5: importance: Importance must be a number from 1 to 10" in page


def test_a_bad_line_is_told_what_is_wrong_with_it(signed_in, alice):
    page = signed_in.post(TRANSFER, {"file": jsonl('{"content": "left open', {"content": 5},
                                                   '{"content": "x",}')}).content.decode()
    assert "line 1: not valid JSON (Unterminated string starting at column 13)" in page
    assert "line 2: content: Content must be text." in page
    assert " at at " not in page and "control character" not in page


def test_skipping_bad_lines_is_a_choice_and_imports_the_rest(signed_in, alice):
    upload = jsonl({"content": "A good line"}, "[1, 2]", {"content": "Another good line"})
    page = signed_in.post(TRANSFER, {"file": upload, "skip_bad_lines": "on"}).content.decode()
    assert Memory.objects.filter(owner=alice).count() == 2
    assert "2 created" in page and "1 bad line skipped, as asked" in page
    assert "line 2: the line is not a JSON object" in page
    assert ticked(page, "skip_bad_lines")


def test_blank_lines_are_not_bad_lines(signed_in, alice):
    upload = jsonl({"content": "first"}, "", "   ", {"content": "second thing entirely"})
    page = signed_in.post(TRANSFER, {"file": upload}).content.decode()
    assert "2 created" in page and "line 2" not in page and "skipped" not in page


def test_the_exported_date_status_and_pin_come_back(signed_in, alice):
    upload = jsonl({"content": "We chose Postgres over Mongo", "kind": "decision",
                    "created_at": "2025-05-06T07:08:09+00:00", "status": "archived",
                    "pinned": True})
    signed_in.post(TRANSFER, {"file": upload})
    memory = Memory.objects.get(owner=alice)
    assert memory.created_at.isoformat() == "2025-05-06T07:08:09+00:00"
    assert memory.status == Status.ARCHIVED and memory.pinned


def test_an_export_imports_into_another_account_as_it_was(client, alice, bob):
    remember(owner=alice, content="Alice's editor is helix", tags=["tools"],
                      kind="preference", project="home")
    remember(owner=alice, content="The build cache lives in /var/cache/build")
    client.force_login(alice)
    records = exported(client)
    client.force_login(bob)
    page = client.post(TRANSFER, {"file": jsonl(*records)}).content.decode()
    assert "2 created" in page
    # Ids are the new account's own; everything else comes back as it was.
    assert sorted(map(without_id, exported(client)), key=lambda r: r["content"]) == sorted(
        map(without_id, records), key=lambda r: r["content"])


def test_unknown_fields_are_ignored_and_named(signed_in):
    page = signed_in.post(TRANSFER, {"file": jsonl({"content": "x y z", "source": "42",
                                                    "colour": "red"})}).content.decode()
    assert "1 created" in page and "ignored: colour, source" in page


def test_a_missing_file_is_an_error_next_to_the_field(signed_in):
    page = signed_in.post(TRANSFER, {"skip_bad_lines": "on"}).content.decode()
    field = page[page.index('for="id_file"'):]
    assert "This field is required." in field[:field.index('name="file"') + 200]


def test_htmx_import_answers_with_the_import_partial(signed_in):
    response = signed_in.post(TRANSFER, {"file": jsonl({"content": "htmx import"})},
                              HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert '<section id="import"' in page and "<html" not in page
    assert "memoriesImported" in response["HX-Trigger"]
    # the Export section's count follows what was stored
    assert '<span id="memory-count" hx-swap-oob="true">1 memory</span>' in page


def test_a_full_page_counts_the_memories_once(signed_in):
    signed_in.post(TRANSFER, {"file": jsonl({"content": "one"}, {"content": "two"})})
    page = signed_in.get(TRANSFER).content.decode()
    assert page.count('id="memory-count"') == 1 and "2 memories" in page


def test_a_date_that_does_not_exist_is_a_bad_line_not_an_error(signed_in, alice):
    response = signed_in.post(TRANSFER, {"file": jsonl(
        {"content": "The staging DB runs on port 5433", "created_at": "2026-02-30T10:00:00"})})
    assert response.status_code == 200
    assert "is not an ISO 8601 date and time" in response.content.decode()
    assert not Memory.objects.filter(owner=alice).exists()


def exported_with_a_contradiction(client, owner) -> list[dict]:
    """`owner`'s export of two memories and the open contradiction between them."""
    old = remember(owner=owner, content="The orders API listens on port 8080").memory
    new = remember(owner=owner, content="The orders API listens on port 9090").memory
    Contradiction.objects.create(owner=owner, memory_a=old, memory_b=new)
    client.force_login(owner)
    return exported(client)


def test_the_report_counts_the_contradictions_imported_with_the_memories(client, alice, bob):
    records = exported_with_a_contradiction(client, alice)
    client.force_login(bob)
    page = client.post(TRANSFER, {"file": jsonl(*records)}).content.decode()
    assert "<strong>1 contradiction</strong> as exported" in page
    again = client.post(TRANSFER, {"file": jsonl(*records)}).content.decode()
    assert "<strong>1 contradiction already recorded</strong> and left as it is" in again


def test_an_htmx_import_updates_the_badge_with_the_contradictions_it_brought(client, alice,
                                                                              bob):
    records = exported_with_a_contradiction(client, alice)
    client.force_login(bob)
    part = client.post(TRANSFER, {"file": jsonl(*records)}, headers={"HX-Request": "true"})
    badge = re.search(r'<span id="contradictions-badge"[^>]*>.*?</span></span>',
                      part.content.decode(), re.DOTALL)
    assert badge and 'hx-swap-oob="true"' in badge.group(0)
    assert 'aria-label="1 open"' in badge.group(0)

"""A secret handed to Engram by any way in (remember, an edit, an import, a merged
contradiction) is stored as its placeholder: no row of memories or of their history holds
it, and the memory's metadata tallies what was taken out."""

import json

import pytest

from memories.maintenance.contradictions import resolve_contradiction
from memories.models import Contradiction, Memory, MemoryVersion
from memories.services.api_keys import create_api_key
from memories.services.editing import update_memory
from memories.services.remembering import NewMemory, remember, remember_many
from memories.services.transfer import import_jsonl

pytestmark = pytest.mark.django_db

GITHUB_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"


def assert_stored_nowhere(secret: str) -> None:
    rows = [*Memory.objects.values_list("content", "metadata"),
            *MemoryVersion.objects.values_list("before", "after")]
    assert rows
    assert secret not in json.dumps(rows, default=str)


def test_a_secret_in_the_content_is_stored_as_its_placeholder_and_tallied(alice):
    memory = remember(owner=alice, content=f"CI pushes with {GITHUB_TOKEN} on release").memory
    memory.refresh_from_db()
    assert memory.content == "CI pushes with [REDACTED:github_token] on release"
    assert memory.metadata == {"redactions": {"github_token": 1}}
    assert_stored_nowhere(GITHUB_TOKEN)


def test_a_secret_in_the_metadata_is_redacted_and_the_rest_kept(alice):
    memory = remember(owner=alice, content="The deploy script reads its token from the vault",
                      metadata={"source": f"ran with {GITHUB_TOKEN}", "db_password": "hunter2",
                                "line": 12}).memory
    memory.refresh_from_db()
    assert memory.metadata == {"source": "ran with [REDACTED:github_token]",
                               "db_password": "[REDACTED:secret_assignment]", "line": 12,
                               "redactions": {"github_token": 1, "secret_assignment": 1}}
    assert_stored_nowhere(GITHUB_TOKEN)
    assert_stored_nowhere("hunter2")


def test_an_engram_api_key_is_a_secret_like_any_other(alice):
    _, raw = create_api_key(owner=alice, name="laptop")
    memory = remember(owner=alice, content=f"The hook on the laptop uses {raw}").memory
    memory.refresh_from_db()
    assert memory.content == "The hook on the laptop uses [REDACTED:engram_key]"
    assert_stored_nowhere(raw)


def test_an_edit_redacts_the_new_content_and_adds_to_the_tally(alice):
    memory = remember(owner=alice, content=f"Old token {GITHUB_TOKEN}").memory
    update_memory(memory, by=alice, content=f"New token {GITHUB_TOKEN.replace('a', 'b')} "
                                            "and password: S3cr3t-pa55w0rd-2026")
    memory.refresh_from_db()
    assert memory.content == ("New token [REDACTED:github_token] and password: "
                              "[REDACTED:secret_assignment]")
    assert memory.metadata["redactions"] == {"github_token": 2, "secret_assignment": 1}
    assert_stored_nowhere("S3cr3t-pa55w0rd-2026")
    assert_stored_nowhere(GITHUB_TOKEN.replace("a", "b"))


def test_a_batch_is_redacted_item_by_item(alice):
    results = remember_many(owner=alice, items=[
        NewMemory(content="Nothing secret about the staging port 5433"),
        NewMemory(content=f"export GITHUB_TOKEN={GITHUB_TOKEN}")])
    assert [r.memory.content for r in results] == [
        "Nothing secret about the staging port 5433",
        "export GITHUB_TOKEN=[REDACTED:github_token]"]
    assert results[0].memory.metadata == {}


def test_an_imported_line_is_redacted(alice):
    line = json.dumps({"content": f"Release with {GITHUB_TOKEN}",
                       "metadata": {"note": "Authorization: Bearer abcdef123456789"}})
    report = import_jsonl(alice, line.encode(), fmt="engram")
    assert report.as_dict()["imported"]["memories"] == 1
    memory = Memory.objects.get(owner=alice)
    assert memory.content == "Release with [REDACTED:github_token]"
    assert memory.metadata["note"] == "Authorization: Bearer [REDACTED:bearer_token]"
    assert_stored_nowhere(GITHUB_TOKEN)
    assert_stored_nowhere("abcdef123456789")


def test_a_restored_line_of_an_export_is_redacted_everywhere_it_is_stored(alice):
    """A line with an id restores a memory as exported: its summary, compressed text and
    history too, each of which a context or the dashboard can show."""
    aws_key = "AKIA" + "IOSFODNN7EXAMPLE"
    line = json.dumps({
        "id": "01a2208c-0000-7000-8000-0000000000b1", "created_at": "2025-06-01T00:00:00Z",
        "content": f"CI deploy token for the kiwi service is {GITHUB_TOKEN}",
        "summary": f"deploys with {aws_key}", "compressed": f"kiwi token {GITHUB_TOKEN}",
        "metadata": {"db_password": "hunter2"},
        "versions": [{"change": "updated", "changed_at": "2025-06-01T00:00:00Z",
                      "before": {"content": f"old token {GITHUB_TOKEN}"},
                      "after": {"content": "new"}}]})
    report = import_jsonl(alice, line.encode(), fmt="engram")
    assert report.as_dict()["imported"]["memories"] == 1
    memory = Memory.objects.get(owner=alice)
    assert memory.content == "CI deploy token for the kiwi service is [REDACTED:github_token]"
    assert (memory.summary, memory.compressed) == ("deploys with [REDACTED:aws_access_key]",
                                                   "kiwi token [REDACTED:github_token]")
    assert memory.metadata["redactions"] == {"github_token": 3, "aws_access_key": 1,
                                             "secret_assignment": 1}
    rows = [*Memory.objects.values_list("content", "summary", "compressed", "metadata"),
            *MemoryVersion.objects.values_list("before", "after")]
    for secret in (GITHUB_TOKEN, aws_key, "hunter2"):
        assert secret not in json.dumps(rows, default=str)


def test_the_merged_text_of_a_contradiction_is_redacted(alice):
    a = remember(owner=alice, content="The API listens on port 8080").memory
    b = remember(owner=alice, content="The API listens on port 9090").memory
    contradiction = Contradiction.objects.create(owner=alice, memory_a=a, memory_b=b,
                                                 detected_by="rules", reason="port changed")
    resolved = resolve_contradiction(
        contradiction, resolution="merged", by=alice,
        merged_content=f"The public API listens on 9090, deployed with {GITHUB_TOKEN}")
    merged = Memory.objects.get(pk=resolved.merged_into_id)
    assert merged.content == ("The public API listens on 9090, deployed with "
                              "[REDACTED:github_token]")
    assert merged.metadata["merged_from"] == [str(a.pk), str(b.pk)]
    assert_stored_nowhere(GITHUB_TOKEN)

"""An export imported into the account it came from, after some of its memories were
deleted there, brings them back as they were exported, and the answer counts them: found
"already stored", they used to stay deleted."""

import json

import pytest

from memories.models import Memory, MemoryVersion, Status, VersionChange
from tests.helpers import api_export, api_import

pytestmark = pytest.mark.django_db


def remember(client, content: str, **fields) -> str:
    response = client.post("/api/v1/memories", {"content": content, **fields}, format="json")
    assert response.status_code == 201
    return response.json()["memory"]["id"]


def test_a_memory_deleted_after_the_export_comes_back_with_its_exported_status(
        api_client_for, alice):
    client = api_client_for(alice)
    kept = remember(client, "Deploys go out on Tuesdays after standup", tags=["ops"])
    archived = remember(client, "The old laptop ran Ubuntu 20.04")
    client.patch(f"/api/v1/memories/{archived}", {"status": "archived"}, format="json")
    data = api_export(client)
    for pk in (kept, archived):
        assert client.delete(f"/api/v1/memories/{pk}").status_code == 200

    answer = api_import(client, data)

    assert answer["undeleted"] == 2 and answer["already_stored"] == 0
    assert answer["imported"]["memories"] == 0  # the same memories, not copies
    assert dict(Memory.objects.filter(owner=alice).values_list("pk", "status")) == {
        Memory.objects.get(pk=kept).pk: Status.ACTIVE,
        Memory.objects.get(pk=archived).pk: Status.ARCHIVED}
    # brought back as a restore from the dashboard would: a version says so
    last = MemoryVersion.objects.filter(memory_id=kept).order_by("changed_at").last()
    assert (last.change, last.before, last.after) == (
        VersionChange.STATUS, {"status": "deleted"}, {"status": "active"})


def test_a_memory_never_deleted_is_still_counted_as_already_stored(api_client_for, alice):
    client = api_client_for(alice)
    remember(client, "The staging database listens on port 5433")
    answer = api_import(client, api_export(client))
    assert (answer["already_stored"], answer["undeleted"]) == (1, 0)


def test_a_file_naming_a_deleted_memory_twice_brings_it_back_once(api_client_for, alice):
    client = api_client_for(alice)
    pk = remember(client, "The release freeze lasts until Friday")
    line = json.loads(api_export(client))
    client.delete(f"/api/v1/memories/{pk}")
    # the second line is the same memory under another exported id
    twin = {**line, "id": "01a2218e-0000-7000-8000-000000000001"}
    answer = api_import(client, (json.dumps(line) + "\n" + json.dumps(twin) + "\n").encode())
    assert (answer["undeleted"], answer["already_stored"]) == (1, 1)
    assert Memory.objects.get(pk=pk).status == Status.ACTIVE

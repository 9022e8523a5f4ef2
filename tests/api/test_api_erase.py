"""POST /api/v1/memories/{id}/erase: the receipt, the audit row, and nothing for bob."""

import pytest

from memories.models import Memory, MemoryVersion, PurgeRecord
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db


def test_erase_answers_a_receipt_of_ids_without_content(alice, api_client_for):
    memory = remember(owner=alice, content="The shared admin password is hunter2-zebra.").memory
    answer = api_client_for(alice).post(f"/api/v1/memories/{memory.pk}/erase")
    assert answer.status_code == 200
    receipt = answer.json()
    assert receipt["memory_id"] == str(memory.pk)
    assert receipt["removed"]["memories"] == {"count": 1, "ids": [str(memory.pk)]}
    assert receipt["removed"]["versions"]["count"] == 1
    assert "hunter2" not in answer.content.decode()
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert not MemoryVersion.objects.filter(memory_id=memory.pk).exists()
    assert PurgeRecord.objects.get(memory_id=memory.pk).reason == "erase"


def test_bob_erasing_alices_memory_gets_a_404_and_nothing_changes(alice, bob, api_client_for):
    memory = remember(owner=alice, content="Alice's private note about the launch.").memory
    answer = api_client_for(bob).post(f"/api/v1/memories/{memory.pk}/erase")
    assert answer.status_code == 404
    assert Memory.objects.filter(pk=memory.pk).exists()
    assert not PurgeRecord.objects.exists()


def test_the_schema_documents_erase(client):
    schema = client.get("/api/schema/").content.decode()
    assert "/api/v1/memories/{memory_id}/erase" in schema and "ErasureOutput" in schema

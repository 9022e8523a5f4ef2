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


def test_erasing_a_project_memory_names_nothing_of_another_members_private_work(
        team, alice, bob, api_client_for):
    """bob's private insight cites alice's project memory: erasing it flags his insight
    and removes his link, but alice's receipt names only what she reads."""
    from memories.models import LinkRelation, MemoryLink, Scope
    from reflection.models import Insight, InsightStatus

    shared = remember(owner=alice, content="The shop's checkout takes payments through "
                      "Stripe", project=team.name, scope=Scope.PROJECT,
                      shared_with=team).memory

    def insight_of(owner, text):
        memory = remember(owner=owner, content=text).memory
        MemoryLink.objects.create(from_memory=memory, to_memory=shared,
                                  relation=LinkRelation.CITES)
        return Insight.objects.create(owner=owner, memory=memory, question="Payments?",
                                      cited_ids=[shared.pk], text_hash=text, cited_key="c")

    bobs = insight_of(bob, "Bob's own insight: Stripe is the shop's only payment path")
    alices = insight_of(alice, "Alice's own insight: payments all go through Stripe")
    answer = api_client_for(alice).post(f"/api/v1/memories/{shared.pk}/erase")
    assert answer.status_code == 200
    receipt, text = answer.json(), answer.content.decode()
    assert receipt["flagged"]["insights"] == {"count": 1, "ids": [str(alices.pk)]}
    assert receipt["removed"]["links"]["count"] == 1
    assert str(bobs.pk) not in text and str(bobs.memory_id) not in text
    bobs.refresh_from_db()
    assert bobs.status == InsightStatus.FLAGGED  # he is still told, in his own screens
    assert not MemoryLink.objects.filter(to_memory_id=shared.pk).exists()

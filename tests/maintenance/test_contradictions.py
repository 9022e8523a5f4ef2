"""Contradictions: found when memories are stored, resolved without deleting anything."""

import pytest

from memories.maintenance.contradictions import resolve_contradiction
from memories.services.remembering import remember
from memories.models import (
    Contradiction,
    ContradictionStatus,
    LinkRelation,
    Memory,
    MemoryLink,
    Status,
)


def pair(owner, a="The API listens on port 8080", b="The API listens on port 9090"):
    first = remember(owner=owner, content=a).memory
    second = remember(owner=owner, content=b).memory
    return Contradiction.objects.create(owner=owner, memory_a=first, memory_b=second,
                                        detected_by="rules", reason="port changed")


def resolve(client, contradiction, **body):
    return client.post(f"/api/v1/contradictions/{contradiction.pk}/resolve", body,
                       format="json")


def test_b_wins_closes_a_without_deleting_it(alice, api_client_for):
    contradiction = pair(alice)
    response = resolve(api_client_for(alice), contradiction, resolution="b_wins",
                       note="moved in March")
    assert response.status_code == 200
    assert response.json()["status"] == ContradictionStatus.RESOLVED
    a, b = (Memory.objects.get(pk=m.pk) for m in (contradiction.memory_a,
                                                  contradiction.memory_b))
    assert a.status == Status.ACTIVE and a.valid_to is not None and a.superseded_by == b
    assert b.valid_to is None and b.superseded_by is None
    assert MemoryLink.objects.filter(from_memory=b, to_memory=a,
                                     relation=LinkRelation.SUPERSEDES).exists()
    assert a.versions.filter(after__superseded_by=str(b.pk)).exists()


def test_a_wins_closes_b(alice, api_client_for):
    contradiction = pair(alice)
    resolve(api_client_for(alice), contradiction, resolution="a_wins")
    b = Memory.objects.get(pk=contradiction.memory_b.pk)
    assert b.superseded_by_id == contradiction.memory_a.pk


def test_both_valid_changes_neither_memory(alice, api_client_for):
    contradiction = pair(alice)
    resolve(api_client_for(alice), contradiction, resolution="both_valid", note="two APIs")
    assert not Memory.objects.filter(valid_to__isnull=False).exists()
    contradiction.refresh_from_db()
    assert (contradiction.resolution, contradiction.note) == ("both_valid", "two APIs")
    assert contradiction.resolved_by == alice


def test_a_merge_stores_a_new_memory_citing_both(alice, api_client_for):
    contradiction = pair(alice)
    response = resolve(api_client_for(alice), contradiction, resolution="merged",
                       merged_content="The public API listens on 9090, the admin API on 8080")
    merged = Memory.objects.get(pk=response.json()["merged_into"])
    assert set(MemoryLink.objects.filter(from_memory=merged, relation=LinkRelation.CITES)
               .values_list("to_memory", flat=True)) == {contradiction.memory_a.pk,
                                                         contradiction.memory_b.pk}
    assert Memory.objects.filter(superseded_by=merged).count() == 2
    assert Memory.objects.count() == 3


def test_a_merge_without_text_is_a_400_and_changes_nothing(alice, api_client_for):
    contradiction = pair(alice)
    response = resolve(api_client_for(alice), contradiction, resolution="merged")
    assert response.status_code == 400
    assert "merged_content" in response.json()["error"]["fields"]
    contradiction.refresh_from_db()
    assert contradiction.status == ContradictionStatus.OPEN


def test_resolving_twice_is_a_409(alice, api_client_for):
    contradiction = pair(alice)
    client = api_client_for(alice)
    resolve(client, contradiction, resolution="a_wins")
    response = resolve(client, contradiction, resolution="b_wins")
    assert response.status_code == 409
    b = Memory.objects.get(pk=contradiction.memory_b.pk)
    assert b.superseded_by_id == contradiction.memory_a.pk


def test_an_unknown_resolution_is_a_400(alice, api_client_for):
    response = resolve(api_client_for(alice), pair(alice), resolution="coin_toss")
    assert response.status_code == 400
    assert "resolution" in response.json()["error"]["fields"]


def test_the_list_filters_by_status(alice, api_client_for):
    open_one = pair(alice)
    done = pair(alice, "Staging deploys on Fridays", "Staging never deploys on Fridays")
    resolve_contradiction(done, resolution="both_valid")
    client = api_client_for(alice)
    listed = client.get("/api/v1/contradictions?status=open").json()["results"]
    assert [c["id"] for c in listed] == [str(open_one.pk)]
    assert len(client.get("/api/v1/contradictions").json()["results"]) == 2
    assert client.get("/api/v1/contradictions?status=maybe").status_code == 400


def test_the_list_leaves_unsure_verdicts_out_unless_asked(alice, api_client_for):
    sure = pair(alice)
    unsure = pair(alice, "Staging deploys on Fridays", "Staging never deploys on Fridays")
    Contradiction.objects.filter(pk=unsure.pk).update(confidence=0.6)
    client = api_client_for(alice)
    listed = client.get("/api/v1/contradictions").json()["results"]
    assert [(c["id"], c["confidence"]) for c in listed] == [(str(sure.pk), 1.0)]
    everything = client.get("/api/v1/contradictions?unsure=true&status=open").json()
    assert {c["id"] for c in everything["results"]} == {str(sure.pk), str(unsure.pk)}
    assert client.get("/api/v1/contradictions?unsure=perhaps").status_code == 400


def test_the_list_shows_a_resolution_whatever_the_verdicts_confidence(alice, api_client_for):
    unsure = pair(alice, "Staging deploys on Fridays", "Staging never deploys on Fridays")
    Contradiction.objects.filter(pk=unsure.pk).update(confidence=0.6)
    client = api_client_for(alice)
    assert client.get("/api/v1/contradictions").json()["results"] == []
    assert resolve(client, unsure, resolution="a_wins").status_code == 200
    listed = client.get("/api/v1/contradictions?status=resolved").json()["results"]
    assert [c["id"] for c in listed] == [str(unsure.pk)]


@pytest.mark.parametrize("other", ["bob", "charlie"])
def test_another_owners_contradiction_is_a_404(alice, bob, charlie, api_client_for, other):
    contradiction = pair(alice)
    client = api_client_for({"bob": bob, "charlie": charlie}[other])
    assert client.get("/api/v1/contradictions").json()["results"] == []
    assert resolve(client, contradiction, resolution="a_wins").status_code == 404
    contradiction.refresh_from_db()
    assert contradiction.status == ContradictionStatus.OPEN

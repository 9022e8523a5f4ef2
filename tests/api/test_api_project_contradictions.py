"""A project's contradictions over the API: in the queue of its owners and editors, not in
a reader's; resolved by an editor, who is recorded; refused to a reader (403); unseen by
anyone outside the project (404)."""

import pytest

from memories.models import Contradiction, ContradictionStatus, Memory, Scope
from memories.services import remembering


@pytest.fixture
def disputed(alice, bob, team, django_capture_on_commit_callbacks):
    """alice's project memory, and bob's contradicting it, found by the check."""
    shared = {"project": team.name, "scope": Scope.PROJECT, "shared_with": team}
    with django_capture_on_commit_callbacks(execute=True):
        remembering.remember(owner=alice, content="The orders API listens on port 8080",
                             **shared)
    with django_capture_on_commit_callbacks(execute=True):
        remembering.remember(owner=bob, content="The orders API listens on port 9090",
                             **shared)
    return Contradiction.objects.get()


def listed(client):
    return [c["id"] for c in client.get("/api/v1/contradictions").json()["results"]]


def resolve(client, contradiction, resolution="b_wins"):
    return client.post(f"/api/v1/contradictions/{contradiction.pk}/resolve",
                       {"resolution": resolution}, format="json")


def test_the_owner_and_the_editor_see_it_in_their_queue(alice, bob, disputed,
                                                        api_client_for):
    for member in (alice, bob):
        found = api_client_for(member).get("/api/v1/contradictions").json()["results"]
        assert [(c["id"], c["shared_with"]) for c in found] == [
            (str(disputed.pk), str(disputed.shared_with_id))]
        assert {found[0]["memory_a"]["content"], found[0]["memory_b"]["content"]} == {
            "The orders API listens on port 8080", "The orders API listens on port 9090"}


def test_neither_the_reader_nor_an_outsider_has_it_in_their_queue(dana, charlie, disputed,
                                                                  api_client_for):
    assert listed(api_client_for(dana)) == []
    assert listed(api_client_for(charlie)) == []


def test_the_readers_resolve_is_a_403_and_changes_nothing(dana, disputed, api_client_for):
    response = resolve(api_client_for(dana), disputed)
    assert response.status_code == 403
    assert "editors" in response.json()["error"]["message"]
    disputed.refresh_from_db()
    assert disputed.status == ContradictionStatus.OPEN and disputed.resolved_by is None
    assert not Memory.objects.filter(superseded_by__isnull=False).exists()


def test_an_outsiders_resolve_is_a_404(charlie, disputed, api_client_for):
    assert resolve(api_client_for(charlie), disputed).status_code == 404
    disputed.refresh_from_db()
    assert disputed.status == ContradictionStatus.OPEN


def test_the_editors_resolve_records_the_editor(alice, bob, disputed, api_client_for):
    response = resolve(api_client_for(bob), disputed)
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["resolved_by"]) == ("resolved", "bob")
    disputed.refresh_from_db()
    assert disputed.resolved_by == bob
    shown = api_client_for(alice).get("/api/v1/contradictions?status=resolved").json()
    assert [(c["id"], c["resolved_by"]) for c in shown["results"]] == [
        (str(disputed.pk), "bob")]
    assert Memory.objects.get(pk=disputed.memory_a_id).superseded_by_id == disputed.memory_b_id

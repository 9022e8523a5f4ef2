"""A memory its author shared with a project is in the author's export; importing that
export back into the author's account finds it stored, as it finds their private ones,
instead of adding a private copy beside it."""

import pytest

from memories.models import Memory, Scope
from tests.helpers import api_export, api_import

pytestmark = pytest.mark.django_db


def share(client, team, content: str) -> str:
    response = client.post("/api/v1/memories", {"content": content, "project": team.name,
                                                "scope": "project"}, format="json")
    assert response.status_code == 201
    return response.json()["memory"]["id"]


def test_the_author_reimporting_their_export_adds_no_private_copy(api_client_for, alice,
                                                                   team):
    client = api_client_for(alice)
    share(client, team, "The shop deploys on Fridays")
    answer = api_import(client, api_export(client))
    assert (answer["imported"]["memories"], answer["already_stored"]) == (0, 1)
    assert list(Memory.objects.filter(owner=alice).values_list("scope", flat=True)) == [
        Scope.PROJECT]


def test_a_shared_memory_deleted_since_comes_back_as_the_authors_private_copy(
        api_client_for, alice, team):
    # the project's delete is the project's: the import leaves it, and keeps the text
    client = api_client_for(alice)
    pk = share(client, team, "The shop deploys on Fridays")
    data = api_export(client)
    client.delete(f"/api/v1/memories/{pk}")
    answer = api_import(client, data)
    assert (answer["imported"]["memories"], answer["undeleted"]) == (1, 0)
    assert sorted(Memory.objects.filter(owner=alice).values_list("scope", "status")) == [
        (Scope.PRIVATE, "active"), (Scope.PROJECT, "deleted")]


def test_another_member_importing_it_gets_a_private_copy_as_documented(
        api_client_for, alice, bob, team):
    share(api_client_for(alice), team, "The shop deploys on Fridays")
    answer = api_import(api_client_for(bob), api_export(api_client_for(alice)))
    assert answer["imported"]["memories"] == 1
    copy = Memory.objects.get(owner=bob)
    assert (copy.scope, copy.project) == (Scope.PRIVATE, team.name)

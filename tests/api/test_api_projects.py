"""Projects over the API: creating, listing, adding and removing members, leaving."""

import pytest

from memories.models import Membership, Project

pytestmark = pytest.mark.django_db

from tests.helpers import SHOP

MEMBERS = f"/api/v1/projects/{SHOP}/members"


def test_creating_a_project_makes_its_creator_the_owner(alice, api_client_for):
    response = api_client_for(alice).post("/api/v1/projects", {"name": SHOP}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert (body["name"], body["creator"], body["role"]) == (SHOP, "alice", "owner")
    assert body["members"] == [{"username": "alice", "role": "owner",
                                "joined_at": body["members"][0]["joined_at"]}]


def test_a_name_is_unique_per_creator_but_not_across_creators(alice, bob, api_client_for):
    assert api_client_for(alice).post("/api/v1/projects", {"name": SHOP}, format="json").status_code == 201
    again = api_client_for(alice).post("/api/v1/projects", {"name": SHOP}, format="json")
    assert again.status_code == 400
    assert "already have a project named" in again.json()["error"]["message"]
    assert api_client_for(bob).post("/api/v1/projects", {"name": SHOP}, format="json").status_code == 201
    assert Project.objects.filter(name=SHOP).count() == 2


@pytest.mark.parametrize("name", ["", "   ", "a" * 201, "two\nlines", "nul\x00", "del\x7f",
                                  "csi\x9b2J"])
def test_a_bad_name_is_a_400_and_creates_nothing(alice, api_client_for, name):
    response = api_client_for(alice).post("/api/v1/projects", {"name": name}, format="json")
    assert response.status_code == 400
    assert not Project.objects.exists()


def test_the_list_shows_each_project_with_the_callers_role_and_the_members(
        team, alice, bob, dana, charlie, api_client_for):
    listed = api_client_for(dana).get("/api/v1/projects").json()
    assert [(p["name"], p["role"]) for p in listed] == [(SHOP, "reader")]
    assert [(m["username"], m["role"]) for m in listed[0]["members"]] == [
        ("alice", "owner"), ("bob", "editor"), ("dana", "reader")]
    assert api_client_for(charlie).get("/api/v1/projects").json() == []


def test_an_owner_adds_a_member_and_changes_a_role(team, alice, charlie, api_client_for):
    client = api_client_for(alice)
    added = client.post(MEMBERS, {"username": "charlie", "role": "reader"}, format="json")
    assert added.status_code == 201
    changed = client.post(MEMBERS, {"username": "charlie", "role": "editor"}, format="json")
    assert changed.status_code == 200
    assert Membership.objects.get(project=team, user=charlie).role == "editor"


@pytest.mark.parametrize("who", ["bob", "dana"])
def test_only_an_owner_manages_members(team, charlie, api_client_for, django_user_model, who):
    client = api_client_for(django_user_model.objects.get(username=who))
    response = client.post(MEMBERS, {"username": "charlie", "role": "editor"}, format="json")
    assert response.status_code == 403
    assert "Only an owner" in response.json()["error"]["message"]
    removing = client.delete(f"{MEMBERS}/alice")
    assert removing.status_code == 403
    assert not Membership.objects.filter(user=charlie).exists()
    assert Membership.objects.current().filter(project=team).count() == 3


def test_a_non_member_cannot_find_the_project(team, charlie, api_client_for):
    response = api_client_for(charlie).post(MEMBERS, {"username": "charlie", "role": "owner"},
                                            format="json")
    assert response.status_code == 404
    assert "no project named" in response.json()["error"]["message"]
    assert not Membership.objects.filter(user=charlie).exists()


@pytest.mark.parametrize(("body", "field"), [
    ({"username": "nobody", "role": "reader"}, "username"),
    ({"username": "charlie", "role": "admin"}, "role"),
    ({"username": "charlie"}, "role"),
])
def test_a_bad_member_is_a_400(team, alice, charlie, api_client_for, body, field):
    response = api_client_for(alice).post(MEMBERS, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not Membership.objects.filter(user=charlie).exists()


def test_a_member_leaves_and_an_owner_removes(team, alice, bob, dana, api_client_for):
    assert api_client_for(dana).delete(f"{MEMBERS}/dana").status_code == 200
    assert api_client_for(alice).delete(f"{MEMBERS}/bob").status_code == 200
    assert [m.user.username for m in Membership.objects.current().filter(project=team)] == [
        "alice"]
    # the rows stay, with when they left: who was a member stays known
    assert Membership.objects.filter(project=team, left_at__isnull=False).count() == 2
    assert api_client_for(bob).get("/api/v1/projects").json() == []


def test_the_last_owner_cannot_leave_or_be_demoted(team, alice, api_client_for):
    client = api_client_for(alice)
    assert client.delete(f"{MEMBERS}/alice").status_code == 400
    demoted = client.post(MEMBERS, {"username": "alice", "role": "editor"}, format="json")
    assert demoted.status_code == 400
    assert "no owner left" in demoted.json()["error"]["message"]
    assert Membership.objects.get(project=team, user=alice).role == "owner"


def test_the_last_owner_is_told_why_under_the_role_sent_or_as_a_whole_on_leaving(
        team, alice, api_client_for):
    client = api_client_for(alice)
    demoted = client.post(MEMBERS, {"username": "alice", "role": "editor"}, format="json")
    assert list(demoted.json()["error"]["fields"]) == ["role"]
    left = client.delete(f"{MEMBERS}/alice").json()["error"]
    assert "fields" not in left  # a DELETE sends no role to name
    assert left["message"] == (f"Project {SHOP!r} would have no owner left: make another "
                               "member an owner first.")


def test_two_projects_of_one_name_are_told_apart_by_their_creator(team, bob, api_client_for):
    bobs = api_client_for(bob)
    assert bobs.post("/api/v1/projects", {"name": SHOP}, format="json").status_code == 201
    # bob is a member of alice's and of his own: his own is the one named alone
    mine = bobs.post(MEMBERS, {"username": "charlie", "role": "reader"}, format="json")
    assert mine.status_code == 201 and mine.json()["creator"] == "bob"
    alices = bobs.post(f"{MEMBERS}?creator=alice", {"username": "charlie", "role": "reader"},
                       format="json")
    assert alices.status_code == 403  # there he is an editor


def test_a_key_restricted_to_one_project_reaches_only_that_project(team, alice):
    from rest_framework.test import APIClient

    from memories.services.api_keys import create_api_key

    _, raw = create_api_key(owner=alice, name="other", project="github.com/acme/other")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get("/api/v1/projects").json() == []
    assert client.post(MEMBERS, {"username": "charlie", "role": "reader"},
                       format="json").status_code == 403


@pytest.mark.parametrize(("method", "path", "expected"), [
    ("post", "/api/v1/projects/%00/members", 404),
    ("delete", "/api/v1/projects/%00/members/bob", 404),
    ("delete", f"{MEMBERS}/%00", 400),
    ("post", f"{MEMBERS}?creator=%00", 404),
])
def test_a_nul_in_a_name_is_a_4xx_not_a_500(team, alice, api_client_for, method, path,
                                            expected):
    response = getattr(api_client_for(alice), method)(
        path, {"username": "charlie", "role": "reader"}, format="json")
    assert response.status_code == expected
    assert Membership.objects.current().filter(project=team).count() == 3


def test_a_project_outlives_its_creators_account(team, alice, bob, api_client_for):
    from memories.models import Memory, Scope
    from memories.services.remembering import remember

    shared = remember(owner=bob, content="The shop ships from Lyon", project=SHOP,
                      scope=Scope.PROJECT, shared_with=team).memory
    alice.delete()
    listed = api_client_for(bob).get("/api/v1/projects").json()
    assert [(p["name"], p["creator"]) for p in listed] == [(SHOP, "(a deleted user)")]
    assert Memory.objects.filter(pk=shared.pk, shared_with=team).exists()

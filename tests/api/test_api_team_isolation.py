"""The isolation matrix with projects: alice (owner), bob (editor), dana (reader) and
charlie (not a member), against every memory endpoint, each read and each write."""

import pytest
from django.contrib.auth import get_user_model

from memories.models import Memory, MemoryVersion, Scope, UsageEvent
from memories.services.editing import update_memory
from memories.services.remembering import remember
from tests.helpers import SHOP

pytestmark = pytest.mark.django_db

SHARED_TEXT = "The shop's checkout service retries payments three times"
READERS = ["alice", "bob", "dana"]


def _user(name):
    return get_user_model().objects.get(username=name)


@pytest.fixture
def shared(team, alice):
    return remember(owner=alice, content=SHARED_TEXT, project=SHOP, scope=Scope.PROJECT,
                    shared_with=team).memory


@pytest.fixture
def bobs_private(team, bob):
    return remember(owner=bob, content="bob prefers tabs over spaces in the shop's code",
                    project=SHOP).memory


READS = [
    ("get", "/api/v1/memories/{id}", None),
    ("get", "/api/v1/memories/{id}/history", None),
    ("get", "/api/v1/memories/{id}/related", None),
    ("post", "/api/v1/memories/{id}/feedback", {"signal": "cited"}),
]
WRITES = [
    ("patch", "/api/v1/memories/{id}", {"content": "The checkout retries payments twice"}),
    ("patch", "/api/v1/memories/{id}", {"pinned": True}),
    ("post", "/api/v1/memories/{id}/feedback", {"signal": "helpful"}),
    ("delete", "/api/v1/memories/{id}", None),
]
ERASE = ("post", "/api/v1/memories/{id}/erase", None)
EXPECTED_WRITE = {"alice": 200, "bob": 200, "dana": 403, "charlie": 404}


def _call(client, method, path, memory, body):
    return getattr(client, method)(path.format(id=memory.pk), body, format="json")


@pytest.mark.parametrize(("method", "path", "body"), READS)
@pytest.mark.parametrize("who", ["alice", "bob", "dana", "charlie"])
def test_every_member_reads_a_project_memory_and_charlie_gets_a_404(
        shared, api_client_for, who, method, path, body):
    response = _call(api_client_for(_user(who)), method, path, shared, body)
    assert response.status_code == (404 if who == "charlie" else 200)
    if path == "/api/v1/memories/{id}" and who != "charlie":
        body = response.json()
        assert (body["scope"], body["project"], body["author"]) == ("project", SHOP, "alice")
        assert body["shared_with"] == str(shared.shared_with_id)


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
@pytest.mark.parametrize("who", ["alice", "bob", "dana", "charlie"])
def test_owners_and_editors_write_a_project_memory_a_reader_gets_a_403(
        shared, api_client_for, who, method, path, body):
    response = _call(api_client_for(_user(who)), method, path, shared, body)
    assert response.status_code == EXPECTED_WRITE[who], response.content
    after = Memory.objects.filter(pk=shared.pk).first()
    if who in ("dana", "charlie"):
        assert after.content == SHARED_TEXT and after.status == "active"
        assert not after.pinned and after.helpful_count == 0
        assert MemoryVersion.objects.filter(memory=shared).count() == 1
    if who == "dana":
        assert "reader of project" in response.json()["error"]["message"]


@pytest.mark.parametrize(("who", "expected"), [
    ("alice", 200), ("bob", 403), ("dana", 403), ("charlie", 404)])
def test_only_the_author_erases_a_project_memory(shared, api_client_for, who, expected):
    response = api_client_for(_user(who)).post(f"/api/v1/memories/{shared.pk}/erase")
    assert response.status_code == expected
    assert Memory.objects.filter(pk=shared.pk).exists() == (expected != 200)
    if who == "bob":  # an editor deletes instead, which can be undone
        assert "Only its author erases" in response.json()["error"]["message"]


def test_a_readers_agent_may_still_report_what_it_cited(shared, dana, api_client_for):
    response = api_client_for(dana).post(f"/api/v1/memories/{shared.pk}/feedback",
                                         {"signal": "cited"}, format="json")
    assert response.status_code == 200
    assert UsageEvent.objects.filter(memory=shared, kind="cited").count() == 1


@pytest.mark.parametrize(("method", "path", "body"), [*READS, *WRITES, ERASE])
@pytest.mark.parametrize("who", ["alice", "dana", "charlie"])
def test_a_private_memory_stays_its_authors_even_inside_a_project(
        bobs_private, api_client_for, who, method, path, body):
    response = _call(api_client_for(_user(who)), method, path, bobs_private, body)
    assert response.status_code == 404
    bobs_private.refresh_from_db()
    assert bobs_private.content.startswith("bob prefers tabs") and bobs_private.status == "active"


@pytest.mark.parametrize("who", ["alice", "bob", "dana", "charlie"])
def test_lists_search_and_context_show_the_union_each_user_reads(
        shared, bobs_private, api_client_for, who):
    client = api_client_for(_user(who))
    remember(owner=_user(who), content=f"{who} keeps a personal note about the checkout")
    listed = {m["content"] for m in client.get("/api/v1/memories").json()["results"]}
    found = {hit["memory"]["content"] for hit in client.post(
        "/api/v1/memories/search", {"query": "checkout payments retries"},
        format="json").json()["results"]}
    context = client.post("/api/v1/memories/context", {"query": "checkout payments"},
                          format="json").json()["context"]
    own = f"{who} keeps a personal note about the checkout"
    for seen in (listed, found):
        assert own in seen
        assert (SHARED_TEXT in seen) == (who in READERS)
        assert (bobs_private.content in seen) == (who == "bob")
        assert not {text for text in seen if "personal note" in text} - {own}
    assert (SHARED_TEXT in context) == (who in READERS)


@pytest.mark.parametrize(("who", "expected"), [
    ("alice", 201), ("bob", 201), ("dana", 403), ("charlie", 400)])
def test_writing_into_a_project_follows_the_role(team, api_client_for, who, expected):
    response = api_client_for(_user(who)).post("/api/v1/memories", {
        "content": f"{who} says the shop deploys on Fridays", "project": SHOP,
        "scope": "project"}, format="json")
    assert response.status_code == expected, response.content
    stored = Memory.objects.filter(content__startswith=who, scope=Scope.PROJECT)
    assert stored.exists() == (expected == 201)
    if expected == 201:
        assert stored.get().shared_with == team and response.json()["memory"]["author"] == who


def test_a_memory_written_without_a_scope_is_private(team, bob, dana, api_client_for):
    response = api_client_for(bob).post("/api/v1/memories", {
        "content": "the shop's staging password rotates monthly", "project": SHOP},
        format="json")
    assert response.status_code == 201 and response.json()["memory"]["scope"] == "private"
    assert api_client_for(dana).get(
        f"/api/v1/memories/{response.json()['memory']['id']}").status_code == 404


def test_system_memories_are_written_by_staff_and_read_by_everyone(
        alice, charlie, api_client_for, django_user_model):
    staff = django_user_model.objects.create_user("sam", is_staff=True)
    refused = api_client_for(alice).post("/api/v1/memories", {
        "content": "Engram answers in English", "scope": "system"}, format="json")
    assert refused.status_code == 403 and not Memory.objects.exists()
    written = api_client_for(staff).post("/api/v1/memories", {
        "content": "Engram answers in English", "scope": "system"}, format="json")
    assert written.status_code == 201
    memory_id = written.json()["memory"]["id"]
    assert api_client_for(charlie).get(f"/api/v1/memories/{memory_id}").status_code == 200
    hits = api_client_for(charlie).post("/api/v1/memories/search", {
        "query": "which language does Engram answer in"}, format="json").json()["results"]
    assert [hit["memory"]["id"] for hit in hits] == [memory_id]
    assert api_client_for(charlie).patch(f"/api/v1/memories/{memory_id}", {
        "content": "Engram answers in French"}, format="json").status_code == 403


def test_a_member_who_leaves_loses_sight_at_once_and_keeps_their_own(
        team, shared, bob, alice, api_client_for):
    bobs_shared = remember(owner=bob, content="The shop's cache expires after an hour",
                           project=SHOP, scope=Scope.PROJECT, shared_with=team).memory
    bobs_own = remember(owner=bob, content="bob's own reminder about the shop").memory
    client = api_client_for(bob)
    assert client.get(f"/api/v1/memories/{shared.pk}").status_code == 200
    assert client.delete(f"/api/v1/projects/{SHOP}/members/bob").status_code == 200
    for memory in (shared, bobs_shared):
        assert client.get(f"/api/v1/memories/{memory.pk}").status_code == 404
    listed = {m["id"] for m in client.get("/api/v1/memories").json()["results"]}
    assert listed == {str(bobs_own.pk)}
    hits = client.post("/api/v1/memories/search", {"query": "shop cache checkout"},
                       format="json").json()["results"]
    assert {hit["memory"]["id"] for hit in hits} <= {str(bobs_own.pk)}
    # what he wrote into the project stays the project's
    assert api_client_for(alice).get(f"/api/v1/memories/{bobs_shared.pk}").status_code == 200


def test_each_version_names_who_made_the_change(shared, bob, api_client_for):
    api_client_for(bob).patch(f"/api/v1/memories/{shared.pk}", {
        "content": "The checkout service retries payments twice"}, format="json")
    history = api_client_for(bob).get(f"/api/v1/memories/{shared.pk}/history").json()
    assert [(v["change"], v["changed_by"]) for v in history] == [
        ("created", "alice"), ("updated", "bob")]


def test_a_scope_change_is_kept_in_the_history_and_changes_who_reads(
        team, alice, dana, api_client_for):
    memory = remember(owner=alice, content="The shop's search uses OpenSearch 2",
                      project=SHOP).memory
    assert api_client_for(dana).get(f"/api/v1/memories/{memory.pk}").status_code == 404
    moved = api_client_for(alice).patch(f"/api/v1/memories/{memory.pk}", {
        "scope": "project", "project": SHOP}, format="json")
    assert moved.status_code == 200 and moved.json()["scope"] == "project"
    assert api_client_for(dana).get(f"/api/v1/memories/{memory.pk}").status_code == 200
    last = api_client_for(alice).get(f"/api/v1/memories/{memory.pk}/history").json()[-1]
    assert last["changed_by"] == "alice"
    assert last["before"] == {"scope": "private", "shared_with": None}
    assert last["after"] == {"scope": "project", "shared_with": str(team.pk)}


def test_only_the_author_makes_a_project_memory_private(shared, bob, alice, dana,
                                                        api_client_for):
    refused = api_client_for(bob).patch(f"/api/v1/memories/{shared.pk}", {"scope": "private"},
                                        format="json")
    assert refused.status_code == 400
    assert "Only its author" in refused.json()["error"]["message"]
    assert api_client_for(alice).patch(f"/api/v1/memories/{shared.pk}", {"scope": "private"},
                                       format="json").status_code == 200
    assert api_client_for(dana).get(f"/api/v1/memories/{shared.pk}").status_code == 404
    assert api_client_for(bob).get(f"/api/v1/memories/{shared.pk}").status_code == 404


def test_a_reader_cannot_share_a_private_memory_into_the_project(team, dana, alice,
                                                                 api_client_for):
    memory = remember(owner=dana, content="dana's note on the shop's roadmap").memory
    response = api_client_for(dana).patch(f"/api/v1/memories/{memory.pk}", {
        "scope": "project", "project": SHOP}, format="json")
    assert response.status_code == 403
    memory.refresh_from_db()
    assert memory.scope == Scope.PRIVATE
    assert api_client_for(alice).get(f"/api/v1/memories/{memory.pk}").status_code == 404


def test_a_project_restricted_key_reads_the_projects_shared_memories(team, shared, bob):
    from rest_framework.test import APIClient

    from memories.services.api_keys import create_api_key

    elsewhere = remember(owner=bob, content="bob's note about another repository",
                         project="github.com/acme/other").memory
    _, raw = create_api_key(owner=bob, name="shop only", project=SHOP)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get(f"/api/v1/memories/{shared.pk}").status_code == 200
    assert client.get(f"/api/v1/memories/{elsewhere.pk}").status_code == 404
    written = client.post("/api/v1/memories", {"content": "The shop ships from Lyon",
                                               "scope": "project"}, format="json")
    assert written.status_code == 201 and written.json()["memory"]["project"] == SHOP


def test_an_editors_duplicate_strengthens_the_shared_memory_and_never_a_private_one(
        team, shared, bob, alice):
    private = remember(owner=bob, content=SHARED_TEXT, project=SHOP)
    assert private.created and private.memory.scope == Scope.PRIVATE
    again = remember(owner=bob, content=SHARED_TEXT, project=SHOP, scope=Scope.PROJECT,
                     shared_with=team)
    assert not again.created and again.memory.pk == shared.pk
    reinforced = MemoryVersion.objects.get(memory=shared, change="reinforced")
    assert reinforced.changed_by == bob and reinforced.owner_id == alice.pk


def test_the_service_refuses_a_readers_project_write(team, dana):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="owner or editor"):
        remember(owner=dana, content="dana writes into the shop", project=SHOP,
                 scope=Scope.PROJECT, shared_with=team)
    with pytest.raises(ValidationError, match="owner or editor of project"):
        update_memory(remember(owner=dana, content="dana's own").memory, by=dana,
                      scope=Scope.PROJECT, shared_with=team)
    assert not Memory.objects.filter(scope=Scope.PROJECT).exists()


def test_an_import_never_restores_over_a_shared_memory(team, alice, bob):
    """bob, demoted to reader, imports a line naming his old project memory's text,
    project and creation time, superseded by a second line: the project memory is not
    his to restore or supersede (imports write private memories only)."""
    import json

    from memories.services.projects import add_member
    from memories.services.transfer import import_jsonl

    mine = remember(owner=bob, content=SHARED_TEXT, project=SHOP, scope=Scope.PROJECT,
                    shared_with=team).memory
    add_member(team, by=alice, username="bob", role="reader")
    lines = [{"record": "memory", "id": "01a20000-0000-7000-8000-000000000001",
              "content": SHARED_TEXT, "project": SHOP,
              "created_at": mine.created_at.isoformat(),
              "superseded_by": "01a20000-0000-7000-8000-000000000002"},
             {"record": "memory", "id": "01a20000-0000-7000-8000-000000000002",
              "content": "The checkout has no retries at all", "project": SHOP}]
    import_jsonl(bob, "\n".join(json.dumps(line) for line in lines).encode())
    mine.refresh_from_db()
    assert mine.superseded_by_id is None and mine.scope == Scope.PROJECT
    assert Memory.objects.filter(owner=bob, scope=Scope.PRIVATE, content=SHARED_TEXT).exists()


def test_what_a_memory_said_while_private_stays_its_authors_after_sharing(
        team, bob, alice, api_client_for):
    memory = remember(owner=bob, content="The shop's admin password is in bob's vault",
                      project=SHOP).memory
    update_memory(memory, by=bob, content="The shop's admin password is in the team vault")
    both = api_client_for(bob).patch(f"/api/v1/memories/{memory.pk}", {
        "scope": "project", "project": SHOP, "pinned": True}, format="json")
    assert both.status_code == 400 and "Move a memory on its own" in both.content.decode()
    assert api_client_for(bob).patch(f"/api/v1/memories/{memory.pk}", {
        "scope": "project", "project": SHOP}, format="json").status_code == 200
    seen = api_client_for(alice).get(f"/api/v1/memories/{memory.pk}/history").json()
    assert [v["after"] for v in seen] == [{"scope": "project", "shared_with": str(team.pk)}]
    assert "bob's vault" not in str(seen)
    own = api_client_for(bob).get(f"/api/v1/memories/{memory.pk}/history").json()
    assert [v["change"] for v in own] == ["created", "updated", "updated"]


@pytest.mark.parametrize(("body", "field"), [
    ({"scope": "public"}, "scope"),
    ({"scope": "project", "project": "github.com/acme/nowhere"}, "project"),
    ({"scope": "project"}, "project"),
    ({"project": SHOP}, "non_field_errors"),  # a project named with nothing to move
])
def test_a_bad_move_is_a_400_and_leaves_the_memory_as_it_was(team, bob, api_client_for,
                                                              body, field):
    memory = remember(owner=bob, content="bob's note on the shop's deploys", project=SHOP).memory
    response = api_client_for(bob).patch(f"/api/v1/memories/{memory.pk}", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    memory.refresh_from_db()
    assert (memory.scope, memory.shared_with_id) == (Scope.PRIVATE, None)
    assert MemoryVersion.objects.filter(memory=memory).count() == 1


@pytest.mark.parametrize("scope", ["public", "", "PROJECT", None])
def test_an_unknown_scope_is_a_400_and_stores_nothing(team, bob, api_client_for, scope):
    response = api_client_for(bob).post("/api/v1/memories", {
        "content": "The shop deploys on Fridays", "project": SHOP, "scope": scope},
        format="json")
    assert response.status_code == 400
    assert "scope" in response.json()["error"]["fields"]
    assert not Memory.objects.exists()

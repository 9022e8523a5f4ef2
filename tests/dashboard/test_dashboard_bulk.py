"""Bulk actions on a selection of memories: tag, archive, delete with undo, re-embed."""

import pytest

from memories.models import Memory, MemoryVersion, Status
from memories.services.editing import delete_memory, update_memory
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def three(alice):
    return [remember(owner=alice, content=text).memory for text in (
        "Lint with ruff before every commit", "The CI runs on two cores",
        "Screenshots live under docs/screenshots")]


def ids(memories):
    return [str(m.pk) for m in memories]


def test_tagging_a_selection_adds_the_tag_to_each(client, alice, three):
    client.force_login(alice)
    response = client.post("/memories/bulk", {"ids": ids(three[:2]), "action": "tag",
                                              "tag": "Dev"}, **HTMX)
    assert "Tagged 2 memories “dev”." in response.content.decode()  # as stored
    assert "memoryChanged" in response["HX-Trigger"]
    assert [Memory.objects.get(pk=m.pk).tags for m in three] == [["dev"], ["dev"], []]


def test_a_tag_holding_a_comma_is_refused_as_two_tags_in_one(client, alice, three):
    client.force_login(alice)
    page = client.post("/memories/bulk", {"ids": ids(three[:1]), "action": "tag",
                                          "tag": "Ops, Team"}, **HTMX).content.decode()
    assert "One tag at a time: a tag holds no comma." in page
    assert Memory.objects.get(pk=three[0].pk).tags == []


def test_archiving_a_selection(client, alice, three):
    client.force_login(alice)
    client.post("/memories/bulk", {"ids": ids(three), "action": "archive"}, **HTMX)
    assert {m.status for m in Memory.objects.filter(owner=alice)} == {Status.ARCHIVED}


def test_deleting_a_selection_offers_an_undo_that_restores_each_as_it_was(client, alice, three):
    update_memory(three[0], by=alice, status=Status.ARCHIVED)
    client.force_login(alice)
    page = client.post("/memories/bulk", {"ids": ids(three), "action": "delete"},
                       **HTMX).content.decode()
    assert "Deleted 3 memories." in page and "Undo delete" in page
    assert Memory.objects.filter(owner=alice, status=Status.DELETED).count() == 3
    undo = client.post("/memories/bulk/undo", {"ids": ids(three)}, **HTMX).content.decode()
    assert "Restored 3 memories." in undo
    statuses = [Memory.objects.get(pk=m.pk).status for m in three]
    assert statuses == [Status.ARCHIVED, Status.ACTIVE, Status.ACTIVE]


def test_without_javascript_a_bulk_delete_redirects_back_with_the_undo_on_the_list(
        client, alice, three):
    client.force_login(alice)
    response = client.post("/memories/bulk", {"ids": ids(three[:1]), "action": "delete",
                                              "next": "/?sort=recent"})
    assert response.status_code == 302 and response["Location"] == "/?sort=recent"
    page = client.get("/?sort=recent").content.decode()
    assert "Deleted 1 memory." in page and "Undo delete" in page and str(three[0].pk) in page
    outside = client.post("/memories/bulk", {"ids": ids(three[:1]), "action": "archive",
                                             "next": "https://evil.example/"})
    assert outside["Location"] == "/"


def test_re_embedding_brings_the_selection_to_the_active_model(client, alice, three):
    Memory.objects.filter(pk=three[0].pk).update(embedding=None, embedding_model="")
    client.force_login(alice)
    page = client.post("/memories/bulk", {"ids": ids(three), "action": "reembed"},
                       **HTMX).content.decode()
    assert "Re-embedded 1 of 3" in page and "2 already had its vector" in page
    assert Memory.objects.get(pk=three[0].pk).embedding is not None


def test_a_bulk_action_never_touches_another_persons_memories(client, bob, three):
    client.force_login(bob)
    client.post("/memories/bulk", {"ids": ids(three), "action": "delete"}, **HTMX)
    client.post("/memories/bulk", {"ids": ids(three), "action": "tag", "tag": "x"}, **HTMX)
    assert {m.status for m in Memory.objects.all()} == {Status.ACTIVE}
    assert all(m.tags == [] for m in Memory.objects.all())
    assert not MemoryVersion.objects.filter(changed_by=bob).exists()


def test_an_undo_cannot_restore_another_persons_memories(client, alice, bob, three):
    delete_memory(three[0], by=alice)
    client.force_login(bob)
    client.post("/memories/bulk/undo", {"ids": ids(three)}, **HTMX)
    assert Memory.objects.get(pk=three[0].pk).status == Status.DELETED


def test_bulk_errors_are_shown_and_change_nothing(client, alice, three):
    client.force_login(alice)
    nothing = client.post("/memories/bulk", {"action": "archive"}, **HTMX)
    assert "Select at least one memory." in nothing.content.decode()
    assert "HX-Trigger" not in nothing
    no_tag = client.post("/memories/bulk", {"ids": ids(three), "action": "tag", "tag": " "},
                         **HTMX).content.decode()
    assert "Give the tag to add." in no_tag
    bad = client.post("/memories/bulk", {"ids": ["not-a-uuid"], "action": "archive"},
                      **HTMX).content.decode()
    assert "unknown memory" in bad
    assert {m.status for m in Memory.objects.all()} == {Status.ACTIVE}


def test_bulk_actions_need_a_login_and_a_post(client, alice, three):
    assert client.post("/memories/bulk", {"ids": ids(three), "action": "delete"}).status_code == 302
    client.force_login(alice)
    assert client.get("/memories/bulk").status_code == 405
    assert {m.status for m in Memory.objects.all()} == {Status.ACTIVE}


def test_undo_with_an_unknown_id_says_so_and_restores_nothing(client, alice, three):
    client.force_login(alice)
    client.post("/memories/bulk", {"ids": ids(three), "action": "delete"}, **HTMX)
    response = client.post("/memories/bulk/undo", {"ids": ["not-a-uuid", *ids(three)]},
                           **HTMX)
    assert response.status_code == 200
    assert "The selection holds an unknown memory." in response.content.decode()
    assert {m.status for m in Memory.objects.filter(owner=alice)} == {"deleted"}


def test_tagging_a_memory_already_full_of_tags_tags_the_others_and_says_why(
        client, alice, three):
    Memory.objects.filter(pk=three[0].pk).update(tags=[f"t{i}" for i in range(50)])
    client.force_login(alice)
    response = client.post("/memories/bulk", {"ids": ids(three), "action": "tag",
                                              "tag": "dev"}, **HTMX)
    page = response.content.decode()
    assert response.status_code == 200
    assert "Tagged 2 memories “dev”. 1 left as it was: Tags must be a list of at most 50" in page
    assert "dev" not in Memory.objects.get(pk=three[0].pk).tags
    assert "dev" in Memory.objects.get(pk=three[1].pk).tags

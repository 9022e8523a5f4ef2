"""A memory's page: every level of its content, its links, entities, usage and history,
and the actions on it (edit in place, pin, archive, delete with undo, feedback)."""

import pytest

from memories.models import (
    Entity,
    LinkRelation,
    Memory,
    MemoryEntity,
    MemoryLink,
    Status,
    UsageEvent,
    UsageKind,
)
from memories.services.editing import update_memory
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def memory(alice):
    return remember(owner=alice, content="The staging database runs on port 5433",
                             tags=["db"], importance=6).memory


def url(memory, action=""):
    return f"/memories/{memory.pk}/{action}"


def test_the_owner_sees_every_compression_level_and_the_score_parts(client, alice, memory):
    Memory.objects.filter(pk=memory.pk).update(summary="Staging DB port", compressed="stg db 5433",
                                               index_key="staging-db-port")
    client.force_login(alice)
    page = client.get(url(memory)).content.decode()
    for text in ("port 5433", "Staging DB port", "stg db 5433", "staging-db-port",
                 "Importance", "Recency", "With feedback"):
        assert text in page


def test_another_person_gets_a_404(client, bob, charlie, memory):
    for person in (bob, charlie):
        client.force_login(person)
        assert client.get(url(memory)).status_code == 404
        assert client.post(url(memory, "delete")).status_code == 404
        assert client.post(url(memory, "edit"), {"content": "x", "importance": 5}).status_code == 404
    assert Memory.objects.get(pk=memory.pk).status == Status.ACTIVE


def test_an_anonymous_visitor_is_sent_to_sign_in(client, memory):
    response = client.get(url(memory))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_links_show_both_ways_as_clickable_neighbours(client, alice, memory):
    newer = remember(owner=alice, content="Staging moved its database to port 6543").memory
    digest = remember(owner=alice, content="Weekly digest of infrastructure changes").memory
    MemoryLink.objects.create(from_memory=newer, to_memory=memory, relation=LinkRelation.SUPERSEDES)
    MemoryLink.objects.create(from_memory=memory, to_memory=digest,
                              relation=LinkRelation.CONSOLIDATED_INTO)
    client.force_login(alice)
    page = client.get(url(memory)).content.decode()
    assert "superseded by" in page and f'href="/memories/{newer.pk}/"' in page
    assert "consolidated into" in page and f'href="/memories/{digest.pk}/"' in page
    assert "supersedes" in client.get(url(newer)).content.decode()


def test_entities_and_usage_over_time_are_shown(client, alice, memory):
    entity = Entity.objects.create(owner=alice, name="PostgreSQL", canonical_name="postgresql",
                                   entity_type="technology", mention_count=3)
    MemoryEntity.objects.create(memory=memory, entity=entity)
    for kind in (UsageKind.RETRIEVED, UsageKind.RETRIEVED, UsageKind.CITED, UsageKind.IGNORED):
        UsageEvent.objects.create(memory=memory, owner=alice, kind=kind)
    client.force_login(alice)
    page = client.get(url(memory)).content.decode()
    assert "PostgreSQL" in page and "technology" in page
    assert "retrieved 2" in page and "cited 1" in page and "ignored 1" in page


def test_the_detail_page_runs_a_fixed_number_of_queries(client, alice, memory,
                                                       django_assert_max_num_queries):
    for i in range(10):
        other = remember(owner=alice, content=f"Neighbour number {i} about ports",
                                  embedding=[0.0] * i + [1.0] + [0.0] * (383 - i)).memory
        MemoryLink.objects.create(from_memory=memory, to_memory=other,
                                  relation=LinkRelation.RELATED)
        entity = Entity.objects.create(owner=alice, name=f"thing {i}", canonical_name=f"t{i}")
        MemoryEntity.objects.create(memory=memory, entity=entity)
        UsageEvent.objects.create(memory=memory, owner=alice, kind=UsageKind.RETRIEVED)
        update_memory(memory, by=alice, importance=1 + i % 9)
    client.force_login(alice)
    # session, user, memory, links, entities, usage, history, open contradiction, badge
    with django_assert_max_num_queries(9):
        assert client.get(url(memory)).status_code == 200


def test_an_inline_edit_saves_a_new_version_with_a_readable_diff(client, alice, memory):
    client.force_login(alice)
    form = client.get(url(memory, "edit"), **HTMX).content.decode()
    assert form.lstrip().startswith('<article id="memory"') and 'name="content"' in form
    response = client.post(url(memory, "edit"), {
        "content": "The staging database runs on port 6543", "importance": "7",
        "tags": "db, staging"}, **HTMX)
    page = response.content.decode()
    assert "memoryChanged" in response["HX-Trigger"]
    assert "<del>5433</del><ins>6543</ins>" in page and "+staging" in page
    memory.refresh_from_db()
    assert memory.content.endswith("6543") and memory.importance == 7 and memory.tags == [
        "db", "staging"]


def test_an_invalid_edit_shows_errors_in_place_and_keeps_what_was_typed(client, alice, memory):
    client.force_login(alice)
    response = client.post(url(memory, "edit"), {"content": "Half-typed new text",
                                                  "importance": "11", "tags": "x"}, **HTMX)
    page = response.content.decode()
    assert response.status_code == 200 and "HX-Trigger" not in response
    assert "Ensure this value is less than or equal to 10" in page
    assert "Half-typed new text" in page and 'value="11"' in page
    assert Memory.objects.get(pk=memory.pk).content.endswith("5433")


def test_a_plain_edit_without_javascript_redirects_back(client, alice, memory):
    client.force_login(alice)
    assert 'name="content"' in client.get(url(memory, "edit")).content.decode()
    response = client.post(url(memory, "edit"), {"content": "Port 6543 now", "importance": "5"})
    assert response.status_code == 302 and response["Location"] == url(memory)


def test_the_history_diff_is_escaped(client, alice, memory):
    update_memory(memory, by=alice, content="<img src=x onerror=alert(1)> port 5433")
    client.force_login(alice)
    page = client.get(url(memory)).content.decode()
    assert "<img src=x" not in page and "&lt;img src=x" in page


def test_pin_and_archive_toggle(client, alice, memory):
    client.force_login(alice)
    page = client.post(url(memory, "pin"), {"pinned": "true"}, **HTMX).content.decode()
    assert "Unpin" in page and Memory.objects.get(pk=memory.pk).pinned
    client.post(url(memory, "archive"), {"archived": "true"})
    assert Memory.objects.get(pk=memory.pk).status == Status.ARCHIVED
    client.post(url(memory, "archive"), {"archived": "false"})
    assert Memory.objects.get(pk=memory.pk).status == Status.ACTIVE


def test_actions_need_a_post(client, alice, memory):
    client.force_login(alice)
    for action in ("pin", "archive", "delete", "restore", "feedback"):
        assert client.get(url(memory, action)).status_code == 405


def test_delete_then_undo_restores_exactly_what_was_there(client, alice, memory):
    update_memory(memory, by=alice, status=Status.ARCHIVED, pinned=True)
    client.force_login(alice)
    page = client.post(url(memory, "delete"), **HTMX).content.decode()
    assert "Undo delete" in page and Memory.objects.get(pk=memory.pk).status == Status.DELETED
    page = client.post(url(memory, "restore"), **HTMX).content.decode()
    restored = Memory.objects.get(pk=memory.pk)
    assert restored.status == Status.ARCHIVED and restored.pinned
    assert restored.content == memory.content and restored.tags == memory.tags
    assert "Restored" in page


def test_feedback_buttons_count_once_per_interval(client, alice, memory):
    client.force_login(alice)
    page = client.post(url(memory, "feedback"), {"signal": "helpful"}, **HTMX).content.decode()
    assert "Marked helpful." in page and Memory.objects.get(pk=memory.pk).helpful_count == 1
    again = client.post(url(memory, "feedback"), {"signal": "harmful"}, **HTMX).content.decode()
    assert "rated this memory recently" in again
    assert Memory.objects.get(pk=memory.pk).harmful_count == 0
    unknown = client.post(url(memory, "feedback"), {"signal": "bogus"}, **HTMX).content.decode()
    assert "Use cited, ignored, helpful or harmful." in unknown


def test_a_memory_in_an_open_contradiction_links_to_the_queue(client, alice, memory):
    from memories.models import Contradiction

    other = remember(owner=alice, content="The staging database runs on port 6000").memory
    Contradiction.objects.create(owner=alice, memory_a=memory, memory_b=other)
    client.force_login(alice)
    page = client.get(url(memory)).content.decode()
    assert "part of an open contradiction" in page and 'href="/contradictions/"' in page

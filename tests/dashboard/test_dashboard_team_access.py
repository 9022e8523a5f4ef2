"""The isolation matrix on the screens: in project github.com/acme/team alice is an owner,
bob an editor and dana a reader; charlie is not a member. Each reads the union of what
they may read (their private memories, the project's); only owners and editors change a
project memory (403 for dana), a stranger finds nothing (404), and a member who leaves
loses sight of the project at once."""

import pytest
from django.urls import reverse
from django.utils.html import escape

from memories.models import (
    Contradiction,
    ContradictionStatus,
    Entity,
    LinkRelation,
    Memory,
    MemoryEntity,
    MemoryLink,
    Role,
    Scope,
    Status,
)
from memories.services.projects import add_member, remove_member
from memories.services.remembering import remember
from reflection.models import Insight, InsightStatus

pytestmark = pytest.mark.django_db


def shared(owner, project, content):
    return remember(owner=owner, content=content, project=project.name, scope=Scope.PROJECT,
                    shared_with=project).memory


@pytest.fixture
def store(team, alice, bob, dana, charlie):
    return {
        "decision": shared(alice, team, "The shop's checkout takes payments through Stripe"),
        "bobs_note": shared(bob, team, "The shop deploys from the main branch every Tuesday"),
        "alices_own": remember(owner=alice, content="Alice's dentist appointment is on Friday",
                               project=team.name).memory,
        "danas_own": remember(owner=dana, content="Dana prefers tabs over spaces").memory,
        "charlies_own": remember(owner=charlie, content="Charlie's cat is called Tom").memory,
    }


def sign_in(client, user):
    client.force_login(user)
    return client


def listed(client, **query) -> str:
    return client.get("/", query).content.decode()


def detail(memory) -> str:
    return reverse("memory", args=[memory.pk])


def state(memory) -> tuple:
    memory = Memory.objects.filter(pk=memory.pk).first()
    return memory and (memory.content, memory.status, memory.pinned, memory.helpful_count,
                       memory.importance, sorted(memory.tags), memory.versions.count())


# Reading


@pytest.mark.parametrize("person", ["alice", "bob", "dana"])
def test_every_member_lists_the_projects_memories_with_their_authors(client, store, person):
    from django.contrib.auth import get_user_model

    page = listed(sign_in(client, get_user_model().objects.get(username=person)))
    assert escape(store["decision"].content) in page and store["bobs_note"].content in page
    assert page.count("shared with project github.com/acme/shop") == 2
    assert '<span class="author">by alice</span>' in page
    assert '<span class="author">by bob</span>' in page
    assert (escape(store["alices_own"].content) in page) is (person == "alice")
    assert (store["danas_own"].content in page) is (person == "dana")


def test_a_stranger_lists_none_of_the_projects_memories(client, store, charlie):
    page = listed(sign_in(client, charlie))
    assert escape(store["decision"].content) not in page
    assert store["bobs_note"].content not in page
    assert escape(store["charlies_own"].content) in page


def test_the_scope_filter_narrows_the_list(client, store, dana):
    sign_in(client, dana)
    private = listed(client, scope="private")
    assert store["danas_own"].content in private
    assert escape(store["decision"].content) not in private
    project = listed(client, scope="project")
    assert escape(store["decision"].content) in project and store["bobs_note"].content in project
    assert store["danas_own"].content not in project
    assert "me alone (private)" in project  # the filter's choices


def test_a_search_finds_the_projects_memories_for_a_reader(client, store, dana, charlie):
    hits = listed(sign_in(client, dana), q="which payment provider does checkout use")
    assert "Stripe" in hits and "by alice" in hits
    assert "Stripe" in listed(client, q="payment provider checkout", scope="project")
    assert "Stripe" not in listed(client, q="payment provider checkout", scope="private")
    assert "Stripe" not in listed(sign_in(client, charlie), q="which payment provider")


def test_only_memories_one_may_change_can_be_ticked(client, store, dana, bob):
    page = listed(sign_in(client, dana))
    assert f'value="{store["danas_own"].pk}" form="bulk"' in page
    assert f'value="{store["decision"].pk}" form="bulk"' not in page
    assert page.count('<span class="flag read-only">read only</span>') == 2
    page = listed(sign_in(client, bob))
    assert f'value="{store["decision"].pk}" form="bulk"' in page
    assert "read only" not in page


def test_a_reader_opens_a_project_memory_read_only(client, store, dana):
    response = sign_in(client, dana).get(detail(store["decision"]))
    page = response.content.decode()
    assert response.status_code == 200
    assert "<dt>Author</dt><dd>alice</dd>" in page
    assert "the members of project github.com/acme/shop" in page
    assert escape("You are a reader of project 'github.com/acme/shop': only its owners "
                  "and editors change its memories.") in page
    for control in ('id="edit-link"', 'id="pin-button"', 'id="archive-button"',
                    'id="erase-link"', 'id="helpful-button"', ">Delete</button>"):
        assert control not in page


def test_an_editor_opens_it_with_its_controls_but_erasing_is_its_authors(
        client, store, bob, alice):
    page = sign_in(client, bob).get(detail(store["decision"])).content.decode()
    assert 'id="edit-link"' in page and 'id="erase-link"' not in page
    assert 'id="read-only"' not in page
    assert write(client, store["decision"], "memory_erase", "post",
                 {"confirm": "yes"}).status_code == 403
    assert Memory.objects.filter(pk=store["decision"].pk).exists()
    page = sign_in(client, alice).get(detail(store["decision"])).content.decode()
    assert 'id="erase-link"' in page


def test_a_private_memory_is_its_authors_alone(client, store, alice, bob, charlie):
    assert sign_in(client, alice).get(detail(store["alices_own"])).status_code == 200
    assert "its author alone (private)" in client.get(detail(store["alices_own"])).content.decode()
    for person in (bob, charlie):
        assert sign_in(client, person).get(detail(store["alices_own"])).status_code == 404


def test_a_stranger_gets_404_for_a_project_memory(client, store, charlie):
    assert sign_in(client, charlie).get(detail(store["decision"])).status_code == 404


def test_a_link_to_a_private_memory_stays_out_of_the_members_sight(client, store, alice, bob):
    MemoryLink.objects.create(from_memory=store["decision"], to_memory=store["alices_own"],
                              relation=LinkRelation.RELATED, strength=0.9)
    assert "dentist" in sign_in(client, alice).get(detail(store["decision"])).content.decode()
    assert "dentist" not in sign_in(client, bob).get(detail(store["decision"])).content.decode()


def test_an_entitys_mentions_count_only_the_memories_one_reads(client, store, alice, bob):
    stripe = Entity.objects.create(owner=alice, name="Stripe", canonical_name="stripe",
                                   entity_type="organization", mention_count=3)
    for text in ("Alice pays Stripe's fees from her own card", "Alice's Stripe login is 2FA"):
        MemoryEntity.objects.create(memory=remember(owner=alice, content=text).memory,
                                    entity=stripe)
    MemoryEntity.objects.create(memory=store["decision"], entity=stripe)
    chip = "organization · {} mention"
    assert chip.format(3) in sign_in(client, alice).get(detail(store["decision"])).content.decode()
    page = sign_in(client, bob).get(detail(store["decision"])).content.decode()
    assert chip.format(1) in page and chip.format(3) not in page


def test_the_stats_screen_counts_what_one_reads(client, store, dana, charlie):
    page = sign_in(client, dana).get(reverse("stats")).content.decode()
    assert f"m{store['decision'].pk}" in page and f"m{store['danas_own'].pk}" in page
    page = sign_in(client, charlie).get(reverse("stats")).content.decode()
    assert f"m{store['decision'].pk}" not in page and f"m{store['charlies_own'].pk}" in page


# Writing

WRITES = [
    ("memory_edit", "get", {}),
    ("memory_edit", "post", {"content": "The checkout takes payments through Adyen",
                             "importance": "5", "tags": "payments"}),
    ("memory_pin", "post", {"pinned": "true"}),
    ("memory_archive", "post", {"archived": "true"}),
    ("memory_delete", "post", {}),
    ("memory_restore", "post", {}),
    ("memory_feedback", "post", {"signal": "helpful"}),
    ("memory_erase", "get", {}),
    ("memory_erase", "post", {"confirm": "yes"}),
]


def write(client, memory, name, method, data, **headers):
    return getattr(client, method)(reverse(name, args=[memory.pk]), data, **headers)


@pytest.mark.parametrize(("name", "method", "data"), WRITES)
def test_a_reader_may_not_change_a_project_memory(client, store, dana, name, method, data):
    before = state(store["decision"])
    sign_in(client, dana)
    assert write(client, store["decision"], name, method, data).status_code == 403
    assert write(client, store["decision"], name, method, data,
                 HTTP_HX_REQUEST="true").status_code == 403
    assert state(store["decision"]) == before


@pytest.mark.parametrize(("name", "method", "data"), WRITES)
def test_a_stranger_finds_nothing_to_change(client, store, charlie, name, method, data):
    before = state(store["decision"])
    sign_in(client, charlie)
    assert write(client, store["decision"], name, method, data).status_code == 404
    assert state(store["decision"]) == before


@pytest.mark.parametrize(("name", "method", "data"), WRITES)
def test_a_member_may_not_change_anothers_private_memory(client, store, bob, name, method,
                                                          data):
    before = state(store["alices_own"])
    sign_in(client, bob)
    assert write(client, store["alices_own"], name, method, data).status_code == 404
    assert state(store["alices_own"]) == before


def test_an_editor_changes_another_authors_project_memory(client, store, bob):
    sign_in(client, bob)
    decision = store["decision"]
    response = write(client, decision, *WRITES[1])
    assert response.status_code == 302
    decision.refresh_from_db()
    assert decision.content == "The checkout takes payments through Adyen"
    assert decision.owner.username == "alice"  # the author stays the author
    edit = decision.versions.order_by("-changed_at").first()
    assert edit.changed_by == bob
    page = client.get(detail(decision)).content.decode()
    assert "by bob" in page  # the history names who changed it
    write(client, decision, "memory_delete", "post", {})
    write(client, decision, "memory_restore", "post", {})
    decision.refresh_from_db()
    assert decision.status == Status.ACTIVE


def test_an_author_whose_role_becomes_reader_can_no_longer_change_what_they_wrote(
        client, store, team, alice, bob):
    add_member(team, by=alice, username="bob", role=Role.READER)
    before = state(store["bobs_note"])
    sign_in(client, bob)
    assert write(client, store["bobs_note"], "memory_pin", "post",
                 {"pinned": "true"}).status_code == 403
    assert state(store["bobs_note"]) == before


# Bulk actions


def bulk(client, memories, action="archive", **extra):
    return client.post(reverse("memory_bulk"),
                       {"ids": [str(m.pk) for m in memories], "action": action, **extra},
                       follow=True)


def test_a_bulk_action_holding_a_memory_one_only_reads_changes_nothing(client, store, dana):
    before = [state(store["decision"]), state(store["danas_own"])]
    sign_in(client, dana)
    page = bulk(client, [store["decision"], store["danas_own"]]).content.decode()
    assert "You may not change 1 of the 2 selected memories: nothing was changed." in page
    assert [state(store["decision"]), state(store["danas_own"])] == before
    partial = client.post(reverse("memory_bulk"),
                          {"ids": [str(store["decision"].pk)], "action": "tag", "tag": "x"},
                          HTTP_HX_REQUEST="true").content.decode()
    assert "You may not change 1 of the 1 selected memory: nothing was changed." in partial
    assert state(store["decision"]) == before[0]


def test_a_bulk_action_on_a_strangers_ids_changes_nothing(client, store, charlie):
    before = state(store["decision"])
    page = bulk(sign_in(client, charlie), [store["decision"]], action="delete").content.decode()
    assert "nothing was changed" in page and state(store["decision"]) == before


def test_an_editor_bulk_archives_project_and_own_memories(client, store, bob):
    bobs_own = remember(owner=bob, content="Bob's standup is at 09:30").memory
    page = bulk(sign_in(client, bob), [store["bobs_note"], bobs_own]).content.decode()
    assert "Archived 2 memories." in page
    assert {m.status for m in Memory.objects.filter(pk__in=[store["bobs_note"].pk,
                                                            bobs_own.pk])} == {Status.ARCHIVED}


def test_an_editor_bulk_archives_another_authors_project_memory(client, store, bob):
    page = bulk(sign_in(client, bob), [store["decision"]]).content.decode()
    assert "Archived 1 memory." in page
    store["decision"].refresh_from_db()
    assert store["decision"].status == Status.ARCHIVED


def test_undoing_a_bulk_delete_of_memories_one_only_reads_changes_nothing(client, store,
                                                                        alice, dana):
    sign_in(client, alice)
    bulk(client, [store["decision"]], action="delete")
    sign_in(client, dana)
    page = client.post(reverse("memory_bulk_undo"), {"ids": [str(store["decision"].pk)]},
                       follow=True).content.decode()
    assert "nothing was changed" in page
    assert Memory.objects.get(pk=store["decision"].pk).status == Status.DELETED


# Leaving


def test_a_member_who_leaves_loses_sight_of_the_project_at_once(client, store, team, dana):
    sign_in(client, dana)
    assert client.get(detail(store["decision"])).status_code == 200
    client.post(reverse("project_member_remove", args=[team.pk]), {"username": "dana"})
    page = listed(client)
    assert escape(store["decision"].content) not in page
    assert store["bobs_note"].content not in page
    assert store["danas_own"].content in page  # her private memories stay hers
    assert client.get(detail(store["decision"])).status_code == 404
    assert "Stripe" not in listed(client, q="which payment provider does checkout use")


def test_a_removed_editor_can_no_longer_reach_what_they_wrote_there(client, store, team,
                                                                    alice, bob):
    remove_member(team, by=alice, username="bob")
    sign_in(client, bob)
    assert client.get(detail(store["bobs_note"])).status_code == 404
    assert write(client, store["bobs_note"], "memory_delete", "post", {}).status_code == 404
    # what he wrote stays the project's
    assert sign_in(client, alice).get(detail(store["bobs_note"])).status_code == 200


# Contradictions


@pytest.fixture
def disputed(store, team, alice, bob):
    adyen = shared(bob, team, "The shop's checkout takes payments through Adyen now")
    return Contradiction.objects.create(owner=alice, shared_with=team,
                                        memory_a=store["decision"], memory_b=adyen,
                                        detected_by="rules", reason="the provider changed")


def contradiction(c) -> str:
    return reverse("contradiction_detail", args=[c.pk])


@pytest.mark.parametrize("person", ["alice", "bob"])
def test_a_project_contradiction_is_in_its_owners_and_editors_queue(client, disputed, person):
    from django.contrib.auth import get_user_model

    sign_in(client, get_user_model().objects.get(username=person))
    page = client.get(reverse("contradictions")).content.decode()
    assert contradiction(disputed) in page and "project github.com/acme/shop" in page
    assert '<span class="badge" aria-label="1 open">1</span>' in page
    page = client.get(contradiction(disputed)).content.decode()
    assert "<dt>Author</dt><dd>alice</dd>" in page and "<dt>Author</dt><dd>bob</dd>" in page


@pytest.mark.parametrize(("person", "detail", "resolve"), [
    ("dana", 200, 403), ("charlie", 404, 404)])
def test_a_reader_may_look_but_not_resolve_and_a_stranger_has_no_such_contradiction(
        client, disputed, person, detail, resolve):
    from django.contrib.auth import get_user_model

    sign_in(client, get_user_model().objects.get(username=person))
    page = client.get(reverse("contradictions")).content.decode()
    assert contradiction(disputed) not in page and 'aria-label="1 open"' not in page
    shown = client.get(contradiction(disputed))
    assert shown.status_code == detail
    if detail == 200:  # the memories she reads are disputed: she may see why, not decide
        assert 'name="resolution"' not in shown.content.decode()
    assert client.post(contradiction(disputed), {"resolution": "a_wins"}).status_code == resolve
    disputed.refresh_from_db()
    assert disputed.status == ContradictionStatus.OPEN


def test_an_editor_resolves_a_project_contradiction_and_is_recorded(client, disputed, bob):
    sign_in(client, bob)
    client.post(contradiction(disputed), {"resolution": "b_wins", "note": "we moved"})
    disputed.refresh_from_db()
    assert disputed.status == ContradictionStatus.RESOLVED and disputed.resolved_by == bob
    assert client.get(reverse("contradictions"), {"status": "resolved"}).content.decode() \
        .count("by bob") == 1


def test_resolving_ones_own_contradiction_may_not_close_a_memory_one_only_reads(
        client, store, dana):
    own = Contradiction.objects.create(owner=dana, memory_a=store["danas_own"],
                                       memory_b=store["decision"], detected_by="rules")
    sign_in(client, dana)
    assert client.get(contradiction(own)).status_code == 200
    assert client.post(contradiction(own), {"resolution": "a_wins"}).status_code == 403
    own.refresh_from_db()
    store["decision"].refresh_from_db()
    assert own.status == ContradictionStatus.OPEN and store["decision"].superseded_by is None


def test_the_memory_page_links_a_project_contradiction_for_its_editors_only(
        client, disputed, store, bob, dana):
    page = sign_in(client, bob).get(detail(store["decision"])).content.decode()
    assert f'href="{contradiction(disputed)}">resolve it' in page
    page = sign_in(client, dana).get(detail(store["decision"])).content.decode()
    assert "resolve it" not in page


# Reflection


@pytest.fixture
def project_insight(store, team, alice):
    memory = shared(alice, team, "Payments code changes always need a second reviewer")
    return Insight.objects.create(owner=alice, memory=memory, question="What do reviews need?",
                                  cited_ids=[store["decision"].pk], text_hash="t",
                                  cited_key="c")


def review(insight) -> str:
    return reverse("insight_review", args=[insight.pk])


def test_a_projects_insight_is_read_by_its_members_and_reviewed_by_its_editors(
        client, project_insight, bob, dana, charlie):
    page = sign_in(client, dana).get(reverse("reflection")).content.decode()
    assert "second reviewer" in page and review(project_insight) not in page
    assert client.post(review(project_insight), {"decision": "reject"}).status_code == 403
    sign_in(client, charlie)
    assert "second reviewer" not in client.get(reverse("reflection")).content.decode()
    assert client.post(review(project_insight), {"decision": "reject"}).status_code == 404
    project_insight.refresh_from_db()
    assert project_insight.status == InsightStatus.PENDING_REVIEW
    sign_in(client, bob)
    assert review(project_insight) in client.get(reverse("reflection")).content.decode()
    client.post(review(project_insight), {"decision": "approve"})
    project_insight.refresh_from_db()
    assert project_insight.status == InsightStatus.APPROVED
    assert project_insight.reviewed_by == bob


def test_a_merged_memory_moved_out_of_sight_is_not_shown_beside_its_contradiction(
        client, disputed, alice, bob):
    from memories.maintenance.contradictions import resolve_contradiction
    from memories.services.editing import update_memory

    resolve_contradiction(disputed, resolution="merged", by=bob,
                          merged_content="Checkout takes payments through Stripe and Adyen")
    disputed.refresh_from_db()
    sign_in(client, alice)
    assert "through Stripe and Adyen" in client.get(contradiction(disputed)).content.decode()
    update_memory(disputed.merged_into, by=bob, scope="private")
    assert "through Stripe and Adyen" not in client.get(contradiction(disputed)).content.decode()

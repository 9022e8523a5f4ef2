"""Over MCP a team shares a project: owners and editors write its memories, readers read
them, and a tool refused by the caller's role says so; non-members see nothing."""

import pytest
from mcp_helpers import call, with_client

from memories.models import Contradiction, Memory, Scope, Status
from memories.services.projects import remove_member
from memories.services.remembering import remember
from tests.helpers import SHOP

pytestmark = pytest.mark.django_db(transaction=True)
DECISION = "Orders are stored in PostgreSQL 16, never MySQL."


@pytest.fixture
def calls_as(server_url, key_for):
    """Run `scenario(client)` connected as `user`."""
    return lambda user, scenario: with_client(server_url, key_for(user), scenario)


@pytest.fixture
def shared(team, alice):
    return remember(owner=alice, content=DECISION, project=SHOP, scope=Scope.PROJECT,
                    shared_with=team).memory


def test_an_editor_remembers_for_the_project_and_a_reader_finds_it(calls_as, team, bob,
                                                                    dana, charlie):
    async def bob_remembers(client):
        return await call(client, "memory_remember", content=DECISION, project=SHOP,
                          scope="project")

    async def searching(client):
        return await call(client, "memory_search", query="which database stores orders")

    failed, said = calls_as(bob, bob_remembers)
    assert not failed and said.startswith("Remembered:") and "shared (project)" in said
    memory = Memory.objects.get()
    assert (memory.owner, memory.scope, memory.shared_with) == (bob, Scope.PROJECT, team)
    failed, found = calls_as(dana, searching)
    assert not failed and memory.pk.hex[-8:] in found
    assert calls_as(charlie, searching) == (
        False, "No memory matches 'which database stores orders'.")


@pytest.mark.parametrize("user, arguments, refusal", [
    ("dana", {"project": SHOP, "scope": "project"}, f"reader of project '{SHOP}'"),
    ("charlie", {"project": SHOP, "scope": "project"}, "no project named"),
    ("bob", {"scope": "project"}, "names its project"),
    ("bob", {"project": SHOP, "scope": "system"}, "Only staff"),
    ("bob", {"project": SHOP, "scope": "everyone"}, "scope"),
], ids=["a reader", "a non-member", "no project", "system, not staff", "unknown scope"])
def test_remember_refuses_a_scope_the_caller_may_not_write(calls_as, team, user, arguments,
                                                          refusal, request):
    async def remembers(client):
        return await call(client, "memory_remember", content=DECISION, **arguments)

    failed, said = calls_as(request.getfixturevalue(user), remembers)
    assert failed and refusal in said
    assert not Memory.objects.exists()


def test_staff_remember_system_memories_every_user_reads(calls_as, alice, charlie):
    alice.is_staff = True
    alice.save(update_fields=["is_staff"])

    async def remembers(client):
        return await call(client, "memory_remember", content=DECISION, scope="system")

    async def searching(client):
        return await call(client, "memory_search", query="which database stores orders")

    assert not calls_as(alice, remembers)[0]
    assert Memory.objects.get().scope == Scope.SYSTEM
    failed, found = calls_as(charlie, searching)
    assert not failed and Memory.objects.get().pk.hex[-8:] in found


def test_a_reader_reads_by_handle_but_cannot_change_a_project_memory(calls_as, shared,
                                                                     dana):
    handle = shared.pk.hex[-8:]

    async def dana_tries(client):
        return [await call(client, "memory_related", memory=handle),
                await call(client, "memory_feedback", memory=handle, signal="cited"),
                await call(client, "memory_feedback", memory=handle, signal="harmful"),
                await call(client, "memory_forget", memory=handle)]

    related, cited, harmful, forget = calls_as(dana, dana_tries)
    assert not related[0] and not cited[0]
    for failed, said in (harmful, forget):
        assert failed and f"You are a reader of project '{SHOP}'" in said
    shared.refresh_from_db()
    assert shared.status == Status.ACTIVE and shared.harmful_count == 0


def test_an_editor_forgets_another_members_project_memory(calls_as, shared, bob):
    async def forgets(client):
        return await call(client, "memory_forget", memory=shared.pk.hex[-8:])

    failed, said = calls_as(bob, forgets)
    assert not failed and said.startswith("Deleted")
    shared.refresh_from_db()
    assert shared.status == Status.DELETED


def test_a_non_member_finds_no_project_memory_by_handle(calls_as, shared, charlie):
    async def forgets(client):
        return await call(client, "memory_forget", memory=str(shared.pk))

    failed, said = calls_as(charlie, forgets)
    assert failed and "No memory" in said


def test_projects_lists_the_callers_projects_roles_and_members(calls_as, team, dana,
                                                               charlie):
    async def lists(client):
        return await call(client, "memory_projects")

    failed, said = calls_as(dana, lists)
    assert not failed
    assert (f"1. {SHOP} (created by alice): you are reader; members alice (owner), "
            "bob (editor), dana (reader)") in said
    assert calls_as(charlie, lists) == (
        False, "You are a member of no project: every memory you write is private.")


def test_observe_with_scope_project_is_refused_to_a_reader(calls_as, team, dana):
    async def observes(client):
        return await call(client, "memory_observe", project=SHOP, scope="project",
                          messages=[{"role": "user", "text": DECISION}])

    failed, said = calls_as(dana, observes)
    assert failed and f"reader of project '{SHOP}'" in said


def test_a_member_who_leaves_loses_sight_of_the_project_at_once(calls_as, shared, team,
                                                                 bob):
    handle = shared.pk.hex[-8:]

    async def bob_looks(client):
        return [await call(client, "memory_search", query="which database stores orders"),
                await call(client, "memory_related", memory=handle),
                await call(client, "memory_feedback", memory=handle, signal="harmful")]

    before = calls_as(bob, bob_looks)
    assert handle in before[0][1] and not before[1][0]
    remove_member(team, by=bob, username="bob")
    search, related, feedback = calls_as(bob, bob_looks)
    assert search == (False, "No memory matches 'which database stores orders'.")
    assert related[0] and "No memory" in related[1]
    assert feedback[0] and "No memory" in feedback[1]
    shared.refresh_from_db()
    assert shared.harmful_count == 1  # bob's, while he was an editor


def test_a_reader_cannot_resolve_a_project_contradiction_an_editor_can(calls_as, shared,
                                                                       team, alice, dana,
                                                                       bob):
    other = remember(owner=alice, content="Orders moved to MySQL 8.", project=SHOP,
                     scope=Scope.PROJECT, shared_with=team).memory
    Contradiction.objects.all().delete()
    contradiction = Contradiction.objects.create(owner=alice, memory_a=shared, memory_b=other,
                                                 shared_with=team, reason="Two databases.")

    async def resolves(client):
        return await call(client, "memory_resolve", contradiction=str(contradiction.pk),
                          resolution="a_wins")

    failed, said = calls_as(dana, resolves)
    assert failed and "Only the owners and editors" in said
    contradiction.refresh_from_db()
    assert contradiction.status == "open"
    failed, said = calls_as(bob, resolves)
    assert not failed and said.startswith("Resolved")

"""Contradictions are looked for within one scope: a private memory against its author's
private ones, a project memory against that project's memories of every author. Those
of a project go to the project's queue, which its owners and editors work through."""

import pytest

from memories.maintenance.contradictions import resolve_contradiction
from memories.models import Contradiction, Memory, Resolution, Role, Scope
from memories.selectors import (
    NotAllowed,
    contradiction_queue,
    count_open_contradictions,
    open_contradictions_for,
)
from memories.services import remembering
from memories.services.projects import add_member, create_project, remove_member
from tests.helpers import SHOP

PORT_8080 = "The orders API listens on port 8080"
PORT_9090 = "The orders API listens on port 9090"


@pytest.fixture
def remember(django_capture_on_commit_callbacks):
    """remember(), then the contradiction check its commit queues: shared with `project`,
    or private, naming the team project all the same (only the scope sets it apart)."""
    def store(owner, content, project=None):
        shared = {"project": project.name, "scope": Scope.PROJECT, "shared_with": project} \
            if project else {"project": SHOP}
        with django_capture_on_commit_callbacks(execute=True):
            return remembering.remember(owner=owner, content=content, **shared).memory
    return store


def queue(user):
    return list(contradiction_queue(user, status="open"))


def test_a_members_memory_contradicting_anothers_lands_in_the_projects_queue(
        alice, bob, dana, charlie, team, remember):
    old = remember(alice, PORT_8080, team)
    new = remember(bob, PORT_9090, team)
    found = Contradiction.objects.get()
    assert (found.memory_a, found.memory_b, found.shared_with) == (old, new, team)
    assert queue(alice) == queue(bob) == [found]
    assert count_open_contradictions(alice) == count_open_contradictions(bob) == 1
    assert queue(dana) == [] and count_open_contradictions(dana) == 0
    assert queue(charlie) == [] and count_open_contradictions(charlie) == 0


def test_a_private_memory_is_never_compared_with_a_project_memory(alice, bob, team,
                                                                 remember):
    remember(alice, PORT_8080)
    remember(alice, PORT_9090, team)
    remember(bob, PORT_9090)
    assert not Contradiction.objects.exists()
    # the control: within the project, the same statement from bob is flagged
    remember(bob, PORT_8080, team)
    assert Contradiction.objects.get().shared_with == team


def test_two_projects_memories_are_never_compared_even_of_one_name(alice, bob, team,
                                                                   remember):
    bobs_shop = create_project(creator=bob, name=team.name)
    add_member(bobs_shop, by=bob, username="alice", role=Role.EDITOR)
    remember(alice, PORT_8080, team)
    remember(alice, PORT_9090, bobs_shop)
    assert not Contradiction.objects.exists()


def test_a_private_contradiction_stays_its_owners(alice, bob, team, remember):
    remember(alice, PORT_8080)
    remember(alice, PORT_9090)
    found = Contradiction.objects.get()
    assert found.shared_with is None
    assert queue(alice) == [found] and queue(bob) == []


def test_a_reader_cannot_resolve_and_nothing_changes(alice, bob, dana, team, remember):
    remember(alice, PORT_8080, team)
    remember(bob, PORT_9090, team)
    found = Contradiction.objects.get()
    with pytest.raises(NotAllowed):
        resolve_contradiction(found, resolution=Resolution.B_WINS, by=dana)
    found.refresh_from_db()
    assert found.status == "open" and found.resolved_by is None
    assert not Memory.objects.filter(superseded_by__isnull=False).exists()


def test_an_editor_resolves_and_is_recorded_as_who_decided(alice, bob, team, remember):
    old = remember(alice, PORT_8080, team)
    new = remember(bob, PORT_9090, team)
    resolve_contradiction(Contradiction.objects.get(), resolution=Resolution.B_WINS, by=bob)
    found = Contradiction.objects.get()
    assert (found.status, found.resolved_by) == ("resolved", bob)
    assert Memory.objects.get(pk=old.pk).superseded_by_id == new.pk
    assert old.versions.filter(changed_by=bob, after__superseded_by=str(new.pk)).exists()


def test_a_merged_resolution_stays_in_the_project_written_by_who_decided(alice, bob, dana,
                                                                         team, remember):
    remember(alice, PORT_8080, team)
    remember(bob, PORT_9090, team)
    resolved = resolve_contradiction(
        Contradiction.objects.get(), resolution=Resolution.MERGED, by=alice,
        merged_content="The public orders API listens on 9090, the admin one on 8080")
    merged = resolved.merged_into
    assert (merged.scope, merged.shared_with, merged.project, merged.owner) == (
        Scope.PROJECT, team, team.name, alice)
    assert Memory.objects.readable_by(dana).filter(pk=merged.pk).exists()


def test_a_member_who_leaves_loses_the_projects_queue(alice, bob, team, remember):
    remember(alice, PORT_8080, team)
    remember(bob, PORT_9090, team)
    remove_member(team, by=bob, username="bob")
    assert queue(bob) == [] and len(queue(alice)) == 1
    with pytest.raises(NotAllowed):
        resolve_contradiction(Contradiction.objects.get(), resolution="a_wins", by=bob)


def test_a_reader_is_told_what_they_read_is_disputed_but_an_outsider_is_not(
        alice, bob, dana, charlie, team, remember):
    old = remember(alice, PORT_8080, team)
    new = remember(bob, PORT_9090, team)
    found = Contradiction.objects.get()
    assert open_contradictions_for(dana, [new.pk]) == {old.pk: found, new.pk: found}
    assert open_contradictions_for(charlie, [new.pk]) == {}

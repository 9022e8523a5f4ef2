"""Captured memories go to the project named by the observation when its author owns or
edits it; personal ones, a reader's and everything else stay private."""

import pytest
from django.core.exceptions import ValidationError

from memories.capture import observe as observing
from memories.capture.extraction import process_observation
from memories.models import Kind, Memory, Observation, Scope
from memories.selectors import NotAllowed
from memories.services.projects import add_member, create_project, remove_member
from tests.helpers import SHOP

DECISION = ("We decided to use PostgreSQL 16 for the orders service instead of MySQL, "
            "because we need transactional DDL.")
PREFERENCE = "I prefer pytest over unittest for every new test file."


@pytest.fixture
def observe(django_capture_on_commit_callbacks):
    """observing.observe in the team's project, then what its commit queues."""
    def send(owner, *texts, **extra):
        with django_capture_on_commit_callbacks(execute=True):
            return observing.observe(
                owner=owner, messages=[{"role": "user", "text": t} for t in texts],
                tool_events=[], **({"project": SHOP, "session_id": "s-1"} | extra)
            ).observation
    return send


def test_an_editors_observation_yields_project_memories_every_member_reads(
        team, bob, alice, dana, charlie, observe):
    observation = observe(bob, DECISION)
    assert observation.shared_with == team
    memory = Memory.objects.get(content__icontains="PostgreSQL 16")
    assert (memory.owner, memory.scope, memory.shared_with, memory.project) == (
        bob, Scope.PROJECT, team, SHOP)
    for member in (alice, bob, dana):
        assert Memory.objects.readable_by(member).filter(pk=memory.pk).exists()
    assert not Memory.objects.readable_by(charlie).filter(pk=memory.pk).exists()


def test_a_preference_stays_private_beside_the_projects_memories(team, bob, alice,
                                                                observe):
    observe(bob, DECISION, PREFERENCE)
    preference = Memory.objects.get(kind=Kind.PREFERENCE)
    assert "pytest" in preference.content
    assert (preference.scope, preference.shared_with) == (Scope.PRIVATE, None)
    assert not Memory.objects.readable_by(alice).filter(pk=preference.pk).exists()
    assert Memory.objects.filter(scope=Scope.PROJECT, content__icontains="PostgreSQL").exists()


def test_a_readers_observation_stays_private(team, dana, alice, observe):
    observation = observe(dana, DECISION)
    assert observation.shared_with is None
    memory = Memory.objects.get(owner=dana)
    assert (memory.scope, memory.project) == (Scope.PRIVATE, SHOP)
    assert not Memory.objects.readable_by(alice).filter(pk=memory.pk).exists()


def test_an_observation_naming_a_project_one_is_not_a_member_of_stays_private(
        team, charlie, observe):
    assert observe(charlie, DECISION).shared_with is None
    assert Memory.objects.get(owner=charlie).scope == Scope.PRIVATE


def test_two_projects_of_that_name_neither_ones_own_keep_it_private(alice, bob, charlie,
                                                                   observe):
    for creator in (alice, bob):
        add_member(create_project(creator=creator, name=SHOP), by=creator,
                   username="charlie", role="editor")
    assert observe(charlie, DECISION).shared_with is None
    assert Memory.objects.get(owner=charlie).scope == Scope.PRIVATE


def test_scope_private_keeps_an_editors_observation_private(team, bob, observe):
    assert observe(bob, DECISION, scope="private").shared_with is None
    assert Memory.objects.get(owner=bob).scope == Scope.PRIVATE


def test_the_same_text_sent_private_then_to_the_project_is_two_observations(
        team, bob, observe):
    private = observe(bob, DECISION, scope="private")
    shared = observe(bob, DECISION)
    assert private.pk != shared.pk
    assert sorted(Memory.objects.filter(owner=bob).values_list("scope", flat=True)) == [
        Scope.PRIVATE, Scope.PROJECT]


def test_scope_project_is_refused_to_a_reader_and_stores_nothing(team, dana, observe):
    with pytest.raises(NotAllowed, match=f"reader of project '{SHOP}'"):
        observe(dana, DECISION, scope="project")
    assert not Observation.objects.exists()


@pytest.mark.parametrize("project, field, message", [
    ("warehouse", "project", "no project named 'warehouse'"),
    ("", "project", "Name the project"),
])
def test_scope_project_needs_a_project_of_that_name(team, bob, observe, project, field,
                                                    message):
    with pytest.raises(ValidationError) as refused:
        observe(bob, DECISION, scope="project", project=project)
    assert message in refused.value.message_dict[field][0]
    assert not Observation.objects.exists()


def test_an_author_who_left_before_extraction_keeps_the_memories_private(
        team, bob, alice, observe, stopped_worker):
    observation = observe(bob, DECISION)
    assert observation.shared_with == team
    remove_member(team, by=alice, username="bob")
    process_observation(observation.pk)
    memory = Memory.objects.get(owner=bob)
    assert (memory.scope, memory.shared_with) == (Scope.PRIVATE, None)
    assert not Memory.objects.readable_by(alice).filter(pk=memory.pk).exists()


def test_a_fact_the_project_holds_is_not_repeated_by_another_editors_observation(
        team, alice, bob, observe):
    observe(alice, DECISION)
    repeated = observe(bob, DECISION)
    repeated.refresh_from_db()
    assert repeated.memories_created == 0
    assert list(Memory.objects.values_list("owner__username", "scope")) == [
        ("alice", Scope.PROJECT)]


def test_the_creator_tells_two_projects_of_one_name_apart(team, bob, observe):
    bobs_own = create_project(creator=bob, name=SHOP)
    assert observe(bob, DECISION).shared_with == bobs_own  # his own, named alone
    into_alices = observe(bob, DECISION, session_id="s-2", scope=Scope.PROJECT,
                          project_creator="alice")
    assert into_alices.shared_with == team
    with pytest.raises(ValidationError, match="no project named"):
        observe(bob, DECISION, session_id="s-3", scope=Scope.PROJECT,
                project_creator="charlie")

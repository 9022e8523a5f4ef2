"""Consolidation never merges across scopes: a private memory never merges into a project
one or the other way, two projects never merge, and what a cluster becomes stays in its
scope."""


import pytest

from memories.maintenance.consolidation import consolidate
from memories.models import Memory, Role, Scope, Status
from memories.services.projects import add_member, create_project
from tests.helpers import SHOP
from tests.maintenance.test_consolidation import NOW, REDIS_NOTES, copy_past_dedup
from tests.maintenance.test_consolidation import old as stored_long_ago

DEPLOYS = "Deploys go through the staging cluster first."


def old(owner, content, project=None, *, days=60):
    """An old memory shared with `project`, or a private one naming the team project (so
    only its scope sets it apart)."""
    shared = {"project": project.name, "scope": Scope.PROJECT, "shared_with": project} \
        if project else {"project": SHOP}
    return stored_long_ago(owner, content, days=days, **shared)


def active(*memories):
    return [Memory.objects.get(pk=m.pk).status == Status.ACTIVE for m in memories]


def test_the_same_text_private_and_shared_stays_two_memories(alice, team):
    private, shared = old(alice, DEPLOYS), old(alice, DEPLOYS, team)
    assert private.pk != shared.pk  # dedup kept them apart when written, too
    report = consolidate(owner=alice, now=NOW)
    assert report["deduplicated"] == 0
    assert active(private, shared) == [True, True]


def test_a_repeat_merges_into_its_own_scopes_memory_only(alice, team):
    private, shared = old(alice, DEPLOYS, days=90), old(alice, DEPLOYS, team, days=80)
    slipped = copy_past_dedup(private, days=50)
    report = consolidate(owner=alice, now=NOW)
    assert report["deduplicated"] == 1
    assert active(private, shared, slipped) == [True, True, False]
    assert Memory.objects.get(pk=private.pk).helpful_count == 1
    assert Memory.objects.get(pk=shared.pk).helpful_count == 0


def test_two_projects_never_merge_even_of_one_name(alice, bob, team):
    bobs_shop = create_project(creator=bob, name=SHOP)
    add_member(bobs_shop, by=bob, username="alice", role=Role.EDITOR)
    in_shop, in_bobs = old(alice, DEPLOYS, team), old(alice, DEPLOYS, bobs_shop)
    assert consolidate(owner=alice, now=NOW)["deduplicated"] == 0
    assert active(in_shop, in_bobs) == [True, True]


def test_a_cluster_is_summarised_in_its_scope_leaving_the_other_scopes_notes(alice, dana,
                                                                              team, settings):
    settings.ENGRAM_DEDUP_THRESHOLD = 0.99  # let the near-repeats be stored as rows
    shared = [old(alice, text, team) for text in REDIS_NOTES[:2]]
    private = old(alice, REDIS_NOTES[2])
    report = consolidate(owner=alice, now=NOW)
    assert (report["clusters"], report["archived"]) == (1, 2)
    summary = Memory.objects.get(metadata__consolidated_from__isnull=False)
    assert (summary.scope, summary.shared_with, summary.owner) == (Scope.PROJECT, team, alice)
    assert set(summary.metadata["consolidated_from"]) == {str(m.pk) for m in shared}
    assert active(*shared, private) == [False, False, True]
    assert Memory.objects.readable_by(dana).filter(pk=summary.pk).exists()


@pytest.mark.parametrize("role, merged", [(Role.EDITOR, 1), (Role.READER, 0)])
def test_an_authors_project_memories_are_consolidated_only_while_they_write_there(
        alice, bob, team, role, merged):
    memory = old(bob, DEPLOYS, team, days=90)
    copy_past_dedup(memory, days=50)
    add_member(team, by=alice, username="bob", role=role)
    assert consolidate(owner=bob, now=NOW)["deduplicated"] == merged

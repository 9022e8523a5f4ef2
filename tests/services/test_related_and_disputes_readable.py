"""What is linked to a memory, and what disputes it, is shown to a user only as far as they
read: a project memory linked to its author's private notes never shows them to the
other members, and a reader is told that a project memory they read is disputed."""

import json

import pytest

from memories.models import Contradiction, LinkRelation, MemoryLink, Scope
from memories.selectors import related_memories
from memories.services.context import assemble_context
from memories.services.remembering import remember


def link(a, b):
    MemoryLink.objects.create(from_memory=a, to_memory=b, relation=LinkRelation.RELATED)


@pytest.fixture
def shared(team):
    return {"project": team.name, "scope": Scope.PROJECT, "shared_with": team}


@pytest.fixture
def graph(alice, bob, shared):
    """bob's project memory, linked to alice's project memory and to bob's private note,
    which is linked to another private note of bob's (two hops away)."""
    memory = remember(owner=bob, content="Checkout retries failed payments twice",
                      **shared).memory
    alices = remember(owner=alice, content="Payments go through Stripe", **shared).memory
    note = remember(owner=bob, content="My hunch: the retry count is too low").memory
    further = remember(owner=bob, content="Ask Eve about the payment retries").memory
    link(memory, alices)
    link(note, memory)
    link(note, further)
    return memory, alices, note, further


def related(memory, reader):
    return [(m, hop) for m, hop, _ in related_memories(memory, reader=reader, depth=2)]


def test_the_author_sees_their_private_notes_linked_to_a_project_memory(bob, graph):
    memory, alices, note, further = graph
    assert related(memory, bob) == sorted([(alices, 1), (note, 1), (further, 2)],
                                          key=lambda row: (row[1], str(row[0].pk)))


def test_another_member_sees_only_the_projects_memories_and_walks_nothing_else(
        alice, dana, graph):
    memory, alices, *_ = graph
    assert related(memory, alice) == related(memory, dana) == [(alices, 1)]


def test_an_outsider_sees_nothing_linked(charlie, graph):
    assert related(graph[0], charlie) == []


def test_a_readers_context_marks_the_disputed_project_memory(alice, bob, dana, charlie,
                                                            team, shared):
    old = remember(owner=alice, content="The orders API listens on port 8080",
                   **shared).memory
    new = remember(owner=bob, content="The orders API listens on port 9090",
                   **shared).memory
    Contradiction.objects.create(owner=bob, memory_a=old, memory_b=new, shared_with=team,
                                 detected_by="rules")
    built = assemble_context(owner=dana, query="which port does the orders API use?",
                             max_tokens=4000, fmt="json", track=False)
    shown = {str(hit.memory.pk): json.loads(built.context)["memories"][ref - 1]
             for ref, hit in enumerate(built.used, 1)}
    assert f"contradicts memory {new.pk.hex[-8:]}" in shown[str(old.pk)]["content"]
    assert shown[str(old.pk)]["tier"] == "critical"
    outside = assemble_context(owner=charlie, query="which port does the orders API use?",
                               max_tokens=4000, track=False)
    assert "8080" not in outside.context

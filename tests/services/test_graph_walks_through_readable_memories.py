"""Search's graph walk and related's walk step only through memories the caller reads
and their key reaches: a readable memory reached through one they cannot see would show
how the memories they cannot see are linked."""

import pytest

from memories.models import LinkRelation, MemoryLink, Scope
from memories.providers.embeddings import get_provider
from memories.selectors import (
    EVERYWHERE,
    Reach,
    RecallFilters,
    hybrid_candidates,
    related_memories,
)
from memories.services.remembering import remember

QUERY = "checkout retries failed payments"


def link(a, b):
    MemoryLink.objects.create(from_memory=a, to_memory=b, relation=LinkRelation.RELATED)


def reached(user, filters=None):
    """What the walk reached from the one best hit, by text: its hop."""
    provider = get_provider()
    found = hybrid_candidates(user, query=QUERY, vector=provider.embed_query(QUERY),
                              model_id=provider.model_id, dimensions=provider.dimensions,
                              filters=filters or RecallFilters(), dense_k=1, keyword_k=1,
                              graph_seeds=1)
    return {c.content: c.graph_hop for c in found if c.graph_hop is not None}


@pytest.fixture
def through_a_private_note(alice, bob, team):
    """A project memory of bob's, linked to his private note, which is linked to a
    project memory of alice's."""
    shared = {"project": team.name, "scope": Scope.PROJECT, "shared_with": team}
    checkout = remember(owner=bob, content="Checkout retries failed payments twice",
                        **shared).memory
    note = remember(owner=bob, content="My hunch: the retry count is too low").memory
    invoices = remember(owner=alice, content="Invoices are emailed on the first of the month",
                        **shared).memory
    link(checkout, note)
    link(note, invoices)
    return invoices


def test_search_never_walks_through_another_members_private_note(alice, dana,
                                                                 through_a_private_note):
    assert reached(alice) == reached(dana) == {}


def test_search_walks_through_a_note_its_author_reads(bob, through_a_private_note):
    assert reached(bob) == {"My hunch: the retry count is too low": 1,
                            "Invoices are emailed on the first of the month": 2}


@pytest.fixture
def through_another_project(alice):
    """alice's memories: one of project shop linked to one of project blog, which is
    linked to another of shop."""
    checkout = remember(owner=alice, content="Checkout retries failed payments twice",
                        project="shop").memory
    blog = remember(owner=alice, content="The blog posts go out on Mondays",
                    project="blog").memory
    invoices = remember(owner=alice, content="Invoices are emailed on the first of the month",
                        project="shop").memory
    link(checkout, blog)
    link(blog, invoices)
    return checkout, blog, invoices


def test_a_key_restricted_to_a_project_never_walks_through_another(alice,
                                                                   through_another_project):
    checkout = through_another_project[0]
    shop = Reach("shop")
    assert reached(alice, shop.recall(RecallFilters())) == {}
    assert related_memories(checkout, reader=alice, depth=2, reach=shop) == []


def test_an_unrestricted_key_walks_through_every_project(alice, through_another_project):
    checkout, blog, invoices = through_another_project
    assert reached(alice) == {blog.content: 1, invoices.content: 2}
    assert [(m, hop) for m, hop, _ in related_memories(
        checkout, reader=alice, depth=2, reach=EVERYWHERE)] == [(blog, 1), (invoices, 2)]


def test_search_walks_through_what_the_session_has_seen_without_returning_it(
        bob, through_a_private_note):
    note = bob.memories.get(content__startswith="My hunch")
    provider = get_provider()
    found = hybrid_candidates(bob, query=QUERY, vector=provider.embed_query(QUERY),
                              model_id=provider.model_id, dimensions=provider.dimensions,
                              filters=RecallFilters(), dense_k=1, keyword_k=1, graph_seeds=1,
                              exclude_ids=[note.pk])
    assert {c.content: c.graph_hop for c in found if c.graph_hop is not None} == {
        "Invoices are emailed on the first of the month": 2}

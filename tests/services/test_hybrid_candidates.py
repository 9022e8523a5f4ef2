"""The three candidate lists (dense, keyword, graph) and every recall filter."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Memory, MemoryLink
from memories.providers.embeddings import get_provider
from memories.selectors import RecallFilters, hybrid_candidates
from memories.services import remembering
from memories.services.remembering import (
    SESSION_LINK_STRENGTH,
    NewMemory,
    remember_many,
)


def candidates(owner, query, **kwargs):
    provider = get_provider()
    found = hybrid_candidates(owner, query=query, vector=provider.embed_query(query),
                              model_id=provider.model_id, dimensions=provider.dimensions,
                              **kwargs)
    memories = Memory.objects.in_bulk([c.pk for c in found])
    return {memories[c.pk].content: c for c in found}


def remember(owner, content, **fields):
    return remembering.remember(owner=owner, content=content, **fields).memory


@pytest.fixture
def store(alice):
    router = remember(alice, "The office router hands out DHCP leases for 5 minutes")
    ticket = remember(alice, "Ticket NET-42 tracks the flaky access point in room 3")
    vendor = remember(alice, "Our hardware vendor is Ubiquiti, contact Sam")
    remember(alice, "Sourdough needs a long cold proof")
    MemoryLink.objects.create(from_memory=ticket, to_memory=router, relation="related")
    MemoryLink.objects.create(from_memory=ticket, to_memory=vendor, relation="related")
    return alice


def test_each_memory_carries_the_lists_it_came_from(store):
    found = candidates(store, "DHCP leases", graph_seeds=1)
    router = found["The office router hands out DHCP leases for 5 minutes"]
    assert router.dense_rank == 1 and router.similarity > 0.3
    assert router.keyword_rank == 1 and router.keyword_score > 0
    assert router.graph_hop is None


def test_the_graph_walk_follows_links_both_ways_for_two_hops(store):
    found = candidates(store, "DHCP leases", graph_seeds=1, dense_k=1, keyword_k=1)
    assert found["Ticket NET-42 tracks the flaky access point in room 3"].graph_hop == 1
    vendor = found["Our hardware vendor is Ubiquiti, contact Sam"]
    assert vendor.graph_hop == 2 and vendor.dense_rank is None
    one_hop = candidates(store, "DHCP leases", graph_seeds=1, dense_k=1, keyword_k=1,
                         graph_depth=1)
    assert "Our hardware vendor is Ubiquiti, contact Sam" not in one_hop


def test_the_walk_takes_a_hubs_strongest_links_each_neighbour_once(alice):
    from memories.selectors import LINKS_WALKED

    hub = remember(alice, "The office router hands out DHCP leases for 5 minutes")
    spokes = [remember(alice, f"Printer {n} on floor {n} has a static address")
              for n in range(LINKS_WALKED + 10)]
    for n, spoke in enumerate(spokes):  # the later, the stronger; two relations a pair
        for relation in ("related", "elaborates"):
            MemoryLink.objects.create(from_memory=hub, to_memory=spoke, relation=relation,
                                      strength=n + 1)
    found = candidates(alice, "DHCP leases", graph_seeds=1, dense_k=1, keyword_k=1,
                       graph_depth=1)
    reached = {content for content, c in found.items() if c.graph_hop == 1}
    assert reached == {spoke.content for spoke in spokes[-LINKS_WALKED:]}


def test_a_query_of_one_long_joined_run_reaches_text_search_in_pieces(store, monkeypatch):
    import re

    from memories import selectors

    bound = []
    real = selectors._server_bound
    monkeypatch.setattr(selectors, "_server_bound",
                        lambda sql, params: bound.append(params) or real(sql, params))
    query = "DHCP leases " + "a-b.c_d" * 2_000  # parsed in the square of its length
    assert "The office router hands out DHCP leases for 5 minutes" in candidates(store, query)
    [texts] = [[p for p in params if isinstance(p, str) and "a-b.c_d" in p]
               for params in bound]
    assert texts and not any(re.search(r"\S{101}", text) for text in texts)


def test_deleted_and_other_owners_memories_are_never_candidates(store, bob):
    Memory.objects.filter(content__startswith="Our hardware").update(status="deleted")
    remember(bob, "Bob's router DHCP leases last a day")
    found = candidates(store, "router DHCP leases vendor")
    assert "Our hardware vendor is Ubiquiti, contact Sam" not in found
    assert "Bob's router DHCP leases last a day" not in found


def test_archived_memories_come_back_only_when_asked(store):
    Memory.objects.filter(content__startswith="Sourdough").update(status="archived")
    assert "Sourdough needs a long cold proof" not in candidates(store, "sourdough")
    assert "Sourdough needs a long cold proof" in candidates(
        store, "sourdough", filters=RecallFilters(include_archived=True))


def test_valid_at_returns_what_was_true_then(alice):
    now = timezone.now()
    old = remember(alice, "Deploys go through Jenkins", valid_from=now - timedelta(days=30))
    Memory.objects.filter(pk=old.pk).update(valid_to=now - timedelta(days=10))
    remember(alice, "Deploys go through GitHub Actions", valid_from=now - timedelta(days=10))
    then = candidates(alice, "deploys", filters=RecallFilters(valid_at=now - timedelta(days=20)))
    today = candidates(alice, "deploys", filters=RecallFilters(valid_at=now))
    assert set(then) == {"Deploys go through Jenkins"}
    assert set(today) == {"Deploys go through GitHub Actions"}


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (RecallFilters(tags=("infra", "urgent")), {"Rotate the VPN certificate"}),
        (RecallFilters(kinds=("decision",)), {"We chose Terraform for the VPN"}),
        (RecallFilters(memory_types=("procedural",)), {"Restart the VPN with vpnctl"}),
        (RecallFilters(project="edge"), {"Restart the VPN with vpnctl"}),
        (RecallFilters(agent_id="claude"), {"We chose Terraform for the VPN"}),
        (RecallFilters(session_id="s1"), {"Rotate the VPN certificate"}),
        (RecallFilters(min_importance=9), {"Rotate the VPN certificate"}),
    ],
)
def test_filters_narrow_the_candidates(alice, filters, expected):
    remember(alice, "Rotate the VPN certificate", tags=["infra", "urgent"], session_id="s1",
             importance=9)
    remember(alice, "We chose Terraform for the VPN", kind="decision", agent_id="claude",
             tags=["infra"], importance=5)
    remember(alice, "Restart the VPN with vpnctl", memory_type="procedural", project="edge",
             importance=5)
    assert set(candidates(alice, "VPN", filters=filters)) == expected


def test_created_time_range_and_excluded_ids(alice):
    now = timezone.now()
    early = remember(alice, "Backups run nightly at 2am")
    Memory.objects.filter(pk=early.pk).update(created_at=now - timedelta(days=3))
    late = remember(alice, "Backups are kept for 30 days")
    window = RecallFilters(created_after=now - timedelta(days=1))
    assert set(candidates(alice, "backups", filters=window)) == {late.content}
    assert set(candidates(alice, "backups", exclude_ids=[late.pk])) == {early.content}


def test_keyword_only_when_there_is_no_query_vector(store):
    found = hybrid_candidates(store, query="Ubiquiti", vector=None, model_id="unused",
                              dimensions=384)
    direct = [m for m in found if m.graph_hop is None]
    assert [Memory.objects.get(pk=m.pk).content for m in direct] == [
        "Our hardware vendor is Ubiquiti, contact Sam"]
    assert direct[0].similarity is None and direct[0].keyword_rank == 1
    assert all(m.similarity is None for m in found)


def test_memories_that_tie_on_keywords_are_cut_and_ranked_by_id(alice, monkeypatch):
    # Same length, the query word once each: equal BM25 scores. Which of them make the
    # cut must not depend on the order the server happens to read them in, or the same
    # question on the same store would find other memories another time.
    from memories import selectors

    monkeypatch.setattr(selectors, "POSTINGS_PER_TERM", 4)  # a term's strongest, cut too
    texts = [f"kestrel {a} {b}" for a, b in zip(
        ["orbit", "copper", "lantern", "meadow", "saddle", "quartz", "violin", "harbour",
         "pepper", "glacier", "thimble", "compass"],
        ["walnut", "tundra", "ribbon", "falcon", "marble", "oyster", "canyon", "velvet",
         "tablet", "bishop", "anchor", "lizard"], strict=True)]
    stored = [r.memory.pk for r in remember_many(owner=alice, items=[
        NewMemory(content=text) for text in texts])]
    assert len(set(stored)) == len(texts)
    found = hybrid_candidates(alice, query="kestrel", vector=None, model_id="unused",
                              dimensions=384, keyword_k=4, graph_seeds=0)
    by_rank = sorted((m for m in found if m.keyword_rank), key=lambda m: m.keyword_rank)
    assert len({m.keyword_score for m in by_rank}) == 1
    assert [m.pk for m in by_rank] == sorted(stored)[:4]


def test_every_candidate_carries_its_own_cosine_whichever_list_brought_it(store):
    found = candidates(store, "DHCP leases", graph_seeds=1, dense_k=1, keyword_k=1)
    provider = get_provider()
    query = provider.embed_query("DHCP leases")
    for content, candidate in found.items():
        memory = Memory.objects.get(pk=candidate.pk)
        expected = float(query @ memory.embedding)
        assert candidate.similarity == pytest.approx(expected, abs=1e-4), content
    assert found["Our hardware vendor is Ubiquiti, contact Sam"].dense_rank is None


def test_remember_links_each_memory_of_a_session_to_the_one_before_it(alice, bob):
    first = remember(alice, "Kim asked how the migration to Postgres went", session_id="s1")
    other = remember(alice, "Unrelated note without a session")
    remember_many(owner=alice, items=[
        NewMemory(content="It took two weekends and one rollback", session_id="s1"),
        NewMemory(content="A different session starts here", session_id="s2"),
        NewMemory(content="The rollback was caused by a missing index", session_id="s1"),
    ])
    second = Memory.objects.get(content__startswith="It took two")
    third = Memory.objects.get(content__startswith="The rollback")
    remember(bob, "Bob's own session note", session_id="s1")
    links = set(MemoryLink.objects.values_list("from_memory", "to_memory", "relation"))
    assert links == {(second.pk, first.pk, "related"), (third.pk, second.pk, "related")}
    assert not MemoryLink.objects.filter(from_memory=other).exists()
    assert set(MemoryLink.objects.values_list("strength", flat=True)) == {
        SESSION_LINK_STRENGTH}


def test_the_graph_walk_brings_the_reply_next_to_a_matching_turn(alice):
    remember(alice, "Sam: how did the migration to the new database go?", session_id="chat")
    remember(alice, "Kim: two weekends, one rollback, now it is stable", session_id="chat")
    found = candidates(alice, "migration to the new database", dense_k=1, keyword_k=1)
    reply = found["Kim: two weekends, one rollback, now it is stable"]
    assert reply.graph_hop == 1


def test_the_query_vector_is_written_with_seven_significant_digits():
    import numpy as np

    from memories.selectors import vector_literal

    vectors = [np.random.default_rng(seed).standard_normal(384).astype(np.float32) / 20
               for seed in range(20)]
    vectors.append(np.array([-0.0, 0.0, 1e-8, 123456789.0, 0.1, -1.5e-5], dtype=np.float32))
    for vector in vectors:
        assert vector_literal(vector) == "[" + ",".join(f"{x:.7g}" for x in vector.tolist()) + "]"
    assert vector_literal(vectors[-1]) == "[-0,0,1e-08,1.234568e+08,0.1,-1.5e-05]"


def test_the_candidate_query_is_short_enough_for_psycopg_to_remember_its_conversion(
        store, monkeypatch):
    # Above this length psycopg converts the placeholders again on every recall (61 us):
    # an owner reading their own memories stays under it. A project member's condition
    # is longer and appears three times (dense, keyword, each step of the graph walk),
    # and a narrowing filter brings a second keyword list (every posting, when the
    # strongest leave too few), which puts those queries over it.
    import psycopg._queries

    from memories import selectors

    sent = []
    real = selectors._server_bound
    monkeypatch.setattr(selectors, "_server_bound",
                        lambda sql, params: sent.append(sql) or real(sql, params))
    assert candidates(store, "DHCP leases")
    assert candidates(store, "DHCP leases", filters=RecallFilters(tags=["net"])) == {}
    plain, narrowed = sent
    assert len(plain) <= psycopg._queries.MAX_CACHED_STATEMENT_LENGTH < len(narrowed)


def test_compacting_keeps_two_dashes_in_a_literal_and_refuses_a_line_comment():
    from memories.selectors import _compact

    assert _compact("SELECT 1\n  WHERE m.embedding_model = 'acme:embed--v2'") \
        == "SELECT 1 WHERE m.embedding_model = 'acme:embed--v2'"
    with pytest.raises(ValueError, match="comment"):
        _compact("SELECT 1 -- the rest\n FROM memories_memory")

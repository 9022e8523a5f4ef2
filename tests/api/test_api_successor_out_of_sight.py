"""A memory that was merged into, or superseded by, one a member no longer reads (made
private, moved to another project) names no successor to that member: `superseded_by`
and `merged_into` are null for them, in its history too, and a context says only that
it was superseded;
so for an insight superseded by one they do not read, and its citations. Whoever still
reads the successor is shown where it went."""

import pytest

from memories.models import Memory, Scope
from memories.services.remembering import remember
from reflection.models import Insight
from tests.helpers import merged_out_of_sight

pytestmark = pytest.mark.django_db

QUESTION = "which port does the orders API listen on?"


@pytest.fixture
def merge(team, alice, bob):
    return merged_out_of_sight(team, alice, bob)


def seen_by(client, merge):
    """Every successor id the API hands this client about the merged memories."""
    old = merge.memory_a_id
    history = {"include_superseded": True}
    hits = client.post("/api/v1/memories/search",
                       {"query": QUESTION, "filters": history}, format="json").json()
    [resolved] = client.get("/api/v1/contradictions", {"status": "resolved"}).json()["results"]
    return {
        "detail": client.get(f"/api/v1/memories/{old}").json()["superseded_by"],
        "history": {v["after"]["superseded_by"] for v in client.get(
            f"/api/v1/memories/{old}/history").json() if "superseded_by" in v["after"]},
        "list": {m["superseded_by"] for m in client.get("/api/v1/memories").json()["results"]
                 if m["id"] == str(old)},
        "search": {h["memory"]["superseded_by"] for h in hits["results"]
                   if h["memory"]["id"] == str(old)},
        "merged_into": resolved["merged_into"],
        "sides": {resolved["memory_a"]["superseded_by"], resolved["memory_b"]["superseded_by"]},
        "context": merge.merged_into_id.hex[-8:] in client.post(
            "/api/v1/memories/context", {"query": QUESTION, **history},
            format="json").json()["context"],
    }


def test_a_member_who_no_longer_reads_the_merged_memory_is_not_told_its_id(
        alice, merge, api_client_for):
    assert seen_by(api_client_for(alice), merge) == {
        "detail": None, "history": {None}, "list": {None}, "search": {None}, "merged_into": None,
        "sides": {None}, "context": False}


def test_its_author_who_reads_it_is_shown_where_the_memories_went(bob, merge,
                                                                  api_client_for):
    merged = str(merge.merged_into_id)
    assert seen_by(api_client_for(bob), merge) == {
        "detail": merged, "history": {merged}, "list": {merged}, "search": {merged},
        "merged_into": merged,
        "sides": {merged}, "context": True}
    assert Memory.objects.get(pk=merge.merged_into_id).owner == bob


def test_an_insight_names_only_the_successors_its_reader_reads(alice, bob, dana, team,
                                                               merge, api_client_for):
    def insight(content, **scope):
        return Insight.objects.create(
            owner=alice, memory=remember(owner=alice, content=content, **scope).memory,
            question="Which port?", cited_ids=[merge.memory_a_id], text_hash=content,
            cited_key="orders")

    older = insight("The orders API moved ports once", project=team.name,
                    scope=Scope.PROJECT, shared_with=team)
    newer = insight("The orders API moved from 8080 to 9090 in May")  # alice's alone
    Insight.objects.filter(pk=older.pk).update(superseded_by=newer)

    def shown(user):
        [found] = [i for i in api_client_for(user).get("/api/v1/insights").json()["results"]
                   if i["id"] == str(older.pk)]
        return found["superseded_by"], [c["superseded_by"] for c in found["citations"]]

    assert shown(dana) == (None, [None])
    assert shown(alice) == (str(newer.pk), [None])
    assert shown(bob) == (None, [str(merge.merged_into_id)])

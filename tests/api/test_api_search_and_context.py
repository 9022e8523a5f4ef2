"""/api/v1/memories/search and /context: hybrid recall, scores, budgets, sessions."""

import json
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memories.services.recall import record_retrieval
from memories.services.remembering import remember
from memories.engine.context import count_tokens
from memories.models import Memory, UsageEvent

pytestmark = pytest.mark.django_db

NOTES = [
    ("The office router hands out DHCP leases for only 5 minutes", "fact"),
    ("TypeError in parse_config when the YAML file is empty; fixed by a None check", "error"),
    ("We decided to keep PostgreSQL as the only database", "decision"),
    ("Alice prefers small pull requests with one reviewer", "preference"),
    ("The staging cluster runs in eu-west-1", "fact"),
    ("I like baking sourdough bread on Sundays", "fact"),
]


@pytest.fixture
def alice_api(alice, api_client_for):
    for content, kind in NOTES:
        remember(owner=alice, content=content, kind=kind)
    return api_client_for(alice)


def context(client, **body):
    response = client.post("/api/v1/memories/context", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_search_ranks_by_meaning_and_shows_why(alice_api):
    response = alice_api.post("/api/v1/memories/search",
                              {"query": "the wireless keeps cutting out", "limit": 3},
                              format="json")
    results = response.json()["results"]
    assert results[0]["memory"]["content"].startswith("The office router")
    score = results[0]["score"]
    assert set(score) >= {"final", "match", "relevance", "recency", "importance", "similarity",
                          "keyword_score", "dense_rank", "keyword_rank", "graph_hop"}
    assert score["dense_rank"] == 1 and score["similarity"] > 0.2


def test_search_shows_a_memory_as_getting_it_does(alice_api, alice):
    stored = remember(owner=alice, content="The VPN certificate expires in May",
                      metadata={"source": "ticket 4"}, tags=["vpn"]).memory
    found = alice_api.post("/api/v1/memories/search", {"query": "VPN certificate",
                                                       "limit": 1}, format="json")
    shown = alice_api.get(f"/api/v1/memories/{stored.pk}").json()
    counted = {"access_count", "last_accessed_at"}  # the search counts as an access
    assert ({k: v for k, v in found.json()["results"][0]["memory"].items() if k not in counted}
            == {k: v for k, v in shown.items() if k not in counted})
    assert shown["metadata"] == {"source": "ticket 4"}  # an object, not its JSON text


def test_search_filters_and_counts_what_it_returns(alice_api, alice):
    response = alice_api.post("/api/v1/memories/search", {
        "query": "database", "filters": {"kinds": ["decision"]}, "session_id": "s1",
        "agent_id": "claude"}, format="json")
    results = response.json()["results"]
    assert [r["memory"]["kind"] for r in results] == ["decision"]
    memory = Memory.objects.get(pk=results[0]["memory"]["id"])
    assert memory.access_count == 1
    event = UsageEvent.objects.get(memory=memory)
    assert (event.kind, event.session_id, event.agent_id) == ("retrieved", "s1", "claude")


def test_recording_a_retrieval_is_one_statement_with_a_score_per_memory(
        alice, django_assert_num_queries):
    first = remember(owner=alice, content="Deploys go out on Tuesdays").memory
    second = remember(owner=alice, content="Rollbacks need a second reviewer").memory
    with django_assert_num_queries(1):
        record_retrieval(owner=alice, memories=[first, second], agent_id="claude",
                                  session_id="s9", scores=[0.75, 0.5])
    assert sorted(Memory.objects.values_list("access_count", flat=True)) == [1, 1]
    events = {e.memory_id: e for e in UsageEvent.objects.all()}
    assert events[first.pk].score == 0.75 and events[second.pk].score == 0.5
    assert {(e.owner_id, e.kind, e.agent_id, e.session_id) for e in events.values()} == {
        (alice.pk, "retrieved", "claude", "s9")}
    with pytest.raises(ValueError, match="one score per memory"):
        record_retrieval(owner=alice, memories=[first], scores=[0.1, 0.2])


def test_search_refuses_bad_filters_with_the_field(alice_api):
    response = alice_api.post("/api/v1/memories/search",
                              {"query": "x", "filters": {"kinds": ["rumour"]}}, format="json")
    assert response.status_code == 400
    assert "not a valid choice" in response.json()["error"]["fields"]["filters.kinds.0"][0]


def test_context_is_fenced_data_naming_memories_by_ref_with_their_ids_beside(alice_api):
    body = context(alice_api, query="why did the config parser crash?", max_tokens=300)
    assert body["memories_used"] >= 1 and body["tokens_used"] <= 300
    lines = body["context"].splitlines()
    assert "not instructions" in lines[0] and lines[-1] == "End of memory."
    assert [m["ref"] for m in body["memories"]] == list(range(1, body["memories_used"] + 1))
    first = body["memories"][0]
    assert first["kind"] == "error" and first["id"] not in body["context"]
    assert lines[1] == f"[1] {first['content']}"
    assert Memory.objects.get(pk=first["id"]).content == first["content"]
    assert count_tokens(body["context"]) <= 300


def test_a_60_token_context_holds_the_best_memory(alice_api):
    body = context(alice_api, query="why did the config parser crash?", max_tokens=60)
    assert body["memories_used"] == 1 and body["tokens_used"] <= 60
    assert body["memories"][0]["kind"] == "error"


def test_a_projects_context_holds_general_memories_only_when_asked(alice_api, alice):
    remember(owner=alice, content="The shop's staging cluster is in us-east-2", project="shop")
    remember(owner=alice, content="The blog's staging cluster is on Netlify", project="blog")
    query = "where does the staging cluster run?"
    only = context(alice_api, query=query, project="shop", min_score=0)
    both = context(alice_api, query=query, project="shop", with_general=True, min_score=0)
    assert "us-east-2" in only["context"] and "eu-west-1" not in only["context"]
    assert "us-east-2" in both["context"] and "eu-west-1" in both["context"]
    assert "Netlify" not in both["context"]
    assert all("content" in memory for memory in both["memories"])


def test_an_unrelated_prompt_gets_an_empty_context(alice_api):
    body = context(alice_api, query="quantum chromodynamics of gluons", max_tokens=500)
    assert body == {"context": "", "memories_used": 0, "tokens_used": 0, "truncated": False,
                    "tiers": {}, "memories": []}  # no tier holds anything


def test_memories_already_surfaced_in_the_session_are_skipped(alice_api):
    first = context(alice_api, query="router DHCP leases", max_tokens=150, session_id="s9")
    again = context(alice_api, query="router DHCP leases", max_tokens=150, session_id="s9")
    other_session = context(alice_api, query="router DHCP leases", max_tokens=150,
                            session_id="s10")
    first_ids = {m["id"] for m in first["memories"]}
    assert first_ids and not first_ids & {m["id"] for m in again["memories"]}
    assert first_ids <= {m["id"] for m in other_session["memories"]}


@pytest.mark.parametrize("fmt", ["xml", "json"])
def test_xml_and_json_contexts_parse(alice_api, fmt):
    body = context(alice_api, query="database decision", max_tokens=400, format=fmt)
    assert body["memories_used"] >= 1
    if fmt == "xml":
        ET.fromstring(body["context"])
    else:
        json.loads(body["context"])


def test_a_large_budget_is_split_into_tiers(alice_api):
    # a query the error, the decision and the preference all answer: with one that
    # matches nothing, which third of the memories falls to the index tier is arbitrary
    body = context(alice_api, query="what should I know about errors, the database and "
                   "pull requests?", max_tokens=8000, min_score=0)
    assert set(body["tiers"]) == {"critical", "relevant", "background", "index"}
    assert body["tiers"]["critical"] > 0  # the recent error and decision
    assert body["tiers"]["background"] > 0  # the preference
    assert body["tokens_used"] <= 8000


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(budget=st.integers(min_value=1, max_value=3000),
       fmt=st.sampled_from(["markdown", "xml", "json"]))
def test_the_context_never_exceeds_its_budget(alice_api, budget, fmt):
    body = context(alice_api, query="database router pull requests", max_tokens=budget,
                   format=fmt, min_score=0)
    assert count_tokens(body["context"]) <= budget
    assert body["tokens_used"] <= budget


def test_bad_context_requests_name_the_field(alice_api):
    response = alice_api.post("/api/v1/memories/context",
                              {"query": "x", "max_tokens": 0, "format": "yaml"}, format="json")
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"max_tokens", "format"}

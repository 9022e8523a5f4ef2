"""/api/v1/memories: create, list, read, change, delete, history, related, feedback."""

import pytest

from memories.services.remembering import remember
from memories.models import Memory, MemoryLink

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_api(alice, api_client_for):
    return api_client_for(alice)


def create(client, **body):
    return client.post("/api/v1/memories", {"content": "Use tabs", **body}, format="json")


def test_it_creates_a_memory_and_says_so(alice_api, alice):
    response = create(alice_api, content="Deploys need two approvals", kind="decision",
                      tags=["Release"], project="shop")
    assert response.status_code == 201
    body = response.json()
    assert body["action"] == "created" and body["similarity"] is None
    assert body["memory"]["kind"] == "decision" and body["memory"]["tags"] == ["release"]
    assert body["memory"]["importance"] == 8  # decisions score 8
    assert Memory.objects.get(pk=body["memory"]["id"]).owner == alice


def test_a_repeat_strengthens_and_answers_200(alice_api):
    first = create(alice_api, content="Deploys need two approvals").json()
    again = create(alice_api, content="deploys need two approvals.")
    assert again.status_code == 200
    assert again.json()["action"] == "strengthened"
    assert again.json()["memory"]["id"] == first["memory"]["id"]


def test_a_repeat_can_be_refused_with_409_instead(alice_api):
    create(alice_api, content="Deploys need two approvals")
    response = create(alice_api, content="Deploys need two approvals", on_duplicate="reject")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    assert Memory.objects.count() == 1
    assert Memory.objects.get().helpful_count == 0


def test_it_lists_newest_first_with_filters_and_a_cursor(alice_api, alice):
    for i in range(5):
        remember(owner=alice, content=f"note number {i} about topic {i * 7}",
                          kind="episode" if i % 2 else "fact")
    page = alice_api.get("/api/v1/memories", {"page_size": 2}).json()
    assert [m["content"] for m in page["results"]] == ["note number 4 about topic 28",
                                                       "note number 3 about topic 21"]
    rest = alice_api.get(page["next"]).json()
    assert [m["content"] for m in rest["results"]][0] == "note number 2 about topic 14"
    episodes = alice_api.get("/api/v1/memories", {"kind": "episode"}).json()["results"]
    assert {m["content"] for m in episodes} == {"note number 1 about topic 7",
                                                "note number 3 about topic 21"}


def test_patch_changes_fields_and_keeps_the_old_values_in_history(alice_api, alice):
    memory = remember(owner=alice, content="Staging is on Heroku").memory
    response = alice_api.patch(f"/api/v1/memories/{memory.pk}",
                               {"content": "Staging is on Fly.io", "importance": 7,
                                "pinned": True, "agent_id": "claude"}, format="json")
    assert response.status_code == 200
    assert response.json()["content"] == "Staging is on Fly.io"
    history = alice_api.get(f"/api/v1/memories/{memory.pk}/history").json()
    assert history[-1]["change"] == "updated"
    assert history[-1]["before"] == {"content": "Staging is on Heroku", "importance": 5.0,
                                     "pinned": False}
    assert history[-1]["after"]["content"] == "Staging is on Fly.io"
    assert history[-1]["changed_by"] == "alice" and history[-1]["agent_id"] == "claude"
    memory.refresh_from_db()
    assert memory.embedding_model and memory.content_hash != ""


def test_delete_is_soft_and_patching_status_restores_exactly(alice_api, alice):
    memory = remember(owner=alice, content="The VPN profile is split-tunnel").memory
    assert alice_api.delete(f"/api/v1/memories/{memory.pk}").json()["status"] == "deleted"
    listed = alice_api.get("/api/v1/memories").json()["results"]
    assert listed == []
    deleted = alice_api.get("/api/v1/memories", {"status": "deleted"}).json()["results"]
    assert [m["id"] for m in deleted] == [str(memory.pk)]
    restored = alice_api.patch(f"/api/v1/memories/{memory.pk}", {"status": "active"},
                               format="json").json()
    assert restored["status"] == "active"
    assert restored["content"] == "The VPN profile is split-tunnel"
    changes = [v["change"] for v in
               alice_api.get(f"/api/v1/memories/{memory.pk}/history").json()]
    assert changes == ["created", "status", "status"]


def test_related_walks_links_up_to_the_asked_depth(alice_api, alice):
    a, b, c, d = (remember(owner=alice, content=text).memory for text in
                  ["Service A calls B", "B depends on Redis", "Redis runs on host-7",
                   "host-7 is in rack 4"])
    MemoryLink.objects.create(from_memory=a, to_memory=b, relation="related")
    MemoryLink.objects.create(from_memory=c, to_memory=b, relation="elaborates")
    MemoryLink.objects.create(from_memory=c, to_memory=d, relation="related")
    one = alice_api.get(f"/api/v1/memories/{a.pk}/related").json()
    assert [(r["memory"]["content"], r["hop"]) for r in one] == [("B depends on Redis", 1)]
    three = alice_api.get(f"/api/v1/memories/{a.pk}/related", {"depth": 3}).json()
    assert [(r["memory"]["content"], r["hop"], r["relation"]) for r in three] == [
        ("B depends on Redis", 1, "related"), ("Redis runs on host-7", 2, "elaborates"),
        ("host-7 is in rack 4", 3, "related")]
    assert alice_api.get(f"/api/v1/memories/{a.pk}/related", {"depth": 4}).status_code == 400


def test_feedback_counts_and_is_rate_limited_per_agent(alice_api, alice):
    memory = remember(owner=alice, content="Prefer httpx over requests").memory
    url = f"/api/v1/memories/{memory.pk}/feedback"
    first = alice_api.post(url, {"signal": "helpful", "agent_id": "a1"}, format="json")
    assert first.json() == {"helpful_count": 1, "harmful_count": 0}
    again = alice_api.post(url, {"signal": "helpful", "agent_id": "a1"}, format="json")
    assert again.status_code == 429 and int(again["Retry-After"]) > 3500
    other_agent = alice_api.post(url, {"signal": "harmful", "agent_id": "a2"}, format="json")
    assert other_agent.json() == {"helpful_count": 1, "harmful_count": 1}
    cited = alice_api.post(url, {"signal": "cited", "agent_id": "a1"}, format="json")
    assert cited.status_code == 200
    assert memory.usage.filter(kind="cited").count() == 1

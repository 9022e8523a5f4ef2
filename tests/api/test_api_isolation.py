"""alice, bob and charlie: nobody reaches another owner's memories, on any endpoint."""

import json

import pytest

from memories.services.remembering import remember
from memories.models import Memory

pytestmark = pytest.mark.django_db

ENDPOINTS = [
    ("get", "/api/v1/memories/{id}", None),
    ("patch", "/api/v1/memories/{id}", {"content": "hijacked"}),
    ("delete", "/api/v1/memories/{id}", None),
    ("get", "/api/v1/memories/{id}/history", None),
    ("get", "/api/v1/memories/{id}/related", None),
    ("post", "/api/v1/memories/{id}/feedback", {"signal": "helpful"}),
]


@pytest.fixture
def alices_memory(alice):
    return remember(owner=alice, content="alice's deploy key is in 1Password").memory


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_another_owners_memory_is_a_404_and_stays_untouched(alices_memory, bob, charlie,
                                                             api_client_for, method, path,
                                                             body):
    for intruder in (bob, charlie):
        client = api_client_for(intruder)
        response = getattr(client, method)(path.format(id=alices_memory.pk), body,
                                           format="json")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    alices_memory.refresh_from_db()
    assert alices_memory.content == "alice's deploy key is in 1Password"
    assert alices_memory.status == "active" and alices_memory.helpful_count == 0


def test_lists_only_show_the_callers_own_memories(alices_memory, bob, api_client_for):
    remember(owner=bob, content="bob's note")
    listed = api_client_for(bob).get("/api/v1/memories").json()["results"]
    assert [m["content"] for m in listed] == ["bob's note"]
    assert Memory.objects.count() == 2


def _owner_sees(method, path, reply, memory):
    """What the owner's call must answer and leave behind, endpoint by endpoint."""
    memory.refresh_from_db()
    if path.endswith("/history"):
        assert reply[0]["change"] == "created"
        assert reply[0]["after"]["content"] == "alice's deploy key is in 1Password"
    elif path.endswith("/related"):
        assert reply == []  # her only memory has nothing related
    elif path.endswith("/feedback"):
        assert reply == {"helpful_count": 1, "harmful_count": 0} and memory.helpful_count == 1
    else:
        assert reply["id"] == str(memory.pk)
        assert reply["content"] == memory.content == {
            "get": "alice's deploy key is in 1Password", "patch": "hijacked",
            "delete": "alice's deploy key is in 1Password"}[method]
        assert (memory.status == "active") == (method != "delete")


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_the_owner_reaches_every_endpoint(alices_memory, alice, api_client_for, method,
                                          path, body):
    response = getattr(api_client_for(alice), method)(path.format(id=alices_memory.pk), body,
                                                      format="json")
    assert response.status_code == 200
    _owner_sees(method, path, response.json(), alices_memory)


@pytest.mark.parametrize("path", ["/api/v1/memories/search", "/api/v1/memories/context"])
def test_search_and_context_only_draw_on_the_callers_memories(alices_memory, bob, charlie,
                                                            api_client_for, path):
    remember(owner=bob, content="bob keeps his deploy key in a YubiKey")
    for intruder, expected in ((bob, 1), (charlie, 0)):
        body = api_client_for(intruder).post(path, {"query": "where is the deploy key",
                                                    "min_score": 0}, format="json").json()
        text = json.dumps(body)
        assert "1Password" not in text and str(alices_memory.pk) not in text
        found = body["results"] if "results" in body else body["memories"]
        assert len(found) == expected

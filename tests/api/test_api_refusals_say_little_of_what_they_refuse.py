"""A refusal names the field and what was wrong, in a body any client can decode: a value
it echoes is cut short, a lone surrogate is written as an escape, and a memory erased by
another request between the lookup and the lock is a 404, not a 500."""

import json

import pytest

from memories.api import views
from memories.models import Memory
from memories.services.erasing import erase_memory
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice, api_client_for):
    return api_client_for(alice)


def post_raw(api, path, body: str):
    return api.generic("POST", path, body.encode("utf-8", "surrogatepass"),
                       content_type="application/json")


@pytest.mark.parametrize(("path", "body"), [
    ("/api/v1/memories", '{"content": "Deploys run on Fridays", "kind": "\\ud800"}'),
    ("/api/v1/memories/search", '{"query": "deploys", "filters": {"kinds": ["\\ud800"]}}'),
    ("/api/v1/memories/context", '{"query": "deploys", "format": "\\udfff"}'),
])
def test_a_lone_surrogate_in_a_choice_is_a_400_naming_the_field(api, path, body):
    response = post_raw(api, path, body)
    assert response.status_code == 400, response.content
    error = json.loads(response.content)["error"]
    assert "\\ud" in error["message"] and "is not a valid choice" in error["message"]
    assert not Memory.objects.exists()


def test_a_huge_refused_value_is_answered_in_a_few_hundred_characters(api):
    response = api.post("/api/v1/memories", {"content": "Deploys run on Fridays",
                                              "kind": "k" * 200_000}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"].startswith("kind: ") and error["message"].endswith("valid choice.")
    assert len(response.content) < 2_000


def test_a_memory_erased_by_another_request_meanwhile_is_a_404(api, alice, monkeypatch):
    memory = remember(owner=alice, content="The build pool has 12 machines").memory

    def erased_first(found, **kwargs):  # the other request wins the race for the row
        Memory.objects.filter(pk=found.pk).delete()
        return erase_memory(found, **kwargs)

    monkeypatch.setattr(views, "erase_memory", erased_first)
    response = api.post(f"/api/v1/memories/{memory.pk}/erase")
    assert response.status_code == 404, response.content
    assert response.json()["error"]["message"] == "No such memory for this owner."

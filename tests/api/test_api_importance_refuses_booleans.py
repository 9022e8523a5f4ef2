"""An importance is a number from 1 to 10: true or false is refused with a 400 naming
the field, as an integer field refuses it, not stored as 1.0 or 0.0."""

import pytest

from memories.models import Memory

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice, api_client_for):
    return api_client_for(alice)


def assert_refused(answer):
    assert answer.status_code == 400
    assert answer.json()["error"]["fields"] == {"importance": ["A valid number is required."]}


@pytest.mark.parametrize("flag", [True, False])
def test_remembering_with_a_boolean_importance_is_refused(api, flag):
    assert_refused(api.post("/api/v1/memories", {"content": "The cache TTL is 300 seconds",
                                                 "importance": flag}, format="json"))
    assert not Memory.objects.exists()


@pytest.mark.parametrize("flag", [True, False])
def test_changing_importance_to_a_boolean_is_refused(api, flag):
    memory = api.post("/api/v1/memories", {"content": "The cache TTL is 300 seconds",
                                           "importance": 7}, format="json").json()["memory"]
    assert_refused(api.patch(f"/api/v1/memories/{memory['id']}", {"importance": flag},
                             format="json"))
    assert Memory.objects.get().importance == 7


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/v1/memories/search", {"query": "cache", "filters": {"min_importance": True}},
     "filters.min_importance"),
    ("/api/v1/memories/context", {"query": "cache", "min_score": True}, "min_score"),
])
def test_a_boolean_bound_on_search_or_context_is_refused(api, path, body, field):
    answer = api.post(path, body, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"]["fields"] == {field: ["A valid number is required."]}

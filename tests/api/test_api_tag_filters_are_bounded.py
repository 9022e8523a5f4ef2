"""A tag filter names at most as many tags as a memory may carry (MAX_TAGS), in the list
and in search alike: more is a 400 naming the filter, where a hundred thousand tags took
seconds to match."""

import pytest

from memories.models import MAX_TAGS

pytestmark = pytest.mark.django_db

MESSAGE = f"At most {MAX_TAGS} tags, as many as a memory carries."


@pytest.fixture
def api(alice, api_client_for):
    return api_client_for(alice)


def tags(count):
    return [f"tag-{n}" for n in range(count)]


def search(api, count):
    return api.post("/api/v1/memories/search", {
        "query": "deploys", "filters": {"tags": tags(count)}}, format="json")


def test_search_takes_as_many_tags_as_a_memory_carries_and_refuses_more(api):
    assert search(api, MAX_TAGS).status_code == 200
    refused = search(api, MAX_TAGS + 1)
    assert refused.status_code == 400
    assert refused.json()["error"]["fields"] == {"filters.tags": [MESSAGE]}


def test_the_list_takes_as_many_tags_as_a_memory_carries_and_refuses_more(api):
    assert api.get("/api/v1/memories", {"tag": tags(MAX_TAGS)}).status_code == 200
    refused = api.get("/api/v1/memories", {"tag": tags(MAX_TAGS + 1)})
    assert refused.status_code == 400
    assert refused.json()["error"]["fields"] == {"tag": [MESSAGE]}

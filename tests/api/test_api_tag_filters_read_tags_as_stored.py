"""A tag is stored trimmed and lower-cased, so a filter written as the tag was written
("K8s", "Infra ") finds it, in the list and in search alike."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice, api_client_for):
    return api_client_for(alice)


@pytest.fixture
def tagged(api):
    created = api.post("/api/v1/memories", {
        "content": "The Kubernetes cluster uses the Calico networking plugin",
        "tags": ["Infra ", "K8s"]}, format="json")
    assert created.status_code == 201 and created.json()["memory"]["tags"] == ["infra", "k8s"]
    api.post("/api/v1/memories", {"content": "The billing cron runs at 02:00 UTC",
                                  "tags": ["billing"]}, format="json")
    return created.json()["memory"]["id"]


@pytest.mark.parametrize("tag", ["K8s", "k8s", " K8S "])
def test_the_list_finds_a_tag_as_it_was_written(api, tagged, tag):
    listed = api.get("/api/v1/memories", {"tag": tag}).json()["results"]
    assert [m["id"] for m in listed] == [tagged]


def test_search_finds_a_tag_as_it_was_written(api, tagged):
    found = api.post("/api/v1/memories/search", {
        "query": "networking plugin", "filters": {"tags": ["K8s", "Infra"]}},
        format="json").json()["results"]
    assert [r["memory"]["id"] for r in found] == [tagged]

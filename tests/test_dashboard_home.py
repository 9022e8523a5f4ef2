"""The first dashboard page: one's own memories, and search by meaning."""

import pytest

from memories import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(alice, bob):
    services.remember(owner=alice, content="The office router hands out DHCP leases")
    services.remember(owner=bob, content="Bob's router is in the attic")


def test_it_asks_for_a_login_first(client):
    response = client.get("/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_each_person_sees_only_their_own_memories(client, alice, stored):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "DHCP leases" in page and "attic" not in page
    assert "/static/django_htmx/" in page or "htmx" in page


def test_search_shows_the_nearest_memory_with_its_score(client, alice, stored):
    client.force_login(alice)
    page = client.get("/", {"q": "wifi keeps dropping"}).content.decode()
    assert "DHCP leases" in page and "similarity" in page and "attic" not in page


def test_an_htmx_search_returns_only_the_results_partial(client, alice, stored):
    client.force_login(alice)
    partial = client.get("/", {"q": "router"}, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<section id="results">')
    assert "<html" not in partial

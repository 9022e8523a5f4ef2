"""Back shows the whole page: a screen and its htmx partial share a URL, so each answer
says it varies on HX-Request, and the browser never takes the cached partial for the
page. htmx keeps no snapshots of its own: Back loads the page from its URL."""

import pytest

pytestmark = pytest.mark.django_db

SCREENS = ["/?tag=bulk", "/contradictions/?status=resolved", "/reflection/", "/work/",
           "/context/", "/stats/", "/jobs/", "/projects/", "/keys/"]


@pytest.mark.parametrize("path", SCREENS)
@pytest.mark.parametrize("htmx", [{}, {"HTTP_HX_REQUEST": "true"}], ids=["page", "partial"])
def test_a_screen_and_its_partial_each_vary_on_hx_request(client, alice, path, htmx):
    client.force_login(alice)
    response = client.get(path, **htmx)
    assert response.status_code == 200
    assert "HX-Request" in response["Vary"]


def test_htmx_keeps_no_snapshot_of_a_page_to_show_on_back(client, alice):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert '"historyCacheSize": 0' in page and '"refreshOnHistoryMiss": true' in page

"""Every store screen asks for a sign-in first, and opens for a signed-in person."""

import re

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

pytestmark = pytest.mark.django_db

# Each screen and what only that screen shows: its title, or the export's media type.
SCREENS = {"contradictions": "<title>Contradictions", "jobs": "<title>Jobs",
           "api_keys": "<title>API keys", "transfer": "<title>Import and export",
           "export_memories": "application/x-ndjson", "settings_page": "<title>Settings",
           "stats": "<title>Stats", "work_log": "<title>Work log"}


@pytest.mark.parametrize("name", SCREENS)
def test_it_asks_for_a_sign_in_first(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={reverse(name)}"


@pytest.mark.parametrize(("name", "shown"), SCREENS.items())
def test_it_opens_for_a_signed_in_person(client, alice, name, shown):
    client.force_login(alice)
    response = client.get(reverse(name))
    assert response.status_code == 200
    if shown.startswith("<title>"):
        page = response.content.decode()
        assert shown in page
        assert "alice" in page  # signed in as alice, not shown a sign-in form
    else:
        assert response["Content-Type"].startswith(shown)


@pytest.mark.parametrize("name", ["contradictions", "jobs", "api_keys", "transfer",
                                  "settings_page", "stats", "work_log"])
def test_each_screen_extends_the_site_layout(client, alice, name):
    client.force_login(alice)
    page = client.get(reverse(name)).content.decode()
    assert "<html" in page and "store/store.css" in page


def test_every_page_names_an_icon_the_server_has(client):
    # Without one, the browser asks for /favicon.ico, a 404 in its console on every visit.
    page = client.get(reverse("login")).content.decode()
    [icon] = re.findall(r'<link rel="icon" href="/static/([^"]+)"', page)
    assert finders.find(icon)

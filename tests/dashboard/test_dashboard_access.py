"""Every store screen asks for a sign-in first, and opens for a signed-in person."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

SCREENS = ["contradictions", "jobs", "api_keys", "transfer", "export_memories",
           "settings_page", "stats", "work_log"]


@pytest.mark.parametrize("name", SCREENS)
def test_it_asks_for_a_sign_in_first(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert "next=" in response["Location"]


@pytest.mark.parametrize("name", SCREENS)
def test_it_opens_for_a_signed_in_person(client, alice, name):
    client.force_login(alice)
    assert client.get(reverse(name)).status_code == 200


@pytest.mark.parametrize("name", ["contradictions", "jobs", "api_keys", "transfer",
                                  "settings_page", "stats", "work_log"])
def test_each_screen_extends_the_site_layout(client, alice, name):
    client.force_login(alice)
    page = client.get(reverse(name)).content.decode()
    assert "<html" in page and "store/store.css" in page

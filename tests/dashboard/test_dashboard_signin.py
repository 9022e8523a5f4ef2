"""Signing in and out of the dashboard; every screen asks for it first."""

import pytest

pytestmark = pytest.mark.django_db

SCREENS = ["/", "/context/", "/memories/01234567-89ab-7def-8123-456789abcdef/"]


@pytest.mark.parametrize("path", SCREENS)
def test_every_screen_asks_for_a_login_first(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={path}"


def test_the_sign_in_page_has_labelled_fields_and_no_navigation(client):
    page = client.get("/accounts/login/").content.decode()
    assert '<label for="id_username">' in page and '<label for="id_password">' in page
    assert 'aria-label="Main"' not in page


def test_signing_in_leads_to_the_page_asked_for(client, alice):
    response = client.post("/accounts/login/", {"username": "alice",
                                                "password": "alice-secret-pw",
                                                "next": "/context/"})
    assert response.status_code == 302 and response["Location"] == "/context/"
    assert client.get("/").status_code == 200


def test_a_wrong_password_is_refused_and_keeps_the_username(client, alice):
    page = client.post("/accounts/login/", {"username": "alice",
                                            "password": "wrong"}).content.decode()
    assert "Please enter a correct username and password" in page
    assert 'value="alice"' in page


def test_signing_out_takes_a_post_and_ends_the_session(client, alice):
    client.force_login(alice)
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    assert client.get("/").status_code == 302


def test_opening_the_sign_out_address_asks_before_signing_out(client, alice):
    client.force_login(alice)
    page = client.get("/accounts/logout/")
    assert page.status_code == 200
    html = page.content.decode()
    assert '<form method="post" action="/accounts/logout/">' in html and "csrfmiddlewaretoken" in html
    assert client.get("/").status_code == 200  # still signed in: a GET changes nothing


def test_the_sign_out_address_sends_a_stranger_to_the_sign_in_page(client):
    response = client.get("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"

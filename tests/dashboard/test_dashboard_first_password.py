"""The first admin's generated password: its first sign-in leads to Django's password
change until a new password is set, then everything opens."""

import pytest
from django.contrib.auth import get_user_model

from dashboard.passwords import must_change_password, require_new_password

pytestmark = pytest.mark.django_db


@pytest.fixture
def first_admin():
    admin = get_user_model().objects.create_superuser("admin", password="generated-pw-1")
    require_new_password(admin)
    return admin


def sign_in(client, password="generated-pw-1"):
    return client.post("/accounts/login/", {"username": "admin", "password": password})


def test_the_first_sign_in_leads_to_the_password_change_until_it_is_changed(client,
                                                                            first_admin):
    assert sign_in(client).status_code == 302
    for path in ("/", "/context/", "/keys/", "/admin/", "/api/v1/memories"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"] == "/accounts/password/"
    page = client.get("/accounts/password/")
    assert page.status_code == 200 and "first sign-in" in page.content.decode()
    assert client.get("/healthz").status_code in (200, 503)

    refused = client.post("/accounts/password/", {
        "old_password": "generated-pw-1", "new_password1": "short",
        "new_password2": "short"})
    assert refused.status_code == 200
    assert client.get("/").status_code == 302

    changed = client.post("/accounts/password/", {
        "old_password": "generated-pw-1", "new_password1": "a-long-new-secret-42",
        "new_password2": "a-long-new-secret-42"})
    assert changed.status_code == 302 and changed["Location"] == "/"
    assert client.get("/").status_code == 200  # still signed in, and free to go on
    first_admin.refresh_from_db()
    assert first_admin.check_password("a-long-new-secret-42")
    assert not must_change_password(first_admin)


def test_the_change_is_asked_again_at_the_next_sign_in_if_skipped(client, first_admin):
    sign_in(client)
    client.post("/accounts/logout/")
    sign_in(client)
    assert client.get("/")["Location"] == "/accounts/password/"


def test_signing_out_is_allowed_before_changing(client, first_admin):
    sign_in(client)
    assert client.post("/accounts/logout/")["Location"] == "/accounts/login/"


def test_htmx_requests_are_sent_to_the_password_change_too(client, first_admin):
    sign_in(client)
    response = client.get("/", headers={"hx-request": "true"})
    assert response["HX-Redirect"] == "/accounts/password/"


def test_other_users_are_never_asked(client, alice):
    client.post("/accounts/login/", {"username": "alice", "password": "alice-secret-pw"})
    assert client.get("/").status_code == 200

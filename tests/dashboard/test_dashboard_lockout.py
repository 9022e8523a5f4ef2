"""Repeated failed sign-ins from one client lock it out for a cool-off (django-axes), with
the reason on the sign-in page; other clients and API keys carry on."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt

pytestmark = pytest.mark.django_db

LOCKED = "Too many failed sign-ins from your address"


def sign_in(client, password, ip="10.0.0.1", path="/accounts/login/", username="alice"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=ip)


def fail_five_times(client, ip="10.0.0.1"):
    responses = [sign_in(client, f"wrong-{n}", ip) for n in range(5)]
    assert all(r.status_code == 200 for r in responses[:4])
    return responses[-1]


def test_five_failures_lock_the_client_out_even_with_the_right_password(client, alice):
    fifth = fail_five_times(client)
    assert fifth.status_code == 429 and LOCKED in fifth.content.decode()

    response = sign_in(client, "alice-secret-pw")
    page = response.content.decode()
    assert response.status_code == 429
    assert LOCKED in page and "15 minutes" in page
    # The sign-in page itself, not a bare error page.
    assert '<label for="id_username">' in page and 'value="alice"' in page
    assert client.get("/").status_code == 302  # not signed in


def test_four_failures_then_the_right_password_sign_in_and_reset_the_count(client, alice):
    for n in range(4):
        sign_in(client, f"wrong-{n}")
    assert sign_in(client, "alice-secret-pw").status_code == 302
    assert not AccessAttempt.objects.exists()


def test_another_client_is_unaffected(client, alice, bob):
    fail_five_times(client, ip="10.0.0.1")
    other = sign_in(client, "alice-secret-pw", ip="10.0.0.2")
    assert other.status_code == 302


def test_the_lockout_ends_after_the_cool_off(client, alice, settings):
    fail_five_times(client)
    assert sign_in(client, "alice-secret-pw").status_code == 429
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time
        - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))
    assert sign_in(client, "alice-secret-pw").status_code == 302


def test_the_admin_sign_in_is_locked_too(client, django_user_model):
    django_user_model.objects.create_superuser("root", password="root-secret-pw")
    for n in range(5):
        sign_in(client, f"wrong-{n}", path="/admin/login/", username="root")
    response = sign_in(client, "root-secret-pw", path="/admin/login/", username="root")
    assert response.status_code == 429 and LOCKED in response.content.decode()


def test_api_keys_work_from_a_locked_out_address(client, alice, api_client_for):
    fail_five_times(client)
    api = api_client_for(alice)
    assert api.get("/api/v1/memories", REMOTE_ADDR="10.0.0.1").status_code == 200


def test_behind_a_proxy_the_forwarded_address_is_the_client(client, alice, settings):
    settings.ENGRAM_TRUSTED_PROXIES = 1
    for n in range(5):
        client.post("/accounts/login/", {"username": "alice", "password": "wrong"},
                    REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7")
    assert AccessAttempt.objects.get().ip_address == "203.0.113.7"
    # Another client behind the same proxy signs in.
    response = client.post("/accounts/login/", {"username": "alice",
                                                "password": "alice-secret-pw"},
                           REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert response.status_code == 302

"""ENGRAM_HTTPS: behind a TLS proxy, secure cookies, HSTS, the redirect to https and the
proxy's X-Forwarded-Proto; off by default so that `make run` on loopback http works."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.helpers import settings_with


def test_https_is_off_by_default(monkeypatch):
    values = settings_with(monkeypatch)
    assert values["ENGRAM_HTTPS"] is False
    for name in ("SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT",
                 "SECURE_PROXY_SSL_HEADER", "SECURE_HSTS_SECONDS"):
        assert not values.get(name), name
    assert values["ENGRAM_TRUSTED_PROXIES"] == 0


def test_engram_https_turns_on_everything_a_tls_proxy_needs(monkeypatch):
    values = settings_with(monkeypatch, ENGRAM_HTTPS="true")
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"]
    assert values["SECURE_SSL_REDIRECT"]
    assert values["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert values["SECURE_HSTS_SECONDS"] == 31_536_000
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is False
    assert values["ENGRAM_TRUSTED_PROXIES"] == 1  # the client's address from X-Forwarded-For


def test_hsts_duration_is_configurable_and_checked(monkeypatch):
    assert settings_with(monkeypatch, ENGRAM_HTTPS="true",
                         ENGRAM_HSTS_SECONDS="3600")["SECURE_HSTS_SECONDS"] == 3600
    with pytest.raises(ImproperlyConfigured, match="ENGRAM_HTTPS"):
        settings_with(monkeypatch, ENGRAM_HTTPS="maybe")


HTTPS = dict(SESSION_COOKIE_SECURE=True, CSRF_COOKIE_SECURE=True, SECURE_SSL_REDIRECT=True,
             SECURE_REDIRECT_EXEMPT=[r"^healthz$"],
             SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
             SECURE_HSTS_SECONDS=31_536_000)


@pytest.mark.django_db
def test_behind_the_proxy_plain_http_is_redirected_and_https_gets_hsts(client, settings):
    for name, value in HTTPS.items():
        setattr(settings, name, value)
    plain = client.get("/accounts/login/")
    assert plain.status_code == 301 and plain["Location"] == "https://testserver/accounts/login/"

    page = client.get("/accounts/login/", headers={"x-forwarded-proto": "https"})
    assert page.status_code == 200
    assert page["Strict-Transport-Security"] == "max-age=31536000"
    assert page.cookies["csrftoken"]["secure"]
    # A load balancer's health check over plain http from inside is answered.
    assert client.get("/healthz").status_code in (200, 503)


@pytest.mark.django_db
def test_loopback_http_works_by_default(client, alice):
    page = client.get("/accounts/login/")
    assert page.status_code == 200 and "Strict-Transport-Security" not in page
    response = client.post("/accounts/login/", {"username": "alice",
                                                "password": "alice-secret-pw"})
    assert response.status_code == 302
    assert not response.cookies["sessionid"]["secure"]

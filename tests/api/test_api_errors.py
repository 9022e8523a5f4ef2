"""Every error the API can give, from a real request, in one JSON shape."""

from unittest import mock

import pytest
from django.core.management import call_command
from django.db import OperationalError
from rest_framework.test import APIClient

from memories.models import ApiKey, Memory
from memories.services.api_keys import create_api_key, revoke_api_key

pytestmark = pytest.mark.django_db


def error_of(response, status):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["status"] == status and error["message"]
    return error


def test_400_names_the_field_and_the_reason_and_stores_nothing(alice, api_client_for):
    client = api_client_for(alice)
    error = error_of(client.post("/api/v1/memories", {"content": "", "kind": "rumour"},
                                 format="json"), 400)
    assert error["code"] == "invalid_request"
    assert set(error["fields"]) == {"content", "kind"}
    assert "empty" in error["fields"]["content"][0] or "blank" in error["fields"]["content"][0]
    assert Memory.objects.count() == 0


def test_400_for_a_body_that_is_not_json(alice, api_client_for):
    response = api_client_for(alice).post("/api/v1/memories", "{not json",
                                          content_type="application/json")
    assert error_of(response, 400)["code"] == "invalid_request"


def test_400_for_content_over_the_limit(alice, api_client_for):
    response = api_client_for(alice).post("/api/v1/memories", {"content": "x" * 100_001},
                                          format="json")
    assert "limit" in error_of(response, 400)["fields"]["content"][0]


def test_401_without_a_key_or_with_a_revoked_one(alice):
    assert error_of(APIClient().get("/api/v1/memories"), 401)["code"] == "unauthorized"
    key, raw = create_api_key(owner=alice, name="laptop")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get("/api/v1/memories").status_code == 200
    revoke_api_key(key)
    assert "revoked" in error_of(client.get("/api/v1/memories"), 401)["message"]
    client.credentials(HTTP_AUTHORIZATION="Bearer engram_made-up")
    error_of(client.get("/api/v1/memories"), 401)


def test_403_for_a_session_write_without_its_csrf_token(alice):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get("/api/v1/memories").status_code == 200
    error = error_of(client.post("/api/v1/memories", {"content": "x"}, format="json"), 403)
    assert error["code"] == "forbidden" and "CSRF" in error["message"]


@pytest.mark.parametrize("path, thing", [
    ("/api/v1/memories/01930000-0000-7000-8000-000000000000", "memory"),
    ("/api/v1/observations/01930000-0000-7000-8000-000000000000", "observation"),
    ("/api/v1/jobs/01930000-0000-7000-8000-000000000000", "job"),
])
def test_404_names_what_was_not_found(alice, api_client_for, path, thing):
    error = error_of(api_client_for(alice).get(path), 404)
    assert error["code"] == "not_found"
    assert error["message"] == f"No such {thing} for this owner."


def test_429_with_retry_after_when_a_scope_is_exhausted(alice, api_client_for, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "memories": "2/min"}
    with mock.patch("rest_framework.throttling.ScopedRateThrottle.THROTTLE_RATES", rates):
        client = api_client_for(alice)
        assert client.get("/api/v1/memories").status_code == 200
        assert client.get("/api/v1/memories").status_code == 200
        response = client.get("/api/v1/memories")
    assert error_of(response, 429)["code"] == "rate_limited"
    # Three counted against two a minute: the rest of this minute, then until the next
    # minute's share of them leaves room (tests/api/test_api_rate_limits.py).
    assert 40 <= int(response["Retry-After"]) <= 100


def test_500_says_nothing_about_internals(alice, api_client_for):
    with mock.patch("memories.selectors.listed", side_effect=KeyError("secret_column")):
        response = api_client_for(alice).get("/api/v1/memories")
    error = error_of(response, 500)
    assert error["code"] == "internal_error"
    assert "secret_column" not in response.content.decode()
    assert "Traceback" not in response.content.decode()


def test_503_when_the_database_is_down(alice, api_client_for):
    client = api_client_for(alice)
    with mock.patch("memories.selectors.listed",
                    side_effect=OperationalError("connection refused")):
        response = client.get("/api/v1/memories")
    assert error_of(response, 503)["code"] == "service_unavailable"
    assert response["Retry-After"] == "5"


def test_create_api_key_prints_only_the_key_and_creates_the_user(capsys, db):
    call_command("create_api_key", "dora")
    raw = capsys.readouterr().out.strip()
    assert raw.startswith("engram_") and "\n" not in raw
    key = ApiKey.objects.get()
    assert key.owner.username == "dora" and key.key_hash != raw and raw not in key.key_hash
    assert ApiKey.objects.matching(raw) == key


@pytest.mark.parametrize("path", ["/api/v1/memories/not-a-uuid", "/api/v1/nothing-here",
                                  "/api/v1/jobs/123/history"])
def test_404_for_a_url_no_view_matches_is_in_the_error_shape(alice, api_client_for, path):
    # Found by schemathesis: a malformed id in the path got Django's HTML page.
    response = api_client_for(alice).get(path)
    assert response["Content-Type"].startswith("application/json")
    assert error_of(response, 404)["code"] == "not_found"


def test_a_missing_page_outside_the_api_is_still_a_page(client, db):
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and "application/json" not in response["Content-Type"]

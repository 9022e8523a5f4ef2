from unittest import mock

from django.db import OperationalError


def test_healthz_reports_database_pgvector_embedding_and_queue_to_staff(admin_client):
    response = admin_client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["embedded"] is True
    assert body["database"]["server_version"].startswith("18")
    assert body["pgvector"].startswith("0.8")
    assert body["embedding"]["model"] == "local:all-MiniLM-L6-v2-int8-sq"
    assert body["embedding"]["dimensions"] == 384
    assert body["embedding"]["awaiting_embedding"] == 0
    assert body["queue"]["ok"] is True


def test_healthz_answers_503_when_the_database_is_down(client, admin_client):
    with mock.patch("engram_site.health._database", side_effect=OperationalError("gone")):
        anyone = client.get("/healthz")
        staff = admin_client.get("/healthz")
    assert anyone.status_code == staff.status_code == 503
    assert anyone.json() == {"status": "unavailable"}  # the error's text is for staff
    assert staff.json()["database"] == {"ok": False, "error": "gone"}


def test_without_a_key_healthz_says_only_whether_all_is_well(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_healthz_needs_no_login_but_only_answers_get(client, db):
    assert client.post("/healthz").status_code == 405


def test_what_waits_in_the_queue_is_for_a_key_or_staff_only(client, alice, api_client_for):
    assert "backlog" not in client.get("/healthz").json()
    backlog = api_client_for(alice).get("/healthz").json()["backlog"]
    assert set(backlog) == {"checks", "observations", "tasks"}
    assert set(backlog["checks"]) == {"interactive", "bulk", "owners", "oldest_seconds"}

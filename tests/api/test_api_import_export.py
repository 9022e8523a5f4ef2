"""POST /api/v1/import (Engram's JSONL or the MCP memory server's graph, as the body or a
multipart file; small files answered at once, large ones queued as a job) and
GET /api/v1/export (the lossless JSONL, streamed)."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from memories.models import Entity, Job, JobStatus, Memory, Relationship

pytestmark = pytest.mark.django_db

IMPORT, EXPORT = "/api/v1/import", "/api/v1/export"
NDJSON = "application/x-ndjson"
GRAPH = (Path(__file__).parent.parent / "fixtures" / "mcp_memory_graph.jsonl").read_bytes()


def post_file(client, data: bytes, query: str = "", content_type: str = NDJSON):
    return client.generic("POST", f"{IMPORT}{query}", data, content_type=content_type)


def exported(response) -> list[dict]:
    return [json.loads(line) for line in
            b"".join(response.streaming_content).decode().splitlines()]


def large_graph(entities: int) -> bytes:
    return "".join(json.dumps({"type": "entity", "name": f"Service {n}",
                               "entityType": "service",
                               "observations": [f"Service {n} listens on port {8000 + n}"]})
                   + "\n" for n in range(entities)).encode()


def test_the_mcp_graph_as_the_body_is_imported_and_reported(api_client_for, alice):
    response = post_file(api_client_for(alice), GRAPH)
    assert response.status_code == 200
    body = response.json()
    assert body["imported"] == {"memories": 19, "entities": 10,
                                "relationships": 10, "contradictions": 0}
    assert body["skipped"] == 3 and [e["line"] for e in body["errors"]] == [8, 14, 19]
    assert "NUL" in body["errors"][1]["message"]


def test_the_graph_as_a_multipart_file_is_imported_too(api_client_for, alice):
    upload = SimpleUploadedFile("memory.jsonl", GRAPH, content_type=NDJSON)
    response = api_client_for(alice).post(IMPORT, {"file": upload}, format="multipart")
    assert response.status_code == 200 and response.json()["imported"]["entities"] == 10


def test_importing_the_same_file_twice_adds_nothing(api_client_for, alice):
    client = api_client_for(alice)
    post_file(client, GRAPH)
    counts = (Memory.objects.count(), Entity.objects.count(), Relationship.objects.count())
    again = post_file(client, GRAPH).json()
    assert again["imported"] == {"memories": 0, "entities": 0,
                                 "relationships": 0, "contradictions": 0}
    assert (Memory.objects.count(), Entity.objects.count(),
            Relationship.objects.count()) == counts


def test_the_format_can_be_named_and_then_is_not_guessed(api_client_for, alice):
    body = post_file(api_client_for(alice), GRAPH, "?format=engram").json()
    assert body["imported"]["memories"] == 0 and body["skipped"] == 22
    assert body["errors"][0]["message"].startswith("content: Content is empty")
    assert "Unknown memory type 'entity'" in body["errors"][0]["message"]


def test_a_project_applies_to_every_imported_memory(api_client_for, alice):
    post_file(api_client_for(alice), GRAPH, "?format=mcp-memory&project=lighthouse")
    assert set(Memory.objects.values_list("project", flat=True)) == {"lighthouse"}


def test_engrams_own_lines_import_through_the_same_endpoint(api_client_for, alice):
    data = b'{"content": "The staging DB runs on port 5433", "tags": ["db"]}\n{oops\n'
    body = post_file(api_client_for(alice), data, "?project=web").json()
    assert body["imported"] == {"memories": 1, "entities": 0,
                                "relationships": 0, "contradictions": 0}
    assert body["errors"] == [{"line": 2, "message": body["errors"][0]["message"]}]
    assert body["errors"][0]["message"].startswith("not valid JSON")
    assert Memory.objects.get(owner=alice).project == "web"


@pytest.mark.parametrize("query, field", [("?format=csv", "format"),
                                          ("?project=" + "p" * 201, "project")])
def test_a_bad_option_is_a_400_in_the_one_error_shape(api_client_for, alice, query, field):
    response = post_file(api_client_for(alice), GRAPH, query)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_request" and field in error["fields"]
    assert not Memory.objects.exists()


def test_an_empty_body_is_a_400_that_says_how_to_send_the_file(api_client_for, alice):
    response = post_file(api_client_for(alice), b"\n\n")
    assert response.status_code == 400
    assert "multipart field file" in response.json()["error"]["fields"]["file"][0]


def test_a_file_over_the_limit_is_a_413(api_client_for, alice, settings):
    settings.ENGRAM_IMPORT_MAX_BYTES = 1000
    client = api_client_for(alice)
    response = post_file(client, GRAPH)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
    upload = SimpleUploadedFile("memory.jsonl", GRAPH, content_type=NDJSON)
    assert client.post(IMPORT, {"file": upload}, format="multipart").status_code == 413
    assert not Memory.objects.exists()


def test_import_and_export_need_a_key():
    client = APIClient()
    assert post_file(client, GRAPH).json()["error"]["code"] == "unauthorized"
    assert client.get(EXPORT).status_code == 401


def test_a_large_file_runs_as_a_job_with_progress(api_client_for, alice, settings,
                                                  django_capture_on_commit_callbacks):
    settings.ENGRAM_IMPORT_INLINE_LINES = 20
    client = api_client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):  # the queue runs it inline
        response = post_file(client, large_graph(30))
    assert response.status_code == 202
    started = response.json()
    assert started["url"] == f"/api/v1/jobs/{started['job_id']}"
    job = client.get(started["url"]).json()
    assert (job["kind"], job["status"], job["progress"]) == ("import", "done", 1.0)
    assert job["progress_total"] == 30
    assert job["result"]["imported"] == {"memories": 30, "entities": 30,
                                         "relationships": 0, "contradictions": 0}
    assert Entity.objects.for_owner(alice).count() == 30


def test_a_finished_import_job_keeps_its_report_but_not_the_file(
        api_client_for, alice, settings, django_capture_on_commit_callbacks):
    settings.ENGRAM_IMPORT_INLINE_BYTES = 100
    with django_capture_on_commit_callbacks(execute=True):
        response = post_file(api_client_for(alice), GRAPH, "?project=lighthouse")
    job = Job.objects.get(pk=response.json()["job_id"])
    assert job.status == JobStatus.DONE and job.result["skipped"] == 3
    assert job.params == {"format": None, "project": "lighthouse", "within": None}


def test_a_second_large_import_while_one_waits_is_a_409(api_client_for, alice, settings,
                                                        stopped_worker):
    settings.ENGRAM_IMPORT_INLINE_LINES = 5
    client = api_client_for(alice)
    assert post_file(client, GRAPH).status_code == 202
    response = post_file(client, GRAPH)
    assert response.status_code == 409 and response.json()["error"]["code"] == "conflict"


def test_alices_import_job_is_a_404_for_bob(api_client_for, alice, bob, settings):
    settings.ENGRAM_IMPORT_INLINE_LINES = 5
    url = post_file(api_client_for(alice), GRAPH).json()["url"]
    response = api_client_for(bob).get(url)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_the_export_streams_ones_own_store_losslessly(api_client_for, alice, bob):
    post_file(api_client_for(alice), GRAPH)
    post_file(api_client_for(bob), b'{"type":"entity","name":"Bob only","entityType":"x",'
                                   b'"observations":["Bob keeps bees"]}\n')
    response = api_client_for(alice).get(EXPORT, HTTP_ACCEPT=NDJSON)
    assert response.status_code == 200 and response["Content-Type"].startswith(NDJSON)
    records = exported(response)
    names = {r["name"] for r in records if r.get("record") == "entity"}
    assert len(names) == 10 and "Bob only" not in names
    assert sum(r.get("record") == "relationship" for r in records) == 10
    maya = next(r["id"] for r in records if r.get("name") == "Maya Okafor")
    assert sum(maya in r.get("entities", []) for r in records) == 3


def test_bob_does_not_see_alices_imported_entities(api_client_for, alice, bob):
    post_file(api_client_for(alice), GRAPH)
    records = exported(api_client_for(bob).get(EXPORT))
    assert records == []
    assert not Entity.objects.for_owner(bob).exists()

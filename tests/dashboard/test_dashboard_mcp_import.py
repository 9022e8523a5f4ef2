"""The import page takes the MCP memory server's graph too: told from the file or chosen,
reported like Engram's own lines, and a large file runs as a job on the jobs screen."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from memories.models import Entity, Job, JobKind, JobStatus, Memory, Relationship

pytestmark = pytest.mark.django_db

TRANSFER, JOBS = "/transfer/", "/jobs/"
GRAPH = (Path(__file__).parent.parent / "fixtures" / "mcp_memory_graph.jsonl").read_bytes()


def upload(data: bytes = GRAPH) -> SimpleUploadedFile:
    return SimpleUploadedFile("memory.jsonl", data, content_type="application/x-ndjson")


def test_the_graph_is_told_from_the_file_and_reported(signed_in, alice):
    page = signed_in.post(TRANSFER, {"file": upload(), "skip_bad_lines": "on"}).content.decode()
    assert "19 created" in page and "10 entities" in page and "10 relationships" in page
    assert "3 bad lines skipped, as asked" in page
    assert "line 8: not valid JSON" in page and "line 14: observation 2" in page
    assert "line 19: relation &#x27;reports_to&#x27; names &#x27;Jordan Blake&#x27;" in page
    assert Entity.objects.for_owner(alice).count() == 10


def test_with_a_bad_line_and_no_skipping_nothing_is_imported(signed_in, alice):
    page = signed_in.post(TRANSFER, {"file": upload()}).content.decode()
    assert "3 bad lines: nothing was imported." in page
    assert not Entity.objects.exists() and not Memory.objects.exists()


def test_the_format_and_project_can_be_chosen(signed_in, alice):
    signed_in.post(TRANSFER, {"file": upload(), "format": "mcp-memory",
                              "project": "lighthouse", "skip_bad_lines": "on"})
    assert set(Memory.objects.values_list("project", flat=True)) == {"lighthouse"}
    page = signed_in.get(TRANSFER).content.decode()
    assert 'value="mcp-memory"' in page and "MCP memory server" in page


def test_importing_the_graph_twice_adds_nothing(signed_in, alice):
    signed_in.post(TRANSFER, {"file": upload(), "skip_bad_lines": "on"})
    counts = (Memory.objects.count(), Entity.objects.count(), Relationship.objects.count())
    page = signed_in.post(TRANSFER, {"file": upload(), "skip_bad_lines": "on"}).content.decode()
    assert "0 created" in page and "0 strengthened" in page
    assert (Memory.objects.count(), Entity.objects.count(),
            Relationship.objects.count()) == counts


def test_a_large_file_runs_as_a_job_shown_on_the_jobs_screen(
        signed_in, alice, settings, django_capture_on_commit_callbacks):
    settings.ENGRAM_IMPORT_INLINE_LINES = 10
    data = "".join(json.dumps({"type": "entity", "name": f"Host {n}", "entityType": "server",
                               "observations": [f"Host {n} runs Debian {n % 3 + 11}"]})
                   + "\n" for n in range(25)).encode()
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in.post(TRANSFER, {"file": upload(data)}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert "imported as a job" in page and f'href="{JOBS}"' in page
    assert "jobStarted" in response["HX-Trigger"]
    job = Job.objects.get(owner=alice, kind=JobKind.IMPORT)
    assert job.status == JobStatus.DONE and (job.progress_done, job.progress_total) == (25, 25)
    jobs_page = signed_in.get(JOBS).content.decode()
    assert "memories 25" in jobs_page and "entities 25" in jobs_page


def test_a_second_large_import_while_one_waits_is_refused_next_to_the_file(
        signed_in, alice, settings, stopped_worker):
    settings.ENGRAM_IMPORT_INLINE_LINES = 5
    signed_in.post(TRANSFER, {"file": upload()})
    page = signed_in.post(TRANSFER, {"file": upload()}).content.decode()
    assert "is already queued" in page
    assert Job.objects.filter(owner=alice, kind=JobKind.IMPORT).count() == 1


def test_a_file_over_the_limit_is_refused(signed_in, settings):
    settings.ENGRAM_IMPORT_MAX_BYTES = 2 * 2**10
    page = signed_in.post(TRANSFER, {"file": upload()}).content.decode()
    assert "The file is over 2,048 bytes: split it into smaller files." in page
    assert not Memory.objects.exists()

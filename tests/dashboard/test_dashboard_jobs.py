"""Jobs: running and recent maintenance jobs with live progress, extraction work from
observed sessions, and a form that starts a job."""

import re

import pytest
from django.urls import reverse

from memories.models import (
    ChunkStatus,
    Job,
    JobKind,
    JobStatus,
    Observation,
    ObservationChunk,
    ObservationStatus,
)

pytestmark = pytest.mark.django_db

JOBS = "/jobs/"


def job(owner, kind=JobKind.CONTRADICTIONS, **fields):
    return Job.objects.create(owner=owner, kind=kind, **fields)


def test_it_is_routed_under_its_name():
    assert reverse("jobs") == JOBS


def test_it_shows_ones_own_jobs_with_their_progress(signed_in, alice, bob):
    job(alice, status=JobStatus.RUNNING, progress_done=30, progress_total=120)
    job(bob, kind=JobKind.FORGET, status=JobStatus.RUNNING)
    page = signed_in.get(JOBS).content.decode()
    assert '<progress max="120" value="30"' in page and "30 / 120" in page
    assert "Forget" not in page.split("Maintenance jobs")[1].split("</table>")[0]


def test_it_shows_a_failed_jobs_error_and_a_finished_jobs_result(signed_in, alice):
    job(alice, status=JobStatus.FAILED, error="the judge timed out")
    job(alice, status=JobStatus.DONE, result={"checked": 12, "found": 1, "pairs": [["a", "b"]]})
    page = signed_in.get(JOBS).content.decode()
    assert "the judge timed out" in page
    assert "found 1 · checked 12" in page or "checked 12 · found 1" in page


def test_an_import_jobs_bad_lines_are_listed_by_number_and_its_result_shown_as_json(
        signed_in, alice):
    message = "the contradiction names memory 8d1b5a7e, which is not in the file"
    job(alice, kind=JobKind.IMPORT, status=JobStatus.DONE,
        result={"skipped": 1, "errors": [{"line": 27, "message": message}]})
    page = signed_in.get(JOBS).content.decode()
    assert f"<li>line 27: {message}</li>" in page
    assert '&quot;line&quot;: 27' in page and "{&#x27;" not in page


def test_the_list_polls_every_two_seconds_while_a_job_runs(signed_in, alice):
    running = job(alice, status=JobStatus.RUNNING)
    assert "every 2s" in signed_in.get(JOBS).content.decode()
    Job.objects.filter(pk=running.pk).update(status=JobStatus.DONE)
    assert "every 2s" not in signed_in.get(JOBS).content.decode()


def test_a_poll_gets_only_the_job_list(signed_in, alice):
    job(alice, status=JobStatus.RUNNING)
    partial = signed_in.get(JOBS, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<div id="job-list"') and "<html" not in partial


def test_it_shows_recent_extraction_work_with_chunks_by_status(signed_in, alice, bob):
    observation = Observation.objects.create(owner=alice, payload_hash="a", project="engram",
                                             status=ObservationStatus.PENDING,
                                             memories_created=2)
    ObservationChunk.objects.bulk_create(
        ObservationChunk(observation=observation, position=i, text="t", tokens=1, status=s)
        for i, s in enumerate([ChunkStatus.EXTRACTED, ChunkStatus.SKIPPED, ChunkStatus.RETRY]))
    Observation.objects.create(owner=bob, payload_hash="b", project="bobs-secret")
    page = signed_in.get(JOBS).content.decode()
    assert "engram" in page and "1 extracted · 1 skipped · 1 to retry" in page
    assert '<progress max="3" value="2"' in page and "2 new" in page
    assert "bobs-secret" not in page and "every 2s" in page


def test_an_observation_done_without_chunks_is_not_said_to_wait_for_cutting(signed_in,
                                                                           alice):
    # The hook's tool events feed the work log and hold no text to extract from.
    Observation.objects.create(owner=alice, payload_hash="t", project="engram",
                               status=ObservationStatus.DONE)
    page = signed_in.get(JOBS).content.decode()
    assert "no text to extract from" in page and "not cut yet" not in page


def test_the_page_does_not_query_per_job_or_observation(signed_in, alice,
                                                        django_assert_max_num_queries):
    for n in range(20):
        job(alice, status=JobStatus.DONE, result={"checked": n})
        observation = Observation.objects.create(owner=alice, payload_hash=str(n))
        ObservationChunk.objects.create(observation=observation, position=0, text="t",
                                        tokens=1)
    with django_assert_max_num_queries(8):  # two of them count what waits in the queue
        assert signed_in.get(JOBS).status_code == 200


def test_starting_a_job_records_it_and_queues_it_once_committed(
        signed_in, alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = signed_in.post(JOBS, {"kind": JobKind.CONTRADICTIONS, "dry_run": "on"})
    assert response.status_code == 302 and response["Location"] == JOBS
    assert len(callbacks) == 1
    started = Job.objects.get(owner=alice)
    assert started.dry_run and started.status == JobStatus.DONE  # the queue runs inline here


def test_only_kinds_with_a_runner_and_no_input_are_offered(signed_in):
    from memories.jobs import NEEDS_INPUT, RUNNERS

    page = signed_in.get(JOBS).content.decode()
    form = page[page.index('id="start-job"'):page.index('id="job-list"')]
    for kind in JobKind.values:
        assert (f'value="{kind}"' in form) == (kind in RUNNERS and kind not in NEEDS_INPUT)


def test_an_unknown_kind_is_refused_next_to_the_field(signed_in, alice):
    page = signed_in.post(JOBS, {"kind": "summon", "dry_run": "on"}).content.decode()
    assert "Select a valid choice" in page and not Job.objects.exists()
    assert " checked" in re.search(r'<input[^>]*name="dry_run"[^>]*>', page).group(0)


def test_a_second_job_of_a_kind_already_running_is_refused(signed_in, alice):
    job(alice, status=JobStatus.RUNNING)
    page = signed_in.post(JOBS, {"kind": JobKind.CONTRADICTIONS}).content.decode()
    assert "already queued or running" in page and Job.objects.count() == 1


def test_someone_elses_running_job_does_not_block_mine(signed_in, alice, bob,
                                                      django_capture_on_commit_callbacks):
    job(bob, status=JobStatus.RUNNING)
    with django_capture_on_commit_callbacks(execute=False):
        signed_in.post(JOBS, {"kind": JobKind.CONTRADICTIONS})
    assert Job.objects.filter(owner=alice).count() == 1


def test_an_htmx_start_answers_with_the_form_and_tells_the_list(
        signed_in, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        response = signed_in.post(JOBS, {"kind": JobKind.CONTRADICTIONS},
                                  HTTP_HX_REQUEST="true")
    partial = response.content.decode()
    assert partial.lstrip().startswith('<section id="start-job"')
    assert "jobStarted" in response["HX-Trigger"]
    # the keyboard lands on what happened, not at the top of the page
    assert re.search(r'<p class="notice" tabindex="-1" autofocus>Started: [^<]+\. Its '
                     r'progress is below\.</p>', partial)


def failed_observation(owner):
    observation = Observation.objects.create(owner=owner, project="shop", payload_hash="f1",
                                             status=ObservationStatus.FAILED)
    ObservationChunk.objects.create(observation=observation, position=0, tokens=9,
                                    text="We decided to use PostgreSQL 16 for orders.",
                                    status=ChunkStatus.FAILED, attempts=10,
                                    last_error="storing failed: No space left on device")
    return observation


def test_a_failed_chunk_is_shown_with_its_error_and_a_retry_button(signed_in, alice):
    observation = failed_observation(alice)
    page = signed_in.get(JOBS).content.decode()
    assert "1 failed after every retry" in page and "No space left on device" in page
    assert reverse("observation_retry", args=[observation.pk]) in page


def test_retry_sends_the_failed_chunk_through_extraction_again(
        signed_in, alice, django_capture_on_commit_callbacks):
    observation = failed_observation(alice)
    with django_capture_on_commit_callbacks(execute=True):
        answer = signed_in.post(reverse("observation_retry", args=[observation.pk]),
                                HTTP_HX_REQUEST="true")
    assert answer.status_code == 200 and 'id="job-list"' in answer.content.decode()
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert observation.chunks.get().status == ChunkStatus.EXTRACTED


def test_no_one_else_can_retry_ones_observation(client, alice, bob):
    observation = failed_observation(alice)
    client.force_login(bob)
    assert client.post(reverse("observation_retry", args=[observation.pk])).status_code == 404
    assert "failed after every retry" not in client.get(JOBS).content.decode()
    assert observation.chunks.get().status == ChunkStatus.FAILED


def test_an_observation_that_could_not_be_cut_shows_why_and_a_retry_button(signed_in, alice):
    observation = Observation.objects.create(
        owner=alice, project="shop", payload_hash="f2", status=ObservationStatus.FAILED,
        notes={"cutting_failed": {"attempts": 10, "error": "RuntimeError: a bug"}})
    page = signed_in.get(JOBS).content.decode()
    assert "could not be cut into chunks, kept as observed: RuntimeError: a bug" in page
    assert reverse("observation_retry", args=[observation.pk]) in page

"""Forgetting: what has faded is soft-deleted (restorable), then purged in a logged step."""

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from memories.jobs import create_job, run_job
from memories.maintenance.forgetting import forget, purge
from memories.services.editing import delete_memory, restore_memory, update_memory
from memories.services.remembering import remember
from memories.models import (
    Job,
    JobKind,
    JobStatus,
    Memory,
    PurgeRecord,
    Status,
    UsageEvent,
    UsageKind,
)

NOW = timezone.now()
LONG_AGO = NOW - timedelta(days=400)


def stored(owner, content, *, days_unused=400, importance=3.0, **fields):
    memory = remember(owner=owner, content=content, importance=importance,
                               memory_type=fields.pop("memory_type", "episodic"),
                               **fields).memory
    then = NOW - timedelta(days=days_unused)
    Memory.objects.filter(pk=memory.pk).update(created_at=then, last_accessed_at=then)
    return Memory.objects.get(pk=memory.pk)


def test_a_faded_memory_is_soft_deleted_with_its_reason_and_can_be_restored(alice):
    faded = stored(alice, "Ran the linter on the old branch")
    fresh = stored(alice, "The release train leaves on Tuesdays", days_unused=1)
    result = forget(owner=alice, now=NOW)
    assert (result["forgotten"], result["kept"]) == (1, 1)
    faded.refresh_from_db()
    assert faded.status == Status.DELETED
    version = faded.versions.get(change="status")
    assert version.after["status"] == Status.DELETED
    assert "decayed importance" in version.after["reason"]
    restore_memory(faded, by=alice)
    faded.refresh_from_db()
    assert faded.status == Status.ACTIVE and faded.content == "Ran the linter on the old branch"
    assert Memory.objects.get(pk=fresh.pk).status == Status.ACTIVE


def test_pinned_memories_are_never_forgotten(alice):
    pinned = stored(alice, "The production database password rotates monthly")
    Memory.objects.filter(pk=pinned.pk).update(pinned=True)
    forget(owner=alice, now=NOW)
    assert Memory.objects.get(pk=pinned.pk).status == Status.ACTIVE


@pytest.mark.parametrize("kind, protected", [(UsageKind.CITED, True),
                                             (UsageKind.HELPFUL, True),
                                             (UsageKind.IGNORED, False)])
def test_memories_cited_or_found_helpful_lately_are_never_forgotten(alice, kind, protected):
    memory = stored(alice, "Deploys need the VPN")
    UsageEvent.objects.create(memory=memory, owner=alice, kind=kind,
                              created_at=NOW - timedelta(days=10))
    forget(owner=alice, now=NOW)
    expected = Status.ACTIVE if protected else Status.DELETED
    assert Memory.objects.get(pk=memory.pk).status == expected


def test_superseded_memories_are_archived_not_forgotten(alice):
    old = stored(alice, "The API listens on port 8080", days_unused=2)
    new = stored(alice, "The API listens on port 9090", days_unused=1)
    Memory.objects.filter(pk=old.pk).update(superseded_by=new, valid_to=NOW)
    result = forget(owner=alice, now=NOW)
    assert result["archived"] == 1
    assert Memory.objects.get(pk=old.pk).status == Status.ARCHIVED


def test_a_dry_run_reports_and_changes_nothing(alice):
    memory = stored(alice, "Ran the linter on the old branch")
    result = forget(owner=alice, now=NOW, dry_run=True)
    assert result["forgotten"] == 1 and result["examples"][0]["id"] == str(memory.pk)
    assert Memory.objects.get(pk=memory.pk).status == Status.ACTIVE
    assert memory.versions.count() == 1


def test_forgetting_twice_changes_nothing_the_second_time(alice):
    stored(alice, "Ran the linter on the old branch")
    forget(owner=alice, now=NOW)
    versions = list(Memory.objects.get().versions.values_list("pk", flat=True))
    assert forget(owner=alice, now=NOW)["forgotten"] == 0
    assert list(Memory.objects.get().versions.values_list("pk", flat=True)) == versions


def test_forgetting_one_owner_leaves_the_others_alone(alice, bob):
    stored(alice, "Ran the linter on the old branch")
    bobs = stored(bob, "Ran the linter on the old branch")
    forget(owner=alice, now=NOW)
    assert Memory.objects.get(pk=bobs.pk).status == Status.ACTIVE


def test_the_purge_removes_only_memories_forgotten_long_enough_ago(alice, caplog):
    old = stored(alice, "Ran the linter on the old branch")
    recent = stored(alice, "Tried the staging build once")
    forget(owner=alice, now=NOW)
    Memory.objects.filter(pk=old.pk).update(updated_at=NOW - timedelta(days=31))
    dry = purge(owner=alice, now=NOW, dry_run=True)
    assert dry["purged"] == 1 and Memory.objects.filter(pk=old.pk).exists()
    with caplog.at_level("INFO", logger="memories.maintenance.forgetting"):
        result = purge(owner=alice, now=NOW)
    assert [m["id"] for m in result["memories"]] == [str(old.pk)]
    assert not Memory.objects.filter(pk=old.pk).exists()
    assert Memory.objects.get(pk=recent.pk).status == Status.DELETED
    assert str(old.pk) in caplog.text
    assert "linter" not in caplog.text and "linter" not in str(result)  # ids, never content
    record = PurgeRecord.objects.get()
    assert (record.memory_id, record.owner_id) == (old.pk, alice.pk)
    assert record.purged_at == NOW and "30 days" in record.reason


def test_a_forgetting_job_records_its_progress_and_result(alice):
    stored(alice, "Ran the linter on the old branch")
    stored(alice, "The release train leaves on Tuesdays", days_unused=1)
    job = run_job(create_job(JobKind.FORGET, owner=alice).pk)
    assert job.status == JobStatus.DONE
    assert (job.progress_done, job.progress_total) == (2, 2)
    assert job.result["forgotten"] == 1
    # a job already done is not run again
    assert run_job(job.pk).result == job.result


def test_the_command_has_a_dry_run_that_changes_nothing(alice, capsys):
    faded = stored(alice, "Ran the linter on the old branch")
    call_command("forget", "--dry-run", "--owner", "alice")
    report = json.loads(capsys.readouterr().out)
    assert report["dry_run"] is True and report["forgotten"] == 1
    after_dry_run = Memory.objects.get()
    assert (after_dry_run.status, after_dry_run.updated_at) == (Status.ACTIVE, faded.updated_at)
    assert not after_dry_run.versions.filter(change="status").exists()
    assert Job.objects.get().dry_run
    # the same call for real forgets it: the dry run changed nothing only because it was dry
    call_command("forget", "--owner", "alice")
    assert json.loads(capsys.readouterr().out)["forgotten"] == 1
    assert Memory.objects.get().status == Status.DELETED


def test_the_jobs_api_reports_a_job_to_its_owner_only(alice, bob, api_client_for):
    job = run_job(create_job(JobKind.FORGET, owner=alice).pk)
    body = api_client_for(alice).get(f"/api/v1/jobs/{job.pk}").json()
    assert (body["kind"], body["status"], body["progress"]) == ("forget", "done", 1.0)
    assert api_client_for(bob).get(f"/api/v1/jobs/{job.pk}").status_code == 404


def test_the_simulation_command_reports_the_false_forgetting_rate_of_the_settings(
        settings, capsys):
    settings.ENGRAM_FORGET_HALF_LIFE_DAYS = 5.0
    call_command("simulate_forgetting", "--seeds", "1", "--memories", "400", "--json")
    report = json.loads(capsys.readouterr().out)
    year = report["years"][0]
    assert report["half_life_days"] == 5.0
    assert year["forgotten"] > 0
    assert report["mean_false_forgetting_rate"] == round(
        year["wrongly_forgotten"] / year["forgotten"], 4)


def test_restoring_a_memory_gives_back_the_status_it_had_before_the_delete(alice):
    memory = stored(alice, "Old design notes for the v1 API", days_unused=1)
    update_memory(memory, by=alice, status=Status.ARCHIVED)
    delete_memory(memory, by=alice)
    assert restore_memory(memory, by=alice).status == Status.ARCHIVED

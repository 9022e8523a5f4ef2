"""Background work stays fair: one owner's bulk never stalls another owner's agent.

On the real queue (PostgreSQL storage, the worker stopped so the order can be read): a
write waits as a PendingCheck row, each owner has at most one task in the queue, that
task checks a slice and queues itself again behind everyone else, and interactive work
goes before bulk.
"""

import pytest
from helpers import run_on_redis, service_answers
from huey.registry import Message

from memories.maintenance import contradictions
from memories.models import CheckDrain, Contradiction, PendingCheck
from memories.queue import backlog
from memories.services.remembering import NewMemory, remember, remember_many

pytestmark = pytest.mark.django_db


WORDS = ("amber basil cedar delta ember fjord garnet harbor iris juniper kelp lumen maple "
         "nectar onyx pepper quartz raven sage tundra umber violet willow xenon yarrow "
         "zephyr").split()


def bulk(owner, n):
    """n memories about different things (no two say the same thing with other values,
    and none has another's words the other way round)."""
    return remember_many(owner=owner, items=[
        NewMemory(content=f"The {WORDS[i % 26]} {WORDS[(i // 26) % 26]} notebook keeps "
                          f"{WORDS[(i * 7 + 3) % 26]}ish recipes")
        for i in range(n)])


def queued(huey):
    return [(task.name.rpartition(".")[2], task.args, task.priority)
            for task in huey.pending()]


def test_a_bulk_write_queues_one_task_not_one_per_memory(alice, stopped_worker,
                                                         django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        created = sum(result.created for result in bulk(alice, 120))
    assert created > 100
    assert PendingCheck.objects.filter(owner=alice, interactive=False).count() == created
    assert queued(stopped_worker) == [("check_pending_contradictions", (alice.pk,), 0)]


def test_writes_one_by_one_share_the_owners_one_waiting_task(
        alice, stopped_worker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        for i in range(15):
            remember(owner=alice, content=f"Agent note {i}: the flaky test number {i} "
                                          f"failed on runner {i * 3}")
    assert PendingCheck.objects.filter(owner=alice, interactive=True).count() == 15
    assert [kind for kind, *_ in queued(stopped_worker)] == ["check_pending_contradictions"]


def test_anothers_interactive_check_runs_before_a_backlog_of_bulk(
        alice, bob, stopped_worker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        bulk(alice, 60)
        remember(owner=bob, content="The staging database runs PostgreSQL 15.")
    first = stopped_worker.dequeue()
    assert (first.name.rpartition(".")[2], first.args, first.priority) == (
        "check_pending_contradictions", (bob.pk,), 100)


@pytest.mark.django_db(transaction=True)  # the worker's task closes its connection
def test_a_drain_checks_one_slice_then_queues_itself_behind_the_others(
        alice, bob, stopped_worker, django_capture_on_commit_callbacks, monkeypatch):
    monkeypatch.setattr(contradictions, "DRAIN_LIMIT", 20)
    with django_capture_on_commit_callbacks(execute=True):
        for i in range(30):
            remember(owner=alice, content=f"Alice's import {i}: table number {i} has "
                                          f"{i * 11} rows")
        remember(owner=bob, content="The staging database runs PostgreSQL 16.")
    with django_capture_on_commit_callbacks(execute=True):
        stopped_worker.execute(stopped_worker.dequeue())  # alice's: one slice
    assert PendingCheck.objects.filter(owner=alice).count() == 10
    assert [args for _, args, _ in queued(stopped_worker)] == [(bob.pk,), (alice.pk,)]


def test_a_worker_lost_mid_slice_loses_no_check_and_repeats_none(
        alice, stopped_worker, django_capture_on_commit_callbacks, monkeypatch):
    with django_capture_on_commit_callbacks(execute=True):
        remember(owner=alice, content="The orders API listens on port 8080")
        stored = 2 + sum(result.created for result in bulk(alice, 25))
        remember(owner=alice, content="The orders API listens on port 9090")
    real = contradictions.check_contradictions
    calls = []

    def dies_on_the_second_group(ids, **kwargs):
        calls.append(len(ids))
        if len(calls) == 2:
            raise SystemExit("worker killed")  # what a kill leaves: the group rolled back
        return real(ids, **kwargs)

    monkeypatch.setattr(contradictions, "check_contradictions", dies_on_the_second_group)
    monkeypatch.setattr(contradictions, "DRAIN_SECONDS", 600)  # no clock ends the slice
    with pytest.raises(SystemExit):
        contradictions.check_pending(alice.pk)
    assert PendingCheck.objects.filter(owner=alice).count() == stored - contradictions.DRAIN_GROUP
    assert CheckDrain.objects.filter(owner=alice).exists()  # the lost task's mark stays
    monkeypatch.setattr(contradictions, "check_contradictions", real)
    contradictions.check_pending(alice.pk)
    assert not PendingCheck.objects.filter(owner=alice).exists()
    assert Contradiction.objects.filter(owner=alice).count() == 1


def test_the_sweep_requeues_checks_whose_task_was_lost(alice, stopped_worker,
                                                       django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        remember(owner=alice, content="The orders API listens on port 8080")
    stopped_worker.flush()  # the task is gone, as with a worker killed holding it
    CheckDrain.objects.all().delete()
    assert contradictions.drain_stalled_checks() == 1
    assert [args for _, args, _ in queued(stopped_worker)] == [(alice.pk,)]
    assert contradictions.drain_stalled_checks() == 0  # one waits now: no second


def test_the_jobs_screen_shows_what_waits_of_ones_own(
        signed_in, alice, bob, django_capture_on_commit_callbacks, stopped_worker):
    with django_capture_on_commit_callbacks(execute=True):
        bulk(alice, 12)
        remember(owner=bob, content="Bob's note: the release train leaves on Tuesdays")
    page = signed_in.get("/jobs/").content.decode()
    queue = page[page.index('id="queue"'):page.index('id="jobs-title"')]
    assert f"0 interactive · {PendingCheck.objects.filter(owner=alice).count()} bulk · 1 owner" \
        in queue  # bob's waiting check is not alice's to see
    assert "check_pending_contradictions 2" in queue  # the queue itself: one per owner


REDIS_ORDER = """
from huey.contrib.djhuey import HUEY
from memories.tasks import check_pending_contradictions
HUEY.flush()
for owner in (1, 2, 3):
    check_pending_contradictions(owner, priority=0)
check_pending_contradictions(9, priority=100)
print(type(HUEY).__name__, [HUEY.dequeue().args[0] for _ in range(4)])
HUEY.flush()
"""


@pytest.mark.skipif(not service_answers(6379), reason="no Redis answers on 127.0.0.1:6379")
def test_on_redis_too_interactive_work_is_taken_first():
    assert run_on_redis(REDIS_ORDER).strip() == "PriorityRedisHuey [9, 1, 2, 3]"


def test_the_backlog_counts_tasks_this_process_never_imported(stopped_worker, caplog):
    # a task of an app whose tasks module this process (a web worker) never imported
    elsewhere = Message(id="t-1", name="work.tasks.sweep_elsewhere", args=(), kwargs={})
    stopped_worker.storage.enqueue(stopped_worker.serializer.serialize(elsewhere), 0)
    tasks = backlog()["tasks"]
    assert tasks["by_kind"].get("sweep_elsewhere") == 1, tasks
    assert "Unable to deserialize" not in caplog.text

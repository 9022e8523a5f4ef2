"""A person's retry and the worker settling the same observation: neither overwrites the
other, and an observation whose worker died after its last chunk is still settled."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from memories.capture import extraction
from memories.capture import observe as observing
from memories.models import ChunkStatus, ObservationStatus

pytestmark = pytest.mark.django_db(transaction=True)

DECISION = [{"role": "user", "text": "We decided to use PostgreSQL 16 for the orders "
                                     "service instead of MySQL."}]


def observed(owner, *, now=None):
    return observing.observe(owner=owner, messages=DECISION, tool_events=[], project="shop",
                             session_id="s-1", now=now).observation


def test_a_retry_while_the_worker_settles_the_observation_is_not_overwritten(
        alice, monkeypatch, stopped_worker):
    observation = observed(alice)
    chunk = observation.chunks.create(position=0, text=DECISION[0]["text"], tokens=20,
                                      status=ChunkStatus.FAILED, attempts=10)
    settling, retried = threading.Event(), threading.Event()
    real_status = extraction._settled_status

    def settle_slowly(statuses):  # the worker has read "failed" and is about to write it
        settling.set()
        retried.wait(2)
        return real_status(statuses)

    def retry():
        settling.wait(5)
        try:
            extraction.retry_failed_chunks(alice, observation.pk)
        finally:
            connection.close()
            retried.set()

    monkeypatch.setattr(extraction, "_settled_status", settle_slowly)
    person = threading.Thread(target=retry)
    person.start()
    extraction.process_observation(observation.pk)
    person.join(10)

    observation.refresh_from_db()
    chunk.refresh_from_db()
    # the retry waited for the worker's write, then took effect: pending, to extract again
    assert (observation.status, chunk.status) == (ObservationStatus.PENDING,
                                                  ChunkStatus.PENDING)


def test_an_observation_whose_worker_died_after_its_last_chunk_is_settled_by_the_sweep(
        alice, stopped_worker):
    observation = observed(alice, now=timezone.now() - timedelta(minutes=10))
    observation.chunks.create(position=0, text=DECISION[0]["text"], tokens=20,
                              status=ChunkStatus.EXTRACTED, attempts=1)
    assert observation.status == ObservationStatus.PENDING

    assert extraction.process_due_observations() == 1
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE
    assert extraction.process_due_observations() == 0


def test_two_workers_never_extract_one_observation_side_by_side(alice, monkeypatch,
                                                                stopped_worker):
    observation = observed(alice)
    for position in (0, 1):
        observation.chunks.create(position=position, text=DECISION[0]["text"], tokens=20)
    extracted, inside, release = [], threading.Event(), threading.Event()
    real_extract = extraction._extract_chunk

    def extract_slowly(observation, chunk, now):
        if chunk.position == 0:
            inside.set()
            release.wait(5)
        extracted.append(chunk.position)
        real_extract(observation, chunk, now)

    def first_worker():
        try:
            extraction.process_observation(observation.pk)
        finally:
            connection.close()

    monkeypatch.setattr(extraction, "_extract_chunk", extract_slowly)
    worker = threading.Thread(target=first_worker)
    worker.start()
    assert inside.wait(5)
    assert extraction.process_observation(observation.pk) is None  # the sweep stands aside
    release.set()
    worker.join(10)

    assert extracted == [0, 1]  # in conversation order, each once
    observation.refresh_from_db()
    assert observation.status == ObservationStatus.DONE

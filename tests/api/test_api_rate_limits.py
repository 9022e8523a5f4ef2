"""The API's rate limits: a sliding-window count per client and scope, one statement a
request, shared by every worker process."""

import threading

import pytest
from django.db import connections
from rest_framework.test import APIRequestFactory

from memories.api.throttling import SlidingWindowThrottle


class Throttle(SlidingWindowThrottle):
    THROTTLE_RATES = {"test": "3/min"}

    def __init__(self, at):
        self.timer = lambda: at


class View:
    throttle_scope = "test"


@pytest.fixture
def request_of(alice):
    request = APIRequestFactory().get("/api/v1/memories")
    request.user = alice
    return request


def test_the_limit_is_counted_per_client_and_refuses_the_request_past_it(request_of, bob):
    at = 60 * 1000 + 5.0
    assert [Throttle(at).allow_request(request_of, View()) for _ in range(4)] == [
        True, True, True, False]
    other = APIRequestFactory().get("/api/v1/memories")
    other.user = bob
    assert Throttle(at).allow_request(other, View())


def test_the_previous_window_counts_for_the_part_still_in_sight(request_of):
    minute = 60 * 2000
    for _ in range(3):
        assert Throttle(minute + 50).allow_request(request_of, View())
    # 15 s into the next window, 45 s of the last one are still within the last minute:
    # 3 × 0.75 = 2.25 of them, plus this one, is over three.
    refused = Throttle(minute + 75)
    assert not refused.allow_request(request_of, View())
    # The next one (two in this window then, the refused one counts) is allowed once
    # 2 + 3 × (1 - t/60) <= 3: at t = 40 s, 25 s from now.
    assert refused.wait() == pytest.approx(25)
    assert Throttle(minute + 60 + 41).allow_request(request_of, View())


def test_a_window_over_the_limit_waits_into_the_next(request_of):
    minute = 60 * 3000
    throttles = [Throttle(minute + 30) for _ in range(6)]
    allowed = [throttle.allow_request(request_of, View()) for throttle in throttles]
    assert allowed == [True, True, True, False, False, False]
    # Six counted: the rest of this minute (30 s), then until 1 + 6 × (1 - t/60) <= 3,
    # t = 40 s into the next.
    assert throttles[-1].wait() == pytest.approx(70)


@pytest.mark.django_db(transaction=True)
def test_two_worker_processes_count_against_one_limit(request_of):
    """Each thread has a database connection of its own, as two worker processes would."""
    at = 60 * 4000 + 1.0
    assert Throttle(at).allow_request(request_of, View())
    assert Throttle(at).allow_request(request_of, View())
    allowed = []

    def other_worker():
        try:
            allowed.append(Throttle(at).allow_request(request_of, View()))
            allowed.append(Throttle(at).allow_request(request_of, View()))
        finally:
            connections.close_all()

    worker = threading.Thread(target=other_worker)
    worker.start()
    worker.join()
    assert allowed == [True, False]
    assert not Throttle(at).allow_request(request_of, View())


def test_a_view_without_a_scope_is_not_limited(request_of):
    class Unscoped:
        pass

    assert all(Throttle(1.0).allow_request(request_of, Unscoped()) for _ in range(10))

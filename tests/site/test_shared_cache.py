"""Throttle counters live in a cache every worker process shares: PostgreSQL's table
(created by `migrate`), or Redis when one is configured."""

import threading

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIRequestFactory
from rest_framework.throttling import ScopedRateThrottle

from tests.helpers import settings_with


def test_the_cache_is_not_local_to_a_process(settings):
    assert settings.CACHES["default"]["BACKEND"] in (
        "django.core.cache.backends.db.DatabaseCache",
        "django.core.cache.backends.redis.RedisCache")


@pytest.mark.django_db
def test_migrate_creates_the_cache_table(settings):
    """`migrate` makes it, so `make run` and a clean clone need no createcachetable (the
    test database would have it anyway: Django's test set-up runs createcachetable)."""
    tables = connection.introspection.table_names
    call_command("migrate", "engram_site", "zero", verbosity=0)
    assert settings.CACHE_TABLE not in tables()
    call_command("migrate", "engram_site", verbosity=0)
    assert settings.CACHE_TABLE in tables()
    caches["default"].set("key", "value")
    assert caches["default"].get("key") == "value"


def throttle_with(cache):
    class Throttle(ScopedRateThrottle):
        THROTTLE_RATES = {"test": "3/min"}

    Throttle.cache = cache
    return Throttle()


class View:
    throttle_scope = "test"


@pytest.mark.django_db(transaction=True)
def test_two_processes_count_the_same_throttle(alice):
    """Two cache clients on two database connections (a thread has its own), as two
    gunicorn workers would have: requests through either count against one limit."""
    first, second = caches.create_connection("default"), caches.create_connection("default")
    request = APIRequestFactory().get("/api/v1/memories")
    request.user = alice

    assert throttle_with(first).allow_request(request, View())
    assert throttle_with(first).allow_request(request, View())

    allowed = []

    def other_worker():
        from django.db import connections

        try:
            allowed.append(throttle_with(second).allow_request(request, View()))
            allowed.append(throttle_with(second).allow_request(request, View()))
        finally:
            connections.close_all()

    worker = threading.Thread(target=other_worker)
    worker.start()
    worker.join()
    assert allowed == [True, False]  # the third request of the minute, then the fourth
    assert not throttle_with(first).allow_request(request, View())
    first.clear()


def test_redis_holds_the_cache_when_one_is_given(monkeypatch):
    assert settings_with(monkeypatch)["CACHES"]["default"]["LOCATION"] == "engram_cache"
    cache = settings_with(monkeypatch, HUEY_REDIS_URL="redis://127.0.0.1:6379/0")[
        "CACHES"]["default"]
    assert cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:6379/0"
    both = settings_with(monkeypatch, HUEY_REDIS_URL="redis://127.0.0.1:6379/0",
                         CACHE_REDIS_URL="redis://127.0.0.1:6379/3")
    assert both["CACHES"]["default"]["LOCATION"] == "redis://127.0.0.1:6379/3"

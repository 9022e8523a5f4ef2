"""Engram's cache (what one worker process tells the others, e.g. that an agent's
deviation was already judged) lives where every worker process sees it: PostgreSQL's
table (created by `migrate`), or Redis when one is configured. The rate limits keep
their own counts (tests/api/test_api_rate_limits.py)."""

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.db import connection

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


def test_redis_holds_the_cache_when_one_is_given(monkeypatch):
    assert settings_with(monkeypatch)["CACHES"]["default"]["LOCATION"] == "engram_cache"
    cache = settings_with(monkeypatch, HUEY_REDIS_URL="redis://127.0.0.1:6379/0")[
        "CACHES"]["default"]
    assert cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:6379/0"
    both = settings_with(monkeypatch, HUEY_REDIS_URL="redis://127.0.0.1:6379/0",
                         CACHE_REDIS_URL="redis://127.0.0.1:6379/3")
    assert both["CACHES"]["default"]["LOCATION"] == "redis://127.0.0.1:6379/3"
